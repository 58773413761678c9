//go:build unix

package generator

import (
	"os"
	"syscall"
)

// openFlags are the flags with which a plan opens the files and
// directories of a DirFS source (see rootSource and dirView): O_NONBLOCK, which
// has no effect on reading a regular file or a directory, spares the four
// fcntl calls (setting and restoring blocking mode) that os.Root.Open
// makes on each file it opens, out of the ten system calls of reading a
// small file. It also makes opening a FIFO (which pathpattern.ReadFile
// refuses, after an Lstat) return at once rather than wait for a writer.
const openFlags = os.O_RDONLY | syscall.O_NONBLOCK
