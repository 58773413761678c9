package yamldoc

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	yamlv2 "go.yaml.in/yaml/v2"
	yamlv3 "go.yaml.in/yaml/v3"
)

// TestDocumentsLongLastLine checks that a last line without a newline is
// kept whatever its length. apimachinery's YAML reader drops such a line when
// it ends exactly where a fill of its 4 KiB buffer ends.
func TestDocumentsLongLastLine(t *testing.T) {
	for _, n := range []int{1, 4095, 4096, 4097, 8191, 8192, 8193, 3 * 4096} {
		for _, newline := range []bool{false, true} {
			t.Run(fmt.Sprintf("%d/newline=%v", n, newline), func(t *testing.T) {
				line := strings.Repeat("x", n)
				data := line
				if newline {
					data += "\n"
				}
				docs, err := Documents([]byte(data))
				if err != nil {
					t.Fatal(err)
				}
				if len(docs) != 1 || !bytes.Equal(docs[0], []byte(line+"\n")) {
					t.Fatalf("got %d documents, want one of %d bytes (%q...)", len(docs), len(line)+1, line[:1])
				}
			})
		}
	}
}

// TestDocumentsLongLastDocument checks the same for the last of several
// documents.
func TestDocumentsLongLastDocument(t *testing.T) {
	last := strings.Repeat("x", 4096)
	docs, err := Documents([]byte("a: 1\n---\n" + last))
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) != 2 || string(docs[0]) != "a: 1\n" || string(docs[1]) != last+"\n" {
		t.Fatalf("got %d documents, want 2: %q and the 4,096-byte line", len(docs), docs)
	}
}

// TestAligned checks that a decoder's error for the first document names
// the line of the whole stream.
func TestAligned(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		data string
		line int // of the duplicate key
	}{
		{name: "nothing before", data: "a: 1\na: 2\n", line: 2},
		{name: "a separator", data: "---\na: 1\na: 2\n", line: 3},
		{name: "a separator with a comment", data: "--- # tenant\na: 1\na: 2\n", line: 3},
		{name: "comments before the separator", data: "# a\n# b\n---\na: 1\na: 2\n", line: 5},
		{name: "comments after the separator", data: "---\n# a\n\na: 1\na: 2\n", line: 5},
		{name: "empty documents", data: "---\n# a\n---\n...\n---\n  # b\na: 1\na: 2\n", line: 8},
		{name: "a comment only", data: "# a\na: 1\na: 2\n", line: 3},
		{name: "a flow mapping", data: "---\n{a: 1,\n a: 2}\n", line: 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			docs, err := Documents([]byte(tt.data))
			if err != nil || len(docs) != 1 {
				t.Fatalf("Documents() = %q, %v; want one document", docs, err)
			}
			var v map[string]any
			err = yamlv3.Unmarshal(Aligned([]byte(tt.data), docs[0]), &v)
			if want := fmt.Sprintf("line %d:", tt.line); err == nil || !strings.Contains(err.Error(), want) {
				t.Fatalf("decoding the aligned document: %v; want an error at %s", err, want)
			}
		})
	}
}

// TestDocumentsSeparatorComments checks that a separator followed by a
// comment, which apimachinery's YAML reader may leave at the start of a
// piece, is no document of its own.
func TestDocumentsSeparatorComments(t *testing.T) {
	t.Parallel()
	for _, data := range []string{
		"a: 1\n--- # x\n--- # y\n",
		"--- # x\n--- # y\na: 1\n",
		"--- # x\na: 1\n---\n",
		"---\n---\na: 1\n",
	} {
		docs, err := Documents([]byte(data))
		if err != nil || len(docs) != 1 {
			t.Errorf("Documents(%q) = %q, %v; want one document", data, docs, err)
		}
	}
}

// plainDocumentSeeds are streams plainDocument takes and streams it leaves
// to readDocuments, for TestPlainDocument and FuzzPlainDocument.
var plainDocumentSeeds = []string{
	"",
	"\n",
	"   \n\t\n",
	"# only a comment\n",
	"replicas: 1\ndependsOn: []\nimage:\n  repository: ghcr.io/x\n  tag: \"1.1.0\"\n",
	"a: 1",
	"a: 1\n# trailing comment",
	"  a: 1\n",
	"a: |\n  text\n  --- not a separator here\n",
	"a: 1\n---\nb: 2\n",
	"---\na: 1\n",
	"--- # comment\na: 1\n",
	"---a: 1\n",
	"a: 1\n...\n",
	"a: 1\r\nb: 2\r\n",
	"a: 1\rb: 2\n",
	"\u00a0\n",
	"a: \u00a0\n",
	strings.Repeat("x", 4096),
	strings.Repeat("x", 4095) + "\n" + strings.Repeat("y", 4097),
}

// TestPlainDocument checks plainDocument against readDocuments on streams
// of each kind, and which ones it takes.
func TestPlainDocument(t *testing.T) {
	t.Parallel()
	for i, data := range plainDocumentSeeds {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			t.Parallel()
			checkPlainDocument(t, []byte(data))
		})
	}
	for _, tc := range []struct {
		data string
		ok   bool
	}{
		{data: "a: 1\n", ok: true},
		{data: "a: 1", ok: true},
		{data: "# c\n", ok: true},
		{data: "a: 1\n---\nb: 2\n"},
		{data: "a: 1\n...\n"},
		{data: "a: 1\r\n"},
	} {
		if _, ok := plainDocument([]byte(tc.data)); ok != tc.ok {
			t.Errorf("plainDocument(%q) ok = %v, want %v", tc.data, ok, tc.ok)
		}
	}
}

// FuzzPlainDocument checks that, for every stream plainDocument takes, it
// returns exactly the documents that the YAML reader (readDocuments) does.
func FuzzPlainDocument(f *testing.F) {
	for _, s := range plainDocumentSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkPlainDocument(t, data)
	})
}

func checkPlainDocument(t *testing.T, data []byte) {
	t.Helper()
	doc, ok := plainDocument(data)
	if !ok {
		return
	}
	want, err := readDocuments(data)
	if err != nil {
		t.Fatalf("readDocuments(%.200q): %v, where plainDocument gives %.200q", data, err, doc)
	}
	var got [][]byte
	if doc != nil {
		got = [][]byte{doc}
	}
	if len(got) != len(want) || (len(got) == 1 && !bytes.Equal(got[0], want[0])) {
		t.Fatalf("plainDocument(%.200q) = %.200q, readDocuments %.200q", data, got, want)
	}
	if len(got) == 1 {
		before := bytes.Clone(data)
		_ = append(got[0], "appended"...)
		if !bytes.Equal(data, before) {
			t.Fatalf("appending to plainDocument's document of %d bytes overwrote the caller's data", len(data))
		}
	}
}

// lineStartTests are streams with lines that a YAML decoder reads as a
// directive or a document marker, for TestDocumentsLineStarts and
// FuzzDocuments. docs is how many documents Documents returns when it
// accepts the stream.
var lineStartTests = []struct {
	name    string
	data    string
	wantErr error // errDirective, errCommentedSeparator, errLineBreak or nil
	line    string
	docs    int
}{
	// Issue 34, item 8: yaml/v2 reads the type fields and drops the labels.
	{name: "a directive inside a document", data: "apiVersion: source.extensions.fluxcd.io/v1beta1\nkind: NamespaceMetadata\n%YAML 1.1\nmetadata:\n  labels:\n    team: a\n",
		wantErr: errDirective, line: `line 3: "%YAML 1.1"`},
	{name: "a directive before a separator", data: "%YAML 1.1\n---\na: 1\n", wantErr: errDirective, line: `line 1: "%YAML 1.1"`},
	{name: "a TAG directive", data: "%TAG ! tag:example.com,2000:\n---\na: 1\n", wantErr: errDirective, line: `line 1: "%TAG ! tag:example.com,2000:"`},
	{name: "a directive after a document and a separator", data: "a: 1\n%YAML 1.2\n---\nb: 2\n", wantErr: errDirective, line: `line 2: "%YAML 1.2"`},
	{name: "an unknown directive", data: "a: 1\n%x\n", wantErr: errDirective, line: `line 2: "%x"`},
	{name: "a directive ending a literal block", data: "a: |\n  x\n%YAML 1.1\n  y\n", wantErr: errDirective, line: `line 3: "%YAML 1.1"`},
	{name: "a directive after a byte order mark", data: "\ufeff%YAML 1.1\n---\na: 1\n", wantErr: errDirective, line: `line 1: "%YAML 1.1"`},
	{name: "a directive after CRLF", data: "a: 1\r\n%YAML 1.1\r\nb: 2\r\n", wantErr: errDirective, line: `line 2: "%YAML 1.1"`},
	// yaml/v2 breaks lines at these too, and reads {a: 1}.
	{name: "a directive after a carriage return", data: "a: 1\r%YAML 1.1\rb: 2\n", wantErr: errLineBreak, line: `line 1: "a: 1\r%YAML 1.1\rb: 2"`},
	{name: "a separator after LS", data: "a: 1\u2028---\u2028b: 2\n", wantErr: errLineBreak, line: `line 1: "a: 1\u2028---\u2028b: 2"`},
	{name: "an end marker after PS", data: "a: 1\u2029...\u2029b: 2\n", wantErr: errLineBreak, line: `line 1: "a: 1\u2029...\u2029b: 2"`},
	{name: "a separator after NEL", data: "a: 1\n\u0085---\nb: 2\n", wantErr: errLineBreak, line: `line 2: "\u0085---"`},
	// yaml/v2 reads [null] after the comment.
	{name: "a comment ended by a carriage return", data: "#\r-", wantErr: errLineBreak, line: `line 1: "#\r-"`},
	{name: "LS inside a value", data: "a: 1\nb: x\u2028y\n", wantErr: errLineBreak, line: `line 2: "b: x\u2028y"`},
	// apimachinery's YAML reader splits the stream there; yaml/v2 reads a key.
	{name: "a separator with a comment and no space", data: "a: 1\n---#b: 2\n", wantErr: errCommentedSeparator, line: `line 2: "---#b: 2"`},
	{name: "a separator with a comment and no space, alone", data: "---#0: 00", wantErr: errCommentedSeparator, line: `line 1: "---#0: 00"`},
	{name: "a separator, a space and a comment", data: "a: 1\n--- #b: 2\nc: 3\n", docs: 2},
	// Refused, though a decoder reads the line as text: indent it.
	{name: "a quoted string continued on a line that starts with %", data: "a: \"x\n%y\"\n", wantErr: errDirective, line: `line 2: "%y\""`},
	{name: "a long directive is shown by its first 64 bytes", data: "a: 1\n%" + strings.Repeat("x", 1000) + "\n", wantErr: errDirective,
		line: `line 2: "%` + strings.Repeat("x", 63) + `... (1001 bytes)"`},

	{name: "an indented percent sign", data: "a: 1\n %YAML 1.1\n", docs: 1},
	{name: "a percent sign inside a line", data: "a: 50%\nb: \"%YAML\"\n", docs: 1},
	{name: "CRLF separators", data: "a: 1\r\n---\r\nb: 2\r\n", docs: 2},
	{name: "escaped NEL, LS and PS", data: "a: \"x\\Ny\\Lz\\Pw\\u2028\"\n", docs: 1},
	{name: "a byte order mark", data: "\ufeffa: 1\n", docs: 1},
}

// TestDocumentsLineStarts checks that Documents refuses every directive,
// and every document marker that a line-based split does not see, naming
// the line.
func TestDocumentsLineStarts(t *testing.T) {
	t.Parallel()
	for _, tt := range lineStartTests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			docs, err := Documents([]byte(tt.data))
			if tt.wantErr == nil {
				if err != nil || len(docs) != tt.docs {
					t.Fatalf("Documents() = %q, %v; want %d documents", docs, err, tt.docs)
				}
				return
			}
			if !errors.Is(err, tt.wantErr) || docs != nil {
				t.Fatalf("Documents() = %q, %v; want %v", docs, err, tt.wantErr)
			}
			if want := tt.line + ": " + tt.wantErr.Error(); err.Error() != want {
				t.Errorf("Documents() error = %q, want %q", err, want)
			}
		})
	}
}

// FuzzDocuments checks that Documents never hides a document from its
// caller: for a stream it accepts, yaml/v2 reads the same mappings and
// sequences, in the same order, from the pieces it returns as from the
// whole stream, up to the first document the stream's decoder fails on,
// unless it fails on a piece, which its caller then reports.
// (Scalars hold no keys; a line of Unicode spaces, which v2 reads as a
// string, is an empty document to Documents.)
func FuzzDocuments(f *testing.F) {
	for _, tt := range lineStartTests {
		f.Add([]byte(tt.data))
	}
	for _, s := range plainDocumentSeeds {
		f.Add([]byte(s))
	}
	for _, tt := range singleTests {
		f.Add([]byte(tt.data))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		docs, err := Documents(data)
		if err != nil {
			return
		}
		stream, streamErr := v2Documents(func(yield func(*any) bool) {
			dec := yamlv2.NewDecoder(bytes.NewReader(data))
			for {
				var v any
				if err := dec.Decode(&v); err != nil {
					if !errors.Is(err, io.EOF) {
						yield(nil)
					}
					return
				}
				if !yield(&v) {
					return
				}
			}
		})
		pieces, piecesErr := v2Documents(func(yield func(*any) bool) {
			for _, doc := range docs {
				var v any
				if yamlv2.Unmarshal(doc, &v) != nil {
					yield(nil)
					return
				}
				if !yield(&v) {
					return
				}
			}
		})
		switch {
		case piecesErr:
			return // a caller fails on the pieces: nothing is lost silently
		case streamErr:
			// The pieces hold at least the documents before the one the
			// stream's decoder fails on.
			if len(pieces) < len(stream) {
				t.Fatalf("Documents(%.200q) = %.200q: yaml/v2 reads %v then fails, the pieces give %v", data, docs, stream, pieces)
			}
			pieces = pieces[:len(stream)]
		}
		if fmt.Sprint(stream) != fmt.Sprint(pieces) {
			t.Fatalf("Documents(%.200q) = %.200q: yaml/v2 reads %v from the stream, %v from the pieces", data, docs, stream, pieces)
		}
	})
}

// v2Documents collects the mappings and sequences that next yields, and
// whether it yielded nil, for a decoder's error, which ends it. A panic
// in the decoder counts as an error.
func v2Documents(next func(yield func(*any) bool)) (docs []any, failed bool) {
	defer func() {
		if recover() != nil {
			failed = true
		}
	}()
	for v := range next {
		if v == nil {
			return docs, true
		}
		switch (*v).(type) {
		case map[any]any, []any:
			docs = append(docs, trimNewlines(*v))
		}
	}
	return docs, false
}

// trimNewlines returns v with one trailing newline cut from every string,
// key or value: Documents ends a stream's last line with a newline, which
// a block scalar on that line keeps ("a: |\n  x" is "x" whole, "x\n" as a
// piece).
func trimNewlines(v any) any {
	switch v := v.(type) {
	case string:
		return strings.TrimSuffix(v, "\n")
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = trimNewlines(e)
		}
		return out
	case map[any]any:
		out := make(map[any]any, len(v))
		for k, e := range v {
			out[trimNewlines(k)] = trimNewlines(e)
		}
		return out
	}
	return v
}
