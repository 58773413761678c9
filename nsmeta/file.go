package nsmeta

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"

	"github.com/tenantkit/tenantkit/internal/errsort"
	"github.com/tenantkit/tenantkit/internal/quote"
	"github.com/tenantkit/tenantkit/internal/yamldoc"
)

// The type fields of a NamespaceMetadata file, required with these values.
const (
	fileAPIVersion = "source.extensions.fluxcd.io/v1beta1"
	fileKind       = "NamespaceMetadata"
)

// maxFileSize bounds a tenant's file before parsing: a real file is a few hundred bytes,
// annotations hold at most 256 KiB, and source-watcher reads no more (maxInputsFileSize).
const maxFileSize = 1 << 20

// ParseFile parses and validates a NamespaceMetadata file as source-watcher v2.3's published
// schema says (docs/namespacemetadata-v1beta1.json): apiVersion and kind are required, with
// exactly their one value; no other field is allowed, at the top level or under metadata
// (metadata.lables is an error that names it); label and annotation values must be YAML strings
// (quote an unquoted true, 1, 1.0 or null). Beyond the schema, keys must not repeat; a key that
// YAML reads as a number or a boolean is its text (7: seven is the label "7"); every key and value
// must pass [Metadata.Validate]. The returned maps are never nil.
//
//	m, errs, err := nsmeta.ParseFile(data)
//
// A failure is one of two kinds, never both: err, a [*FileError] wrapping ErrInvalidFile, for data
// that is not a NamespaceMetadata document at all (over 1 MiB; not YAML, with its line; a null or
// repeated key; nesting over 10,000 levels; aliases that expand it over 10 times, 64 KiB at least;
// a directive or a line break other than a newline; more than one document, or one behind an empty
// first; not a mapping); or errs, the sorted list of every field that breaks the rules above, at
// paths rooted at the document (metadata.labels[team]), a bad value shown by its first 64 bytes.
// An empty file, or one of comments only, or whose document is null, is one error at apiVersion
// that says what it holds and needs. No option applies: WithCache has no effect, any other is a
// Forbidden error at its name.
func ParseFile(data []byte, opts ...Option) (Metadata, field.ErrorList, error) {
	var o options
	if errs := o.apply(opts, "ParseFile"); len(errs) > 0 {
		return Metadata{}, errsort.Sort(errs), nil
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
		return Metadata{}, errsort.Sort(errs), nil
	}
	return m, nil, nil
}

// errHiddenDocument refuses an empty first document before one with content ("---\n---\nmeta..."),
// since the decoder, and so source-watcher, reads only the first.
var errHiddenDocument = errors.New("the first YAML document is empty and the metadata is in the next one, which is never read; remove the separator before it")

// hidesDocument reports whether data's empty first document hides doc, its one document with
// content (yamldoc.Documents): it does unless doc is null.
func hidesDocument(data, doc []byte) bool {
	var v any
	err := yaml.Unmarshal(yamldoc.Aligned(data, doc), &v)
	return err != nil || v != nil
}

// decode returns the mapping of data's first document (docs are its non-empty ones), nil when
// there is none or it is null. It decodes data whole, as source-watcher does, so that errors name
// lines; strictly, for duplicate keys; untyped, as a struct stops at the first unknown field.
func decode(data []byte, docs [][]byte) (root map[string]any, err error) {
	defer func() {
		// A yaml/v2 panic is a parser bug, which a tenant's file must not turn into a crash.
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

// invalidYAML reports err as a FileError in the file's words, not the decoder's (yamldoc.Detail).
func invalidYAML(err error) *FileError {
	return &FileError{Detail: yamldoc.Detail(err), err: err}
}

// useNumber keeps numbers as written in errors (1, not 1.0 or 1e+21).
func useNumber(d *json.Decoder) *json.Decoder {
	d.UseNumber()
	return d
}

// noDocument reports a file that asks for nothing (noDocs: no document at all) as one error, not
// fromDocument's two for the missing type fields:
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

// fromDocument extracts the metadata and reports every field that breaks the schema.
func fromDocument(root map[string]any) (Metadata, field.ErrorList) {
	var (
		errs field.ErrorList
		m    = Metadata{Labels: map[string]string{}, Annotations: map[string]string{}}
	)
	// Map order does not leak: the errors are sorted before they are returned.
	for name, v := range root {
		switch name {
		case "apiVersion", "kind":
		case "metadata":
			errs = append(errs, metadataFields(field.NewPath(name), v, &m)...)
		default:
			errs = append(errs, unknownField(field.NewPath(name), `"apiVersion", "kind", "metadata"`))
		}
	}
	// A missing type field is null: Required.
	errs = append(errs, checkTypeField(field.NewPath("apiVersion"), root["apiVersion"], fileAPIVersion)...)
	errs = append(errs, checkTypeField(field.NewPath("kind"), root["kind"], fileKind)...)
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
	fields, errs := mapping(p, v, "must be a mapping")
	for name, v := range fields {
		fp := p.Child(name)
		switch name {
		case "labels":
			errs = append(errs, stringMap(fp, v, m.Labels)...)
		case "annotations":
			errs = append(errs, stringMap(fp, v, m.Annotations)...)
		default:
			errs = append(errs, unknownField(fp, `"annotations", "labels"`))
		}
	}
	return errs
}

// stringMap copies the string-to-string mapping v into dst.
func stringMap(p *field.Path, v any, dst map[string]string) field.ErrorList {
	src, errs := mapping(p, v, "must be a mapping of strings to strings")
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

// mapping returns v as a mapping, nil for null, or an error with detail for any other value.
func mapping(p *field.Path, v any, detail string) (map[string]any, field.ErrorList) {
	m, ok := v.(map[string]any)
	if v != nil && !ok {
		return nil, field.ErrorList{field.TypeInvalid(p, badValue(v), detail)}
	}
	return m, nil
}

// unknownField reports the field at p, which is none of supported, quoted and comma-separated.
func unknownField(p *field.Path, supported string) *field.Error {
	return field.Forbidden(p, "unknown field; supported fields: "+supported)
}

// badValue returns v as an error value: strings cut to 64 bytes, numbers as int or float64 (as
// written when neither holds them), other scalars as themselves, mappings and sequences omitted.
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

func yamlKind(v any) string {
	switch v.(type) {
	case map[string]any:
		return "a mapping"
	case []any:
		return "a sequence"
	}
	return "a scalar"
}
