package dirfs

import (
	"io/fs"
	"slices"
	"strings"

	"github.com/tenantkit/tenantkit/internal/readfile"
)

// FS is a read-only file system rooted at a directory, whose every
// operation follows no symbolic link in any element of the name it is
// given and never reaches outside the directory; see the package
// documentation for what that means on each system.
//
// It implements [fs.FS], [fs.ReadDirFS], [fs.StatFS] and [fs.ReadLinkFS].
// Names are [fs.FS] names: slash-separated, relative, cleaned; any other
// name is an error wrapping [fs.ErrInvalid]. Errors are [*fs.PathError]
// values naming the name asked for.
//
// An FS is safe for concurrent use. The files it opens are not; they stay
// open, and must be closed, after the FS is closed. The zero FS is not
// valid; use [Open].
type FS struct {
	// linkRefusal is true: Open refuses a link in any element, so that
	// pathpattern.ReadFile need not check each element with Lstat first
	// (see readfile.ReadChecked).
	linkRefusal
	sys sysFS
}

// linkRefusal is readfile.RefusesLinks under a name that makes it no
// exported field of FS.
type linkRefusal = readfile.RefusesLinks

// Open opens the directory dir and returns a file system rooted at it:
//
//	fsys, err := dirfs.Open("/var/lib/checkout/monorepo")
//	...
//	defer fsys.Close()
//
// dir itself is found as the operating system finds any path, links
// included; below it, no link is followed. The FS holds dir open until
// [FS.Close]: renaming or replacing dir does not change the tree it reads.
// The error is an [*fs.PathError] naming dir.
func Open(dir string) (*FS, error) { return open(dir, false) }

// Close releases the directory, once the operations under way are done.
// Later operations fail with an error wrapping [fs.ErrClosed]; files
// already open stay open. Close returns nil, the second time too.
func (f *FS) Close() error { return f.sys.close() }

// Open opens the file name for reading, without following a link in any
// element of name: a link anywhere is an error wrapping [ErrLink]. It does
// not wait to open a named pipe (FIFO): the file is opened non-blocking on
// Linux, and elsewhere refused (see the package documentation). The file
// is also an [fs.ReadDirFile], whose entries are those of [FS.ReadDir].
func (f *FS) Open(name string) (fs.File, error) {
	if err := checkName("open", name); err != nil {
		return nil, err
	}
	return f.sys.open(name)
}

// ReadDir reads the directory name, opened as [FS.Open] opens a name, and
// returns its entries sorted by name. An entry's Info is [FS.Lstat] of its
// name at the time Info is called.
func (f *FS) ReadDir(name string) ([]fs.DirEntry, error) {
	if err := checkName("readdir", name); err != nil {
		return nil, err
	}
	list, err := f.sys.readDir(name)
	sortEntries(list)
	return list, err
}

// Lstat describes the file name without following a link in any element of
// name; when the last element is a link, it describes the link. A link in
// an element before the last is an error wrapping [ErrLink].
func (f *FS) Lstat(name string) (fs.FileInfo, error) {
	if err := checkName("lstat", name); err != nil {
		return nil, err
	}
	return f.sys.lstat(name)
}

// Stat is [FS.Lstat], except that a link as the last element is an error
// wrapping [ErrLink] too: Stat follows no link. (fs.Stat of an FS from
// os.DirFS or os.Root follows one.)
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

// ReadLink returns the target of the link name, without following a link
// in any element of name before the last (that is an error wrapping
// [ErrLink]). When name is not a link, the error is the system's (EINVAL
// on Unix).
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

// checkName refuses what is not an fs.FS name, and a NUL byte, which no
// system call can take.
func checkName(op, name string) error {
	if !fs.ValidPath(name) || strings.IndexByte(name, 0) >= 0 {
		return &fs.PathError{Op: op, Path: name, Err: fs.ErrInvalid}
	}
	return nil
}

func sortEntries(list []fs.DirEntry) {
	slices.SortFunc(list, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
}
