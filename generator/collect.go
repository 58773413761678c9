package generator

import (
	"errors"
	"slices"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/tenantkit/tenantkit/inventory"
)

// collect diffs the desired entries against the previous inventory, decides what happens to
// every object with the decision table and fills in the decisions. A previous inventory that
// does not validate (errors at "old[i]") is decided as [Plan] says: its valid entries are diffed,
// everything stale is kept (Collect's keep-all rule, before the table reads anything) and each
// invalid entry not desired is kept as it is, so the plan deletes nothing and heals.
func (p *planner) collect(res *Plan, desired, previous []inventory.Entry, skipped skips) error {
	g := p.g
	keep := ""
	if len(res.Errors) > 0 {
		keep = reasonDesiredErrors
	}
	changes, derrs := inventory.Diff(previous, desired)
	var invalid []inventory.Entry
	if len(derrs) > 0 {
		// The desired entries are built here and valid: the previous inventory is not. Each entry
		// is checked alone, an identity invalid from its second occurrence, as Diff says.
		res.Errors = append(res.Errors, derrs...)
		valid := make([]inventory.Entry, 0, len(previous))
		seen := make(map[inventory.ID]bool, len(previous))
		for _, e := range previous {
			id := e.ID()
			if len(e.Validate(nil)) > 0 || seen[id] {
				invalid = append(invalid, e)
			} else {
				valid = append(valid, e)
			}
			seen[id] = true
		}
		var errs field.ErrorList
		if changes, errs = inventory.Diff(valid, desired); len(errs) > 0 {
			// Not reached: valid validates, and desired did. Keep everything.
			res.Errors = append(res.Errors, errs...)
			res.previous = append([]inventory.Entry{}, previous...) // never nil: Next returns it as it is
			return nil
		}
		isDesired := make(map[inventory.ID]bool, len(desired))
		for _, e := range desired {
			isDesired[e.ID()] = true
		}
		invalid = slices.DeleteFunc(invalid, func(e inventory.Entry) bool { return isDesired[e.ID()] })
		keep = reasonInvalidInventory + "; nothing is deleted"
	}
	d := newDecider(g, p.snap, skipped, changes.Stale, false)
	// The table decides namespace pruning (its first row): inventory's own rule is off.
	opts := []inventory.Option{inventory.WithGuard(d.guard), inventory.WithNamespacePrune()}
	if g.opts.allowDeleteAll {
		opts = append(opts, inventory.WithAllowDeleteAll())
	}
	if g.opts.maxSet {
		opts = append(opts, inventory.WithMaxDeletions(g.opts.maxDeletions))
	}
	if keep != "" {
		opts = append(opts, inventory.WithKeepAll(keep))
	}
	// A refusal of inventory's deletion guards (WithMaxDeletions, WithAllowDeleteAll) comes back
	// with every decision, each deletion kept; it is an error of the spec.
	decisions, err := inventory.Collect(p.ctx, changes, opts...)
	var refused *inventory.RefusedError
	switch {
	case err == nil:
	case errors.As(err, &refused):
		res.Refused = refused
		res.Errors = append(res.Errors, field.Forbidden(specPath, refused.Rule()))
	case p.ctx.Err() != nil:
		return p.ctx.Err()
	default:
		res.Errors = append(res.Errors, asFieldErrors(err, field.NewPath("inventory"), nil)...)
	}
	res.desired, res.collected, res.invalid = desired, decisions, invalid

	desiredDecisions := p.desiredDecisions(res, changes)
	if n := len(desiredDecisions) + len(skipped) + len(decisions) + len(invalid); n > 0 {
		res.Decisions = make([]inventory.Decision, 0, n)
	}
	res.Decisions = append(res.Decisions, desiredDecisions...)
	res.Decisions = append(res.Decisions, skipDecisions(skipped, changes.Stale)...)
	stale := len(res.Decisions)
	for _, d := range decisions {
		// A skipped object's decision is its Skip, above.
		if _, skip := skipped[d.Entry.ID()]; !skip {
			res.Decisions = append(res.Decisions, d)
		}
	}
	if len(invalid) > 0 {
		for _, e := range invalid {
			res.Decisions = append(res.Decisions, inventory.Decision{Entry: e, Action: inventory.Keep, Reason: reasonInvalidInventory + "; this entry does not validate and is kept as it is"})
		}
		sortPrune(res.Decisions[stale:])
	}
	return nil
}

// desiredDecisions returns the decisions of the desired objects, in apply order, each adjusted
// to its live copy by the decision table, and leaves the namespaces that are not applied out of
// res.Namespaces: their entries stay desired, so that Next tracks them.
func (p *planner) desiredDecisions(res *Plan, changes inventory.Changes) []inventory.Decision {
	d := &decider{g: p.g, snap: p.snap}
	byName := make(map[string]*Namespace, len(res.Namespaces))
	for i := range res.Namespaces {
		byName[res.Namespaces[i].Name] = &res.Namespaces[i]
	}
	notApplied := map[string]bool{}
	ds := changes.Decisions()
	for i := range ds {
		id := ds[i].Entry.ID()
		var ns *Namespace
		if id.IsNamespace() {
			if ns = byName[id.Name]; ns == nil {
				continue // not reached: every desired namespace is built
			}
		}
		if r := d.desired(&ds[i], ns); r.notApplied {
			notApplied[id.Name] = true
		}
	}
	if len(notApplied) > 0 {
		res.Namespaces = slices.DeleteFunc(res.Namespaces, func(ns Namespace) bool { return notApplied[ns.Name] })
		if len(res.Namespaces) == 0 {
			res.Namespaces = nil // as a plan's lists are when empty
		}
	}
	return ds
}

// skipDecisions returns a Skip decision for each skipped object, tracked or not, in apply
// order; a tracked one (in stale) as the previous inventory has it, which Next keeps as it is.
func skipDecisions(skipped skips, stale []inventory.Entry) []inventory.Decision {
	tracked := map[inventory.ID]inventory.Entry{}
	for _, e := range stale {
		tracked[e.ID()] = e
	}
	entries := make([]inventory.Entry, 0, len(skipped))
	for id, s := range skipped {
		e := s.entry
		if t, ok := tracked[id]; ok {
			e = t
		}
		entries = append(entries, e)
	}
	inventory.SortApply(entries)
	var ds []inventory.Decision
	for _, e := range entries {
		reason := skipped[e.ID()].reason
		if _, ok := tracked[e.ID()]; ok {
			reason += "; kept in the inventory"
		}
		ds = append(ds, inventory.Decision{Entry: e, Action: inventory.Skip, Reason: reason})
	}
	return ds
}

// reasonInvalidInventory is why a plan over an invalid previous inventory keeps what is stale.
const reasonInvalidInventory = "the previous inventory has errors"

// sortPrune sorts decisions in their entries' prune order (inventory.SortApply reversed), stably.
func sortPrune(ds []inventory.Decision) {
	byID := make(map[inventory.ID][]inventory.Decision, len(ds))
	var ids []inventory.Entry // one per identity
	for _, d := range ds {
		id := d.Entry.ID()
		if _, ok := byID[id]; !ok {
			ids = append(ids, d.Entry)
		}
		byID[id] = append(byID[id], d)
	}
	inventory.SortApply(ids) // one entry per ID, so that reversing is prune order
	slices.Reverse(ids)
	ds = ds[:0]
	for _, e := range ids {
		ds = append(ds, byID[e.ID()]...)
	}
}
