//go:build !unix

package main

import "os"

// openFlags are the flags with which a plan opens the files and
// directories of a -source (see openflags_unix.go).
const openFlags = os.O_RDONLY
