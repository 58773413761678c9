//go:build unix

package hostile

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// Mkfifo replaces whatever is at path with a named pipe, creating its parent directories: a
// file that blocks its reader, which no commit can hold but a checkout on a shared disk can.
func Mkfifo(t testing.TB, path string) {
	t.Helper()
	os.Remove(path)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Fatal(err)
	}
}
