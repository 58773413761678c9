//go:build !linux

package dirfs

import "testing"

// variants are the ways an FS reads a tree on this system: through an
// os.Root with its checks.
func variants(testing.TB) []variant {
	return []variant{{name: "root", open: Open}}
}

var errIrregularForTest = errIrregular
