package generatortest_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tenantkit/tenantkit/finalizer"
	"github.com/tenantkit/tenantkit/generator"
	"github.com/tenantkit/tenantkit/generator/generatortest"
	"github.com/tenantkit/tenantkit/inventory"
)

var (
	nsA   = inventory.ID{Kind: inventory.KindNamespace, Name: "tenant-a"}
	eaB   = inventory.ID{Group: inventory.GroupSource, Kind: inventory.KindExternalArtifact, Namespace: "tenant-a", Name: "b"}
	eaA   = inventory.ID{Group: inventory.GroupSource, Kind: inventory.KindExternalArtifact, Namespace: "tenant-a", Name: "a"}
	eaC   = inventory.ID{Group: inventory.GroupSource, Kind: inventory.KindExternalArtifact, Namespace: "tenant-c", Name: "c"}
	rs    = inventory.ID{Group: "fluxcd.controlplane.io", Kind: "ResourceSet", Namespace: "flux-system", Name: "tenants"}
	other = inventory.ID{Group: "example.com", Kind: "ExternalArtifact", Namespace: "tenant-a", Name: "z"}
)

// filled returns c holding the fixture objects, AsApplied's if asApplied.
func filled(asApplied bool) *generatortest.Cluster {
	c := &generatortest.Cluster{}
	if asApplied {
		c = generatortest.AsApplied()
	}
	for _, o := range []struct {
		obj generator.Object
		uid string
	}{
		{generator.Object{ID: eaB, Labels: map[string]string{"x": "b"}}, ""},
		{generator.Object{ID: nsA, Labels: map[string]string{"team": "a"}, Annotations: map[string]string{"note": "n"}}, "uid-ns"},
		{generator.Object{ID: rs}, "uid-rs"},
		{generator.Object{ID: eaC}, ""},
		{generator.Object{ID: eaA, Annotations: map[string]string{"y": "a"}}, ""},
		{generator.Object{ID: other}, ""},
	} {
		if c.Set(o.obj, o.uid) {
			panic("duplicate fixture " + o.obj.ID.String())
		}
	}
	return c
}

func TestClusterObject(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		asApplied bool
		id        inventory.ID
		want      generator.Object
		wantErr   error
	}{
		{name: "held", id: nsA, want: generator.Object{ID: nsA, Labels: map[string]string{"team": "a"}, Annotations: map[string]string{"note": "n"}}},
		{name: "not held", id: inventory.ID{Kind: inventory.KindNamespace, Name: "tenant-z"}, wantErr: finalizer.ErrNotFound},
		{name: "another group is another object", id: inventory.ID{Group: "example.com", Kind: inventory.KindNamespace, Name: "tenant-a"}, wantErr: finalizer.ErrNotFound},
		{name: "not held, as applied", asApplied: true, id: inventory.ID{Kind: inventory.KindNamespace, Name: "tenant-z"}, wantErr: generator.ErrAsApplied},
		{name: "held, as applied: as held", asApplied: true, id: eaA, want: generator.Object{ID: eaA, Annotations: map[string]string{"y": "a"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := filled(tt.asApplied).Object(context.Background(), tt.id)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("Object(%v) error = %v, want %v", tt.id, err, tt.wantErr)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Object(%v) (-want +got):\n%s", tt.id, diff)
			}
		})
	}
}

func TestClusterExternalArtifacts(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		namespace string
		asApplied bool
		want      []generator.Object
	}{
		{name: "sorted by name, only source.toolkit.fluxcd.io's", namespace: "tenant-a", want: []generator.Object{
			{ID: eaA, Annotations: map[string]string{"y": "a"}},
			{ID: eaB, Labels: map[string]string{"x": "b"}},
		}},
		{name: "another namespace", namespace: "tenant-c", want: []generator.Object{{ID: eaC}}},
		{name: "none", namespace: "flux-system"},
		{name: "as applied changes nothing", namespace: "tenant-z", asApplied: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := filled(tt.asApplied).ExternalArtifacts(context.Background(), tt.namespace)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ExternalArtifacts(%q) (-want +got):\n%s", tt.namespace, diff)
			}
		})
	}
}

func TestClusterUID(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		ref     finalizer.Reference
		want    string
		wantErr error
	}{
		{name: "held", ref: finalizer.Reference{Group: "fluxcd.controlplane.io", Version: "v1", Kind: "ResourceSet", Namespace: "flux-system", Name: "tenants", UID: "x"}, want: "uid-rs"},
		{name: "the version is not identity", ref: finalizer.Reference{Group: "fluxcd.controlplane.io", Version: "v9", Kind: "ResourceSet", Namespace: "flux-system", Name: "tenants", UID: "x"}, want: "uid-rs"},
		{name: "cluster-scoped", ref: finalizer.Reference{Version: "v1", Kind: "Namespace", Name: "tenant-a", UID: "x"}, want: "uid-ns"},
		{name: "not held", ref: finalizer.Reference{Group: "fluxcd.controlplane.io", Version: "v1", Kind: "ResourceSet", Namespace: "flux-system", Name: "other", UID: "x"}, wantErr: finalizer.ErrNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			// As applied answers Object only, never a finalizer lookup.
			got, err := filled(true).UID(context.Background(), tt.ref)
			if !errors.Is(err, tt.wantErr) || got != tt.want {
				t.Errorf("UID(%v) = %q, %v; want %q, %v", tt.ref, got, err, tt.want, tt.wantErr)
			}
		})
	}
}

func TestClusterSetObjects(t *testing.T) {
	t.Parallel()
	c := filled(false)
	if !c.Set(generator.Object{ID: nsA}, "second") {
		t.Error("Set of a held identity = false, want true")
	}
	if c.Set(generator.Object{ID: inventory.ID{Kind: inventory.KindNamespace, Name: "tenant-z"}}, "") {
		t.Error("Set of a new identity = true, want false")
	}
	var ids []string
	for _, o := range c.Objects() {
		ids = append(ids, o.ID.Group+"|"+o.ID.Kind+"|"+o.ID.Namespace+"|"+o.ID.Name)
	}
	// In the order first set; Set keeps the namespace where it was.
	wantIDs := []string{
		"source.toolkit.fluxcd.io|ExternalArtifact|tenant-a|b",
		"|Namespace||tenant-a",
		"fluxcd.controlplane.io|ResourceSet|flux-system|tenants",
		"source.toolkit.fluxcd.io|ExternalArtifact|tenant-c|c",
		"source.toolkit.fluxcd.io|ExternalArtifact|tenant-a|a",
		"example.com|ExternalArtifact|tenant-a|z",
		"|Namespace||tenant-z",
	}
	if diff := cmp.Diff(wantIDs, ids); diff != "" {
		t.Errorf("Objects() (-want +got):\n%s", diff)
	}
	if got, _ := c.UID(context.Background(), finalizer.Reference{Version: "v1", Kind: "Namespace", Name: "tenant-a"}); got != "second" {
		t.Errorf("after Set, the namespace's UID = %q, want %q", got, "second")
	}
	if got, _ := c.Object(context.Background(), nsA); got.Labels != nil {
		t.Errorf("after Set, the namespace's labels = %v, want none", got.Labels)
	}
	var empty generatortest.Cluster
	if got := empty.Objects(); len(got) != 0 {
		t.Errorf("zero Cluster Objects() = %v, want none", got)
	}
	if _, err := empty.Object(context.Background(), nsA); !errors.Is(err, finalizer.ErrNotFound) {
		t.Errorf("zero Cluster Object() error = %v, want ErrNotFound", err)
	}
}

func ExampleCluster() {
	var c generatortest.Cluster
	c.Set(generator.Object{
		ID:     inventory.ID{Kind: inventory.KindNamespace, Name: "tenant-a"},
		Labels: map[string]string{"team": "payments"},
	}, "uid-a")
	c.Set(generator.Object{
		ID: inventory.ID{Group: inventory.GroupSource, Kind: inventory.KindExternalArtifact, Namespace: "tenant-a", Name: "app"},
	}, "")
	ctx := context.Background()
	ns, _ := c.Object(ctx, inventory.ID{Kind: inventory.KindNamespace, Name: "tenant-a"})
	fmt.Println(ns.Labels)
	_, err := c.Object(ctx, inventory.ID{Kind: inventory.KindNamespace, Name: "tenant-b"})
	fmt.Println(err)
	artifacts, _ := c.ExternalArtifacts(ctx, "tenant-a")
	fmt.Println(artifacts[0].ID)
	// Output:
	// map[team:payments]
	// finalizer: object not found
	// ExternalArtifact/tenant-a/app
}

func ExampleAsApplied() {
	c := generatortest.AsApplied()
	ctx := context.Background()
	_, err := c.Object(ctx, inventory.ID{Kind: inventory.KindNamespace, Name: "tenant-a"})
	fmt.Println(errors.Is(err, generator.ErrAsApplied))
	artifacts, _ := c.ExternalArtifacts(ctx, "tenant-a")
	fmt.Println(len(artifacts))
	// Output:
	// true
	// 0
}
