package nsmeta

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/opencontainers/go-digest"
)

var updateVectors = flag.Bool("update-vectors", false, "rewrite testdata/digest-vectors.json from referenceDigest")

// referenceDigest is source-watcher v2.3's namespace metadata digest
// written out from its definition, apart from Digest: every label as
// "label:" + key + "=" + value, every annotation as "annotation:" + key +
// "=" + value, sorted by sort.Strings, joined with "|", SHA-256, written
// "sha256:" and lower-case hex.
func referenceDigest(labels, annotations map[string]string) string {
	var entries []string
	for k, v := range labels {
		entries = append(entries, fmt.Sprintf("label:%s=%s", k, v))
	}
	for k, v := range annotations {
		entries = append(entries, fmt.Sprintf("annotation:%s=%s", k, v))
	}
	sort.Strings(entries)
	var b bytes.Buffer
	for i, e := range entries {
		if i > 0 {
			b.WriteByte('|')
		}
		b.WriteString(e)
	}
	return fmt.Sprintf("sha256:%x", sha256.Sum256(b.Bytes()))
}

// digestVector is one entry of testdata/digest-vectors.json. A null map is
// a nil map, {} an empty one.
type digestVector struct {
	Name        string            `json:"name"`
	Labels      map[string]string `json:"labels"`
	Annotations map[string]string `json:"annotations"`
	Digest      digest.Digest     `json:"digest"`
}

// digestVectorInputs are the metadata of testdata/digest-vectors.json; go
// test -run TestDigestVectors -update-vectors writes the file from them
// with referenceDigest.
var digestVectorInputs = []digestVector{
	{Name: "empty: nil maps"},
	{Name: "empty: empty maps", Labels: kv{}, Annotations: kv{}},
	{Name: "empty: nil labels, empty annotations", Annotations: kv{}},
	{Name: "one label", Labels: kv{"team": "payments"}},
	{Name: "one annotation", Annotations: kv{"my.org.io/observability": "Enabled"}},
	{Name: "a label and an annotation with the same key", Labels: kv{"a": "1"}, Annotations: kv{"a": "1"}},
	{Name: "an empty value", Labels: kv{"a": ""}, Annotations: kv{"b": ""}},
	{
		// The entries sort as whole strings: "label:a.b=1" before "label:a=z",
		// '.' being below '='.
		Name:   "entries sort as whole strings, not by key",
		Labels: kv{"a": "z", "a.b": "1", "a-b": "2", "a_b": "3", "B": "upper", "app.kubernetes.io/name": "x", "tier": "gold"},
	},
	{
		Name:        "separators in keys and values",
		Labels:      kv{"k": "v=w"},
		Annotations: kv{"x=y": "1|2:3", "a:b": "=|=", "p|q": ""},
	},
	{
		// Byte order: U+FB33 (EF AC B3) sorts before U+1F600 (F0 9F 98 80).
		Name:        "non-ASCII keys and values",
		Labels:      kv{"team": "payments"},
		Annotations: kv{"example.com/owner": "ñandú 日本語 😀", "example.com/note": "Grüße, ☃", "\uFB33": "x", "\U0001F600": "y", "é": "ü"},
	},
	{Name: "control characters", Annotations: kv{"a": "line\nnext\ttab\r\x00\x7f"}},
	{
		Name:        "several of each",
		Labels:      kv{"l0": "v0", "l1": "v1", "l2": "v2", "l3": "v3", "l4": "v4", "l5": "v5", "l6": "v6", "l7": "v7", "l8": "v8", "l9": "v9"},
		Annotations: kv{"a0": "w0", "a1": "w1", "a2": "w2", "a3": "w3", "a4": "w4", "a5": "w5", "a6": "w6", "a7": "w7", "a8": "w8", "a9": "w9"},
	},
	// The collisions of TestDigestCollisions, pinned.
	{Name: "collision: one label hiding a second", Labels: kv{"a": "b|label:c=d"}},
	{Name: "collision: two labels", Labels: kv{"a": "b", "c": "d"}},
	{Name: "collision: one annotation hiding a label", Annotations: kv{"a": "b|label:c=d"}},
	{Name: "collision: an annotation and a label", Labels: kv{"c": "d"}, Annotations: kv{"a": "b"}},
}

// TestDigestVectors checks Digest and referenceDigest against the pinned
// vectors, and the vectors against the inputs above.
func TestDigestVectors(t *testing.T) {
	if *updateVectors {
		out := slices.Clone(digestVectorInputs)
		for i := range out {
			out[i].Digest = digest.Digest(referenceDigest(out[i].Labels, out[i].Annotations))
		}
		data, err := json.MarshalIndent(out, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile("testdata/digest-vectors.json", append(data, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	data, err := os.ReadFile("testdata/digest-vectors.json")
	if err != nil {
		t.Fatal(err)
	}
	var vectors []digestVector
	if err := json.Unmarshal(data, &vectors); err != nil {
		t.Fatal(err)
	}
	inputs := slices.Clone(digestVectorInputs)
	got := slices.Clone(vectors)
	for i := range got {
		got[i].Digest = ""
	}
	if diff := cmp.Diff(inputs, got); diff != "" {
		t.Fatalf("testdata/digest-vectors.json does not hold digestVectorInputs (-want +got); run with -update-vectors:\n%s", diff)
	}
	for _, v := range vectors {
		t.Run(v.Name, func(t *testing.T) {
			m := Metadata{Labels: v.Labels, Annotations: v.Annotations}
			if got := Digest(m); got != v.Digest {
				t.Errorf("Digest() = %s, want %s", got, v.Digest)
			}
			if got := referenceDigest(v.Labels, v.Annotations); got != string(v.Digest) {
				t.Errorf("referenceDigest() = %s, want %s", got, v.Digest)
			}
			if err := v.Digest.Validate(); err != nil {
				t.Errorf("Validate() = %v", err)
			}
		})
	}
}

// TestDigest pins digests computed outside Go, with
//
//	printf '%s' 'label:team=payments' | sha256sum
//
// and checks what the definition implies.
func TestDigest(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		m    Metadata
		want digest.Digest
	}{
		{name: "nothing hashes no byte", m: Metadata{},
			want: "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
		{name: "label:team=payments", m: Metadata{Labels: kv{"team": "payments"}},
			want: "sha256:1a13d634a5c0f4515038906205d29480f16ccdda986dc5839235a6ba542260e8"},
		{name: "label:a=b|label:c=d", m: Metadata{Labels: kv{"c": "d", "a": "b"}},
			want: "sha256:e20a639f71eefc46c8acef7138e215adb7b6729c4500d308bac8752e9e602077"},
		{name: "annotation:a=1|label:a=1", m: Metadata{Labels: kv{"a": "1"}, Annotations: kv{"a": "1"}},
			want: "sha256:92e171d23e701a5fc123428364eee02cf727381ff8e4d1cb111a395d7513befb"},
		// Invalid UTF-8 is hashed as its bytes, as fmt's %s writes it
		// upstream; JSON cannot carry it, so it is pinned here.
		{name: "invalid UTF-8", m: Metadata{Labels: kv{"k": "\xff"}, Annotations: kv{"\xed\xa0\x80": "\xc0"}},
			want: digest.FromString("annotation:\xed\xa0\x80=\xc0|label:k=\xff")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := Digest(tc.m); got != tc.want {
				t.Errorf("Digest() = %s, want %s", got, tc.want)
			}
			if got := referenceDigest(tc.m.Labels, tc.m.Annotations); got != string(tc.want) {
				t.Errorf("referenceDigest() = %s, want %s", got, tc.want)
			}
		})
	}
	if Digest(Metadata{Labels: kv{"k": "\xff"}}) == Digest(Metadata{Labels: kv{"k": "\ufffd"}}) {
		t.Error("invalid UTF-8 and U+FFFD digest the same")
	}
	if Digest(Metadata{Labels: kv{"a": "b"}}) == Digest(Metadata{Annotations: kv{"a": "b"}}) {
		t.Error("a label and an annotation with the same key and value digest the same")
	}
}

// TestDigestCollisions checks that metadata whose entries contain the
// separators can share a digest: the definition escapes nothing. This is
// source-watcher's digest, kept byte for byte so that its inventories read
// back unchanged; a digest that stays the same therefore does not prove
// that the metadata did, and package generator compares the live metadata
// with the desired one to find what a digest misses.
func TestDigestCollisions(t *testing.T) {
	t.Parallel()
	for _, pair := range [][2]Metadata{
		// "label:a=b|label:c=d" both.
		{{Labels: kv{"a": "b|label:c=d"}}, {Labels: kv{"a": "b", "c": "d"}}},
		// "annotation:a=b|label:c=d" both.
		{{Annotations: kv{"a": "b|label:c=d"}}, {Labels: kv{"c": "d"}, Annotations: kv{"a": "b"}}},
		// "label:a=b=c" both: the first "=" is not the separator.
		{{Labels: kv{"a": "b=c"}}, {Labels: kv{"a=b": "c"}}},
	} {
		if Digest(pair[0]) != Digest(pair[1]) {
			t.Errorf("Digest(%v) = %s and Digest(%v) = %s; the definition makes them equal", pair[0], Digest(pair[0]), pair[1], Digest(pair[1]))
		}
	}
}

// digestSeeds seed FuzzDigest: two keys, two values, and how many more
// keys to add.
var digestSeeds = []struct {
	k1, v1, k2, v2 string
	more           int
}{
	{"team", "payments", "my.org.io/owner", "platform", 0},
	{"a", "b|label:c=d", "c", "d", 0},
	{"a\x00\"\\", "\u2028\x7f\xff", "\U0001F600", "\uFB33", 3},
	{"\uFB33", "x", "\U0001F600", "y", 40},
	{"", "", "\xc0", "\xe2\x82", 17},
	{"=", "|", ":", "label:", 2},
}

// FuzzDigest checks Digest against referenceDigest on fuzzed keys and
// values, and that the same metadata built in two orders gives the same
// digest.
func FuzzDigest(f *testing.F) {
	for _, s := range digestSeeds {
		f.Add(s.k1, s.v1, s.k2, s.v2, s.more)
	}
	f.Fuzz(func(t *testing.T, k1, v1, k2, v2 string, more int) {
		type entry struct {
			label bool
			k, v  string
		}
		entries := []entry{{true, k1, v1}, {true, k2, v2}, {false, k2, v1}, {false, v2, k1}}
		for i := range min(max(more, 0), 64) {
			entries = append(entries, entry{true, fmt.Sprintf("%s%d", k1, i), v2}, entry{false, fmt.Sprintf("%d%s", i, k2), v1})
		}
		// build adds the entries in the order of seq; a key that repeats
		// keeps the value of its last entry in entries, whichever the order.
		build := func(seq func(func(int, entry) bool)) Metadata {
			m := Metadata{Labels: map[string]string{}, Annotations: map[string]string{}}
			last := map[entry]int{}
			for i, e := range entries {
				last[entry{e.label, e.k, ""}] = i
			}
			for i, e := range seq {
				if last[entry{e.label, e.k, ""}] != i {
					continue
				}
				if e.label {
					m.Labels[e.k] = e.v
				} else {
					m.Annotations[e.k] = e.v
				}
			}
			return m
		}
		forward, reversed := build(slices.All(entries)), build(slices.Backward(entries))
		got := Digest(forward)
		if want := referenceDigest(forward.Labels, forward.Annotations); string(got) != want {
			t.Fatalf("Digest() = %s, referenceDigest() = %s", got, want)
		}
		if again := Digest(reversed); again != got {
			t.Fatalf("Digest() = %s built forward, %s built backward", got, again)
		}
		if err := got.Validate(); err != nil {
			t.Fatalf("Validate() = %v", err)
		}
	})
}

// TestDigestMapOrder checks that the digest does not depend on map order,
// which differs between maps built in different orders and between runs.
func TestDigestMapOrder(t *testing.T) {
	t.Parallel()
	keys := make([]string, 64)
	for i := range keys {
		keys[i] = fmt.Sprintf("k%02d", i)
	}
	build := func(order []string) Metadata {
		m := Metadata{Labels: map[string]string{}, Annotations: map[string]string{}}
		for _, k := range order {
			m.Labels[k], m.Annotations[k] = "v"+k, "w"+k
		}
		return m
	}
	want := Digest(build(keys))
	reversed := slices.Clone(keys)
	slices.Reverse(reversed)
	for range 10 {
		if got := Digest(build(reversed)); got != want {
			t.Fatalf("Digest() = %s, want %s", got, want)
		}
	}
	if !strings.HasPrefix(string(want), "sha256:") || want.Algorithm() != digest.SHA256 {
		t.Errorf("Digest() = %s, want a sha256 digest", want)
	}
}

func BenchmarkDigest(b *testing.B) {
	for _, n := range []int{0, 10, 100} {
		m := Metadata{Labels: map[string]string{}, Annotations: map[string]string{}}
		for i := range n {
			m.Labels[fmt.Sprintf("example.com/label-%d", i)] = fmt.Sprintf("value-%d", i)
			m.Annotations[fmt.Sprintf("example.com/annotation-%d", i)] = fmt.Sprintf("a longer annotation value, number %d", i)
		}
		b.Run(fmt.Sprintf("keys=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = Digest(m)
			}
		})
	}
}
