package generator

import "errors"

// ErrNotFound is what an [ObjectReader] returns when the object does not
// exist in the cluster (a controller maps Kubernetes' NotFound to it).
var ErrNotFound = errors.New("generator: object not found")
