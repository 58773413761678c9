package jsonfit_test

import (
	"fmt"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/tenantkit/tenantkit/internal/jsonfit"
)

func ExampleDecode() {
	v, _ := jsonfit.Parse([]byte(`{"inventory": [{"name": 1, "nmae": "a"}]}`))
	var doc struct {
		Inventory []struct {
			Name string `json:"name"`
		} `json:"inventory"`
	}
	fmt.Println(jsonfit.Join(jsonfit.Decode(v, nil, &doc, jsonfit.RefuseUnknown)))
	fmt.Println(jsonfit.Join(jsonfit.Decode(v, field.NewPath("status"), &doc, jsonfit.IgnoreUnknown)))
	// Output:
	// inventory[0].name: must be a string, found a number; inventory[0].nmae: unknown field
	// status.inventory[0].name: must be a string, found a number
}

func ExampleParse() {
	v, err := jsonfit.Parse([]byte(`{"n": 1.50}`))
	fmt.Println(v, err)
	// Output:
	// map[n:1.50] <nil>
}

func ExampleKind() {
	v, _ := jsonfit.Parse([]byte(`[{}, "a", 1, true, null]`))
	for _, item := range v.([]any) {
		fmt.Println(jsonfit.Kind(item))
	}
	// Output:
	// a mapping
	// a string
	// a number
	// a boolean
	// null
}

func ExampleJoin() {
	fmt.Println(jsonfit.Join([]jsonfit.Problem{{Field: "name", Detail: "must be a string, found a number"}, {Field: "zz", Detail: "unknown field"}}))
	// Output:
	// name: must be a string, found a number; zz: unknown field
}

func ExampleSummary() {
	var s jsonfit.Summary
	for i := range 12 {
		s.Add(jsonfit.Problem{Field: field.NewPath("items").Index(i).String(), Detail: "must be a mapping, found a number"})
	}
	fmt.Println(s.Len())
	fmt.Println(s.String())
	// Output:
	// 12
	// items[0]: must be a mapping, found a number; items[1]: must be a mapping, found a number; items[2]: must be a mapping, found a number; items[3]: must be a mapping, found a number; items[4]: must be a mapping, found a number; items[5]: must be a mapping, found a number; items[6]: must be a mapping, found a number; items[7]: must be a mapping, found a number; items[8]: must be a mapping, found a number; items[9]: must be a mapping, found a number; and 2 more
}
