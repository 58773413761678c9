// Package errsort orders the field errors that nsmeta and generator return, so that map and
// scheduling order never leak into their output.
package errsort

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Sort sorts errs in place by field, type, detail and value, and returns it, or nil for an
// empty list.
func Sort(errs field.ErrorList) field.ErrorList {
	if len(errs) == 0 {
		return nil
	}
	slices.SortStableFunc(errs, compare)
	return errs
}

// SortUnique returns a sorted copy of errs without duplicates, or nil for an empty list.
func SortUnique(errs field.ErrorList) field.ErrorList {
	return slices.CompactFunc(Sort(slices.Clone(errs)), func(a, b *field.Error) bool { return compare(a, b) == 0 })
}

func compare(a, b *field.Error) int {
	if c := cmp.Or(strings.Compare(a.Field, b.Field), strings.Compare(string(a.Type), string(b.Type)), strings.Compare(a.Detail, b.Detail)); c != 0 {
		return c // the bad value's text only when these tie: it costs a Sprint
	}
	return strings.Compare(fmt.Sprint(a.BadValue), fmt.Sprint(b.BadValue))
}
