package dirfs

import (
	"io/fs"
	"slices"
	"strings"

	"github.com/tenantkit/tenantkit/internal/readfile"
)

// FS is a read-only file system, rooted at a directory, that follows no symbolic link in any
// element of a name and never reaches outside the directory (the package documentation has the
// guarantees on each system). Its errors are [*fs.PathError] values naming the name asked for;
// Sys of its FileInfo is nil on Linux. An FS is safe for concurrent use; the files it opens are
// not, and stay open after [FS.Close] until closed. The zero FS is not valid; use [Open].
type FS struct {
	// linkRefusal is true: Open refuses links itself, so pathpattern.ReadFile
	// need not Lstat each element first (see readfile.ReadChecked).
	linkRefusal
	sys sysFS
}

type linkRefusal = readfile.RefusesLinks // under a name that keeps it unexported

// Open opens the directory dir and returns a file system rooted at it:
//
//	fsys, err := dirfs.Open("/var/lib/checkout/monorepo")
//
// dir itself is found as the system finds any path, links included, and held open until
// [FS.Close], so that renaming or replacing it does not change the tree read; mount points
// below it are crossed. The error is an [*fs.PathError] naming dir.
func Open(dir string) (*FS, error) { return open(dir, false) }

// Close releases the directory, once the operations under way are done. Later operations fail
// with an error wrapping [fs.ErrClosed]; files already open stay open. Close returns nil, the
// second time too.
func (f *FS) Close() error { return f.sys.close() }

// Open opens the file name for reading; a link in any element of name is an error wrapping
// [ErrLink]. A named pipe is opened non-blocking on Linux (it reads as empty without a writer)
// and refused elsewhere. The file is also an [fs.ReadDirFile], whose entries are those of
// [FS.ReadDir].
func (f *FS) Open(name string) (fs.File, error) {
	if err := checkName("open", name); err != nil {
		return nil, err
	}
	return f.sys.open(name)
}

// ReadDir reads the directory name, opened as [FS.Open] opens it, and returns its entries
// sorted by name; an entry's Info is [FS.Lstat] of it when called.
func (f *FS) ReadDir(name string) ([]fs.DirEntry, error) {
	if err := checkName("readdir", name); err != nil {
		return nil, err
	}
	list, err := f.sys.readDir(name)
	sortEntries(list)
	return list, err
}

// Lstat describes the file name, or the link that is its last element; a link in an element
// before the last is an error wrapping [ErrLink].
func (f *FS) Lstat(name string) (fs.FileInfo, error) {
	if err := checkName("lstat", name); err != nil {
		return nil, err
	}
	return f.sys.lstat(name)
}

// Stat is [FS.Lstat], except that a link as the last element is an error wrapping [ErrLink]
// too: Stat follows no link, unlike os.DirFS's or os.Root's.
func (f *FS) Stat(name string) (fs.FileInfo, error) {
	if err := checkName("stat", name); err != nil {
		return nil, err
	}
	info, err := f.sys.lstat(name)
	if err != nil {
		if pe, ok := err.(*fs.PathError); ok {
			pe.Op = "stat"
		}
		return nil, err
	}
	if info.Mode()&fs.ModeSymlink != 0 {
		return nil, &fs.PathError{Op: "stat", Path: name, Err: ErrLink}
	}
	return info, nil
}

// ReadLink returns the target of the link name; a link in an element before the last is an
// error wrapping [ErrLink], and a name that is no link the system's (EINVAL on Unix).
func (f *FS) ReadLink(name string) (string, error) {
	if err := checkName("readlink", name); err != nil {
		return "", err
	}
	return f.sys.readLink(name)
}

var (
	_ fs.ReadDirFS  = (*FS)(nil)
	_ fs.ReadLinkFS = (*FS)(nil)
	_ fs.StatFS     = (*FS)(nil)
)

// checkName refuses what is not an fs.FS name, and a NUL byte, which no system call takes.
func checkName(op, name string) error {
	if !fs.ValidPath(name) || strings.IndexByte(name, 0) >= 0 {
		return &fs.PathError{Op: op, Path: name, Err: fs.ErrInvalid}
	}
	return nil
}

func sortEntries(list []fs.DirEntry) {
	slices.SortFunc(list, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
}
