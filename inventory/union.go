package inventory

// Union returns the entries of base and overlay, each [ID] once: overlay's entry where both hold
// an ID, base's otherwise, a list's first where it holds an ID twice. order sorts the result:
// [SortApply] (also for nil), as [Next] writes an inventory, or the caller's own, such as by
// [ID.FluxID] as flux-operator does. Entries are not validated, and neither list is modified.
//
// A controller that applies in steps records it, so that a failed apply leaves nothing applied
// untracked, nothing tracked forgotten; after the last step, [Next] gives the inventory to keep.
//
//	inv := inventory.Union(previous, applied, inventory.SortApply)
func Union(base, overlay []Entry, order func([]Entry)) []Entry {
	all := make([]Entry, 0, len(base)+len(overlay))
	seen := make(map[ID]bool, len(base)+len(overlay))
	for _, list := range [...][]Entry{overlay, base} {
		for _, e := range list {
			if id := e.ID(); !seen[id] {
				seen[id] = true
				all = append(all, e)
			}
		}
	}
	if order == nil {
		order = SortApply
	}
	order(all)
	return all
}
