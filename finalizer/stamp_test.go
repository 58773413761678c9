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
	if !errors.As(err, &pe) || pe.Segment != SegmentUID || pe.Rule != ruleEmpty {
		t.Fatalf("Stamp() error = %v, want an empty uid *ParseError", err)
	}
}
