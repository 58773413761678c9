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
	changes, err := inventory.Diff(previous, desired)
	if err != nil {
		panic(err)
	}
	for _, d := range changes.Decisions() {
		fmt.Println(d)
	}
	for _, e := range changes.Stale {
		fmt.Println("stale:", e.ID().Subject())
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
	_, err := inventory.Diff(nil, []inventory.Entry{app, app})
	fmt.Println(errors.Is(err, inventory.ErrDuplicate))
	fmt.Println(err)
	// Output:
	// true
	// inventory: desired[1]: Duplicate value: "tenant-a_app_source.toolkit.fluxcd.io_ExternalArtifact"
}

func ExampleCollect() {
	stale := []inventory.Entry{
		namespace("tenant-a", ""),
		namespace("tenant-b", ""),
		namespace("tenant-c", ""),
		artifact("tenant-a", "old", ""),
		artifact("tenant-c", "kept", ""),
	}
	desired := []inventory.Entry{artifact("tenant-a", "app", "")}

	// A guard that reads the live object: here, tenant-b's namespace is
	// handed off to another finalizer, and tenant-c's artifact has pruning
	// disabled.
	guard := func(_ context.Context, e inventory.Entry) (inventory.Action, string, error) {
		switch e.ID().Subject() {
		case "Namespace/tenant-b":
			return inventory.Release, "handed off to ResourceSet/flux-system/tenants", nil
		case "ExternalArtifact/tenant-c/kept":
			return inventory.Keep, "prune disabled", nil
		}
		return inventory.Delete, "", nil
	}
	decisions, err := inventory.Collect(context.Background(), stale, desired, inventory.WithGuard(guard))
	if err != nil {
		panic(err)
	}
	for _, d := range decisions {
		fmt.Println(d)
	}
	fmt.Println(inventory.Summarize(decisions))
	// Output:
	// ExternalArtifact/tenant-c/kept kept (prune disabled)
	// ExternalArtifact/tenant-a/old deleted
	// Namespace/tenant-c kept (in use by ExternalArtifact/tenant-c/kept, which is kept)
	// Namespace/tenant-b released (handed off to ResourceSet/flux-system/tenants)
	// Namespace/tenant-a kept (in use by ExternalArtifact/tenant-a/app)
	// create=0 update=0 unchanged=0 delete=1 release=1 keep=3
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
		fmt.Println(e.ID().Subject())
	}
	// Output:
	// Namespace/tenant-a
	// Namespace/tenant-c
	// ExternalArtifact/tenant-a/app
	// ExternalArtifact/tenant-a/stuck
}

func ExampleWithKeepAll() {
	stale := []inventory.Entry{artifact("tenant-a", "old", "")}
	decisions, _ := inventory.Collect(context.Background(), stale, nil,
		inventory.WithKeepAll("desired state has errors"))
	fmt.Println(decisions[0])
	// Output:
	// ExternalArtifact/tenant-a/old kept (desired state has errors)
}

func ExampleWithMaxDeletions() {
	stale := []inventory.Entry{artifact("tenant-a", "a", ""), artifact("tenant-a", "b", "")}
	desired := []inventory.Entry{artifact("tenant-a", "c", "")}
	decisions, _ := inventory.Collect(context.Background(), stale, desired, inventory.WithMaxDeletions(1))
	for _, d := range decisions {
		fmt.Println(d)
	}
	// Output:
	// ExternalArtifact/tenant-a/b kept (deletion guard: 2 deletions in one pass, more than WithMaxDeletions(1) allows)
	// ExternalArtifact/tenant-a/a kept (deletion guard: 2 deletions in one pass, more than WithMaxDeletions(1) allows)
}

func ExampleWithDeleteAll() {
	// An empty desired state, as an empty or unreadable source gives.
	stale := []inventory.Entry{namespace("tenant-a", ""), artifact("tenant-a", "app", "")}
	decisions, _ := inventory.Collect(context.Background(), stale, nil, inventory.WithDeleteAll(false))
	for _, d := range decisions {
		fmt.Println(d)
	}
	// Output:
	// ExternalArtifact/tenant-a/app kept (deletion guard: 2 deletions while nothing is desired; WithDeleteAll(true) allows them)
	// Namespace/tenant-a kept (deletion guard: 2 deletions while nothing is desired; WithDeleteAll(true) allows them)
}

func ExampleWithNamespacePrune() {
	stale := []inventory.Entry{namespace("tenant-a", ""), artifact("tenant-a", "app", "")}
	desired := []inventory.Entry{artifact("tenant-b", "web", "")}
	decisions, _ := inventory.Collect(context.Background(), stale, desired, inventory.WithNamespacePrune(false))
	for _, d := range decisions {
		fmt.Println(d)
	}
	// Output:
	// ExternalArtifact/tenant-a/app deleted
	// Namespace/tenant-a released (namespace pruning is off)
}

func ExampleWithGuard() {
	failing := func(context.Context, inventory.Entry) (inventory.Action, string, error) {
		return 0, "", errors.New("connection refused")
	}
	stale := []inventory.Entry{artifact("tenant-a", "old", "")}
	decisions, _ := inventory.Collect(context.Background(), stale, nil, inventory.WithGuard(failing))
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
		fmt.Println(e.ID().Subject())
	}
	// Output:
	// CustomResourceDefinition/widgets.example.com
	// Namespace/tenant-a
	// Namespace/not-a-namespace
	// ExternalArtifact/tenant-a/app
}

func ExampleSortPrune() {
	entries := []inventory.Entry{
		namespace("tenant-a", ""),
		{APIVersion: "apiextensions.k8s.io/v1", Kind: "CustomResourceDefinition", Name: "widgets.example.com"},
		artifact("tenant-a", "app", ""),
	}
	inventory.SortPrune(entries)
	for _, e := range entries {
		fmt.Println(e.ID().Subject())
	}
	// Output:
	// ExternalArtifact/tenant-a/app
	// Namespace/tenant-a
	// CustomResourceDefinition/widgets.example.com
}

func ExampleParseID() {
	id, err := inventory.ParseID("_system__controller_rbac.authorization.k8s.io_ClusterRole")
	if err != nil {
		panic(err)
	}
	fmt.Printf("group=%q kind=%q namespace=%q name=%q\n", id.Group, id.Kind, id.Namespace, id.Name)
	fmt.Println(id.Subject())
	fmt.Println(id)

	_, err = inventory.ParseID("apps_podinfo_Deployment")
	fmt.Println(err)
	// Output:
	// group="rbac.authorization.k8s.io" kind="ClusterRole" namespace="" name="system:controller"
	// ClusterRole/system:controller
	// _system__controller_rbac.authorization.k8s.io_ClusterRole
	// inventory: invalid id "apps_podinfo_Deployment": must be "<namespace>_<name>_<group>_<kind>"
}

func ExampleFromResourceInventory() {
	entries, err := inventory.FromResourceInventory(
		inventory.ResourceRef{ID: "_team1__Namespace", Version: "v1"},
		inventory.ResourceRef{ID: "apps_podinfo_apps_Deployment", Version: "v1"},
	)
	if err != nil {
		panic(err)
	}
	for _, e := range entries {
		fmt.Printf("%s %s\n", e.APIVersion, e.ID().Subject())
	}
	// Output:
	// v1 Namespace/team1
	// apps/v1 Deployment/apps/podinfo
}

func ExampleToResourceInventory() {
	refs, err := inventory.ToResourceInventory(
		artifact("tenant-a", "app", ""),
		namespace("tenant-a", ""),
	)
	if err != nil {
		panic(err)
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
		fmt.Println(e.Kind, e.ID().Subject())
	}

	_, err = inventory.Unmarshal([]byte(`[{"kind": "Namespace", "name": "tenant-a", "digest": "sha256:abc"}]`))
	fmt.Println(err)
	// Output:
	// Namespace Namespace/tenant-a
	// ExternalArtifact ExternalArtifact/tenant-a/app
	// inventory: [0].digest: Invalid value: "sha256:abc": must be a sha256, sha384 or sha512 digest, "<algorithm>:<lower-case hex>": invalid checksum digest length
}

func ExampleEntry_ID() {
	e := inventory.Entry{Namespace: "tenant-a", Name: "app"} // an older inventory: no kind
	id := e.ID()
	fmt.Printf("group=%q kind=%q\n", id.Group, id.Kind)
	fmt.Println(id)
	// Output:
	// group="source.toolkit.fluxcd.io" kind="ExternalArtifact"
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
	err := inventory.ID{Kind: "Namespace", Namespace: "x", Name: "tenant-a"}.Validate()
	fmt.Println(err)
	// Output:
	// inventory: invalid id "x_tenant-a__Namespace": namespace: Forbidden: must be empty for cluster-scoped kind "Namespace"
}

func ExampleSummarize() {
	decisions := []inventory.Decision{
		{Entry: namespace("tenant-a", ""), Action: inventory.Create},
		{Entry: artifact("tenant-a", "app", ""), Action: inventory.Create},
		{Entry: artifact("tenant-b", "old", ""), Action: inventory.Delete},
	}
	s := inventory.Summarize(decisions)
	fmt.Println(s)
	data, _ := json.Marshal(s)
	fmt.Println(string(data))
	// Output:
	// create=2 update=0 unchanged=0 delete=1 release=0 keep=0
	// {"create":2,"update":0,"unchanged":0,"delete":1,"release":0,"keep":0}
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
