package agmanifest

import (
	"bytes"
	"encoding"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"

	"github.com/tenantkit/tenantkit/internal/yamldoc"
)

// Parse reads one YAML or JSON document into the values encoding/json
// gives an any, numbers as json.Number: map[string]any, []any, string,
// json.Number, bool or nil. It refuses what is not one document (no
// document, several, a repeated key, aliases that expand it too far, see
// the package documentation) with an error wrapping [ErrSyntax], in the
// file's words, without the YAML decoder's ("must be valid YAML: line 2:
// did not find expected node content").
//
//	doc, err := agmanifest.Parse(data)
func Parse(data []byte) (any, error) {
	docs, err := yamldoc.Documents(data)
	if err != nil {
		return nil, syntaxError(err)
	}
	if len(docs) != 1 {
		return nil, newError(ErrSyntax, "", "the file must hold one YAML document, found %d", len(docs))
	}
	j, err := yaml.YAMLToJSONStrict(data)
	if err != nil {
		return nil, syntaxError(err)
	}
	dec := json.NewDecoder(bytes.NewReader(j))
	dec.UseNumber()
	var doc any
	if err := dec.Decode(&doc); err != nil {
		// Not expected: the YAML decoder gave this JSON.
		return nil, newError(ErrSyntax, "", "the file must hold a YAML document: %s", err.Error())
	}
	return doc, nil
}

// syntaxError returns the *Error wrapping ErrSyntax that reports err, an
// error of yamldoc's checks or of the YAML decoder, in the file's words
// (yamldoc.Detail: "must be valid YAML: line 2: ...", without the
// decoder's "yaml: " or sigs.k8s.io/yaml's "error converting YAML to
// JSON"), on one line; it unwraps to err too.
func syntaxError(err error) *Error {
	return &Error{Err: ErrSyntax, Problems: []Problem{{Detail: yamldoc.Detail(err)}}, cause: err}
}

// Unmarshal decodes one YAML or JSON document into the value that ptr
// points to, strictly (see the package documentation): [Parse], then
// [Strict] at the document's root. ptr must be a non-nil pointer.
//
//	var suite struct{ Cases []struct{ Name string `json:"name"` } `json:"cases"` }
//	err := agmanifest.Unmarshal(data, &suite) // "cases[0].nmae: unknown field"
func Unmarshal(data []byte, ptr any) error {
	doc, err := Parse(data)
	if err != nil {
		return err
	}
	return Strict(doc, nil, ptr)
}

// Strict decodes v, a value as [Parse] returns it, into the value that ptr
// points to, when v fits it: every object key names a field of its struct
// (exactly, not in any case), and every value has the JSON type of its
// field. Otherwise it decodes nothing and returns an error wrapping
// [ErrFields] with every problem, each at its path below path (nil for
// the document's root). A null leaves its target as it is, as
// encoding/json does. ptr must be a non-nil pointer.
func Strict(v any, path *field.Path, ptr any) error {
	var ps problems
	decodeInto(v, path, ptr, &ps)
	return ps.err()
}

// decodeInto decodes v into ptr when v fits, adding its problems to ps
// otherwise.
func decodeInto(v any, path *field.Path, ptr any, ps *problems) {
	n := len(*ps)
	check(v, path, reflect.TypeOf(ptr).Elem(), ps)
	if len(*ps) > n {
		return
	}
	data, err := json.Marshal(v)
	if err == nil {
		err = json.Unmarshal(data, ptr)
	}
	if err != nil { // not expected: check accepted v
		ps.add(pathString(path), "cannot be decoded: "+err.Error())
	}
}

var (
	jsonUnmarshaler = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// check adds to ps every key of v that names no field of t, and every
// value of v whose JSON type does not fit t.
func check(v any, path *field.Path, t reflect.Type, ps *problems) {
	if v == nil {
		return
	}
	at := pathString(path)
	switch pt := reflect.PointerTo(t); {
	case pt.Implements(jsonUnmarshaler):
		return // decodes itself from any value
	case pt.Implements(textUnmarshaler):
		s, ok := v.(string)
		if !ok {
			ps.add(at, "must be a string, found "+jsonKind(v))
			return
		}
		if err := reflect.New(t).Interface().(encoding.TextUnmarshaler).UnmarshalText([]byte(s)); err != nil {
			ps.add(at, fmt.Sprintf("%q: %v", s, err))
		}
		return
	}
	switch t.Kind() {
	case reflect.Pointer:
		check(v, path, t.Elem(), ps)
	case reflect.Interface:
		// any value
	case reflect.Struct:
		obj, ok := v.(map[string]any)
		if !ok {
			ps.add(at, "must be a mapping, found "+jsonKind(v))
			return
		}
		fields := jsonFields(t)
		for _, k := range sortedKeys(obj) {
			ft, ok := fields[k]
			if !ok {
				ps.add(pathString(path.Child(k)), "unknown field")
				continue
			}
			check(obj[k], path.Child(k), ft, ps)
		}
	case reflect.Map:
		obj, ok := v.(map[string]any)
		if !ok {
			ps.add(at, "must be a mapping, found "+jsonKind(v))
			return
		}
		if t.Key().Kind() != reflect.String {
			ps.add(at, "cannot be decoded") // not expected: no such map in the types decoded
			return
		}
		for _, k := range sortedKeys(obj) {
			check(obj[k], path.Key(k), t.Elem(), ps)
		}
	case reflect.Slice, reflect.Array:
		list, ok := v.([]any)
		if !ok {
			ps.add(at, "must be a list, found "+jsonKind(v))
			return
		}
		if t.Kind() == reflect.Array && len(list) > t.Len() {
			ps.add(at, fmt.Sprintf("must hold no more than %d items, found %d", t.Len(), len(list)))
			return
		}
		for i, item := range list {
			check(item, path.Index(i), t.Elem(), ps)
		}
	case reflect.String:
		if _, ok := v.(string); !ok {
			ps.add(at, "must be a string, found "+jsonKind(v))
		}
	case reflect.Bool:
		if _, ok := v.(bool); !ok {
			ps.add(at, "must be a boolean, found "+jsonKind(v))
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if n, ok := v.(json.Number); !ok {
			ps.add(at, "must be an integer, found "+jsonKind(v))
		} else if _, err := strconv.ParseInt(n.String(), 10, t.Bits()); err != nil {
			ps.add(at, fmt.Sprintf("must be an integer of %d bits, found %s", t.Bits(), n))
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if n, ok := v.(json.Number); !ok {
			ps.add(at, "must be an integer, found "+jsonKind(v))
		} else if _, err := strconv.ParseUint(n.String(), 10, t.Bits()); err != nil {
			ps.add(at, fmt.Sprintf("must be a non-negative integer of %d bits, found %s", t.Bits(), n))
		}
	case reflect.Float32, reflect.Float64:
		if n, ok := v.(json.Number); !ok {
			ps.add(at, "must be a number, found "+jsonKind(v))
		} else if _, err := strconv.ParseFloat(n.String(), t.Bits()); err != nil {
			ps.add(at, "must be a number in range, found "+n.String())
		}
	default:
		ps.add(at, "cannot be decoded") // not expected: no such field in the types decoded
	}
}

// pathString returns the path, or "" for the document's root (nil).
func pathString(p *field.Path) string {
	if p == nil {
		return ""
	}
	return p.String()
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

// JSONKind names the YAML type of a value as [Parse] returns it, with its
// article: "a mapping", "a list", "a string", "a number", "a boolean",
// "null".
func JSONKind(v any) string { return jsonKind(v) }

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
