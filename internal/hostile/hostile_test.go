package hostile

import (
	"fmt"
	"strings"
	"testing"
)

// recorder is a testing.TB that records Fatalf instead of stopping.
type recorder struct {
	testing.TB
	failed string
}

func (r *recorder) Helper() {}

func (r *recorder) Fatalf(format string, args ...any) { r.failed = fmt.Sprintf(format, args...) }

func TestNoPanic(t *testing.T) {
	ran := false
	r := &recorder{TB: t}
	NoPanic(r, func() { ran = true })
	if !ran || r.failed != "" {
		t.Fatalf("NoPanic(no panic): ran = %v, failed = %q; want true, \"\"", ran, r.failed)
	}
	r = &recorder{TB: t}
	NoPanic(r, func() { panic("boom") })
	if !strings.HasPrefix(r.failed, "panic: boom\n") || !strings.Contains(r.failed, "TestNoPanic") {
		t.Fatalf("NoPanic(panic) failed with %q, want \"panic: boom\" and a stack through TestNoPanic", r.failed)
	}
}
