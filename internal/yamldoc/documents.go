package yamldoc

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/tenantkit/tenantkit/internal/quote"
)

// Documents splits a YAML stream on "---" lines into its documents, leaving out empty ones
// (separators, comments), after [CheckExpansion] and then [CheckKeys] have accepted the whole
// stream. A piece holding more than one document (after a "..." end marker) is an error, and
// so is each line of the package documentation's "Documents".
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
	if err := checkLineStarts(data); err != nil {
		return nil, err
	}
	return readDocuments(data)
}

// errDirective, errCommentedSeparator and errLineBreak refuse the lines of the package doc's
// "Documents"; the module's files need no directive.
var errDirective = errors.New(`must not start with "%": YAML reads the line as a directive, which ends the document before it, and a decoder silently drops what follows`)

var errCommentedSeparator = errors.New(`must not start with "---#": a YAML decoder reads it as text, not as a separator and a comment; put a space before the "#"`)

var errLineBreak = errors.New(`must not hold a line break other than a newline (a carriage return alone, NEL, LS or PS): YAML starts a new line there, which a line-based reader does not see; inside a double-quoted string, write it escaped ("\u2028")`)

// checkLineStarts refuses those lines, naming the line and its first 64 bytes.
func checkLineStarts(data []byte) error {
	n := 0
	for line := range bytes.Lines(data) {
		n++
		text := bytes.TrimSuffix(bytes.TrimSuffix(line, []byte("\n")), []byte("\r"))
		if n == 1 {
			text = bytes.TrimPrefix(text, []byte("\ufeff")) // a byte order mark starts no line
		}
		var err error
		switch {
		case bytes.IndexByte(text, '\r') >= 0 || hasUnicodeBreak(text):
			err = errLineBreak
		case bytes.HasPrefix(text, []byte("%")):
			err = errDirective
		case bytes.HasPrefix(text, []byte("---#")):
			err = errCommentedSeparator
		}
		if err != nil {
			return fmt.Errorf("line %d: %q: %w", n, quote.Value(string(text)), err)
		}
	}
	return nil
}

// plainDocument returns what readDocuments returns for data without a line that starts with
// "---", "..." or "%", a carriage return, NEL, LS or PS, or ok false; almost every file a plan
// reads is spared the YAML reader's copy (generator's BenchmarkHostileTenants/realistic).
// FuzzPlainDocument checks that both agree.
func plainDocument(data []byte) (doc []byte, ok bool) {
	if bytes.IndexByte(data, '\r') >= 0 || hasUnicodeBreak(data) {
		return nil, false
	}
	blank := true
	for line := range bytes.Lines(data) {
		if bytes.HasPrefix(line, []byte("---")) || bytes.HasPrefix(line, []byte("...")) || bytes.HasPrefix(line, []byte("%")) {
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
	// The caller's data: capped, so that appending to it does not overwrite it.
	return data[:len(data):len(data)], true
}

// hasUnicodeBreak reports whether data holds NEL, LS or PS, where YAML starts a new line.
func hasUnicodeBreak(data []byte) bool {
	return bytes.Contains(data, []byte("\u0085")) || bytes.Contains(data, []byte("\u2028")) || bytes.Contains(data, []byte("\u2029"))
}

// readDocuments is Documents once the stream is checked: its pieces as apimachinery's YAML
// reader returns them, each line ending in "\n", and that reader's error for a bad separator.
func readDocuments(data []byte) ([][]byte, error) {
	pieces, err := splitPieces(data)
	var docs [][]byte
	for _, p := range pieces {
		raw := p.data
		if raw[len(raw)-1] != '\n' {
			raw = append(raw[:len(raw):len(raw)], '\n')
		}
		raw = bytes.ReplaceAll(raw, []byte("\r\n"), []byte("\n")) // a copy
		if len(bytes.TrimSpace(stripComments(raw))) == 0 {
			continue
		}
		if hasEndMarker(raw) {
			if err := Single(raw); errors.Is(err, ErrMoreDocuments) {
				return nil, fmt.Errorf(`document %d: must not hold a second YAML document after a "..." end marker`, len(docs)+1)
			} else if err != nil {
				return nil, &documentError{n: len(docs) + 1, err: err}
			}
		}
		docs = append(docs, raw)
	}
	if err != nil {
		return nil, err
	}
	return docs, nil
}

// Aligned returns doc, the first document that [Documents] returned for data, preceded by one
// newline for each line of data before it (comments, separators, empty documents), so that a
// decoder's errors for it name lines of data. It returns doc itself when no line precedes it.
func Aligned(data, doc []byte) []byte {
	// The lines of data before its first line of content are blank; that line is doc's first.
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

// isBlank reports whether line is spaces, a comment, a document marker, or a separator that
// apimachinery's YAML reader splits on ("---", spaces, a comment).
func isBlank(line []byte) bool {
	t := bytes.TrimSpace(line)
	if len(t) == 0 || t[0] == '#' || bytes.Equal(t, []byte("---")) || bytes.Equal(t, []byte("...")) {
		return true
	}
	rest, ok := bytes.CutPrefix(line, []byte("---"))
	rest = bytes.TrimSpace(rest)
	return ok && (len(rest) == 0 || rest[0] == '#')
}

func hasEndMarker(doc []byte) bool {
	for line := range bytes.Lines(doc) {
		if bytes.HasPrefix(line, []byte("...")) {
			return true
		}
	}
	return false
}

// stripComments drops blank lines, so that a piece of separators and comments counts as empty.
func stripComments(doc []byte) []byte {
	var out []byte
	for line := range bytes.Lines(doc) {
		if !isBlank(line) {
			out = append(out, line...)
		}
	}
	return out
}
