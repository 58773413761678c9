package pathpattern

import (
	"io"
	"io/fs"
)

// defaultMaxFileSize is the size limit ReadFile applies when given a
// limit of zero or less: 1 MiB, far more than a NamespaceMetadata or inputs
// file needs, and little enough that a tenant cannot make the controller
// hold a large file in memory.
const defaultMaxFileSize = 1 << 20

// ReadFile reads the file name from fsys on behalf of a tenant, refusing
// anything that could reach outside the tree or exhaust memory:
//
//	data, err := pathpattern.ReadFile(fsys, "tenants/team-a/namespace-metadata.yaml", 0)
//
// name must satisfy [fs.ValidPath] (or the error wraps [fs.ErrInvalid]).
// No element of name may be a symbolic link and the file must be a regular
// file, or the error wraps [ErrNotRegular] (each element is checked with
// [fs.Lstat], so fsys must implement [fs.ReadLinkFS] to report links, see
// [Pattern.Discover]); it must hold no more than maxBytes bytes, or the
// error wraps [ErrTooLarge]; maxBytes <= 0 means 1 MiB.
// Those errors and the file system's own come as an [*fs.PathError]
// naming the offending path. The tree must not change while
// it is read; for defence in depth, pass an [os.Root.FS].
func ReadFile(fsys fs.FS, name string, maxBytes int64) ([]byte, error) {
	if maxBytes <= 0 {
		maxBytes = defaultMaxFileSize
	}
	if !fs.ValidPath(name) || name == "." {
		return nil, &fs.PathError{Op: "read", Path: name, Err: fs.ErrInvalid}
	}
	// Check every element, not only the last: the operating system follows
	// a link anywhere in the path.
	for i := 0; i <= len(name); i++ {
		if i < len(name) && name[i] != '/' {
			continue
		}
		info, err := fs.Lstat(fsys, name[:i])
		if err != nil {
			return nil, err
		}
		if err := checkElement(info, i == len(name), maxBytes); err != nil {
			return nil, &fs.PathError{Op: "read", Path: name[:i], Err: err}
		}
	}
	f, err := fsys.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// Check the opened file too: it may have been replaced since Lstat.
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if err := checkElement(info, true, maxBytes); err != nil {
		return nil, &fs.PathError{Op: "read", Path: name, Err: err}
	}
	data, err := readAll(f, min(info.Size(), maxBytes), maxBytes+1)
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > maxBytes {
		return nil, &fs.PathError{Op: "read", Path: name, Err: tooLarge(maxBytes)}
	}
	return data, nil
}

// checkElement checks one element of a path: a directory for the elements
// before the last, a regular file of at most maxBytes for the last.
func checkElement(info fs.FileInfo, last bool, maxBytes int64) error {
	mode := info.Mode()
	switch {
	case mode&fs.ModeSymlink != 0:
		return errorf(ErrNotRegular, "must not be a symbolic link")
	case !last && !mode.IsDir():
		return errorf(fs.ErrNotExist, "must be a directory")
	case last && !mode.IsRegular():
		return errorf(ErrNotRegular, "must be a regular file")
	case last && info.Size() > maxBytes:
		return tooLarge(maxBytes)
	}
	return nil
}

func tooLarge(maxBytes int64) error {
	return errorf(ErrTooLarge, "must be no more than %d bytes", maxBytes)
}

// readAll is io.ReadAll with a first buffer of size+1 bytes, size being
// what Stat reported, as os.ReadFile does: a file read whole then takes one
// allocation and two reads (the second sees the end of the file), where
// io.ReadAll, starting from 512 bytes, takes several of each for a file of
// a few KiB. A file that grew since Stat is still read to its end, or to
// limit bytes (io.LimitReader would take an allocation of its own).
func readAll(r io.Reader, size, limit int64) ([]byte, error) {
	data := make([]byte, 0, min(max(size+1, 512), limit))
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
