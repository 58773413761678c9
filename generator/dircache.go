package generator

import (
	"io/fs"
	"maps"
	"os"
	"sync"
	"time"
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

	mu    sync.RWMutex
	known map[string]statInfo // Lstat of directories seen and of entries of directories read
}

func newDirCache(fsys fs.FS) *dirCache {
	c := &dirCache{fsys: fsys, known: map[string]statInfo{}}
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
type statInfo struct {
	name    string
	size    int64
	mode    fs.FileMode
	modTime time.Time
}

func compact(info fs.FileInfo) statInfo {
	return statInfo{name: info.Name(), size: info.Size(), mode: info.Mode(), modTime: info.ModTime()}
}

// typeInfo is what a directory entry says of itself, without asking the
// file system: its name and type.
func typeInfo(e fs.DirEntry) statInfo { return statInfo{name: e.Name(), mode: e.Type()} }

func (s statInfo) Name() string       { return s.name }
func (s statInfo) Size() int64        { return s.size }
func (s statInfo) Mode() fs.FileMode  { return s.mode }
func (s statInfo) ModTime() time.Time { return s.modTime }
func (s statInfo) IsDir() bool        { return s.mode.IsDir() }
func (s statInfo) Sys() any           { return nil }

func (c *dirCache) load(name string) (statInfo, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	info, ok := c.known[name]
	return info, ok
}

func (c *dirCache) Open(name string) (fs.File, error) { return c.fsys.Open(name) }

// ReadDir is fs.ReadDir of the wrapped file system. On an os.Root, it
// remembers each entry's type, for Lstat.
func (c *dirCache) ReadDir(name string) ([]fs.DirEntry, error) {
	entries, err := fs.ReadDir(c.fsys, name)
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
	info, err := fs.Lstat(c.fsys, name)
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
	return fs.Stat(c.fsys, name)
}

var (
	_ fs.ReadDirFS  = (*dirCache)(nil)
	_ fs.ReadLinkFS = (*dirCache)(nil)
	_ fs.StatFS     = (*dirCache)(nil)
)

// viewSource makes p read the source of the pattern's alias through a view
// of dir, the directory of the task's match (see dirView), and returns the
// function that closes the view.
func (p *planner) viewSource(dir string) (done func()) {
	alias := p.g.pattern.Alias()
	c, ok := p.sources[alias].(*dirCache)
	if !ok {
		return func() {}
	}
	v, done := c.view(dir)
	p.sources = maps.Clone(p.sources)
	p.sources[alias] = v
	return done
}
