package generator

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"maps"
	"slices"
	"strings"
	"sync"
)

// artifactFS is the file system of one built artifact that [WithArtifactDigest]'s function reads
// (see [Artifact]). A copied file is read from its source on each Open (artifactFile.content, at
// most maxArtifactFileBytes), so that the plan holds no more of it than to hash it. It is safe
// for concurrent use, as its sources are. A file that cannot be read is recorded (readErrors):
// the plan reports it and fails the artifact, whatever the digest function made of the error.
type artifactFS struct {
	files map[string]*artifactFile // by destination
	// dirs maps every directory of the artifact ("." its root) to its entries' names, sorted.
	dirs map[string][]string

	mu   sync.Mutex
	errs map[string]error // destination -> the first error reading it
}

// newArtifactFS returns the file system of the artifact of tree t and files, sorted by destination.
func newArtifactFS(t *artifactTree, files []artifactFile) *artifactFS {
	a := &artifactFS{files: make(map[string]*artifactFile, len(files)), dirs: map[string][]string{".": nil}}
	add := func(p string) {
		dir, name := ".", p
		if i := strings.LastIndexByte(p, '/'); i >= 0 {
			dir, name = p[:i], p[i+1:]
		}
		a.dirs[dir] = append(a.dirs[dir], name)
	}
	for i := range files {
		a.files[files[i].dest] = &files[i]
		add(files[i].dest)
	}
	for dir := range t.dirs {
		if _, ok := a.dirs[dir]; !ok {
			a.dirs[dir] = nil
		}
		add(dir)
	}
	for dir, names := range a.dirs {
		slices.Sort(names)
		a.dirs[dir] = slices.Compact(names)
	}
	return a
}

// Open opens a file or a directory of the artifact.
func (a *artifactFS) Open(name string) (fs.File, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	if names, ok := a.dirs[name]; ok {
		return &artifactDir{fsys: a, name: name, names: names}, nil
	}
	f, ok := a.files[name]
	if !ok {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	data, info, err := a.load(f)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	return &artifactOpenFile{Reader: bytes.NewReader(data), info: info}, nil
}

// load reads a file's content and makes its information: mode 0755 when its source or archive
// entry has an execute bit, 0644 otherwise (a merged file's too), as upstream's storage archive
// and os.CopyFS keep only whether a file is executable.
func (a *artifactFS) load(f *artifactFile) ([]byte, *statInfo, error) {
	data, err := f.content(maxArtifactFileBytes, nil)
	perm := f.mode // an extracted file's; 0 for a merged one
	if err == nil && !f.own {
		// Glob found no link on the way and the tree does not change: this is the file just read.
		var info fs.FileInfo
		if info, err = fs.Stat(f.fsys, f.src.Path); err == nil {
			perm = info.Mode()
		}
	}
	if err != nil {
		a.record(f.dest, err)
		return nil, nil, err
	}
	mode := fs.FileMode(0o644)
	if perm&0o111 != 0 {
		mode = 0o755
	}
	return data, &statInfo{name: base(f.dest), size: int64(len(data)), mode: mode}, nil
}

func (a *artifactFS) record(dest string, err error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.errs == nil {
		a.errs = map[string]error{}
	}
	if _, ok := a.errs[dest]; !ok {
		a.errs[dest] = err
	}
}

// readErrors returns the files that could not be read, by destination, with their errors.
func (a *artifactFS) readErrors() ([]*artifactFile, []error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	dests := slices.Sorted(maps.Keys(a.errs))
	files, errs := make([]*artifactFile, len(dests)), make([]error, len(dests))
	for i, d := range dests {
		files[i], errs[i] = a.files[d], a.errs[d]
	}
	return files, errs
}

// dirInfo is the information of a directory of an artifact; a file's is made by load.
func dirInfo(name string) *statInfo {
	return &statInfo{name: base(name), mode: fs.ModeDir | 0o755}
}

// artifactOpenFile is an open file of an artifact.
type artifactOpenFile struct {
	*bytes.Reader
	info *statInfo
}

func (f *artifactOpenFile) Stat() (fs.FileInfo, error) { return f.info, nil }
func (f *artifactOpenFile) Close() error               { return nil }

// artifactDir is an open directory of an artifact.
type artifactDir struct {
	fsys  *artifactFS
	name  string
	names []string
	next  int // index in names of the next entry ReadDir returns
}

func (d *artifactDir) Stat() (fs.FileInfo, error) { return dirInfo(d.name), nil }
func (d *artifactDir) Close() error               { return nil }

func (d *artifactDir) Read([]byte) (int, error) {
	return 0, &fs.PathError{Op: "read", Path: d.name, Err: errors.New("is a directory")}
}

// ReadDir returns the next n entries, or all that are left when n <= 0, as fs.ReadDirFile says.
func (d *artifactDir) ReadDir(n int) ([]fs.DirEntry, error) {
	left := d.names[d.next:]
	if n > 0 {
		if len(left) == 0 {
			return nil, io.EOF
		}
		left = left[:min(n, len(left))]
	}
	out := make([]fs.DirEntry, len(left))
	for i, name := range left {
		p := name
		if d.name != "." {
			p = d.name + "/" + name
		}
		out[i] = &artifactEntry{fsys: d.fsys, path: p, name: name}
	}
	d.next += len(left)
	return out, nil
}

// artifactEntry is an entry of a directory listing.
type artifactEntry struct {
	fsys       *artifactFS
	path, name string
}

func (e *artifactEntry) Name() string { return e.name }
func (e *artifactEntry) IsDir() bool  { _, ok := e.fsys.dirs[e.path]; return ok }

func (e *artifactEntry) Type() fs.FileMode {
	if e.IsDir() {
		return fs.ModeDir
	}
	return 0
}

// Info returns the entry's information; a file's is read as Open reads it.
func (e *artifactEntry) Info() (fs.FileInfo, error) {
	if e.IsDir() {
		return dirInfo(e.path), nil
	}
	_, info, err := e.fsys.load(e.fsys.files[e.path])
	if err != nil {
		return nil, &fs.PathError{Op: "stat", Path: e.path, Err: err}
	}
	return info, nil
}
