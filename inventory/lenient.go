package inventory

import "k8s.io/apimachinery/pkg/util/validation/field"

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
	entries, errs := keepFirst(loc.path, len(loc.list), func(i int) (Entry, field.ErrorList) {
		e, ps, errs := loc.entry(i)
		for _, p := range ps {
			errs = append(errs, &field.Error{Type: field.ErrorTypeInvalid, Field: p.Field, BadValue: field.OmitValueType{}, Detail: p.Detail})
		}
		return e, errs
	})
	return entries, errs, nil
}

// keepFirst returns, of the n entries that entry(i) gives, those without problems, the first of
// each ID, and the problems of the others: entry's, or a Duplicate at p.Index(i).
func keepFirst(p *field.Path, n int, entry func(i int) (Entry, field.ErrorList)) ([]Entry, field.ErrorList) {
	entries, seen := make([]Entry, 0, n), make(map[ID]bool, n)
	var errs field.ErrorList
	for i := range n {
		e, eerrs := entry(i)
		switch id := e.ID(); {
		case len(eerrs) > 0:
			errs = append(errs, eerrs...)
		case seen[id]:
			errs = append(errs, field.Duplicate(p.Index(i), id.String()))
		default:
			seen[id] = true
			entries = append(entries, e)
		}
	}
	return entries, errs
}
