package finalizer

import (
	"errors"
	"maps"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var owner = Reference{
	Group: "fluxcd.controlplane.io", Version: "v1", Kind: "ResourceSet",
	Namespace: "flux-system", Name: "tenants", UID: "0d1e3c4a-5b6c-4d7e-8f90-a1b2c3d4e5f6",
}

var clusterOwner = Reference{Group: "fluxcd.controlplane.io", Version: "v1", Kind: "ResourceSet", Name: "tenants", UID: "u-1"}

const ownerValue = "fluxcd.controlplane.io/v1/ResourceSet/flux-system/tenants/0d1e3c4a-5b6c-4d7e-8f90-a1b2c3d4e5f6"

func TestStamp(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		labels      map[string]string
		annotations map[string]string
		owner       Reference
		want        map[string]string
		wantErr     error
	}{
		{
			name:        "self",
			annotations: map[string]string{Annotation: Self},
			owner:       owner,
			want:        map[string]string{Annotation: ownerValue},
		},
		{
			name:        "self, empty labels",
			labels:      map[string]string{},
			annotations: map[string]string{Annotation: Self},
			owner:       owner,
			want:        map[string]string{Annotation: ownerValue},
		},
		{
			name:  "nil annotations",
			owner: owner,
			want:  nil,
		},
		{
			name:        "absent: other metadata is not ours to judge",
			labels:      map[string]string{"team": "a"},
			annotations: map[string]string{"note": "x"},
			owner:       owner,
			want:        map[string]string{"note": "x"},
		},
		{
			name:        "empty value is absent",
			labels:      map[string]string{"team": "a"},
			annotations: map[string]string{Annotation: "", "note": "x"},
			owner:       owner,
			want:        map[string]string{Annotation: "", "note": "x"},
		},
		{
			name:        "already a reference",
			annotations: map[string]string{Annotation: ownerValue},
			owner:       owner,
			wantErr:     ErrStamp,
		},
		{
			name:        "Self capitalized",
			annotations: map[string]string{Annotation: "Self"},
			owner:       owner,
			wantErr:     ErrStamp,
		},
		{
			name:        "self with whitespace",
			annotations: map[string]string{Annotation: "self "},
			owner:       owner,
			wantErr:     ErrStamp,
		},
		{
			name:        "a label",
			labels:      map[string]string{"team": "a"},
			annotations: map[string]string{Annotation: Self},
			owner:       owner,
			wantErr:     ErrStamp,
		},
		{
			name:        "another annotation",
			annotations: map[string]string{Annotation: Self, "note": "x"},
			owner:       owner,
			wantErr:     ErrStamp,
		},
		{
			name:        "labels and annotations",
			labels:      map[string]string{"team": "a"},
			annotations: map[string]string{Annotation: Self, "note": "x"},
			owner:       owner,
			wantErr:     ErrStamp,
		},
		{
			name: "the owner labels flux-operator adds",
			labels: map[string]string{
				"resourceset.fluxcd.controlplane.io/name":      "tenants",
				"resourceset.fluxcd.controlplane.io/namespace": "flux-system",
			},
			annotations: map[string]string{Annotation: Self},
			owner:       owner,
			want:        map[string]string{Annotation: ownerValue},
		},
		{
			name:        "one owner label",
			labels:      map[string]string{"resourceset.fluxcd.controlplane.io/name": "tenants"},
			annotations: map[string]string{Annotation: Self},
			owner:       owner,
			want:        map[string]string{Annotation: ownerValue},
		},
		{
			name: "a cluster-scoped owner's empty namespace label",
			labels: map[string]string{
				"resourceset.fluxcd.controlplane.io/name":      "tenants",
				"resourceset.fluxcd.controlplane.io/namespace": "",
			},
			annotations: map[string]string{Annotation: Self},
			owner:       clusterOwner,
			want:        map[string]string{Annotation: clusterOwner.String()},
		},
		{
			name:        "an owner label naming another ResourceSet",
			labels:      map[string]string{"resourceset.fluxcd.controlplane.io/name": "other"},
			annotations: map[string]string{Annotation: Self},
			owner:       owner,
			wantErr:     ErrStamp,
		},
		{
			name:        "an owner label of another namespace",
			labels:      map[string]string{"resourceset.fluxcd.controlplane.io/name": "tenants", "resourceset.fluxcd.controlplane.io/namespace": "default"},
			annotations: map[string]string{Annotation: Self},
			owner:       owner,
			wantErr:     ErrStamp,
		},
		{
			name:        "another kind's owner labels",
			labels:      map[string]string{"fluxinstance.fluxcd.controlplane.io/name": "tenants"},
			annotations: map[string]string{Annotation: Self},
			owner:       owner,
			wantErr:     ErrStamp,
		},
		{
			name:        "owner labels and commonMetadata",
			labels:      map[string]string{"resourceset.fluxcd.controlplane.io/name": "tenants", "team": "a"},
			annotations: map[string]string{Annotation: Self},
			owner:       owner,
			wantErr:     ErrStamp,
		},
		{
			name:        "a core-group owner has no owner labels",
			labels:      map[string]string{"configmap./name": "rset"},
			annotations: map[string]string{Annotation: Self},
			owner:       Reference{Version: "v1", Kind: "ConfigMap", Namespace: "flux-system", Name: "rset", UID: "u"},
			wantErr:     ErrStamp,
		},
		{
			name:        "invalid owner",
			annotations: map[string]string{Annotation: Self},
			owner:       Reference{Group: "fluxcd.controlplane.io", Version: "v1", Kind: "ResourceSet", Name: "tenants"},
			wantErr:     ErrInvalid,
		},
		{
			name:    "invalid owner, nothing to stamp",
			owner:   Reference{},
			wantErr: ErrInvalid,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			labels, annotations := maps.Clone(tt.labels), maps.Clone(tt.annotations)
			got, err := Stamp(labels, annotations, tt.owner)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("Stamp() error = %v, want %v", err, tt.wantErr)
			}
			if err != nil && got != nil {
				t.Errorf("Stamp() = %v with its error, want nil", got)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Stamp() mismatch (-want +got):\n%s", diff)
			}
			if got != nil {
				got["mutated"] = "yes" // must not reach the input
			}
			if diff := cmp.Diff(tt.labels, labels); diff != "" {
				t.Errorf("Stamp() changed its labels (-before +after):\n%s", diff)
			}
			if diff := cmp.Diff(tt.annotations, annotations); diff != "" {
				t.Errorf("Stamp() changed its annotations (-before +after):\n%s", diff)
			}
		})
	}
}

func TestStampInvalidOwnerSegment(t *testing.T) {
	t.Parallel()
	_, err := Stamp(nil, map[string]string{Annotation: Self}, Reference{Version: "v1", Kind: "K", Name: "n"})
	var pe *ParseError
	if !errors.As(err, &pe) || pe.Segment != "uid" || pe.Rule != ruleEmpty {
		t.Fatalf("Stamp() error = %v, want an empty uid *ParseError", err)
	}
}

// TestStampMessage: a refused owner label is named, and the accepted ones
// are not.
func TestStampMessage(t *testing.T) {
	t.Parallel()
	_, err := Stamp(map[string]string{
		"resourceset.fluxcd.controlplane.io/name":      "tenants",
		"resourceset.fluxcd.controlplane.io/namespace": "default",
	}, map[string]string{Annotation: Self}, owner)
	const want = `finalizer: cannot stamp namespace: must carry no labels or annotations besides ` +
		`source.extensions.fluxcd.io/externalFinalizer: found labels "resourceset.fluxcd.controlplane.io/namespace"`
	if err == nil || err.Error() != want {
		t.Fatalf("Stamp() error = %v, want %s", err, want)
	}
}
