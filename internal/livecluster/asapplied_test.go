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

func TestAsApplied(t *testing.T) {
	t.Parallel()
	c := livecluster.AsApplied([]generator.Namespace{
		{Name: "tenant-a", Labels: map[string]string{"team": "a"}, Annotations: map[string]string{"note": "n"}},
	})
	ctx := context.Background()
	tests := []struct {
		name string
		id   inventory.ID
		want generator.Object
	}{
		{name: "a planned namespace, as planned", id: nsA,
			want: generator.Object{ID: nsA, Labels: map[string]string{"team": "a"}, Annotations: map[string]string{"note": "n"}}},
		{name: "another namespace, bare", id: inventory.ID{Kind: inventory.KindNamespace, Name: "tenant-b"},
			want: generator.Object{ID: inventory.ID{Kind: inventory.KindNamespace, Name: "tenant-b"}}},
		{name: "an object named as a planned namespace, bare", id: inventory.ID{Group: "example.com", Kind: "Namespace", Name: "tenant-a"},
			want: generator.Object{ID: inventory.ID{Group: "example.com", Kind: "Namespace", Name: "tenant-a"}}},
		{name: "an ExternalArtifact, bare", id: eaA, want: generator.Object{ID: eaA}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := c.Object(ctx, tt.id)
			if err != nil {
				t.Fatalf("Object() = %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Object() (-want +got):\n%s", diff)
			}
		})
	}
	t.Run("nothing else exists", func(t *testing.T) {
		t.Parallel()
		if arts, err := c.ExternalArtifacts(ctx, "tenant-a"); err != nil || len(arts) != 0 {
			t.Errorf("ExternalArtifacts() = %v, %v; want none", arts, err)
		}
		r := finalizer.Reference{Group: rs.Group, Version: "v1", Kind: rs.Kind, Namespace: rs.Namespace, Name: rs.Name, UID: "uid-rs"}
		if _, err := c.UID(ctx, r); !errors.Is(err, finalizer.ErrNotFound) {
			t.Errorf("UID() = %v, want finalizer.ErrNotFound", err)
		}
	})
}
