package nsmeta

import (
	"errors"
	"strings"
	"testing"

	"github.com/tenantkit/tenantkit/internal/yamldoc"
)

// decoderWords are what a FileError's Detail must not hold: the YAML
// decoder's package prefix and Go words, sigs.k8s.io/yaml's wrapping, or
// this package's name (issue 38, item 4).
var decoderWords = []string{"yaml: ", "unmarshal", "converting YAML to JSON", "json: ", "Go struct", "interface {}", "nsmeta"}

// checkFileError fails t unless err is a *FileError whose Error is
// ErrInvalidFile's text and its Detail, and whose Detail holds no decoder
// words; it returns the Detail.
func checkFileError(t *testing.T, err error) string {
	t.Helper()
	fe, ok := errors.AsType[*FileError](err)
	if !ok || !errors.Is(err, ErrInvalidFile) {
		t.Fatalf("ParseFile() error %v (%T), want a *FileError wrapping ErrInvalidFile", err, err)
	}
	if want := "nsmeta: invalid NamespaceMetadata file: " + fe.Detail; err.Error() != want {
		t.Errorf("Error() = %q, want %q", err.Error(), want)
	}
	for _, w := range decoderWords {
		if strings.Contains(fe.Detail, w) {
			t.Errorf("Detail %q holds %q", fe.Detail, w)
		}
	}
	return fe.Detail
}

// TestFileError: what ParseFile refuses as a whole comes as a *FileError
// whose Detail says what is wrong in the file's words, whichever check or
// decoder found it (issue 38, item 4: the decoder's words, "error
// converting YAML to JSON: yaml: ...", and "unmarshal errors" leaked into
// the tool's output), and which unwraps to what it reports.
func TestFileError(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name   string
		data   string
		detail string
		cause  error // what the error wraps besides ErrInvalidFile, if anything
	}{
		{name: "too large", data: header + "# " + strings.Repeat("x", maxFileSize),
			detail: "must be no more than 1 MiB, not 1048650 bytes"},
		// The decoder's syntax errors, through sigs.k8s.io/yaml (yaml/v2)
		// and, with aliases, yamldoc's expansion check (yaml/v3).
		{name: "syntax error", data: header + "metadata: [\n",
			detail: "must be valid YAML: line 3: did not find expected node content"},
		{name: "syntax error with an alias", data: header + "x: &a 1\ny: *a\nmetadata:\n\tlabels: {}\n",
			detail: "must be valid YAML: line 6: found character that cannot start any token"},
		{name: "no line", data: labelsDoc("team: a\x00b"),
			detail: "must be valid YAML: control characters are not allowed"},
		// The line is counted from the document's start, which the
		// detail names: the "..." of line 5 of the file.
		{name: "a syntax error before an end marker", data: "---\n" + header + "metadata: [\n...\n",
			detail: "document 1: must be valid YAML: line 4: did not find expected node content"},
		{name: "a repeated key", data: labelsDoc("team: a\n    team: b"),
			detail: `must be valid YAML: line 6: key "team" already set in map`},
		{name: "two repeated keys", data: header + "kind: NamespaceMetadata\nmetadata: {}\nmetadata: {}\n",
			detail: `must be valid YAML: line 3: key "kind" already set in map; line 5: key "metadata" already set in map`},
		{name: "a sequence as a key", data: labelsDoc("? [a]\n    : b"),
			detail: "must be valid YAML: a mapping key must be a scalar, not a mapping or a sequence"},
		{name: "infinity", data: labelsDoc("a: .inf"),
			detail: "must hold only finite numbers, not +Inf (.inf or .nan); quote a value that is text"},
		// yamldoc's and ParseFile's own checks, in their words.
		{name: "aliases that expand too far", data: billionLaughs(9),
			detail: "YAML aliases must expand a document to no more than 10 times its size (64 KiB at least): 612 bytes expand to more than 65536",
			cause:  yamldoc.ErrExpansion},
		{name: "a directive", data: "%YAML 1.1\n---\n" + header,
			detail: `line 1: "%YAML 1.1": must not start with "%": YAML reads the line as a directive, which ends the document before it, and a decoder silently drops what follows`},
		{name: "two documents", data: header + "---\n" + header, detail: "must hold exactly one YAML document"},
		{name: "a document hidden behind an empty one", data: "---\n---\n" + header,
			detail: "the first YAML document is empty and the metadata is in the next one, which is never read; remove the separator before it",
			cause:  errHiddenDocument},
		{name: "a sequence", data: "- a\n", detail: "document must be a mapping, not a sequence"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			m, errs, err := ParseFile([]byte(tt.data))
			if errs != nil || m.Labels != nil {
				t.Fatalf("ParseFile() = %v, %v, %v; want only an error", m, errs, err)
			}
			if got := checkFileError(t, err); got != tt.detail {
				t.Errorf("Detail = %q, want %q", got, tt.detail)
			}
			if tt.cause != nil && !errors.Is(err, tt.cause) {
				t.Errorf("ParseFile() error %v does not wrap %v", err, tt.cause)
			}
		})
	}
}

// TestFileErrorTables: every file of the tables that ParseFile refuses as
// a whole gives a *FileError in the file's words.
func TestFileErrorTables(t *testing.T) {
	t.Parallel()
	var data []string
	for _, tt := range parseFileTests {
		if tt.wantErr != nil {
			data = append(data, tt.data)
		}
	}
	for _, tt := range hostileFileTests {
		if tt.wantErr != nil {
			data = append(data, tt.data)
		}
	}
	for _, d := range data {
		_, _, err := ParseFile([]byte(d))
		checkFileError(t, err)
	}
}
