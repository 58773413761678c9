package inventory

import "slices"

// Next returns the inventory to record after a pass: the desired entries and those of every
// decision but [Release] and a confirmed [Delete], so that a failed deletion is retried next pass.
// A Delete is confirmed by its [Decision.Result] when set ([Deleted] and [PruningDisabled] leave,
// [DeletionFailed] stays), else by deleted, called once per such decision, in order; a nil deleted
// confirms nothing.
//
// The result is in apply order ([SortApply]) and holds each [ID] once: a desired entry wins over
// a decision's, and an earlier entry over a later one of the same list. Entries are not
// validated: pass what [Diff] and [Collect] accepted.
//
//	next := inventory.Next(desired, decisions, func(e inventory.Entry) bool {
//		return confirmed[e.ID()]
//	})
func Next(desired []Entry, decisions []Decision, deleted func(Entry) bool) []Entry {
	all := make([]Entry, 0, len(desired)+len(decisions))
	all = append(all, desired...)
	for _, d := range decisions {
		switch {
		case d.Action == Release:
		case d.Action == Delete && d.Result.valid():
			if d.Result == DeletionFailed {
				all = append(all, d.Entry)
			}
		case d.Action == Delete && deleted != nil && deleted(d.Entry):
		default:
			all = append(all, d.Entry)
		}
	}
	permute(all, sortOrder(all, false))
	// Equal IDs keep their order: desired first, then decisions in order.
	return slices.CompactFunc(all, func(a, b Entry) bool { return a.ID() == b.ID() })
}
