package inventory

import (
	"bytes"
	"encoding/json"
	"fmt"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// UnmarshalLenient reads an inventory as [Unmarshal] does, but one bad
// entry does not cost the others: it returns every entry that passes
// [Entry.Validate], the first of each [ID] (so that [Diff] takes the
// result), and, as a field.ErrorList in document order, a problem for each
// entry it left out: an element that does not decode as an entry, an
// invalid field, or a Duplicate at the entry's path.
//
// It is for cleaning up, where a strict read would block garbage
// collection for as long as the bad entry stays, and an uninstaller would
// delete nothing: a flux-operator inventory with a duplicate id or a
// namespace that is not a DNS-1123 label. An entry left out is no longer
// tracked, so report the errors (an event, a condition): the object it
// names, if there is one, is left for people. For planning, where an
// inventory that cannot be read whole must change nothing, use Unmarshal,
// which refuses it.
//
// The document is refused whole, with an error wrapping [ErrTooLarge] or
// [ErrMalformed] and no entries, as by Unmarshal: when it is larger than
// 8 MiB, not YAML or JSON, or not shaped like an inventory, a list of
// entries or of refs that is not a list included. Otherwise the entries are
// non-nil.
//
//	entries, dropped, err := inventory.UnmarshalLenient(data)
func UnmarshalLenient(data []byte) ([]Entry, field.ErrorList, error) {
	js, err := documentJSON(data)
	if err != nil {
		return nil, nil, err
	}
	loc, err := locate(nil, js)
	switch {
	case err != nil:
		return nil, nil, err
	case loc.entries != nil:
		return lenientEntries(loc.path, loc.entries)
	case loc.refs != nil:
		return lenientRefs(loc.path, loc.refs)
	}
	return []Entry{}, nil, nil
}

// FromResourceInventoryLenient converts Flux ResourceInventory entries as
// [FromResourceInventory] does, but one bad ref does not cost the others:
// it returns an entry for each ref whose id and version parse, the first
// of each [ID], in the order given, and a problem for each ref it left
// out, at "entries[i].id", "entries[i].v" or, for a Duplicate,
// "entries[i]", in index order. The entries are non-nil.
//
// It is for cleaning up: see [UnmarshalLenient]. flux-operator's
// uninstaller, given a strict read that refuses the whole inventory,
// would delete nothing; given this one, it deletes what it can name.
//
//	entries, dropped := inventory.FromResourceInventoryLenient(rset.Status.Inventory.Entries...)
func FromResourceInventoryLenient(refs ...ResourceRef) ([]Entry, field.ErrorList) {
	l := newLenientList(field.NewPath("entries"), len(refs))
	for i, ref := range refs {
		l.addRef(i, ref)
	}
	return l.entries, l.errs
}

// lenientList gathers the entries of a list that pass Validate, the first
// of each ID, and the problems of the others.
type lenientList struct {
	p       *field.Path
	entries []Entry
	errs    field.ErrorList
	seen    map[ID]bool
}

func newLenientList(p *field.Path, n int) *lenientList {
	return &lenientList{p: p, entries: make([]Entry, 0, n), seen: make(map[ID]bool, n)}
}

// add keeps the entry at index i, or reports why not.
func (l *lenientList) add(i int, e Entry) {
	if errs := e.Validate(l.p.Index(i)); len(errs) > 0 {
		l.errs = append(l.errs, errs...)
		return
	}
	id := e.ID()
	if l.seen[id] {
		l.errs = append(l.errs, field.Duplicate(l.p.Index(i), id.String()))
		return
	}
	l.seen[id] = true
	l.entries = append(l.entries, e)
}

// addRef converts the ref at index i and keeps its entry, or reports why
// not.
func (l *lenientList) addRef(i int, ref ResourceRef) {
	e, errs := refToEntry(l.p.Index(i), ref)
	if len(errs) > 0 {
		l.errs = append(l.errs, errs...)
		return
	}
	l.add(i, e)
}

// lenientEntries reads a JSON list of entries found at p, element by
// element.
func lenientEntries(p *field.Path, js []byte) ([]Entry, field.ErrorList, error) {
	var elems []json.RawMessage
	if err := json.Unmarshal(js, &elems); err != nil {
		return nil, nil, fmt.Errorf("%w: %w", ErrMalformed, err)
	}
	l := newLenientList(p, len(elems))
	for i, el := range elems {
		var e Entry
		if err := json.Unmarshal(el, &e); err != nil || !bytes.HasPrefix(el, []byte("{")) {
			l.errs = append(l.errs, field.Invalid(p.Index(i), field.OmitValueType{}, "must be an inventory entry, an object: "+decodeProblem(el, err)))
			continue
		}
		if e.Kind == "" {
			e.Kind = KindExternalArtifact
		}
		l.add(i, e)
	}
	return l.entries, l.errs, nil
}

// lenientRefs reads a JSON list of Flux refs found at p, element by
// element.
func lenientRefs(p *field.Path, js []byte) ([]Entry, field.ErrorList, error) {
	var elems []json.RawMessage
	if err := json.Unmarshal(js, &elems); err != nil {
		return nil, nil, fmt.Errorf("%w: %s must be a list of refs: %w", ErrMalformed, p, err)
	}
	l := newLenientList(p, len(elems))
	for i, el := range elems {
		var ref ResourceRef
		if err := json.Unmarshal(el, &ref); err != nil || !bytes.HasPrefix(el, []byte("{")) {
			l.errs = append(l.errs, field.Invalid(p.Index(i), field.OmitValueType{}, `must be a ref, an object {"id", "v"}: `+decodeProblem(el, err)))
			continue
		}
		l.addRef(i, ref)
	}
	return l.entries, l.errs, nil
}

// decodeProblem says why el did not decode as an object.
func decodeProblem(el json.RawMessage, err error) string {
	if err != nil {
		return err.Error()
	}
	return "found " + kindOfJSON(el)
}

// isNull reports whether a raw JSON value is absent or null.
func isNull(js json.RawMessage) bool {
	return len(js) == 0 || bytes.Equal(js, []byte("null"))
}
