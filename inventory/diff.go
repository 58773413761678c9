package inventory

import (
	"slices"

	"github.com/opencontainers/go-digest"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Changes is the difference between an inventory and a desired state.
// Create, Update and Unchanged hold desired entries in apply order; Stale
// holds the inventory's entries that are no longer desired, in prune order
// (see [SortApply], [SortPrune]). From [Diff], every list is non-nil, so
// that JSON shows an empty one as [].
type Changes struct {
	// Create holds desired entries that the inventory does not track.
	Create []Entry
	// Update holds desired entries whose digest differs from the tracked
	// one's.
	Update []Entry
	// Unchanged holds desired entries with the tracked digest.
	Unchanged []Entry
	// Stale holds tracked entries that are not desired: pass them to
	// [Collect].
	Stale []Entry
}

// Diff compares the previous inventory old with the desired entries, by
// [ID]: a desired entry is created when old does not hold its ID, updated
// when old holds it with another digest (an empty digest is a digest), and
// unchanged otherwise; an entry of old that is not desired is stale. The
// version is not compared: an entry that moves from v1beta1 to v1 with the
// same digest is unchanged.
//
// Both lists must pass [Entry.Validate] and hold no [ID] twice. Otherwise
// Diff returns no changes and every problem, at "old[i]" and "desired[i]",
// old first, each list in index order: an entry's broken rules, then a
// Duplicate error when an entry at a lower index has its ID.
//
// Diff is O(n) but for sorting its results, which is O(n) when the lists
// come in apply order already, as [Next] returns an inventory. The lists
// themselves are not bounded here: a caller bounds what it discovers.
//
//	changes, errs := inventory.Diff(previous, desired)
func Diff(old, desired []Entry) (Changes, field.ErrorList) {
	_, oldErrs := checkList("old", old)
	wanted, desiredErrs := checkList("desired", desired)
	if errs := append(oldErrs, desiredErrs...); len(errs) > 0 {
		return Changes{}, errs
	}

	tracked := make(map[ID]digest.Digest, len(old))
	for _, e := range old {
		tracked[e.ID()] = e.Digest
	}
	ch := Changes{Create: []Entry{}, Update: []Entry{}, Unchanged: []Entry{}, Stale: []Entry{}}
	for _, e := range desired {
		d, ok := tracked[e.ID()]
		switch {
		case !ok:
			ch.Create = append(ch.Create, e)
		case d != e.Digest:
			ch.Update = append(ch.Update, e)
		default:
			ch.Unchanged = append(ch.Unchanged, e)
		}
	}
	for _, e := range old {
		if !wanted[e.ID()] {
			ch.Stale = append(ch.Stale, e)
		}
	}
	SortApply(ch.Create)
	SortApply(ch.Update)
	SortApply(ch.Unchanged)
	SortPrune(ch.Stale)
	return ch, nil
}

// checkList validates the entries of the list called name and returns its
// IDs and its problems, in index order: an entry's broken rules, then a
// Duplicate error when an entry at a lower index has its ID.
func checkList(name string, entries []Entry) (map[ID]bool, field.ErrorList) {
	var errs field.ErrorList
	seen := make(map[ID]bool, len(entries))
	for i, e := range entries {
		p := field.NewPath(name).Index(i)
		errs = append(errs, e.Validate(p)...)
		id := e.ID()
		if seen[id] {
			errs = append(errs, field.Duplicate(p, id.String()))
		}
		seen[id] = true
	}
	return seen, errs
}

// Decisions returns the desired entries as decisions, Create, Update or
// Unchanged, all in apply order, to be printed or counted with the
// decisions of [Collect]:
//
//	lines := append(changes.Decisions(), collected...)
func (c Changes) Decisions() []Decision {
	n := len(c.Create) + len(c.Update) + len(c.Unchanged)
	if n == 0 {
		return nil
	}
	ds := make([]Decision, 0, n)
	for _, e := range c.Create {
		ds = append(ds, Decision{Entry: e, Action: Create})
	}
	for _, e := range c.Update {
		ds = append(ds, Decision{Entry: e, Action: Update})
	}
	for _, e := range c.Unchanged {
		ds = append(ds, Decision{Entry: e, Action: Unchanged})
	}
	slices.SortStableFunc(ds, func(a, b Decision) int { return compareEntries(a.Entry, b.Entry) })
	return ds
}
