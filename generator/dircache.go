package generator

import (
	"errors"
	"io/fs"
	"maps"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tenantkit/tenantkit/pathpattern"
)

// dirCache wraps a source file system for the length of one plan and
// remembers what it has learnt of the tree: which paths are directories
// (not symbolic links to them), and the entries of the directories it has
// read.
//
// Every file a plan reads on a tenant's behalf goes through
// pathpattern.ReadFile, which refuses a path with a symbolic link anywhere
// in it by calling Lstat on each of its elements; pathpattern.Glob checks
// the directories of a copy's prefix the same way. On an os.Root (see
// DirFS), an Lstat of a path with d elements costs d openat and d close
// system calls, so checking every element of a path
// costs about d*d/2 calls, and the same directories (tenants,
// tenants/team-a, tenants/team-a/modules, ...) are checked again for every
// file below them: before this cache, those calls were most of the time of
// a plan. The cache answers Lstat and Stat of a directory already seen, and
// Lstat of an entry of a directory already read (with the type that the
// directory records, see statInfo), so each directory is checked once per
// plan, and the files that a copy selects are not checked again.
//
// Files are never read from the cache: opening one asks the file system,
// and pathpattern.ReadFile checks the opened file again. pathpattern
// already requires that the tree does not change while a plan reads it;
// the cache relies on the same. A dirCache is safe for concurrent use, as
// the plan's workers share it.
type dirCache struct {
	fsys fs.FS
	root *os.Root // the root of a rootSource, for views (see dirView); or nil

	// The root of the pattern's fixed prefix, and the prefix with a
	// trailing slash (see anchor); or nil and "".
	prefixRoot *os.Root
	prefix     string
	// On Linux, the prefix opened as a directory, and its descriptor, from
	// which names below it are opened with one openat2 call (see
	// openBelow); or nil and -1.
	prefixDir *os.File
	prefixFD  int
	noOpenat2 atomic.Bool // the kernel, or a seccomp filter, refused openat2

	mu    sync.RWMutex
	known map[string]*statInfo // Lstat of directories seen and of entries of directories read
}

func newDirCache(fsys fs.FS) *dirCache {
	c := &dirCache{fsys: fsys, known: map[string]*statInfo{}, prefixFD: -1}
	if s, ok := fsys.(*rootSource); ok {
		c.root = s.root
	}
	return c
}

// statInfo is what the cache keeps of a FileInfo: all of it but Sys, which
// no reader of the cache uses, in 64 bytes rather than the 200 of an
// os.FileInfo with its syscall.Stat_t. A plan of 10,000 tenants keeps some
// 50,000 of them: keeping the os.FileInfo values, and each directory's
// entries, held 25 MB more of live heap in the middle of the plan.
//
// Of an entry of a directory read, the cache knows only the name and type
// (typeInfo): its size, permissions and time are zero. Nothing in a plan
// reads them from Lstat: pathpattern.ReadFile checks the size of the file
// it opened.
//
// The caches hold pointers, so that answering an Lstat allocates nothing:
// holding values, each answer boxed one into an fs.FileInfo: 93,000
// allocations and 8 MB of a 1,000-tenant plan's 1.43 million and 119 MB.
type statInfo struct {
	name    string
	size    int64
	mode    fs.FileMode
	modTime time.Time
}

func compact(info fs.FileInfo) *statInfo {
	return &statInfo{name: info.Name(), size: info.Size(), mode: info.Mode(), modTime: info.ModTime()}
}

// typeInfo is what a directory entry says of itself, without asking the
// file system: its name and type; a rootEntry's own.
func typeInfo(e fs.DirEntry) *statInfo {
	if re, ok := e.(*rootEntry); ok {
		return &re.statInfo
	}
	return &statInfo{name: e.Name(), mode: e.Type()}
}

func (s statInfo) Name() string       { return s.name }
func (s statInfo) Size() int64        { return s.size }
func (s statInfo) Mode() fs.FileMode  { return s.mode }
func (s statInfo) ModTime() time.Time { return s.modTime }
func (s statInfo) IsDir() bool        { return s.mode.IsDir() }
func (s statInfo) Sys() any           { return nil }

func (c *dirCache) load(name string) (*statInfo, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	info, ok := c.known[name]
	return info, ok
}

// anchor opens the root of dir, the pattern's fixed prefix ("tenants" of
// "@repo/tenants/{namespace}/modules/{module}"), which checkSource found to
// be a directory and not a link, so that c reads the names below it from
// there: on an os.Root, every operation walks its name one element at a
// time, with an openat and a close for each directory, and every name a
// plan reads of a tenant is below the prefix. At 1,000 tenants, this saves
// some 13,000 of its 188,000 file-system calls (Discover's, the
// namespaces' metadata files', and opening each tenant's modules
// directory, see artifacts). As in a dirView, an operation that fails
// there is asked of the source, for its own error. close closes the root.
func (c *dirCache) anchor(dir string) {
	if c.root == nil || dir == "" || !plainName(dir) {
		return
	}
	if r, err := c.root.OpenRoot(dir); err == nil {
		c.prefixRoot, c.prefix = r, dir+"/"
		c.openPrefix(dir)
	}
}

func (c *dirCache) close() {
	if c.prefixRoot != nil {
		c.prefixRoot.Close()
	}
	if c.prefixDir != nil {
		c.prefixDir.Close()
	}
}

// below returns the prefix root and name relative to it, or nil when name is
// not below the prefix.
func (c *dirCache) below(name string) (*os.Root, string) {
	if c.prefixRoot == nil || !strings.HasPrefix(name, c.prefix) || !plainName(name) {
		return nil, ""
	}
	return c.prefixRoot, name[len(c.prefix):]
}

func (c *dirCache) Open(name string) (fs.File, error) {
	if r, rel := c.below(name); r != nil {
		if f := c.openBelow(rel, name); f != nil {
			return f, nil
		}
		if f, err := r.OpenFile(rel, openFlags, 0); err == nil {
			return f, nil
		}
	}
	return c.fsys.Open(name)
}

// ReadDir is fs.ReadDir of the wrapped file system. On an os.Root, it
// remembers each entry's type, for Lstat.
func (c *dirCache) ReadDir(name string) ([]fs.DirEntry, error) {
	var (
		entries []fs.DirEntry
		err     error = fs.ErrNotExist
	)
	if r, rel := c.below(name); r != nil {
		if entries, err = c.readDirBelow(rel, name); err != nil {
			entries, err = readDir(r, rel)
		}
	}
	if err != nil {
		entries, err = fs.ReadDir(c.fsys, name)
	}
	if err != nil || c.root == nil {
		return entries, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, e := range entries {
		c.known[pathJoin(name, e.Name())] = typeInfo(e)
	}
	return entries, nil
}

func (c *dirCache) ReadLink(name string) (string, error) { return fs.ReadLink(c.fsys, name) }

// Lstat is fs.Lstat of the wrapped file system, which falls back to Stat
// when that does not report links (see pathpattern.ReadFile).
func (c *dirCache) Lstat(name string) (fs.FileInfo, error) {
	if info, ok := c.load(name); ok {
		return info, nil
	}
	var (
		info fs.FileInfo
		err  error = fs.ErrNotExist
	)
	if r, rel := c.below(name); r != nil {
		info, err = r.Lstat(rel)
		// A name that does not exist below the prefix does not exist in the
		// source either (a namespace without a metadata file): the error is
		// the source's, but for its path.
		var pe *fs.PathError
		if errors.Is(err, fs.ErrNotExist) && errors.As(err, &pe) && pe.Path == rel {
			return nil, &fs.PathError{Op: pe.Op, Path: name, Err: pe.Err}
		}
	}
	if err != nil {
		info, err = fs.Lstat(c.fsys, name)
	}
	if err == nil && info.IsDir() && info.Mode()&fs.ModeSymlink == 0 {
		c.mu.Lock()
		c.known[name] = compact(info)
		c.mu.Unlock()
	}
	return info, err
}

// Stat follows a link; for a directory that is not a link it is the same as
// Lstat.
func (c *dirCache) Stat(name string) (fs.FileInfo, error) {
	if info, ok := c.load(name); ok && info.IsDir() {
		return info, nil
	}
	if r, rel := c.below(name); r != nil {
		if info, err := r.Stat(rel); err == nil {
			return info, nil
		}
	}
	return fs.Stat(c.fsys, name)
}

// OpenNoFollow opens name (see pathpattern.NoFollowFS) when it is below
// the pattern's prefix, with one openat2 that follows no link (see
// beneath); checkSource has checked the prefix itself. Anything else fails,
// and pathpattern.ReadFile then checks name element by element, as
// before: a namespace's metadata file was an Lstat through the prefix's
// os.Root (an openat, an fstatat and a close, see Lstat), then an openat2.
func (c *dirCache) OpenNoFollow(name string) (fs.File, error) {
	if r, rel := c.below(name); r != nil {
		if f := c.openBelow(rel, name); f != nil {
			return f, nil
		}
	}
	return nil, errNotOpened
}

// errNotOpened is OpenNoFollow's failure, which pathpattern.ReadFile does
// not report.
var errNotOpened = errors.New("not opened without following links")

var (
	_ fs.ReadDirFS           = (*dirCache)(nil)
	_ fs.ReadLinkFS          = (*dirCache)(nil)
	_ fs.StatFS              = (*dirCache)(nil)
	_ pathpattern.NoFollowFS = (*dirCache)(nil)
)

// dirDesc is a directory of the source opened as a descriptor, fd (-1 for
// none), and whether it was opened without following a link anywhere in
// its name (see dirCache.beneath), which dirView.OpenNoFollow needs.
type dirDesc struct {
	fd       int
	linkFree bool
}

// noDir is no open directory.
var noDir = dirDesc{fd: -1}

// viewSource makes p read the source of the pattern's alias through a view
// of dir, the directory of the task's match (see dirView), opened from
// parent when it is open, and returns the function that closes the view.
func (p *planner) viewSource(dir string, parent dirDesc) (done func()) {
	alias := p.g.pattern.Alias()
	c, ok := p.sources[alias].(*dirCache)
	if !ok {
		return func() {}
	}
	v, done := c.view(dir, parent)
	p.sources = maps.Clone(p.sources)
	p.sources[alias] = v
	return done
}
