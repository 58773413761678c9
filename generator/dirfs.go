package generator

import (
	"io/fs"
	"os"
	"slices"
	"strings"
)

// DirFS returns the file system of a source directory opened as an
// os.Root, for [Generator.Plan]: root.FS(), which confines every read below
// the directory, symbolic links included. On Linux, a plan opens the
// directory of each module from it, and reads the files below with one
// system call per file and per directory rather than one per path element
// (see dirView). A plan reads root until it returns; the caller closes it.
//
//	root, err := os.OpenRoot(checkout)
//	plan, err := g.Plan(ctx, map[string]fs.FS{"repo": generator.DirFS(root)}, previous, cluster)
func DirFS(root *os.Root) fs.FS { return newRootSource(root) }

// rootSource is the file system that DirFS returns.
type rootSource struct {
	fsys fs.FS // root.FS()
	root *os.Root
}

func newRootSource(root *os.Root) *rootSource { return &rootSource{fsys: root.FS(), root: root} }

// Open is root.FS().Open, opening with openFlags.
func (s *rootSource) Open(name string) (fs.File, error) {
	if !plainName(name) {
		return s.fsys.Open(name) // for root.FS()'s own error
	}
	f, err := s.root.OpenFile(name, openFlags, 0)
	if err != nil {
		return nil, err
	}
	return f, nil
}

// ReadDir is root.FS().ReadDir, opening the directory with openFlags.
func (s *rootSource) ReadDir(name string) ([]fs.DirEntry, error) {
	if !plainName(name) {
		return fs.ReadDir(s.fsys, name)
	}
	return readDir(s.root, name)
}

func (s *rootSource) ReadFile(name string) ([]byte, error)   { return fs.ReadFile(s.fsys, name) }
func (s *rootSource) ReadLink(name string) (string, error)   { return fs.ReadLink(s.fsys, name) }
func (s *rootSource) Lstat(name string) (fs.FileInfo, error) { return fs.Lstat(s.fsys, name) }
func (s *rootSource) Stat(name string) (fs.FileInfo, error)  { return fs.Stat(s.fsys, name) }

// plainName reports whether root.FS() passes name to the root as it is: a
// valid fs.FS path without a backslash (which root.FS() refuses on
// Windows).
func plainName(name string) bool { return fs.ValidPath(name) && !strings.Contains(name, `\`) }

// readDir is what root.FS().ReadDir does, opening the directory with
// openFlags: open it, read every entry, sort them by name; but for the
// entries' FileInfo, which it reads only when asked (see readEntries).
func readDir(root *os.Root, name string) ([]fs.DirEntry, error) {
	f, err := root.OpenFile(name, openFlags, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	entries, err := readEntries(root, name, f)
	slices.SortFunc(entries, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return entries, err
}

// rootEntry is an entry of a directory of an os.Root, read with its type
// (see readEntries); its FileInfo comes from the root, with Lstat, when
// asked. It holds what the caches keep of it (see typeInfo).
type rootEntry struct {
	statInfo // its name, and its type as mode
	root     *os.Root
	path     string      // relative to root
	info     fs.FileInfo // nil until known
}

func (e *rootEntry) Type() fs.FileMode { return e.mode }
func (e *rootEntry) String() string    { return fs.FormatDirEntry(e) }

func (e *rootEntry) Info() (fs.FileInfo, error) {
	if e.info != nil {
		return e.info, nil
	}
	return e.root.Lstat(e.path)
}

var (
	_ fs.ReadDirFS  = (*rootSource)(nil)
	_ fs.ReadFileFS = (*rootSource)(nil)
	_ fs.ReadLinkFS = (*rootSource)(nil)
	_ fs.StatFS     = (*rootSource)(nil)
)
