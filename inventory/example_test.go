package inventory_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/opencontainers/go-digest"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/tenantkit/tenantkit/inventory"
)

func namespace(name, metadata string) inventory.Entry {
	return inventory.Entry{Kind: "Namespace", Name: name, Digest: digest.FromString(metadata)}
}

func artifact(ns, name, content string) inventory.Entry {
	return inventory.Entry{Kind: "ExternalArtifact", Namespace: ns, Name: name, Digest: digest.FromString(content)}
}

func ExampleDiff() {
	previous := []inventory.Entry{
		namespace("tenant-a", "v1"),
		artifact("tenant-a", "app", "v1"),
		artifact("tenant-a", "old", "v1"),
	}
	desired := []inventory.Entry{
		artifact("tenant-b", "web", "v1"),
		artifact("tenant-a", "app", "v2"),
		namespace("tenant-b", "v1"),
		namespace("tenant-a", "v1"),
	}
	changes, errs := inventory.Diff(previous, desired)
	if errs != nil {
		panic(errs.ToAggregate())
	}
	for _, d := range changes.Decisions() {
		fmt.Println(d)
	}
	for _, e := range changes.Stale {
		fmt.Println("stale:", e.ID())
	}
	// Output:
	// Namespace/tenant-a unchanged
	// Namespace/tenant-b created
	// ExternalArtifact/tenant-a/app configured
	// ExternalArtifact/tenant-b/web created
	// stale: ExternalArtifact/tenant-a/old
}

func ExampleDiff_duplicate() {
	app := artifact("tenant-a", "app", "v1")
	_, errs := inventory.Diff(nil, []inventory.Entry{app, app})
	for _, err := range errs {
		fmt.Println(err.Type == field.ErrorTypeDuplicate, err.Field)
	}
	fmt.Println(errs.ToAggregate())
	// Output:
	// true desired[1]
	// desired[1]: Duplicate value: "ExternalArtifact/tenant-a/app"
}

func ExampleCollect() {
	previous := []inventory.Entry{
		namespace("tenant-a", ""),
		namespace("tenant-b", ""),
		namespace("tenant-c", ""),
		artifact("tenant-a", "app", ""),
		artifact("tenant-a", "old", ""),
		artifact("tenant-c", "kept", ""),
	}
	desired := []inventory.Entry{artifact("tenant-a", "app", "")}
	changes, errs := inventory.Diff(previous, desired)
	if errs != nil {
		panic(errs)
	}

	// A guard that reads the live object: here, tenant-b's namespace is
	// handed off to another finalizer, and tenant-c's artifact has pruning
	// disabled.
	guard := func(_ context.Context, e inventory.Entry) (inventory.Action, string, error) {
		switch e.ID().String() {
		case "Namespace/tenant-b":
			return inventory.Release, "handed off to ResourceSet/flux-system/tenants", nil
		case "ExternalArtifact/tenant-c/kept":
			return inventory.Keep, "prune disabled", nil
		}
		return inventory.Delete, "", nil
	}
	decisions, err := inventory.Collect(context.Background(), changes,
		inventory.WithGuard(guard), inventory.WithNamespacePrune())
	if err != nil {
		panic(err)
	}
	for _, d := range decisions {
		fmt.Println(d)
	}
	// Output:
	// ExternalArtifact/tenant-c/kept kept (prune disabled)
	// ExternalArtifact/tenant-a/old deleted
	// Namespace/tenant-c kept (in use by ExternalArtifact/tenant-c/kept, which is kept)
	// Namespace/tenant-b released (handed off to ResourceSet/flux-system/tenants)
	// Namespace/tenant-a kept (in use by ExternalArtifact/tenant-a/app)
}

func ExampleNext() {
	desired := []inventory.Entry{artifact("tenant-a", "app", "v2"), namespace("tenant-a", "v1")}
	decisions := []inventory.Decision{
		{Entry: artifact("tenant-a", "gone", ""), Action: inventory.Delete},
		{Entry: artifact("tenant-a", "stuck", ""), Action: inventory.Delete},
		{Entry: namespace("tenant-b", ""), Action: inventory.Release, Reason: "namespace pruning is off"},
		{Entry: namespace("tenant-c", ""), Action: inventory.Keep, Reason: "guard failed: timeout"},
	}
	// The caller deleted what it could; "stuck" failed and stays tracked.
	deleted := func(e inventory.Entry) bool { return e.Name == "gone" }
	for _, e := range inventory.Next(desired, decisions, deleted) {
		fmt.Println(e.ID())
	}
	// Output:
	// Namespace/tenant-a
	// Namespace/tenant-c
	// ExternalArtifact/tenant-a/app
	// ExternalArtifact/tenant-a/stuck
}

func ExampleWithKeepAll() {
	stale := []inventory.Entry{artifact("tenant-a", "old", "")}
	decisions, _ := inventory.Collect(context.Background(), inventory.Changes{Stale: stale},
		inventory.WithKeepAll("desired state has errors"))
	fmt.Println(decisions[0])
	// Output:
	// ExternalArtifact/tenant-a/old kept (desired state has errors)
}

func ExampleWithMaxDeletions() {
	previous := []inventory.Entry{artifact("tenant-a", "a", ""), artifact("tenant-a", "b", ""), artifact("tenant-a", "c", "")}
	desired := []inventory.Entry{artifact("tenant-a", "c", "")}
	changes, _ := inventory.Diff(previous, desired)
	decisions, err := inventory.Collect(context.Background(), changes, inventory.WithMaxDeletions(1))
	for _, d := range decisions {
		fmt.Println(d)
	}
	fmt.Println(errors.Is(err, inventory.ErrDeletionRefused))
	// Output:
	// ExternalArtifact/tenant-a/b kept (deletion refused: the pass would delete 2 objects, more than the maximum of 1)
	// ExternalArtifact/tenant-a/a kept (deletion refused: the pass would delete 2 objects, more than the maximum of 1)
	// true
}

func ExampleWithAllowDeleteAll() {
	// Every tenant renamed, as a wrong pattern does: nothing tracked
	// survives the pass. An empty desired state, as an empty or unreadable
	// source gives, is refused alike.
	previous := []inventory.Entry{namespace("tenant-a", ""), artifact("tenant-a", "app", "")}
	desired := []inventory.Entry{namespace("team-a", ""), artifact("team-a", "app", "")}
	changes, _ := inventory.Diff(previous, desired)
	decisions, err := inventory.Collect(context.Background(), changes, inventory.WithNamespacePrune())
	for _, d := range decisions {
		fmt.Println(d)
	}
	fmt.Println(err)
	decisions, err = inventory.Collect(context.Background(), changes, inventory.WithNamespacePrune(), inventory.WithAllowDeleteAll())
	for _, d := range decisions {
		fmt.Println(d)
	}
	fmt.Println(err)
	// Output:
	// ExternalArtifact/tenant-a/app kept (deletion refused: the pass would delete every one of the 2 objects of the inventory, which a wrong source or pattern looks like)
	// Namespace/tenant-a kept (deletion refused: the pass would delete every one of the 2 objects of the inventory, which a wrong source or pattern looks like)
	// inventory: deletion refused: the pass would delete every one of the 2 objects of the inventory, which a wrong source or pattern looks like
	// ExternalArtifact/tenant-a/app deleted
	// Namespace/tenant-a deleted
	// <nil>
}

// A tool that sets the deletion guard with its own flags says how to allow
// a refused pass with them.
func ExampleRefusedError_Rule() {
	previous := []inventory.Entry{namespace("tenant-a", ""), artifact("tenant-a", "app", "")}
	changes, _ := inventory.Diff(previous, nil)
	_, err := inventory.Collect(context.Background(), changes, inventory.WithNamespacePrune(), inventory.WithMaxDeletions(1))
	var refused *inventory.RefusedError
	if errors.As(err, &refused) {
		fmt.Println(refused.Deletions, refused.Tracked, refused.Max)
		allow := "-allow-delete-all"
		if refused.Max >= 0 {
			allow = "a larger -max-deletions"
		}
		fmt.Printf("%s; %s allows it\n", refused.Rule(), allow)
	}
	// Output:
	// 2 2 1
	// the pass would delete 2 objects, more than the maximum of 1; a larger -max-deletions allows it
}

func ExampleWithNamespacePrune() {
	previous := []inventory.Entry{namespace("tenant-a", ""), artifact("tenant-a", "app", ""), artifact("tenant-b", "web", "")}
	desired := []inventory.Entry{artifact("tenant-b", "web", "")}
	changes, _ := inventory.Diff(previous, desired)
	decisions, _ := inventory.Collect(context.Background(), changes)
	for _, d := range decisions {
		fmt.Println(d)
	}
	decisions, _ = inventory.Collect(context.Background(), changes, inventory.WithNamespacePrune())
	for _, d := range decisions {
		fmt.Println(d)
	}
	// Output:
	// ExternalArtifact/tenant-a/app deleted
	// Namespace/tenant-a released (namespace pruning is off)
	// ExternalArtifact/tenant-a/app deleted
	// Namespace/tenant-a deleted
}

func ExampleWithGuard() {
	failing := func(context.Context, inventory.Entry) (inventory.Action, string, error) {
		return 0, "", errors.New("connection refused")
	}
	stale := []inventory.Entry{artifact("tenant-a", "old", "")}
	decisions, _ := inventory.Collect(context.Background(), inventory.Changes{Stale: stale}, inventory.WithGuard(failing))
	fmt.Println(decisions[0])
	// Output:
	// ExternalArtifact/tenant-a/old kept (guard failed: connection refused)
}

func ExampleSortApply() {
	entries := []inventory.Entry{
		artifact("tenant-a", "app", ""),
		{APIVersion: "example.com/v1", Kind: "Namespace", Name: "not-a-namespace"},
		namespace("tenant-a", ""),
		{APIVersion: "apiextensions.k8s.io/v1", Kind: "CustomResourceDefinition", Name: "widgets.example.com"},
	}
	inventory.SortApply(entries)
	for _, e := range entries {
		fmt.Println(e.ID())
	}
	// Output:
	// CustomResourceDefinition/widgets.example.com
	// Namespace/tenant-a
	// Namespace/not-a-namespace
	// ExternalArtifact/tenant-a/app
}

func ExampleSortApply_flux() {
	// The order of Flux's ssa package: the Deployment that serves a webhook
	// comes before the webhook's configuration.
	entries := []inventory.Entry{
		{APIVersion: "admissionregistration.k8s.io/v1", Kind: "ValidatingWebhookConfiguration", Name: "policy"},
		{APIVersion: "apps/v1", Kind: "Deployment", Namespace: "webhook-system", Name: "webhook"},
		{APIVersion: "kustomize.toolkit.fluxcd.io/v1", Kind: "Kustomization", Namespace: "tenant-a", Name: "apps"},
		{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "RoleBinding", Namespace: "tenant-a", Name: "flux-reconciler"},
	}
	inventory.SortApply(entries)
	for _, e := range entries {
		fmt.Println(e.ID())
	}
	// Output:
	// RoleBinding/tenant-a/flux-reconciler
	// Deployment/webhook-system/webhook
	// Kustomization/tenant-a/apps
	// ValidatingWebhookConfiguration/policy
}

func ExampleParseID() {
	id, err := inventory.ParseID("_system__controller_rbac.authorization.k8s.io_ClusterRole")
	if err != nil {
		panic(err)
	}
	fmt.Printf("group=%q kind=%q namespace=%q name=%q\n", id.Group, id.Kind, id.Namespace, id.Name)
	fmt.Println(id)
	fmt.Println(id.FluxID())

	id, _ = inventory.ParseID("_my_role_rbac.authorization.k8s.io_ClusterRole")
	fmt.Println(id)

	_, err = inventory.ParseID("apps_podinfo_Deployment")
	fmt.Println(err)
	// Output:
	// group="rbac.authorization.k8s.io" kind="ClusterRole" namespace="" name="system:controller"
	// ClusterRole/system:controller
	// _system__controller_rbac.authorization.k8s.io_ClusterRole
	// ClusterRole/my_role
	// inventory: invalid id "apps_podinfo_Deployment": must be "<namespace>_<name>_<group>_<kind>"
}

func ExampleFromResourceInventory() {
	entries, errs := inventory.FromResourceInventory(
		inventory.ResourceRef{ID: "_team1__Namespace", Version: "v1"},
		inventory.ResourceRef{ID: "apps_podinfo_apps_Deployment", Version: "v1"},
	)
	if errs != nil {
		panic(errs.ToAggregate())
	}
	for _, e := range entries {
		fmt.Printf("%s %s\n", e.APIVersion, e.ID())
	}
	// Output:
	// v1 Namespace/team1
	// apps/v1 Deployment/apps/podinfo
}

func ExampleToResourceInventory() {
	refs, errs := inventory.ToResourceInventory(
		artifact("tenant-a", "app", ""),
		namespace("tenant-a", ""),
	)
	if errs != nil {
		panic(errs.ToAggregate())
	}
	data, _ := json.Marshal(refs)
	fmt.Println(string(data))
	// Output:
	// [{"id":"_tenant-a__Namespace","v":"v1"},{"id":"tenant-a_app_source.toolkit.fluxcd.io_ExternalArtifact","v":"v1"}]
}

func ExampleUnmarshal() {
	entries, err := inventory.Unmarshal([]byte(`
kind: ArtifactGenerator
status:
  inventory:
    - kind: Namespace
      name: tenant-a
      digest: sha256:589303e73217c92ae0d20d90d425cd143459e2ddc488aa38684d5e69e8c9b4b9
    - name: app
      namespace: tenant-a
      digest: sha256:dbfd4d986dbccf080479534d20e1c6c6b5893a7378a2dda4038f307e25462b57
`))
	if err != nil {
		panic(err)
	}
	for _, e := range entries {
		fmt.Println(e.Kind, e.ID())
	}

	_, err = inventory.Unmarshal([]byte(`[{"kind": "Namespace", "name": "tenant-a", "digest": "sha256:abc"}]`))
	fmt.Println(err)

	_, err = inventory.Unmarshal([]byte(`{"kind": "ArtifactGenerator", "status": {"inventory": [{"kind": "Namespace", "name": 1}]}}`))
	fmt.Println(err, errors.Is(err, inventory.ErrMalformed))
	// Output:
	// Namespace Namespace/tenant-a
	// ExternalArtifact ExternalArtifact/tenant-a/app
	// [0].digest: Invalid value: "sha256:abc": must be "sha256:" followed by 64 lower-case hex characters
	// inventory: malformed document: status.inventory[0].name: must be a string, found a number true
}

func ExampleEntry_ID() {
	e := inventory.Entry{Namespace: "tenant-a", Name: "app"} // an older inventory: no kind
	id := e.ID()
	fmt.Printf("group=%q kind=%q\n", id.Group, id.Kind)
	fmt.Println(id)
	fmt.Println(id.FluxID())
	// Output:
	// group="source.toolkit.fluxcd.io" kind="ExternalArtifact"
	// ExternalArtifact/tenant-a/app
	// tenant-a_app_source.toolkit.fluxcd.io_ExternalArtifact
}

func ExampleEntry_Validate() {
	e := inventory.Entry{Kind: "Deployment", Namespace: "tenant-a", Name: "web"}
	for _, err := range e.Validate(field.NewPath("status", "inventory").Index(2)) {
		fmt.Println(err)
	}
	// Output:
	// status.inventory[2].apiVersion: Required value: must be set for kind "Deployment": only Namespace and ExternalArtifact may omit it
}

func ExampleID_Validate() {
	errs := inventory.ID{Kind: "Namespace", Namespace: "x", Name: "tenant-a"}.Validate(field.NewPath("id"))
	fmt.Println(errs.ToAggregate())
	// Output:
	// id.namespace: Forbidden: must be empty for cluster-scoped kind "Namespace"
}

func ExampleID_IsNamespace() {
	fmt.Println(inventory.Entry{Kind: inventory.KindNamespace, Name: "tenant-a"}.ID().IsNamespace())
	fmt.Println(inventory.Entry{APIVersion: "example.com/v1", Kind: inventory.KindNamespace, Name: "tenant-a"}.ID().IsNamespace())
	// Output:
	// true
	// false
}

func ExampleDecision_String() {
	d := inventory.Decision{
		Entry:  namespace("tenant-a", ""),
		Action: inventory.Keep,
		Reason: "in use by ExternalArtifact/tenant-a/app",
	}
	fmt.Println(d)
	data, _ := json.Marshal(d.Action)
	fmt.Println(string(data))
	// Output:
	// Namespace/tenant-a kept (in use by ExternalArtifact/tenant-a/app)
	// "keep"
}
