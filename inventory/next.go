package inventory

import "slices"

// Next returns the inventory to record after a pass: the desired entries, the entries of every
// decision except [Release], and those of the [Delete] decisions whose deletion deleted does not
// confirm, so that a failed deletion is retried on the next pass. A nil deleted confirms nothing.
// A Delete decision whose [Decision.Result] is set is decided by it instead: [Deleted] and
// [PruningDisabled] (the object released) leave the inventory, [DeletionFailed] stays. Next calls
// deleted once per Delete decision without a Result, in order.
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
	permute(all, applyOrder(all))
	// Equal IDs keep their order: desired first, then decisions in order.
	return slices.CompactFunc(all, func(a, b Entry) bool { return a.ID() == b.ID() })
}
