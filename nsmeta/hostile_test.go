package nsmeta

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/opencontainers/go-digest"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/tenantkit/tenantkit/internal/hostile"
)

// padTo pads a valid file with a trailing comment to exactly n bytes.
func padTo(doc string, n int) string {
	return doc + "#" + strings.Repeat("x", n-len(doc)-2) + "\n"
}

// labelsDoc returns a file whose metadata.labels is body, indented.
func labelsDoc(body string) string { return header + "metadata:\n  labels:\n    " + body + "\n" }

// annotationsDoc returns a file whose metadata.annotations is body, indented.
func annotationsDoc(body string) string {
	return header + "metadata:\n  annotations:\n    " + body + "\n"
}

// hostileFileTests are NamespaceMetadata files a tenant could commit. A
// case refused as a whole lists the sentinel; a case with field errors the
// fields, types and values they must report; every case lists substrings
// of the message.
var hostileFileTests = []struct {
	name    string
	data    string
	wantErr error
	fields  []fieldErr
	detail  []string
}{
	// Size.
	{name: "exactly 1 MiB", data: padTo(labelsDoc("team: payments"), maxFileSize)},
	{name: "one byte over 1 MiB", data: padTo(labelsDoc("team: payments"), maxFileSize+1), wantErr: ErrInvalidFile,
		detail: []string{"1 MiB", "1048577 bytes"}},

	// Bombs and nesting.
	{name: "billion laughs", data: billionLaughs(9), wantErr: ErrInvalidFile, detail: []string{"YAML aliases must expand"}},
	{name: "billion laughs into a label", data: billionLaughs(9) + "metadata: {labels: {team: *x9}}\n", wantErr: ErrInvalidFile,
		detail: []string{"YAML aliases must expand"}},
	{name: "nested 10,001 deep in flow sequences", data: header + "x: " + strings.Repeat("[", 10001) + strings.Repeat("]", 10001) + "\n",
		wantErr: ErrInvalidFile, detail: []string{"exceeded max depth of 10000"}},
	{name: "nested 10,001 deep in flow mappings", data: header + "metadata: " + strings.Repeat("{a: ", 10001) + "b" + strings.Repeat("}", 10001) + "\n",
		wantErr: ErrInvalidFile, detail: []string{"exceeded max depth of 10000"}},
	{name: "nested 5,000 deep under a label", data: labelsDoc("team: " + strings.Repeat("{a: ", 5000) + "b" + strings.Repeat("}", 5000)),
		fields: []fieldErr{{field.ErrorTypeTypeInvalid, "metadata.labels[team]", field.OmitValueType{}}},
		detail: []string{"metadata.labels[team]", "must be a string"}},
	{name: "an alias for a label value", data: labelsDoc("team: &t payments\n    app: *t")},

	// Duplicate keys.
	{name: "duplicate kind", data: header + "kind: NamespaceMetadata\n", wantErr: ErrInvalidFile, detail: []string{`"kind" already set`}},
	{name: "duplicate label", data: labelsDoc("team: a\n    team: b"), wantErr: ErrInvalidFile, detail: []string{`"team" already set`}},
	{name: "duplicate metadata", data: header + "metadata: {}\nmetadata: {}\n", wantErr: ErrInvalidFile, detail: []string{`"metadata" already set`}},
	{name: "duplicate kind after a separator and a comment", data: "---\n# tenant\n" + header + "kind: NamespaceMetadata\n", wantErr: ErrInvalidFile,
		detail: []string{`line 5: key "kind" already set`}},
	{name: "duplicate key written two ways", data: labelsDoc("team: a\n    \"team\": b"), wantErr: ErrInvalidFile, detail: []string{"already set"}},

	// Documents.
	{name: "two documents", data: header + "---\n" + header, wantErr: ErrInvalidFile},
	{name: "two documents split by an end marker", data: header + "...\n" + header, wantErr: ErrInvalidFile},
	{name: "a second document that is a list", data: header + "---\n- a\n", wantErr: ErrInvalidFile},
	{name: "a second document that is invalid", data: header + "---\n[\n", wantErr: ErrInvalidFile},
	{name: "stray separators after one document", data: "---\n" + header + "---\n...\n---\n"},
	// The decoder reads only the first document, which is empty: refused,
	// where source-watcher reads no metadata at all.
	{name: "a document hidden behind an empty one", data: "---\n---\n" + header + "---\n...\n", wantErr: errHiddenDocument,
		detail: []string{"first YAML document is empty"}},
	{name: "a document hidden behind an ended one", data: "---\n...\n" + labelsDoc("team: a"), wantErr: ErrInvalidFile},
	{name: "a null document after an empty one", data: "---\n---\nnull\n", fields: noDocumentFields, detail: []string{`apiVersion: Required value: the file's document is null`}},
	{name: "a control character in a comment after the document", data: header + "---\n# \x7f\n", wantErr: ErrInvalidFile,
		detail: []string{"control characters"}},
	{name: "empty", data: "", fields: noDocumentFields, detail: []string{`apiVersion: Required value: the file is empty`, `needs apiVersion "source.extensions.fluxcd.io/v1beta1" and kind "NamespaceMetadata"`}},
	{name: "only comments", data: "# a\n# b\n", fields: noDocumentFields, detail: []string{"holds only comments"}},
	{name: "only a separator", data: "---\n", fields: noDocumentFields, detail: []string{"holds only comments and separators"}},
	{name: "null document", data: "null\n", fields: noDocumentFields, detail: []string{"document is null"}},
	// Issue 34, item 8: read as no labels, silently.
	{name: "a directive inside the document", data: "apiVersion: source.extensions.fluxcd.io/v1beta1\nkind: NamespaceMetadata\n%YAML 1.1\nmetadata:\n  labels:\n    team: a\n",
		wantErr: ErrInvalidFile, detail: []string{`line 3: "%YAML 1.1": must not start with "%"`}},
	{name: "a directive at the head", data: "%YAML 1.1\n---\n" + labelsDoc("team: a"), wantErr: ErrInvalidFile, detail: []string{`line 1: "%YAML 1.1"`}},
	{name: "a separator after a carriage return", data: labelsDoc("team: a\r---\r    tier: b"), wantErr: ErrInvalidFile,
		detail: []string{"line 5", "a line break other than a newline"}},
	{name: "a comment ended by a line separator", data: header + "# note\u2028metadata: {labels: {team: a}}\n", wantErr: ErrInvalidFile,
		detail: []string{"line 3", "a line break other than a newline"}},
	{name: "a list", data: "- apiVersion\n- kind\n", wantErr: ErrInvalidFile, detail: []string{"must be a mapping, not a sequence"}},
	{name: "a scalar", data: "NamespaceMetadata\n", wantErr: ErrInvalidFile, detail: []string{"must be a mapping, not a scalar"}},

	// Bytes.
	{name: "raw NUL byte", data: labelsDoc("team: a\x00b"), wantErr: ErrInvalidFile, detail: []string{"control characters are not allowed"}},
	{name: "escaped NUL byte in a label value", data: labelsDoc(`team: "a\0b"`), fields: []fieldErr{{field.ErrorTypeInvalid, "metadata.labels[team]", "a\x00b"}}, detail: []string{`"a\x00b"`}},
	{name: "escaped NUL byte in an annotation value", data: annotationsDoc(`my.org.io/x: "a\0b"`)},
	{name: "invalid UTF-8", data: labelsDoc("team: a\xffb"), wantErr: ErrInvalidFile, detail: []string{"invalid"}},
	{name: "UTF-8 byte order mark", data: "\ufeff" + labelsDoc("team: a")},

	// Unicode that lowercases onto ASCII, and whitespace.
	{name: "Kelvin sign in a label key", data: labelsDoc("team-\u212a: a"), fields: []fieldErr{{field.ErrorTypeInvalid, "metadata.labels[team-\u212a]", "team-\u212a"}}},
	{name: "dotted capital I in a label value", data: labelsDoc("city: \u0130stanbul"), fields: []fieldErr{{field.ErrorTypeInvalid, "metadata.labels[city]", "\u0130stanbul"}}},
	// apimachinery checks annotation keys lower-cased, and strings.ToLower
	// turns the Kelvin sign into "k": the API server accepts this key, so
	// the file may carry it. It stays a key of its own, not "my.org.io/k".
	{name: "Kelvin sign in an annotation key", data: annotationsDoc("my.org.io/\u212a: a")},
	{name: "labels differing only in case are two labels", data: labelsDoc("team: a\n    Team: b")},
	{name: "newline in a label value", data: labelsDoc(`team: "a\nb"`), fields: []fieldErr{{field.ErrorTypeInvalid, "metadata.labels[team]", "a\nb"}}, detail: []string{`"a\nb"`}},
	{name: "newline in a label key", data: labelsDoc(`"te\nam": a`), fields: []fieldErr{{field.ErrorTypeInvalid, "metadata.labels[te\nam]", "te\nam"}}},
	{name: "newline in an annotation value", data: annotationsDoc(`my.org.io/x: "a\nb"`)},
	{name: "annotations over 256 KiB in total", data: annotationsDoc("my.org.io/a: " + strings.Repeat("x", 200<<10) + "\n    my.org.io/b: " + strings.Repeat("x", 100<<10)),
		fields: []fieldErr{{field.ErrorTypeTooLong, "metadata.annotations", "<value omitted>"}}, detail: []string{"metadata.annotations", "Too long", "262144"}},

	// Shapes.
	{name: "misspelled field", data: header + "metadata:\n  lables: {team: a}\n", fields: []fieldErr{{field.ErrorTypeForbidden, "metadata.lables", ""}}, detail: []string{"unknown field"}},
	{name: "unknown top-level field", data: header + "spec: {}\n", fields: []fieldErr{{field.ErrorTypeForbidden, "spec", ""}}},
	{name: "unquoted number, bool and null", data: labelsDoc("a: 1\n    b: true\n    c: null\n    d: 1.0"), fields: []fieldErr{
		{field.ErrorTypeTypeInvalid, "metadata.labels[a]", 1},
		{field.ErrorTypeTypeInvalid, "metadata.labels[b]", true},
		{field.ErrorTypeTypeInvalid, "metadata.labels[c]", nil},
		{field.ErrorTypeTypeInvalid, "metadata.labels[d]", 1.0},
	}},
	// sigs.k8s.io/yaml reads a number as a key as its text.
	{name: "a number as a key", data: labelsDoc("1: a")},
	{name: "a number as a key, not a valid label key", data: labelsDoc("-1: a"), fields: []fieldErr{{field.ErrorTypeInvalid, "metadata.labels[-1]", "-1"}}},
	{name: "labels as a list", data: header + "metadata:\n  labels: [a, b]\n", fields: []fieldErr{{field.ErrorTypeTypeInvalid, "metadata.labels", field.OmitValueType{}}}},
	{name: "kind as a mapping", data: "apiVersion: " + fileAPIVersion + "\nkind: {a: b}\n", fields: []fieldErr{{field.ErrorTypeTypeInvalid, "kind", field.OmitValueType{}}}},
	{name: "another kind", data: "apiVersion: " + fileAPIVersion + "\nkind: Namespace\n", fields: []fieldErr{{field.ErrorTypeNotSupported, "kind", "Namespace"}}},
	{name: "no type fields", data: "metadata: {}\n", fields: []fieldErr{{field.ErrorTypeRequired, "apiVersion", ""}, {field.ErrorTypeRequired, "kind", ""}}},
	{name: "externalFinalizer from the file is metadata like any other", data: annotationsDoc(externalFinalizerAnnotation + ": self")},
}

// TestHostileParseFile reads every hostile file and checks the outcome the
// case lists.
func TestHostileParseFile(t *testing.T) {
	t.Parallel()
	for _, tt := range hostileFileTests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			testHostileParseFile(t, tt.data, tt.wantErr, tt.fields, tt.detail)
		})
	}
}

func testHostileParseFile(t *testing.T, data string, wantErr error, fields []fieldErr, detail []string) {
	hostile.NoPanic(t, func() {
		m, errs, err := ParseFile([]byte(data))
		var msg string
		switch {
		case wantErr != nil:
			if !errors.Is(err, wantErr) || errs != nil {
				t.Fatalf("ParseFile() = %.500v, %.500v; want %v", errs, err, wantErr)
			}
			msg = err.Error()
		case fields != nil:
			if err != nil {
				t.Fatalf("ParseFile() error = %.500v, want field errors", err)
			}
			if diff := diffFields(fields, errs); diff != "" {
				t.Errorf("fields (-want +got):\n%s", diff)
			}
			msg = errs.ToAggregate().Error()
		default:
			if err != nil || errs != nil {
				t.Fatalf("ParseFile() = %v, %v; want no error", errs, err)
			}
			if errs := m.Validate(field.NewPath("metadata")); len(errs) > 0 {
				t.Errorf("ParseFile() accepted invalid metadata: %v", errs)
			}
			return
		}
		if m.Labels != nil || m.Annotations != nil {
			t.Errorf("ParseFile() returned metadata with an error")
		}
		for _, d := range detail {
			if !strings.Contains(msg, d) {
				t.Errorf("error %.300q does not contain %q", msg, d)
			}
		}
	})
}

// diffFields compares field errors by type, field and value, ignoring the
// value of Forbidden and Required errors, which carry none.
func diffFields(want []fieldErr, got field.ErrorList) string {
	g := project(got)
	for i := range g {
		if g[i].Type == field.ErrorTypeForbidden || g[i].Type == field.ErrorTypeRequired {
			g[i].BadValue = ""
		}
	}
	if fmt.Sprintf("%#v", want) == fmt.Sprintf("%#v", g) {
		return ""
	}
	return fmt.Sprintf("- %#v\n+ %#v", want, g)
}

func TestHostileCompileSchema(t *testing.T) {
	t.Parallel()
	long := `value == "` + strings.Repeat("a", 5*1024-len(`value == ""`)) + `"`
	for _, tt := range []struct {
		name        string
		labels      kv
		annotations kv
		path        *field.Path
		opts        []Option
		wantErrs    bool
		fields      []fieldErr
		detail      []string
	}{
		{name: "rule exactly 5 KiB", labels: kv{"team": long}},
		{name: "rule one byte over 5 KiB", labels: kv{"team": long + " "}, wantErrs: true,
			fields: []fieldErr{{field.ErrorTypeInvalid, "allowedLabels[team]", long + " "}}, detail: []string{"5120"}},
		{name: "64 KiB rule", annotations: kv{"my.org.io/x": strings.Repeat("!", 64<<10) + "true"}, wantErrs: true,
			detail: []string{"allowedAnnotations[my.org.io/x]", "5120"}},
		{name: "rule nested 2000 deep", labels: kv{"team": strings.Repeat("(", 2000) + "true" + strings.Repeat(")", 2000)}, wantErrs: true,
			detail: []string{"allowedLabels[team]", "recursion limit"}},
		{name: "rule with unbalanced parentheses", labels: kv{"team": "(value == 'a'"}, wantErrs: true,
			detail: []string{"allowedLabels[team]", "<input>:1:14", "^"}},
		// Issue 34's items 5 and 6: a pattern from the value is refused
		// here, before any value is read (cel's TestMatchesLiteralPattern).
		{name: "rules whose pattern is the value", labels: kv{"regex": `'x'.matches(value)`},
			annotations: kv{"my.org.io/items": `value.split(',').all(x, x.matches(x))`}, wantErrs: true,
			fields: []fieldErr{
				{field.ErrorTypeInvalid, "allowedAnnotations[my.org.io/items]", `value.split(',').all(x, x.matches(x))`},
				{field.ErrorTypeInvalid, "allowedLabels[regex]", `'x'.matches(value)`},
			},
			detail: []string{
				"allowedLabels[regex]: Invalid value: \"'x'.matches(value)\": cel: invalid expression: " +
					"<input>:1:13: the pattern of matches must be a string literal\n | 'x'.matches(value)\n | ............^",
				"allowedAnnotations[my.org.io/items]: Invalid value: \"value.split(',').all(x, x.matches(x))\": cel: invalid expression: " +
					"<input>:1:35: the pattern of matches must be a string literal\n | value.split(',').all(x, x.matches(x))\n | ..................................^",
			}},
		{name: "rule returning a string", labels: kv{"team": "value"}, wantErrs: true,
			detail: []string{"allowedLabels[team]", "output type must be bool"}},
		{name: "rule over another variable", labels: kv{"team": "ns == 'a'"}, wantErrs: true,
			detail: []string{"undeclared reference to 'ns'"}},
		{name: "empty rule", labels: kv{"team": ""}, wantErrs: true,
			fields: []fieldErr{{field.ErrorTypeRequired, "allowedLabels[team]", ""}}},
		{name: "NUL in a rule", labels: kv{"team": "true\x00"}, wantErrs: true, detail: []string{"token recognition error"}},
		{name: "Kelvin sign in a key", labels: kv{"team-\u212a": "true"}, wantErrs: true,
			fields: []fieldErr{{field.ErrorTypeInvalid, "allowedLabels[team-\u212a]", "team-\u212a"}}},
		{name: "newline in a key", annotations: kv{"my.org.io/\nx": "true"}, wantErrs: true, detail: []string{"allowedAnnotations[my.org.io/\nx]"}},
		{name: "every problem at once", labels: kv{"a/b/c": "1", "": "true"}, annotations: kv{"-x": "value"},
			path: field.NewPath("spec", "fromSource"), wantErrs: true,
			detail: []string{"spec.fromSource.allowedLabels[a/b/c]", "spec.fromSource.allowedLabels[]", "spec.fromSource.allowedAnnotations[-x]"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			hostile.NoPanic(t, func() {
				s, errs := CompileSchema(tt.labels, tt.annotations, tt.path, tt.opts...)
				if !tt.wantErrs {
					if errs != nil || s == nil {
						t.Fatalf("CompileSchema() = %v", errs)
					}
					return
				}
				if s != nil || errs == nil {
					t.Fatalf("CompileSchema() = %v, %.300v; want nil and errors", s, errs)
				}
				if tt.fields != nil {
					if diff := diffFields(tt.fields, errs); diff != "" {
						t.Errorf("fields (-want +got):\n%s", diff)
					}
				}
				msg := errs.ToAggregate().Error()
				for _, d := range tt.detail {
					if !strings.Contains(msg, d) {
						t.Errorf("errors %.300q do not contain %q", msg, d)
					}
				}
			})
		})
	}
}

func TestHostileSchemaApply(t *testing.T) {
	t.Parallel()
	labelRules := kv{
		"team":   `value.matches("^[a-z]+$")`,
		"kelvin": `value.lowerAscii() == "k"`,
	}
	annotationRules := kv{
		"my.org.io/costly": `value.indexOf(value) >= 0`,
		"my.org.io/split":  `value.split("").all(c, c != "\n")`,
	}
	in := Metadata{
		Labels: kv{"team": "payments", "kelvin": "\u212a", "unlisted": "x"},
		Annotations: kv{
			"my.org.io/costly":          strings.Repeat("a", 200<<10),
			"my.org.io/split":           strings.Repeat("a", 1000) + "\n",
			"my.org.io/unlisted":        "y\nz",
			externalFinalizerAnnotation: "self",
		},
	}
	var kept Metadata
	var warnings []string
	var errs field.ErrorList
	hostile.NoPanic(t, func() {
		s, err := CompileSchema(labelRules, annotationRules, nil)
		if err != nil {
			t.Fatal(err)
		}
		kept, warnings, errs = s.Apply(context.Background(), in)
	})
	if len(kept.Labels) != 1 || kept.Labels["team"] != "payments" || len(kept.Annotations) != 0 {
		t.Errorf("kept %v, want only team=payments", kept)
	}
	want := []struct{ field, value, detail string }{
		// Long values are shown by their first 64 bytes.
		{"metadata.annotations[my.org.io/costly]", strings.Repeat("a", 64) + "... (204800 bytes)", "cost limit exceeded"},
		{"metadata.annotations[my.org.io/split]", strings.Repeat("a", 64) + "... (1001 bytes)", `must satisfy rule "value.split(\"\").all(c, c != \"\\n\")"`},
		{"metadata.labels[kelvin]", "\u212a", `must satisfy rule "value.lowerAscii() == \"k\""`},
	}
	if len(errs) != len(want) {
		t.Fatalf("Apply() errors = %v, want %d", errs, len(want))
	}
	for i, w := range want {
		e := errs[i]
		if e.Type != field.ErrorTypeInvalid || e.Field != w.field || e.BadValue != w.value || !strings.Contains(e.Detail, w.detail) {
			t.Errorf("error %d = %s %s %.40q %q, want Invalid %s %.40q containing %q", i, e.Type, e.Field, e.BadValue, e.Detail, w.field, w.value, w.detail)
		}
	}
	wantWarnings := []string{
		`metadata.labels[unlisted]: label "unlisted" is not in allowedLabels; dropped`,
		`metadata.annotations[my.org.io/unlisted]: annotation "my.org.io/unlisted" is not in allowedAnnotations; dropped`,
		`metadata.annotations[source.extensions.fluxcd.io/externalFinalizer]: annotation "source.extensions.fluxcd.io/externalFinalizer" is not in allowedAnnotations; dropped`,
	}
	if fmt.Sprint(warnings) != fmt.Sprint(wantWarnings) {
		t.Errorf("warnings = %q, want %q", warnings, wantWarnings)
	}

	// Strict: the unlisted keys are errors; a cancelled context keeps nothing.
	s, err := CompileSchema(labelRules, annotationRules, nil, WithStrict())
	if err != nil {
		t.Fatal(err)
	}
	_, warnings, errs = s.Apply(context.Background(), in)
	forbidden := 0
	for _, e := range errs {
		if e.Type == field.ErrorTypeForbidden {
			forbidden++
		}
	}
	if len(warnings) != 0 || forbidden != 3 {
		t.Errorf("strict Apply() = %q, %v; want no warning and 3 Forbidden errors", warnings, errs)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	kept, _, errs = s.Apply(ctx, in)
	if len(kept.Labels)+len(kept.Annotations) != 0 || len(errs) == 0 {
		t.Errorf("Apply(cancelled) kept %v with errors %v", kept, errs)
	}
}

func TestHostileNamePolicy(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name   string
		rules  []string
		opts   []Option
		detail []string
	}{
		{name: "no rule", rules: nil, detail: []string{"allowedNames: Required value"}},
		{name: "empty rule", rules: []string{""}, detail: []string{"allowedNames[0]: Required value"}},
		{name: "rule over 5 KiB", rules: []string{"true", strings.Repeat("!", 5*1024) + "true"},
			detail: []string{"allowedNames[1]", "5120"}},
		{name: "rule nested 1000 deep", rules: []string{strings.Repeat("[", 1000) + strings.Repeat("]", 1000) + " == []"},
			detail: []string{"allowedNames[0]", "recursion limit"}},
		{name: "rule returning an int", rules: []string{"ns.size()"}, detail: []string{"output type must be bool"}},
		{name: "rule over value", rules: []string{"value == ''"}, detail: []string{"undeclared reference to 'value'"}},
		{name: "protected names that are not names", rules: []string{"true"}, opts: []Option{WithProtectedNames("Kube-System", "a/b", "", "x\n")},
			detail: []string{"protectedNames[0]", "protectedNames[1]", "protectedNames[2]", "protectedNames[3]"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			hostile.NoPanic(t, func() {
				p, errs := NewNamePolicy(tt.rules, nil, tt.opts...)
				if p != nil || errs == nil {
					t.Fatalf("NewNamePolicy() = %v, %.300v; want nil and errors", p, errs)
				}
				msg := errs.ToAggregate().Error()
				for _, d := range tt.detail {
					if !strings.Contains(msg, d) {
						t.Errorf("errors %.300q do not contain %q", msg, d)
					}
				}
			})
		})
	}

	p, err := NewNamePolicy([]string{
		// Each replace squares the length: for a name of 6 characters or more
		// the third would produce more than the cost limit allows.
		`ns.replace("", ns).replace("", ns.replace("", ns)).replace("", ns.replace("", ns).replace("", ns.replace("", ns))) == ""`,
		`ns.startsWith("tenant-")`,
	}, nil, WithProtectedNames("tenant-platform"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name    string
		ns      string
		wantErr error
		detail  []string
	}{
		{name: "allowed by the second rule after the first fails", ns: "tenant-a"},
		{name: "63 characters", ns: "tenant-" + strings.Repeat("a", 56)},
		{name: "64 characters", ns: "tenant-" + strings.Repeat("a", 57), wantErr: ErrInvalidName, detail: []string{"no more than 63 characters"}},
		{name: "64 KiB", ns: "tenant-" + strings.Repeat("a", 64<<10), wantErr: ErrInvalidName},
		{name: "upper case protected name", ns: "KUBE-SYSTEM", wantErr: ErrInvalidName},
		{name: "protected name", ns: "kube-system", wantErr: ErrProtectedName, detail: []string{"kube-system", "tenant-platform"}},
		{name: "caller's protected name", ns: "tenant-platform", wantErr: ErrProtectedName},
		{name: "Kelvin sign", ns: "tenant-\u212a", wantErr: ErrInvalidName},
		{name: "dotted capital I", ns: "tenant-\u0130", wantErr: ErrInvalidName},
		{name: "trailing newline", ns: "tenant-a\n", wantErr: ErrInvalidName, detail: []string{`"tenant-a\n"`}},
		{name: "NUL byte", ns: "tenant-a\x00", wantErr: ErrInvalidName, detail: []string{`"tenant-a\x00"`}},
		{name: "invalid UTF-8", ns: "tenant-\xff", wantErr: ErrInvalidName},
		{name: "refused by every rule", ns: "team-a", wantErr: ErrNameNotAllowed,
			detail: []string{"failed to evaluate", "cost limit exceeded", `rule "ns.startsWith(\"tenant-\")" returned false`}},
	} {
		t.Run("Check/"+tt.name, func(t *testing.T) {
			t.Parallel()
			hostile.NoPanic(t, func() {
				err := p.Check(context.Background(), tt.ns)
				if tt.wantErr == nil {
					if err != nil {
						t.Fatalf("Check() = %v", err)
					}
					return
				}
				var ne *nameError
				if !errors.Is(err, tt.wantErr) || !errors.As(err, &ne) || ne.Name != tt.ns {
					t.Fatalf("Check() = %.300v, want a *nameError wrapping %v", err, tt.wantErr)
				}
				for _, d := range tt.detail {
					if !strings.Contains(err.Error(), d) {
						t.Errorf("error %.300q does not contain %q", err, d)
					}
				}
			})
		})
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := p.Check(ctx, "tenant-a"); !errors.Is(err, context.Canceled) {
		t.Errorf("Check(cancelled) = %v, want context.Canceled", err)
	}
}

func TestHostileResolve(t *testing.T) {
	t.Parallel()
	ef := externalFinalizerAnnotation
	many := make([]Operation, 1000)
	for i := range many {
		many[i] = Operation{Strategy: Override, Namespace: allNamespaces, Metadata: md(kv{"step": fmt.Sprint(i)}, nil)}
	}
	for _, tt := range []struct {
		name     string
		pipeline pipelineSpec
		source   Metadata
		field    string // the one error's field
		want     string // the label "step" of the result
	}{
		{name: "lower-case strategy", pipeline: pipelineSpec{Operations: []Operation{{Strategy: "reset", Namespace: "*"}}}, field: "from[0].strategy"},
		{name: "strategy with trailing whitespace", pipeline: pipelineSpec{Operations: []Operation{{Strategy: "Reset ", Namespace: "*"}}}, field: "from[0].strategy"},
		{name: "no namespace", pipeline: pipelineSpec{Operations: []Operation{{Strategy: Merge}}}, field: "from[0].namespace"},
		{name: "externalFinalizer from the source", source: md(nil, kv{ef: "self"}), field: "metadata.annotations[" + ef + "]"},
		{name: "whitespace externalFinalizer from an operation",
			pipeline: pipelineSpec{Operations: []Operation{{Strategy: Merge, Namespace: "a"}, {Strategy: Override, Namespace: "*", Metadata: md(nil, kv{ef: " "})}}}, field: "from[1].annotations[" + ef + "]"},
		{name: "externalFinalizer from common", pipeline: pipelineSpec{Common: md(nil, kv{ef: "x/v1/K/ns/n/uid"})}, field: "common.annotations[" + ef + "]"},
		{name: "externalFinalizer from final", pipeline: pipelineSpec{Final: md(nil, kv{ef: "self"})}, field: "final.annotations[" + ef + "]"},
		{name: "externalFinalizer reset away", source: md(nil, kv{ef: "self"}),
			pipeline: pipelineSpec{Operations: []Operation{{Strategy: Reset, Namespace: "a", Metadata: md(kv{"step": "reset"}, nil)}}}, want: "reset"},
		{name: "empty externalFinalizer", pipeline: pipelineSpec{Final: md(nil, kv{ef: ""})}},
		{name: "1000 operations", pipeline: pipelineSpec{Operations: many}, want: "999"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			hostile.NoPanic(t, func() {
				var r Result
				p, errs := tt.pipeline.build()
				if errs == nil {
					r, errs = p.Resolve("a", tt.source)
				}
				if tt.field == "" {
					if errs != nil || r.Labels["step"] != tt.want {
						t.Fatalf("Resolve() = %v, %v; want step %q", r.Labels, errs, tt.want)
					}
					return
				}
				if len(errs) != 1 || errs[0].Field != tt.field {
					t.Fatalf("errors = %v, want one at %s", errs, tt.field)
				}
			})
		})
	}
}

func TestHostileDigest(t *testing.T) {
	t.Parallel()
	big := Metadata{Labels: kv{}, Annotations: kv{}}
	for i := range 1000 {
		big.Labels[fmt.Sprint("k", i)] = strings.Repeat("v", i%64)
	}
	big.Annotations["a"] = strings.Repeat("\x00\xff\u2028\"\\", 5000)
	hostile.NoPanic(t, func() {
		for _, m := range []Metadata{
			{},
			{Labels: kv{"\xff": "\xfe", "\x00": "\x01\x1f\x7f"}},
			{Annotations: kv{"\xed\xa0\x80": "a lone surrogate encoded in UTF-8 is invalid UTF-8"}},
			big,
		} {
			d := Digest(m)
			if err := d.Validate(); err != nil {
				t.Errorf("Digest() = %q: %v", d, err)
			}
			if d != Digest(m) {
				t.Errorf("Digest() is not deterministic")
			}
		}
	})
	// Invalid UTF-8 is hashed as its bytes, as source-watcher hashes it.
	if Digest(Metadata{Labels: kv{"k": "\xff"}}) != digest.FromString("label:k=\xff") {
		t.Errorf("invalid UTF-8 is not hashed as its bytes")
	}
	if Digest(Metadata{Labels: kv{"K": "v"}}) == Digest(Metadata{Labels: kv{"k": "v"}}) {
		t.Errorf("keys differing in case digest the same")
	}
	if Digest(Metadata{Labels: kv{"\u212a": "v"}}) == Digest(Metadata{Labels: kv{"k": "v"}}) {
		t.Errorf("the Kelvin sign and k digest the same")
	}
}
