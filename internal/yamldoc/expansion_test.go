package yamldoc

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	yamlv3 "go.yaml.in/yaml/v3"
)

// padTo appends a comment to doc so that it has exactly n bytes: comments
// count in the size of a document, not in its expansion.
func padTo(doc string, n int) string {
	if pad := n - len(doc); pad > 0 {
		return doc + "#" + strings.Repeat("x", pad-2) + "\n"
	}
	return doc
}

// reused is a mapping whose key aa holds a string of n bytes that the
// sequence under bb repeats through k aliases. Its expanded size is
// 2 + 3 + (n+1) + 3 + 2 + k*(n+1) = 10 + (k+1)*(n+1).
func reused(n, k int) string {
	aliases := strings.TrimSuffix(strings.Repeat("*a, ", k), ", ")
	return fmt.Sprintf("aa: &a %q\nbb: [%s]\n", strings.Repeat("x", n), aliases)
}

// laughs is a "billion laughs" document: levels of lists of ten aliases to
// the level below, the first holding a string of n bytes.
func laughs(levels, n int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "l0: &l0 %q\n", strings.Repeat("x", n))
	for i := 1; i < levels; i++ {
		fmt.Fprintf(&b, "l%d: &l%d [%s]\n", i, i, strings.TrimSuffix(strings.Repeat(fmt.Sprintf("*l%d, ", i-1), 10), ", "))
	}
	return b.String()
}

// noAliases is a document of about n bytes without aliases, with "&" and
// "*" in its values, so that it is parsed.
func noAliases(n int) string {
	var b strings.Builder
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "key-%d: \"a&b*c, {x: y}\"\n", i)
	}
	return b.String()
}

var expansionTests = []struct {
	name string
	data string
	want error // nil, ErrExpansion, or errSyntax for the parser's own error
}{
	{name: "empty", data: ""},
	{name: "no anchor character", data: "a: *b\n"},
	{name: "no alias character", data: "a: &b x\n"},
	{name: "one anchor, one alias", data: "a: &x hello\nb: *x\n"},
	{name: "merge key", data: "base: &b {x: 1, y: 2}\nderived:\n  <<: *b\n  z: 3\n"},
	{name: "1 MiB without aliases", data: noAliases(1 << 20)},
	{name: "a small document may expand to MinExpansion", data: reused(1000, 60)},
	{name: "a small document past MinExpansion", data: reused(1000, 70), want: ErrExpansion},
	{name: "10 times its size exactly", data: padTo(reused(999, 99), 10001)},
	{name: "one byte past 10 times its size", data: padTo(reused(999, 99), 10000), want: ErrExpansion},
	{name: "billion laughs", data: laughs(10, 1), want: ErrExpansion},
	{name: "billion laughs with long strings", data: laughs(4, 50000), want: ErrExpansion},
	{name: "a long string reused, 56 KB", data: reused(50000, 2000), want: ErrExpansion},
	{name: "an alias inside its own anchor", data: "a: &a [x, *a]\n", want: ErrExpansion},
	{name: "a mapping merged into itself", data: "a: &a {b: 1, <<: *a}\n", want: ErrExpansion},
	{
		name: "aliases to an earlier document count",
		data: padTo("a: &a "+strings.Repeat("x", 7000)+"\n---\n"+"b: ["+strings.TrimSuffix(strings.Repeat("*a, ", 10), ", ")+"]\n", 7100),
		want: ErrExpansion,
	},
	{name: "unknown anchor", data: "a: &b x\nc: *d\n", want: errSyntax},
	{name: "not YAML", data: "a: &b [x\nc: *b\n", want: errSyntax},
	{name: "a tab as indentation", data: "a: &b\n\tx: *b\n", want: errSyntax},
}

func TestCheckExpansion(t *testing.T) {
	t.Parallel()
	for _, tt := range expansionTests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := CheckExpansion([]byte(tt.data))
			switch {
			case tt.want == errSyntax:
				if err == nil || errors.Is(err, ErrExpansion) {
					t.Fatalf("CheckExpansion() = %v, want the parser's error", err)
				}
			case !errors.Is(err, tt.want) || (tt.want == nil && err != nil):
				t.Fatalf("CheckExpansion() = %v, want %v", err, tt.want)
			}
		})
	}
}

func TestCheckExpansionMessage(t *testing.T) {
	t.Parallel()
	data := padTo(reused(999, 99), 10000)
	err := CheckExpansion([]byte(data))
	const want = "YAML aliases must expand a document to no more than 10 times its size (64 KiB at least): 10000 bytes expand to more than 100000"
	if err == nil || err.Error() != want {
		t.Fatalf("CheckExpansion() = %v, want %s", err, want)
	}
	err = CheckExpansion([]byte("a: &a [*a]\n"))
	const cycle = "YAML aliases must expand a document to no more than 10 times its size (64 KiB at least): an alias must not refer to a node that contains it"
	if err == nil || err.Error() != cycle {
		t.Fatalf("CheckExpansion() = %v, want %s", err, cycle)
	}
}

// measure returns the expanded size of the stream in data, without limit,
// and whether it has an alias; ok is false for a stream that is not YAML or
// has an alias inside its own anchor.
func measure(data []byte) (size int64, aliases bool, ok bool) {
	e := expansion{limit: 1 << 62, sizes: map[*yamlv3.Node]int64{}}
	dec := yamlv3.NewDecoder(bytes.NewReader(data))
	for {
		var doc yamlv3.Node
		if err := dec.Decode(&doc); err != nil {
			return e.total, aliases, errors.Is(err, io.EOF)
		}
		aliases = aliases || hasAlias(&doc)
		s, err := e.size(&doc)
		if err != nil {
			return 0, aliases, false
		}
		e.total += s
	}
}

func hasAlias(n *yamlv3.Node) bool {
	if n.Kind == yamlv3.AliasNode {
		return true
	}
	for _, c := range n.Content {
		if hasAlias(c) {
			return true
		}
	}
	return false
}

func TestExpandedSize(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		data string
		want int64
	}{
		{name: "scalar", data: "abc\n", want: 4},
		{name: "mapping", data: "a: bc\n", want: 2 + 2 + 3},
		{name: "sequence of nulls", data: "- \n-\n", want: 2 + 1 + 1},
		{name: "alias counts as its anchor", data: "a: &x [yy]\nb: *x\n", want: 2 + 2 + (2 + 3) + 2 + (2 + 3)},
		{name: "reused", data: reused(5, 3), want: 10 + 4*6},
		{name: "two documents", data: "a\n---\nbb\n", want: 2 + 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, _, ok := measure([]byte(tt.data))
			if !ok || got != tt.want {
				t.Errorf("expanded size = %d (ok %v), want %d", got, ok, tt.want)
			}
		})
	}
}

// FuzzCheckExpansion checks that no input panics, that the answer does not
// change from one call to the next, and that a document without aliases is
// never refused for its expansion: its expanded size stays within three
// times its size, far below the bound.
func FuzzCheckExpansion(f *testing.F) {
	for _, tt := range expansionTests {
		if len(tt.data) <= 4<<10 {
			f.Add([]byte(tt.data))
		}
	}
	f.Add([]byte("{a, b, c}\n"))
	f.Add([]byte("\"\\L\\L\\L\"\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		err1, err2 := CheckExpansion(data), CheckExpansion(data)
		if (err1 == nil) != (err2 == nil) || errors.Is(err1, ErrExpansion) != errors.Is(err2, ErrExpansion) {
			t.Fatalf("CheckExpansion() = %v, then %v", err1, err2)
		}
		size, aliases, ok := measure(data)
		if ok && !aliases && (size > 3*int64(len(data))+2 || errors.Is(err1, ErrExpansion)) {
			t.Fatalf("a document without aliases: expanded size %d of %d bytes, CheckExpansion() = %v", size, len(data), err1)
		}
	})
}

func BenchmarkCheckExpansion(b *testing.B) {
	for _, n := range []int{1 << 10, 64 << 10, 1 << 20} {
		data := []byte(noAliases(n))
		b.Run(fmt.Sprintf("bytes=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if err := CheckExpansion(data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
