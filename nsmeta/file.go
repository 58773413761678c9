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

	"github.com/tenantkit/tenantkit/internal/yamldoc"
)

// The type fields of a NamespaceMetadata file, required and exact.
const (
	APIVersion = "source.extensions.fluxcd.io/v1beta1"
	Kind       = "NamespaceMetadata"
)

// MaxFileSize bounds a NamespaceMetadata file, which a tenant writes: a real
// file is a few hundred bytes, and annotations alone may hold at most 256 KiB.
// The size is checked before any parsing.
const MaxFileSize = 1 << 20

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
// Errors wrap ErrFileTooLarge (more than MaxFileSize bytes), ErrFileEmpty,
// ErrFileSyntax (invalid YAML, with its line; a duplicate key; nesting deeper
// than 10,000 levels; excessive aliasing), ErrFileDocuments, or
// ErrInvalidFile: for a document that is not a mapping, a plain error; for
// fields that break the schema, a *ValidationError listing them all with
// paths rooted at the document (metadata.labels[team], metadata.lables).
func ParseFile(data []byte) (Metadata, error) {
	if len(data) > MaxFileSize {
		return Metadata{}, fmt.Errorf("%w: file has %d bytes", ErrFileTooLarge, len(data))
	}
	if err := yamldoc.CheckExpansion(data); err != nil {
		return Metadata{}, fmt.Errorf("%w: %w", ErrFileSyntax, err)
	}
	doc, err := decodeOne(data)
	if err != nil {
		return Metadata{}, err
	}
	root, ok := doc.(map[any]any)
	if !ok {
		return Metadata{}, fmt.Errorf("%w: document must be a mapping, not %s", ErrInvalidFile, yamlKind(doc))
	}
	m, errs := fromDocument(root)
	if err := invalid(ErrInvalidFile, errs); err != nil {
		return Metadata{}, err
	}
	return m, nil
}

// decodeOne decodes the single YAML document in data.
//
// It uses go.yaml.in/yaml/v2 directly rather than sigs.k8s.io/yaml, which
// decodes only the first document and silently ignores the rest, and turns
// an unquoted true or 1 into a string, where Kubernetes would refuse it.
// yaml/v2 bounds what a tenant can make it do: nesting deeper than 10,000
// levels fails in the scanner, and alias expansion fails with "excessive
// aliasing" once aliases account for most of the nodes decoded (the package
// documentation has the figures), so a billion-laughs document fails within milliseconds.
// Banning aliases outright would need a YAML tokenizer of our own: yaml/v2
// does not expose its nodes. Strict mode makes a duplicate key an error.
func decodeOne(data []byte) (doc any, err error) {
	defer func() {
		// yaml/v2 reports errors by panicking and recovering internally; a
		// panic that escapes it is a bug in the parser, and a tenant's file
		// must not crash the controller because of it.
		if r := recover(); r != nil {
			doc, err = nil, fmt.Errorf("%w: %v", ErrFileSyntax, r)
		}
	}()
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.SetStrict(true)
	for {
		if doc == nil {
			// Empty documents (a stray "---") before the first one are skipped.
			err := dec.Decode(&doc)
			if errors.Is(err, io.EOF) {
				return nil, ErrFileEmpty
			}
			if err != nil {
				return nil, fmt.Errorf("%w: %w", ErrFileSyntax, err)
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
			return nil, ErrFileDocuments
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
		return field.ErrorList{field.NotSupported(p, s, []string{want})}
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

// badValue returns v as an error value: scalars as themselves, mappings and
// sequences omitted.
func badValue(v any) any {
	switch v.(type) {
	case map[any]any, []any:
		return field.OmitValueType{}
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
