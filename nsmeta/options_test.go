package nsmeta

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/tenantkit/tenantkit/cel"
)

// TestOptionsApply checks that each constructor takes its own options and
// WithCache, and refuses the other's at the option's name.
func TestOptionsApply(t *testing.T) {
	t.Parallel()
	cache := cel.NewCache(4)
	if _, errs := CompileSchema(map[string]string{"team": "true"}, nil, nil, WithCache(cache), WithStrict()); errs != nil {
		t.Errorf("CompileSchema(WithCache, WithStrict) = %v", errs)
	}
	if _, errs := NewNamePolicy([]string{"true"}, nil, WithCache(cache), WithProtectedNames("flux-system")); errs != nil {
		t.Errorf("NewNamePolicy(WithCache, WithProtectedNames) = %v", errs)
	}
	if cache.Len() != 2 {
		t.Errorf("cache holds %d programs, want the 2 rules", cache.Len())
	}

	s, errs := CompileSchema(nil, nil, nil, WithProtectedNames("flux-system"))
	want := []fieldErr{
		{field.ErrorTypeForbidden, "WithProtectedNames", ""},
	}
	if diff := cmp.Diff(want, project(errs)); s != nil || diff != "" {
		t.Errorf("CompileSchema(name policy options) = %v, (-want +got):\n%s", s, diff)
	}
	if _, errs, err := ParseFile(nil, WithStrict()); err != nil || errs.ToAggregate().Error() != "WithStrict: Forbidden: does not apply to ParseFile" {
		t.Errorf("ParseFile(WithStrict) = %v, %v", errs, err)
	}
	p, errs := NewNamePolicy([]string{"true"}, nil, WithStrict())
	if s := errs.ToAggregate(); p != nil || s == nil || s.Error() != "WithStrict: Forbidden: does not apply to NewNamePolicy" {
		t.Errorf("NewNamePolicy(WithStrict) = %v, %v", p, s)
	}
}
