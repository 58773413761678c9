package generator

import (
	"errors"
	"io/fs"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

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
