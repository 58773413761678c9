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

// fileOutcome is what ParseFile returns for a file in one reading.
type fileOutcome struct {
	want       Metadata
	wantErr    error      // ErrInvalidFile or nil
	wantFields []fieldErr // the field errors, when wantErr is nil
}

// empty is the Metadata of a file that asks for nothing.
var empty = Metadata{Labels: map[string]string{}, Annotations: map[string]string{}}

// parseFileTests list, for each file, what the default reading returns
// and, where it differs, what WithStrict returns.
var parseFileTests = []struct {
	name string
	data string
	fileOutcome
	strict *fileOutcome // nil: as the default reading
}{
	{name: "type fields only", data: header, fileOutcome: fileOutcome{want: empty}},
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
		fileOutcome: fileOutcome{want: Metadata{
			Labels:      map[string]string{"team": "payments", "tier": "1", "enabled": "true"},
			Annotations: map[string]string{"my.org.io/observability": "Enabled", "my.org.io/note": "multi-word: value"},
		}},
	},
	{
		name:        "null maps, comments, document markers",
		data:        "# tenant metadata\n---\n" + header + "metadata:\n  labels:\n  annotations: ~\n...\n---\n",
		fileOutcome: fileOutcome{want: empty},
	},
	{
		name:        "a legitimate alias",
		data:        header + "metadata:\n  labels: &l {team: payments}\n  annotations: *l\n",
		fileOutcome: fileOutcome{want: Metadata{Labels: map[string]string{"team": "payments"}, Annotations: map[string]string{"team": "payments"}}},
	},
	{
		name:        "flow style",
		data:        `{apiVersion: source.extensions.fluxcd.io/v1beta1, kind: NamespaceMetadata, metadata: {labels: {a: b}}}`,
		fileOutcome: fileOutcome{want: Metadata{Labels: map[string]string{"a": "b"}, Annotations: map[string]string{}}},
	},

	// A file that asks for nothing: source-watcher reads it as empty
	// metadata; WithStrict wants a document.
	{name: "empty", data: "", fileOutcome: fileOutcome{want: empty}, strict: &fileOutcome{wantErr: ErrInvalidFile}},
	{name: "whitespace", data: " \n\n   \n", fileOutcome: fileOutcome{want: empty}, strict: &fileOutcome{wantErr: ErrInvalidFile}},
	{name: "comments only", data: "# nothing\n", fileOutcome: fileOutcome{want: empty}, strict: &fileOutcome{wantErr: ErrInvalidFile}},
	{name: "null document", data: "null\n", fileOutcome: fileOutcome{want: empty}, strict: &fileOutcome{wantErr: ErrInvalidFile}},
	{name: "markers only", data: "---\n---\n", fileOutcome: fileOutcome{want: empty}, strict: &fileOutcome{wantErr: ErrInvalidFile}},
	{name: "an empty mapping", data: "{}\n", fileOutcome: fileOutcome{want: empty}, strict: &fileOutcome{wantFields: []fieldErr{
		{field.ErrorTypeRequired, "apiVersion", ""},
		{field.ErrorTypeRequired, "kind", ""},
	}}},

	// Not a NamespaceMetadata file at all, in either reading.
	{name: "two documents", data: header + "---\n" + header, fileOutcome: fileOutcome{wantErr: ErrInvalidFile}},
	{name: "second document not YAML", data: header + "---\n[\n", fileOutcome: fileOutcome{wantErr: ErrInvalidFile}},
	{name: "syntax error", data: header + "metadata: [\n", fileOutcome: fileOutcome{wantErr: ErrInvalidFile}},
	{name: "tab indentation", data: header + "metadata:\n\tlabels: {}\n", fileOutcome: fileOutcome{wantErr: ErrInvalidFile}},
	{name: "self-referencing alias", data: header + "x: &a [*a]\n", fileOutcome: fileOutcome{wantErr: ErrInvalidFile}},
	{name: "undefined alias", data: header + "metadata: *nope\n", fileOutcome: fileOutcome{wantErr: ErrInvalidFile}},
	{name: "nesting deeper than 10,000", data: header + "x: " + strings.Repeat("[", 10001) + strings.Repeat("]", 10001) + "\n", fileOutcome: fileOutcome{wantErr: ErrInvalidFile}},
	{name: "billion laughs", data: billionLaughs(9), fileOutcome: fileOutcome{wantErr: ErrInvalidFile}},
	{name: "billion laughs in labels", data: header + strings.TrimPrefix(billionLaughs(9), header) + "metadata: {labels: {a: *x9}}\n", fileOutcome: fileOutcome{wantErr: ErrInvalidFile}},
	{name: "too large", data: header + "# " + strings.Repeat("x", maxFileSize), fileOutcome: fileOutcome{wantErr: ErrInvalidFile}},
	{
		name:        "exactly maxFileSize",
		data:        header + "# " + strings.Repeat("x", maxFileSize-len(header)-3) + "\n",
		fileOutcome: fileOutcome{want: empty},
	},
	{name: "a sequence", data: "- a\n", fileOutcome: fileOutcome{wantErr: ErrInvalidFile}},
	{name: "a scalar", data: "NamespaceMetadata\n", fileOutcome: fileOutcome{wantErr: ErrInvalidFile}},
	{name: "a null key", data: header + "metadata:\n  labels:\n    ~: x\n", fileOutcome: fileOutcome{wantErr: ErrInvalidFile}},

	// Duplicate keys: the last value wins, as in source-watcher.
	{name: "duplicate top-level key", data: header + "kind: Namespace\n",
		fileOutcome: fileOutcome{wantFields: []fieldErr{{field.ErrorTypeNotSupported, "kind", "Namespace"}}},
		strict:      &fileOutcome{wantErr: ErrInvalidFile}},
	{name: "duplicate label", data: header + "metadata:\n  labels:\n    a: v\n    a: w\n",
		fileOutcome: fileOutcome{want: Metadata{Labels: map[string]string{"a": "w"}, Annotations: map[string]string{}}},
		strict:      &fileOutcome{wantErr: ErrInvalidFile}},
	{name: "duplicate metadata field", data: header + "metadata:\n  labels: {a: v}\n  labels: {b: w}\n",
		fileOutcome: fileOutcome{want: Metadata{Labels: map[string]string{"b": "w"}, Annotations: map[string]string{}}},
		strict:      &fileOutcome{wantErr: ErrInvalidFile}},

	// The type fields.
	{
		name:        "missing type fields",
		data:        "metadata: {labels: {a: b}}\n",
		fileOutcome: fileOutcome{want: Metadata{Labels: map[string]string{"a": "b"}, Annotations: map[string]string{}}},
		strict: &fileOutcome{wantFields: []fieldErr{
			{field.ErrorTypeRequired, "apiVersion", ""},
			{field.ErrorTypeRequired, "kind", ""},
		}},
	},
	{
		name: "wrong type fields",
		data: "apiVersion: v1\nkind: Namespace\n",
		fileOutcome: fileOutcome{wantFields: []fieldErr{
			{field.ErrorTypeNotSupported, "apiVersion", "v1"},
			{field.ErrorTypeNotSupported, "kind", "Namespace"},
		}},
	},
	{
		name: "older API version",
		data: "apiVersion: source.extensions.fluxcd.io/v1alpha1\nkind: NamespaceMetadata\n",
		fileOutcome: fileOutcome{wantFields: []fieldErr{
			{field.ErrorTypeNotSupported, "apiVersion", "source.extensions.fluxcd.io/v1alpha1"},
		}},
	},
	{
		// sigs.k8s.io/yaml does not turn these into strings: the field is
		// in the inline TypeMeta.
		name: "type fields that are not strings",
		data: "apiVersion: 1\nkind: [NamespaceMetadata]\n",
		fileOutcome: fileOutcome{wantFields: []fieldErr{
			{field.ErrorTypeTypeInvalid, "apiVersion", 1},
			{field.ErrorTypeTypeInvalid, "kind", field.OmitValueType{}},
		}},
	},
	{
		name:        "null and empty type fields",
		data:        "apiVersion:\nkind: ''\n",
		fileOutcome: fileOutcome{want: empty},
		strict: &fileOutcome{wantFields: []fieldErr{
			{field.ErrorTypeRequired, "apiVersion", ""},
			{field.ErrorTypeNotSupported, "kind", ""},
		}},
	},
	{
		// encoding/json matches field names case-insensitively.
		name:        "type fields in another case",
		data:        "APIVERSION: v1\nKind: NamespaceMetadata\n",
		fileOutcome: fileOutcome{wantFields: []fieldErr{{field.ErrorTypeNotSupported, "apiVersion", "v1"}}},
		strict: &fileOutcome{wantFields: []fieldErr{
			{field.ErrorTypeForbidden, "APIVERSION", ""},
			{field.ErrorTypeForbidden, "Kind", ""},
			{field.ErrorTypeRequired, "apiVersion", ""},
			{field.ErrorTypeRequired, "kind", ""},
		}},
	},

	// Other fields.
	{
		name:        "unknown fields",
		data:        header + "spec: {}\nmetadata:\n  lables: {team: a}\n  name: tenant-a\n",
		fileOutcome: fileOutcome{want: empty},
		strict: &fileOutcome{wantFields: []fieldErr{
			{field.ErrorTypeForbidden, "metadata.lables", ""},
			{field.ErrorTypeForbidden, "metadata.name", ""},
			{field.ErrorTypeForbidden, "spec", ""},
		}},
	},
	{
		name:        "metadata fields in another case",
		data:        header + "Metadata:\n  LABELS: {team: a}\n",
		fileOutcome: fileOutcome{want: Metadata{Labels: map[string]string{"team": "a"}, Annotations: map[string]string{}}},
		strict:      &fileOutcome{wantFields: []fieldErr{{field.ErrorTypeForbidden, "Metadata", ""}}},
	},
	{
		// sigs.k8s.io/yaml reads a key that is a number or a boolean as its
		// text: these are unknown fields, not keys of the wrong type.
		name:        "number and boolean field names",
		data:        header + "1: x\nmetadata:\n  true: x\n",
		fileOutcome: fileOutcome{want: empty},
		strict: &fileOutcome{wantFields: []fieldErr{
			{field.ErrorTypeForbidden, "1", ""},
			{field.ErrorTypeForbidden, "metadata.true", ""},
		}},
	},
	{
		name: "wrong shapes",
		data: header + "metadata:\n  labels: [a]\n  annotations: text\n",
		fileOutcome: fileOutcome{wantFields: []fieldErr{
			{field.ErrorTypeTypeInvalid, "metadata.annotations", "text"},
			{field.ErrorTypeTypeInvalid, "metadata.labels", field.OmitValueType{}},
		}},
	},
	{
		name: "metadata not a mapping",
		data: header + "metadata: [labels]\n",
		fileOutcome: fileOutcome{wantFields: []fieldErr{
			{field.ErrorTypeTypeInvalid, "metadata", field.OmitValueType{}},
		}},
	},

	// Values.
	{
		// sigs.k8s.io/yaml writes a number or a boolean that lands in a
		// string as its text: on, yes and true are "true", 1.0 is "1", 0x1F
		// is "31", 017 is "15", null is "". The key 7 reads as the label
		// "7"; on is the boolean true, key and value.
		name: "unquoted values that are not strings",
		data: header + "metadata:\n  labels:\n    enabled: true\n    on: on\n    ready: yes\n    count: 1\n    ratio: 1.0\n    hex: 0x1F\n    octal: 017\n    none: ~\n    7: seven\n",
		fileOutcome: fileOutcome{want: Metadata{Labels: map[string]string{
			"enabled": "true", "true": "true", "ready": "true", "count": "1", "ratio": "1", "hex": "31", "octal": "15", "none": "", "7": "seven",
		}, Annotations: map[string]string{}}},
		strict: &fileOutcome{wantFields: []fieldErr{
			{field.ErrorTypeTypeInvalid, "metadata.labels[count]", 1},
			{field.ErrorTypeTypeInvalid, "metadata.labels[enabled]", true},
			{field.ErrorTypeTypeInvalid, "metadata.labels[hex]", 31},
			{field.ErrorTypeTypeInvalid, "metadata.labels[none]", nil},
			{field.ErrorTypeTypeInvalid, "metadata.labels[octal]", 15},
			{field.ErrorTypeTypeInvalid, "metadata.labels[ratio]", 1},
			{field.ErrorTypeTypeInvalid, "metadata.labels[ready]", true},
			{field.ErrorTypeTypeInvalid, "metadata.labels[true]", true},
		}},
	},
	{
		// A number that becomes an invalid label value is reported as such.
		// WithStrict decodes into an untyped value, which JSON's numbers
		// cannot hold infinity in.
		name:        "an unquoted number that is no label value",
		data:        header + "metadata:\n  labels:\n    a: .inf\n    b: -1\n",
		fileOutcome: fileOutcome{wantFields: []fieldErr{{field.ErrorTypeInvalid, "metadata.labels[a]", "+Inf"}, {field.ErrorTypeInvalid, "metadata.labels[b]", "-1"}}},
		strict:      &fileOutcome{wantErr: ErrInvalidFile},
	},
	{
		// Each value that cannot be a string is reported; the other keys
		// are checked once those are fixed.
		name: "values that are sequences or mappings",
		data: header + "metadata:\n  labels:\n    list: [a]\n    map: {a: b}\n    ok: x\n    bad key: x\n  annotations:\n    a: []\n",
		fileOutcome: fileOutcome{wantFields: []fieldErr{
			{field.ErrorTypeTypeInvalid, "metadata.annotations[a]", field.OmitValueType{}},
			{field.ErrorTypeTypeInvalid, "metadata.labels[list]", field.OmitValueType{}},
			{field.ErrorTypeTypeInvalid, "metadata.labels[map]", field.OmitValueType{}},
		}},
		strict: &fileOutcome{wantFields: []fieldErr{
			{field.ErrorTypeTypeInvalid, "metadata.annotations[a]", field.OmitValueType{}},
			{field.ErrorTypeInvalid, "metadata.labels[bad key]", "bad key"},
			{field.ErrorTypeTypeInvalid, "metadata.labels[list]", field.OmitValueType{}},
			{field.ErrorTypeTypeInvalid, "metadata.labels[map]", field.OmitValueType{}},
		}},
	},
	{
		name: "invalid keys and values",
		data: header + "metadata:\n  labels:\n    bad key: x\n    team: a b\n  annotations:\n    -bad: x\n",
		fileOutcome: fileOutcome{wantFields: []fieldErr{
			{field.ErrorTypeInvalid, "metadata.annotations[-bad]", "-bad"},
			{field.ErrorTypeInvalid, "metadata.labels[bad key]", "bad key"},
			{field.ErrorTypeInvalid, "metadata.labels[team]", "a b"},
		}},
	},
	{
		name: "a long label value is shown by its first 64 bytes",
		data: header + "metadata:\n  labels:\n    team: " + strings.Repeat("x", 1000) + "\n",
		fileOutcome: fileOutcome{wantFields: []fieldErr{
			{field.ErrorTypeInvalid, "metadata.labels[team]", strings.Repeat("x", 64) + "... (1000 bytes)"},
		}},
	},
	{
		name: "annotations over 256 KiB",
		data: header + "metadata:\n  annotations:\n    a: " + strings.Repeat("x", 200<<10) + "\n    b: " + strings.Repeat("x", 200<<10) + "\n",
		fileOutcome: fileOutcome{wantFields: []fieldErr{
			{field.ErrorTypeTooLong, "metadata.annotations", "<value omitted>"},
		}},
	},
}

func TestParseFile(t *testing.T) {
	t.Parallel()
	for _, tc := range parseFileTests {
		for _, strict := range []bool{false, true} {
			want, opts := tc.fileOutcome, []Option(nil)
			if strict {
				opts = []Option{WithStrict()}
				if tc.strict != nil {
					want = *tc.strict
				}
			}
			t.Run(fmt.Sprintf("%s/strict=%v", tc.name, strict), func(t *testing.T) {
				t.Parallel()
				got, errs, err := ParseFile([]byte(tc.data), opts...)
				if !errors.Is(err, want.wantErr) || (want.wantErr == nil && err != nil) {
					t.Fatalf("ParseFile() error = %v, want %v", err, want.wantErr)
				}
				if diff := cmp.Diff(want.wantFields, project(errs)); diff != "" {
					t.Errorf("ParseFile() field errors (-want +got):\n%s", diff)
				}
				if diff := cmp.Diff(want.want, got); diff != "" {
					t.Errorf("ParseFile() (-want +got):\n%s", diff)
				}
			})
		}
	}
}

// TestParseFileOptions checks that ParseFile refuses the options of the
// constructors at their names.
func TestParseFileOptions(t *testing.T) {
	t.Parallel()
	m, errs, err := ParseFile([]byte(header), WithProtectedNames("a"), WithStrict(), WithCache(nil))
	want := []fieldErr{{field.ErrorTypeForbidden, "WithProtectedNames", ""}}
	if diff := cmp.Diff(want, project(errs)); err != nil || m.Labels != nil || diff != "" {
		t.Errorf("ParseFile(WithProtectedNames) = %v, %v, (-want +got):\n%s", m, err, diff)
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
// all reuse one long value through an alias, which took 7 to 17 s and
// returned a 100 MB error, one label error quoting the whole value each. It
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

// sourceWatcherFile is the Go type source-watcher v2.3 decodes a
// NamespaceMetadata file into (api/v1beta1 NamespaceMetadata), written here
// from its definition for readAsSourceWatcher.
type sourceWatcherFile struct {
	metav1.TypeMeta `json:",inline"`
	Metadata        struct {
		Annotations map[string]string `json:"annotations,omitempty"`
		Labels      map[string]string `json:"labels,omitempty"`
	} `json:"metadata,omitempty"`
}

// readAsSourceWatcher reads data as source-watcher v2.3 reads a
// NamespaceMetadata file (loadNamespaceMetadataFromSource): one
// sigs.k8s.io/yaml.Unmarshal into its type, then apiVersion and kind,
// each checked when it is not empty. Its maps are never nil.
func readAsSourceWatcher(data []byte) (m Metadata, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v", r)
		}
	}()
	var f sourceWatcherFile
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

// TestParseFileAsSourceWatcher checks the default reading of every file of
// parseFileTests against readAsSourceWatcher (checkAsSourceWatcher).
func TestParseFileAsSourceWatcher(t *testing.T) {
	t.Parallel()
	for _, tc := range parseFileTests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			checkAsSourceWatcher(t, []byte(tc.data))
		})
	}
}

// checkAsSourceWatcher checks that the default reading of data agrees with
// source-watcher's: it accepts a file exactly when source-watcher does,
// with the same metadata, unless the file breaks one of tenantkit's own
// rules (the size bound, the alias bound, more than one document, a
// document hidden behind an empty one, a key or value that apimachinery
// refuses), which are what it then reports.
func checkAsSourceWatcher(t *testing.T, data []byte) {
	t.Helper()
	m, errs, err := ParseFile(data)
	up, uerr := readAsSourceWatcher(data)
	switch {
	case err == nil && errs == nil:
		if uerr != nil {
			t.Fatalf("ParseFile(%q) accepted a file that source-watcher refuses: %v", data, uerr)
		}
		if diff := cmp.Diff(up, m); diff != "" {
			t.Fatalf("ParseFile(%q) (-source-watcher +ParseFile):\n%s", data, diff)
		}
	case uerr != nil:
		// Both refuse.
	case err != nil:
		docs, derr := yamldoc.Documents(data)
		if len(data) <= maxFileSize && derr == nil && len(docs) <= 1 && !errors.Is(err, errHiddenDocument) {
			t.Fatalf("ParseFile(%q) = %v; source-watcher accepts it and it is within tenantkit's bounds", data, err)
		}
	default:
		if diff := cmp.Diff(project(up.Validate(field.NewPath("metadata"))), project(errs)); diff != "" {
			t.Fatalf("ParseFile(%q): the errors are not those of the metadata source-watcher reads (-want +got):\n%s", data, diff)
		}
	}
}

// FuzzParseFile checks, for both readings, that no input panics, that an
// accepted file yields valid metadata, and that writing that metadata back
// as a file and parsing it again gives the same metadata; that a file
// WithStrict accepts gives the same metadata by default; and that the
// default reading agrees with source-watcher's (checkAsSourceWatcher).
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
		var accepted [2]*Metadata
		for i, opts := range [][]Option{nil, {WithStrict()}} {
			m, errs, err := ParseFile(data, opts...)
			if err != nil || errs != nil {
				if (err == nil) == (errs == nil) {
					t.Fatalf("ParseFile() = %v, %v: want exactly one of them", errs, err)
				}
				continue
			}
			accepted[i] = &m
			if errs := m.Validate(field.NewPath("metadata")); len(errs) > 0 {
				t.Fatalf("ParseFile() accepted invalid metadata: %v", errs)
			}
			out, err := yaml.Marshal(map[string]any{"apiVersion": fileAPIVersion, "kind": fileKind, "metadata": m})
			if err != nil {
				t.Fatalf("yaml.Marshal() error = %v", err)
			}
			again, errs, err := ParseFile(out, opts...)
			if err != nil || errs != nil {
				t.Fatalf("ParseFile(%q) = %v, %v, of a file written from %q", out, errs, err, data)
			}
			if diff := cmp.Diff(m, again); diff != "" {
				t.Fatalf("round trip (-first +second):\n%s", diff)
			}
		}
		if accepted[1] != nil {
			if accepted[0] == nil {
				t.Fatalf("ParseFile(%q) refuses a file that WithStrict accepts", data)
			}
			if diff := cmp.Diff(*accepted[1], *accepted[0]); diff != "" {
				t.Fatalf("ParseFile(%q) (-strict +default):\n%s", data, diff)
			}
		}
		checkAsSourceWatcher(t, data)
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
