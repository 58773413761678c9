package dirfs

import (
	"bytes"
	"encoding/binary"
	"io"
	"io/fs"
	"os"
	"path"
	"runtime"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

const (
	resolveFlags = unix.RESOLVE_BENEATH | unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS
	// openFlags go with every open but an O_PATH one (openat2 refuses them): O_NOCTTY, so
	// that no terminal becomes the process's; O_LARGEFILE, which openat2 does not add.
	openFlags = unix.O_CLOEXEC | unix.O_NOCTTY | unix.O_LARGEFILE

	fileFlags = unix.O_RDONLY | unix.O_NONBLOCK // a FIFO opens without waiting for a writer
	dirFlags  = unix.O_RDONLY | unix.O_DIRECTORY
)

// maxName is PATH_MAX less its NUL: a longer name fails before any call, so that a walk answers
// as openat2 does.
const maxName = unix.PathMax - 1

type sysFS struct {
	mu      sync.RWMutex // read-held while fd is used; Close holds it to close fd
	fd      int          // the directory, -1 once closed
	walk    bool         // walk names: no openat2 (see haveOpenat2)
	cleanup runtime.Cleanup
}

// open is Open; with walk, the FS never calls openat2 (tests compare the two).
func open(dir string, walk bool) (*FS, error) {
	var fd int
	err := ignoringEINTR(func() (err error) {
		fd, err = unix.Open(dir, dirFlags|openFlags, 0)
		return err
	})
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: dir, Err: err}
	}
	f := &FS{linkRefusal: true, sys: sysFS{fd: fd, walk: walk || !haveOpenat2(fd)}}
	f.sys.cleanup = runtime.AddCleanup(f, func(fd int) { unix.Close(fd) }, fd)
	return f, nil
}

var openat2 struct {
	once sync.Once
	ok   bool
}

// haveOpenat2 reports, once per process, whether openat2 opens fd itself, which fails only with
// ENOSYS, EPERM (seccomp) or EINVAL (a kernel lacking a flag).
func haveOpenat2(fd int) bool {
	openat2.once.Do(func() {
		how := unix.OpenHow{Flags: withOpenFlags(unix.O_PATH | unix.O_DIRECTORY), Resolve: resolveFlags}
		var d int
		err := ignoringEINTR(func() (err error) {
			d, err = unix.Openat2(fd, ".", &how)
			return err
		})
		if err == nil {
			unix.Close(d)
		}
		openat2.ok = err == nil
	})
	return openat2.ok
}

func withOpenFlags(flags int) uint64 {
	if flags&unix.O_PATH != 0 {
		return uint64(flags | unix.O_CLOEXEC)
	}
	return uint64(flags | openFlags)
}

func (s *sysFS) close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fd >= 0 {
		s.cleanup.Stop()
		unix.Close(s.fd)
		s.fd = -1
	}
	return nil
}

// resolve opens name with flags, following no link; the error is ErrLink for a link met.
func (s *sysFS) resolve(name string, flags int) (int, error) {
	if len(name) > maxName {
		return -1, unix.ENAMETOOLONG
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.fd < 0 {
		return -1, fs.ErrClosed
	}
	if s.walk {
		return walkOpen(s.fd, name, flags)
	}
	how := unix.OpenHow{Flags: withOpenFlags(flags), Resolve: resolveFlags}
	var fd int
	err := ignoringEINTR(func() (err error) {
		fd, err = unix.Openat2(s.fd, name, &how)
		return err
	})
	if err == unix.ELOOP { // RESOLVE_NO_SYMLINKS met a link
		return -1, ErrLink
	}
	return fd, err
}

// walkOpen opens name with O_NOFOLLOW one element at a time, each directory with O_PATH, which
// needs no read permission (as a path walk needs none). It gives openat2's answers.
func walkOpen(root int, name string, flags int) (int, error) {
	dir := root
	defer func() {
		if dir != root {
			unix.Close(dir)
		}
	}()
	for {
		elem, rest, more := strings.Cut(name, "/")
		f := flags
		if more {
			f = unix.O_PATH | unix.O_DIRECTORY
		}
		var fd int
		err := ignoringEINTR(func() (err error) {
			fd, err = unix.Openat(dir, elem, int(withOpenFlags(f|unix.O_NOFOLLOW)), 0)
			return err
		})
		if err != nil {
			return -1, linkError(dir, elem, err)
		}
		if !more {
			return fd, nil
		}
		if dir != root {
			unix.Close(dir)
		}
		dir, name = fd, rest
	}
}

// linkError returns ErrLink when err, from opening elem in dir with O_NOFOLLOW, is due to a
// link: ENOTDIR is when elem is one (O_DIRECTORY refuses it first).
func linkError(dir int, elem string, err error) error {
	switch err {
	case unix.ELOOP:
		return ErrLink
	case unix.ENOTDIR:
		var st unix.Stat_t
		if unix.Fstatat(dir, elem, &st, unix.AT_SYMLINK_NOFOLLOW) == nil && st.Mode&unix.S_IFMT == unix.S_IFLNK {
			return ErrLink
		}
	}
	return err
}

func (s *sysFS) open(name string) (fs.File, error) {
	fd, err := s.resolve(name, fileFlags)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	return &file{fd: fd, name: name, fsys: s}, nil
}

// readDir reads name with getdents64, without (*os.File).ReadDir's fcntl and two allocations
// per entry (generator's BenchmarkPlan through dirfs justifies it).
func (s *sysFS) readDir(name string) ([]fs.DirEntry, error) {
	fd, err := s.resolve(name, dirFlags)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	defer unix.Close(fd)
	bp := direntBuffers.Get().(*[]byte)
	defer direntBuffers.Put(bp)
	var (
		names []byte // every name, one after the other
		ends  []int  // where each name ends in names
		types []fs.FileMode
	)
	for {
		var n int
		err := ignoringEINTR(func() (err error) {
			n, err = unix.Getdents(fd, *bp)
			return err
		})
		if err != nil {
			list := s.direntList(name, names, ends, types)
			return list, &fs.PathError{Op: "readdirent", Path: name, Err: err}
		}
		if n <= 0 {
			break
		}
		for buf := (*bp)[:n]; len(buf) > 0; {
			ent, typ, rest, ok := parseDirent(buf)
			if !ok {
				break
			}
			buf = rest
			if ent == nil {
				continue // ".", "..", or a deleted file (inode 0), as package os skips them
			}
			mode, ok := fileType(uint32(typ) << 12) // DT_* is S_IFMT's bits, shifted
			if !ok {
				// DT_UNKNOWN: fstatat of the name in the directory, which
				// meets no link on the way, as package os does with lstat.
				var st unix.Stat_t
				err := ignoringEINTR(func() error { return unix.Fstatat(fd, string(ent), &st, unix.AT_SYMLINK_NOFOLLOW) })
				if err == unix.ENOENT {
					continue // removed since getdents64 listed it
				}
				if err != nil {
					list := s.direntList(name, names, ends, types)
					return list, &fs.PathError{Op: "lstat", Path: path.Join(name, string(ent)), Err: err}
				}
				mode = newFileInfo(string(ent), &st).mode.Type()
			}
			names = append(names, ent...)
			ends = append(ends, len(names))
			types = append(types, mode)
		}
	}
	return s.direntList(name, names, ends, types), nil
}

var direntBuffers = sync.Pool{New: func() any {
	b := make([]byte, 8192)
	return &b
}}

// direntList returns the entries of dir, whose names in names end at ends.
func (s *sysFS) direntList(dir string, names []byte, ends []int, types []fs.FileMode) []fs.DirEntry {
	if len(ends) == 0 {
		return []fs.DirEntry{}
	}
	all := string(names)
	wrapped := make([]dirEntry, len(ends))
	list := make([]fs.DirEntry, len(ends))
	start := 0
	for i, end := range ends {
		wrapped[i] = dirEntry{fsys: s, dir: dir, name: all[start:end], typ: types[i]}
		list[i] = &wrapped[i]
		start = end
	}
	return list
}

// parseDirent reads buf's first linux_dirent64 record: name nil for ".", ".." and inode 0; ok
// false for a record that does not fit buf.
func parseDirent(buf []byte) (name []byte, typ byte, rest []byte, ok bool) {
	const nameOffset = 19
	if len(buf) < nameOffset {
		return nil, 0, nil, false
	}
	reclen := int(binary.NativeEndian.Uint16(buf[16:18]))
	if reclen < nameOffset || reclen > len(buf) {
		return nil, 0, nil, false
	}
	rec := buf[:reclen]
	name = rec[nameOffset:]
	if i := bytes.IndexByte(name, 0); i >= 0 {
		name = name[:i]
	}
	if binary.NativeEndian.Uint64(rec[0:8]) == 0 || string(name) == "." || string(name) == ".." {
		name = nil
	}
	return name, rec[18], buf[reclen:], true
}

// fileType returns the type of a file whose mode's S_IFMT bits are ifmt, or false for none
// (DT_UNKNOWN).
func fileType(ifmt uint32) (fs.FileMode, bool) {
	switch ifmt {
	case unix.S_IFREG:
		return 0, true
	case unix.S_IFDIR:
		return fs.ModeDir, true
	case unix.S_IFLNK:
		return fs.ModeSymlink, true
	case unix.S_IFBLK:
		return fs.ModeDevice, true
	case unix.S_IFCHR:
		return fs.ModeDevice | fs.ModeCharDevice, true
	case unix.S_IFIFO:
		return fs.ModeNamedPipe, true
	case unix.S_IFSOCK:
		return fs.ModeSocket, true
	}
	return 0, false
}

// entries wraps os.File.ReadDir's entries, whose Info would follow links.
func (s *sysFS) entries(dir string, list []fs.DirEntry) []fs.DirEntry {
	wrapped := make([]dirEntry, len(list))
	for i, e := range list {
		wrapped[i] = dirEntry{fsys: s, dir: dir, name: e.Name(), typ: e.Type()}
		list[i] = &wrapped[i]
	}
	return list
}

func (s *sysFS) lstat(name string) (fs.FileInfo, error) {
	var st unix.Stat_t
	dir, elem, err := s.parent(name)
	if err == nil {
		err = ignoringEINTR(func() error { return unix.Fstatat(dir, elem, &st, unix.AT_SYMLINK_NOFOLLOW) })
		unix.Close(dir)
	}
	if err != nil {
		return nil, &fs.PathError{Op: "lstat", Path: name, Err: err}
	}
	return newFileInfo(name, &st), nil
}

func (s *sysFS) readLink(name string) (string, error) {
	dir, elem, err := s.parent(name)
	var target string
	if err == nil {
		target, err = readlinkat(dir, elem)
		unix.Close(dir)
	}
	if err != nil {
		return "", &fs.PathError{Op: "readlink", Path: name, Err: err}
	}
	return target, nil
}

// parent opens the directory that holds the last element of name, following no link, and
// returns it, for the caller to close, and that element: fstatat and readlinkat from it meet no
// link on the way.
func (s *sysFS) parent(name string) (int, string, error) {
	if len(name) > maxName {
		return -1, "", unix.ENAMETOOLONG
	}
	dir, elem := ".", name
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		dir, elem = name[:i], name[i+1:]
	}
	fd, err := s.resolve(dir, unix.O_PATH|unix.O_DIRECTORY)
	return fd, elem, err
}

// readlinkat reads the link elem of dir, up to PATH_MAX, the longest target Linux stores.
func readlinkat(dir int, elem string) (string, error) {
	for size := 128; ; size *= 2 {
		buf := make([]byte, size)
		var n int
		err := ignoringEINTR(func() (err error) {
			n, err = unix.Readlinkat(dir, elem, buf)
			return err
		})
		if err != nil {
			return "", err
		}
		if n < size || size >= unix.PathMax {
			return string(buf[:n]), nil
		}
	}
}

func fstat(fd int, st *unix.Stat_t) error {
	return ignoringEINTR(func() error { return unix.Fstat(fd, st) })
}

// ignoringEINTR retries f on EINTR, as package os does.
func ignoringEINTR(f func() error) error {
	for {
		if err := f(); err != unix.EINTR {
			return err
		}
	}
}

// file is an open descriptor: an *os.File would cost two system calls more (fcntl, and an epoll
// registration) and a finalizer. ReadDir wraps it in one.
type file struct {
	fd   int // -1 once closed
	name string
	fsys *sysFS
	dir  *os.File // once read as a directory: owns fd
}

func (f *file) Read(p []byte) (int, error) {
	if f.fd < 0 {
		return 0, &fs.PathError{Op: "read", Path: f.name, Err: fs.ErrClosed}
	}
	if len(p) == 0 {
		return 0, nil
	}
	var n int
	err := ignoringEINTR(func() (err error) {
		n, err = unix.Read(f.fd, p)
		return err
	})
	switch {
	case err != nil:
		return 0, &fs.PathError{Op: "read", Path: f.name, Err: err}
	case n == 0:
		return 0, io.EOF
	}
	return n, nil
}

func (f *file) Stat() (fs.FileInfo, error) {
	if f.fd < 0 {
		return nil, &fs.PathError{Op: "stat", Path: f.name, Err: fs.ErrClosed}
	}
	var st unix.Stat_t
	if err := fstat(f.fd, &st); err != nil {
		return nil, &fs.PathError{Op: "stat", Path: f.name, Err: err}
	}
	return newFileInfo(f.name, &st), nil
}

// ReadDir reads the entries of a directory, as (*os.File).ReadDir does; those of ReadDir(n) for
// n <= 0 are sorted by name.
func (f *file) ReadDir(n int) ([]fs.DirEntry, error) {
	if f.fd < 0 {
		return nil, &fs.PathError{Op: "readdir", Path: f.name, Err: fs.ErrClosed}
	}
	if f.dir == nil {
		f.dir = os.NewFile(uintptr(f.fd), f.name)
	}
	list, err := f.dir.ReadDir(n)
	list = f.fsys.entries(f.name, list)
	if n <= 0 {
		sortEntries(list)
	}
	return list, err
}

func (f *file) Close() error {
	if f.fd < 0 {
		return &fs.PathError{Op: "close", Path: f.name, Err: fs.ErrClosed}
	}
	var err error
	if f.dir != nil {
		err = f.dir.Close()
	} else if err = unix.Close(f.fd); err != nil {
		err = &fs.PathError{Op: "close", Path: f.name, Err: err}
	}
	f.fd = -1
	return err
}

type dirEntry struct {
	fsys      *sysFS
	dir, name string
	typ       fs.FileMode
}

func (d *dirEntry) Name() string      { return d.name }
func (d *dirEntry) IsDir() bool       { return d.typ.IsDir() }
func (d *dirEntry) Type() fs.FileMode { return d.typ }
func (d *dirEntry) String() string    { return fs.FormatDirEntry(d) }

func (d *dirEntry) Info() (fs.FileInfo, error) {
	name := d.name
	if d.dir != "." {
		name = d.dir + "/" + d.name
	}
	return d.fsys.lstat(name)
}

type fileInfo struct {
	name    string
	size    int64
	mode    fs.FileMode
	modTime time.Time
}

func newFileInfo(name string, st *unix.Stat_t) *fileInfo {
	mode, _ := fileType(st.Mode & unix.S_IFMT)
	mode |= fs.FileMode(st.Mode & 0o777)
	if st.Mode&unix.S_ISGID != 0 {
		mode |= fs.ModeSetgid
	}
	if st.Mode&unix.S_ISUID != 0 {
		mode |= fs.ModeSetuid
	}
	if st.Mode&unix.S_ISVTX != 0 {
		mode |= fs.ModeSticky
	}
	return &fileInfo{
		name:    path.Base(name),
		size:    st.Size,
		mode:    mode,
		modTime: time.Unix(st.Mtim.Unix()),
	}
}

func (i *fileInfo) Name() string       { return i.name }
func (i *fileInfo) Size() int64        { return i.size }
func (i *fileInfo) Mode() fs.FileMode  { return i.mode }
func (i *fileInfo) ModTime() time.Time { return i.modTime }
func (i *fileInfo) IsDir() bool        { return i.mode.IsDir() }
func (i *fileInfo) Sys() any           { return nil }
