package inventory

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// unmarshalLenientTests are documents with the entries that UnmarshalLenient
// keeps, the problems of those it leaves out, or the error that refuses the
// whole document.
var unmarshalLenientTests = []struct {
	name    string
	in      string
	want    []Entry
	dropped []fieldErr
	is      error
}{
	{name: "a valid list", in: `[{"kind":"Namespace","name":"tenant-a"},{"namespace":"tenant-a","name":"app"}]`,
		want: []Entry{nsEntry("tenant-a", ""), ea("tenant-a", "app", "")}},
	{name: "an invalid entry costs only itself",
		in:      `{"status":{"inventory":[{"kind":"Namespace","name":"ok"},{"name":"app","digest":"sha256:abc"},{"kind":"Deployment","name":"x"}]}}`,
		want:    []Entry{nsEntry("ok", "")},
		dropped: []fieldErr{{"status.inventory[1].digest", field.ErrorTypeInvalid}, {"status.inventory[2].apiVersion", field.ErrorTypeRequired}}},
	{name: "a duplicate: the first is kept",
		in:      `[{"namespace":"tenant-a","name":"app","digest":"` + string(digestA) + `"},{"namespace":"tenant-a","name":"app"}]`,
		want:    []Entry{ea("tenant-a", "app", digestA)},
		dropped: []fieldErr{{"[1]", field.ErrorTypeDuplicate}}},
	// A value of the wrong type is Invalid at its path (issue 38, item 4),
	// an element that is not a mapping at the element's.
	{name: "an element that is not an entry",
		in:      `[{"kind":5,"name":"x"},null,"tenant-a",{"kind":"Namespace","name":"tenant-a"}]`,
		want:    []Entry{nsEntry("tenant-a", "")},
		dropped: []fieldErr{{"[0].kind", field.ErrorTypeInvalid}, {"[1]", field.ErrorTypeInvalid}, {"[2]", field.ErrorTypeInvalid}}},
	{name: "flux-operator refs: a duplicate id and a namespace that is not a label", in: `
apiVersion: fluxcd.controlplane.io/v1
kind: ResourceSet
status:
  inventory:
    entries:
      - {id: _tenant-a__Namespace, v: v1}
      - {id: Tenant_B_app_apps_Deployment, v: v1}
      - {id: tenant-a_web_apps_Deployment, v: v1}
      - {id: tenant-a_web_apps_Deployment, v: v2}
      - {id: 5, v: v1}
      - {id: nope, v: ""}
`,
		want: []Entry{{APIVersion: "v1", Kind: "Namespace", Name: "tenant-a"},
			{APIVersion: "apps/v1", Kind: "Deployment", Namespace: "tenant-a", Name: "web"}},
		dropped: []fieldErr{
			{"status.inventory.entries[1].id", field.ErrorTypeInvalid},
			{"status.inventory.entries[3]", field.ErrorTypeDuplicate},
			{"status.inventory.entries[4].id", field.ErrorTypeInvalid},
			{"status.inventory.entries[5].id", field.ErrorTypeInvalid},
			{"status.inventory.entries[5].v", field.ErrorTypeRequired},
		}},
	{name: "a ResourceInventory", in: `{"entries":[{"id":"_team1__Namespace","v":"v1"},{"id":"_team1__Namespace","v":"v1"}]}`,
		want: []Entry{{APIVersion: "v1", Kind: "Namespace", Name: "team1"}}, dropped: []fieldErr{{"entries[1]", field.ErrorTypeDuplicate}}},
	{name: "no inventory yet", in: `{"kind":"ResourceSet","status":{}}`, want: []Entry{}},
	{name: "no inventory, no kind", in: `{"status":{}}`, is: ErrMalformed},
	{name: "a null inventory", in: `{"status":{"inventory":null}}`, want: []Entry{}},
	{name: "null entries", in: `{"status":{"inventory":{"entries":null}}}`, want: []Entry{}},
	{name: "null top-level entries read the status", in: `{"entries":null,"status":{"inventory":[{"kind":"Namespace","name":"a"}]}}`,
		want: []Entry{nsEntry("a", "")}},
	{name: "an empty list", in: `[]`, want: []Entry{}},

	{name: "a string", in: `"x"`, is: ErrMalformed},
	{name: "refs that are not a list", in: `{"entries":{"id":"_a__Namespace"}}`, is: ErrMalformed},
	{name: "an inventory that is a number", in: `{"status":{"inventory":5}}`, is: ErrMalformed},
	{name: "two YAML documents", in: "- name: a\n---\n- name: b\n", is: ErrMalformed},
	{name: "too large", in: `[` + string(make([]byte, maxDocumentBytes)) + `]`, is: ErrTooLarge},
}

func TestUnmarshalLenient(t *testing.T) {
	t.Parallel()
	for _, tt := range unmarshalLenientTests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, dropped, err := UnmarshalLenient([]byte(tt.in))
			if tt.is != nil {
				if !errors.Is(err, tt.is) || got != nil || dropped != nil {
					t.Fatalf("UnmarshalLenient() = %v, %v, %v; want %v", got, dropped, err, tt.is)
				}
				return
			}
			if err != nil {
				t.Fatalf("UnmarshalLenient() error = %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("entries (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.dropped, reduce(dropped)); diff != "" {
				t.Errorf("dropped (-want +got):\n%s", diff)
			}
		})
	}
}

// TestUnmarshalLenientStrict: where the strict read accepts a document
// without duplicates, the lenient one returns the same entries and drops
// none; where it refuses an entry, the lenient one reports the same
// problems.
func TestUnmarshalLenientStrict(t *testing.T) {
	t.Parallel()
	for _, tt := range unmarshalTests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			strict, serr := Unmarshal([]byte(tt.in))
			got, dropped, err := UnmarshalLenient([]byte(tt.in))
			switch {
			case tt.is != nil && err == nil:
				// Strict refuses a document with an element of the wrong
				// type; lenient drops the element, and only it.
				if len(got) != 0 || len(dropped) != 1 || dropped[0].Type != field.ErrorTypeInvalid {
					t.Errorf("UnmarshalLenient() = %v, %v; want one element dropped (strict: %v)", got, dropped, serr)
				}
			case tt.is != nil:
				if !errors.Is(err, tt.is) {
					t.Errorf("UnmarshalLenient() error = %v, want %v", err, tt.is)
				}
			case serr == nil:
				if err != nil || dropped != nil {
					t.Fatalf("UnmarshalLenient() = %v, %v", dropped, err)
				}
				if diff := cmp.Diff(strict, got); diff != "" {
					t.Errorf("lenient differs from strict (-strict +lenient):\n%s", diff)
				}
			default:
				if err != nil {
					t.Fatalf("UnmarshalLenient() error = %v", err)
				}
				if diff := cmp.Diff(tt.wantErr, reduce(dropped)); diff != "" {
					t.Errorf("dropped differs from the strict errors (-strict +lenient):\n%s", diff)
				}
			}
		})
	}
}

// refsDocument is refs as a Flux ResourceInventory document, {"entries": [...]}.
func refsDocument(t testing.TB, refs ...ResourceRef) []byte {
	data, err := json.Marshal(map[string][]ResourceRef{"entries": append([]ResourceRef{}, refs...)})
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestUnmarshalLenientRefs reads Flux ResourceInventory entries leniently: an
// entry for each ref whose id and version parse, the first of each ID, in
// the order given, and a problem for each ref left out, at "entries[i].id",
// "entries[i].v" or, for a Duplicate, "entries[i]", in index order.
func TestUnmarshalLenientRefs(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		refs    []ResourceRef
		want    []Entry
		dropped field.ErrorList
	}{
		{name: "none", want: []Entry{}},
		{name: "valid", refs: []ResourceRef{{ID: "_team1__Namespace", Version: "v1"}, {ID: "apps_podinfo_apps_Deployment", Version: "v1"}},
			want: []Entry{{APIVersion: "v1", Kind: "Namespace", Name: "team1"}, {APIVersion: "apps/v1", Kind: "Deployment", Namespace: "apps", Name: "podinfo"}}},
		{name: "the bad ones left out, in order", refs: []ResourceRef{
			{ID: "_team1__Namespace", Version: "v1"},
			{ID: "nope", Version: "v1"},
			{ID: "apps_podinfo_apps_Deployment", Version: ""},
			{ID: "apps_podinfo_apps_Deployment", Version: "v1"},
			{ID: "apps_podinfo_apps_Deployment", Version: "v2"},
			{ID: "Apps_podinfo_apps_Deployment", Version: "v1"},
		},
			want: []Entry{{APIVersion: "v1", Kind: "Namespace", Name: "team1"}, {APIVersion: "apps/v1", Kind: "Deployment", Namespace: "apps", Name: "podinfo"}},
			dropped: field.ErrorList{
				field.Invalid(field.NewPath("entries").Index(1).Child("id"), "nope", `must be "<namespace>_<name>_<group>_<kind>"`),
				field.Required(field.NewPath("entries").Index(2).Child("v"), ""),
				field.Duplicate(field.NewPath("entries").Index(4), "Deployment/apps/podinfo"),
				field.Invalid(field.NewPath("entries").Index(5).Child("id"), "Apps_podinfo_apps_Deployment",
					"namespace: Invalid value: \"Apps\": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"),
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, dropped, err := UnmarshalLenient(refsDocument(t, tt.refs...))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.dropped, dropped); diff != "" {
				t.Errorf("dropped (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("entries (-want +got):\n%s", diff)
			}
			// The strict read keeps all or none.
			strict, serrs := FromResourceInventory(tt.refs...)
			if len(dropped) == 0 && (serrs != nil || !cmp.Equal(strict, got)) {
				t.Errorf("FromResourceInventory() = %v, %v; want the lenient entries", strict, serrs)
			}
		})
	}
}

// FuzzUnmarshalLenient: no document panics; what comes back passes Diff
// (every entry valid, no ID twice) with the problems of the rest, and
// where the strict read accepts a document without duplicates, the
// lenient one agrees.
func FuzzUnmarshalLenient(f *testing.F) {
	for _, tt := range unmarshalLenientTests {
		if len(tt.in) < 1<<10 {
			f.Add([]byte(tt.in))
		}
	}
	for _, tt := range unmarshalTests {
		if len(tt.in) < 1<<10 {
			f.Add([]byte(tt.in))
		}
	}
	for _, tt := range valueErrorTests {
		if len(tt.in) < 1<<10 {
			f.Add([]byte(tt.in))
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got, dropped, err := UnmarshalLenient(data)
		for _, e := range dropped {
			checkWords(t, data, e)
		}
		if err != nil {
			if got != nil || dropped != nil || !(errors.Is(err, ErrMalformed) || errors.Is(err, ErrTooLarge)) {
				t.Fatalf("UnmarshalLenient() = %v, %v, %v", got, dropped, err)
			}
			checkWords(t, data, err)
			if _, serr := Unmarshal(data); serr == nil {
				t.Fatalf("UnmarshalLenient refused a document that Unmarshal reads: %v", err)
			}
			return
		}
		if got == nil {
			t.Fatal("UnmarshalLenient() = nil entries without an error")
		}
		if _, errs := Diff(got, nil); errs != nil {
			t.Fatalf("Diff refuses what UnmarshalLenient kept: %v", errs.ToAggregate())
		}
		for _, e := range dropped {
			if e.Field == "" {
				t.Fatalf("a problem without a path: %v", e)
			}
		}
		strict, serr := Unmarshal(data)
		if serr == nil && dropped == nil && !cmp.Equal(strict, got) {
			t.Fatalf("lenient %v, strict %v", got, strict)
		}
		if serr == nil && dropped != nil {
			for _, e := range dropped {
				if e.Type != field.ErrorTypeDuplicate {
					t.Fatalf("Unmarshal accepts what UnmarshalLenient drops: %v", e)
				}
			}
		}
	})
}

func FuzzUnmarshalLenientRefs(f *testing.F) {
	for _, tt := range parseIDTests {
		f.Add(tt.in, "v1", tt.in, "v2")
	}
	f.Add("_team1__Namespace", "v1", "_team1__Namespace", "v1")
	f.Add("Apps_podinfo_apps_Deployment", "v1", "nope", "")
	f.Fuzz(func(t *testing.T, id1, v1, id2, v2 string) {
		refs := []ResourceRef{{ID: id1, Version: v1}, {ID: id2, Version: v2}}
		data := refsDocument(t, refs...) // json.Marshal makes invalid UTF-8 valid, as an API object holds it
		got, dropped, err := UnmarshalLenient(data)
		if err != nil || got == nil || len(got)+countIndices(dropped) != len(refs) {
			t.Fatalf("UnmarshalLenient() = %v, %v, %v: every ref must be kept or dropped", got, dropped, err)
		}
		if _, errs := Diff(got, nil); errs != nil {
			t.Fatalf("Diff refuses what UnmarshalLenient kept: %v", errs.ToAggregate())
		}
		strict, serr := Unmarshal(data)
		if serr == nil && got[0] != strict[0] {
			t.Fatalf("lenient %v, strict %v", got, strict)
		}
		if js, err := json.Marshal(got); err != nil || len(js) == 0 {
			t.Fatalf("json.Marshal: %v", err)
		}
	})
}

// countIndices counts the refs that problems name: "entries[i]" with any
// child.
func countIndices(errs field.ErrorList) int {
	seen := map[string]bool{}
	for _, e := range errs {
		i := e.Field
		if j := len("entries[0]"); len(i) >= j {
			i = i[:j]
		}
		seen[i] = true
	}
	return len(seen)
}
