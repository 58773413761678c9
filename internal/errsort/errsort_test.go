package errsort

import (
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

func TestSort(t *testing.T) {
	t.Parallel()
	a := field.Invalid(field.NewPath("a"), "x", "bad")
	a2 := field.Invalid(field.NewPath("a"), "x", "bad")
	aY := field.Invalid(field.NewPath("a"), "y", "bad")
	aOther := field.Invalid(field.NewPath("a"), "x", "other")
	aReq := field.Required(field.NewPath("a"), "bad")
	b := field.Invalid(field.NewPath("b"), "x", "bad")
	tests := []struct {
		name             string
		in, sort, unique field.ErrorList
	}{
		{name: "nil", in: nil, sort: nil, unique: nil},
		{name: "empty is nil", in: field.ErrorList{}, sort: nil, unique: nil},
		{name: "by field", in: field.ErrorList{b, a}, sort: field.ErrorList{a, b}, unique: field.ErrorList{a, b}},
		{name: "by type", in: field.ErrorList{aReq, a}, sort: field.ErrorList{a, aReq}, unique: field.ErrorList{a, aReq}},
		{name: "by detail", in: field.ErrorList{aOther, a}, sort: field.ErrorList{a, aOther}, unique: field.ErrorList{a, aOther}},
		{name: "by value", in: field.ErrorList{aY, a}, sort: field.ErrorList{a, aY}, unique: field.ErrorList{a, aY}},
		{name: "duplicates stay in order, or go", in: field.ErrorList{b, a2, a}, sort: field.ErrorList{a2, a, b}, unique: field.ErrorList{a2, b}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			in := slices.Clone(tt.in)
			if got := SortUnique(in); !slices.Equal(got, tt.unique) || (got == nil) != (tt.unique == nil) {
				t.Errorf("SortUnique = %v, want %v", got, tt.unique)
			}
			if !slices.Equal(in, tt.in) {
				t.Errorf("SortUnique changed its input to %v", in)
			}
			if got := Sort(in); !slices.Equal(got, tt.sort) || (got == nil) != (tt.sort == nil) {
				t.Errorf("Sort = %v, want %v", got, tt.sort)
			}
		})
	}
}
