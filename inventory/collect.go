package inventory

import (
	"context"
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Collect decides, for each stale entry, whether to delete, release or keep
// it, and returns one [Decision] per stale entry in prune order (see
// [SortPrune]). desired is the desired state of the same pass. The rules,
// for each entry, in this order:
//
//  1. With [WithKeepAll], Keep, with its reason.
//  2. A Namespace (core group) that a desired entry lives in is Keep, with
//     the reason "in use by " and the first such entry in apply order, e.g.
//     "in use by ExternalArtifact/tenant-a/app".
//  3. Without [WithNamespacePrune], a Namespace is Release, with the
//     reason "namespace pruning is off".
//  4. Each [Guard] runs in turn, until one returns [Release] or [Keep]
//     (with its reason, or "released by a guard" or "kept by a guard" when
//     it gave none). A guard error keeps the entry with the reason
//     "guard failed: " and the error; so does any other action, and a
//     context that is done before a guard runs.
//  5. A Namespace that holds a stale entry decided Keep or Release above is
//     Keep, with a reason such as "in use by ExternalArtifact/tenant-a/old,
//     which is kept": deleting the namespace would delete that entry.
//  6. Otherwise, Delete.
//
// Then the deletion guard looks at all the deletions at once. Without [WithAllowDeleteAll] and with an empty desired list, or with
// [WithMaxDeletions](n) and more than n deletions, every Delete becomes
// Keep, with a reason that names the option that allows it. Nothing is
// deleted in part: choosing which n entries to delete would be arbitrary.
//
// Collect returns an error wrapping [ErrInvalidOption] for an invalid
// option. For an entry of stale or desired that fails [Entry.Validate], an
// [ID] listed twice in one of them, or a stale entry that is also desired
// (a Forbidden error at "stale[i]"), it returns the field.ErrorList of
// every problem, aggregated with ToAggregate. Even then it returns a decision per stale
// entry, each Keep with the error as its reason, so that a caller that goes
// on to [Next] loses nothing.
//
// Collect calls the guards from the calling goroutine, one at a time; it is
// safe for concurrent use when the guards are.
//
//	decisions, err := inventory.Collect(ctx, changes.Stale, desired,
//		inventory.WithGuard(pruneAnnotation), inventory.WithMaxDeletions(10))
func Collect(ctx context.Context, stale, desired []Entry, opts ...Option) ([]Decision, error) {
	sorted := slices.Clone(stale)
	SortPrune(sorted)

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
		err = checkLists(stale, desired).ToAggregate()
	}
	if err != nil {
		return keepEach(sorted, err.Error()), err
	}

	// users maps a namespace to the first desired entry in it, in apply order.
	users := make(map[string]ID)
	for _, e := range desired {
		if e.Namespace == "" {
			continue
		}
		id := e.ID()
		if u, ok := users[e.Namespace]; !ok || compareApply(id, u) < 0 {
			users[e.Namespace] = id
		}
	}

	// held maps a namespace to the first stale entry in it, in prune order,
	// that is kept or released.
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

	var refusal string
	switch {
	case deletes == 0:
	case !o.allowAll && len(desired) == 0:
		refusal = fmt.Sprintf("deletion guard: %s while nothing is desired; WithAllowDeleteAll allows them", deletions(deletes))
	case o.maxSet && deletes > o.maxDeletes:
		refusal = fmt.Sprintf("deletion guard: %s in one pass, more than WithMaxDeletions(%d) allows", deletions(deletes), o.maxDeletes)
	}
	if refusal != "" {
		for i := range ds {
			if ds[i].Action == Delete {
				ds[i].Action, ds[i].Reason = Keep, refusal
			}
		}
	}
	return ds, nil
}

// decide applies rules 1 to 6 of [Collect] to one stale entry.
func (o *options) decide(ctx context.Context, e Entry, users map[string]ID, held map[string]Decision) Decision {
	if o.keepAll {
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
	for _, g := range o.guards {
		if err := ctx.Err(); err != nil {
			return Decision{Entry: e, Action: Keep, Reason: "guard not run: " + err.Error()}
		}
		action, reason, err := g(ctx, e)
		switch {
		case err != nil:
			return Decision{Entry: e, Action: Keep, Reason: "guard failed: " + err.Error()}
		case action == Delete:
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
	return Decision{Entry: e, Action: Delete}
}

// deletions returns "1 deletion" or "n deletions".
func deletions(n int) string {
	if n == 1 {
		return "1 deletion"
	}
	return fmt.Sprintf("%d deletions", n)
}

// keepEach returns a Keep decision for each entry, with reason.
func keepEach(entries []Entry, reason string) []Decision {
	ds := make([]Decision, len(entries))
	for i, e := range entries {
		ds[i] = Decision{Entry: e, Action: Keep, Reason: reason}
	}
	return ds
}

// checkLists validates stale and desired and reports, for each list, its
// problems in index order (see checkList); then the stale entries that are
// also desired, which a caller that passes its whole inventory as stale
// would otherwise see deleted.
func checkLists(stale, desired []Entry) field.ErrorList {
	_, errs := checkList("stale", stale)
	_, desiredErrs := checkList("desired", desired)
	errs = append(errs, desiredErrs...)
	desiredIDs := make(map[ID]bool, len(desired))
	for _, e := range desired {
		desiredIDs[e.ID()] = true
	}
	for i, e := range stale {
		if desiredIDs[e.ID()] {
			errs = append(errs, field.Forbidden(field.NewPath("stale").Index(i), fmt.Sprintf("%s must not be desired: only stale entries are collected", e.ID())))
		}
	}
	return errs
}
