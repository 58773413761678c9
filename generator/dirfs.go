package generator

import (
	"io/fs"
	"os"
	"slices"
	"strings"
)

// DirFS returns the file system of a source directory opened as an
// os.Root, for [Generator.Plan]: root.FS(), which confines every read below
// the directory, symbolic links included, and which lets a plan open the
// directory of each module as a root of its own and read the files below it
// without walking the whole path again, one openat per file rather than one
// per path element (see dirView). A plan reads root until it returns; the
// caller closes it.
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
// asked.
type rootEntry struct {
	root *os.Root
	path string // relative to root
	name string
	typ  fs.FileMode
	info fs.FileInfo // nil until known
}

func (e *rootEntry) Name() string      { return e.name }
func (e *rootEntry) IsDir() bool       { return e.typ.IsDir() }
func (e *rootEntry) Type() fs.FileMode { return e.typ }
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

// dirView is how one task of a plan, which reads the files of one module
// directory, sees the source: a name below dir is read through an open
// os.Root of its own directory, everything else through the plan's
// dirCache.
//
// An operation on an os.Root walks the name one element at a time, each an
// openat and a close system call, so that reading the files of a module at
// depth d from the root of the source costs some 2*d calls per file; from
// an open root of the file's own directory, it costs one. The roots are
// opened as needed, each from its parent's (one openat), and closed with
// the view. Each root is opened below the source's root, so it confines
// reads as the source's root does.
//
// A dirView gives the same results as the source it views: an operation
// that fails on a directory's root is asked of the source, whose error it
// returns; and the names of opened files (used in their errors) are the
// same, as an os.Root opened inside another is named after its path from
// there. TestDirViewSameAsRoot checks this on a tree with links. Only
// opening a FIFO differs: it does not wait for a writer (see openFlags);
// and Lstat and Stat of a name known from its directory's entries give its
// name and type, not its size, permissions or time (see statInfo).
// A dirView relies, as the dirCache does, on a tree that does not change
// while it is read.
//
// A dirView is used by one goroutine at a time.
type dirView struct {
	*dirCache
	dir    string               // the module directory, slash-separated
	parent *os.Root             // a root of dir's parent, or nil; not the view's to close
	roots  map[string]*os.Root  // below dir, by path relative to dir ("" is dir)
	bad    bool                 // dir could not be opened: use the dirCache
	known  map[string]*statInfo // below dir: directories seen, entries of directories read
}

// view returns a view of c for a task that reads the files below dir, and
// the function that closes it; when c's source is not a rootSource, c
// itself. parent, when not nil, is an open root of dir's parent directory,
// from which the view opens dir's root (see artifacts).
func (c *dirCache) view(dir string, parent *os.Root) (fs.FS, func()) {
	if c.root == nil || dir == "." || !fs.ValidPath(dir) {
		return c, func() {}
	}
	v := &dirView{dirCache: c, dir: dir, parent: parent, roots: map[string]*os.Root{}, known: map[string]*statInfo{}}
	return v, v.close
}

// dirRoot opens the root of the directory dir, from the prefix's root when
// dir is below it, or returns nil when it cannot: whoever would have used
// it opens what it needs itself, with the source's errors.
func (c *dirCache) dirRoot(dir string) *os.Root {
	if c.root == nil || !plainName(dir) {
		return nil
	}
	if pr, rel := c.below(dir); pr != nil {
		if r, err := pr.OpenRoot(rel); err == nil {
			return r
		}
	}
	r, err := c.root.OpenRoot(dir)
	if err != nil {
		return nil
	}
	return r
}

// close closes the roots that v opened and forgets what it learnt: the
// artifacts' files still refer to v until the plan ends.
func (v *dirView) close() {
	for _, r := range v.roots {
		r.Close()
	}
	v.roots, v.known, v.bad = nil, nil, true
}

// split returns the root of name's directory and name's base name, or nil
// when name is not below v.dir.
func (v *dirView) split(name string) (*os.Root, string) {
	if v.bad || len(name) <= len(v.dir) || name[len(v.dir)] != '/' || !strings.HasPrefix(name, v.dir) {
		return nil, ""
	}
	rel := name[len(v.dir)+1:]
	if !fs.ValidPath(rel) {
		return nil, ""
	}
	parent, base := "", rel
	if i := strings.LastIndexByte(rel, '/'); i >= 0 {
		parent, base = rel[:i], rel[i+1:]
	}
	r := v.openRoot(parent)
	if r == nil {
		return nil, ""
	}
	return r, base
}

// openRoot returns the root of the directory rel below v.dir, opening it
// and the directories above it as needed, or nil when one cannot be
// opened: the operation then goes through the dirCache, which reports the
// error as the source does.
func (v *dirView) openRoot(rel string) *os.Root {
	if r, ok := v.roots[rel]; ok {
		return r
	}
	var (
		r   *os.Root
		err error
	)
	if rel == "" {
		if v.parent != nil {
			r, _ = v.parent.OpenRoot(base(v.dir))
		}
		if r == nil {
			r = v.dirRoot(v.dir)
		}
		if r == nil {
			v.bad = true
			return nil
		}
	} else {
		parent, base := "", rel
		if i := strings.LastIndexByte(rel, '/'); i >= 0 {
			parent, base = rel[:i], rel[i+1:]
		}
		pr := v.openRoot(parent)
		if pr == nil {
			return nil
		}
		if r, err = pr.OpenRoot(base); err != nil {
			return nil
		}
	}
	v.roots[rel] = r
	return r
}

// Each operation below tries the root of the name's directory, and on any
// error asks the dirCache instead: a link below v.dir may lead out of the
// directory's root and still stay inside the source's, and errors must be
// the source's own, with its paths. Where the directory's root succeeds,
// the source's root gives the same result: it resolves the same names and
// links, and refuses no more.

func (v *dirView) Open(name string) (fs.File, error) {
	if r, base := v.split(name); r != nil {
		if f, err := r.OpenFile(base, openFlags, 0); err == nil {
			return f, nil
		}
	}
	return v.dirCache.Open(name)
}

func (v *dirView) ReadDir(name string) ([]fs.DirEntry, error) {
	r, base := v.split(name)
	if r == nil {
		return v.dirCache.ReadDir(name)
	}
	entries, err := readDir(r, base)
	if err != nil {
		return v.dirCache.ReadDir(name)
	}
	for _, e := range entries {
		v.known[name+"/"+e.Name()] = typeInfo(e)
	}
	return entries, nil
}

func (v *dirView) ReadLink(name string) (string, error) {
	if r, base := v.split(name); r != nil {
		if target, err := r.Readlink(base); err == nil {
			return target, nil
		}
	}
	return v.dirCache.ReadLink(name)
}

func (v *dirView) Lstat(name string) (fs.FileInfo, error) {
	if info, ok := v.known[name]; ok {
		return info, nil
	}
	if r, base := v.split(name); r != nil {
		if info, err := r.Lstat(base); err == nil {
			if info.IsDir() {
				v.known[name] = compact(info)
			}
			return info, nil
		}
	}
	return v.dirCache.Lstat(name)
}

func (v *dirView) Stat(name string) (fs.FileInfo, error) {
	if info, ok := v.known[name]; ok && info.IsDir() {
		return info, nil // not a link: Stat is Lstat
	}
	if r, base := v.split(name); r != nil {
		if info, err := r.Stat(base); err == nil {
			return info, nil
		}
	}
	return v.dirCache.Stat(name)
}

var (
	_ fs.ReadDirFS  = (*dirView)(nil)
	_ fs.ReadLinkFS = (*dirView)(nil)
	_ fs.StatFS     = (*dirView)(nil)
)
