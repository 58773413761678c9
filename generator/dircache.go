package generator

import (
	"io/fs"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/tenantkit/tenantkit/internal/readfile"
)

// dirCache wraps a source file system for the length of one plan and
// remembers what it has learnt of the tree: the Lstat of each directory it
// has seen (not a symbolic link to one), and the names of the directories
// among the entries of those it has read.
//
// The files a plan names itself (inputs files, NamespaceMetadata files)
// are read with pathpattern.ReadFile, which refuses a path with a symbolic
// link anywhere in it by calling Lstat on each of its elements (not through
// package dirfs, whose Open refuses links itself: the cache says so too,
// see linkRefusal), and pathpattern.Glob checks the directories of a
// copy's prefix the same way:
// the same directories (tenants, tenants/team-a, tenants/team-a/modules,
// ...) are checked again for every file below them, and on an os.Root an
// Lstat of a name of d elements opens each of its directories in turn. The
// cache answers them after the first, and answers the Lstat of a directory
// from the entries of the directory that holds it, once that was read.
// (The files a copy selects are read without those checks: see
// artifactFile.content.) TestPlanFileSystemCalls counts and bounds the
// file-system calls of a plan through root.FS() with the cache, and
// BenchmarkPlan shows what it saves; docs/performance.md has the figures.
//
// It never reads a file: opening one asks the file system, and
// pathpattern.ReadFile checks the opened file again. It relies, as
// pathpattern does, on a tree that does not change while a plan reads it.
// A dirCache is safe for concurrent use, as the plan's workers share it:
// one lock guards its records.
type dirCache struct {
	fsys fs.FS
	// linkRefusal is fsys's (readfile.OpenRefusesLinks): Open is
	// fsys's Open, so that pathpattern.ReadFile, given the cache of a
	// dirfs FS, reads a file without the Lstat of each element first.
	linkRefusal
	// entryTypes is whether fsys reports links (fs.ReadLinkFS), so that
	// its Lstat says what its directories' entries say: otherwise
	// fs.Lstat is Stat, which takes a link to a directory for the
	// directory, and the cache answers only from the Lstats it made.
	entryTypes bool

	mu   sync.RWMutex
	dirs map[string]*dirRecord // by directory name; guarded by mu
}

// dirRecord is what the cache knows of one directory: its Lstat, once
// asked, and its entries, once read. The cache keeps a record per
// directory, not per name: an entry of a directory read is found in its
// directory's record by binary search, so that reading a directory adds
// one key to the map, not one per entry, each a joined path.
// BenchmarkPlan through dirfs shows what this saves, and
// docs/performance.md has the figures.
type dirRecord struct {
	self    *statInfo   // nil until Lstat
	entries []entryInfo // the entries that are directories, sorted by name; nil until read
}

// linkRefusal is readfile.RefusesLinks under an unexported name.
type linkRefusal = readfile.RefusesLinks

func newDirCache(fsys fs.FS) *dirCache {
	_, links := fsys.(fs.ReadLinkFS)
	refuses := linkRefusal(readfile.OpenRefusesLinks(fsys))
	return &dirCache{fsys: fsys, linkRefusal: refuses, entryTypes: links, dirs: map[string]*dirRecord{}}
}

// statInfo is what the cache keeps of a FileInfo: all of it but Sys, which
// no reader of the cache uses, in 64 bytes rather than the 200 of an
// os.FileInfo with its syscall.Stat_t: a plan keeps one for every
// directory it has seen (BenchmarkPlan's plan-RSS-KiB/tenant).
//
// The cache holds pointers, so that answering an Lstat allocates nothing,
// where holding values would box one into an fs.FileInfo for every answer
// (BenchmarkPlan's allocs/op shows the difference).
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

// entryInfo is what the cache keeps of an entry of a directory read that
// is itself a directory: its name, in 16 bytes (a statInfo takes 64, and
// its time a pointer for the collector to follow). Its size, permissions
// and time are zero: nothing in a plan reads them from the Lstat of a
// directory. The entries of one directory are allocated together. The
// cache keeps only the entries that are directories, a few per tenant,
// not every entry (see ReadDir).
type entryInfo struct{ name string }

func (e *entryInfo) Name() string       { return e.name }
func (e *entryInfo) Size() int64        { return 0 }
func (e *entryInfo) Mode() fs.FileMode  { return fs.ModeDir }
func (e *entryInfo) ModTime() time.Time { return time.Time{} }
func (e *entryInfo) IsDir() bool        { return true }
func (e *entryInfo) Sys() any           { return nil }

// load returns what the cache knows of name: its own Lstat, or its entry
// in the directory that holds it, when that was read.
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
	i, ok := slices.BinarySearchFunc(r.entries, base, func(e entryInfo, base string) int { return strings.Compare(e.name, base) })
	if !ok {
		return nil, false
	}
	return &r.entries[i], true
}

// recordLocked returns the record of the directory name, made when
// missing. The caller holds c.mu's write lock.
func (c *dirCache) recordLocked(name string) *dirRecord {
	r := c.dirs[name]
	if r == nil {
		r = &dirRecord{}
		c.dirs[name] = r
	}
	return r
}

func (c *dirCache) Open(name string) (fs.File, error) { return c.fsys.Open(name) }

// ReadDir is fs.ReadDir of the wrapped file system; it remembers the name
// of each entry that is a directory, for Lstat. An entry that is not is
// asked of the file system when its Lstat is: the files of a directory
// read are those a copy selects, which the plan reads without an Lstat
// (see artifactFile.content), so that remembering them would hold memory
// for nothing: more resident memory per tenant (BenchmarkPlan through
// dirfs, plan-RSS-KiB/tenant) for no file-system call spared
// (TestPlanFileSystemCalls).
func (c *dirCache) ReadDir(name string) ([]fs.DirEntry, error) {
	entries, err := fs.ReadDir(c.fsys, name)
	if err != nil || !c.entryTypes {
		return entries, err
	}
	n := countFunc(entries, fs.DirEntry.IsDir)
	if n == 0 {
		return entries, nil
	}
	dirs := make([]entryInfo, 0, n)
	for _, e := range entries {
		if e.IsDir() {
			dirs = append(dirs, entryInfo{name: e.Name()})
		}
	}
	// fs.ReadDir returns the entries sorted, but a ReadDirFS may not.
	cmpName := func(a, b entryInfo) int { return strings.Compare(a.name, b.name) }
	if !slices.IsSortedFunc(dirs, cmpName) {
		slices.SortFunc(dirs, cmpName)
	}
	c.mu.Lock()
	c.recordLocked(name).entries = dirs
	c.mu.Unlock()
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
		self := compact(info)
		c.mu.Lock()
		c.recordLocked(name).self = self
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
