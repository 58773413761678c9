package agmanifest_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/tenantkit/tenantkit/generator"
	"github.com/tenantkit/tenantkit/internal/agmanifest"
)

// decoderWords are what an error's message must not hold: the YAML
// decoder's and sigs.k8s.io/yaml's words, and Go's (issue 38, item 4).
var decoderWords = []string{"yaml: ", "unmarshal", "converting YAML to JSON", "json: ", "Go struct", "interface {}", "agmanifest"}

// checkWords fails t when the message of err holds decoderWords.
func checkWords(t *testing.T, err error) {
	t.Helper()
	for _, w := range decoderWords {
		if strings.Contains(err.Error(), w) {
			t.Errorf("error %q holds %q", err, w)
		}
	}
}

// FuzzDecode decodes fuzzed manifests, seeded from TestDecode's,
// TestUnmarshal's and TestParseHostile's tables. Nothing panics; an error
// is an *agmanifest.Error wrapping one of the sentinels, with a message
// without decoder words;
// and a manifest that decodes, written back as JSON, decodes to itself.
func FuzzDecode(f *testing.F) {
	for _, tt := range decodeTests(f) {
		f.Add([]byte(tt.data))
	}
	for _, tt := range strictTests {
		f.Add([]byte(tt.data))
	}
	for _, tt := range hostileTests {
		f.Add([]byte(tt.data))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := agmanifest.Decode[generator.Spec](data)
		if err != nil {
			e, ok := errors.AsType[*agmanifest.Error](err)
			switch {
			case m != nil:
				t.Fatalf("Decode[generator.Spec]() = %v with error %v", m, err)
			case !ok:
				t.Fatalf("Decode[generator.Spec]() error %T %v, want *agmanifest.Error", err, err)
			case !errors.Is(err, agmanifest.ErrSyntax) && !errors.Is(err, agmanifest.ErrNotGenerator) && !errors.Is(err, agmanifest.ErrFields):
				t.Fatalf("Decode[generator.Spec]() error %v wraps no sentinel", err)
			case len(e.Problems) == 0 || err.Error() == "":
				t.Fatalf("Decode[generator.Spec]() error %#v has no message", e)
			}
			checkWords(t, err)
			return
		}
		again, err := json.Marshal(map[string]any{
			"apiVersion": agmanifest.APIVersion, "kind": agmanifest.Kind, "metadata": m.Metadata, "spec": m.Spec,
		})
		if err != nil {
			t.Fatalf("json.Marshal() = %v", err)
		}
		m2, err := agmanifest.Decode[generator.Spec](again)
		if err != nil {
			t.Fatalf("Decode[generator.Spec](%s) = %v; the manifest decoded from %q", again, err, data)
		}
		if diff := cmp.Diff(m, m2, cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("the manifest written back decodes to another (-first +again):\n%s", diff)
		}
	})
}

// FuzzUnmarshal decodes fuzzed documents into a struct of every shape,
// seeded from TestUnmarshal's table: nothing panics, an error wraps a
// sentinel, and what decodes is what encoding/json decodes from the same
// document (Strict only refuses more).
func FuzzUnmarshal(f *testing.F) {
	for _, tt := range strictTests {
		f.Add([]byte(tt.data))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var got doc
		err := agmanifest.Unmarshal(data, &got)
		if err != nil {
			if !errors.Is(err, agmanifest.ErrSyntax) && !errors.Is(err, agmanifest.ErrFields) {
				t.Fatalf("Unmarshal() error %v wraps neither ErrSyntax nor ErrFields", err)
			}
			return
		}
		v, err := agmanifest.Parse(data)
		if err != nil {
			t.Fatalf("Parse() = %v after Unmarshal accepted it", err)
		}
		js, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		var want doc
		if err := json.Unmarshal(js, &want); err != nil {
			t.Fatalf("encoding/json refuses %s: %v", js, err)
		}
		if diff := cmp.Diff(want, got, cmp.AllowUnexported(doc{})); diff != "" {
			t.Fatalf("Unmarshal() differs from encoding/json (-json +strict):\n%s", diff)
		}
	})
}
