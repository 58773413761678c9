package generator

import (
	"io/fs"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/tenantkit/tenantkit/internal/readfile"
)

// dirCache wraps a source file system for one plan and remembers the Lstat of each directory it
// has seen (not a link to one) and which entries of the directories it has read are directories:
// pathpattern.ReadFile and Glob refuse links by an Lstat of each element of a path (on an
// os.Root, each opens every directory of the name), again for every file below the same
// directories, which the cache answers after the first time or from the parent's listing
// (TestPlanFileSystemCalls bounds the calls). It never reads a file (ReadFile checks the opened
// file again), relies as pathpattern does on a tree that does not change while a plan reads it,
// and is safe for concurrent use by the plan's workers: one lock guards its records.
type dirCache struct {
	fsys fs.FS
	// linkRefusal is fsys's (readfile.OpenRefusesLinks): Open is fsys's Open, so that ReadFile,
	// given the cache of a dirfs FS, reads a file without the Lstat of each element first.
	linkRefusal
	// entryTypes is whether fsys reports links (fs.ReadLinkFS); otherwise fs.Lstat is Stat, which
	// follows links, and the cache answers only from its own Lstats, not from listings.
	entryTypes bool

	mu   sync.RWMutex
	dirs map[string]*dirRecord // by directory name; guarded by mu
}

// dirRecord is what the cache knows of one directory, once asked: its Lstat and its entries,
// found by binary search, so that a directory read adds one map key, not a path per entry
// (BenchmarkPlan through dirfs).
type dirRecord struct {
	self *statInfo // nil until Lstat
	// entries are the entries that are directories, by name, each its name and fs.ModeDir alone
	// (no plan reads more), allocated together; nil until read.
	entries []statInfo
}

// linkRefusal is readfile.RefusesLinks under an unexported name.
type linkRefusal = readfile.RefusesLinks

func newDirCache(fsys fs.FS) *dirCache {
	_, links := fsys.(fs.ReadLinkFS)
	refuses := linkRefusal(readfile.OpenRefusesLinks(fsys))
	return &dirCache{fsys: fsys, linkRefusal: refuses, entryTypes: links, dirs: map[string]*dirRecord{}}
}

// statInfo is a FileInfo without Sys, far smaller than an os.FileInfo: a plan keeps one per
// directory seen, by pointer, so that answering an Lstat boxes nothing (BenchmarkPlan). An
// artifactFS's files and directories have one too.
type statInfo struct {
	name    string
	size    int64
	mode    fs.FileMode
	modTime time.Time
}

func compact(info fs.FileInfo) *statInfo {
	return &statInfo{name: info.Name(), size: info.Size(), mode: info.Mode(), modTime: info.ModTime()}
}

func (s statInfo) Name() string       { return s.name }
func (s statInfo) Size() int64        { return s.size }
func (s statInfo) Mode() fs.FileMode  { return s.mode }
func (s statInfo) ModTime() time.Time { return s.modTime }
func (s statInfo) IsDir() bool        { return s.mode.IsDir() }
func (s statInfo) Sys() any           { return nil }

// load returns what the cache knows of name: its own Lstat, or its directory listing's entry.
func (c *dirCache) load(name string) (fs.FileInfo, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if r := c.dirs[name]; r != nil && r.self != nil {
		return r.self, true
	}
	if name == "." {
		return nil, false
	}
	dir, base := ".", name
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		dir, base = name[:i], name[i+1:]
	}
	r := c.dirs[dir]
	if r == nil {
		return nil, false
	}
	i, ok := slices.BinarySearchFunc(r.entries, base, func(e statInfo, base string) int { return strings.Compare(e.name, base) })
	if !ok {
		return nil, false
	}
	return &r.entries[i], true
}

// recordLocked returns the record of the directory name, made when missing; c.mu is write-locked.
func (c *dirCache) recordLocked(name string) *dirRecord {
	r := c.dirs[name]
	if r == nil {
		r = &dirRecord{}
		c.dirs[name] = r
	}
	return r
}

func (c *dirCache) Open(name string) (fs.File, error) { return c.fsys.Open(name) }

// ReadDir is fs.ReadDir of the wrapped file system, remembering the entries that are directories,
// for Lstat. Not files, which a copy reads without an Lstat: they would hold memory per tenant
// (BenchmarkPlan) and spare no call (TestPlanFileSystemCalls).
func (c *dirCache) ReadDir(name string) ([]fs.DirEntry, error) {
	entries, err := fs.ReadDir(c.fsys, name)
	if err != nil || !c.entryTypes {
		return entries, err
	}
	n := countFunc(entries, fs.DirEntry.IsDir)
	if n == 0 {
		return entries, nil
	}
	dirs := make([]statInfo, 0, n)
	for _, e := range entries {
		if e.IsDir() {
			dirs = append(dirs, statInfo{name: e.Name(), mode: fs.ModeDir})
		}
	}
	// fs.ReadDir returns the entries sorted, but a ReadDirFS may not.
	cmpName := func(a, b statInfo) int { return strings.Compare(a.name, b.name) }
	if !slices.IsSortedFunc(dirs, cmpName) {
		slices.SortFunc(dirs, cmpName)
	}
	c.mu.Lock()
	c.recordLocked(name).entries = dirs
	c.mu.Unlock()
	return entries, nil
}

func (c *dirCache) ReadLink(name string) (string, error) { return fs.ReadLink(c.fsys, name) }

// Lstat is fs.Lstat of the wrapped file system, which falls back to Stat when that does not
// report links (see pathpattern.ReadFile).
func (c *dirCache) Lstat(name string) (fs.FileInfo, error) {
	if info, ok := c.load(name); ok {
		return info, nil
	}
	info, err := fs.Lstat(c.fsys, name)
	if err == nil && info.IsDir() && info.Mode()&fs.ModeSymlink == 0 {
		self := compact(info)
		c.mu.Lock()
		c.recordLocked(name).self = self
		c.mu.Unlock()
	}
	return info, err
}

// Stat follows a link; for a directory that is not one it is Lstat.
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
