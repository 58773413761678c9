//go:build !linux

package generator

import (
	"io/fs"
	"os"
)

// readEntries reads the entries of the directory f, which is name in root
// (see dirents_linux.go).
func readEntries(root *os.Root, name string, f *os.File) ([]fs.DirEntry, error) {
	return f.ReadDir(-1)
}
