package nsmeta

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"

	"github.com/tenantkit/tenantkit/internal/quote"
	"github.com/tenantkit/tenantkit/internal/yamldoc"
)

// The type fields of a NamespaceMetadata file, required and exact.
const (
	APIVersion = "source.extensions.fluxcd.io/v1beta1"
	Kind       = "NamespaceMetadata"
)

// maxFileSize bounds a NamespaceMetadata file, which a tenant writes: a real
// file is a few hundred bytes, and annotations alone may hold at most 256 KiB.
// The size is checked before any parsing.
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
// The file is read with sigs.k8s.io/yaml, as source-watcher reads it: YAML
// 1.1 scalars (unquoted yes is true), and keys that are numbers or booleans
// read as their text (7: seven is the label "7"). It must hold exactly one
// YAML document (empty documents, such as a stray "---" makes, are
// ignored): a mapping with apiVersion and kind set exactly as above and,
// optionally, metadata with labels and annotations, whose values must be
// strings (quote true, 1 or 1.0) and whose keys and values must be valid by
// [Metadata.Validate]. Any other field is an error, and so is a duplicate
// key. The returned maps are never nil.
//
//	m, errs, err := nsmeta.ParseFile(data)
//
// ParseFile returns one of two kinds of failure, never both:
//
//   - err, wrapping ErrInvalidFile, for data that is not a NamespaceMetadata
//     document at all: more than 1 MiB; not YAML (with its
//     line), a duplicate key, nesting deeper than 10,000 levels; aliases
//     that expand the file past 10 times its size (64 KiB at least); no
//     document, or more than one; a document that is not a mapping;
//   - errs, the sorted list of every field that breaks the schema, with
//     paths rooted at the document (metadata.labels[team],
//     metadata.lables); a bad value is shown by its first 64 bytes when it
//     is longer.
func ParseFile(data []byte) (Metadata, field.ErrorList, error) {
	if len(data) > maxFileSize {
		return Metadata{}, nil, fmt.Errorf("%w: must be no more than 1 MiB, not %d bytes", ErrInvalidFile, len(data))
	}
	root, err := decodeFile(data)
	if err != nil {
		return Metadata{}, nil, err
	}
	m, errs := fromDocument(root)
	if len(errs) > 0 {
		return Metadata{}, sortErrors(errs), nil
	}
	return m, nil, nil
}

// decodeFile returns the mapping of the single YAML document in data.
//
// yamldoc.Documents bounds what aliases expand to and splits the stream,
// since sigs.k8s.io/yaml reads the first document and silently drops the
// rest; yamldoc.Aligned keeps the decoder's line numbers those of the
// file. The document is then decoded by one sigs.k8s.io/yaml call, into an
// untyped value rather than a struct, so that fromDocument reports every
// unknown field and every value that is not a string at its path: decoding
// into a struct would stop at the first unknown field, and would turn an
// unquoted true or 1 into a string, which Kubernetes refuses. Strict
// decoding makes a duplicate key an error; nesting deeper than 10,000
// levels fails in the decoder.
func decodeFile(data []byte) (root map[string]any, err error) {
	docs, err := yamldoc.Documents(data)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidFile, err)
	}
	switch {
	case len(docs) == 0:
		return nil, fmt.Errorf("%w: must hold a NamespaceMetadata document, found none", ErrInvalidFile)
	case len(docs) > 1:
		return nil, fmt.Errorf("%w: must hold exactly one YAML document", ErrInvalidFile)
	}
	defer func() {
		// yaml/v2, under sigs.k8s.io/yaml, reports errors by panicking and
		// recovering internally; a panic that escapes it is a bug in the
		// parser, and a tenant's file must not crash the controller
		// because of it.
		if r := recover(); r != nil {
			root, err = nil, fmt.Errorf("%w: must be valid YAML: %v", ErrInvalidFile, r)
		}
	}()
	var doc any
	if err := yaml.UnmarshalStrict(yamldoc.Aligned(data, docs[0]), &doc, useNumber); err != nil {
		return nil, fmt.Errorf("%w: must be valid YAML: %w", ErrInvalidFile, err)
	}
	switch doc := doc.(type) {
	case nil:
		return nil, fmt.Errorf("%w: must hold a NamespaceMetadata document, found none", ErrInvalidFile)
	case map[string]any:
		return doc, nil
	default:
		return nil, fmt.Errorf("%w: document must be a mapping, not %s", ErrInvalidFile, yamlKind(doc))
	}
}

// useNumber keeps numbers as json.Number, so that an error shows an
// unquoted label value as written (1, not 1.0 or 1e+21).
func useNumber(d *json.Decoder) *json.Decoder {
	d.UseNumber()
	return d
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
			errs = append(errs, checkTypeField(p, v, APIVersion)...)
		case "kind":
			errs = append(errs, checkTypeField(p, v, Kind)...)
		case "metadata":
			errs = append(errs, metadataFields(p, v, &m)...)
		default:
			errs = append(errs, unknownField(p, "apiVersion", "kind", "metadata"))
		}
	}
	for _, f := range [...]struct{ name, want string }{{"apiVersion", APIVersion}, {"kind", Kind}} {
		if _, ok := root[f.name]; !ok {
			errs = append(errs, field.Required(field.NewPath(f.name), fmt.Sprintf("must be %q", f.want)))
		}
	}
	errs = append(errs, m.Validate(field.NewPath("metadata"))...)
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
