package yamldoc

import (
	"errors"
	"strings"
	"testing"
)

var singleTests = []struct {
	name string
	data string
	want error // nil, ErrMoreDocuments, or errSyntax for the decoder's own error
}{
	{name: "empty", data: ""},
	{name: "comments and separators only", data: "# c\n---\n---\n"},
	{name: "one mapping", data: "a: 1\n"},
	{name: "one list", data: "- a\n- b\n"},
	{name: "one scalar", data: "5\n"},
	{name: "leading and trailing separators", data: "---\na: 1\n---\n"},
	{name: "end marker and nothing after", data: "a: 1\n...\n"},
	{name: "end marker and a comment", data: "a: 1\n...\n# done\n"},
	{name: "two mappings", data: "a: 1\n---\nb: 2\n", want: ErrMoreDocuments},
	{name: "mapping then list", data: "a: 1\n---\n- b\n", want: ErrMoreDocuments},
	{name: "list then scalar", data: "- a\n---\n5\n", want: ErrMoreDocuments},
	{name: "two documents split by an end marker", data: "a: 1\n...\nb: 2\n", want: ErrMoreDocuments},
	{name: "not YAML after the first document", data: "a: 1\n---\n[\n", want: ErrMoreDocuments},
	// The parser meets this error while it reads the first document.
	{name: "an unterminated string after the first document", data: "a: 1\n---\n\"x\n", want: errSyntax},
	{name: "invalid UTF-8 after an end marker", data: "...\xf4", want: errSyntax},
	{name: "unterminated string before an end marker", data: "\"0\n...", want: errSyntax},
	{name: "not YAML", data: "a: [1\n", want: errSyntax},
	{name: "invalid UTF-8", data: "a: \xff\n", want: errSyntax},
	{name: "alias bomb", data: aliasBomb, want: nil},
}

// errSyntax stands for the decoder's own error in singleTests.
var errSyntax = errors.New("syntax error")

// aliasBomb is a "billion laughs" document: decoding into a *struct{}
// expands none of it.
var aliasBomb = func() string {
	var b strings.Builder
	b.WriteString("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n")
	for i := 1; i < 10; i++ {
		b.WriteString("a" + string(rune('0'+i)) + ": &a" + string(rune('0'+i)) + " [")
		for j := range 10 {
			if j > 0 {
				b.WriteString(", ")
			}
			b.WriteString("*a" + string(rune('0'+i-1)))
		}
		b.WriteString("]\n")
	}
	return b.String()
}()

func TestSingle(t *testing.T) {
	for _, tt := range singleTests {
		t.Run(tt.name, func(t *testing.T) {
			err := Single([]byte(tt.data))
			switch {
			case tt.want == errSyntax:
				if err == nil || errors.Is(err, ErrMoreDocuments) {
					t.Fatalf("Single() = %v, want the decoder's error", err)
				}
			case !errors.Is(err, tt.want) || (tt.want == nil && err != nil):
				t.Fatalf("Single() = %v, want %v", err, tt.want)
			}
		})
	}
}

// FuzzSingle checks that no input panics and that the answer does not
// change from one call to the next.
func FuzzSingle(f *testing.F) {
	for _, tt := range singleTests {
		f.Add([]byte(tt.data))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		err1, err2 := Single(data), Single(data)
		if (err1 == nil) != (err2 == nil) || errors.Is(err1, ErrMoreDocuments) != errors.Is(err2, ErrMoreDocuments) {
			t.Fatalf("Single() = %v, then %v", err1, err2)
		}
	})
}
