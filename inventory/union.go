package inventory

// Union returns the entries of base and overlay, each [ID] once: overlay's
// entry where both hold an ID (its version, digest and filename), base's
// otherwise, the first of a list where it holds an ID twice. order sorts
// the result: [SortApply] for apply order, as [Next] writes an inventory,
// or [SortFluxID] for the order of Flux's ids, as flux-operator writes
// one; nil sorts as SortApply.
//
// It is the inventory that a controller records while it applies in
// steps, as flux-operator's ResourceSet does: the previous inventory
// united with what it has applied so far, so that an apply that fails half
// way leaves nothing it applied untracked, and nothing it tracked
// forgotten. Once the last step is applied and garbage collection is done,
// [Next] gives the inventory to keep.
//
//	status.Inventory = inventory.Union(previous, applied, inventory.SortFluxID)
//
// Entries are not validated, and neither list is modified.
func Union(base, overlay []Entry, order func([]Entry)) []Entry {
	all := make([]Entry, 0, len(base)+len(overlay))
	seen := make(map[ID]bool, len(base)+len(overlay))
	for _, e := range overlay {
		if id := e.ID(); !seen[id] {
			seen[id] = true
			all = append(all, e)
		}
	}
	for _, e := range base {
		if id := e.ID(); !seen[id] {
			seen[id] = true
			all = append(all, e)
		}
	}
	if order == nil {
		order = SortApply
	}
	order(all)
	return all
}
