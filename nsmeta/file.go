package nsmeta

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"

	"github.com/tenantkit/tenantkit/internal/quote"
	"github.com/tenantkit/tenantkit/internal/yamldoc"
)

// The type fields of a NamespaceMetadata file: required, with these
// values. nsmeta reads no other type.
const (
	fileAPIVersion = "source.extensions.fluxcd.io/v1beta1"
	fileKind       = "NamespaceMetadata"
)

// maxFileSize bounds a NamespaceMetadata file, which a tenant writes: a real
// file is a few hundred bytes, and annotations alone may hold at most 256 KiB.
// The size is checked before any parsing. source-watcher reads at most as
// much (maxInputsFileSize).
const maxFileSize = 1 << 20

// ParseFile parses and validates a NamespaceMetadata file:
//
//	apiVersion: source.extensions.fluxcd.io/v1beta1
//	kind: NamespaceMetadata
//	metadata:
//	  labels:
//	    team: payments
//	  annotations:
//	    my.org.io/observability: Enabled
//
// It reads the file as the schema that source-watcher v2.3 publishes for it
// says (docs/namespacemetadata-v1beta1.json):
//
//   - apiVersion and kind are required, with exactly the values above;
//   - no other field is allowed, at the top level or under metadata: a
//     typo such as metadata.lables is an error that names it;
//   - a label or annotation value must be a YAML string: an unquoted true,
//     1, 1.0 or null is an error (quote it, as in a Kubernetes manifest).
//
// Beyond the schema, keys must not repeat; a key that YAML reads as a
// number or a boolean is its text (7: seven is the label "7"); every key
// and value must be valid by [Metadata.Validate]; and the file must be at
// most 1 MiB, have aliases that expand it at most 10 times (64 KiB at
// least), and hold exactly one YAML document, with no directive (%YAML):
// source-watcher's decoder would silently read the first of several
// documents, nothing from "---\n---\nmetadata: ...", and nothing after a
// directive. An empty file, or one of comments only, or whose document
// is null, lacks the type fields: one error at apiVersion says what the
// file holds and what it needs. The returned maps are never nil.
//
//	m, errs, err := nsmeta.ParseFile(data)
//
// Options: none applies; WithCache has no effect here, and any other option
// is a Forbidden error at its name ("WithStrict: Forbidden: does not apply
// to ParseFile").
//
// ParseFile returns one of two kinds of failure, never both:
//
//   - err, a [*FileError] wrapping ErrInvalidFile, for data that is not a
//     NamespaceMetadata document at all: more than 1 MiB; not YAML (with
//     its line), a key that is null or repeats, nesting deeper than 10,000
//     levels; aliases that expand the file too far; a directive, or a line
//     break other than a newline; more than one document, or one behind an
//     empty first document; a document that is not a mapping. Its Detail
//     words the problem without the decoder's names ("must be valid YAML:
//     line 3: did not find expected node content");
//   - errs, the sorted list of every field that breaks the rules above,
//     with paths rooted at the document (metadata.labels[team], kind); a
//     bad value is shown by its first 64 bytes when it is longer.
func ParseFile(data []byte, opts ...Option) (Metadata, field.ErrorList, error) {
	var o options
	if errs := o.apply(opts, "ParseFile"); len(errs) > 0 {
		return Metadata{}, sortErrors(errs), nil
	}
	if len(data) > maxFileSize {
		return Metadata{}, nil, &FileError{Detail: fmt.Sprintf("must be no more than 1 MiB, not %d bytes", len(data))}
	}
	docs, err := yamldoc.Documents(data)
	if err != nil {
		return Metadata{}, nil, invalidYAML(err)
	}
	if len(docs) > 1 {
		return Metadata{}, nil, &FileError{Detail: "must hold exactly one YAML document"}
	}
	root, err := decode(data, docs)
	if err != nil {
		return Metadata{}, nil, err
	}
	if root == nil {
		return Metadata{}, field.ErrorList{noDocument(len(docs) == 0)}, nil
	}
	m, errs := fromDocument(root)
	errs = append(errs, m.Validate(field.NewPath("metadata"))...)
	if len(errs) > 0 {
		return Metadata{}, sortErrors(errs), nil
	}
	return m, nil, nil
}

// errHiddenDocument refuses a stream whose first document is empty and
// whose second is not, such as "---\n---\nmetadata: ...": the decoder
// reads only the first, so source-watcher reads no metadata at all from it,
// which is surely not what the tenant meant. ParseFile returns it in a
// FileError.
var errHiddenDocument = errors.New("the first YAML document is empty and the metadata is in the next one, which is never read; remove the separator before it")

// hidesDocument reports whether the first document of data, which decodes
// to nothing, hides doc, the one document of data with content that
// yamldoc.Documents found: it does unless doc is itself null.
func hidesDocument(data, doc []byte) bool {
	var v any
	err := yaml.Unmarshal(yamldoc.Aligned(data, doc), &v)
	return err != nil || v != nil
}

// decode returns the mapping of the first document of data, whose
// non-empty documents are docs: nil for a file without a document, or
// whose document is null, so that ParseFile reports it as such.
//
// data is decoded whole, as source-watcher decodes it, so that the
// decoder's errors name lines of data, by one sigs.k8s.io/yaml call, into
// an untyped value rather than a struct, so that fromDocument reports
// every unknown field and every value that is not a string at its path:
// decoding into a struct would stop at the first unknown field, and would
// turn an unquoted true or 1 into a string. Strict decoding makes a
// duplicate key an error; nesting deeper than 10,000 levels fails in the
// decoder.
func decode(data []byte, docs [][]byte) (root map[string]any, err error) {
	defer func() {
		// yaml/v2, under sigs.k8s.io/yaml, reports errors by panicking and
		// recovering internally; a panic that escapes it is a bug in the
		// parser, and a tenant's file must not crash the controller
		// because of it.
		if r := recover(); r != nil {
			root, err = nil, &FileError{Detail: fmt.Sprintf("must be valid YAML: the YAML parser failed: %v", r)}
		}
	}()
	var v any
	if err := yaml.UnmarshalStrict(data, &v, useNumber); err != nil {
		return nil, invalidYAML(err)
	}
	switch v := v.(type) {
	case nil:
		if len(docs) == 1 && hidesDocument(data, docs[0]) {
			return nil, &FileError{Detail: errHiddenDocument.Error(), err: errHiddenDocument}
		}
		return nil, nil
	case map[string]any:
		return v, nil
	default:
		return nil, &FileError{Detail: "document must be a mapping, not " + yamlKind(v)}
	}
}

// invalidYAML returns the FileError that reports err, an error of
// yamldoc's checks or of the YAML decoder, in the file's words
// (yamldoc.Detail): "must be valid YAML: line 3: did not find expected
// node content", without the decoder's names.
func invalidYAML(err error) *FileError {
	return &FileError{Detail: yamldoc.Detail(err), err: err}
}

// useNumber keeps numbers as json.Number, so that an error shows an
// unquoted label value as written (1, not 1.0 or 1e+21).
func useNumber(d *json.Decoder) *json.Decoder {
	d.UseNumber()
	return d
}

// noDocument reports a file that asks for nothing: empty or of comments
// and separators only (noDocs), or whose one document is null. It is one error, at
// apiVersion, that says what the file holds, rather than the two that
// fromDocument would report for the missing type fields, which would name
// no value found:
//
//	apiVersion: Required value: the file is empty or holds only comments and separators; a NamespaceMetadata file needs apiVersion "source.extensions.fluxcd.io/v1beta1" and kind "NamespaceMetadata"
func noDocument(noDocs bool) *field.Error {
	found := "the file's document is null"
	if noDocs {
		found = "the file is empty or holds only comments and separators"
	}
	return field.Required(field.NewPath("apiVersion"),
		fmt.Sprintf("%s; a NamespaceMetadata file needs apiVersion %q and kind %q", found, fileAPIVersion, fileKind))
}

// fromDocument extracts the metadata of a NamespaceMetadata document and
// reports every field that breaks the schema.
func fromDocument(root map[string]any) (Metadata, field.ErrorList) {
	var (
		errs field.ErrorList
		m    = Metadata{Labels: map[string]string{}, Annotations: map[string]string{}}
	)
	// Map order does not leak: the errors are sorted before they are returned.
	for name, v := range root {
		p := field.NewPath(name)
		switch name {
		case "apiVersion":
			errs = append(errs, checkTypeField(p, v, fileAPIVersion)...)
		case "kind":
			errs = append(errs, checkTypeField(p, v, fileKind)...)
		case "metadata":
			errs = append(errs, metadataFields(p, v, &m)...)
		default:
			errs = append(errs, unknownField(p, "apiVersion", "kind", "metadata"))
		}
	}
	for _, f := range [...]struct{ name, want string }{{"apiVersion", fileAPIVersion}, {"kind", fileKind}} {
		if _, ok := root[f.name]; !ok {
			errs = append(errs, field.Required(field.NewPath(f.name), fmt.Sprintf("must be %q", f.want)))
		}
	}
	return m, errs
}

// checkTypeField checks apiVersion or kind against its one supported value.
func checkTypeField(p *field.Path, v any, want string) field.ErrorList {
	s, ok := v.(string)
	switch {
	case v == nil:
		return field.ErrorList{field.Required(p, fmt.Sprintf("must be %q", want))}
	case !ok:
		return field.ErrorList{field.TypeInvalid(p, badValue(v), "must be a string")}
	case s != want:
		return field.ErrorList{field.NotSupported(p, quote.Value(s), []string{want})}
	}
	return nil
}

// metadataFields extracts metadata.labels and metadata.annotations into m.
func metadataFields(p *field.Path, v any, m *Metadata) field.ErrorList {
	if v == nil {
		return nil
	}
	fields, ok := v.(map[string]any)
	if !ok {
		return field.ErrorList{field.TypeInvalid(p, badValue(v), "must be a mapping")}
	}
	var errs field.ErrorList
	for name, v := range fields {
		fp := p.Child(name)
		switch name {
		case "labels":
			errs = append(errs, stringMap(fp, v, m.Labels)...)
		case "annotations":
			errs = append(errs, stringMap(fp, v, m.Annotations)...)
		default:
			errs = append(errs, unknownField(fp, "annotations", "labels"))
		}
	}
	return errs
}

// stringMap copies the string-to-string mapping v into dst.
func stringMap(p *field.Path, v any, dst map[string]string) field.ErrorList {
	if v == nil {
		return nil
	}
	src, ok := v.(map[string]any)
	if !ok {
		return field.ErrorList{field.TypeInvalid(p, badValue(v), "must be a mapping of strings to strings")}
	}
	var errs field.ErrorList
	for k, v := range src {
		vs, ok := v.(string)
		if !ok {
			errs = append(errs, field.TypeInvalid(p.Key(k), badValue(v), "must be a string; quote it"))
			continue
		}
		dst[k] = vs
	}
	return errs
}

// unknownField reports a field that the schema does not have.
func unknownField(p *field.Path, supported ...string) *field.Error {
	quoted := make([]string, len(supported))
	for i, s := range supported {
		quoted[i] = strconv.Quote(s)
	}
	return field.Forbidden(p, "unknown field; supported fields: "+strings.Join(quoted, ", "))
}

// badValue returns v as an error value: strings cut to 64 bytes, numbers as
// int or float64 (as written when neither holds them), other scalars as
// themselves, mappings and sequences omitted.
func badValue(v any) any {
	switch v := v.(type) {
	case map[string]any, []any:
		return field.OmitValueType{}
	case string:
		return quote.Value(v)
	case json.Number:
		if i, err := strconv.Atoi(v.String()); err == nil {
			return i
		}
		if f, err := v.Float64(); err == nil {
			return f
		}
		return quote.Value(v.String())
	}
	return v
}

// yamlKind names the YAML kind of a decoded value for messages.
func yamlKind(v any) string {
	switch v.(type) {
	case map[string]any:
		return "a mapping"
	case []any:
		return "a sequence"
	}
	return "a scalar"
}
