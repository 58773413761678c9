package nsmeta

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	yaml "go.yaml.in/yaml/v2"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/tenantkit/tenantkit/internal/quote"
	"github.com/tenantkit/tenantkit/internal/simpleyaml"
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
// The file must hold exactly one YAML document (empty documents, such as a
// stray "---" makes, are ignored): a mapping with apiVersion and kind set
// exactly as above and, optionally, metadata with labels and annotations,
// whose keys and values must be strings (quote true, 1 or 1.0) valid by
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
	if err := yamldoc.CheckExpansion(data); err != nil {
		return Metadata{}, nil, fmt.Errorf("%w: %w", ErrInvalidFile, err)
	}
	root, err := decodeRoot(data)
	if err != nil {
		return Metadata{}, nil, err
	}
	m, errs := fromDocument(root)
	if len(errs) > 0 {
		return Metadata{}, sortErrors(errs), nil
	}
	return m, nil, nil
}

// decodeRoot returns the mapping of the single YAML document in data. A
// file of the usual shape is read by simpleyaml, whose result is exactly
// what decodeOne returns (FuzzSimpleFile), in a fifth of the time; any
// other is decoded.
func decodeRoot(data []byte) (map[any]any, error) {
	if n, ok := simpleyaml.Parse(data); ok {
		return n.Any().(map[any]any), nil
	}
	doc, err := decodeOne(data)
	if err != nil {
		return nil, err
	}
	root, ok := doc.(map[any]any)
	if !ok {
		return nil, fmt.Errorf("%w: document must be a mapping, not %s", ErrInvalidFile, yamlKind(doc))
	}
	return root, nil
}

// decodeOne decodes the single YAML document in data.
//
// It uses go.yaml.in/yaml/v2 directly rather than sigs.k8s.io/yaml, which
// decodes only the first document and silently ignores the rest, and turns
// an unquoted true or 1 into a string, where Kubernetes would refuse it.
// Nesting deeper than 10,000 levels fails in yaml/v2's scanner; what aliases
// may expand, yamldoc.CheckExpansion bounded before. Strict mode makes a
// duplicate key an error.
func decodeOne(data []byte) (doc any, err error) {
	defer func() {
		// yaml/v2 reports errors by panicking and recovering internally; a
		// panic that escapes it is a bug in the parser, and a tenant's file
		// must not crash the controller because of it.
		if r := recover(); r != nil {
			doc, err = nil, fmt.Errorf("%w: must be valid YAML: %v", ErrInvalidFile, r)
		}
	}()
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.SetStrict(true)
	for {
		if doc == nil {
			// Empty documents (a stray "---") before the first one are skipped.
			err := dec.Decode(&doc)
			if errors.Is(err, io.EOF) {
				return nil, fmt.Errorf("%w: must hold a NamespaceMetadata document, found none", ErrInvalidFile)
			}
			if err != nil {
				return nil, fmt.Errorf("%w: must be valid YAML: %w", ErrInvalidFile, err)
			}
			continue
		}
		// Only the presence of a later document matters: decoding into a
		// *struct{} leaves the pointer nil for an empty document (a trailing
		// "---") and expands nothing of a real one.
		var next *struct{}
		err := dec.Decode(&next)
		if errors.Is(err, io.EOF) {
			return doc, nil
		}
		if err != nil || next != nil {
			return nil, fmt.Errorf("%w: must hold exactly one YAML document", ErrInvalidFile)
		}
	}
}

// fromDocument extracts the metadata of a NamespaceMetadata document and
// reports every field that breaks the schema.
func fromDocument(root map[any]any) (Metadata, field.ErrorList) {
	var (
		errs field.ErrorList
		m    = Metadata{Labels: map[string]string{}, Annotations: map[string]string{}}
	)
	// Map order does not leak: the errors are sorted before they are returned.
	for k, v := range root {
		name, p, ferr := fieldName(nil, k)
		if ferr != nil {
			errs = append(errs, ferr)
			continue
		}
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
	fields, ok := v.(map[any]any)
	if !ok {
		return field.ErrorList{field.TypeInvalid(p, badValue(v), "must be a mapping")}
	}
	var errs field.ErrorList
	for k, v := range fields {
		name, fp, ferr := fieldName(p, k)
		if ferr != nil {
			errs = append(errs, ferr)
			continue
		}
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
	src, ok := v.(map[any]any)
	if !ok {
		return field.ErrorList{field.TypeInvalid(p, badValue(v), "must be a mapping of strings to strings")}
	}
	var errs field.ErrorList
	for k, v := range src {
		ks, ok := k.(string)
		if !ok {
			errs = append(errs, field.TypeInvalid(p.Key(fmt.Sprint(k)), badValue(k), "key must be a string; quote it"))
			continue
		}
		vs, ok := v.(string)
		if !ok {
			errs = append(errs, field.TypeInvalid(p.Key(ks), badValue(v), "must be a string; quote it"))
			continue
		}
		dst[ks] = vs
	}
	return errs
}

// fieldName returns the name and path of the field whose key is k, or an
// error when k is not a string.
func fieldName(parent *field.Path, k any) (string, *field.Path, *field.Error) {
	name, ok := k.(string)
	if !ok {
		return "", nil, field.TypeInvalid(parent.Child(fmt.Sprint(k)), badValue(k), "field name must be a string")
	}
	return name, parent.Child(name), nil
}

// unknownField reports a field that the schema does not have.
func unknownField(p *field.Path, supported ...string) *field.Error {
	quoted := make([]string, len(supported))
	for i, s := range supported {
		quoted[i] = strconv.Quote(s)
	}
	return field.Forbidden(p, "unknown field; supported fields: "+strings.Join(quoted, ", "))
}

// badValue returns v as an error value: strings cut to 64 bytes, other
// scalars as themselves, mappings and sequences omitted.
func badValue(v any) any {
	switch v := v.(type) {
	case map[any]any, []any:
		return field.OmitValueType{}
	case string:
		return quote.Value(v)
	}
	return v
}

// yamlKind names the YAML kind of a decoded value for messages.
func yamlKind(v any) string {
	switch v.(type) {
	case map[any]any:
		return "a mapping"
	case []any:
		return "a sequence"
	}
	return "a scalar"
}
