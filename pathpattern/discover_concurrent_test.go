package pathpattern

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// TestDiscoverConcurrently checks that DiscoverConcurrently returns what
// Discover does, on any number of goroutines: the matches in order, the
// field errors in order, and the error that ends the walk, the first
// directory's in byte order when several fail.
func TestDiscoverConcurrently(t *testing.T) {
	t.Parallel()
	eio := errors.New("i/o error")
	many := fstest.MapFS{}
	for i := range 50 {
		many[fmt.Sprintf("tenants/t%02d/modules/m%d", i, i%3)] = dir()
		many[fmt.Sprintf("tenants/t%02d/modules/n", i)] = dir()
	}
	many["tenants/t07/modules/Bad_"] = dir()
	many["tenants/t21"] = symlink("t20")
	many["tenants/t33/modules"] = file("not a directory")
	for _, tt := range []struct {
		name    string
		pattern string
		fsys    fs.FS
	}{
		{name: "tenants", pattern: "@repo/tenants/{namespace}/modules/{module}", fsys: tenantTree()},
		{name: "tenants, one capture", pattern: "@repo/tenants/{namespace}", fsys: tenantTree()},
		{name: "captures in one segment", pattern: "@repo/tenants/team-{team}/modules/{module}", fsys: tenantTree()},
		{name: "capture at the root", pattern: "@repo/{top}/{namespace}/modules/{module}", fsys: tenantTree()},
		{name: "hostile", pattern: "@repo/tenants/{namespace}/modules/{module}", fsys: hostileTree()},
		{name: "fifty tenants", pattern: "@repo/tenants/{namespace}/modules/{module}", fsys: many},
		{name: "fifty tenants, two unreadable", pattern: "@repo/tenants/{namespace}/modules/{module}", fsys: &recordFS{
			MapFS: many, failOnly: "readdir",
			fail: map[string]error{"tenants/t41/modules": eio, "tenants/t12/modules": fs.ErrPermission},
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := MustParse(tt.pattern)
			fp := field.NewPath("spec", "pathPattern")
			want, wantErrs, wantErr := p.Discover(tt.fsys, fp)
			for _, workers := range []int{-1, 0, 1, 2, 3, 8, 64} {
				got, errs, err := p.DiscoverConcurrently(tt.fsys, fp, workers)
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("workers=%d: matches (-Discover +DiscoverConcurrently):\n%s", workers, diff)
				}
				if diff := cmp.Diff(wantErrs.ToAggregate(), errs.ToAggregate()); diff != "" {
					t.Errorf("workers=%d: field errors (-Discover +DiscoverConcurrently):\n%s", workers, diff)
				}
				if fmt.Sprint(err) != fmt.Sprint(wantErr) {
					t.Errorf("workers=%d: error = %v, want %v", workers, err, wantErr)
				}
			}
		})
	}
	// The two unreadable directories: t12 comes first.
	_, _, err := MustParse("@repo/tenants/{namespace}/modules/{module}").DiscoverConcurrently(&recordFS{
		MapFS: many, failOnly: "readdir",
		fail: map[string]error{"tenants/t41/modules": eio, "tenants/t12/modules": fs.ErrPermission},
	}, nil, 4)
	if !errors.Is(err, fs.ErrPermission) {
		t.Errorf("error = %v, want the first directory's, wrapping fs.ErrPermission", err)
	}
}

// panicFS panics when a directory below a tenant is read.
type panicFS struct{ fstest.MapFS }

func (p panicFS) ReadDir(name string) ([]fs.DirEntry, error) {
	if strings.HasSuffix(name, "/modules") {
		panic("bad file system")
	}
	return p.MapFS.ReadDir(name)
}

// TestDiscoverPanic checks that a file system that panics below a tenant's
// directory ends the walk with an error, not the process, whether the walk
// runs on the caller's goroutine or on several.
func TestDiscoverPanic(t *testing.T) {
	t.Parallel()
	fsys := panicFS{fstest.MapFS{"tenants/a/modules/m": dir(), "tenants/b/modules/m": dir()}}
	for _, workers := range []int{1, 2} {
		got, errs, err := MustParse("@repo/tenants/{namespace}/modules/{module}").DiscoverConcurrently(fsys, nil, workers)
		if got != nil || errs != nil || err == nil || !strings.Contains(err.Error(), `reading below "tenants/a": panic: bad file system`) {
			t.Errorf("workers=%d: DiscoverConcurrently = %v, %v, %v; want no result and the panic of tenants/a as an error", workers, got, errs, err)
		}
	}
}
