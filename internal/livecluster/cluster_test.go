package livecluster_test

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tenantkit/tenantkit/finalizer"
	"github.com/tenantkit/tenantkit/generator"
	"github.com/tenantkit/tenantkit/internal/livecluster"
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

func filled() *livecluster.Cluster {
	c := &livecluster.Cluster{}
	for _, o := range []livecluster.Object{
		{ID: eaB, Labels: map[string]string{"x": "b"}},
		{ID: nsA, UID: "uid-ns", Labels: map[string]string{"team": "a"}, Annotations: map[string]string{"note": "n"}},
		{ID: rs, UID: "uid-rs"},
		{ID: eaC},
		{ID: eaA, Annotations: map[string]string{"y": "a"}},
		{ID: other},
	} {
		if !c.Add(o) {
			panic("duplicate fixture " + o.ID.String())
		}
	}
	return c
}

func TestObject(t *testing.T) {
	t.Parallel()
	absent := func(id inventory.ID) generator.Object {
		return generator.Object{ID: id, Labels: map[string]string{"assumed": "yes"}}
	}
	tests := []struct {
		name    string
		absent  func(inventory.ID) generator.Object
		id      inventory.ID
		want    generator.Object
		wantErr error
	}{
		{name: "held", id: nsA, want: generator.Object{ID: nsA, Labels: map[string]string{"team": "a"}, Annotations: map[string]string{"note": "n"}}},
		{name: "not held", id: inventory.ID{Kind: inventory.KindNamespace, Name: "tenant-z"}, wantErr: finalizer.ErrNotFound},
		{name: "another group is another object", id: inventory.ID{Group: "example.com", Kind: inventory.KindNamespace, Name: "tenant-a"}, wantErr: finalizer.ErrNotFound},
		{name: "not held, Absent answers", absent: absent, id: inventory.ID{Kind: inventory.KindNamespace, Name: "tenant-z"},
			want: generator.Object{ID: inventory.ID{Kind: inventory.KindNamespace, Name: "tenant-z"}, Labels: map[string]string{"assumed": "yes"}}},
		{name: "held, Absent not asked", absent: absent, id: eaA, want: generator.Object{ID: eaA, Annotations: map[string]string{"y": "a"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := filled()
			c.Absent = tt.absent
			got, err := c.Object(context.Background(), tt.id)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("Object(%v) error = %v, want %v", tt.id, err, tt.wantErr)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Object(%v) (-want +got):\n%s", tt.id, diff)
			}
		})
	}
}

func TestExternalArtifacts(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		namespace string
		absent    bool
		want      []generator.Object
	}{
		{name: "sorted by name, only source.toolkit.fluxcd.io's", namespace: "tenant-a", want: []generator.Object{
			{ID: eaA, Annotations: map[string]string{"y": "a"}},
			{ID: eaB, Labels: map[string]string{"x": "b"}},
		}},
		{name: "another namespace", namespace: "tenant-c", want: []generator.Object{{ID: eaC}}},
		{name: "none", namespace: "flux-system"},
		{name: "Absent changes nothing", namespace: "tenant-z", absent: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := filled()
			if tt.absent {
				c.Absent = func(id inventory.ID) generator.Object { return generator.Object{ID: id} }
			}
			got, err := c.ExternalArtifacts(context.Background(), tt.namespace)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ExternalArtifacts(%q) (-want +got):\n%s", tt.namespace, diff)
			}
		})
	}
}

func TestUID(t *testing.T) {
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
			c := filled()
			// Absent answers Object only, never a finalizer lookup.
			c.Absent = func(id inventory.ID) generator.Object { return generator.Object{ID: id} }
			got, err := c.UID(context.Background(), tt.ref)
			if !errors.Is(err, tt.wantErr) || got != tt.want {
				t.Errorf("UID(%v) = %q, %v; want %q, %v", tt.ref, got, err, tt.want, tt.wantErr)
			}
		})
	}
}

func TestAddSetObjects(t *testing.T) {
	t.Parallel()
	c := filled()
	if c.Add(livecluster.Object{ID: nsA, UID: "second"}) {
		t.Error("Add of a held identity = true, want false")
	}
	if got, _ := c.UID(context.Background(), finalizer.Reference{Version: "v1", Kind: "Namespace", Name: "tenant-a"}); got != "uid-ns" {
		t.Errorf("after a refused Add, UID = %q, want the first object's %q", got, "uid-ns")
	}
	c.Set(livecluster.Object{ID: nsA, UID: "second"})
	c.Set(livecluster.Object{ID: inventory.ID{Kind: inventory.KindNamespace, Name: "tenant-z"}})
	var ids []string
	var uids []string
	for _, o := range c.Objects() {
		ids = append(ids, o.ID.Group+"|"+o.ID.Kind+"|"+o.ID.Namespace+"|"+o.ID.Name)
		uids = append(uids, o.UID)
	}
	// In the order added; Set keeps the namespace where it was.
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
	if uids[1] != "second" {
		t.Errorf("after Set, the namespace's UID = %q, want %q", uids[1], "second")
	}
	var empty livecluster.Cluster
	if got := empty.Objects(); len(got) != 0 {
		t.Errorf("zero Cluster Objects() = %v, want none", got)
	}
	if _, err := empty.Object(context.Background(), nsA); !errors.Is(err, finalizer.ErrNotFound) {
		t.Errorf("zero Cluster Object() error = %v, want ErrNotFound", err)
	}
}

func TestGroupOf(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, apiVersion, want string
	}{
		{name: "core", apiVersion: "v1", want: ""},
		{name: "named group", apiVersion: "source.toolkit.fluxcd.io/v1", want: "source.toolkit.fluxcd.io"},
		{name: "empty", apiVersion: "", want: ""},
		{name: "the last slash splits", apiVersion: "a/b/v1", want: "a/b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := livecluster.GroupOf(tt.apiVersion); got != tt.want {
				t.Errorf("GroupOf(%q) = %q, want %q", tt.apiVersion, got, tt.want)
			}
		})
	}
}
