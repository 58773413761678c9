//go:build !linux

package dirfs

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"syscall"
)

// On Windows, a mount point or junction, which Lstat calls irregular, is a link.

var errChanged = errors.New("dirfs: file changed while it was opened")

type sysFS struct {
	root *os.Root
}

func open(dir string, _ bool) (*FS, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	return &FS{linkRefusal: true, sys: sysFS{root: root}}, nil
}

func (s *sysFS) close() error { return s.root.Close() }

// check returns the Lstat of name after checking that no element of name is a link and every
// element before the last is a directory.
func (s *sysFS) check(op, name string) (fs.FileInfo, error) {
	if _, err := filepath.Localize(name); err != nil {
		// On Windows, a backslash, a colon or a reserved name such as NUL.
		return nil, &fs.PathError{Op: op, Path: name, Err: fs.ErrInvalid}
	}
	for i := 0; ; i++ {
		if i < len(name) && name[i] != '/' {
			continue
		}
		info, err := s.root.Lstat(name[:i])
		switch {
		case err != nil:
			return nil, &fs.PathError{Op: op, Path: name, Err: underlying(err)}
		case i == len(name):
			return info, nil // a link too: the caller decides
		case isLinkMode(info.Mode()):
			return nil, &fs.PathError{Op: op, Path: name, Err: ErrLink}
		case !info.IsDir():
			return nil, &fs.PathError{Op: op, Path: name, Err: syscall.ENOTDIR}
		}
	}
}

func isLinkMode(mode fs.FileMode) bool {
	return mode&fs.ModeSymlink != 0 || runtime.GOOS == "windows" && mode&fs.ModeIrregular != 0
}

// underlying is the error inside the os.Root's *fs.PathError, which names the element.
func underlying(err error) error {
	if pe, ok := err.(*fs.PathError); ok {
		return pe.Err
	}
	return err
}

// openChecked opens name after check, refusing what is neither a regular file nor a directory
// (a FIFO would wait for a writer), and checks that the file opened is the one check saw.
func (s *sysFS) openChecked(op, name string, wantDir bool) (*os.File, error) {
	info, err := s.check(op, name)
	if err != nil {
		return nil, err
	}
	switch mode := info.Mode(); {
	case isLinkMode(mode):
		return nil, &fs.PathError{Op: op, Path: name, Err: ErrLink}
	case wantDir && !mode.IsDir():
		return nil, &fs.PathError{Op: op, Path: name, Err: syscall.ENOTDIR}
	case !mode.IsDir() && !mode.IsRegular():
		return nil, &fs.PathError{Op: op, Path: name, Err: errIrregular}
	}
	f, err := s.root.Open(name)
	if err != nil {
		return nil, &fs.PathError{Op: op, Path: name, Err: underlying(err)}
	}
	opened, err := f.Stat()
	if err != nil || !os.SameFile(info, opened) {
		f.Close()
		if err == nil {
			err = errChanged
		}
		return nil, &fs.PathError{Op: op, Path: name, Err: underlying(err)}
	}
	return f, nil
}

var errIrregular = errors.New("dirfs: not a regular file or directory")

func (s *sysFS) open(name string) (fs.File, error) {
	f, err := s.openChecked("open", name, false)
	if err != nil {
		return nil, err
	}
	return dirFile{f}, nil
}

// dirFile is an opened file whose ReadDir(n) for n <= 0 is sorted by name, as on Linux.
type dirFile struct{ *os.File }

func (f dirFile) ReadDir(n int) ([]fs.DirEntry, error) {
	list, err := f.File.ReadDir(n)
	if n <= 0 {
		sortEntries(list)
	}
	return list, err
}

func (s *sysFS) readDir(name string) ([]fs.DirEntry, error) {
	f, err := s.openChecked("open", name, true)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.ReadDir(-1)
}

func (s *sysFS) lstat(name string) (fs.FileInfo, error) {
	return s.check("lstat", name)
}

func (s *sysFS) readLink(name string) (string, error) {
	info, err := s.check("readlink", name)
	if err != nil {
		return "", err
	}
	if !isLinkMode(info.Mode()) {
		return "", &fs.PathError{Op: "readlink", Path: name, Err: syscall.EINVAL}
	}
	target, err := s.root.Readlink(name)
	if err != nil {
		return "", &fs.PathError{Op: "readlink", Path: name, Err: underlying(err)}
	}
	return target, nil
}
