package pathpattern

import (
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"
)

// panicFS panics when a directory below a tenant is read.
type panicFS struct{ fstest.MapFS }

func (p panicFS) ReadDir(name string) ([]fs.DirEntry, error) {
	if strings.HasSuffix(name, "/modules") {
		panic("bad file system")
	}
	return p.MapFS.ReadDir(name)
}

// TestDiscoverPanic checks that a file system that panics below a tenant's
// directory ends the walk with an error that names the directory, not the
// process.
func TestDiscoverPanic(t *testing.T) {
	t.Parallel()
	fsys := panicFS{fstest.MapFS{"tenants/a/modules/m": dir(), "tenants/b/modules/m": dir()}}
	got, errs, err := MustParse("@repo/tenants/{namespace}/modules/{module}").Discover(fsys, nil)
	if got != nil || errs != nil || err == nil || err.Error() != `pathpattern: reading below "tenants/a": panic: bad file system` {
		t.Errorf("Discover = %v, %v, %v; want no result and the panic of tenants/a as an error", got, errs, err)
	}
}
