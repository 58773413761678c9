package yamldoc

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

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
