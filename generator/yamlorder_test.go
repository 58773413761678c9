package generator

import (
	"context"
	"fmt"
	"testing"
	"unicode/utf8"

	yamlv2 "go.yaml.in/yaml/v2"
	"sigs.k8s.io/yaml"
)

// TestEncodeMergedAsSigsYAML: for maps whose keys yaml/v2 orders
// consistently, encodeMerged writes the bytes of sigs.k8s.io/yaml.Marshal,
// which source-watcher writes a merged file with.
func TestEncodeMergedAsSigsYAML(t *testing.T) {
	t.Parallel()
	for _, src := range []string{
		"{}",
		"a: {}\nb: []\nc: null\nd: ''\n",
		"z: 1\na: 2.5\nm: [1, {y: 1, b: 2}, [x]]\n",
		"a10: 1\na9: 2\na1: 3\nA: 4\n_: 5\n\"1\": 6\n\"\": 7\n",
		"nested:\n  deeper:\n    k2: v\n    k10: v\n    k1: v\n",
		"s: \"yes\"\nn: \"007\"\nt: \"true\"\nml: \"line1\\nline2\\n\"\n",
		"ü: 1\nä: 2\n日本: 3\nx-1: 4\nx_1: 5\nx.1: 6\n",
	} {
		var m map[string]any
		if err := yaml.Unmarshal([]byte(src), &m); err != nil {
			t.Fatalf("%q: %v", src, err)
		}
		want, err := yaml.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		got, err := encodeMerged(context.Background(), m)
		if err != nil {
			t.Fatalf("%q: %v", src, err)
		}
		if string(got) != string(want) {
			t.Errorf("%q: encodeMerged =\n%s\nsigs.k8s.io/yaml.Marshal =\n%s", src, got, want)
		}
	}
}

// TestEncodeMergedDeterministic: keys that yaml/v2 cannot order
// consistently (8 < 11 < 1A < 8) come out the same way every time.
func TestEncodeMergedDeterministic(t *testing.T) {
	t.Parallel()
	m := map[string]any{"8": nil, "11": nil, "1A": 0, "79:bY002": nil, "b9": nil, "true": nil}
	first, err := encodeMerged(context.Background(), m)
	if err != nil {
		t.Fatal(err)
	}
	for range 100 {
		got, err := encodeMerged(context.Background(), m)
		if err != nil || string(got) != string(first) {
			t.Fatalf("encodeMerged gave %q, then %q (%v)", first, got, err)
		}
	}
}

// yamlv2Before reports how yaml/v2 orders the keys a and b when it encodes
// a map that holds both: -1 when a comes first every time, 1 when b does,
// 0 when it varies (neither sorts before the other).
func yamlv2Before(t testing.TB, a, b string) int {
	seen := map[bool]bool{}
	for range 16 {
		out, err := yamlv2.Marshal(map[string]int{a: 0, b: 1})
		if err != nil {
			t.Fatal(err)
		}
		var back yamlv2.MapSlice
		if err := yamlv2.Unmarshal(out, &back); err != nil || len(back) != 2 {
			t.Fatalf("decoding %q: %v", out, err)
		}
		seen[fmt.Sprint(back[0].Key) == a] = true
	}
	switch {
	case seen[true] && seen[false]:
		return 0
	case seen[true]:
		return -1
	}
	return 1
}

var naturalPairs = [][2]string{
	{"a", "b"}, {"a9", "a10"}, {"8", "11"}, {"11", "1A"}, {"1A", "8"},
	{"a", "A"}, {"_", "a"}, {"-", "0"}, {"01", "1"}, {"a01", "a1"}, {"x0", "x00"},
	{"", "a"}, {"ü", "z"}, {"日本", "1"}, {"9223372036854775807", "9223372036854775808"},
	{"a.b", "a-b"}, {"a/1", "a/01"}, {"0", "00"},
}

// TestNaturalLessAsYAMLv2 compares naturalLess with yaml/v2's own order.
func TestNaturalLessAsYAMLv2(t *testing.T) {
	t.Parallel()
	for _, p := range naturalPairs {
		checkNaturalLess(t, p[0], p[1])
	}
}

func checkNaturalLess(t *testing.T, a, b string) {
	t.Helper()
	want := yamlv2Before(t, a, b)
	got := 0
	switch {
	case naturalLess(a, b) && !naturalLess(b, a):
		got = -1
	case naturalLess(b, a) && !naturalLess(a, b):
		got = 1
	}
	if got != want {
		t.Errorf("naturalLess(%q, %q) = %v, naturalLess(%q, %q) = %v; yaml/v2 orders them %d", a, b, naturalLess(a, b), b, a, naturalLess(b, a), want)
	}
}

func FuzzNaturalLess(f *testing.F) {
	for _, p := range naturalPairs {
		f.Add(p[0], p[1])
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		// JSON's keys, the only ones naturalLess orders, are valid UTF-8.
		if a == b || !utf8.ValidString(a) || !utf8.ValidString(b) {
			return
		}
		checkNaturalLess(t, a, b)
	})
}
