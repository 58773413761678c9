package nsmeta

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
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

var parseFileTests = []struct {
	name       string
	data       string
	want       Metadata
	wantErr    error      // ErrInvalidFile or nil
	wantFields []fieldErr // the field errors, when wantErr is nil
}{
	{
		name: "type fields only",
		data: header,
		want: Metadata{Labels: map[string]string{}, Annotations: map[string]string{}},
	},
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
		want: Metadata{Labels: map[string]string{}, Annotations: map[string]string{}},
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
	{name: "empty", data: "", wantErr: ErrInvalidFile},
	{name: "whitespace", data: " \n\n   \n", wantErr: ErrInvalidFile},
	{name: "comments only", data: "# nothing\n", wantErr: ErrInvalidFile},
	{name: "null document", data: "null\n", wantErr: ErrInvalidFile},
	{name: "markers only", data: "---\n---\n", wantErr: ErrInvalidFile},
	{name: "two documents", data: header + "---\n" + header, wantErr: ErrInvalidFile},
	{name: "second document not YAML", data: header + "---\n[\n", wantErr: ErrInvalidFile},
	{name: "syntax error", data: header + "metadata: [\n", wantErr: ErrInvalidFile},
	{name: "tab indentation", data: header + "metadata:\n\tlabels: {}\n", wantErr: ErrInvalidFile},
	{name: "duplicate top-level key", data: header + "kind: NamespaceMetadata\n", wantErr: ErrInvalidFile},
	{name: "duplicate label", data: header + "metadata:\n  labels:\n    a: x\n    a: y\n", wantErr: ErrInvalidFile},
	{name: "duplicate metadata field", data: header + "metadata:\n  labels: {}\n  labels: {}\n", wantErr: ErrInvalidFile},
	{name: "self-referencing alias", data: header + "x: &a [*a]\n", wantErr: ErrInvalidFile},
	{name: "undefined alias", data: header + "metadata: *nope\n", wantErr: ErrInvalidFile},
	{name: "nesting deeper than 10,000", data: header + "x: " + strings.Repeat("[", 10001) + strings.Repeat("]", 10001) + "\n", wantErr: ErrInvalidFile},
	{name: "billion laughs", data: billionLaughs(9), wantErr: ErrInvalidFile},
	{name: "billion laughs in labels", data: header + strings.TrimPrefix(billionLaughs(9), header) + "metadata: {labels: {a: *x9}}\n", wantErr: ErrInvalidFile},
	{name: "too large", data: header + "# " + strings.Repeat("x", maxFileSize), wantErr: ErrInvalidFile},
	{
		name: "exactly maxFileSize",
		data: header + "# " + strings.Repeat("x", maxFileSize-len(header)-3) + "\n",
		want: Metadata{Labels: map[string]string{}, Annotations: map[string]string{}},
	},
	{name: "a sequence", data: "- a\n", wantErr: ErrInvalidFile},
	{name: "a scalar", data: "NamespaceMetadata\n", wantErr: ErrInvalidFile},
	{
		name: "missing type fields",
		data: "metadata: {}\n",
		wantFields: []fieldErr{
			{field.ErrorTypeRequired, "apiVersion", ""},
			{field.ErrorTypeRequired, "kind", ""},
		},
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
		name: "null type field",
		data: "apiVersion:\nkind: NamespaceMetadata\n",
		wantFields: []fieldErr{
			{field.ErrorTypeRequired, "apiVersion", ""},
		},
	},
	{
		name: "unknown fields",
		data: header + "spec: {}\nmetadata:\n  lables: {team: a}\n  name: tenant-a\n",
		wantFields: []fieldErr{
			{field.ErrorTypeForbidden, "metadata.lables", ""},
			{field.ErrorTypeForbidden, "metadata.name", ""},
			{field.ErrorTypeForbidden, "spec", ""},
		},
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
	{
		// The key 7 reads as the label "7"; on is the boolean true, key
		// and value.
		name: "unquoted values that are not strings",
		data: header + "metadata:\n  labels:\n    enabled: true\n    on: on\n    count: 1\n    ratio: 1.5\n    none: ~\n    list: [a]\n    7: seven\n",
		wantFields: []fieldErr{
			{field.ErrorTypeTypeInvalid, "metadata.labels[count]", 1},
			{field.ErrorTypeTypeInvalid, "metadata.labels[enabled]", true},
			{field.ErrorTypeTypeInvalid, "metadata.labels[list]", field.OmitValueType{}},
			{field.ErrorTypeTypeInvalid, "metadata.labels[none]", nil},
			{field.ErrorTypeTypeInvalid, "metadata.labels[ratio]", 1.5},
			{field.ErrorTypeTypeInvalid, "metadata.labels[true]", true},
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
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("ParseFile() (-want +got):\n%s", diff)
			}
		})
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

// FuzzParseFile checks that no input panics, that an accepted file yields
// valid metadata, and that writing that metadata back as a file and parsing
// it again gives the same metadata.
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
			return
		}
		if errs := m.Validate(field.NewPath("metadata")); len(errs) > 0 {
			t.Fatalf("ParseFile() accepted invalid metadata: %v", errs)
		}
		out, err := yaml.Marshal(map[string]any{"apiVersion": APIVersion, "kind": Kind, "metadata": m})
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
