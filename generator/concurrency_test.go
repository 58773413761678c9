package generator

import (
	"fmt"
	"io/fs"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tenantkit/tenantkit/inventory"
)

// inFlightFS counts the Open calls in progress, and keeps the most seen at
// once.
type inFlightFS struct {
	fs.FS
	now, most atomic.Int64
}

func (f *inFlightFS) Open(name string) (fs.File, error) {
	n := f.now.Add(1)
	defer f.now.Add(-1)
	for m := f.most.Load(); n > m && !f.most.CompareAndSwap(m, n); m = f.most.Load() {
	}
	return f.FS.Open(name)
}

func (f *inFlightFS) ReadDir(name string) ([]fs.DirEntry, error) { return fs.ReadDir(f.FS, name) }
func (f *inFlightFS) Lstat(name string) (fs.FileInfo, error)     { return fs.Lstat(f.FS, name) }
func (f *inFlightFS) ReadLink(name string) (string, error)       { return fs.ReadLink(f.FS, name) }

// TestWithConcurrency checks that a plan is the same whatever the number
// of goroutines that build it, on a tree without errors and on one whose
// builds fail and panic; and that WithConcurrency bounds the goroutines
// reading the source at once (a violation shows only when reads overlap).
func TestWithConcurrency(t *testing.T) {
	t.Parallel()
	c := synthConfig{Tenants: 40, Modules: 3, Files: 5, Unrelated: 10, MetadataEvery: 2}
	for _, tt := range []struct {
		name     string
		compile  func(opts ...Option) *Generator
		fsys     fs.FS
		previous []inventory.Entry
	}{
		{name: "synthetic", fsys: synthFS(c, false),
			compile: func(opts ...Option) *Generator { return synthCompile(t, []byte(synthGenerator), opts...) }},
		{name: "errors and panics", fsys: panicTree(), previous: []inventory.Entry{artEntry("tenant-b", "x"), nsEntry("tenant-gone")},
			compile: func(opts ...Option) *Generator { return mustCompile(t, testSpec(), opts...) }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			plan := func(opts ...Option) (*Plan, int64) {
				fsys := &inFlightFS{FS: tt.fsys}
				p := mustPlan(t, tt.compile(opts...), map[string]fs.FS{"repo": fsys}, tt.previous, (&fakeCluster{}).cluster())
				return p, fsys.most.Load()
			}
			want, _ := plan()
			if len(want.Decisions) == 0 {
				t.Fatal("the plan decides nothing: the tree does not test what it should")
			}
			for _, n := range []int{1, 2, 7} {
				got, most := plan(WithConcurrency(n))
				sameError := cmp.Comparer(func(a, b error) bool { return fmt.Sprint(a) == fmt.Sprint(b) }) // an internal error's value; Plan.Refused may be a nil *RefusedError
				if diff := cmp.Diff(want, got, cmp.AllowUnexported(Plan{}), sameError); diff != "" {
					t.Errorf("WithConcurrency(%d): the plan differs from the default one (-default +got):\n%s", n, diff)
				}
				if most > int64(n) {
					t.Errorf("WithConcurrency(%d): %d reads at once", n, most)
				}
			}
		})
	}
}
