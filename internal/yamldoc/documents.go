package yamldoc

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
)

// Documents splits a YAML stream into its documents, leaving out empty ones
// (separators, comments), after [CheckExpansion] and then [CheckKeys] have
// accepted the whole stream. The stream is split on "---" lines; a "..."
// end marker inside a piece would make a YAML decoder read the first
// document and silently drop the rest, so a piece holding more than one
// document is an error: what it hides could be a namespace with prune
// disabled, or a second generator.
func Documents(data []byte) ([][]byte, error) {
	if err := checkStream(data); err != nil {
		return nil, err
	}
	if doc, ok := plainDocument(data); ok {
		if doc == nil {
			return nil, nil
		}
		return [][]byte{doc}, nil
	}
	return readDocuments(data)
}

// plainDocument returns what readDocuments returns for data without a line
// that starts with "---" or "...", and without a carriage return (which the
// YAML reader drops before a newline): the whole stream as one document,
// ended by a newline, or none when every line is blank. ok is false for any
// other stream, which readDocuments splits. Such a stream is almost every
// file a plan reads (inputs files, NamespaceMetadata files), and the YAML
// reader, which copies it line by line through a buffer, took 6% of the
// allocations of a 1,000-tenant plan and 2% of its CPU; without it, a
// 10,000-tenant plan makes 9.89 M allocations instead of 10.55 M
// (generator's BenchmarkPlan through dirfs). FuzzPlainDocument checks that
// both give the same documents.
func plainDocument(data []byte) (doc []byte, ok bool) {
	if bytes.IndexByte(data, '\r') >= 0 {
		return nil, false
	}
	blank := true
	for line := range bytes.Lines(data) {
		if bytes.HasPrefix(line, []byte("---")) || bytes.HasPrefix(line, []byte("...")) {
			return nil, false
		}
		blank = blank && isBlank(line)
	}
	switch {
	case blank:
		return nil, true
	case data[len(data)-1] != '\n':
		return append(data[:len(data):len(data)], '\n'), true
	}
	// The caller's data, which a caller appending to it must not overwrite.
	return data[:len(data):len(data)], true
}

// readDocuments is Documents once the stream's expansion is checked: the
// stream split by apimachinery's YAML reader.
func readDocuments(data []byte) ([][]byte, error) {
	var src io.Reader = bytes.NewReader(data)
	if len(data) > 0 && data[len(data)-1] != '\n' {
		// The YAML reader drops a last line that has no newline and ends
		// exactly where a fill of the bufio buffer ends. It ends every line
		// it returns with a newline anyway, so adding one changes no
		// document.
		src = io.MultiReader(src, strings.NewReader("\n"))
	}
	// A buffer the size of a small file, not bufio's 4 KiB default: inputs
	// files are a few hundred bytes, and a plan reads one per artifact.
	r := utilyaml.NewYAMLReader(bufio.NewReaderSize(src, min(len(data)+1, 4096)))
	var docs [][]byte
	for {
		raw, err := r.Read()
		if errors.Is(err, io.EOF) {
			return docs, nil
		}
		if err != nil {
			return nil, err
		}
		if len(bytes.TrimSpace(stripComments(raw))) == 0 {
			continue
		}
		if hasEndMarker(raw) {
			if err := Single(raw); errors.Is(err, ErrMoreDocuments) {
				return nil, fmt.Errorf(`document %d: must not hold a second YAML document after a "..." end marker`, len(docs)+1)
			} else if err != nil {
				return nil, fmt.Errorf("document %d: %w", len(docs)+1, err)
			}
		}
		docs = append(docs, raw)
	}
}

// Aligned returns doc, the first document that [Documents] returned for
// data, preceded by one newline for each line of data before it (comments,
// separators, empty documents), so that a decoder's errors for it name
// lines of data. It returns doc itself when no line precedes it.
func Aligned(data, doc []byte) []byte {
	// The lines of data before its first line of content are separators or
	// belong to empty documents; that line is doc's first line of content.
	n := 0
	for line := range bytes.Lines(data) {
		if !isBlank(line) {
			break
		}
		n++
	}
	for line := range bytes.Lines(doc) {
		if !isBlank(line) {
			break
		}
		n--
	}
	if n <= 0 {
		return doc
	}
	return append(bytes.Repeat([]byte("\n"), n), doc...)
}

// isBlank reports whether line counts for nothing in a document: spaces, a
// comment, a document marker, or a separator that apimachinery's YAML
// reader splits a stream on ("---", then only spaces or a comment).
func isBlank(line []byte) bool {
	t := bytes.TrimSpace(line)
	if len(t) == 0 || t[0] == '#' || bytes.Equal(t, []byte("---")) || bytes.Equal(t, []byte("...")) {
		return true
	}
	rest, ok := bytes.CutPrefix(line, []byte("---"))
	rest = bytes.TrimSpace(rest)
	return ok && (len(rest) == 0 || rest[0] == '#')
}

// hasEndMarker reports whether doc has a "..." document end marker line.
func hasEndMarker(doc []byte) bool {
	for line := range bytes.Lines(doc) {
		if bytes.HasPrefix(line, []byte("...")) {
			return true
		}
	}
	return false
}

// stripComments drops comment-only lines and document markers, so that a
// piece of separators and comments counts as empty.
func stripComments(doc []byte) []byte {
	var out []byte
	for line := range bytes.Lines(doc) {
		if !isBlank(line) {
			out = append(out, line...)
		}
	}
	return out
}
