package pathpattern

import (
	"io/fs"

	"github.com/tenantkit/tenantkit/internal/readfile"
)

// defaultMaxFileSize is ReadFile's limit for maxBytes <= 0: far more than a NamespaceMetadata
// or inputs file needs, too little for a tenant to make the controller hold a large file.
const defaultMaxFileSize = 1 << 20

// ReadFile reads the file name from fsys on behalf of a tenant, refusing anything that could
// reach outside the tree or exhaust memory:
//
//	data, err := pathpattern.ReadFile(fsys, "tenants/team-a/namespace-metadata.yaml", 0)
//
// name must satisfy [fs.ValidPath] (or the error wraps [fs.ErrInvalid]); no element of it
// may be a symbolic link, checked with [fs.Lstat] as in [Pattern.Discover], and the file
// must be regular (or [ErrNotRegular]); it must hold at most maxBytes bytes (or
// [ErrTooLarge]), 1 MiB for maxBytes <= 0. Those errors and the file system's own come as
// an [*fs.PathError] naming the offending path. A dirfs FS, whose Open refuses links
// itself, is read first and checked element by element only when that fails, with the
// same result. The tree must not change while it is read; for defence in depth, pass an
// [os.Root.FS].
func ReadFile(fsys fs.FS, name string, maxBytes int64) ([]byte, error) {
	if maxBytes <= 0 {
		maxBytes = defaultMaxFileSize
	}
	if !fs.ValidPath(name) || name == "." {
		return nil, &fs.PathError{Op: "read", Path: name, Err: fs.ErrInvalid}
	}
	return readfile.ReadChecked(fsys, name, maxBytes, nil)
}
