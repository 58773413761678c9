package jsonfit_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/tenantkit/tenantkit/internal/jsonfit"
)

// entry is a struct like inventory.Entry, a list of which is decoded.
type entry struct {
	Kind   string            `json:"kind"`
	Name   string            `json:"name"`
	Labels map[string]string `json:"labels,omitempty"`
	Inner  *inner            `json:"inner,omitempty"`
	Raw    json.RawMessage   `json:"raw,omitempty"`
}

type inner struct {
	On bool `json:"on"`
}

// decodeTests are the table of TestDecode and seeds of FuzzDecode: each
// JSON document, decoded into []entry with both modes for unknown keys.
var decodeTests = []struct {
	name string
	in   string
	want []entry // when it fits, with IgnoreUnknown
	// refuse and ignore are the problems with RefuseUnknown and
	// IgnoreUnknown; nil when it fits.
	refuse, ignore []jsonfit.Problem
}{
	{name: "fits", in: `[{"kind":"A","name":"a","labels":{"x":"y"},"inner":{"on":true},"raw":[1]}]`,
		want: []entry{{Kind: "A", Name: "a", Labels: map[string]string{"x": "y"}, Inner: &inner{On: true}, Raw: json.RawMessage(`[1]`)}}},
	{name: "null leaves the field", in: `[{"kind":null,"name":"a","inner":null}]`, want: []entry{{Name: "a"}}},
	{name: "an unknown key", in: `[{"name":"a","extra":{"x":1}}]`, want: []entry{{Name: "a"}},
		refuse: []jsonfit.Problem{{Field: "[0].extra", Detail: "unknown field"}}},
	{name: "a key in another case is unknown, not matched", in: `[{"name":"a","Name":"b","KIND":"B"}]`, want: []entry{{Name: "a"}},
		refuse: []jsonfit.Problem{{Field: "[0].KIND", Detail: "unknown field"}, {Field: "[0].Name", Detail: "unknown field"}}},
	{name: "a key in another case of the wrong type is unknown too", in: `[{"name":"a","Name":1}]`, want: []entry{{Name: "a"}},
		refuse: []jsonfit.Problem{{Field: "[0].Name", Detail: "unknown field"}}},
	{name: "an unknown key in a nested struct", in: `[{"name":"a","inner":{"on":true,"off":false}}]`, want: []entry{{Name: "a", Inner: &inner{On: true}}},
		refuse: []jsonfit.Problem{{Field: "[0].inner.off", Detail: "unknown field"}}},
	{name: "wrong types, in the document's order",
		in:     `[{"name":1,"kind":true},{"name":"b"},{"labels":{"x":2},"inner":{"on":"yes"},"zz":0},"x",null]`,
		refuse: []jsonfit.Problem{{Field: "[0].kind", Detail: "must be a string, found a boolean"}, {Field: "[0].name", Detail: "must be a string, found a number"}, {Field: "[2].inner.on", Detail: "must be a boolean, found a string"}, {Field: "[2].labels[x]", Detail: "must be a string, found a number"}, {Field: "[2].zz", Detail: "unknown field"}, {Field: "[3]", Detail: "must be a mapping, found a string"}},
		ignore: []jsonfit.Problem{{Field: "[0].kind", Detail: "must be a string, found a boolean"}, {Field: "[0].name", Detail: "must be a string, found a number"}, {Field: "[2].inner.on", Detail: "must be a boolean, found a string"}, {Field: "[2].labels[x]", Detail: "must be a string, found a number"}, {Field: "[3]", Detail: "must be a mapping, found a string"}}},
	{name: "not a list", in: `{"name":"a"}`,
		refuse: []jsonfit.Problem{{Field: "items", Detail: "must be a list, found a mapping"}},
		ignore: []jsonfit.Problem{{Field: "items", Detail: "must be a list, found a mapping"}}},
}

func TestDecode(t *testing.T) {
	t.Parallel()
	for _, tt := range decodeTests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			v, err := jsonfit.Parse([]byte(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			for _, mode := range []struct {
				unknown jsonfit.Unknown
				want    []jsonfit.Problem
			}{{jsonfit.RefuseUnknown, tt.refuse}, {jsonfit.IgnoreUnknown, tt.ignore}} {
				var got []entry
				ps := jsonfit.Decode(v, pathOf(tt.in), &got, mode.unknown)
				if diff := cmp.Diff(mode.want, ps); diff != "" {
					t.Errorf("Decode(%v) problems (-want +got):\n%s", mode.unknown, diff)
				}
				switch {
				case ps != nil && got != nil:
					t.Errorf("Decode(%v) decoded %v with problems", mode.unknown, got)
				case ps == nil:
					if diff := cmp.Diff(tt.want, got); diff != "" {
						t.Errorf("Decode(%v) (-want +got):\n%s", mode.unknown, diff)
					}
				}
			}
		})
	}
}

// pathOf returns the path a test decodes at: nil for a list, "items" for
// the rest, so that both are tested.
func pathOf(in string) *field.Path {
	if in != "" && in[0] == '[' {
		return nil
	}
	return field.NewPath("items")
}

func TestParse(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, in string
		want     any
		err      bool
	}{
		{name: "a number stays a number", in: `[1.50, 7]`, want: []any{json.Number("1.50"), json.Number("7")}},
		{name: "a mapping", in: ` {"a": null} `, want: map[string]any{"a": nil}},
		{name: "two values", in: `{} {}`, err: true},
		{name: "not JSON", in: `{`, err: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := jsonfit.Parse([]byte(tt.in))
			if (err != nil) != tt.err {
				t.Fatalf("Parse() error = %v, want an error: %v", err, tt.err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Parse() (-want +got):\n%s", diff)
			}
		})
	}
}

func TestJoin(t *testing.T) {
	t.Parallel()
	var ps []jsonfit.Problem
	for _, f := range []string{"", "a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k"} {
		ps = append(ps, jsonfit.Problem{Field: f, Detail: "x"})
	}
	for _, tt := range []struct {
		name string
		n    int
		want string
	}{
		{name: "none", n: 0, want: ""},
		{name: "the document", n: 1, want: "x"},
		{name: "two", n: 2, want: "x; a: x"},
		{name: "ten named", n: 10, want: "x; a: x; b: x; c: x; d: x; e: x; f: x; g: x; h: x; i: x"},
		{name: "the rest counted", n: 12, want: "x; a: x; b: x; c: x; d: x; e: x; f: x; g: x; h: x; i: x; and 2 more"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := jsonfit.Join(ps[:tt.n]); got != tt.want {
				t.Errorf("Join() = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestSummary: problems added one by one or many at once make the
// message of Join, the first ten named.
func TestSummary(t *testing.T) {
	t.Parallel()
	ps := make([]jsonfit.Problem, 25)
	for i := range ps {
		ps[i] = jsonfit.Problem{Field: "f", Detail: "x"}
	}
	for _, tt := range []struct {
		name  string
		sizes []int // the sizes of the calls of Add
		want  string
	}{
		{name: "none", sizes: nil, want: ""},
		{name: "one by one", sizes: []int{1, 1, 1}, want: "f: x; f: x; f: x"},
		{name: "past ten at once", sizes: []int{3, 9, 0, 1}, want: strings.Repeat("f: x; ", 9) + "f: x; and 3 more"},
		{name: "past ten one by one", sizes: []int{1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}, want: strings.Repeat("f: x; ", 9) + "f: x; and 1 more"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var s jsonfit.Summary
			n := 0
			for _, size := range tt.sizes {
				s.Add(ps[:size]...)
				n += size
			}
			if s.Len() != n || s.String() != tt.want {
				t.Errorf("Summary = %d, %q; want %d, %q", s.Len(), s.String(), n, tt.want)
			}
			if got := jsonfit.Join(ps[:n]); got != tt.want {
				t.Errorf("Join() = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestKind(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		v    any
		want string
	}{
		{name: "null", v: nil, want: "null"},
		{name: "boolean", v: false, want: "a boolean"},
		{name: "number", v: json.Number("1"), want: "a number"},
		{name: "string", v: "", want: "a string"},
		{name: "list", v: []any{}, want: "a list"},
		{name: "mapping", v: map[string]any{}, want: "a mapping"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := jsonfit.Kind(tt.v); got != tt.want {
				t.Errorf("Kind(%v) = %q, want %q", tt.v, got, tt.want)
			}
		})
	}
}
