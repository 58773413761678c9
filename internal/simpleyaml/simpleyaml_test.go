package simpleyaml

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	yamlv2 "go.yaml.in/yaml/v2"
	"sigs.k8s.io/yaml"
)

// accepted are files that Parse reads, with their JSON.
var accepted = []struct{ data, json string }{
	{"replicas: 3\ndependsOn: []\nimage:\n  repository: ghcr.io/example/payments-api\n  tag: \"1.8.2\"\n",
		`{"dependsOn":[],"image":{"repository":"ghcr.io/example/payments-api","tag":"1.8.2"},"replicas":3}`},
	{"replicas: 2\ndependsOn:\n  - api\n", `{"dependsOn":["api"],"replicas":2}`},
	{"schedule: \"*/15 * * * *\"", `{"schedule":"*/15 * * * *"}`},
	{"list:\n- a\n-   b c\n- 'd'\n- -12\nnext: 0\n", `{"list":["a","b c","d",-12],"next":0}`},
	{"# a comment\n\na: x # trailing\n   # indented comment\nb: \"y\"   # after a quote\nc: {}\n",
		`{"a":"x","b":"y","c":{}}`},
	{"a: yes\nb: No\nc: on\nd: OFF\ne: null\nf: y\ng: TRUE\n",
		`{"a":true,"b":false,"c":true,"d":false,"e":null,"f":true,"g":true}`},
	{"a: yesterday\nb: nothing\nc: ony\nd: inf\ne: nan\n",
		`{"a":"yesterday","b":"nothing","c":"ony","d":"inf","e":"nan"}`},
	{"z:\n  w:\n    x: 1\n    a: 2\n  b: [] # empty\nm: 'it is'\n",
		`{"m":"it is","z":{"b":[],"w":{"a":2,"x":1}}}`},
	{"url: https://example.com:8443/a.b\nemail: team@example.com\nspaced: a  b\n",
		`{"email":"team@example.com","spaced":"a  b","url":"https://example.com:8443/a.b"}`},
	{"a.b/c-d_e: \"\"\nA: '#not a comment'\nB: ';'\n", `{"A":"#not a comment","B":";","a.b/c-d_e":""}`},
	{"max: 999999999999999999\nmin: -999999999999999999\n", `{"max":999999999999999999,"min":-999999999999999999}`},
	{"seq:\n  - a\n  - b\nafter: 1", `{"after":1,"seq":["a","b"]}`},
	{"apiVersion: source.extensions.fluxcd.io/v1beta1\nkind: NamespaceMetadata\nmetadata:\n  labels:\n    team: payments\n  annotations:\n    my.org.io/observability: Enabled\n",
		`{"apiVersion":"source.extensions.fluxcd.io/v1beta1","kind":"NamespaceMetadata","metadata":{"annotations":{"my.org.io/observability":"Enabled"},"labels":{"team":"payments"}}}`},
	{nested(MaxDepth), strings.Repeat(`{"k":`, MaxDepth) + `{"v":1}` + strings.Repeat("}", MaxDepth)},
}

// refused are files that Parse leaves to the decoders; most are valid YAML.
var refused = []string{
	"", "# only a comment\n", "{}", `{"a": 1}`, "---\na: 1\n", "a: 1\n...\n", "%YAML 1.1\n---\na: 1\n",
	"a:\tb\n", "a: b\r\n", " a: 1\n", "a: 1\nb\n", "a:\n", "a:\nb: 1\n", "a: 1\na: 2\n",
	"yes: 1\n", "y: 1\n", "1: a\n", "\"a\": 1\n", "a b: 1\n", "a:b\n", "-a: 1\n", "_a: 1\n",
	"a: 1.5\n", "a: 1e3\n", "a: 0x10\n", "a: 010\n", "a: -0\n", "a: +1\n", "a: 1_000\n",
	"a: 1234567890123456789\n", "a: 2001-12-14\n", "a: 1.2.0\n", "a: .inf\n", "a: ~\n",
	"a: &x b\nc: *x\n", "a: !!str 1\n", "a: |\n  text\n", "a: >\n  text\n", "a: [1, 2]\n", "a: {b: c}\n",
	"a: \"x\\ty\"\n", "a: \"<b>\"\n", "a: 'x''y'\n", "a: '\"'\n", "a: \"open\n", "a: \"x\"y\n", "a: []#c\n",
	"a: b: c\n", "a: b:\n", "a: b #c\n  d\n", "a: b\n  c\n", "a: x\xff\n", "a: é\n", "a: x#y\n", "a: @x\n",
	"a: 0 #\x12\n", "a: 1 # caf\xc3\xa9\n", "a: x\x7f\n",
	"a:\n  b: 1\n c: 2\n", "a:\n  - x\n  b: 1\n", "a:\n  - x\n   - y\n", "a:\n- x\n -y\n", "a:\n  -\n", "a:\n  - - x\n",
	"a:\n  - b: 1\n", "- a\n", "a: 1\n- b\n", "k" + strings.Repeat("x", 128) + ": 1\n",
	nested(MaxDepth + 1),
}

// nested returns a file whose innermost mapping is depth levels below its
// top.
func nested(depth int) string {
	var b strings.Builder
	for i := range depth {
		b.WriteString(strings.Repeat(" ", i) + "k:\n")
	}
	b.WriteString(strings.Repeat(" ", depth) + "v: 1\n")
	return b.String()
}

func TestParse(t *testing.T) {
	for _, tt := range accepted {
		n, ok := Parse([]byte(tt.data))
		if !ok {
			t.Errorf("Parse(%q) refused it; want %s", tt.data, tt.json)
			continue
		}
		if got := string(n.AppendJSON(nil)); got != tt.json {
			t.Errorf("Parse(%q) = %s; want %s", tt.data, got, tt.json)
		}
		checkDecoders(t, []byte(tt.data), n)
	}
	for _, data := range refused {
		if n, ok := Parse([]byte(data)); ok {
			t.Errorf("Parse(%q) = %s; want it left to the decoders", data, n.AppendJSON(nil))
		}
	}
}

// TestParseManyKeys checks a mapping of 20,000 keys, with and without a
// key given twice, far apart and in a nested mapping.
func TestParseManyKeys(t *testing.T) {
	var b strings.Builder
	for i := range 20000 {
		fmt.Fprintf(&b, "k%05d: %d\n", i, i)
	}
	keys := b.String()
	if n, ok := Parse([]byte(keys)); !ok || len(n.Entries) != 20000 || string(n.Entries[19999].Key) != "k19999" {
		t.Fatalf("Parse(20,000 keys) = %d entries, %t; want 20,000, sorted", len(n.Entries), ok)
	}
	for _, data := range []string{keys + "k00000: 0\n", "nested:\n" + strings.ReplaceAll(keys, "k", "  k") + "  k10000: 1\n"} {
		if _, ok := Parse([]byte(data)); ok {
			t.Errorf("Parse accepted %d bytes with a key given twice", len(data))
		}
	}
}

// checkDecoders fails unless n, Parse's result for data, is what
// go.yaml.in/yaml/v2 decodes (Any) and what sigs.k8s.io/yaml writes as
// JSON (AppendJSON), both in strict mode, as the module reads files.
func checkDecoders(t *testing.T, data []byte, n Node) {
	t.Helper()
	var want any
	if err := yamlv2.UnmarshalStrict(data, &want); err != nil {
		t.Fatalf("Parse(%q) accepted it, go.yaml.in/yaml/v2 refused it: %v", data, err)
	}
	if got := n.Any(); !reflect.DeepEqual(got, want) {
		t.Fatalf("Parse(%q).Any() = %#v; go.yaml.in/yaml/v2 decodes %#v", data, got, want)
	}
	js, err := yaml.YAMLToJSONStrict(data)
	if err != nil {
		t.Fatalf("Parse(%q) accepted it, sigs.k8s.io/yaml refused it: %v", data, err)
	}
	if got := n.AppendJSON(nil); !bytes.Equal(got, js) {
		t.Fatalf("Parse(%q) writes %s; sigs.k8s.io/yaml writes %s", data, got, js)
	}
}

// TestParseGenerated compares Parse with the decoders on files generated
// from the shapes it reads, with keys, scalars and indents chosen among
// those either side of its rules.
func TestParseGenerated(t *testing.T) {
	// The first of each pair is read by Parse, the second, one in
	// eight, mostly not.
	keys := [2][]string{
		{"a", "b", "key", "k-1", "a.b", "a/b", "x_y", "A", "e"},
		{"y", "n", "on", "No", "1", "a b", "é", "-a", "a:b"},
	}
	scalars := [2][]string{{
		"a", "b c", "a  b", "x:y", "ghcr.io/org/app:1.2", "a@b", "e3", "E", "nan", "inf",
		"1", "-1", "0", "999999999999999999", "true", "y", "Yes", "off", "OFF", "null", "Null", "yes please",
		"''", `""`, `'a"b'`, `"a'b"`, `"#x"`, `"x" # c`, "a #c", "[]", "{}", "'*/15 * * * *'",
	}, {
		"x: y", "x:", "-0", "01", "1.5", ".5", "1e3", "1_0", "2001-12-14", "0x1f", "~", "a#c",
		`"a\tb"`, `"<x>"`, "'it''s'", "[ ]", "[a]", "{a: b}", "&x a", "*x", "!!str a", "|", "- a",
	}}
	rng := rand.New(rand.NewPCG(1, 2))
	pick := func(s [2][]string) string {
		l := s[0]
		if rng.IntN(8) == 0 {
			l = s[1]
		}
		return l[rng.IntN(len(l))]
	}
	var gen func(b *strings.Builder, indent, depth int)
	gen = func(b *strings.Builder, indent, depth int) {
		for range 1 + rng.IntN(4) {
			if rng.IntN(8) == 0 {
				b.WriteString(strings.Repeat(" ", rng.IntN(4)) + "# comment\n")
			}
			b.WriteString(strings.Repeat(" ", indent) + pick(keys) + ":")
			switch r := rng.IntN(10); {
			case r < 6 || depth >= 3:
				b.WriteString(" " + pick(scalars))
				if rng.IntN(6) == 0 {
					b.WriteString("  # trailing")
				}
				b.WriteString("\n")
			case r < 8:
				b.WriteString("\n")
				gen(b, indent+1+rng.IntN(3), depth+1)
			default:
				b.WriteString("\n")
				item := indent + rng.IntN(3)
				for range 1 + rng.IntN(3) {
					b.WriteString(strings.Repeat(" ", item) + "- " + pick(scalars) + "\n")
				}
			}
		}
	}
	const files = 20000
	n := 0
	for range files {
		var b strings.Builder
		gen(&b, 0, 0)
		data := []byte(b.String())
		if node, ok := Parse(data); ok {
			n++
			checkDecoders(t, data, node)
		}
	}
	// The generator is meant to produce both; a change that made Parse
	// refuse nearly everything would pass the loop above.
	if n < files/10 || n > files*9/10 {
		t.Fatalf("Parse accepted %d of %d generated files", n, files)
	}
	t.Logf("Parse accepted %d of %d generated files", n, files)
}

// FuzzParse checks that Parse, on every file it accepts, gives the
// decoders' results exactly.
func FuzzParse(f *testing.F) {
	for _, tt := range accepted {
		f.Add([]byte(tt.data))
	}
	for _, s := range refused {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if n, ok := Parse(data); ok {
			checkDecoders(t, data, n)
		}
	})
}
