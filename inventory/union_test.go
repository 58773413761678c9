package inventory

import (
	"maps"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var (
	ks      = Entry{APIVersion: "kustomize.toolkit.fluxcd.io/v1", Kind: "Kustomization", Namespace: "tenant-a", Name: "apps"}
	hr      = Entry{APIVersion: "helm.toolkit.fluxcd.io/v2", Kind: "HelmRelease", Namespace: "tenant-a", Name: "db"}
	sa      = Entry{APIVersion: "v1", Kind: "ServiceAccount", Namespace: "tenant-a", Name: "flux"}
	rb      = Entry{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "RoleBinding", Namespace: "tenant-a", Name: "flux"}
	deploy2 = Entry{APIVersion: "apps/v2", Kind: "Deployment", Namespace: "tenant-a", Name: "web"} // deploy at another version
)

func TestUnion(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name          string
		base, overlay []Entry
		order         func([]Entry)
		want          []Entry
	}{
		{name: "empty", want: []Entry{}},
		{name: "base only", base: []Entry{appA, nsA}, want: []Entry{nsA, appA}},
		{name: "overlay only", overlay: []Entry{appA, nsA}, want: []Entry{nsA, appA}},
		{name: "overlay wins", base: []Entry{deploy, nsA}, overlay: []Entry{deploy2, ea("tenant-a", "app", dg("2"))},
			want: []Entry{nsA, deploy2, ea("tenant-a", "app", dg("2"))}},
		{name: "overlay wins, in Flux's id order", base: []Entry{deploy, nsA, ks}, overlay: []Entry{deploy2, sa},
			order: sortFluxID, want: []Entry{nsA, ks, sa, deploy2}},
		{name: "nil order is apply order", base: []Entry{ks, sa, nsA}, want: []Entry{nsA, sa, ks}},
		{name: "the first of an ID twice in a list", base: []Entry{appA, ea("tenant-a", "app", dg("2"))},
			overlay: []Entry{appB, ea("tenant-b", "app", dg("2"))}, want: []Entry{appA, appB}},
		{name: "the version is not identity", base: []Entry{deploy}, overlay: []Entry{deploy2}, want: []Entry{deploy2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			base, overlay := slices.Clone(tt.base), slices.Clone(tt.overlay)
			got := Union(base, overlay, tt.order)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Union() mismatch (-want +got):\n%s", diff)
			}
			if !slices.Equal(base, tt.base) || !slices.Equal(overlay, tt.overlay) {
				t.Errorf("Union() modified its arguments")
			}
		})
	}
}

// fluxOperatorMerge is flux-operator's internal/inventory.Merge, as it reads
// (at its main of August): every id of base and overlay once, overlay's
// version where both hold it, sorted by id.
func fluxOperatorMerge(base, overlay []ResourceRef) []ResourceRef {
	versions := map[string]string{}
	for _, inv := range [][]ResourceRef{base, overlay} {
		for _, e := range inv {
			versions[e.ID] = e.Version
		}
	}
	out := make([]ResourceRef, 0, len(versions))
	for _, id := range slices.Sorted(maps.Keys(versions)) {
		out = append(out, ResourceRef{ID: id, Version: versions[id]})
	}
	return out
}

// TestUnionFluxOperator: Union in Flux's id order, each entry written with
// ResourceRef, is flux-operator's Merge, ref for ref, on inventories
// without duplicates.
func TestUnionFluxOperator(t *testing.T) {
	t.Parallel()
	pool := []Entry{nsA, nsB, crdA, crdB, cm, deploy, deploy2, appA, appB, ks, hr, sa, rb,
		{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "ClusterRole", Name: "system:controller"},
		{APIVersion: "v1", Kind: "ConfigMap", Namespace: "tenant-a", Name: "a_b"},
		{APIVersion: "v1", Kind: "ConfigMap", Namespace: "tenant-b", Name: "c"}}
	rng := rand.New(rand.NewPCG(37, 1))
	pick := func() []Entry {
		var out []Entry
		seen := map[ID]bool{}
		for _, i := range rng.Perm(len(pool))[:rng.IntN(len(pool))] {
			if e := pool[i]; !seen[e.ID()] {
				seen[e.ID()] = true
				out = append(out, e)
			}
		}
		return out
	}
	refs := func(es []Entry) []ResourceRef {
		out := make([]ResourceRef, len(es))
		for i, e := range es {
			out[i] = e.ResourceRef()
		}
		return out
	}
	for range 500 {
		base, overlay := pick(), pick()
		got := refs(Union(base, overlay, sortFluxID))
		want := fluxOperatorMerge(refs(base), refs(overlay))
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("Union(%v, %v) differs from flux-operator's Merge (-want +got):\n%s", base, overlay, diff)
		}
	}
}
