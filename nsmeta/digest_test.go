package nsmeta

import (
	"encoding/json"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/opencontainers/go-digest"
)

// digestVector is one entry of testdata/digest-vectors.json, which
// testdata/digest-vectors.js generates with ECMAScript's JSON.stringify.
type digestVector struct {
	Name      string        `json:"name"`
	Metadata  Metadata      `json:"metadata"`
	Canonical string        `json:"canonical"`
	Digest    digest.Digest `json:"digest"`
}

func TestDigestVectors(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("testdata/digest-vectors.json")
	if err != nil {
		t.Fatal(err)
	}
	var vectors []digestVector
	if err := json.Unmarshal(data, &vectors); err != nil {
		t.Fatal(err)
	}
	if len(vectors) < 8 {
		t.Fatalf("read %d vectors, want at least 8", len(vectors))
	}
	for _, v := range vectors {
		t.Run(v.Name, func(t *testing.T) {
			t.Parallel()
			if got := string(appendCanonical(nil, v.Metadata)); got != v.Canonical {
				t.Errorf("canonical form:\n got %s\nwant %s", got, v.Canonical)
			}
			if got := Digest(v.Metadata); got != v.Digest {
				t.Errorf("Digest() = %s, want %s", got, v.Digest)
			}
			if err := Digest(v.Metadata).Validate(); err != nil {
				t.Errorf("Digest().Validate() = %v", err)
			}
		})
	}
}

func TestDigest(t *testing.T) {
	t.Parallel()
	const empty = digest.Digest("sha256:880c4a6272dc957686298143a2d40b1cdf759f0a20b039bc6408a9661c88e843")
	tests := []struct {
		name      string
		m         Metadata
		canonical string
		same      Metadata // has the same digest as m
	}{
		{
			name:      "nil and empty maps",
			m:         Metadata{},
			canonical: `{"annotations":{},"labels":{}}`,
			same:      Metadata{Labels: map[string]string{}, Annotations: map[string]string{}},
		},
		{
			name:      "invalid UTF-8 is written as U+FFFD, one per byte",
			m:         Metadata{Annotations: map[string]string{"a": "x\xffy\xe2\x82"}},
			canonical: "{\"annotations\":{\"a\":\"x\uFFFDy\uFFFD\uFFFD\"},\"labels\":{}}",
			same:      Metadata{Annotations: map[string]string{"a": "x\uFFFDy\uFFFD\uFFFD"}},
		},
		{
			name:      "a surrogate encoded in UTF-8 is invalid",
			m:         Metadata{Labels: map[string]string{"\xed\xa0\x80": ""}},
			canonical: "{\"annotations\":{},\"labels\":{\"\uFFFD\uFFFD\uFFFD\":\"\"}}",
			same:      Metadata{Labels: map[string]string{"\uFFFD\uFFFD\uFFFD": ""}},
		},
		{
			name:      "labels and annotations are not interchangeable",
			m:         Metadata{Labels: map[string]string{"a": "b"}},
			canonical: `{"annotations":{},"labels":{"a":"b"}}`,
			same:      Metadata{Labels: map[string]string{"a": "b"}, Annotations: nil},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := string(appendCanonical(nil, tc.m)); got != tc.canonical {
				t.Errorf("canonical form:\n got %s\nwant %s", got, tc.canonical)
			}
			if Digest(tc.m) != Digest(tc.same) {
				t.Errorf("Digest(%v) = %s, Digest(%v) = %s, want equal", tc.m, Digest(tc.m), tc.same, Digest(tc.same))
			}
		})
	}
	if got := Digest(Metadata{}); got != empty {
		t.Errorf("Digest(Metadata{}) = %s, want %s", got, empty)
	}
	swapped := Metadata{Annotations: map[string]string{"a": "b"}}
	if Digest(swapped) == Digest(Metadata{Labels: map[string]string{"a": "b"}}) {
		t.Error("a label and an annotation with the same key and value have the same digest")
	}
}

// referenceCompare orders a and b as RFC 8785 does, the slow and obvious way:
// by the UTF-16 code units of their U+FFFD-coerced form, then by bytes.
func referenceCompare(a, b string) int {
	units := func(s string) []uint16 { return utf16.Encode([]rune(s)) }
	if c := slices.Compare(units(a), units(b)); c != 0 {
		return c
	}
	return strings.Compare(a, b)
}

func TestCompareUTF16(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		a, b string
		want int
	}{
		{name: "equal", a: "team", b: "team", want: 0},
		{name: "prefix", a: "a", b: "ab", want: -1},
		{name: "ASCII", a: "B", b: "a", want: -1},
		{name: "supplementary before high BMP", a: "\U0001F600", b: "\uFB33", want: -1},
		{name: "supplementary after low BMP", a: "\U0001F600", b: "\u20AC", want: 1},
		{name: "two supplementary", a: "\U0001F600", b: "\U0001F601", want: -1},
		{name: "difference inside a character", a: "x\u00e9", b: "x\u00e8", want: 1},
		{name: "invalid byte compares as U+FFFD", a: "\xff", b: "\uFFFE", want: -1},
		{name: "invalid byte and U+FFFD tie, then bytes", a: "\xff", b: "\uFFFD", want: 1},
		{name: "stray continuation bytes", a: "a\x80\x80b", b: "a\x80\x80c", want: -1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := compareUTF16(tc.a, tc.b); got != tc.want {
				t.Errorf("compareUTF16(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
			}
			if got := compareUTF16(tc.b, tc.a); got != -tc.want {
				t.Errorf("compareUTF16(%q, %q) = %d, want %d", tc.b, tc.a, got, -tc.want)
			}
			if got := referenceCompare(tc.a, tc.b); got != tc.want {
				t.Errorf("referenceCompare(%q, %q) = %d, want %d (bad test case)", tc.a, tc.b, got, tc.want)
			}
		})
	}
}

// TestCompareUTF16Random checks compareUTF16 against referenceCompare on
// random strings drawn from the characters where the orders differ.
func TestCompareUTF16Random(t *testing.T) {
	t.Parallel()
	pieces := []string{"a", "b", "\u00e9", "\u20ac", "\uFB33", "\uFFFD", "\U0001F600", "\U0001F601", "\U00010000", "\xff", "\x80", "\xe2\x82", "\xf0\x9f"}
	r := rand.New(rand.NewPCG(1, 2))
	random := func() string {
		var b strings.Builder
		for range r.IntN(4) {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		return b.String()
	}
	for range 5000 {
		a, b := random(), random()
		if got, want := compareUTF16(a, b), referenceCompare(a, b); got != want {
			t.Fatalf("compareUTF16(%q, %q) = %d, want %d", a, b, got, want)
		}
	}
}

// TestAppendString checks the escaping of every ASCII character and a few
// others against the rules of RFC 8785, written out independently.
func TestAppendString(t *testing.T) {
	t.Parallel()
	short := map[rune]string{'\b': `\b`, '\t': `\t`, '\n': `\n`, '\f': `\f`, '\r': `\r`, '"': `\"`, '\\': `\\`}
	for _, c := range append([]rune{0x7f, 0x80, 0x2028, 0x2029, 0xFEFF, 0x1F600}, func() (rs []rune) {
		for c := range rune(0x80) {
			rs = append(rs, c)
		}
		return rs
	}()...) {
		want, ok := short[c]
		switch {
		case ok:
		case c < 0x20:
			want = fmt.Sprintf(`\u%04x`, c)
		default:
			want = string(c)
		}
		if got := string(appendString(nil, string(c))); got != `"`+want+`"` {
			t.Errorf("appendString(%U) = %s, want %q", c, got, `"`+want+`"`)
		}
	}
	if !utf8.ValidString(string(appendCanonical(nil, Metadata{Labels: map[string]string{"\xff": "\xc0"}}))) {
		t.Error("the canonical form of invalid UTF-8 is not valid UTF-8")
	}
}

// referenceString writes s as a JSON string by the rules of RFC 8785, one
// character at a time: invalid UTF-8 bytes are U+FFFD, as range decodes them.
func referenceString(s string) string {
	short := map[rune]string{'\b': `\b`, '\t': `\t`, '\n': `\n`, '\f': `\f`, '\r': `\r`, '"': `\"`, '\\': `\\`}
	var b strings.Builder
	b.WriteByte('"')
	for _, c := range s {
		switch e, ok := short[c]; {
		case ok:
			b.WriteString(e)
		case c < 0x20:
			fmt.Fprintf(&b, `\u%04x`, c)
		default:
			b.WriteRune(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// TestAppendStringRandom checks appendString against the
// one-character-at-a-time rules on random strings of the bytes that matter.
func TestAppendStringRandom(t *testing.T) {
	t.Parallel()
	pieces := []string{"a", "Z", " ", "~", "\x00", "\x1f", "\x20", "\x21", "\"", "#", "\\", "[", "]", "\x7f", "\x80", "\xff",
		"\u00e9", "\u2028", "\uFFFD", "\U0001F600", "\xe2\x82", "\xf0\x9f", "abcdefgh", "\x01\x01\x01\x01\x01\x01\x01\x01"}
	r := rand.New(rand.NewPCG(3, 4))
	for range 20000 {
		var b strings.Builder
		for range r.IntN(24) {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		s := b.String()
		if got, want := string(appendString(nil, s)), referenceString(s); got != want {
			t.Fatalf("appendString(%q) = %s, want %s", s, got, want)
		}
	}
}

// referenceCanonical writes m's canonical form with referenceString and
// referenceCompare.
func referenceCanonical(m Metadata) string {
	object := func(kv map[string]string) string {
		var members []string
		for _, k := range slices.SortedFunc(maps.Keys(kv), referenceCompare) {
			members = append(members, referenceString(k)+":"+referenceString(kv[k]))
		}
		return "{" + strings.Join(members, ",") + "}"
	}
	return `{"annotations":` + object(m.Annotations) + `,"labels":` + object(m.Labels) + "}"
}

// FuzzDigest checks the canonical form, and so the digest, of fuzzed keys
// and values against the one-character-at-a-time reference: escaping,
// invalid UTF-8, and the order of keys that sort differently in UTF-16.
// The fifth argument, when it is a number n, adds n more keys.
func FuzzDigest(f *testing.F) {
	f.Add("team", "payments", "my.org.io/owner", "platform", "0")
	f.Add("a\x00\"\\", "\u2028\x7f\xff", "\U0001F600", "\uFB33", "3")
	f.Add("\uFB33", "x", "\U0001F600", "y", "40")
	f.Add("", "", "\xc0", "\xe2\x82", "17")
	f.Fuzz(func(t *testing.T, k1, v1, k2, v2, more string) {
		m := Metadata{
			Labels:      map[string]string{k1: v1, k2: v2},
			Annotations: map[string]string{k2: v1, v2: k1},
		}
		if n, err := strconv.Atoi(more); err == nil && n > 0 && n <= 64 {
			for i := range n {
				m.Labels[fmt.Sprintf("%s%d", k1, i)] = v2
				m.Annotations[fmt.Sprintf("%d%s", i, k2)] = v1
			}
		}
		want := referenceCanonical(m)
		if got := string(appendCanonical(nil, m)); got != want {
			t.Fatalf("canonical form:\n got %s\nwant %s", got, want)
		}
		if got, want := Digest(m), digest.FromString(want); got != want {
			t.Fatalf("Digest() = %s, want %s", got, want)
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
	if diff := cmp.Diff(want.Algorithm(), digest.SHA256); diff != "" {
		t.Error(diff)
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
