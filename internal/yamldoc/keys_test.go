package yamldoc

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	yamlv2 "go.yaml.in/yaml/v2"
	"sigs.k8s.io/yaml"
)

// keysTests are streams for CheckKeys, with the error it returns after the
// text of ErrKeys, or "" for none.
var keysTests = []struct {
	name string
	data string
	want string
}{
	// Streams that must pass.
	{name: "string keys", data: "apiVersion: v1\nkind: NamespaceMetadata\nmetadata:\n  labels:\n    team: payments\n"},
	{name: "quoted keys that do not collide", data: "\"1\": a\n\"true\": b\n'yes': c\n\"null\": d\n"},
	{name: "on alone", data: "on: push\njobs: {}\n"},
	{name: "yes alone, beside another boolean", data: "yes: a\nno: b\n"},
	{name: "numeric keys alone", data: "1: a\n2: b\n1.5: c\n"},
	{name: "an integer and a float that differ", data: "1: a\n1.5: b\n"},
	{name: "a duplicate key", data: "a: 1\na: 2\n"},
	{name: "a duplicate integer key", data: "1: a\n1: b\n"},
	{name: "a string that looks like a boolean, beside a number", data: "\"true\": a\n1: b\n"},
	{name: "zero and minus zero are one key", data: "0.0: a\n-0.0: b\n"},
	{name: "the same string through a tag", data: "!!str 1: a\n\"1\": b\n"},
	{name: "a key in a block scalar", data: "rule: |\n  1: a\n  \"1\": b\n"},
	{name: "keys of different mappings", data: "a:\n  1: x\nb:\n  \"1\": y\n"},
	{name: "a merge that adds no collision", data: "base: &b {x: 1}\nc:\n  <<: *b\n  \"1\": y\n"},
	{name: "not YAML", data: "1: a\n\"1\": [\n"},
	{name: "a refused separator", data: "1: a\n\"1\": b\n--- x\n"},

	// Streams that must be refused, each colliding form.
	{name: "an integer", data: "1: a\n\"1\": b\n",
		want: `line 2: key "1" and key 1 (an integer) of line 1 both become the JSON key "1"`},
	{name: "an integer after the string", data: "\"1\": a\n1: b\n",
		want: `line 2: key 1 (an integer) and key "1" of line 1 both become the JSON key "1"`},
	{name: "a hexadecimal integer", data: "0x10: a\n\"16\": b\n",
		want: `line 2: key "16" and key 16 (an integer) of line 1 both become the JSON key "16"`},
	{name: "an integer with underscores", data: "1_000: a\n\"1000\": b\n",
		want: `line 2: key "1000" and key 1000 (an integer) of line 1 both become the JSON key "1000"`},
	{name: "an integer and a float", data: "1: a\n1.0: b\n",
		want: `line 2: key 1.0 (a float) and key 1 (an integer) of line 1 both become the JSON key "1"`},
	{name: "a float", data: "1.0: a\n\"1\": b\n",
		want: `line 2: key "1" and key 1.0 (a float) of line 1 both become the JSON key "1"`},
	{name: "floats alike at float32 precision", data: "0.1: a\n0.10000000149011612: b\n",
		want: `line 2: key 0.10000000149011612 (a float) and key 0.1 (a float) of line 1 both become the JSON key "0.1"`},
	{name: "infinity", data: ".inf: a\n\".inf\": b\n",
		want: `line 2: key ".inf" and key .inf (a float) of line 1 both become the JSON key ".inf"`},
	{name: "two NaNs", data: ".nan: a\n.NaN: b\n",
		want: `line 2: key .nan (a float) and key .nan (a float) of line 1 both become the JSON key ".nan"`},
	{name: "true", data: "true: c\n\"true\": d\n",
		want: `line 2: key "true" and key true (a boolean) of line 1 both become the JSON key "true"`},
	{name: "yes", data: "yes: x\n\"true\": y\n",
		want: `line 2: key "true" and key true (a boolean) of line 1 both become the JSON key "true"`},
	{name: "on and true", data: "on: x\ntrue: y\n\"true\": z\n",
		want: `line 3: key "true" and key true (a boolean) of line 1 both become the JSON key "true"`},
	{name: "y", data: "y: x\n\"true\": y\n",
		want: `line 2: key "true" and key true (a boolean) of line 1 both become the JSON key "true"`},
	{name: "NO", data: "NO: x\n\"false\": y\n",
		want: `line 2: key "false" and key false (a boolean) of line 1 both become the JSON key "false"`},
	{name: "off", data: "Off: x\n\"false\": y\n",
		want: `line 2: key "false" and key false (a boolean) of line 1 both become the JSON key "false"`},
	{name: "a null key", data: "a: 1\n~: x\n",
		want: `line 1: key null cannot become a JSON key`},
	{name: "a null and a large integer", data: "18446744073709551615: a\nnull: b\n",
		want: `line 1: key 18446744073709551615 (an integer above 2^63-1) cannot become a JSON key`},
	{name: "a nested mapping", data: "metadata:\n  labels:\n    1: a\n    \"1\": b\n",
		want: `line 4: key "1" and key 1 (an integer) of line 3 both become the JSON key "1"`},
	{name: "a mapping in a sequence", data: "items:\n- 1: a\n  \"1\": b\n",
		want: `line 3: key "1" and key 1 (an integer) of line 2 both become the JSON key "1"`},
	{name: "a flow mapping", data: "labels: {1: a, \"1\": b}\n",
		want: `line 1: key 1 (an integer) and key "1" of line 1 both become the JSON key "1"`},
	{name: "a flow mapping over lines", data: "labels: {\n  \"1\": a,\n  1: b}\n",
		want: `line 3: key 1 (an integer) and key "1" of line 2 both become the JSON key "1"`},
	{name: "pairs in a flow sequence", data: "- [1: a]\n- {\"1\": b, 1.0: c}\n",
		want: `line 2: key 1.0 (a float) and key "1" of line 2 both become the JSON key "1"`},
	{name: "a tag", data: "!!int \"1\": a\n\"1\": b\n",
		want: `line 2: key "1" and key 1 (an integer) of line 1 both become the JSON key "1"`},
	{name: "a binary tag", data: "!!binary MQ==: a\n1: b\n",
		want: `line 2: key 1 (an integer) and key "1" of line 1 both become the JSON key "1"`},
	{name: "an alias key, named at its anchor's line", data: "n: &n 1\nm:\n  *n : a\n  \"1\": b\n",
		want: `line 4: key "1" and key 1 (an integer) of line 1 both become the JSON key "1"`},
	{name: "a complex key", data: "? 1\n: a\n\"1\": b\n",
		want: `line 3: key "1" and key 1 (an integer) of line 1 both become the JSON key "1"`},
	{name: "a merge", data: "base: &b {1: x}\nc:\n  <<: *b\n  \"1\": y\n",
		want: `line 4: key "1" and key 1 (an integer) of line 1 both become the JSON key "1"`},
	{name: "the second document", data: "a: 1\n---\nb: 2\n1: a\n\"1\": b\n",
		want: `line 5: key "1" and key 1 (an integer) of line 4 both become the JSON key "1"`},
	{name: "lines ending in carriage returns", data: "a: x\r1: y\r\"1\": z\r",
		want: `line 3: key "1" and key 1 (an integer) of line 2 both become the JSON key "1"`},
	{name: "the first collision by line", data: "true: a\n1: b\n\"1\": c\n\"true\": d\n",
		want: `line 3: key "1" and key 1 (an integer) of line 2 both become the JSON key "1"`},
}

func TestCheckKeys(t *testing.T) {
	t.Parallel()
	for _, tt := range keysTests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := CheckKeys([]byte(tt.data))
			if tt.want == "" {
				if err != nil {
					t.Fatalf("CheckKeys() = %v, want nil", err)
				}
				return
			}
			if !errors.Is(err, ErrKeys) {
				t.Fatalf("CheckKeys() = %v, want an error wrapping ErrKeys", err)
			}
			if diff := cmp.Diff(ErrKeys.Error()+": "+tt.want, err.Error()); diff != "" {
				t.Errorf("CheckKeys() error (-want +got):\n%s", diff)
			}
		})
	}
}

// TestDocumentsKeys checks that Documents refuses a stream that CheckKeys
// refuses, with its error, after CheckExpansion.
func TestDocumentsKeys(t *testing.T) {
	t.Parallel()
	_, err := Documents([]byte("a: 1\n---\nyes: x\n\"true\": y\n"))
	want := `YAML mapping keys must stay distinct as JSON keys: line 4: key "true" and key true (a boolean) of line 3 both become the JSON key "true"`
	if err == nil || err.Error() != want {
		t.Errorf("Documents() = %v, want %s", err, want)
	}
	// A stream whose aliases expand too far is refused for that, before
	// anything decodes it.
	bomb := "a: &a " + strings.Repeat("x", 10000) + "\nb: [" + strings.Repeat("*a, ", 100) + "]\n1: a\n\"1\": b\n"
	if _, err := Documents([]byte(bomb)); !errors.Is(err, ErrExpansion) {
		t.Errorf("Documents(alias bomb) = %v, want ErrExpansion", err)
	}
}

// preCheckTests are streams for stringKeysOnly: true when the scan alone
// may accept them.
var preCheckTests = []struct {
	name string
	data string
	want bool
}{
	{name: "empty", data: "", want: true},
	{name: "a mapping of strings", data: "a: 1\nb:\n  c: yes\n  d: [x, y]\n  e: {}\n", want: true},
	{name: "a sequence of mappings", data: "- name: a\n  value: 1\n- - name: b\n", want: true},
	{name: "quoted keys", data: "\"1\": a\n'true': b\n\"a: b\": c\n'it''s': d\n", want: true},
	{name: "keys that start like a boolean", data: "name: a\nnamespace: b\ntype: c\nfoo: d\nonly: e\n", want: true},
	{name: "a comment", data: "# 1: a\na: 1 # yes: b\n", want: true},
	{name: "markers", data: "--- # a\na: 1\n...\n---\nb: 2\n", want: true},
	{name: "a byte order mark", data: "\xEF\xBB\xBFa: 1\n", want: true},
	{name: "a CRLF file", data: "a: 1\r\nb: 2\r\n", want: true},
	{name: "a colon inside a key", data: "a:b: 1\nhttp://x: 2\n", want: true},
	{name: "a block scalar", data: "rule: |\n  x == y\n", want: true},
	{name: "non-ASCII", data: "beschreibung: Grüße\nname: 日本\n", want: true},

	{name: "an integer key", data: "1: a\n", want: false},
	{name: "a negative key", data: "-1: a\n", want: false},
	{name: "a float key", data: ".5: a\n", want: false},
	{name: "a boolean key", data: "on: a\n", want: false},
	{name: "a null key", data: "~: a\n", want: false},
	{name: "an empty key", data: ": a\n", want: false},
	{name: "a key after a sequence indicator", data: "- - yes: a\n", want: false},
	{name: "a key after a quoted key", data: "\"a\": 1: b\n", want: false},
	{name: "a key after a marker", data: "--- {1: a}\n", want: false},
	{name: "a flow mapping", data: "a: {b: 1}\n", want: false},
	{name: "a flow sequence over lines", data: "a: [x,\n  y]\n", want: false},
	{name: "a flow sequence with a pair", data: "a: [x: 1]\n", want: false},
	{name: "a flow sequence with a quoted item", data: "a: [\"x]\", y]\n", want: false},
	{name: "a tag", data: "!!str a: b\n", want: false},
	{name: "an anchor", data: "a: &x\n  b: 1\n", want: false},
	{name: "an alias key", data: "*x : a\n", want: false},
	{name: "an explicit key", data: "? a\n: b\n", want: false},
	{name: "carriage returns", data: "a: x\r1: y\r", want: false},
	{name: "a next line break", data: "a: x\u00851: y\n", want: false},
	{name: "a line separator", data: "a: x\u20281: y\n", want: false},
	{name: "UTF-16", data: "\xFF\xFEa\x00:\x00", want: false},
}

func TestStringKeysOnly(t *testing.T) {
	t.Parallel()
	for _, tt := range preCheckTests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := stringKeysOnly([]byte(tt.data)); got != tt.want {
				t.Errorf("stringKeysOnly(%q) = %v, want %v", tt.data, got, tt.want)
			}
		})
	}
}

// decodedDocuments returns what yaml/v2 decodes from data as the module's
// readers do: the first document of the stream, each piece that Documents
// splits it into, and, more than they read, every document of the stream.
func decodedDocuments(data []byte) []any {
	var out []any
	var v any
	if yamlv2.Unmarshal(data, &v) == nil {
		out = append(out, v)
	}
	pieces, _ := splitPieces(data)
	for _, p := range pieces {
		var v any
		if yamlv2.Unmarshal(p.data, &v) == nil {
			out = append(out, v)
		}
	}
	dec := yamlv2.NewDecoder(strings.NewReader(string(data)))
	for {
		var v any
		if dec.Decode(&v) != nil {
			// io.EOF, or an error: the documents before it count.
			break
		}
		out = append(out, v)
	}
	return out
}

// nonStringKey returns a key of v that is not a string, and whether there
// is one.
func nonStringKey(v any) (any, bool) {
	switch v := v.(type) {
	case map[any]any:
		for k, e := range v {
			if _, ok := k.(string); !ok {
				return k, true
			}
			if k, ok := nonStringKey(e); ok {
				return k, true
			}
		}
	case []any:
		for _, e := range v {
			if k, ok := nonStringKey(e); ok {
				return k, true
			}
		}
	}
	return nil, false
}

// FuzzStringKeysOnly checks that the scan never accepts a stream in which
// yaml/v2 decodes a key that is not a string.
func FuzzStringKeysOnly(f *testing.F) {
	for _, tt := range preCheckTests {
		f.Add([]byte(tt.data))
	}
	for _, tt := range keysTests {
		f.Add([]byte(tt.data))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if !stringKeysOnly(data) || CheckExpansion(data) != nil {
			return
		}
		for _, v := range decodedDocuments(data) {
			if k, ok := nonStringKey(v); ok {
				t.Fatalf("stringKeysOnly(%q) = true, but yaml/v2 decodes the key %#v", data, k)
			}
		}
	})
}

// countKeys returns how many keys the mappings of v hold in all.
func countKeys(v any) int {
	n := 0
	switch v := v.(type) {
	case map[any]any:
		for _, e := range v {
			n += 1 + countKeys(e)
		}
	case map[string]any:
		for _, e := range v {
			n += 1 + countKeys(e)
		}
	case []any:
		for _, e := range v {
			n += countKeys(e)
		}
	}
	return n
}

// FuzzCheckKeys checks CheckKeys against sigs.k8s.io/yaml itself: when it
// accepts a stream, YAMLToJSON gives the same output (or error) for each
// document the module's readers decode, on every run, with as many keys as
// yaml/v2 decoded and no key refused (an error for a value JSON cannot
// hold, such as .inf, is no key's); when it refuses one, a document loses
// keys in YAMLToJSON, or YAMLToJSON refuses the document.
func FuzzCheckKeys(f *testing.F) {
	for _, tt := range keysTests {
		f.Add([]byte(tt.data))
	}
	for _, tt := range preCheckTests {
		f.Add([]byte(tt.data))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if CheckExpansion(data) != nil {
			return
		}
		err := CheckKeys(data)
		if err != nil && !errors.Is(err, ErrKeys) {
			t.Fatalf("CheckKeys(%q) = %v, want nil or ErrKeys", data, err)
		}
		docs := [][]byte{data}
		pieces, splitErr := splitPieces(data)
		if splitErr != nil {
			return // Documents refuses the stream
		}
		for _, p := range pieces {
			docs = append(docs, p.data)
		}
		justified := false
		for _, doc := range docs {
			var v any
			if yamlv2.Unmarshal(doc, &v) != nil {
				continue
			}
			j, jerr := yaml.YAMLToJSON(doc)
			// keyLost: YAMLToJSON refuses a key, or its JSON has fewer keys
			// than yaml/v2 decoded.
			keyLost := false
			switch {
			case jerr != nil && strings.Contains(jerr.Error(), "unsupported map key"):
				keyLost = true
			case jerr != nil:
				// Another error, such as a value JSON cannot hold (.inf,
				// .nan): the readers refuse the document anyway, and it
				// may hide a key that collides, so a refusal stands.
				justified = true
			default:
				var back any
				if json.Unmarshal(j, &back) == nil && countKeys(back) < countKeys(v) {
					keyLost = true
				}
			}
			justified = justified || keyLost
			if err != nil {
				continue
			}
			for range 20 {
				j2, jerr2 := yaml.YAMLToJSON(doc)
				if string(j2) != string(j) || errString(jerr2) != errString(jerr) {
					t.Fatalf("CheckKeys(%q) = nil, but YAMLToJSON(%q) gives %q (%v), then %q (%v)", data, doc, j, jerr, j2, jerr2)
				}
			}
			if keyLost {
				t.Fatalf("CheckKeys(%q) = nil, but YAMLToJSON(%q) loses or refuses a key: %q, %v", data, doc, j, jerr)
			}
		}
		if err != nil && !justified {
			t.Fatalf("CheckKeys(%q) = %v, but YAMLToJSON keeps every key of every document", data, err)
		}
	})
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
