package nsmeta

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"

	"github.com/tenantkit/tenantkit/internal/yamldoc"
)

const header = "apiVersion: source.extensions.fluxcd.io/v1beta1\nkind: NamespaceMetadata\n"

// billionLaughs returns the classic exponential alias document, nested
// levels deep, under key (a field of the document).
func billionLaughs(levels int) string {
	var b strings.Builder
	b.WriteString(header)
	b.WriteString("x0: &x0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n")
	for i := 1; i <= levels; i++ {
		p := fmt.Sprintf("*x%d", i-1)
		fmt.Fprintf(&b, "x%d: &x%d [%s]\n", i, i, strings.TrimSuffix(strings.Repeat(p+", ", 9), ", "))
	}
	return b.String()
}

// mergeBomb returns a document whose labels merge one large anchored mapping
// many times: cheap to write, quadratic to decode without a bound.
func mergeBomb(entries, merges int) string {
	var b strings.Builder
	b.WriteString(header)
	b.WriteString("anchors: &a\n")
	for i := range entries {
		fmt.Fprintf(&b, "  k%d: v\n", i)
	}
	b.WriteString("metadata:\n  labels:\n    <<: [")
	b.WriteString(strings.TrimSuffix(strings.Repeat("*a, ", merges), ", "))
	b.WriteString("]\n")
	return b.String()
}

// empty is the Metadata of a file that asks for nothing.
var empty = Metadata{Labels: map[string]string{}, Annotations: map[string]string{}}

// noTypeFields are the errors of a file without apiVersion and kind.
var noTypeFields = []fieldErr{
	{field.ErrorTypeRequired, "apiVersion", ""},
	{field.ErrorTypeRequired, "kind", ""},
}

// noDocumentFields is the error of a file without a document, or whose
// document is null: one, at apiVersion, that says so (TestParseFileEmpty
// has its words).
var noDocumentFields = []fieldErr{
	{field.ErrorTypeRequired, "apiVersion", ""},
}

// parseFileTests list, for each file, what ParseFile returns and, for a
// file it refuses that decoding into source-watcher's Go type for the file
// reads, what that reads (TestParseFileAsUpstreamType).
var parseFileTests = []struct {
	name       string
	data       string
	want       Metadata
	wantErr    error      // ErrInvalidFile or nil
	wantFields []fieldErr // the field errors, when wantErr is nil
	// upstreamType is what readAsUpstreamType reads from the file, when
	// ParseFile refuses it and the Go type does not.
	upstreamType *Metadata
}{
	{name: "type fields only", data: header, want: empty},
	{
		name: "labels and annotations",
		data: header + `metadata:
  labels:
    team: payments
    tier: "1"
    enabled: "true"
  annotations:
    my.org.io/observability: Enabled
    my.org.io/note: "multi-word: value"
`,
		want: Metadata{
			Labels:      map[string]string{"team": "payments", "tier": "1", "enabled": "true"},
			Annotations: map[string]string{"my.org.io/observability": "Enabled", "my.org.io/note": "multi-word: value"},
		},
	},
	{
		name: "null maps, comments, document markers",
		data: "# tenant metadata\n---\n" + header + "metadata:\n  labels:\n  annotations: ~\n...\n---\n",
		want: empty,
	},
	{
		name: "a legitimate alias",
		data: header + "metadata:\n  labels: &l {team: payments}\n  annotations: *l\n",
		want: Metadata{Labels: map[string]string{"team": "payments"}, Annotations: map[string]string{"team": "payments"}},
	},
	{
		name: "flow style",
		data: `{apiVersion: source.extensions.fluxcd.io/v1beta1, kind: NamespaceMetadata, metadata: {labels: {a: b}}}`,
		want: Metadata{Labels: map[string]string{"a": "b"}, Annotations: map[string]string{}},
	},

	// A file that asks for nothing lacks the type fields; the Go type
	// reads it as empty metadata. Without a document, one error says so.
	{name: "empty", data: "", wantFields: noDocumentFields, upstreamType: &empty},
	{name: "whitespace", data: " \n\n   \n", wantFields: noDocumentFields, upstreamType: &empty},
	{name: "comments only", data: "# nothing\n", wantFields: noDocumentFields, upstreamType: &empty},
	{name: "null document", data: "null\n", wantFields: noDocumentFields, upstreamType: &empty},
	{name: "markers only", data: "---\n---\n", wantFields: noDocumentFields, upstreamType: &empty},
	{name: "an empty mapping", data: "{}\n", wantFields: noTypeFields, upstreamType: &empty},

	// Not a NamespaceMetadata file at all.
	// The Go type reads the first document and drops the second.
	{name: "two documents", data: header + "---\n" + header, wantErr: ErrInvalidFile, upstreamType: &empty},
	{name: "second document not YAML", data: header + "---\n[\n", wantErr: ErrInvalidFile, upstreamType: &empty},
	{name: "syntax error", data: header + "metadata: [\n", wantErr: ErrInvalidFile},
	{name: "tab indentation", data: header + "metadata:\n\tlabels: {}\n", wantErr: ErrInvalidFile},
	{name: "self-referencing alias", data: header + "x: &a [*a]\n", wantErr: ErrInvalidFile},
	{name: "undefined alias", data: header + "metadata: *nope\n", wantErr: ErrInvalidFile},
	{name: "nesting deeper than 10,000", data: header + "x: " + strings.Repeat("[", 10001) + strings.Repeat("]", 10001) + "\n", wantErr: ErrInvalidFile},
	{name: "billion laughs", data: billionLaughs(9), wantErr: ErrInvalidFile},
	{name: "billion laughs in labels", data: header + strings.TrimPrefix(billionLaughs(9), header) + "metadata: {labels: {a: *x9}}\n", wantErr: ErrInvalidFile},
	{name: "too large", data: header + "# " + strings.Repeat("x", maxFileSize), wantErr: ErrInvalidFile},
	{
		name: "exactly maxFileSize",
		data: header + "# " + strings.Repeat("x", maxFileSize-len(header)-3) + "\n",
		want: empty,
	},
	{name: "a sequence", data: "- a\n", wantErr: ErrInvalidFile},
	{name: "a scalar", data: "NamespaceMetadata\n", wantErr: ErrInvalidFile},
	{name: "a null key", data: header + "metadata:\n  labels:\n    ~: x\n", wantErr: ErrInvalidFile},

	// Directives: the Go type reads the first document, which a directive
	// ends. Issue 34, item 8: it read no labels.
	{
		name:         "a directive inside the document",
		data:         "apiVersion: source.extensions.fluxcd.io/v1beta1\nkind: NamespaceMetadata\n%YAML 1.1\nmetadata:\n  labels:\n    team: a\n",
		wantErr:      ErrInvalidFile,
		upstreamType: &empty,
	},
	{name: "a directive before the document", data: "%YAML 1.1\n---\n" + header, wantErr: ErrInvalidFile, upstreamType: &empty},
	{name: "a TAG directive", data: "%TAG !e! tag:example.com,2000:\n---\n" + header, wantErr: ErrInvalidFile, upstreamType: &empty},
	{
		name:         "a separator after a line separator",
		data:         header + "metadata:\n  labels:\n    team: a\u2028---\u2028    tier: b\n",
		wantErr:      ErrInvalidFile,
		upstreamType: &Metadata{Labels: map[string]string{"team": "a"}, Annotations: map[string]string{}},
	},

	// Duplicate keys are errors; the Go type keeps the last value.
	{name: "duplicate top-level key", data: header + "kind: Namespace\n", wantErr: ErrInvalidFile},
	{name: "duplicate label", data: header + "metadata:\n  labels:\n    a: v\n    a: w\n", wantErr: ErrInvalidFile,
		upstreamType: &Metadata{Labels: map[string]string{"a": "w"}, Annotations: map[string]string{}}},
	{name: "duplicate metadata field", data: header + "metadata:\n  labels: {a: v}\n  labels: {b: w}\n", wantErr: ErrInvalidFile,
		upstreamType: &Metadata{Labels: map[string]string{"b": "w"}, Annotations: map[string]string{}}},

	// The type fields.
	{
		name:         "missing type fields",
		data:         "metadata: {labels: {a: b}}\n",
		wantFields:   noTypeFields,
		upstreamType: &Metadata{Labels: map[string]string{"a": "b"}, Annotations: map[string]string{}},
	},
	{
		name: "wrong type fields",
		data: "apiVersion: v1\nkind: Namespace\n",
		wantFields: []fieldErr{
			{field.ErrorTypeNotSupported, "apiVersion", "v1"},
			{field.ErrorTypeNotSupported, "kind", "Namespace"},
		},
	},
	{
		name: "older API version",
		data: "apiVersion: source.extensions.fluxcd.io/v1alpha1\nkind: NamespaceMetadata\n",
		wantFields: []fieldErr{
			{field.ErrorTypeNotSupported, "apiVersion", "source.extensions.fluxcd.io/v1alpha1"},
		},
	},
	{
		name: "type fields that are not strings",
		data: "apiVersion: 1\nkind: [NamespaceMetadata]\n",
		wantFields: []fieldErr{
			{field.ErrorTypeTypeInvalid, "apiVersion", 1},
			{field.ErrorTypeTypeInvalid, "kind", field.OmitValueType{}},
		},
	},
	{
		name: "null and empty type fields",
		data: "apiVersion:\nkind: ''\n",
		wantFields: []fieldErr{
			{field.ErrorTypeRequired, "apiVersion", ""},
			{field.ErrorTypeNotSupported, "kind", ""},
		},
		upstreamType: &empty,
	},
	{
		// encoding/json, under the Go type, matches field names
		// case-insensitively, and reads apiVersion "v1".
		name: "type fields in another case",
		data: "APIVERSION: v1\nKind: NamespaceMetadata\n",
		wantFields: []fieldErr{
			{field.ErrorTypeForbidden, "APIVERSION", ""},
			{field.ErrorTypeForbidden, "Kind", ""},
			{field.ErrorTypeRequired, "apiVersion", ""},
			{field.ErrorTypeRequired, "kind", ""},
		},
	},

	// Other fields.
	{
		name: "unknown fields",
		data: header + "spec: {}\nmetadata:\n  lables: {team: a}\n  name: tenant-a\n",
		wantFields: []fieldErr{
			{field.ErrorTypeForbidden, "metadata.lables", ""},
			{field.ErrorTypeForbidden, "metadata.name", ""},
			{field.ErrorTypeForbidden, "spec", ""},
		},
		upstreamType: &empty,
	},
	{
		name:         "metadata fields in another case",
		data:         header + "Metadata:\n  LABELS: {team: a}\n",
		wantFields:   []fieldErr{{field.ErrorTypeForbidden, "Metadata", ""}},
		upstreamType: &Metadata{Labels: map[string]string{"team": "a"}, Annotations: map[string]string{}},
	},
	{
		// sigs.k8s.io/yaml reads a key that is a number or a boolean as its
		// text: these are unknown fields, not keys of the wrong type.
		name: "number and boolean field names",
		data: header + "1: x\nmetadata:\n  true: x\n",
		wantFields: []fieldErr{
			{field.ErrorTypeForbidden, "1", ""},
			{field.ErrorTypeForbidden, "metadata.true", ""},
		},
		upstreamType: &empty,
	},
	{
		name: "wrong shapes",
		data: header + "metadata:\n  labels: [a]\n  annotations: text\n",
		wantFields: []fieldErr{
			{field.ErrorTypeTypeInvalid, "metadata.annotations", "text"},
			{field.ErrorTypeTypeInvalid, "metadata.labels", field.OmitValueType{}},
		},
	},
	{
		name: "metadata not a mapping",
		data: header + "metadata: [labels]\n",
		wantFields: []fieldErr{
			{field.ErrorTypeTypeInvalid, "metadata", field.OmitValueType{}},
		},
	},

	// Values.
	{
		// The Go type reads a number or a boolean that lands in a string
		// as its text: on, yes and true are "true", 1.0 is "1", 0x1F is
		// "31", 017 is "15", null is "". The key 7 reads as the label "7";
		// on is the boolean true, key and value.
		name: "unquoted values that are not strings",
		data: header + "metadata:\n  labels:\n    enabled: true\n    on: on\n    ready: yes\n    count: 1\n    ratio: 1.0\n    hex: 0x1F\n    octal: 017\n    none: ~\n    7: seven\n",
		wantFields: []fieldErr{
			{field.ErrorTypeTypeInvalid, "metadata.labels[count]", 1},
			{field.ErrorTypeTypeInvalid, "metadata.labels[enabled]", true},
			{field.ErrorTypeTypeInvalid, "metadata.labels[hex]", 31},
			{field.ErrorTypeTypeInvalid, "metadata.labels[none]", nil},
			{field.ErrorTypeTypeInvalid, "metadata.labels[octal]", 15},
			{field.ErrorTypeTypeInvalid, "metadata.labels[ratio]", 1},
			{field.ErrorTypeTypeInvalid, "metadata.labels[ready]", true},
			{field.ErrorTypeTypeInvalid, "metadata.labels[true]", true},
		},
		upstreamType: &Metadata{Labels: map[string]string{
			"enabled": "true", "true": "true", "ready": "true", "count": "1", "ratio": "1", "hex": "31", "octal": "15", "none": "", "7": "seven",
		}, Annotations: map[string]string{}},
	},
	{
		// An untyped value, which JSON's numbers cannot hold infinity in.
		name:    "an unquoted number that is no label value",
		data:    header + "metadata:\n  labels:\n    a: .inf\n    b: -1\n",
		wantErr: ErrInvalidFile,
	},
	{
		name: "values that are sequences or mappings",
		data: header + "metadata:\n  labels:\n    list: [a]\n    map: {a: b}\n    ok: x\n    bad key: x\n  annotations:\n    a: []\n",
		wantFields: []fieldErr{
			{field.ErrorTypeTypeInvalid, "metadata.annotations[a]", field.OmitValueType{}},
			{field.ErrorTypeInvalid, "metadata.labels[bad key]", "bad key"},
			{field.ErrorTypeTypeInvalid, "metadata.labels[list]", field.OmitValueType{}},
			{field.ErrorTypeTypeInvalid, "metadata.labels[map]", field.OmitValueType{}},
		},
	},
	{
		name: "invalid keys and values",
		data: header + "metadata:\n  labels:\n    bad key: x\n    team: a b\n  annotations:\n    -bad: x\n",
		wantFields: []fieldErr{
			{field.ErrorTypeInvalid, "metadata.annotations[-bad]", "-bad"},
			{field.ErrorTypeInvalid, "metadata.labels[bad key]", "bad key"},
			{field.ErrorTypeInvalid, "metadata.labels[team]", "a b"},
		},
	},
	{
		name: "a long label value is shown by its first 64 bytes",
		data: header + "metadata:\n  labels:\n    team: " + strings.Repeat("x", 1000) + "\n",
		wantFields: []fieldErr{
			{field.ErrorTypeInvalid, "metadata.labels[team]", strings.Repeat("x", 64) + "... (1000 bytes)"},
		},
	},
	{
		name: "annotations over 256 KiB",
		data: header + "metadata:\n  annotations:\n    a: " + strings.Repeat("x", 200<<10) + "\n    b: " + strings.Repeat("x", 200<<10) + "\n",
		wantFields: []fieldErr{
			{field.ErrorTypeTooLong, "metadata.annotations", "<value omitted>"},
		},
	},
}

func TestParseFile(t *testing.T) {
	t.Parallel()
	for _, tc := range parseFileTests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, errs, err := ParseFile([]byte(tc.data))
			if !errors.Is(err, tc.wantErr) || (tc.wantErr == nil && err != nil) {
				t.Fatalf("ParseFile() error = %v, want %v", err, tc.wantErr)
			}
			if diff := cmp.Diff(tc.wantFields, project(errs)); diff != "" {
				t.Errorf("ParseFile() field errors (-want +got):\n%s", diff)
			}
			var want Metadata
			if tc.wantErr == nil && tc.wantFields == nil {
				want = tc.want
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("ParseFile() (-want +got):\n%s", diff)
			}
		})
	}
}

// TestParseFileEmpty checks what a tenant reads for a file that asks for
// nothing: what the file holds, and what it needs (issue 38, item 8: the
// message named no value found). A file with a document that lacks the
// type fields reports each at its name.
func TestParseFileEmpty(t *testing.T) {
	t.Parallel()
	const (
		needs   = `; a NamespaceMetadata file needs apiVersion "source.extensions.fluxcd.io/v1beta1" and kind "NamespaceMetadata"`
		noDoc   = `apiVersion: Required value: the file is empty or holds only comments and separators` + needs
		null    = `apiVersion: Required value: the file's document is null` + needs
		mapping = `[apiVersion: Required value: must be "source.extensions.fluxcd.io/v1beta1", kind: Required value: must be "NamespaceMetadata"]`
	)
	for _, tc := range []struct {
		name, data, want string
	}{
		{name: "empty", data: "", want: noDoc},
		{name: "blank lines", data: "\n  \n", want: noDoc},
		{name: "a comment", data: "# nothing yet\n", want: noDoc},
		{name: "a separator", data: "---\n", want: noDoc},
		{name: "separators and comments", data: "---\n# to do\n---\n...\n", want: noDoc},
		{name: "null", data: "null\n", want: null},
		{name: "tilde", data: "~\n", want: null},
		{name: "null after a separator and a comment", data: "---\n# to do\nnull\n", want: null},
		{name: "an empty mapping", data: "{}\n", want: mapping},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			m, errs, err := ParseFile([]byte(tc.data))
			if err != nil || errs.ToAggregate() == nil || errs.ToAggregate().Error() != tc.want || m.Labels != nil {
				t.Errorf("ParseFile(%q) = %v, %v, %v; want the errors %s", tc.data, m, errs, err, tc.want)
			}
		})
	}
}

// TestParseFileOptions checks that ParseFile refuses every option but
// WithCache at its name.
func TestParseFileOptions(t *testing.T) {
	t.Parallel()
	m, errs, err := ParseFile([]byte(header), WithProtectedNames("a"), WithStrict(), WithCache(nil))
	want := []fieldErr{
		{field.ErrorTypeForbidden, "WithProtectedNames", ""},
		{field.ErrorTypeForbidden, "WithStrict", ""},
	}
	if diff := cmp.Diff(want, project(errs)); err != nil || m.Labels != nil || diff != "" {
		t.Errorf("ParseFile(WithProtectedNames, WithStrict) = %v, %v, (-want +got):\n%s", m, err, diff)
	}
	if _, errs, err := ParseFile([]byte(header), WithStrict()); err != nil || errs.ToAggregate().Error() != "WithStrict: Forbidden: does not apply to ParseFile" {
		t.Errorf("ParseFile(WithStrict) = %v, %v", errs, err)
	}
	if m, errs, err := ParseFile([]byte(header), WithCache(nil)); err != nil || errs != nil || m.Labels == nil {
		t.Errorf("ParseFile(WithCache) = %v, %v, %v", m, errs, err)
	}
}

// TestParseFileBombs checks that hostile documents fail with bounded memory.
// It is not parallel, so that the allocation count is its own.
func TestParseFileBombs(t *testing.T) {
	for _, tc := range []struct {
		name string
		data string
	}{
		{name: "billion laughs", data: billionLaughs(9)},
		{name: "billion laughs in labels", data: header + strings.TrimPrefix(billionLaughs(9), header) + "metadata: {labels: {a: *x9}}\n"},
		{name: "merge bomb", data: mergeBomb(200, 20000)},
		{name: "deep nesting", data: header + "x: " + strings.Repeat("[", 10001) + strings.Repeat("]", 10001) + "\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			_, _, err := ParseFile([]byte(tc.data))
			runtime.ReadMemStats(&after)
			if !errors.Is(err, ErrInvalidFile) {
				t.Fatalf("ParseFile() error = %v, want %v", err, ErrInvalidFile)
			}
			// A generous bound for a race-instrumented run: the point is that
			// the bomb is not expanded (that would take GiBs).
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 256<<20 {
				t.Errorf("ParseFile() allocated %d MiB, want under 256 MiB", alloc>>20)
			}
		})
	}
}

// TestParseFileExpansion checks the file of issue 18: 77 KB whose labels
// all reuse one long value through an alias, which was slow to decode and
// returned a huge error, one label error quoting the whole value each. It
// is refused before it is decoded, with a short error.
func TestParseFileExpansion(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString(header + "metadata:\n  annotations:\n    big: &v " + strings.Repeat("x", 60_000) + "\n  labels:\n")
	for i := 0; b.Len() < 77_000; i++ {
		fmt.Fprintf(&b, "    l%d: *v\n", i)
	}
	_, errs, err := ParseFile([]byte(b.String()))
	if !errors.Is(err, ErrInvalidFile) || !errors.Is(err, yamldoc.ErrExpansion) || errs != nil {
		t.Fatalf("ParseFile() = %v, %v; want %v and %v", errs, err, ErrInvalidFile, yamldoc.ErrExpansion)
	}
	if n := len(err.Error()); n > 256 {
		t.Errorf("ParseFile() error has %d bytes, want at most 256", n)
	}
}

// TestParseFileLongValues checks that label errors stay short when every
// value is long, written out rather than aliased: each shows 64 bytes of its
// value.
func TestParseFileLongValues(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString(header + "metadata:\n  labels:\n")
	for i := range 15 {
		fmt.Fprintf(&b, "    l%d: %s\n", i, strings.Repeat("x", 64<<10))
	}
	_, errs, err := ParseFile([]byte(b.String()))
	if err != nil || len(errs) != 15 {
		t.Fatalf("ParseFile() = %v, %v; want 15 field errors", errs, err)
	}
	if n := len(errs.ToAggregate().Error()); n > 15*256 {
		t.Errorf("ParseFile() errors have %d bytes, want at most %d", n, 15*256)
	}
}

// upstreamType is source-watcher v2.3's Go type for a NamespaceMetadata
// file (v1beta1.NamespaceMetadata in github.com/fluxcd/source-watcher/api/v2),
// written here from its definition for readAsUpstreamType.
type upstreamType struct {
	metav1.TypeMeta `json:",inline"`
	Metadata        struct {
		Annotations map[string]string `json:"annotations,omitempty"`
		Labels      map[string]string `json:"labels,omitempty"`
	} `json:"metadata,omitempty"`
}

// readAsUpstreamType reads data into source-watcher's Go type with one
// sigs.k8s.io/yaml.Unmarshal, as a reader that does not check the
// published schema would, then checks apiVersion and kind when they are
// not empty. Its maps are never nil.
func readAsUpstreamType(data []byte) (m Metadata, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v", r)
		}
	}()
	var f upstreamType
	if err := yaml.Unmarshal(data, &f); err != nil {
		return Metadata{}, err
	}
	if f.APIVersion != "" && f.APIVersion != "source.extensions.fluxcd.io/v1beta1" {
		return Metadata{}, fmt.Errorf("unsupported apiVersion %q", f.APIVersion)
	}
	if f.Kind != "" && f.Kind != "NamespaceMetadata" {
		return Metadata{}, fmt.Errorf("unsupported kind %q", f.Kind)
	}
	m = Metadata{Labels: f.Metadata.Labels, Annotations: f.Metadata.Annotations}
	if m.Labels == nil {
		m.Labels = map[string]string{}
	}
	if m.Annotations == nil {
		m.Annotations = map[string]string{}
	}
	return m, nil
}

// TestParseFileAsUpstreamType reads every file of parseFileTests both
// ways. A file ParseFile accepts reads the same through source-watcher's
// Go type (checkAsUpstreamType); a file it refuses where the Go type reads
// something is where tenantkit keeps to the published schema, or to its
// own bounds: the case says what the Go type reads, and every such file
// is listed.
func TestParseFileAsUpstreamType(t *testing.T) {
	t.Parallel()
	for _, tc := range parseFileTests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			checkAsUpstreamType(t, []byte(tc.data))
			if tc.wantErr == nil && tc.wantFields == nil {
				return
			}
			up, uerr := readAsUpstreamType([]byte(tc.data))
			switch {
			case tc.upstreamType == nil && uerr == nil && len(up.Validate(field.NewPath("metadata"))) == 0 && len(tc.data) <= maxFileSize:
				t.Fatalf("the Go type reads %v from a file ParseFile refuses; the case must say so", up)
			case tc.upstreamType != nil && uerr != nil:
				t.Fatalf("the Go type refuses the file: %v", uerr)
			case tc.upstreamType != nil:
				if diff := cmp.Diff(*tc.upstreamType, up); diff != "" {
					t.Errorf("the Go type reads (-want +got):\n%s", diff)
				}
			}
		})
	}
}

// checkAsUpstreamType checks that a file ParseFile accepts reads the same
// through source-watcher's Go type (readAsUpstreamType): ParseFile may
// refuse what the Go type reads, never read it differently.
func checkAsUpstreamType(t *testing.T, data []byte) {
	t.Helper()
	m, errs, err := ParseFile(data)
	if err != nil || errs != nil {
		return
	}
	up, uerr := readAsUpstreamType(data)
	if uerr != nil {
		t.Fatalf("ParseFile(%q) accepted a file that source-watcher's Go type refuses: %v", data, uerr)
	}
	if diff := cmp.Diff(up, m); diff != "" {
		t.Fatalf("ParseFile(%q) (-Go type +ParseFile):\n%s", data, diff)
	}
}

// FuzzParseFile checks that no input panics; that a file refused as a
// whole gives a FileError in the file's words; that an accepted file yields
// valid metadata, which written back as a file parses again to the same
// metadata; and that it reads the same through source-watcher's Go type
// (checkAsUpstreamType).
func FuzzParseFile(f *testing.F) {
	for _, tc := range parseFileTests {
		if len(tc.data) < 4096 {
			f.Add([]byte(tc.data))
		}
	}
	for _, tc := range hostileFileTests {
		if len(tc.data) < 4096 {
			f.Add([]byte(tc.data))
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, errs, err := ParseFile(data)
		if err != nil || errs != nil {
			if (err == nil) == (errs == nil) {
				t.Fatalf("ParseFile() = %v, %v: want exactly one of them", errs, err)
			}
			if err != nil {
				// In the file's words, whatever found it.
				checkFileError(t, err)
			}
			return
		}
		if errs := m.Validate(field.NewPath("metadata")); len(errs) > 0 {
			t.Fatalf("ParseFile() accepted invalid metadata: %v", errs)
		}
		out, err := yaml.Marshal(map[string]any{"apiVersion": fileAPIVersion, "kind": fileKind, "metadata": m})
		if err != nil {
			t.Fatalf("yaml.Marshal() error = %v", err)
		}
		again, errs, err := ParseFile(out)
		if err != nil || errs != nil {
			t.Fatalf("ParseFile(%q) = %v, %v, of a file written from %q", out, errs, err, data)
		}
		if diff := cmp.Diff(m, again); diff != "" {
			t.Fatalf("round trip (-first +second):\n%s", diff)
		}
		checkAsUpstreamType(t, data)
	})
}

func BenchmarkParseFile(b *testing.B) {
	for _, n := range []int{1, 10, 100} {
		var doc strings.Builder
		doc.WriteString(header + "metadata:\n  labels:\n")
		for i := range n {
			fmt.Fprintf(&doc, "    example.com/label-%d: value-%d\n", i, i)
		}
		doc.WriteString("  annotations:\n")
		for i := range n {
			fmt.Fprintf(&doc, "    example.com/annotation-%d: \"a longer value, number %d\"\n", i, i)
		}
		data := []byte(doc.String())
		b.Run(fmt.Sprintf("keys=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, errs, err := ParseFile(data); err != nil || errs != nil {
					b.Fatal(errs, err)
				}
			}
		})
	}
}
