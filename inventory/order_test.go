package inventory

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var (
	crdA   = Entry{APIVersion: "apiextensions.k8s.io/v1", Kind: "CustomResourceDefinition", Name: "a.example.com"}
	crdB   = Entry{APIVersion: "apiextensions.k8s.io/v1", Kind: "CustomResourceDefinition", Name: "b.example.com"}
	nsA    = nsEntry("tenant-a", "")
	nsB    = nsEntry("tenant-b", "")
	fakeNS = Entry{APIVersion: "example.com/v1", Kind: "Namespace", Name: "aaa"} // not a Namespace
	deploy = Entry{APIVersion: "apps/v1", Kind: "Deployment", Namespace: "tenant-a", Name: "web"}
	cm     = Entry{APIVersion: "v1", Kind: "ConfigMap", Namespace: "tenant-a", Name: "c"}
	appA   = ea("tenant-a", "app", "")
	appB   = ea("tenant-b", "app", "")
	// A kind named Namespace in another group ranks with Namespaces, after
	// the core ones, as in Flux's ssa.
	inApply = []Entry{crdA, crdB, nsA, nsB, fakeNS, cm, deploy, appA, appB}
)

func TestSortApply(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   []Entry
		want []Entry
	}{
		{name: "empty"},
		{name: "sorted stays", in: inApply, want: inApply},
		{name: "reversed", in: reversed(inApply), want: inApply},
		{name: "equal IDs keep their order", in: []Entry{appA, ea("tenant-a", "app", dg("2")), nsA},
			want: []Entry{nsA, appA, ea("tenant-a", "app", dg("2"))}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := slices.Clone(tt.in)
			SortApply(got)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("SortApply mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSortPrune(t *testing.T) {
	t.Parallel()
	rb := Entry{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "RoleBinding", Namespace: "tenant-a", Name: "flux-reconciler"}
	tests := []struct {
		name string
		in   []Entry
		want []Entry
	}{
		{name: "empty"},
		{name: "reverse of apply", in: inApply, want: reversed(inApply)},
		{name: "equal IDs keep their order", in: []Entry{appA, nsA, ea("tenant-a", "app", dg("2"))},
			want: []Entry{appA, ea("tenant-a", "app", dg("2")), nsA}},
		{name: "an artifact, its namespace, then a CRD", in: []Entry{nsA, crdA, appA}, want: []Entry{appA, nsA, crdA}},
		{name: "a Kustomization before the RoleBinding it runs as", in: []Entry{rb, ks}, want: []Entry{ks, rb}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := slices.Clone(tt.in)
			sortPrune(got)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("sortPrune mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestSortShuffled checks both sorts on random permutations.
func TestSortShuffled(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	for range 50 {
		in := slices.Clone(inApply)
		rng.Shuffle(len(in), func(i, j int) { in[i], in[j] = in[j], in[i] })
		got := slices.Clone(in)
		SortApply(got)
		if diff := cmp.Diff(inApply, got); diff != "" {
			t.Fatalf("SortApply(%v) mismatch (-want +got):\n%s", in, diff)
		}
		sortPrune(in)
		if diff := cmp.Diff(reversed(inApply), in); diff != "" {
			t.Fatalf("sortPrune mismatch (-want +got):\n%s", diff)
		}
	}
}

// TestOrderTable pins the kind table to github.com/fluxcd/pkg/ssa
// ReconcileOrder of ssa v0.77.0, which kustomize-controller and
// flux-operator use; interop/flux checks it against ssa itself.
func TestOrderTable(t *testing.T) {
	t.Parallel()
	first := []string{
		"CustomResourceDefinition", "Namespace", "ClusterRole", "ClusterClass", "RuntimeClass",
		"PriorityClass", "StorageClass", "VolumeSnapshotClass", "IngressClass", "GatewayClass",
		"ClusterRoleBinding", "ResourceQuota", "ServiceAccount", "Role", "RoleBinding", "ConfigMap",
		"Secret", "Service", "LimitRange", "Deployment", "StatefulSet", "CronJob", "PodDisruptionBudget",
	}
	last := []string{"MutatingWebhookConfiguration", "ValidatingWebhookConfiguration"}
	if diff := cmp.Diff(first, applyFirst); diff != "" {
		t.Errorf("applyFirst mismatch (-ssa v0.77.0 +got):\n%s", diff)
	}
	if diff := cmp.Diff(last, applyLast); diff != "" {
		t.Errorf("applyLast mismatch (-ssa v0.77.0 +got):\n%s", diff)
	}
	for i, k := range first {
		if kindRank[k] != i-len(first) {
			t.Errorf("rank of %s = %d, want %d", k, kindRank[k], i-len(first))
		}
	}
	for i, k := range last {
		if kindRank[k] != i+1 {
			t.Errorf("rank of %s = %d, want %d", k, kindRank[k], i+1)
		}
	}
	if kindRank["ExternalArtifact"] != 0 || len(kindRank) != len(first)+len(last) {
		t.Errorf("kinds outside the table must rank 0: %v", kindRank)
	}
}

// TestOrderFlux holds the minimal examples of issue 14: apply order is
// ssa's, and prune order its exact reverse.
func TestOrderFlux(t *testing.T) {
	t.Parallel()
	rbac := func(kind, ns, name string) Entry {
		return Entry{APIVersion: "rbac.authorization.k8s.io/v1", Kind: kind, Namespace: ns, Name: name}
	}
	webhook := Entry{APIVersion: "apps/v1", Kind: "Deployment", Namespace: "webhook-system", Name: "webhook"}
	policy := Entry{APIVersion: "admissionregistration.k8s.io/v1", Kind: "ValidatingWebhookConfiguration", Name: "policy"}
	ks := Entry{APIVersion: "kustomize.toolkit.fluxcd.io/v1", Kind: "Kustomization", Namespace: "tenant-a", Name: "apps"}
	hr := Entry{APIVersion: "helm.toolkit.fluxcd.io/v2", Kind: "HelmRelease", Namespace: "tenant-a", Name: "app"}
	rset := Entry{APIVersion: "fluxcd.controlplane.io/v1", Kind: "ResourceSet", Namespace: "tenant-a", Name: "tenants"}
	tests := []struct {
		name  string
		apply []Entry // in apply order; prune is the reverse
	}{
		{name: "Deployment before its webhook configuration", apply: []Entry{webhook, policy}},
		{name: "RoleBinding before the Kustomization that runs as it", apply: []Entry{rbac("RoleBinding", "tenant-a", "flux-reconciler"), ks}},
	}
	for _, flux := range []Entry{ks, hr, rset} {
		for _, r := range []Entry{rbac("Role", "tenant-a", "r"), rbac("RoleBinding", "tenant-a", "rb"), rbac("ClusterRole", "", "cr"), rbac("ClusterRoleBinding", "", "crb")} {
			tests = append(tests, struct {
				name  string
				apply []Entry
			}{name: r.Kind + " before " + flux.Kind, apply: []Entry{r, flux}})
		}
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := reversed(tt.apply)
			SortApply(got)
			if diff := cmp.Diff(tt.apply, got); diff != "" {
				t.Errorf("SortApply mismatch (-want +got):\n%s", diff)
			}
			got = slices.Clone(tt.apply)
			sortPrune(got)
			if diff := cmp.Diff(reversed(tt.apply), got); diff != "" {
				t.Errorf("sortPrune mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func reversed(es []Entry) []Entry {
	out := slices.Clone(es)
	slices.Reverse(out)
	return out
}

// sortFluxID sorts entries by their Flux ResourceInventory id ([ID.FluxID]), byte by byte, as
// flux-operator records its inventories (its Merge sorts the ids): the order ExampleUnion writes.
func sortFluxID(entries []Entry) {
	slices.SortStableFunc(entries, func(a, b Entry) int { return strings.Compare(a.ID().FluxID(), b.ID().FluxID()) })
}

func TestSortFluxID(t *testing.T) {
	t.Parallel()
	cr := Entry{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "ClusterRole", Name: "system:controller"}
	nsV1 := Entry{APIVersion: "v1", Kind: "Namespace", Name: "tenant-a"}
	tests := []struct {
		name string
		in   []Entry
		want []Entry
		ids  []string // want's Flux ids, where the case pins them
	}{
		{name: "empty"},
		// _system__controller_..._ClusterRole, _tenant-a__Namespace,
		// _tenant-b__Namespace, tenant-a_app_..., tenant-a_apps_kustomize...,
		// tenant-a_c__ConfigMap, tenant-a_web_apps_Deployment.
		{name: "by id, byte by byte", in: []Entry{deploy, ks, appA, nsB, cm, nsA, cr},
			want: []Entry{cr, nsA, nsB, appA, ks, cm, deploy}},
		{name: "equal IDs keep their order", in: []Entry{deploy2, nsA, deploy}, want: []Entry{nsA, deploy2, deploy}},
		{name: "an ExternalArtifact without apiVersion by its well-known group", in: []Entry{ks, nsV1, appA},
			want: []Entry{nsV1, appA, ks},
			ids: []string{"_tenant-a__Namespace", "tenant-a_app_source.toolkit.fluxcd.io_ExternalArtifact",
				"tenant-a_apps_kustomize.toolkit.fluxcd.io_Kustomization"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := slices.Clone(tt.in)
			sortFluxID(got)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("sortFluxID mismatch (-want +got):\n%s", diff)
			}
			for i, id := range tt.ids {
				if got := got[i].ID().FluxID(); got != id {
					t.Errorf("entry %d: Flux id %q, want %q", i, got, id)
				}
			}
		})
	}
}

func TestPruneStages(t *testing.T) {
	t.Parallel()
	// A kind in a group that only starts like Flux's: flux-operator's prefix
	// test takes it into the first stage; PruneStages does not.
	lookalike := Entry{APIVersion: "kustomize.toolkit.fluxcd.io.example.com/v1", Kind: "Kustomization", Namespace: "tenant-a", Name: "x"}
	tests := []struct {
		name string
		in   []Entry
		want [][]Entry
	}{
		{name: "none"},
		{name: "Flux's appliers first, each stage in prune order", in: []Entry{nsA, sa, hr, rb, ks, deploy},
			want: [][]Entry{{ks, hr}, {deploy, rb, sa, nsA}}},
		{name: "no appliers: one stage", in: []Entry{nsA, cm}, want: [][]Entry{{cm, nsA}}},
		{name: "only appliers: one stage", in: []Entry{hr, ks}, want: [][]Entry{{ks, hr}}},
		{name: "a lookalike group is not Flux's", in: []Entry{lookalike, ks}, want: [][]Entry{{ks}, {lookalike}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			in := slices.Clone(tt.in)
			got := PruneStages(in)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("PruneStages mismatch (-want +got):\n%s", diff)
			}
			if !slices.Equal(in, tt.in) {
				t.Errorf("PruneStages modified its argument")
			}
		})
	}
}
