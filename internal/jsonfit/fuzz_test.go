package jsonfit_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tenantkit/tenantkit/internal/jsonfit"
)

// FuzzDecode decodes fuzzed JSON into []entry, seeded from TestDecode's
// table: nothing panics; a problem names a path and says what is wrong
// without Go's words; what fits without unknown keys fits when they are
// ignored, and decodes to what encoding/json decodes (Decode only refuses
// more).
func FuzzDecode(f *testing.F) {
	for _, tt := range decodeTests {
		f.Add([]byte(tt.in))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := jsonfit.Parse(data)
		if err != nil {
			return
		}
		var strict, lenient []entry
		sps := jsonfit.Decode(v, nil, &strict, jsonfit.RefuseUnknown)
		lps := jsonfit.Decode(v, nil, &lenient, jsonfit.IgnoreUnknown)
		for _, p := range append(sps, lps...) {
			if p.Detail == "" || p.Detail == "cannot be decoded" {
				t.Fatalf("problem %+v says nothing", p)
			}
			// entry has no text type, so a detail quotes nothing of
			// the document.
			for _, w := range []string{"Go struct", "Go value", "json: ", "unmarshal"} {
				if strings.Contains(p.Detail, w) {
					t.Fatalf("problem %q holds %q", p, w)
				}
			}
		}
		if sps != nil {
			return
		}
		if lps != nil {
			t.Fatalf("fits without unknown keys, but not ignoring them: %v", lps)
		}
		if diff := cmp.Diff(strict, lenient); diff != "" {
			t.Fatalf("RefuseUnknown and IgnoreUnknown differ (-refuse +ignore):\n%s", diff)
		}
		js, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		var want []entry
		if err := json.Unmarshal(js, &want); err != nil {
			t.Fatalf("encoding/json refuses %s: %v", js, err)
		}
		if diff := cmp.Diff(want, strict); diff != "" {
			t.Fatalf("Decode() differs from encoding/json (-json +jsonfit):\n%s", diff)
		}
	})
}
