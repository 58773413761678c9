package yamldoc

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
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
