package agmanifest_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/tenantkit/tenantkit/generator"
	"github.com/tenantkit/tenantkit/internal/agmanifest"
	"github.com/tenantkit/tenantkit/internal/yamldoc"
)

// level decodes itself from text: "low" or "high".
type level int

func (l *level) UnmarshalText(text []byte) error {
	switch string(text) {
	case "low":
		*l = 1
	case "high":
		*l = 2
	default:
		return errors.New("must be low or high")
	}
	return nil
}

type Common struct {
	Owner string `json:"owner,omitempty"`
}

// doc is a document of every shape that Strict decodes.
type doc struct {
	Common                          // promoted: owner
	Name     string                 `json:"name"`
	Count    int8                   `json:"count,omitempty"`
	Size     uint16                 `json:"size,omitempty"`
	Ratio    float32                `json:"ratio,omitempty"`
	On       *bool                  `json:"enabled,omitempty"`
	Labels   map[string]string      `json:"labels,omitempty"`
	Items    []item                 `json:"items,omitempty"`
	Pair     [2]string              `json:"pair,omitempty"`
	Raw      json.RawMessage        `json:"raw,omitempty"`
	Any      any                    `json:"any,omitempty"`
	Level    level                  `json:"level,omitempty"`
	ByName   map[string]*item       `json:"byName,omitempty"`
	Hidden   string                 `json:"-"`
	NoTag    string                 //nolint:tagliatelle // named NoTag in JSON, as encoding/json names it
	Extra    map[string]interface{} `json:"extra,omitempty"`
	internal string
}

type item struct {
	Key   string `json:"key"`
	Value int    `json:"value,omitempty"`
}

// strictTests are the table of TestUnmarshal, and seeds of FuzzUnmarshal.
var strictTests = []struct {
	name string
	data string
	want doc
	msg  string // the error's message; "" for none
}{
	{
		name: "every shape",
		data: "owner: ops\nname: a\ncount: -128\nsize: 65535\nratio: 0.5\nenabled: true\nlabels: {x: z}\nitems: [{key: k, value: 1}]\npair: [p, q]\n" +
			"raw: {z: [1]}\nany: [1, b]\nlevel: high\nbyName: {b: {key: m}}\nNoTag: t\nextra: {e: 1}\n",
		want: doc{
			Common: Common{Owner: "ops"}, Name: "a", Count: -128, Size: 65535, Ratio: 0.5, On: new(true),
			Labels: map[string]string{"x": "z"}, Items: []item{{Key: "k", Value: 1}}, Pair: [2]string{"p", "q"},
			Raw: json.RawMessage(`{"z":[1]}`), Any: []any{float64(1), "b"}, Level: 2,
			ByName: map[string]*item{"b": {Key: "m"}}, NoTag: "t", Extra: map[string]any{"e": float64(1)},
		},
	},
	{name: "null leaves the field", data: "name: a\nlabels: null\nenabled: null\n", want: doc{Name: "a"}},
	{name: "unknown field", data: "name: a\nnmae: b\n", msg: "nmae: unknown field"},
	{name: "another case", data: "Name: a\n", msg: "Name: unknown field"},
	{name: "a field json ignores", data: "Hidden: a\n", msg: "Hidden: unknown field"},
	{name: "an unexported field", data: "internal: a\n", msg: "internal: unknown field"},
	{name: "unknown field in a list item", data: "items: [{key: a}, {kye: b}]\n", msg: "items[1].kye: unknown field"},
	{name: "unknown field in a map value", data: "byName: {b: {kye: b}}\n", msg: "byName[b].kye: unknown field"},
	{name: "a string for an int", data: "count: \"1\"\n", msg: "count: must be an integer, found a string"},
	{name: "an int out of range", data: "count: 128\n", msg: "count: must be an integer of 8 bits, found 128"},
	{name: "a fraction for an int", data: "count: 1.5\n", msg: "count: must be an integer of 8 bits, found 1.5"},
	{name: "a negative uint", data: "size: -1\n", msg: "size: must be a non-negative integer of 16 bits, found -1"},
	{name: "a uint out of range", data: "size: 65536\n", msg: "size: must be a non-negative integer of 16 bits, found 65536"},
	{name: "a string for a uint", data: "size: x\n", msg: "size: must be an integer, found a string"},
	{name: "a float out of range", data: "ratio: 1e100\n", msg: "ratio: must be a number in range, found 1e+100"},
	{name: "a string for a float", data: "ratio: x\n", msg: "ratio: must be a number, found a string"},
	{name: "a string for a bool", data: "enabled: \"true\"\n", msg: "enabled: must be a boolean, found a string"},
	{name: "a number for a string", data: "name: 1\n", msg: "name: must be a string, found a number"},
	{name: "a list for a map", data: "labels: [a]\n", msg: "labels: must be a mapping, found a list"},
	{name: "a number in a map", data: "labels: {a: 1}\n", msg: "labels[a]: must be a string, found a number"},
	{name: "a mapping for a list", data: "items: {a: 1}\n", msg: "items: must be a list, found a mapping"},
	{name: "a string for a struct", data: "items: [a]\n", msg: "items[0]: must be a mapping, found a string"},
	{name: "too many for an array", data: "pair: [a, b, c]\n", msg: "pair: must hold no more than 2 items, found 3"},
	{name: "a text value refused", data: "level: medium\n", msg: `level: "medium": must be low or high`},
	{name: "a number for a text value", data: "level: 1\n", msg: "level: must be a string, found a number"},
	{name: "not a mapping", data: "- a\n", msg: "must be a mapping, found a list"},
	{
		name: "several, sorted",
		data: "size: x\nname: 1\nitems: [{kye: b}]\nzz: 1\n",
		msg:  "items[0].kye: unknown field; name: must be a string, found a number; size: must be an integer, found a string; zz: unknown field",
	},
}

func TestUnmarshal(t *testing.T) {
	t.Parallel()
	for _, tt := range strictTests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var got doc
			err := agmanifest.Unmarshal([]byte(tt.data), &got)
			if tt.msg == "" {
				if err != nil {
					t.Fatalf("Unmarshal() = %v", err)
				}
				if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(doc{})); diff != "" {
					t.Errorf("Unmarshal() (-want +got):\n%s", diff)
				}
				return
			}
			if !errors.Is(err, agmanifest.ErrFields) || err.Error() != tt.msg {
				t.Fatalf("Unmarshal() = %v, want %q wrapping ErrFields", err, tt.msg)
			}
			if diff := cmp.Diff(doc{}, got, cmp.AllowUnexported(doc{})); diff != "" {
				t.Errorf("Unmarshal() decoded a part of a document with problems (-want +got):\n%s", diff)
			}
		})
	}
}

// TestStrictPath: the problems of a part of a document are at their path
// in the document.
func TestStrictPath(t *testing.T) {
	t.Parallel()
	v, err := agmanifest.Parse([]byte("{nmae: a}"))
	if err != nil {
		t.Fatal(err)
	}
	var got doc
	err = agmanifest.Strict(v, field.NewPath("cases").Index(2).Child("expect"), &got)
	if want := "cases[2].expect.nmae: unknown field"; err == nil || err.Error() != want {
		t.Errorf("Strict() = %v, want %q", err, want)
	}
}

func billionLaughs(key string) string {
	return "a: &a [x,x,x,x,x,x,x,x,x]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\n" +
		"d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]\nf: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]\n" +
		"g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]\nh: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]\ni: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h]\n" +
		key + ": *i\n"
}

// hostileTests are hostile documents, each refused as not one document
// (ErrSyntax) with a message holding the text given: the table of
// TestParseHostile and seeds of FuzzDecode.
var hostileTests = []struct {
	name, data, msg string
}{
	{name: "billion laughs", data: billionLaughs("spec"), msg: "YAML aliases must expand"},
	{name: "nested 10,001 deep", data: "spec: " + strings.Repeat("[", 10001) + strings.Repeat("]", 10001), msg: "exceeded max depth"},
	{name: "raw NUL byte", data: written + "# \x00\n", msg: "control characters are not allowed"},
	{name: "invalid UTF-8", data: strings.Replace(written, "tenants", "ten\xffants", 1), msg: "invalid"},
	{name: "two documents split by an end marker", data: written + "...\nkind: Other\n", msg: `must not hold a second YAML document after a "..." end marker`},
	{name: "a directive", data: "a: 1\n%YAML 1.1\nb: 2\n", msg: "directive"},
	{name: "keys that collide as JSON", data: "1: a\n\"1\": b\n", msg: "1"},
}

func TestParseHostile(t *testing.T) {
	t.Parallel()
	for _, tt := range hostileTests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			v, err := agmanifest.Parse([]byte(tt.data))
			if v != nil || !errors.Is(err, agmanifest.ErrSyntax) || !strings.Contains(err.Error(), tt.msg) {
				t.Fatalf("Parse() = %v, %.300v; want an error wrapping ErrSyntax containing %q", v, err, tt.msg)
			}
			checkWords(t, err)
			if _, err := agmanifest.Decode[generator.Spec]([]byte(tt.data)); !errors.Is(err, agmanifest.ErrSyntax) {
				t.Errorf("Decode[generator.Spec]() = %v, want an error wrapping ErrSyntax", err)
			}
		})
	}
}

// TestParseExpansion: YAML aliases are bounded before anything is
// decoded, and the error says so (yamldoc.ErrExpansion is its text).
func TestParseExpansion(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	fmt.Fprintf(&b, "a: &s %q\n", strings.Repeat("x", 100_000))
	for i := range 200 {
		fmt.Fprintf(&b, "a%d: *s\n", i)
	}
	_, err := agmanifest.Parse([]byte(b.String()))
	if !errors.Is(err, agmanifest.ErrSyntax) || !errors.Is(err, yamldoc.ErrExpansion) {
		t.Fatalf("Parse() = %.300v, want an error wrapping ErrSyntax and yamldoc.ErrExpansion", err)
	}
}
