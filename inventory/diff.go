package inventory

import (
	"slices"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Changes is the difference between an inventory and a desired state, desired entries in apply
// order, stale ones in prune order. From [Diff], every list is non-nil, so JSON shows [] for none.
type Changes struct {
	// Create holds desired entries that the inventory does not track.
	Create []Entry
	// Update holds desired entries whose digest differs from the tracked one's.
	Update []Entry
	// Unchanged holds desired entries with the tracked digest.
	Unchanged []Entry
	// Stale holds tracked entries that are not desired, for [Collect] to decide.
	Stale []Entry
}

// Diff compares the previous inventory old with the desired entries, by [ID]: a desired entry is
// created when old does not hold its ID, updated when old holds it with another digest (an empty
// digest is a digest), and unchanged otherwise; an entry of old that is not desired is stale. The
// version is not compared: an entry moved from v1beta1 to v1 with its digest is unchanged.
//
// Both lists must pass [Entry.Validate] and hold no [ID] twice. Otherwise Diff returns no changes
// and every problem, at "old[i]" and "desired[i]", old first, each list in index order: an
// entry's broken rules, then a Duplicate error when an entry at a lower index has its ID.
//
// Diff is O(n) on lists in apply order, as [Next] returns an inventory, O(n log n) otherwise. It
// does not bound the lists: a caller bounds what it discovers.
//
//	changes, errs := inventory.Diff(previous, desired)
func Diff(old, desired []Entry) (Changes, field.ErrorList) {
	oldOrder, errs := checkList("old", old)
	desiredOrder, desiredErrs := checkList("desired", desired)
	if errs = append(errs, desiredErrs...); len(errs) > 0 {
		return Changes{}, errs
	}

	// The merge runs twice, first to count, so that each list is made at its size.
	const create, update, unchanged, stale = 0, 1, 2, 3
	merge := func(add func(list int, e Entry)) {
		i, j := 0, 0
		for i < len(oldOrder) || j < len(desiredOrder) {
			var c int
			switch {
			case i == len(oldOrder):
				c = 1
			case j == len(desiredOrder):
				c = -1
			default:
				c = compareApply(old[oldOrder[i]].ID(), desired[desiredOrder[j]].ID())
			}
			switch {
			case c < 0:
				add(stale, old[oldOrder[i]])
				i++
			case c > 0:
				add(create, desired[desiredOrder[j]])
				j++
			case old[oldOrder[i]].Digest != desired[desiredOrder[j]].Digest:
				add(update, desired[desiredOrder[j]])
				i, j = i+1, j+1
			default:
				add(unchanged, desired[desiredOrder[j]])
				i, j = i+1, j+1
			}
		}
	}
	var ch Changes
	lists := [...]*[]Entry{create: &ch.Create, update: &ch.Update, unchanged: &ch.Unchanged, stale: &ch.Stale}
	var counts [len(lists)]int
	merge(func(list int, _ Entry) { counts[list]++ })
	for l, list := range lists {
		*list = make([]Entry, 0, counts[l])
	}
	merge(func(list int, e Entry) { *lists[list] = append(*lists[list], e) })
	// Without duplicates, prune order is the exact reverse of apply order.
	slices.Reverse(ch.Stale)
	return ch, nil
}

// checkList returns the list's indices in apply order and its problems, as [Diff] words them.
func checkList(name string, entries []Entry) ([]int, field.ErrorList) {
	order := sortOrder(entries, false)
	// Equal IDs are adjacent in apply order, in index order.
	var dups []int
	var prev ID
	for j, i := range order {
		id := entries[i].ID()
		if j > 0 && id == prev {
			dups = append(dups, i)
		}
		prev = id
	}
	slices.Sort(dups)
	var errs field.ErrorList
	for i, e := range entries {
		if len(e.Validate(nil)) > 0 { // the path only for a problem, which costs allocations
			errs = append(errs, e.Validate(field.NewPath(name).Index(i))...)
		}
		if len(dups) > 0 && dups[0] == i {
			errs = append(errs, field.Duplicate(field.NewPath(name).Index(i), e.ID().String()))
			dups = dups[1:]
		}
	}
	return order, errs
}

// Decisions returns the desired entries as decisions, Create, Update or Unchanged, in apply order
// (nil for none), to be printed or counted with the decisions of [Collect]:
//
//	lines := append(changes.Decisions(), collected...)
func (c Changes) Decisions() []Decision {
	n := len(c.Create) + len(c.Update) + len(c.Unchanged)
	if n == 0 {
		return nil
	}
	ds := make([]Decision, 0, n)
	for _, l := range [...]struct {
		action  Action
		entries []Entry
	}{{Create, c.Create}, {Update, c.Update}, {Unchanged, c.Unchanged}} {
		for _, e := range l.entries {
			ds = append(ds, Decision{Entry: e, Action: l.action})
		}
	}
	slices.SortStableFunc(ds, func(a, b Decision) int { return compareApply(a.Entry.ID(), b.Entry.ID()) })
	return ds
}
