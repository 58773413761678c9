package reconciler_test

import (
	"github.com/go-logr/logr"
)

func discardLogger() logr.Logger { return logr.Discard() }
