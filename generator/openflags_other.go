//go:build !unix

package generator

import "os"

// openFlags are the flags with which a plan opens the files and
// directories of a DirFS source (see openflags_unix.go).
const openFlags = os.O_RDONLY
