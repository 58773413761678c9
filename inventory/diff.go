package inventory

import (
	"slices"

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
// Diff returns a *[ListError] that matches [ErrInvalidEntry] or
// [ErrDuplicate] and lists every problem, with paths "old[i]" and
// "desired[i]": for old, then for desired, first the invalid entries, then
// the duplicates (each entry whose ID an entry at a lower index has), in
// index order.
//
// Diff puts both lists in apply order and merges them: O(n) when they come
// in apply order already, as [Next] returns an inventory, and O(n log n)
// otherwise. The lists themselves are not bounded here: a caller bounds
// what it discovers.
//
//	changes, err := inventory.Diff(previous, desired)
func Diff(old, desired []Entry) (Changes, error) {
	oldErrs, old, oldDups := scan("old", old)
	desiredErrs, desired, desiredDups := scan("desired", desired)
	if len(oldErrs)+len(oldDups)+len(desiredErrs)+len(desiredDups) > 0 {
		errs := append(oldErrs, duplicates(oldDups)...)
		errs = append(errs, desiredErrs...)
		errs = append(errs, duplicates(desiredDups)...)
		return Changes{}, &ListError{Errs: errs}
	}

	// Merge the sorted lists, recording what each entry is; then copy the
	// entries into lists of the exact size: at 100,000 entries, growing
	// them by appends costs more than the merge.
	class := make([]uint8, len(desired)) // an Action
	stale := make([]bool, len(old))
	var nCreate, nUpdate, nStale int
	i, j := 0, 0
	var oid, did ID
	var orank, drank int
	if len(old) > 0 {
		oid = old[0].ID()
		orank = rank(oid)
	}
	if len(desired) > 0 {
		did = desired[0].ID()
		drank = rank(did)
	}
	for i < len(old) || j < len(desired) {
		c := 0
		switch {
		case i == len(old):
			c = 1
		case j == len(desired):
			c = -1
		default:
			c = compareRanked(orank, oid, drank, did)
		}
		if c >= 0 { // a desired entry
			switch {
			case c > 0:
				class[j] = uint8(Create)
				nCreate++
			case old[i].Digest != desired[j].Digest:
				class[j] = uint8(Update)
				nUpdate++
			default:
				class[j] = uint8(Unchanged)
			}
			if j++; j < len(desired) {
				did = desired[j].ID()
				drank = rank(did)
			}
		}
		if c <= 0 { // an old entry
			if c < 0 {
				stale[i] = true
				nStale++
			}
			if i++; i < len(old) {
				oid = old[i].ID()
				orank = rank(oid)
			}
		}
	}

	ch := Changes{
		Create:    make([]Entry, 0, nCreate),
		Update:    make([]Entry, 0, nUpdate),
		Unchanged: make([]Entry, 0, len(desired)-nCreate-nUpdate),
		Stale:     make([]Entry, nStale),
	}
	for j, a := range class {
		switch Action(a) {
		case Create:
			ch.Create = append(ch.Create, desired[j])
		case Update:
			ch.Update = append(ch.Update, desired[j])
		default:
			ch.Unchanged = append(ch.Unchanged, desired[j])
		}
	}
	// Stale entries come in apply order; without duplicates, prune order is
	// its exact reverse.
	n := nStale
	for i, s := range stale {
		if s {
			n--
			ch.Stale[n] = old[i]
		}
	}
	return ch, nil
}

// scan validates the entries of the list called name, and returns them in
// apply order, equal IDs in index order, and the duplicates: the entries
// whose ID an entry at a lower index has, in index order. When the list is in
// apply order already, as Next writes an inventory, that takes one pass
// and no copy: at 100,000 entries, reading them from memory twice costs
// more than the checks. Otherwise it sorts a copy, so that Diff then reads
// it in order rather than jumping through memory.
func scan(name string, entries []Entry) (errs field.ErrorList, sorted []Entry, dups []dup) {
	var memo validMemo
	inOrder := true
	var prev ID
	var prevRank int
	for i, e := range entries {
		if !memo.valid(e) {
			errs = append(errs, e.Validate(field.NewPath(name).Index(i))...)
		}
		if !inOrder {
			continue
		}
		id := e.ID()
		r := rank(id)
		if i > 0 {
			c := compareRanked(prevRank, prev, r, id)
			if c > 0 {
				inOrder = false
				continue
			}
			if c == 0 {
				dups = append(dups, dup{path: field.NewPath(name).Index(i), id: id})
			}
		}
		prev, prevRank = id, r
	}
	if inOrder {
		return errs, entries, dups
	}

	order := sortIndices(entries)
	sorted = make([]Entry, len(entries))
	for j, i := range order {
		sorted[j] = entries[i]
	}
	var dupIdx []int
	for j := 1; j < len(sorted); j++ {
		if id := sorted[j].ID(); id == sorted[j-1].ID() {
			dupIdx = append(dupIdx, order[j])
		}
	}
	slices.Sort(dupIdx)
	dups = dups[:0]
	for _, i := range dupIdx {
		dups = append(dups, dup{path: field.NewPath(name).Index(i), id: entries[i].ID()})
	}
	return errs, sorted, dups
}

// dup is an entry whose ID an entry at a lower index has.
type dup struct {
	path *field.Path
	id   ID
}

// duplicates reports dups.
func duplicates(dups []dup) field.ErrorList {
	var errs field.ErrorList
	for _, d := range dups {
		errs = append(errs, field.Duplicate(d.path, d.id.String()))
	}
	return errs
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
	// Each list is in apply order; merge them by sorting once.
	entries := make([]Entry, n)
	for i, d := range ds {
		entries[i] = d.Entry
	}
	order := applyOrder(entries)
	if order == nil {
		return ds
	}
	sorted := make([]Decision, n)
	for j, i := range order {
		sorted[j] = ds[i]
	}
	return sorted
}

// validMemo checks entries like [Entry.Validate], skipping the checks of
// the type (apiVersion and kind) and of the namespace when they equal the
// previous entry's: the entries of one inventory share few types, and
// sorted ones come namespace by namespace.
type validMemo struct {
	apiVersion, kind string
	set              bool   // apiVersion and kind are set
	typeOK           bool   // apiVersion and kind are valid
	clusterScoped    bool   // a core Namespace or a CustomResourceDefinition
	namespace        string // a valid namespace
}

// valid reports whether e.Validate would return no errors.
func (m *validMemo) valid(e Entry) bool {
	if !m.set || e.APIVersion != m.apiVersion || e.Kind != m.kind {
		id := e.ID()
		m.apiVersion, m.kind, m.set = e.APIVersion, e.Kind, true
		m.typeOK = validType(e.APIVersion, e.Kind)
		m.clusterScoped = isNamespace(id) || isCRD(id)
	}
	if !m.typeOK {
		return false
	}
	if e.Namespace != "" {
		if m.clusterScoped {
			return false
		}
		if e.Namespace != m.namespace {
			if !isDNS1123Label(e.Namespace) {
				return false
			}
			m.namespace = e.Namespace
		}
	}
	return validName(e.Name) && len(e.Filename) <= maxFilenameBytes && (e.Digest == "" || isDigest(e.Digest))
}
