package inventory

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"

	"github.com/tenantkit/tenantkit/internal/jsonfit"
	"github.com/tenantkit/tenantkit/internal/yamldoc"
)

// maxDocumentBytes bounds what [Unmarshal] reads: over five times etcd's 1.5 MiB object limit, so
// any inventory fits, even as YAML, while a wrong file cannot make the decoder allocate unbounded.
const maxDocumentBytes = 8 << 20

// Unmarshal reads an inventory from a YAML or JSON document of one of these shapes:
//
//	[{kind, namespace, name, ...}, ...]          a list of entries
//	{status: {inventory: [{...}, ...]}}          an ArtifactGenerator
//	{status: {inventory: {entries: [{id, v}]}}}  a Kustomization, ResourceSet, ...
//	{entries: [{id, v}, ...]}                    a Flux ResourceInventory
//	{kind: List, items: [{...}]}                 a List holding exactly one object above
//
// Entries get an explicit kind ExternalArtifact when theirs is empty; Flux refs are converted as
// [FromResourceInventory] does. Every entry must pass [Entry.Validate]; duplicates are left to
// [Diff]. Keys that name no field are ignored, as encoding/json and Flux do; keys match a field's
// name exactly, as the API server matches them ("Name" is not "name", and is ignored).
//
// An ArtifactGenerator, Kustomization, ResourceSet or FluxInstance without status.inventory, or
// with a null one, is an empty inventory, as Flux reads it. Any other document is malformed, never
// an empty inventory by accident: a List of none or several objects, an object of another kind.
//
//	entries, err := inventory.Unmarshal(data)
//
// It returns an error wrapping [ErrTooLarge] for a document over 8 MiB; wrapping [ErrMalformed]
// for one of no shape above, saying at its path what it found (the first ten wrong-typed values);
// or the aggregated field.ErrorList of every invalid entry at its path:
//
//	inventory: malformed document: items[0]: found an object of kind Namespace, which records no inventory; want ...
//	inventory: malformed document: status.inventory[0].name: must be a string, found a number
//	[0].name: Required value
//
// A YAML stream of more than one document is malformed, as is one whose aliases expand it past 10
// times its size (64 KiB at least), so that decoding costs a bounded multiple of reading; the
// YAML decoder bounds nesting.
func Unmarshal(data []byte) ([]Entry, error) {
	doc, err := document(data)
	if err != nil {
		return nil, err
	}
	loc, err := locate(nil, doc)
	switch {
	case err != nil:
		return nil, err
	case loc.list == nil:
		return []Entry{}, nil
	}
	entries := make([]Entry, len(loc.list))
	var ps jsonfit.Summary
	var errs field.ErrorList
	for i := range loc.list {
		var eps []jsonfit.Problem
		var eerrs field.ErrorList
		entries[i], eps, eerrs = loc.entry(i)
		ps.Add(eps...)
		errs = append(errs, eerrs...)
	}
	switch {
	case ps.Len() > 0:
		return nil, fmt.Errorf("%w: %s", ErrMalformed, ps.String())
	case len(errs) > 0:
		return nil, errs.ToAggregate()
	}
	return entries, nil
}

// inventoryKinds record an inventory in status.inventory; one without it has applied nothing yet.
var inventoryKinds = []string{"ArtifactGenerator", "FluxInstance", "Kustomization", "ResourceSet"}

// located is where a document holds its inventory: a list of entries, or of Flux refs, at path;
// no list for an object that has applied nothing yet.
type located struct {
	path *field.Path
	list []any
	refs bool
}

// locate finds the inventory in v, the value at base (nil: the document), in a shape [Unmarshal]
// lists, or returns an error wrapping ErrMalformed that says what it found there.
func locate(base *field.Path, v any) (located, error) {
	if list, ok := v.([]any); ok {
		return located{path: base, list: list}, nil
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return located{}, malformed(base, "must be a list of entries or a mapping, not %s", jsonfit.Kind(v))
	}
	kind, kindErr := valueAt[string](obj, base, "kind", "a string")
	status, statusErr := valueAt[map[string]any](obj, base, "status", "a mapping")
	entries, entriesErr := valueAt[[]any](obj, base, "entries", "a list")
	items, itemsErr := valueAt[[]any](obj, base, "items", "a list")
	if err := cmp.Or(kindErr, statusErr, entriesErr, itemsErr); err != nil {
		return located{}, err
	}
	if items != nil && base == nil {
		if n := len(items); n != 1 {
			return located{}, malformed(nil, "a %s must hold exactly one object with an inventory, found %d items", cmp.Or(kind, "list (items)"), n)
		}
		return locate(field.NewPath("items").Index(0), items[0])
	}
	inv, hasInv := status["inventory"]
	switch {
	case entries != nil:
		return located{path: base.Child("entries"), list: entries, refs: true}, nil
	case hasInv && inv == nil:
		// status.inventory is there: null is an empty one.
		return located{}, nil
	case hasInv:
		// Read below.
	case slices.Contains(inventoryKinds, kind):
		return located{}, nil
	case kind != "":
		return located{}, malformed(base, "found an object of kind %s, which records no inventory; want %s, a List holding one, a Flux ResourceInventory or a list of entries",
			kind, strings.Join(inventoryKinds, ", "))
	default:
		return located{}, malformed(base, "found a mapping with neither status.inventory nor entries, nor a kind that records an inventory (%s)",
			strings.Join(inventoryKinds, ", "))
	}
	p := base.Child("status", "inventory")
	switch inv := inv.(type) {
	case []any:
		return located{path: p, list: inv}, nil
	case map[string]any:
		refs, err := valueAt[[]any](inv, p, "entries", "a list")
		if err != nil || refs == nil {
			return located{}, err
		}
		return located{path: p.Child("entries"), list: refs, refs: true}, nil
	}
	return located{}, malformed(p, "must be a list of entries or a mapping with entries, not %s", jsonfit.Kind(inv))
}

// valueAt returns the T (a string, mapping or list) at key of obj, a mapping at path p: the zero
// T when it is absent or null, an error wrapping ErrMalformed when it is not want ("a string").
func valueAt[T any](obj map[string]any, p *field.Path, key, want string) (T, error) {
	v := obj[key]
	t, ok := v.(T)
	if v != nil && !ok {
		return t, malformed(p.Child(key), "must be %s, found %s", want, jsonfit.Kind(v))
	}
	return t, nil
}

// malformed returns an error wrapping ErrMalformed with the problem at p (nil: the document).
func malformed(p *field.Path, format string, args ...any) error {
	pr := jsonfit.Problem{Detail: fmt.Sprintf(format, args...)}
	if p != nil {
		pr.Field = p.String()
	}
	return fmt.Errorf("%w: %s", ErrMalformed, pr.String())
}

// entry decodes element i of the list: what does not fit, in the document's words, or else the
// entry (its kind ExternalArtifact when it has none) and the problems of its conversion from a
// Flux ref ([FromResourceInventory]) or its [Entry.Validate]. Unknown keys are ignored.
func (loc located) entry(i int) (Entry, []jsonfit.Problem, field.ErrorList) {
	p := loc.path.Index(i)
	if loc.refs {
		ref, ps := decode[ResourceRef](p, loc.list[i], "a Flux ref, a mapping {id, v}")
		if ps != nil {
			return Entry{}, ps, nil
		}
		e, errs := refToEntry(p, ref)
		return e, nil, errs
	}
	e, ps := decode[Entry](p, loc.list[i], "an inventory entry, a mapping")
	if ps != nil {
		return Entry{}, ps, nil
	}
	e.Kind = cmp.Or(e.Kind, KindExternalArtifact)
	return e, nil, e.Validate(p)
}

// decode decodes el, at p, as a T (want in messages), or returns what does not fit.
func decode[T any](p *field.Path, el any, want string) (T, []jsonfit.Problem) {
	var t T
	if _, ok := el.(map[string]any); !ok {
		return t, []jsonfit.Problem{{Field: p.String(), Detail: "must be " + want + ", found " + jsonfit.Kind(el)}}
	}
	return t, jsonfit.Decode(el, p, &t, jsonfit.IgnoreUnknown)
}

// document returns an inventory document's value, as jsonfit.Parse reads it, bounded to
// maxDocumentBytes and one YAML document, or an error wrapping ErrTooLarge or ErrMalformed.
func document(data []byte) (any, error) {
	if len(data) > maxDocumentBytes {
		return nil, fmt.Errorf("%w: %d bytes, must be no more than %d", ErrTooLarge, len(data), maxDocumentBytes)
	}
	js := bytes.TrimSpace(data)
	if !json.Valid(js) {
		if err := yamldoc.CheckExpansion(data); err != nil {
			return nil, &yamlError{err: err}
		}
		var err error
		if js, err = yaml.YAMLToJSONStrict(data); err != nil {
			return nil, &yamlError{err: err}
		}
		// sigs.k8s.io/yaml silently drops every document but the first: their entries would be
		// tracked no more, their objects left behind for ever.
		if err := yamldoc.Single(data); err != nil {
			return nil, &yamlError{context: "must hold one YAML document: ", err: err}
		}
	}
	doc, err := jsonfit.Parse(js)
	if err != nil {
		// Not expected: the JSON is valid, or the YAML decoder's.
		return nil, malformed(nil, "must be one JSON or YAML document")
	}
	return doc, nil
}
