package pathpattern

import (
	"io/fs"

	"github.com/tenantkit/tenantkit/internal/readfile"
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
// [Pattern.Discover]; an FS of package dirfs, whose Open refuses a link in
// any element itself, is read first and checked element by element only
// when that fails, with the same result); it must hold no more than
// maxBytes bytes, or the error wraps [ErrTooLarge]; maxBytes <= 0 means
// 1 MiB.
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
	return readfile.ReadChecked(fsys, name, maxBytes, nil)
}
