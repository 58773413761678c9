package nsmeta

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"

	"github.com/tenantkit/tenantkit/internal/quote"
	"github.com/tenantkit/tenantkit/internal/yamldoc"
)

// The type fields of a NamespaceMetadata file: optional, but when set
// they must have these values; [WithStrict] requires them. nsmeta reads
// no other type.
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
// By default it reads the file as source-watcher v2.3 reads it, decoding it
// with sigs.k8s.io/yaml into the same Go shape, so that a file source-watcher
// accepts gives the same metadata here:
//
//   - apiVersion and kind may be left out (or empty, or null); when set
//     they must be exactly as above, and strings;
//   - other fields are ignored, and field names match case-insensitively,
//     as encoding/json matches them (Metadata: and LABELS: are read);
//   - a label or annotation value that YAML reads as a number or a boolean
//     is its text as sigs.k8s.io/yaml writes it (7 is "7", yes and true are
//     "true", 1.0 is "1", 0x1F is "31"), and null is ""; a value that is a
//     sequence or a mapping is an error;
//   - a key that repeats keeps its last value;
//   - an empty file, or one of comments only, or a null document, asks for
//     nothing.
//
// Options: [WithStrict] reads the file strictly instead: apiVersion and
// kind are required, any other field is an error that names it (a typo such
// as metadata.lables), keys must not repeat, values must be YAML strings
// (quote true, 1 or 1.0, as a Kubernetes manifest must), and the file must
// hold exactly one document. WithCache has no effect here; any other option
// is a Forbidden error at its name.
//
// Either way, keys that are numbers or booleans read as their text (7:
// seven is the label "7"), every key and value must be valid by
// [Metadata.Validate], and the file must be at most 1 MiB, have aliases
// that expand it at most 10 times (64 KiB at least), and hold at most one
// YAML document, the first of the stream: source-watcher would silently
// read the first of several, or nothing from "---\n---\nmetadata: ...".
// The returned maps are never nil.
//
//	m, errs, err := nsmeta.ParseFile(data)
//	m, errs, err = nsmeta.ParseFile(data, nsmeta.WithStrict())
//
// ParseFile returns one of two kinds of failure, never both:
//
//   - err, wrapping ErrInvalidFile, for data that is not a NamespaceMetadata
//     document at all: more than 1 MiB; not YAML (with its line), a key
//     that is null, nesting deeper than 10,000 levels; aliases that expand
//     the file too far; more than one document, or one behind an empty
//     first document; a document that is not a mapping; and, under
//     WithStrict, a duplicate key or no document;
//   - errs, the sorted list of every field that breaks the rules above,
//     with paths rooted at the document (metadata.labels[team], kind); a
//     bad value is shown by its first 64 bytes when it is longer.
func ParseFile(data []byte, opts ...Option) (Metadata, field.ErrorList, error) {
	var o options
	if errs := o.apply(opts, "ParseFile", "WithStrict"); len(errs) > 0 {
		return Metadata{}, sortErrors(errs), nil
	}
	if len(data) > maxFileSize {
		return Metadata{}, nil, fmt.Errorf("%w: must be no more than 1 MiB, not %d bytes", ErrInvalidFile, len(data))
	}
	docs, err := yamldoc.Documents(data)
	if err != nil {
		return Metadata{}, nil, fmt.Errorf("%w: %w", ErrInvalidFile, err)
	}
	if len(docs) > 1 {
		return Metadata{}, nil, fmt.Errorf("%w: must hold exactly one YAML document", ErrInvalidFile)
	}
	// Both readings decode data whole, as source-watcher does: the decoder
	// reads its first document, and its errors name lines of data.
	var (
		m    Metadata
		errs field.ErrorList
	)
	if o.strict {
		root, err := decodeStrict(data, docs)
		if err != nil {
			return Metadata{}, nil, err
		}
		m, errs = fromDocument(root)
	} else {
		m, errs, err = decodeLenient(data, docs)
		if err != nil {
			return Metadata{}, nil, err
		}
	}
	errs = append(errs, m.Validate(field.NewPath("metadata"))...)
	if len(errs) > 0 {
		return Metadata{}, sortErrors(errs), nil
	}
	return m, nil, nil
}

// errHiddenDocument refuses a stream whose first document is empty and
// whose second is not, such as "---\n---\nmetadata: ...": the decoder
// reads only the first, so source-watcher reads no metadata at all from it,
// which is surely not what the tenant meant.
var errHiddenDocument = fmt.Errorf("%w: the first YAML document is empty and the metadata is in the next one, which is never read; remove the separator before it", ErrInvalidFile)

// hidesDocument reports whether the first document of data, which decodes
// to nothing, hides doc, the one document of data with content that
// yamldoc.Documents found: it does unless doc is itself null.
func hidesDocument(data, doc []byte) bool {
	var v any
	err := yaml.Unmarshal(yamldoc.Aligned(data, doc), &v)
	return err != nil || v != nil
}

// upstreamFile is the Go shape into which source-watcher v2.3 decodes a
// NamespaceMetadata file (its v1beta1.NamespaceMetadata). The shape
// matters, not only the field names: sigs.k8s.io/yaml turns a YAML number
// or boolean into a string when the Go field it lands in is a string, and
// it sees through the inline TypeMeta only as a struct, so that an unquoted
// label value 7 reads as "7" while apiVersion: 1 is an error, as upstream.
type upstreamFile struct {
	metav1.TypeMeta `json:",inline"`
	Metadata        struct {
		Annotations map[string]string `json:"annotations,omitempty"`
		Labels      map[string]string `json:"labels,omitempty"`
	} `json:"metadata,omitempty"`
}

// decodeLenient reads data, whose non-empty documents are docs, as
// source-watcher v2.3 does: one sigs.k8s.io/yaml call into upstreamFile,
// then the type fields checked when they are set. When that call fails, the
// data is decoded again into an untyped value to report each field of the
// wrong shape at its path (encoding/json reports only the first); data that
// no field explains is refused as a whole, with the decoder's error. The
// other keys are checked once those fields are fixed.
func decodeLenient(data []byte, docs [][]byte) (m Metadata, errs field.ErrorList, err error) {
	defer func() {
		// yaml/v2, under sigs.k8s.io/yaml, reports errors by panicking and
		// recovering internally; a panic that escapes it is a bug in the
		// parser, and a tenant's file must not crash the controller
		// because of it.
		if r := recover(); r != nil {
			m, errs, err = Metadata{}, nil, fmt.Errorf("%w: must be valid YAML: %v", ErrInvalidFile, r)
		}
	}()
	var f upstreamFile
	if uerr := yaml.Unmarshal(data, &f); uerr != nil {
		var root any
		if err := yaml.Unmarshal(data, &root, useNumber); err != nil {
			return Metadata{}, nil, fmt.Errorf("%w: must be valid YAML: %w", ErrInvalidFile, err)
		}
		if mapping, ok := root.(map[string]any); !ok {
			return Metadata{}, nil, fmt.Errorf("%w: document must be a mapping, not %s", ErrInvalidFile, yamlKind(root))
		} else if errs := shapeErrors(mapping); len(errs) > 0 {
			return Metadata{}, errs, nil
		}
		return Metadata{}, nil, fmt.Errorf("%w: %w", ErrInvalidFile, uerr)
	}
	if f.TypeMeta == (metav1.TypeMeta{}) && f.Metadata.Labels == nil && f.Metadata.Annotations == nil && len(docs) == 1 {
		// Nothing read: the first document may be empty, hiding the next.
		var root any
		if err := yaml.Unmarshal(data, &root); err == nil && root == nil && hidesDocument(data, docs[0]) {
			return Metadata{}, nil, errHiddenDocument
		}
	}
	for _, tf := range [...]struct{ name, got, want string }{
		{"apiVersion", f.APIVersion, fileAPIVersion},
		{"kind", f.Kind, fileKind},
	} {
		if tf.got != "" && tf.got != tf.want {
			errs = append(errs, field.NotSupported(field.NewPath(tf.name), quote.Value(tf.got), []string{tf.want}))
		}
	}
	m = Metadata{Labels: f.Metadata.Labels, Annotations: f.Metadata.Annotations}
	if m.Labels == nil {
		m.Labels = map[string]string{}
	}
	if m.Annotations == nil {
		m.Annotations = map[string]string{}
	}
	return m, errs, nil
}

// shapeErrors reports the fields of root, a document decoded into an
// untyped value, that upstreamFile cannot hold: a type field that is not a
// string (or, being one, has another value), metadata or its labels or annotations that are not mappings, and
// a label or annotation value that is a sequence or a mapping. It matches
// field names as encoding/json does, exactly or else case-insensitively,
// and ignores other fields. The paths are the schema's (metadata.labels[a]),
// however the file spells the field names.
func shapeErrors(root map[string]any) field.ErrorList {
	var errs field.ErrorList
	// Map order does not leak: the errors are sorted before they are returned.
	for name, v := range root {
		switch f := jsonField(name, "apiVersion", "kind", "metadata"); f {
		case "apiVersion", "kind":
			want := map[string]string{"apiVersion": fileAPIVersion, "kind": fileKind}[f]
			if s, ok := v.(string); !ok && v != nil {
				errs = append(errs, field.TypeInvalid(field.NewPath(f), badValue(v), "must be a string"))
			} else if s != "" && s != want {
				errs = append(errs, field.NotSupported(field.NewPath(f), quote.Value(s), []string{want}))
			}
		case "metadata":
			errs = append(errs, metadataShape(field.NewPath(f), v)...)
		}
	}
	return errs
}

// metadataShape reports what upstreamFile.Metadata cannot hold of v.
func metadataShape(p *field.Path, v any) field.ErrorList {
	if v == nil {
		return nil
	}
	fields, ok := v.(map[string]any)
	if !ok {
		return field.ErrorList{field.TypeInvalid(p, badValue(v), "must be a mapping")}
	}
	var errs field.ErrorList
	for name, v := range fields {
		f := jsonField(name, "labels", "annotations")
		if f == "" || v == nil {
			continue
		}
		fp := p.Child(f)
		src, ok := v.(map[string]any)
		if !ok {
			errs = append(errs, field.TypeInvalid(fp, badValue(v), "must be a mapping of strings to strings"))
			continue
		}
		for k, v := range src {
			switch v.(type) {
			case map[string]any, []any:
				errs = append(errs, field.TypeInvalid(fp.Key(k), badValue(v), "must be a string"))
			}
		}
	}
	return errs
}

// jsonField returns the field among fields that encoding/json decodes the
// key name into, preferring an exact match to a case-insensitive one, or
// "" for none.
func jsonField(name string, fields ...string) string {
	if slices.Contains(fields, name) {
		return name
	}
	for _, f := range fields {
		if strings.EqualFold(f, name) {
			return f
		}
	}
	return ""
}

// decodeStrict returns the mapping of the first document of data, whose
// non-empty documents are docs, for [WithStrict].
//
// It is decoded by one sigs.k8s.io/yaml call, into an untyped value rather
// than a struct, so that fromDocument reports every unknown field and every
// value that is not a string at its path: decoding into a struct would stop
// at the first unknown field, and would turn an unquoted true or 1 into a
// string. Strict decoding makes a duplicate key an error; nesting deeper
// than 10,000 levels fails in the decoder.
func decodeStrict(data []byte, docs [][]byte) (root map[string]any, err error) {
	defer func() {
		// As in decodeLenient.
		if r := recover(); r != nil {
			root, err = nil, fmt.Errorf("%w: must be valid YAML: %v", ErrInvalidFile, r)
		}
	}()
	var v any
	if err := yaml.UnmarshalStrict(data, &v, useNumber); err != nil {
		return nil, fmt.Errorf("%w: must be valid YAML: %w", ErrInvalidFile, err)
	}
	switch v := v.(type) {
	case nil:
		if len(docs) == 1 && hidesDocument(data, docs[0]) {
			return nil, errHiddenDocument
		}
		return nil, fmt.Errorf("%w: must hold a NamespaceMetadata document, found none", ErrInvalidFile)
	case map[string]any:
		return v, nil
	default:
		return nil, fmt.Errorf("%w: document must be a mapping, not %s", ErrInvalidFile, yamlKind(v))
	}
}

// useNumber keeps numbers as json.Number, so that an error shows an
// unquoted label value as written (1, not 1.0 or 1e+21).
func useNumber(d *json.Decoder) *json.Decoder {
	d.UseNumber()
	return d
}

// fromDocument extracts the metadata of a NamespaceMetadata document read
// under [WithStrict] and reports every field that breaks the strict rules.
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
