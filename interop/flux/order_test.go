package flux_test

import (
	"math/rand/v2"
	"slices"
	"sort"
	"testing"

	"github.com/fluxcd/pkg/ssa"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/tenantkit/tenantkit/inventory"
)

// orderTests are the sets of issue 14 and one of every kind of ssa's table.
var orderTests = []struct {
	name    string
	entries []inventory.Entry
}{
	{name: "Deployment and its webhook configuration", entries: []inventory.Entry{
		{APIVersion: "admissionregistration.k8s.io/v1", Kind: "ValidatingWebhookConfiguration", Name: "policy"},
		{APIVersion: "apps/v1", Kind: "Deployment", Namespace: "webhook-system", Name: "webhook"},
	}},
	{name: "Kustomization and its RoleBinding", entries: []inventory.Entry{
		{APIVersion: "kustomize.toolkit.fluxcd.io/v1", Kind: "Kustomization", Namespace: "tenant-a", Name: "apps"},
		{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "RoleBinding", Namespace: "tenant-a", Name: "flux-reconciler"},
	}},
	{name: "HelmRelease, ResourceSet and every RBAC kind", entries: []inventory.Entry{
		{APIVersion: "helm.toolkit.fluxcd.io/v2", Kind: "HelmRelease", Namespace: "tenant-a", Name: "app"},
		{APIVersion: "fluxcd.controlplane.io/v1", Kind: "ResourceSet", Namespace: "tenant-a", Name: "tenants"},
		{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "Role", Namespace: "tenant-a", Name: "r"},
		{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "RoleBinding", Namespace: "tenant-a", Name: "rb"},
		{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "ClusterRole", Name: "cr"},
		{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "ClusterRoleBinding", Name: "crb"},
	}},
	{name: "a Namespace kind of another group", entries: []inventory.Entry{
		{APIVersion: "example.com/v1", Kind: "Namespace", Name: "a"},
		{Kind: "Namespace", Name: "a"},
		{APIVersion: "apiextensions.k8s.io/v1", Kind: "CustomResourceDefinition", Name: "w.example.com"},
		{APIVersion: "example.com/v1", Kind: "CustomResourceDefinition", Name: "w"},
		{Kind: "ExternalArtifact", Namespace: "a", Name: "app"},
	}},
	{name: "every kind of the table", entries: func() []inventory.Entry {
		var es []inventory.Entry
		for _, k := range append(slices.Clone(ssa.ReconcileOrder.First), ssa.ReconcileOrder.Last...) {
			es = append(es, inventory.Entry{APIVersion: "v1", Kind: k, Name: "x"})
		}
		slices.Reverse(es)
		return es
	}()},
}

func TestOrderTable(t *testing.T) {
	t.Parallel()
	for _, tt := range orderTests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			compareOrder(t, tt.entries)
		})
	}
}

// TestOrderRandom compares random sets of distinct objects, of kinds in
// and out of ssa's table, in groups where they belong and where they do
// not.
func TestOrderRandom(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(2, 14))
	pool := append(slices.Clone(ssa.ReconcileOrder.First), ssa.ReconcileOrder.Last...)
	pool = append(pool, "ExternalArtifact", "Kustomization", "HelmRelease", "ResourceSet", "Widget", "Zebra", "Aardvark")
	groups := []string{"", "apps", "rbac.authorization.k8s.io", "example.com", "source.toolkit.fluxcd.io", "z.io"}
	for n := range 3000 {
		size := 1 + rng.IntN(40)
		if n == 0 {
			size = 5000
		}
		seen := make(map[inventory.ID]bool)
		var entries []inventory.Entry
		for len(entries) < size {
			g := groups[rng.IntN(len(groups))]
			e := inventory.Entry{APIVersion: version(g), Kind: pool[rng.IntN(len(pool))], Name: randomString(rng, "abc", 3) + "x"}
			if rng.IntN(2) == 0 {
				e.Namespace = []string{"a", "b", "tenant-a"}[rng.IntN(3)]
			}
			if id := e.ID(); !seen[id] {
				seen[id] = true
				entries = append(entries, e)
			}
		}
		compareOrder(t, entries)
	}
}

// compareOrder sorts entries with ssa, as ApplyAllStaged (sort.Sort) and
// DeleteAll (sort.Sort(sort.Reverse)) do, and with inventory.
func compareOrder(t *testing.T, entries []inventory.Entry) {
	t.Helper()
	objects := make([]*unstructured.Unstructured, len(entries))
	for i, e := range entries {
		id := e.ID()
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(schema.GroupVersionKind{Group: id.Group, Version: "v1", Kind: id.Kind})
		u.SetNamespace(id.Namespace)
		u.SetName(id.Name)
		objects[i] = u
	}
	ids := func(us []*unstructured.Unstructured) []inventory.ID {
		out := make([]inventory.ID, len(us))
		for i, u := range us {
			gvk := u.GroupVersionKind()
			out[i] = inventory.ID{Group: gvk.Group, Kind: gvk.Kind, Namespace: u.GetNamespace(), Name: u.GetName()}
		}
		return out
	}
	entryIDs := func(es []inventory.Entry) []inventory.ID {
		out := make([]inventory.ID, len(es))
		for i, e := range es {
			out[i] = e.ID()
		}
		return out
	}

	apply := slices.Clone(objects)
	sort.Sort(ssa.SortableUnstructureds(apply))
	got := slices.Clone(entries)
	inventory.SortApply(got)
	if want, got := ids(apply), entryIDs(got); !slices.Equal(want, got) {
		t.Errorf("SortApply(%v)\n got %v\nssa %v", entryIDs(entries), got, want)
	}

	prune := slices.Clone(objects)
	sort.Sort(sort.Reverse(ssa.SortableUnstructureds(prune)))
	got = slices.Clone(entries)
	inventory.SortApply(got)
	slices.Reverse(got)
	if want, got := ids(prune), entryIDs(got); !slices.Equal(want, got) {
		t.Errorf("SortApply reversed (%v)\n got %v\nssa %v", entryIDs(entries), got, want)
	}
}
