package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	yamlv2 "go.yaml.in/yaml/v2"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"

	"github.com/tenantkit/tenantkit/generator"
	"github.com/tenantkit/tenantkit/internal/yamldoc"
)

// manifest is an ArtifactGenerator manifest: the metadata the plan needs,
// and the spec in generator's types.
type manifest struct {
	Metadata objectMeta
	Spec     generator.Spec
}

type objectMeta struct {
	Name        string            `json:"name"`
	Namespace   string            `json:"namespace,omitempty"`
	UID         string            `json:"uid,omitempty"`
	Labels      map[string]string `json:"labels,omitempty"`
	Annotations map[string]string `json:"annotations,omitempty"`
}

// maxManifestBytes bounds the generator, inventory and cluster files the
// tool reads: they come from the platform team, but a wrong path must not
// make the preview read a disk image.
const maxManifestBytes = 16 << 20

const (
	generatorAPIVersion = "source.extensions.fluxcd.io/v1beta1"
	generatorKind       = "ArtifactGenerator"
)

// serverSetMetadata are the fields of metadata that the API server sets
// and kubectl get -o yaml prints: -generator ignores them, so that an
// exported ArtifactGenerator plans as it is. The whole status is ignored
// too.
var serverSetMetadata = []string{
	"creationTimestamp", "deletionGracePeriodSeconds", "deletionTimestamp", "finalizers", "generateName",
	"generation", "managedFields", "ownerReferences", "resourceVersion", "selfLink",
}

// maxShapeErrors is how many unknown fields and wrong types the message of
// a -generator file names; the rest are counted.
const maxShapeErrors = 10

// parseGenerator decodes an ArtifactGenerator manifest: one object, or a
// List holding exactly one (what kubectl get artifactgenerator -o yaml
// prints without a name). The type fields must be the ArtifactGenerator's;
// the server-set fields of metadata and the whole status are ignored; every
// other field is decoded strictly: an unknown or repeated field, or a value
// of the wrong type, is an error naming its path, so a typo in the spec
// never silently drops a policy.
func parseGenerator(data []byte) (*manifest, error) {
	docs, err := yamldoc.Documents(data)
	if err != nil {
		return nil, err
	}
	if len(docs) != 1 {
		return nil, fmt.Errorf("the file must hold one YAML document, found %d", len(docs))
	}
	j, err := yaml.YAMLToJSONStrict(data)
	if err != nil {
		// yaml/v2 lists a mapping's repeated keys one a line; the message
		// is one line.
		if te, ok := errors.AsType[*yamlv2.TypeError](err); ok {
			return nil, fmt.Errorf("yaml: %s", strings.Join(te.Errors, "; "))
		}
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(j))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		return nil, fmt.Errorf("the file must hold a YAML mapping: %w", err) // not expected: YAML gave this JSON
	}
	obj, at, err := theGenerator(doc)
	if err != nil {
		return nil, err
	}
	var g manifest
	var errs shapeErrors
	for _, k := range sortedKeys(obj) {
		v, path := obj[k], at.Child(k)
		switch k {
		case "apiVersion", "kind", "status":
			// The type fields are checked by theGenerator; the status is
			// the controller's.
		case "metadata":
			if v == nil {
				continue
			}
			meta, ok := v.(map[string]any)
			if !ok {
				errs.add(path, "must be a mapping, found "+jsonKind(v))
				continue
			}
			for _, mk := range sortedKeys(meta) {
				if slices.Contains(serverSetMetadata, mk) {
					delete(meta, mk)
				}
			}
			decodeStrict(meta, path, &g.Metadata, &errs)
		case "spec":
			decodeStrict(v, path, &g.Spec, &errs)
		default:
			errs.add(path, "unknown field")
		}
	}
	if err := errs.err(); err != nil {
		return nil, err
	}
	return &g, nil
}

// theGenerator returns the ArtifactGenerator that doc is, or that the List
// doc holds, with its path ("" or "items[0]"). Type fields that are not
// the ArtifactGenerator's, or a List that holds none or several, are an
// error that names what it found and what it expected.
func theGenerator(doc any) (map[string]any, *field.Path, error) {
	obj, ok := doc.(map[string]any)
	if !ok {
		return nil, nil, fmt.Errorf("must be an %s, a mapping, found %s", generatorKind, jsonKind(doc))
	}
	var at *field.Path
	if kind, _ := obj["kind"].(string); kind == "List" || kind == generatorKind+"List" {
		var errs shapeErrors
		for _, k := range sortedKeys(obj) {
			if k != "apiVersion" && k != "kind" && k != "metadata" && k != "items" {
				errs.add(field.NewPath(k), "unknown field")
			}
		}
		if err := errs.err(); err != nil {
			return nil, nil, err
		}
		items, ok := obj["items"].([]any)
		if obj["items"] != nil && !ok {
			return nil, nil, fmt.Errorf("items: must be a list, found %s", jsonKind(obj["items"]))
		}
		if len(items) != 1 {
			return nil, nil, fmt.Errorf("a %s must hold exactly one %s, found %s%s",
				kind, generatorKind, plural(len(items), "item"), listed(items))
		}
		at = field.NewPath("items").Index(0)
		if obj, ok = items[0].(map[string]any); !ok {
			return nil, nil, fmt.Errorf("%s: must be an %s, a mapping, found %s", at, generatorKind, jsonKind(items[0]))
		}
	}
	// The kind first: a NamespaceList or a Kustomization is named as such.
	for _, tf := range []struct{ name, want string }{{"kind", generatorKind}, {"apiVersion", generatorAPIVersion}} {
		got, ok := obj[tf.name].(string)
		switch {
		case obj[tf.name] == nil:
			return nil, nil, fmt.Errorf("%s: must be %q, found none", at.Child(tf.name), tf.want)
		case !ok:
			return nil, nil, fmt.Errorf("%s: must be %q, found %s", at.Child(tf.name), tf.want, jsonKind(obj[tf.name]))
		case got != tf.want:
			return nil, nil, fmt.Errorf("%s: must be %q, found %q", at.Child(tf.name), tf.want, got)
		}
	}
	return obj, at, nil
}

// listed names the objects of a List's items, for a List that holds
// several: ": ArtifactGenerator flux-system/a, ...; kubectl get
// artifactgenerator NAME -o yaml prints one"; or "".
func listed(items []any) string {
	if len(items) < 2 {
		return ""
	}
	var names []string
	for i, it := range items {
		if i == maxShapeErrors {
			names = append(names, "...")
			break
		}
		o, _ := it.(map[string]any)
		kind, _ := o["kind"].(string)
		meta, _ := o["metadata"].(map[string]any)
		ns, _ := meta["namespace"].(string)
		name, _ := meta["name"].(string)
		names = append(names, strings.TrimSpace(kind+" "+strings.TrimPrefix(ns+"/"+name, "/")))
	}
	return ": " + strings.Join(names, ", ") + "; kubectl get artifactgenerator NAME -o yaml prints one"
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

// shapeErrors are the fields of a manifest that its types do not have, and
// the values of the wrong type, each at its path.
type shapeErrors []string

func (e *shapeErrors) add(path *field.Path, detail string) {
	*e = append(*e, path.String()+": "+detail)
}

// err returns nil for no error, or one error naming the problems sorted by
// path, at most maxShapeErrors of them.
func (e shapeErrors) err() error {
	if len(e) == 0 {
		return nil
	}
	slices.Sort(e)
	msg := strings.Join(e[:min(len(e), maxShapeErrors)], "; ")
	if len(e) > maxShapeErrors {
		msg += fmt.Sprintf("; and %d more", len(e)-maxShapeErrors)
	}
	return fmt.Errorf("%s", msg)
}

// decodeStrict decodes v, a value of JSON decoded with UseNumber, into the
// value that ptr points to. Where v does not fit the type, it adds a
// problem to errs and decodes nothing: an object key that names no field of
// a struct (field names are matched exactly, as the API server matches
// them, not in any case as encoding/json does), or a value of the wrong
// JSON type. A null leaves the target as it is, as encoding/json does.
func decodeStrict(v any, path *field.Path, ptr any, errs *shapeErrors) {
	n := len(*errs)
	check(v, path, reflect.TypeOf(ptr).Elem(), errs)
	if len(*errs) > n {
		return
	}
	data, err := json.Marshal(v)
	if err == nil {
		err = json.Unmarshal(data, ptr)
	}
	if err != nil { // not expected: check accepted v
		errs.add(path, "cannot be decoded: "+err.Error())
	}
}

// check adds to errs every key of v that names no field of t, and every
// value of v whose JSON type does not fit t.
func check(v any, path *field.Path, t reflect.Type, errs *shapeErrors) {
	if v == nil {
		return
	}
	if reflect.PointerTo(t).Implements(reflect.TypeFor[json.Unmarshaler]()) {
		return // decodes itself; no type of generator.Spec does today
	}
	switch t.Kind() {
	case reflect.Pointer:
		check(v, path, t.Elem(), errs)
	case reflect.Interface:
		// any value
	case reflect.Struct:
		obj, ok := v.(map[string]any)
		if !ok {
			errs.add(path, "must be a mapping, found "+jsonKind(v))
			return
		}
		fields := jsonFields(t)
		for _, k := range sortedKeys(obj) {
			ft, ok := fields[k]
			if !ok {
				errs.add(path.Child(k), "unknown field")
				continue
			}
			check(obj[k], path.Child(k), ft, errs)
		}
	case reflect.Map:
		obj, ok := v.(map[string]any)
		if !ok {
			errs.add(path, "must be a mapping, found "+jsonKind(v))
			return
		}
		for _, k := range sortedKeys(obj) {
			check(obj[k], path.Key(k), t.Elem(), errs)
		}
	case reflect.Slice, reflect.Array:
		list, ok := v.([]any)
		if !ok {
			errs.add(path, "must be a list, found "+jsonKind(v))
			return
		}
		for i, item := range list {
			check(item, path.Index(i), t.Elem(), errs)
		}
	case reflect.String:
		if _, ok := v.(string); !ok {
			errs.add(path, "must be a string, found "+jsonKind(v))
		}
	case reflect.Bool:
		if _, ok := v.(bool); !ok {
			errs.add(path, "must be a boolean, found "+jsonKind(v))
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if n, ok := v.(json.Number); !ok {
			errs.add(path, "must be an integer, found "+jsonKind(v))
		} else if _, err := strconv.ParseInt(n.String(), 10, t.Bits()); err != nil {
			errs.add(path, fmt.Sprintf("must be an integer of %d bits, found %s", t.Bits(), n))
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if n, ok := v.(json.Number); !ok {
			errs.add(path, "must be an integer, found "+jsonKind(v))
		} else if _, err := strconv.ParseUint(n.String(), 10, t.Bits()); err != nil {
			errs.add(path, fmt.Sprintf("must be a non-negative integer of %d bits, found %s", t.Bits(), n))
		}
	case reflect.Float32, reflect.Float64:
		if n, ok := v.(json.Number); !ok {
			errs.add(path, "must be a number, found "+jsonKind(v))
		} else if _, err := strconv.ParseFloat(n.String(), t.Bits()); err != nil {
			errs.add(path, "must be a number in range, found "+n.String())
		}
	default:
		errs.add(path, "cannot be decoded") // not expected: no such field in the manifest's types
	}
}

// jsonFields returns the JSON names of the fields of struct type t, with
// their types, as encoding/json names them: a field's tag, or its name
// without one; the fields of an embedded struct without a tag name are
// promoted.
func jsonFields(t reflect.Type) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		ft := f.Type
		if f.Anonymous && name == "" {
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				for k, v := range jsonFields(ft) {
					if _, shadowed := out[k]; !shadowed {
						out[k] = v
					}
				}
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out[name] = ft
	}
	return out
}

// jsonKind names the YAML type of a value of JSON decoded with UseNumber.
func jsonKind(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case json.Number:
		return "a number"
	case string:
		return "a string"
	case []any:
		return "a list"
	case map[string]any:
		return "a mapping"
	default:
		return fmt.Sprintf("a value %v", v)
	}
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
