package generator

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tenantkit/tenantkit/inventory"
)

// TestOrphans translates TestFindOrphanedReferences
// (artifactgenerator_inventory_test.go): entries written before the kind
// field are ExternalArtifacts, matched by identity with the desired ones;
// the tracked objects that are no longer desired are stale.
func TestOrphans(t *testing.T) {
	t.Parallel()
	g := mustCompile(t, testSpec())
	src := sources(tree("tenants/tenant-a/modules/app"))
	first := mustPlan(t, g, src, nil, Cluster{})
	app := first.Artifacts[0]
	previous := []inventory.Entry{
		{Namespace: "tenant-a", Name: "app", Digest: app.Digest, Filename: "app.tar.gz"},
		{Namespace: "tenant-a", Name: "stale", Digest: app.Digest, Filename: "stale.tar.gz"},
		{Kind: "Namespace", Name: "old-ns", Digest: nsEntry("").Digest},
	}
	owned := map[string]string{GeneratorLabel: testUID}
	c := (&fakeCluster{}).live([]inventory.Entry{artEntry("tenant-a", "stale"), nsEntry("old-ns")}, owned, nil)
	p := mustPlan(t, g, src, previous, c.cluster())
	var got []string
	for _, d := range p.Decisions {
		got = append(got, d.String())
	}
	want := []string{
		"Namespace/tenant-a created",
		"ExternalArtifact/tenant-a/app unchanged",
		"ExternalArtifact/tenant-a/stale deleted (no longer desired)",
		"Namespace/old-ns deleted (no longer desired; no external finalizer)",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("decisions (-want +got):\n%s", diff)
	}
}

// TestProtectedStaleNamespace: a stale namespace with a protected name,
// which only an inventory that source-watcher wrote can track, is released,
// never deleted (source-watcher protects only its own namespace).
func TestProtectedStaleNamespace(t *testing.T) {
	t.Parallel()
	spec := testSpec()
	spec.ManagedNamespaces.AllowedNames = []string{"true"}
	g := mustCompile(t, spec)
	previous := []inventory.Entry{nsEntry("tenant-ok"), artEntry("tenant-ok", "app"), nsEntry("default"), nsEntry("flux-system"), nsEntry("tenant-z")}
	c := (&fakeCluster{}).live(previous[2:], map[string]string{GeneratorLabel: testUID}, nil)
	p := mustPlan(t, g, sources(tree(okTenant)), previous, c.cluster())
	var got []string
	for _, d := range p.Decisions {
		if d.Entry.ID().IsNamespace() && d.Entry.Name != "tenant-ok" {
			got = append(got, d.String())
		}
	}
	slices.Sort(got)
	want := []string{
		"Namespace/default released (protected namespace: never deleted)",
		"Namespace/flux-system released (protected namespace: never deleted)",
		"Namespace/tenant-z deleted (no longer desired; no external finalizer)",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("decisions (-want +got):\n%s", diff)
	}
}
