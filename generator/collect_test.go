package generator

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/tenantkit/tenantkit/finalizer"
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

// TestHandOffCycle: tenants a and c are both removed, and each namespace
// names as its external finalizer a ResourceSet living in the other's,
// existing with the stamped UID. Neither is a hand-off: the generator
// removes both namespaces, and what lives in them with them, so the
// objects cannot outlive them. Before, each kept the other on every pass,
// for ever. Both are deleted, their artifacts first, with or without a
// kind allow-list, in a plan and in Finalize. A reference into a namespace
// the generator keeps (desired) or releases (prune disabled on it) is a
// hand-off as before; when the other namespace cannot be read, both are
// kept.
func TestHandOffCycle(t *testing.T) {
	t.Parallel()
	rsKind := schema.GroupKind{Group: "fluxcd.controlplane.io", Kind: "ResourceSet"}
	rs := func(ns string) (inventory.ID, string) {
		return inventory.ID{Group: rsKind.Group, Kind: rsKind.Kind, Namespace: ns, Name: "rs"},
			"fluxcd.controlplane.io/v1/ResourceSet/" + ns + "/rs/uid-rs-" + ns
	}
	notHandOff := func(other string) string {
		_, ref := rs(other)
		return "external finalizer " + strings.TrimSuffix(ref, "/uid-rs-"+other) + " (uid uid-rs-" + other +
			") is not a hand-off: it lives in namespace " + other + ", which this generator removes too (no longer desired)"
	}
	previous := []inventory.Entry{
		nsEntry("tenant-a"), artEntry("tenant-a", "app"),
		nsEntry("tenant-c"), artEntry("tenant-c", "app"),
		nsEntry("tenant-ok"), artEntry("tenant-ok", "app"),
	}
	for _, tt := range []struct {
		name     string
		opts     []Option
		finalize bool
		targets  [2]string // the namespaces of a's and c's ResourceSets
		released bool      // c's live copy disables pruning
		failing  bool      // reading c's live copy fails
		want     []string  // the decisions of tenant-a and tenant-c's objects
	}{
		{name: "cycle", targets: [2]string{"tenant-c", "tenant-a"}, want: []string{
			"ExternalArtifact/tenant-c/app deleted (no longer desired)",
			"ExternalArtifact/tenant-a/app deleted (no longer desired)",
			"Namespace/tenant-c deleted (no longer desired; " + notHandOff("tenant-a") + ")",
			"Namespace/tenant-a deleted (no longer desired; " + notHandOff("tenant-c") + ")",
		}},
		{name: "cycle, ResourceSets allowed", opts: []Option{WithFinalizerKinds(rsKind)}, targets: [2]string{"tenant-c", "tenant-a"}, want: []string{
			"ExternalArtifact/tenant-c/app deleted (no longer desired)",
			"ExternalArtifact/tenant-a/app deleted (no longer desired)",
			"Namespace/tenant-c deleted (no longer desired; " + notHandOff("tenant-a") + ")",
			"Namespace/tenant-a deleted (no longer desired; " + notHandOff("tenant-c") + ")",
		}},
		{name: "cycle, Finalize", finalize: true, targets: [2]string{"tenant-c", "tenant-a"}, want: []string{
			"ExternalArtifact/tenant-ok/app deleted (the generator is deleted)",
			"ExternalArtifact/tenant-c/app deleted (the generator is deleted)",
			"ExternalArtifact/tenant-a/app deleted (the generator is deleted)",
			"Namespace/tenant-ok deleted (the generator is deleted; no external finalizer)",
			"Namespace/tenant-c deleted (the generator is deleted; " + notHandOff("tenant-a") + ")",
			"Namespace/tenant-a deleted (the generator is deleted; " + notHandOff("tenant-c") + ")",
		}},
		{name: "cycle, reading the other namespace fails", failing: true, targets: [2]string{"tenant-c", "tenant-a"}, want: []string{
			"ExternalArtifact/tenant-c/app deleted (no longer desired)",
			"ExternalArtifact/tenant-a/app deleted (no longer desired)",
			"Namespace/tenant-c kept (guard failed: reading the live object: boom)",
			"Namespace/tenant-a kept (guard failed: reading namespace tenant-c, where the external finalizer lives: boom)",
		}},
		{name: "into a desired namespace", targets: [2]string{"tenant-ok", "tenant-ok"}, want: []string{
			"ExternalArtifact/tenant-c/app deleted (no longer desired)",
			"ExternalArtifact/tenant-a/app deleted (no longer desired)",
			"Namespace/tenant-c kept (handed off to fluxcd.controlplane.io/v1/ResourceSet/tenant-ok/rs (uid uid-rs-tenant-ok); kept in the inventory while the hand-off holds)",
			"Namespace/tenant-a kept (handed off to fluxcd.controlplane.io/v1/ResourceSet/tenant-ok/rs (uid uid-rs-tenant-ok); kept in the inventory while the hand-off holds)",
		}},
		{name: "into a namespace released", released: true, targets: [2]string{"tenant-c", "tenant-a"}, want: []string{
			"ExternalArtifact/tenant-c/app deleted (no longer desired)",
			"ExternalArtifact/tenant-a/app deleted (no longer desired)",
			"Namespace/tenant-c released (pruning is disabled on the live object (annotation source.extensions.fluxcd.io/prune: disabled))",
			"Namespace/tenant-a kept (handed off to fluxcd.controlplane.io/v1/ResourceSet/tenant-c/rs (uid uid-rs-tenant-c); kept in the inventory while the hand-off holds)",
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			g := mustCompile(t, testSpec(), tt.opts...)
			owned := map[string]string{GeneratorLabel: testUID}
			c := (&fakeCluster{uids: map[inventory.ID]string{}}).live(previous, owned, nil)
			for i, ns := range []string{"tenant-a", "tenant-c"} {
				id, ref := rs(tt.targets[i])
				c.uids[id] = "uid-rs-" + tt.targets[i]
				annotations := map[string]string{finalizer.Annotation: ref}
				if ns == "tenant-c" && tt.released {
					annotations["source.extensions.fluxcd.io/prune"] = "disabled"
				}
				c.live([]inventory.Entry{nsEntry(ns)}, owned, annotations)
			}
			if tt.failing {
				c.failing = map[inventory.ID]error{nsEntry("tenant-c").ID(): errBoom}
			}
			var p *Plan
			if tt.finalize {
				var err error
				if p, err = g.Finalize(context.Background(), previous, c.cluster()); err != nil {
					t.Fatal(err)
				}
			} else {
				p = mustPlan(t, g, sources(tree(okTenant)), previous, c.cluster())
			}
			var got []string
			for _, d := range p.Decisions {
				if tt.finalize || d.Entry.Namespace != "tenant-ok" && d.Entry.Name != "tenant-ok" {
					got = append(got, d.String())
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("decisions (-want +got):\n%s", diff)
			}
			if p.HasErrors() {
				t.Errorf("errors %v", p.Errors.ToAggregate())
			}
		})
	}
}

// TestHandOffKindsAllowed: without WithFinalizerKinds, any object that
// exists with the stamped UID keeps a namespace, a ConfigMap in another
// tenant's namespace or ClusterRole admin among them; with the
// ResourceSet kind allowed, neither is a hand-off.
func TestHandOffKindsAllowed(t *testing.T) {
	t.Parallel()
	rsKind := schema.GroupKind{Group: "fluxcd.controlplane.io", Kind: "ResourceSet"}
	for _, tt := range []struct {
		name string
		ref  string
		id   inventory.ID
		opts []Option
		want string
	}{
		{name: "ConfigMap in another tenant's namespace", ref: "/v1/ConfigMap/tenant-ok/cm/uid-cm", id: inventory.ID{Kind: "ConfigMap", Namespace: "tenant-ok", Name: "cm"},
			want: "Namespace/tenant-a kept (handed off to v1/ConfigMap/tenant-ok/cm (uid uid-cm); kept in the inventory while the hand-off holds)"},
		{name: "ClusterRole admin", ref: "rbac.authorization.k8s.io/v1/ClusterRole//admin/uid-admin", id: inventory.ID{Group: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: "admin"},
			want: "Namespace/tenant-a kept (handed off to rbac.authorization.k8s.io/v1/ClusterRole/admin (uid uid-admin); kept in the inventory while the hand-off holds)"},
		{name: "ConfigMap, ResourceSets allowed", ref: "/v1/ConfigMap/tenant-ok/cm/uid-cm", id: inventory.ID{Kind: "ConfigMap", Namespace: "tenant-ok", Name: "cm"}, opts: []Option{WithFinalizerKinds(rsKind)},
			want: "Namespace/tenant-a deleted (no longer desired; external finalizer v1/ConfigMap/tenant-ok/cm (uid uid-cm) is not a hand-off: kind ConfigMap is not allowed (allowed: fluxcd.controlplane.io/ResourceSet))"},
		{name: "ClusterRole, ResourceSets allowed", ref: "rbac.authorization.k8s.io/v1/ClusterRole//admin/uid-admin", id: inventory.ID{Group: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: "admin"}, opts: []Option{WithFinalizerKinds(rsKind)},
			want: "Namespace/tenant-a deleted (no longer desired; external finalizer rbac.authorization.k8s.io/v1/ClusterRole/admin (uid uid-admin) is not a hand-off: kind rbac.authorization.k8s.io/ClusterRole is not allowed (allowed: fluxcd.controlplane.io/ResourceSet))"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			g := mustCompile(t, testSpec(), tt.opts...)
			previous := []inventory.Entry{nsEntry("tenant-ok"), artEntry("tenant-ok", "app"), nsEntry("tenant-a")}
			uid := tt.ref[strings.LastIndex(tt.ref, "/")+1:]
			c := (&fakeCluster{uids: map[inventory.ID]string{tt.id: uid}}).live(previous[2:], map[string]string{GeneratorLabel: testUID}, map[string]string{finalizer.Annotation: tt.ref})
			p := mustPlan(t, g, sources(tree(okTenant)), previous, c.cluster())
			if got := decisions(p)["Namespace/tenant-a"].String(); got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}
