package generator

import (
	"io/fs"
	"maps"
	"os"
	"slices"
	"strings"
	"sync"
)

// dirCache wraps a source file system for the length of one plan and
// remembers what it has learnt of the tree: which paths are directories
// (not symbolic links to them), and the entries of the directories it has
// read.
//
// Every file a plan reads on a tenant's behalf goes through
// pathpattern.ReadFile, which refuses a path with a symbolic link anywhere
// in it by calling Lstat on each of its elements; pathpattern.Glob checks
// the directories of a copy's prefix the same way. On an os.Root (see DirFS), an Lstat of a path with d elements costs d
// openat and d close system calls, so checking every element of a path
// costs about d*d/2 calls, and the same directories (tenants,
// tenants/team-a, tenants/team-a/modules, ...) are checked again for every
// file below them: before this cache, those calls were most of the time of
// a plan. The cache answers Lstat and Stat of a directory already seen, and
// Lstat of an entry of a directory already read (an os.Root reads each
// entry's FileInfo with the directory), so each directory is checked once
// per plan, and the files that a copy selects are not checked again.
//
// Files are never read from the cache: opening one asks the file system,
// and pathpattern.ReadFile checks the opened file again. pathpattern
// already requires that the tree does not change while a plan reads it;
// the cache relies on the same. A dirCache is safe for concurrent use, as
// the plan's workers share it.
type dirCache struct {
	fsys    fs.FS
	root    *os.Root // the root of a rootSource, for views (see dirView); or nil
	dirs    sync.Map // name -> fs.FileInfo of a directory that is not a link
	entries sync.Map // name of a directory -> []fs.DirEntry, sorted by name
}

func newDirCache(fsys fs.FS) *dirCache {
	c := &dirCache{fsys: fsys}
	if s, ok := fsys.(*rootSource); ok {
		c.root = s.root
	}
	return c
}

func (c *dirCache) Open(name string) (fs.File, error) { return c.fsys.Open(name) }

// ReadDir is fs.ReadDir of the wrapped file system; it remembers the
// entries, which come sorted by name.
func (c *dirCache) ReadDir(name string) ([]fs.DirEntry, error) {
	entries, err := fs.ReadDir(c.fsys, name)
	if err == nil {
		c.entries.Store(name, slices.Clone(entries))
	}
	return entries, err
}

func (c *dirCache) ReadLink(name string) (string, error) { return fs.ReadLink(c.fsys, name) }

// Lstat is fs.Lstat of the wrapped file system, which falls back to Stat
// when that does not report links (see pathpattern.ReadFile).
func (c *dirCache) Lstat(name string) (fs.FileInfo, error) {
	if info, ok := c.dirs.Load(name); ok {
		return info.(fs.FileInfo), nil
	}
	info, err := c.entryInfo(name)
	if info == nil && err == nil {
		info, err = fs.Lstat(c.fsys, name)
	}
	if err == nil && info.IsDir() && info.Mode()&fs.ModeSymlink == 0 {
		c.dirs.Store(name, info)
	}
	return info, err
}

// entryInfo returns the FileInfo of name from the entries of its directory,
// or nil when that directory has not been read or has no such entry.
func (c *dirCache) entryInfo(name string) (fs.FileInfo, error) {
	dir, base := ".", name
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		dir, base = name[:i], name[i+1:]
	}
	v, ok := c.entries.Load(dir)
	if !ok {
		return nil, nil
	}
	entries := v.([]fs.DirEntry)
	i, found := slices.BinarySearchFunc(entries, base, func(e fs.DirEntry, name string) int { return strings.Compare(e.Name(), name) })
	if !found {
		return nil, nil
	}
	info, err := entries[i].Info()
	if err != nil {
		return nil, nil // ask the file system, for its own error
	}
	return info, nil
}

// Stat follows a link; for a directory that is not a link it is the same as
// Lstat.
func (c *dirCache) Stat(name string) (fs.FileInfo, error) {
	if info, ok := c.dirs.Load(name); ok {
		return info.(fs.FileInfo), nil
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
