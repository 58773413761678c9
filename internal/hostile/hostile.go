package hostile

import (
	"runtime/debug"
	"testing"
)

// NoPanic runs f and turns a panic into a failure of t with its stack, so
// that one hostile case cannot take the whole test binary down.
func NoPanic(t testing.TB, f func()) {
	t.Helper()
	defer func() {
		if r := recover(); r != nil {
			t.Fatalf("panic: %v\n%s", r, debug.Stack())
		}
	}()
	f()
}
