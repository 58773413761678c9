package inventory

// Union returns the entries of base and overlay, each [ID] once: overlay's entry where both hold
// an ID (its version, digest and filename), base's otherwise, the first of a list where it holds
// an ID twice. order sorts the result: [SortApply], as [Next] writes an inventory, or
// [SortFluxID], as flux-operator writes one; nil sorts as SortApply. Entries are not validated,
// and neither list is modified.
//
// It is the inventory a controller records while it applies in steps (see the package doc): a
// failed apply leaves nothing it applied untracked, nothing it tracked forgotten. After the last
// step and garbage collection, [Next] gives the inventory to keep.
//
//	status.Inventory = inventory.Union(previous, applied, inventory.SortFluxID)
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
