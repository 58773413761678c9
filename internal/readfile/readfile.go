package readfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
)

// The errors that pathpattern exports as its own (see there).
var (
	ErrNotRegular = errors.New("pathpattern: must be a regular file reached without symbolic links")
	ErrTooLarge   = errors.New("pathpattern: too large")
)

// Errorf returns an error that reads "pathpattern: " and the rule, and that unwraps to
// sentinel, whose own text is left out of the message: the rule is more precise.
func Errorf(sentinel error, format string, args ...any) error {
	return &ruleError{rule: fmt.Sprintf(format, args...), sentinel: sentinel}
}

type ruleError struct {
	rule     string
	sentinel error
}

func (e *ruleError) Error() string { return "pathpattern: " + e.rule }
func (e *ruleError) Unwrap() error { return e.sentinel }

// CheckPath checks each element of name, a valid path other than ".", with fs.Lstat: a
// symbolic link anywhere, or a last element that is not a regular file, is an error wrapping
// ErrNotRegular; an element before the last that is not a directory, one wrapping
// fs.ErrNotExist; a last element of more than maxBytes bytes, one wrapping ErrTooLarge. Each
// comes as an *fs.PathError naming the element's path, as does an error of fs.Lstat.
func CheckPath(fsys fs.FS, name string, maxBytes int64) error {
	// Every element, not only the last: the operating system follows a link anywhere.
	for i := 0; i <= len(name); i++ {
		if i < len(name) && name[i] != '/' {
			continue
		}
		info, err := fs.Lstat(fsys, name[:i])
		if err != nil {
			return err
		}
		if err := checkElement(info, i == len(name), maxBytes); err != nil {
			return &fs.PathError{Op: "read", Path: name[:i], Err: err}
		}
	}
	return nil
}

// RefusesLinks, embedded in a file system's type under an unexported alias, tells
// [ReadChecked], through a method no type outside this module can declare, whether that file
// system's Open does by itself all that [CheckPath] checks, as package dirfs's FS does.
//
//	type linkRefusal = readfile.RefusesLinks
//	type FS struct {
//		linkRefusal // true
//		...
//	}
type RefusesLinks bool

func (r RefusesLinks) openRefusesLinks() bool { return bool(r) }

type linkRefuser interface{ openRefusesLinks() bool }

// OpenRefusesLinks reports whether fsys embeds a true [RefusesLinks], so that a file system
// that wraps fsys and opens its names with fsys's Open can say the same.
func OpenRefusesLinks(fsys fs.FS) bool {
	r, ok := fsys.(linkRefuser)
	return ok && r.openRefusesLinks()
}

// ReadChecked is [CheckPath] then [Read]: it returns the file's content or the first error.
// When fsys's Open refuses links itself ([OpenRefusesLinks]), it reads first and calls
// CheckPath only when the read fails, with the same result; through dirfs that spares an open,
// an fstat and a close per element (generator's TestPlanFileSystemCalls). A named pipe or a
// device is then opened (dirfs opens a pipe without waiting) before Read refuses it.
func ReadChecked(fsys fs.FS, name string, maxBytes int64, buf []byte) ([]byte, error) {
	if OpenRefusesLinks(fsys) {
		if data, err := Read(fsys, name, maxBytes, buf); err == nil {
			return data, nil
		}
	}
	if err := CheckPath(fsys, name, maxBytes); err != nil {
		return nil, err
	}
	return Read(fsys, name, maxBytes, buf)
}

// Read opens name, checks that the opened file is a regular file of at most maxBytes bytes,
// and reads it whole into buf[:0], grown when the file does not fit: the content is valid
// until buf is used again. A file of more than maxBytes bytes when read is an error wrapping
// ErrTooLarge, one that is not regular one wrapping ErrNotRegular, each an *fs.PathError naming
// name; the file system's errors come as it returns them. Read does not check name's elements.
func Read(fsys fs.FS, name string, maxBytes int64, buf []byte) ([]byte, error) {
	f, err := fsys.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if err := checkElement(info, true, maxBytes); err != nil {
		return nil, &fs.PathError{Op: "read", Path: name, Err: err}
	}
	data, err := readAll(f, buf, min(info.Size(), maxBytes), maxBytes+1)
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > maxBytes {
		return nil, &fs.PathError{Op: "read", Path: name, Err: tooLarge(maxBytes)}
	}
	return data, nil
}

func checkElement(info fs.FileInfo, last bool, maxBytes int64) error {
	mode := info.Mode()
	switch {
	case mode&fs.ModeSymlink != 0:
		return Errorf(ErrNotRegular, "must not be a symbolic link")
	case !last && !mode.IsDir():
		return Errorf(fs.ErrNotExist, "must be a directory")
	case last && !mode.IsRegular():
		return Errorf(ErrNotRegular, "must be a regular file")
	case last && info.Size() > maxBytes:
		return tooLarge(maxBytes)
	}
	return nil
}

func tooLarge(maxBytes int64) error {
	return Errorf(ErrTooLarge, "must be no more than %d bytes", maxBytes)
}

// readAll is io.ReadAll into buf[:0], grown first to Stat's size+1 as os.ReadFile does; a file
// that grew since Stat is still read to its end, or to limit bytes.
func readAll(r io.Reader, buf []byte, size, limit int64) ([]byte, error) {
	data := buf[:0]
	if want := min(size+1, limit); int64(cap(data)) < want {
		data = make([]byte, 0, min(max(want, 512), limit))
	}
	for int64(len(data)) < limit {
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)]
		}
		n, err := r.Read(data[len(data):min(int64(cap(data)), limit)])
		data = data[:len(data)+n]
		if err != nil {
			if err == io.EOF {
				err = nil
			}
			return data, err
		}
	}
	return data, nil
}
