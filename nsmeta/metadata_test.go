package nsmeta

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// fieldErr is the part of a field.Error that tests compare: everything but
// the wording of Detail.
type fieldErr struct {
	Type     field.ErrorType
	Field    string
	BadValue any
}

// project reduces errs to what tests compare.
func project(errs field.ErrorList) []fieldErr {
	var out []fieldErr
	for _, e := range errs {
		out = append(out, fieldErr{e.Type, e.Field, e.BadValue})
	}
	return out
}

func TestMetadataValidate(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", 64)
	tests := []struct {
		name string
		m    Metadata
		path *field.Path
		want []fieldErr
	}{
		{name: "zero value", m: Metadata{}},
		{
			name: "valid",
			m: Metadata{
				Labels:      map[string]string{"team": "payments", "app.kubernetes.io/name": "x", "empty": ""},
				Annotations: map[string]string{"my.org.io/Observability": "any value: ✓", "Upper/Case": ""},
			},
			path: field.NewPath("metadata"),
		},
		{
			name: "bad label key and value under a base path",
			m:    Metadata{Labels: map[string]string{"bad key": "ok", "team": "a b", "tier": long}},
			path: field.NewPath("spec", "commonMetadata"),
			want: []fieldErr{
				{field.ErrorTypeInvalid, "spec.commonMetadata.labels[bad key]", "bad key"},
				{field.ErrorTypeInvalid, "spec.commonMetadata.labels[team]", "a b"},
				{field.ErrorTypeInvalid, "spec.commonMetadata.labels[tier]", long},
			},
		},
		{
			name: "bad annotation key, nil path",
			m:    Metadata{Annotations: map[string]string{"-bad": "v", "ok": "v"}},
			want: []fieldErr{{field.ErrorTypeInvalid, "annotations[-bad]", "-bad"}},
		},
		{
			name: "annotations over 256 KiB",
			m: Metadata{Annotations: map[string]string{
				"a": strings.Repeat("x", 128<<10),
				"b": strings.Repeat("x", 128<<10),
			}},
			path: field.NewPath("metadata"),
			want: []fieldErr{{field.ErrorTypeTooLong, "metadata.annotations", "<value omitted>"}},
		},
		{
			name: "annotations at exactly 256 KiB",
			m: Metadata{Annotations: map[string]string{
				"a": strings.Repeat("x", 128<<10-1),
				"b": strings.Repeat("x", 128<<10-1),
			}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tc.want, project(tc.m.Validate(tc.path))); diff != "" {
				t.Errorf("Validate() (-want +got):\n%s", diff)
			}
		})
	}
}
