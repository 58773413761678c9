package inventory_test

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/tenantkit/tenantkit/inventory"
)

func ExampleUnion() {
	previous := []inventory.Entry{
		{APIVersion: "v1", Kind: "Namespace", Name: "tenant-a"},
		{APIVersion: "apps/v1", Kind: "Deployment", Namespace: "tenant-a", Name: "web"},
	}
	// What the first step applied: the Deployment, now at apps/v2, and a
	// ServiceAccount.
	applied := []inventory.Entry{
		{APIVersion: "apps/v2", Kind: "Deployment", Namespace: "tenant-a", Name: "web"},
		{APIVersion: "v1", Kind: "ServiceAccount", Namespace: "tenant-a", Name: "flux"},
	}
	for _, e := range inventory.Union(previous, applied, inventory.SortApply) {
		fmt.Println(e.ID(), e.APIVersion)
	}
	// As flux-operator records it: ids in byte order.
	byFluxID := func(es []inventory.Entry) {
		slices.SortStableFunc(es, func(a, b inventory.Entry) int { return strings.Compare(a.ID().FluxID(), b.ID().FluxID()) })
	}
	for _, e := range inventory.Union(previous, applied, byFluxID) {
		fmt.Printf("%+v\n", e.ResourceRef())
	}
	// Output:
	// Namespace/tenant-a v1
	// ServiceAccount/tenant-a/flux v1
	// Deployment/tenant-a/web apps/v2
	// {ID:_tenant-a__Namespace Version:v1}
	// {ID:tenant-a_flux__ServiceAccount Version:v1}
	// {ID:tenant-a_web_apps_Deployment Version:v2}
}

func ExampleEntry_ResourceRef() {
	for _, e := range []inventory.Entry{
		{APIVersion: "apps/v1", Kind: "Deployment", Namespace: "tenant-a", Name: "web"},
		{Kind: "ExternalArtifact", Namespace: "tenant-a", Name: "app"}, // the well-known apiVersion
	} {
		fmt.Printf("%+v\n", e.ResourceRef())
	}
	// Output:
	// {ID:tenant-a_web_apps_Deployment Version:v1}
	// {ID:tenant-a_app_source.toolkit.fluxcd.io_ExternalArtifact Version:v1}
}

func ExampleUnmarshalLenient() {
	// A ResourceSet whose inventory holds an id twice and one whose
	// namespace is not a DNS-1123 label: Unmarshal refuses the one, Diff
	// the other, and cleaning up would stop.
	data := []byte(`
status:
  inventory:
    entries:
      - {id: _tenant-a__Namespace, v: v1}
      - {id: Tenant_A_web_apps_Deployment, v: v1}
      - {id: tenant-a_web_apps_Deployment, v: v1}
      - {id: tenant-a_web_apps_Deployment, v: v1}
`)
	_, err := inventory.Unmarshal(data)
	fmt.Println(err != nil)

	entries, dropped, err := inventory.UnmarshalLenient(data)
	for _, e := range entries {
		fmt.Println("kept:", e.ID())
	}
	for _, d := range dropped {
		fmt.Println("dropped:", d.Field, d.Type)
	}
	fmt.Println(err)
	// Output:
	// true
	// kept: Namespace/tenant-a
	// kept: Deployment/tenant-a/web
	// dropped: status.inventory.entries[1].id Invalid value
	// dropped: status.inventory.entries[3] Duplicate value
	// <nil>
}

func ExamplePruneStages() {
	stale := []inventory.Entry{
		{APIVersion: "v1", Kind: "Namespace", Name: "tenant-a"},
		{APIVersion: "v1", Kind: "ServiceAccount", Namespace: "tenant-a", Name: "flux"},
		{APIVersion: "kustomize.toolkit.fluxcd.io/v1", Kind: "Kustomization", Namespace: "tenant-a", Name: "apps"},
		{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "RoleBinding", Namespace: "tenant-a", Name: "flux"},
		{APIVersion: "helm.toolkit.fluxcd.io/v2", Kind: "HelmRelease", Namespace: "tenant-a", Name: "db"},
	}
	for i, stage := range inventory.PruneStages(stale) {
		fmt.Println("stage", i+1)
		for _, e := range stage {
			fmt.Println(" ", e.ID())
		}
	}
	// Output:
	// stage 1
	//   Kustomization/tenant-a/apps
	//   HelmRelease/tenant-a/db
	// stage 2
	//   RoleBinding/tenant-a/flux
	//   ServiceAccount/tenant-a/flux
	//   Namespace/tenant-a
}

// ExampleResult is a staged garbage collection that records what each
// deletion came to, as flux-operator's ResourceSet deletes: one object
// disables its own pruning, one deletion fails.
func ExampleResult() {
	previous := []inventory.Entry{
		{APIVersion: "v1", Kind: "ConfigMap", Namespace: "tenant-a", Name: "settings"},
		{APIVersion: "v1", Kind: "ServiceAccount", Namespace: "tenant-a", Name: "flux"},
		{APIVersion: "kustomize.toolkit.fluxcd.io/v1", Kind: "Kustomization", Namespace: "tenant-a", Name: "apps"},
		{APIVersion: "v1", Kind: "Secret", Namespace: "tenant-a", Name: "keep-me"},
	}
	desired := previous[:1]
	changes, _ := inventory.Diff(previous, desired)
	decisions, err := inventory.Collect(context.Background(), changes)
	if err != nil {
		panic(err)
	}

	// The live objects, as the deleter finds them.
	pruneDisabled := map[string]bool{"keep-me": true}
	fails := map[string]string{"flux": "serviceaccounts \"flux\" is forbidden"}
	results := map[inventory.ID]inventory.Decision{}
	var deletions []inventory.Entry
	for _, d := range decisions {
		if d.Action == inventory.Delete {
			deletions = append(deletions, d.Entry)
		}
	}
	for _, stage := range inventory.PruneStages(deletions) {
		for _, e := range stage {
			d := inventory.Decision{Entry: e, Action: inventory.Delete, Result: inventory.Deleted}
			switch {
			case pruneDisabled[e.Name]:
				d.Result = inventory.PruningDisabled
			case fails[e.Name] != "":
				d.Result, d.Reason = inventory.DeletionFailed, fails[e.Name]
			}
			results[e.ID()] = d
		}
		// ... wait for the stage's objects to be gone ...
	}
	for i, d := range decisions {
		if r, ok := results[d.Entry.ID()]; ok {
			decisions[i] = r
		}
		fmt.Println(decisions[i])
	}
	for _, e := range inventory.Next(desired, decisions, nil) {
		fmt.Println("tracked:", e.ID())
	}
	// Output:
	// Kustomization/tenant-a/apps deleted
	// Secret/tenant-a/keep-me released (pruning disabled)
	// ServiceAccount/tenant-a/flux not deleted (deletion failed: serviceaccounts "flux" is forbidden)
	// tracked: ServiceAccount/tenant-a/flux
	// tracked: ConfigMap/tenant-a/settings
}
