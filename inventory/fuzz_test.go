package inventory

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func FuzzUnmarshal(f *testing.F) {
	for _, tt := range unmarshalTests {
		if len(tt.in) < 1<<10 {
			f.Add([]byte(tt.in))
		}
	}
	for _, tt := range hostileUnmarshalTests {
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
		entries, err := Unmarshal(data)
		if err != nil {
			if entries != nil {
				t.Fatalf("entries %v with error %v", entries, err)
			}
			checkWords(t, data, err)
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

// decoderWords are what an error's message must not hold: the YAML
// decoder's words, and encoding/json's, with Go's types (issue 38, item
// 4). A message is in the document's words (yamldoc.Detail, jsonfit).
var decoderWords = []string{"yaml: ", "converting YAML to JSON", "unmarshal errors", "Go struct", "Go value", "json: ", "unmarshal"}

// checkWords fails t when the message of err holds decoderWords that the
// document cannot have put there: a message may quote the document's
// values, so a word that the document holds, once whitespace is left out
// (YAML folds lines), or that an escape ("\u0020") may spell, is not
// checked.
func checkWords(t *testing.T, data []byte, err error) {
	t.Helper()
	msg := err.Error()
	doc := strings.Join(strings.Fields(string(data)), "")
	for _, w := range decoderWords {
		if !strings.Contains(msg, w) {
			continue
		}
		if strings.Contains(doc, strings.Join(strings.Fields(w), "")) || strings.Contains(doc, "\\") {
			continue
		}
		t.Fatalf("error %q holds %q", msg, w)
	}
}

func FuzzParseID(f *testing.F) {
	for _, tt := range parseIDTests {
		f.Add(tt.in, "v1")
	}
	f.Add("apps_podinfo_apps_Deployment", "v1beta2")
	f.Add("_a__Namespace", "V1")
	f.Add("ns_a:b__Kind", "v1")
	f.Add("_a___b_rbac.authorization.k8s.io_ClusterRole", "v1")
	f.Fuzz(func(t *testing.T, s, version string) {
		id, err := ParseID(s)
		if err != nil {
			if id != (ID{}) {
				t.Fatalf("ParseID(%q) = %v with error %v", s, id, err)
			}
			return
		}
		if errs := id.Validate(nil); errs != nil {
			t.Fatalf("ParseID(%q) = %v, which does not validate: %v", s, id, errs)
		}
		// parse -> FluxID -> parse round-trips, unless the name holds a
		// "__" of its own, which FluxID then writes back as is.
		again, err := ParseID(id.FluxID())
		if roundTrips := fluxIDRoundTrips(id); roundTrips != (err == nil && again == id) {
			t.Fatalf("ParseID(%q) = %v, %v; want %v (round trip %v)", id.FluxID(), again, err, id, roundTrips)
		}
		// FromResourceInventory -> ToResourceInventory -> FromResourceInventory.
		entries, errs := FromResourceInventory(ResourceRef{ID: s, Version: version})
		if errs != nil {
			return // the version is invalid
		}
		if entries[0].ID() != id {
			t.Fatalf("FromResourceInventory(%q) = %v, want ID %v", s, entries[0], id)
		}
		refs, errs := ToResourceInventory(entries...)
		if !fluxIDRoundTrips(id) {
			if errs == nil {
				t.Fatalf("ToResourceInventory(%v) wrote an id that does not read back: %v", entries, refs)
			}
			return
		}
		if errs != nil {
			t.Fatalf("ToResourceInventory(%v): %v", entries, errs)
		}
		if want := (ResourceRef{ID: id.FluxID(), Version: version}); refs[0] != want {
			t.Fatalf("ToResourceInventory(%v) = %v, want %v", entries, refs[0], want)
		}
		back, errs := FromResourceInventory(refs...)
		if errs != nil || back[0] != entries[0] {
			t.Fatalf("FromResourceInventory(%v) = %v, %v; want %v", refs, back, errs, entries)
		}
	})
}
