package generator

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/tenantkit/tenantkit/finalizer"
	"github.com/tenantkit/tenantkit/inventory"
)

// panicFS is a tree whose Open or ReadDir panics for the names listed, with
// the value given.
type panicFS struct {
	fstest.MapFS
	open, readDir map[string]any
}

func (f panicFS) Open(name string) (fs.File, error) {
	if v, ok := f.open[name]; ok {
		panic(v)
	}
	return f.MapFS.Open(name)
}

func (f panicFS) ReadDir(name string) ([]fs.DirEntry, error) {
	if v, ok := f.readDir[name]; ok {
		panic(v)
	}
	return f.MapFS.ReadDir(name)
}

// panicTree is a tree of the test spec in which building tenant-b's
// artifact, tenant-c's namespace and tenant-d's artifact panics.
func panicTree() panicFS {
	return panicFS{
		MapFS: tree(okTenant,
			"tenants/tenant-a/modules/app",
			"tenants/tenant-b/modules/x", "tenants/tenant-b/modules/x/inputs.yaml=a: 1\n",
			"tenants/tenant-c/modules/y", "tenants/tenant-c/namespace-metadata.yaml="+metadataFile("team", "c"),
			"tenants/tenant-d/modules/z"),
		open: map[string]any{
			"tenants/tenant-b/modules/x/inputs.yaml":   "boom in inputs",
			"tenants/tenant-c/namespace-metadata.yaml": errors.New("boom in metadata"),
		},
		readDir: map[string]any{
			"tenants/tenant-d/modules/z/manifests": nil, // panic(nil): a *runtime.PanicNilError
		},
	}
}

// TestPanicIsAnError checks that a panic while building one tenant's
// namespace or artifact (here, the source's Open or ReadDir of one of its
// files) is an error for that object alone: the plan returns, skips the
// object with the reason, reports the panic value as an internal error,
// builds the other tenants, and deletes nothing.
func TestPanicIsAnError(t *testing.T) {
	t.Parallel()
	previous := []inventory.Entry{
		nsEntry("tenant-b"), artEntry("tenant-b", "x"), // tracked: kept
		nsEntry("tenant-gone"), artEntry("tenant-gone", "old"), // stale: kept, as the plan has errors
	}
	g := mustCompile(t, testSpec())
	p := mustPlan(t, g, map[string]fs.FS{"repo": panicTree()}, previous, (&fakeCluster{}).cluster())

	for _, want := range []struct{ field, detail string }{
		{"spec.artifacts[0]", `artifact tenant-b/x (directory "tenants/tenant-b/modules/x"): panic: boom in inputs`},
		{"spec.artifacts[0].namespace", `namespace "tenant-c": panic: boom in metadata`},
		{"spec.artifacts[0]", `artifact tenant-d/z (directory "tenants/tenant-d/modules/z"): panic: panic called with nil argument`},
	} {
		if !hasError(p.Errors, want.field, want.detail) {
			t.Errorf("no error at %s containing %q in:\n%v", want.field, want.detail, p.Errors.ToAggregate())
		}
	}
	if len(p.Errors) != 3 {
		t.Errorf("%d errors, want the 3 panics alone:\n%v", len(p.Errors), p.Errors.ToAggregate())
	}
	for _, e := range p.Errors {
		if e.Type != "InternalError" {
			t.Errorf("error of type %s, want InternalError: %v", e.Type, e)
		}
	}

	ds := decisions(p)
	for subject, reason := range map[string]string{
		"ExternalArtifact/tenant-b/x": reasonPanic + "; kept in the inventory",
		"Namespace/tenant-c":          reasonPanic,
		"ExternalArtifact/tenant-c/y": `namespace "tenant-c": ` + reasonPanic,
		"ExternalArtifact/tenant-d/z": reasonPanic,
	} {
		if d := ds[subject]; d.Action != inventory.Skip || !strings.HasPrefix(d.Reason, reason) {
			t.Errorf("%s: %s, want skipped (%s)", subject, d, reason)
		}
	}
	for _, subject := range []string{"Namespace/tenant-a", "ExternalArtifact/tenant-a/app", "ExternalArtifact/tenant-ok/app", "Namespace/tenant-b", "Namespace/tenant-d"} {
		if d := ds[subject]; d.Action != inventory.Create && d.Action != inventory.Update {
			t.Errorf("%s: %s, want it applied", subject, d)
		}
	}
	for _, subject := range []string{"Namespace/tenant-gone", "ExternalArtifact/tenant-gone/old"} {
		if d := ds[subject]; d.Action != inventory.Keep || !strings.Contains(d.Reason, reasonDesiredErrors) {
			t.Errorf("%s: %s, want kept (%s)", subject, d, reasonDesiredErrors)
		}
	}
	var built []string
	for _, a := range p.Artifacts {
		built = append(built, a.Namespace+"/"+a.Name)
	}
	if want := []string{"tenant-a/app", "tenant-ok/app"}; !slices.Equal(built, want) {
		t.Errorf("artifacts %q, want %q", built, want)
	}
}

// TestPanicInDiscovery checks that a panic of the source while discovery
// reads below a tenant's directory is an error of the pattern, on one
// goroutine as on several: the plan builds nothing and deletes nothing.
func TestPanicInDiscovery(t *testing.T) {
	t.Parallel()
	previous := []inventory.Entry{nsEntry("tenant-a"), artEntry("tenant-a", "app")}
	src := panicTree()
	src.readDir = map[string]any{"tenants/tenant-b/modules": "boom in discovery"}
	for _, workers := range []int{1, 4} {
		g := mustCompile(t, testSpec(), WithConcurrency(workers))
		p := mustPlan(t, g, map[string]fs.FS{"repo": src}, previous, (&fakeCluster{}).cluster())
		if len(p.Errors) != 1 || p.Errors[0].Type != "InternalError" || p.Errors[0].Field != "spec.pathPattern" ||
			!strings.Contains(p.Errors[0].Detail, `reading below "tenants/tenant-b": panic: boom in discovery`) {
			t.Errorf("workers=%d: errors %v, want the panic as the one internal error of spec.pathPattern", workers, p.Errors.ToAggregate())
		}
		if len(p.Namespaces) != 0 || len(p.Artifacts) != 0 {
			t.Errorf("workers=%d: %d namespaces and %d artifacts built, want none", workers, len(p.Namespaces), len(p.Artifacts))
		}
		ds := decisions(p)
		if len(ds) != len(previous) {
			t.Errorf("workers=%d: %d decisions, want one for each of the %d tracked objects", workers, len(ds), len(previous))
		}
		for subject, d := range ds {
			if d.Action != inventory.Keep {
				t.Errorf("workers=%d: %s: %s, want kept", workers, subject, d)
			}
		}
	}
}

// TestPanicInCluster checks that a panic in the caller's Cluster, in any of
// its three parts and panic(nil) included, never escapes Plan or Finalize:
// it is an error of the one read, and the object it was for is kept, as for
// any read that fails.
func TestPanicInCluster(t *testing.T) {
	t.Parallel()
	previous := []inventory.Entry{nsEntry("tenant-gone"), artEntry("tenant-gone", "app")}
	live := func() *fakeCluster {
		return (&fakeCluster{}).live(previous, map[string]string{GeneratorLabel: testUID},
			map[string]string{"source.extensions.fluxcd.io/externalFinalizer": "fluxcd.controlplane.io/v1/ResourceSet/flux-system/rs/uid-1"})
	}
	for _, value := range []any{"boom", nil} {
		for _, tt := range []struct {
			part string
			set  func(c *Cluster, v any)
			kept string // the object kept: the one whose read panicked
		}{
			{part: "ObjectReader", kept: "ExternalArtifact/tenant-gone/app", set: func(c *Cluster, v any) {
				c.Objects = ObjectReaderFunc(func(context.Context, inventory.ID) (Object, error) { panic(v) })
			}},
			{part: "ArtifactLister", kept: "Namespace/tenant-gone", set: func(c *Cluster, v any) {
				c.Artifacts = ArtifactListerFunc(func(context.Context, string) ([]Object, error) { panic(v) })
			}},
			{part: "finalizer Lookup", kept: "Namespace/tenant-gone", set: func(c *Cluster, v any) {
				c.Finalizers = finalizer.LookupFunc(func(context.Context, finalizer.Reference) (string, error) { panic(v) })
			}},
		} {
			t.Run(fmt.Sprintf("%s/%v", tt.part, value), func(t *testing.T) {
				t.Parallel()
				g := mustCompile(t, testSpec())
				for _, run := range []struct {
					name string
					plan func(Cluster) (*Plan, error)
				}{
					{"Plan", func(c Cluster) (*Plan, error) {
						return g.Plan(t.Context(), sources(tree(okTenant)), previous, c)
					}},
					{"Finalize", func(c Cluster) (*Plan, error) { return g.Finalize(t.Context(), previous, c) }},
				} {
					c := live().cluster()
					tt.set(&c, value)
					p, err := run.plan(c)
					if err != nil {
						t.Fatalf("%s: %v", run.name, err)
					}
					// The panic is the kept object's reason, or, when it was
					// a desired namespace's read, an error of the plan,
					// which then keeps every stale object.
					said := "the cluster's " + tt.part + " panicked"
					d := decisions(p)[tt.kept]
					if d.Action != inventory.Keep || !strings.Contains(d.Reason, said) && !slices.ContainsFunc(p.Errors, func(e *field.Error) bool { return strings.Contains(e.Detail, said) }) {
						t.Errorf("%s: %s: %s, errors %v; want kept because the %s panicked", run.name, tt.kept, d, p.Errors.ToAggregate(), tt.part)
					}
					for _, d := range p.Decisions {
						if d.Action == inventory.Delete && d.Entry.ID().IsNamespace() {
							t.Errorf("%s: %s deleted", run.name, d.Entry.ID())
						}
					}
				}
			})
		}
	}
}
