package jsonfit

import (
	"bytes"
	"encoding"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Problem is one value of a document that does not fit its Go type.
type Problem struct {
	// Field is the path of the value, e.g. "spec.sources[0].alais", or "" for the document.
	Field string
	// Detail says what is wrong: "unknown field", "must be a boolean, found a string".
	Detail string
}

// String returns "field: detail", or the detail alone for the document.
func (p Problem) String() string {
	if p.Field == "" {
		return p.Detail
	}
	return p.Field + ": " + p.Detail
}

const maxNamed = 10 // problems that a message names; the rest are counted, so it stays short

// Join returns the problems on one line, as [Summary.String] words them.
//
//	jsonfit.Join(ps) // "name: must be a string, found a number; zz: unknown field"
func Join(ps []Problem) string {
	var s Summary
	s.Add(ps...)
	return s.String()
}

// Summary gathers a document's problems for one message, keeping the ten it names and counting
// the rest, so that a million problems cost ten. The zero value is empty.
//
//	var s jsonfit.Summary
//	s.Add(jsonfit.Decode(v, p, &e, jsonfit.IgnoreUnknown)...)
type Summary struct {
	named []Problem
	n     int
}

// Add adds problems to s.
func (s *Summary) Add(ps ...Problem) {
	s.n += len(ps)
	if room := maxNamed - len(s.named); room > 0 {
		s.named = append(s.named, ps[:min(room, len(ps))]...)
	}
}

// Len returns how many problems s holds, named or counted.
func (s *Summary) Len() int { return s.n }

// String returns the problems on one line, separated by "; ", the first ten named and the
// rest counted ("; and 3 more").
func (s *Summary) String() string {
	var b strings.Builder
	for i, p := range s.named {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(p.String())
	}
	if more := s.n - len(s.named); more > 0 {
		fmt.Fprintf(&b, "; and %d more", more)
	}
	return b.String()
}

// Parse reads one JSON value into the values [Decode] takes, as encoding/json gives an any
// with numbers as json.Number: map[string]any, []any, string, json.Number, bool or nil. Its
// error is encoding/json's: the caller passes JSON it checked or made, or words its own.
//
//	v, err := jsonfit.Parse([]byte(`{"name": "a"}`))
func Parse(js []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(js))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, errors.New("more than one JSON value")
	}
	return v, nil
}

// Unknown says what [Decode] does with an object key that names no field of its struct.
type Unknown bool

const (
	// RefuseUnknown reports each such key as a Problem, "unknown field".
	RefuseUnknown Unknown = false
	// IgnoreUnknown leaves each such key out, even one that names a field in another case.
	IgnoreUnknown Unknown = true
)

// Decode decodes v, a value as [Parse] returns it, into the value that ptr points to when v
// fits it (see the package documentation). Otherwise it decodes nothing and returns every
// problem at its path below path (nil for the root), in the document's order, the keys of an
// object sorted. ptr must be a non-nil pointer.
//
//	ps := jsonfit.Decode(v, field.NewPath("spec"), &spec, jsonfit.RefuseUnknown)
func Decode(v any, path *field.Path, ptr any, unknown Unknown) []Problem {
	var ps []Problem
	kept := check(v, path, reflect.TypeOf(ptr).Elem(), unknown, &ps)
	if len(ps) > 0 {
		return ps
	}
	data, err := json.Marshal(kept)
	if err == nil {
		err = json.Unmarshal(data, ptr)
	}
	if err != nil { // not expected: check accepted v
		return []Problem{{Field: pathString(path), Detail: "cannot be decoded"}}
	}
	return nil
}

var (
	jsonUnmarshaler = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// check adds to ps every value of v that does not fit t; it returns v, less ignored keys.
func check(v any, path *field.Path, t reflect.Type, unknown Unknown, ps *[]Problem) any {
	if v == nil {
		return nil
	}
	add := func(detail string) { *ps = append(*ps, Problem{Field: pathString(path), Detail: detail}) }
	switch pt := reflect.PointerTo(t); {
	case pt.Implements(jsonUnmarshaler):
		return v // decodes itself from any value
	case pt.Implements(textUnmarshaler):
		s, ok := v.(string)
		if !ok {
			add("must be a string, found " + Kind(v))
			return v
		}
		if err := reflect.New(t).Interface().(encoding.TextUnmarshaler).UnmarshalText([]byte(s)); err != nil {
			add(fmt.Sprintf("%q: %v", s, err))
		}
		return v
	}
	switch t.Kind() {
	case reflect.Pointer:
		return check(v, path, t.Elem(), unknown, ps)
	case reflect.Interface:
		return v // any value
	case reflect.Struct:
		obj, ok := v.(map[string]any)
		if !ok {
			add("must be a mapping, found " + Kind(v))
			return v
		}
		fields := jsonFields(t)
		kept := make(map[string]any, len(obj))
		for _, k := range slices.Sorted(maps.Keys(obj)) {
			ft, ok := fields[k]
			switch {
			case ok:
				kept[k] = check(obj[k], path.Child(k), ft, unknown, ps)
			case unknown == RefuseUnknown:
				*ps = append(*ps, Problem{Field: pathString(path.Child(k)), Detail: "unknown field"})
			}
		}
		return kept
	case reflect.Map:
		obj, ok := v.(map[string]any)
		if !ok {
			add("must be a mapping, found " + Kind(v))
			return v
		}
		if t.Key().Kind() != reflect.String {
			add("cannot be decoded") // not expected: no such map in the types decoded
			return v
		}
		kept := make(map[string]any, len(obj))
		for _, k := range slices.Sorted(maps.Keys(obj)) {
			kept[k] = check(obj[k], path.Key(k), t.Elem(), unknown, ps)
		}
		return kept
	case reflect.Slice, reflect.Array:
		list, ok := v.([]any)
		if !ok {
			add("must be a list, found " + Kind(v))
			return v
		}
		if t.Kind() == reflect.Array && len(list) > t.Len() {
			add(fmt.Sprintf("must hold no more than %d items, found %d", t.Len(), len(list)))
			return v
		}
		kept := make([]any, len(list))
		for i, item := range list {
			kept[i] = check(item, path.Index(i), t.Elem(), unknown, ps)
		}
		return kept
	case reflect.String:
		if _, ok := v.(string); !ok {
			add("must be a string, found " + Kind(v))
		}
	case reflect.Bool:
		if _, ok := v.(bool); !ok {
			add("must be a boolean, found " + Kind(v))
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if n, ok := v.(json.Number); !ok {
			add("must be an integer, found " + Kind(v))
		} else if _, err := strconv.ParseInt(n.String(), 10, t.Bits()); err != nil {
			add(fmt.Sprintf("must be an integer of %d bits, found %s", t.Bits(), n))
		}
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if n, ok := v.(json.Number); !ok {
			add("must be an integer, found " + Kind(v))
		} else if _, err := strconv.ParseUint(n.String(), 10, t.Bits()); err != nil {
			add(fmt.Sprintf("must be a non-negative integer of %d bits, found %s", t.Bits(), n))
		}
	case reflect.Float32, reflect.Float64:
		if n, ok := v.(json.Number); !ok {
			add("must be a number, found " + Kind(v))
		} else if _, err := strconv.ParseFloat(n.String(), t.Bits()); err != nil {
			add("must be a number in range, found " + n.String())
		}
	default:
		add("cannot be decoded") // not expected: no such field in the types decoded
	}
	return v
}

func pathString(p *field.Path) string {
	if p == nil {
		return ""
	}
	return p.String()
}

// jsonFields returns the JSON names and types of struct type t's fields, as encoding/json has them.
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

// Kind names the JSON type of a value as [Parse] returns it, with its article, in YAML's
// words: "a mapping", "a list", "a string", "a number", "a boolean", "null".
//
//	jsonfit.Kind(map[string]any{}) // "a mapping"
func Kind(v any) string {
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
