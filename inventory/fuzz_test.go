package inventory

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func FuzzUnmarshal(f *testing.F) {
	for _, tt := range unmarshalTests {
		if len(tt.in) < 1<<10 {
			f.Add([]byte(tt.in))
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		entries, err := Unmarshal(data)
		if err != nil {
			if entries != nil {
				t.Fatalf("entries %v with error %v", entries, err)
			}
			return
		}
		for i, e := range entries {
			if errs := e.Validate(nil); len(errs) > 0 {
				t.Fatalf("entry %d %+v is invalid: %v", i, e, errs)
			}
			if e.Kind == "" {
				t.Fatalf("entry %d has no kind", i)
			}
		}
		// Marshal -> Unmarshal round-trips.
		out, err := json.Marshal(entries)
		if err != nil {
			t.Fatal(err)
		}
		back, err := Unmarshal(out)
		if err != nil {
			t.Fatalf("Unmarshal(%s): %v", out, err)
		}
		if diff := cmp.Diff(entries, back); diff != "" {
			t.Fatalf("round trip mismatch (-first +second):\n%s", diff)
		}
	})
}

func FuzzParseID(f *testing.F) {
	for _, tt := range parseIDTests {
		f.Add(tt.in, "v1")
	}
	f.Add("apps_podinfo_apps_Deployment", "v1beta2")
	f.Fuzz(func(t *testing.T, s, version string) {
		id, err := ParseID(s)
		if err != nil {
			if id != (ID{}) {
				t.Fatalf("ParseID(%q) = %v with error %v", s, id, err)
			}
			return
		}
		if err := id.Validate(); err != nil {
			t.Fatalf("ParseID(%q) = %v, which does not validate: %v", s, id, err)
		}
		// parse -> String -> parse round-trips.
		again, err := ParseID(id.String())
		if err != nil || again != id {
			t.Fatalf("ParseID(%q) = %v, %v; want %v", id.String(), again, err, id)
		}
		// FromResourceInventory -> ToResourceInventory -> FromResourceInventory.
		entries, err := FromResourceInventory(ResourceRef{ID: s, Version: version})
		if err != nil {
			return // the version is invalid
		}
		if entries[0].ID() != id {
			t.Fatalf("FromResourceInventory(%q) = %v, want ID %v", s, entries[0], id)
		}
		refs, err := ToResourceInventory(entries...)
		if err != nil {
			t.Fatalf("ToResourceInventory(%v): %v", entries, err)
		}
		if want := (ResourceRef{ID: id.String(), Version: version}); refs[0] != want {
			t.Fatalf("ToResourceInventory(%v) = %v, want %v", entries, refs[0], want)
		}
		back, err := FromResourceInventory(refs...)
		if err != nil || back[0] != entries[0] {
			t.Fatalf("FromResourceInventory(%v) = %v, %v; want %v", refs, back, err, entries)
		}
	})
}
