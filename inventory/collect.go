package inventory

import (
	"context"
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Collect decides, for each stale entry of changes, whether to delete, release or keep it, and
// returns one [Decision] per stale entry in prune order (the reverse of [SortApply]). changes is what [Diff]
// returned for the pass: Create, Update and Unchanged are the desired state; Update, Unchanged and
// Stale what the inventory tracked. The rules, for each stale entry, in this order:
//
//  1. With [WithKeepAll], Keep, with its reason.
//  2. A Namespace (core group) that a desired entry lives in is Keep, naming the first such entry
//     in apply order: "in use by ExternalArtifact/tenant-a/app".
//  3. Without [WithNamespacePrune], a Namespace is Release: "namespace pruning is off".
//  4. Each [Guard] runs in turn, until one returns [Release] or [Keep] (with its reason, or
//     "released by a guard" or "kept by a guard"). A guard error, or any other action, is Keep
//     with "guard failed: " and what went wrong; a context done before a guard runs is Keep with
//     "guard not run: " and the context's error.
//  5. A Namespace that holds a stale entry decided Keep or Release above is Keep, since deleting
//     it would delete that entry: "in use by ExternalArtifact/tenant-a/old, which is kept". A
//     released entry holds its Namespace for that pass only (a later pass deletes both), unless
//     the caller guards the Namespace too.
//  6. Otherwise, Delete, with the reason the first guard that returned Delete gave, if any.
//
// Then the deletion guard refuses the pass when there are more than n deletions with
// [WithMaxDeletions](n), or, without [WithAllowDeleteAll], when they are every tracked entry. A
// refused pass deletes nothing, not even in part (which n to delete would be arbitrary): each
// Delete becomes Keep with the reason "deletion refused: " and the rule, and Collect returns the
// decisions, to record ([Next]), with a [*RefusedError] (wrapping [ErrDeletionRefused]).
//
// For an invalid option, Collect returns an error wrapping [ErrInvalidOption]; for an entry that
// fails [Entry.Validate], or an [ID] listed twice in changes (a Duplicate at the second, such as
// "stale[1]"), the aggregated field.ErrorList of every problem. Even then each stale entry comes
// back Keep, the error its reason, so that [Next] loses nothing. Guards run one at a time on the
// calling goroutine; Collect is safe for concurrent use when they are.
//
//	decisions, err := inventory.Collect(ctx, changes,
//		inventory.WithGuard(pruneAnnotation), inventory.WithMaxDeletions(10))
func Collect(ctx context.Context, changes Changes, opts ...Option) ([]Decision, error) {
	sorted := slices.Clone(changes.Stale)
	sortPrune(sorted)

	var o options
	for _, opt := range opts {
		if opt == nil {
			o.invalid(fmt.Errorf("%w: option must not be nil", ErrInvalidOption))
			continue
		}
		opt(&o)
	}
	err := o.invalidError
	if err == nil {
		err = checkChanges(changes).ToAggregate()
	}
	if err != nil {
		ds := make([]Decision, len(sorted))
		for i, e := range sorted {
			ds[i] = Decision{Entry: e, Action: Keep, Reason: err.Error()}
		}
		return ds, err
	}

	// users maps a namespace to the first desired entry in it, in apply order.
	users := make(map[string]ID)
	for _, list := range [...][]Entry{changes.Create, changes.Update, changes.Unchanged} {
		for _, e := range list {
			if e.Namespace == "" {
				continue
			}
			id := e.ID()
			if u, ok := users[e.Namespace]; !ok || compareApply(id, u) < 0 {
				users[e.Namespace] = id
			}
		}
	}

	// held maps a namespace to the first stale entry in it, in prune order, kept or released.
	held := make(map[string]Decision)
	ds := make([]Decision, len(sorted))
	deletes := 0
	for i, e := range sorted {
		d := o.decide(ctx, e, users, held)
		if d.Action == Delete {
			deletes++
		} else if _, ok := held[e.Namespace]; !ok && e.Namespace != "" {
			held[e.Namespace] = d
		}
		ds[i] = d
	}

	tracked := len(changes.Update) + len(changes.Unchanged) + len(changes.Stale)
	var refused *RefusedError
	switch {
	case deletes == 0:
	case o.maxSet && deletes > o.maxDeletes:
		refused = &RefusedError{Deletions: deletes, Tracked: tracked, Max: o.maxDeletes}
	case !o.allowAll && deletes == tracked:
		refused = &RefusedError{Deletions: deletes, Tracked: tracked, Max: -1}
	}
	if refused == nil {
		return ds, nil
	}
	reason := "deletion refused: " + refused.Rule()
	for i := range ds {
		if ds[i].Action == Delete {
			ds[i].Action, ds[i].Reason = Keep, reason
		}
	}
	return ds, refused
}

// decide applies rules 1 to 6 of [Collect] to one stale entry.
func (o *options) decide(ctx context.Context, e Entry, users map[string]ID, held map[string]Decision) Decision {
	if o.keepReason != "" {
		return Decision{Entry: e, Action: Keep, Reason: o.keepReason}
	}
	id := e.ID()
	ns := id.IsNamespace()
	if u, ok := users[id.Name]; ns && ok {
		return Decision{Entry: e, Action: Keep, Reason: "in use by " + u.String()}
	}
	if ns && !o.nsPrune {
		return Decision{Entry: e, Action: Release, Reason: "namespace pruning is off"}
	}
	var why string // the first reason a guard gave its Delete
	for _, g := range o.guards {
		if err := ctx.Err(); err != nil {
			return Decision{Entry: e, Action: Keep, Reason: "guard not run: " + err.Error()}
		}
		action, reason, err := g(ctx, e)
		switch {
		case err != nil:
			return Decision{Entry: e, Action: Keep, Reason: "guard failed: " + err.Error()}
		case action == Delete:
			if why == "" {
				why = reason
			}
			continue
		case action == Release && reason == "":
			reason = "released by a guard"
		case action == Keep && reason == "":
			reason = "kept by a guard"
		case action != Release && action != Keep:
			return Decision{Entry: e, Action: Keep, Reason: fmt.Sprintf("guard failed: returned action %s, want delete, release or keep", action)}
		}
		return Decision{Entry: e, Action: action, Reason: reason}
	}
	if h, ok := held[id.Name]; ns && ok {
		return Decision{Entry: e, Action: Keep, Reason: "in use by " + h.Entry.ID().String() + ", which is " + h.Action.Verb()}
	}
	return Decision{Entry: e, Action: Delete, Reason: why}
}

func objects(n int) string {
	if n == 1 {
		return "1 object"
	}
	return fmt.Sprintf("%d objects", n)
}

// checkChanges reports each list's problems, then as a Duplicate each entry whose ID an earlier
// list holds: else a caller passing its whole inventory as stale would see it deleted.
func checkChanges(ch Changes) field.ErrorList {
	lists := [...]struct {
		name    string
		entries []Entry
	}{{"create", ch.Create}, {"update", ch.Update}, {"unchanged", ch.Unchanged}, {"stale", ch.Stale}}
	var errs field.ErrorList
	for _, l := range lists {
		_, lerrs := checkList(l.name, l.entries)
		errs = append(errs, lerrs...)
	}
	seen := make(map[ID]string, len(ch.Create)+len(ch.Update)+len(ch.Unchanged)+len(ch.Stale))
	for _, l := range lists {
		for i, e := range l.entries {
			id := e.ID()
			if first, ok := seen[id]; ok && first != l.name {
				errs = append(errs, field.Duplicate(field.NewPath(l.name).Index(i), fmt.Sprintf("%s (also in %s)", id, first)))
			} else if !ok {
				seen[id] = l.name
			}
		}
	}
	return errs
}
