package inventory

import (
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/tenantkit/tenantkit/internal/jsonfit"
)

// UnmarshalLenient reads an inventory as [Unmarshal] does, but one bad entry does not cost the
// others: it returns every entry that passes [Entry.Validate], the first of each [ID] (so that
// [Diff] takes the result), and, in document order, the problems of each entry it left out: an
// element that is not a mapping or a value of the wrong type (Invalid, in the document's words,
// e.g. "must be a string, found a number"), an invalid field, or a Duplicate at the entry's path.
//
// It is for cleaning up, where a strict read would block garbage collection (a duplicate id, a bad
// namespace); plan with Unmarshal. An entry left out is no longer tracked, so report the errors
// (an event, a condition): the object it names is left for people.
//
// What Unmarshal refuses whole (over 8 MiB, not YAML or JSON, not shaped like an inventory, a
// list that is not a list included), this refuses whole, wrapping [ErrTooLarge] or [ErrMalformed],
// with no entries; otherwise the entries are non-nil.
//
//	entries, dropped, err := inventory.UnmarshalLenient(data)
func UnmarshalLenient(data []byte) ([]Entry, field.ErrorList, error) {
	doc, err := document(data)
	if err != nil {
		return nil, nil, err
	}
	loc, err := locate(nil, doc)
	if err != nil {
		return nil, nil, err
	}
	l := newLenientList(loc.path, len(loc.list))
	for i, el := range loc.list {
		if !loc.refs {
			if e, ps := decodeEntry(loc.path.Index(i), el); l.decoded(ps) {
				l.add(i, e)
			}
		} else if ref, ps := decodeRef(loc.path.Index(i), el); l.decoded(ps) {
			l.addRef(i, ref)
		}
	}
	return l.entries, l.errs, nil
}

// lenientList gathers a list's valid entries, the first of each ID, and the others' problems.
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

// decoded reports whether an element decoded, with no problems ps; else it reports each value
// that does not decode, Invalid at its path.
func (l *lenientList) decoded(ps []jsonfit.Problem) bool {
	for _, p := range ps {
		l.errs = append(l.errs, &field.Error{Type: field.ErrorTypeInvalid, Field: p.Field, BadValue: field.OmitValueType{}, Detail: p.Detail})
	}
	return ps == nil
}

// addRef converts the ref at index i and keeps its entry, or reports why not.
func (l *lenientList) addRef(i int, ref ResourceRef) {
	e, errs := refToEntry(l.p.Index(i), ref)
	if len(errs) > 0 {
		l.errs = append(l.errs, errs...)
		return
	}
	l.add(i, e)
}
