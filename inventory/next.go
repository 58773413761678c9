package inventory

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
	var kept []Entry
	for _, d := range decisions {
		switch {
		case d.Action == Release:
		case d.Action == Delete && d.Result.valid():
			if d.Result == DeletionFailed {
				kept = append(kept, d.Entry)
			}
		case d.Action == Delete && deleted != nil && deleted(d.Entry):
		default:
			kept = append(kept, d.Entry)
		}
	}
	return Union(kept, desired, SortApply)
}
