package errsort_test

import (
	"fmt"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/tenantkit/tenantkit/internal/errsort"
)

func ExampleSort() {
	errs := field.ErrorList{
		field.Invalid(field.NewPath("spec", "b"), "x", "bad"),
		field.Invalid(field.NewPath("spec", "a"), "x", "bad"),
	}
	fmt.Println(errsort.Sort(errs).ToAggregate())
	// Output: [spec.a: Invalid value: "x": bad, spec.b: Invalid value: "x": bad]
}

func ExampleSortUnique() {
	a := field.Invalid(field.NewPath("spec", "a"), "x", "bad")
	fmt.Println(errsort.SortUnique(field.ErrorList{a, a}).ToAggregate())
	// Output: spec.a: Invalid value: "x": bad
}
