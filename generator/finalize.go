package generator

import (
	"context"

	"github.com/tenantkit/tenantkit/internal/errsort"
	"github.com/tenantkit/tenantkit/inventory"
)

// reasonFinalize is the reason of every deletion that Finalize decides.
const reasonFinalize = "the generator is deleted"

// Finalize plans what to do with the objects of the inventory when the ArtifactGenerator is
// deleted, as source-watcher does before it drops its finalizer:
//
//	plan, err := g.Finalize(ctx, status.Inventory, cluster)
//	// delete the Delete decisions, in order
//	status.Inventory = plan.Next(confirmedDeleted)
//	// an empty inventory: remove the finalizer; otherwise retry later
//
// The plan has a decision for each entry of previous, in prune order (inventory.SortApply reversed: every
// ExternalArtifact before the namespaces), and nothing to apply. Each object is decided by the
// rows that decide a stale object of a plan (package documentation, "Decisions"): released when
// its live copy disables pruning or names another generator, kept when it cannot be read,
// deleted otherwise; a Namespace deleted only when the generator manages and prunes namespaces,
// released when its name is protected or its external finalizer took the hand-off, and kept
// while an ExternalArtifact that this plan does not delete lives in it. Deleting the generator
// permits deleting all it tracks: the delete-all refusal ([WithAllowDeleteAll]) and
// [WithMaxDeletions] do not apply. [Plan.Next] then holds what is kept and every deletion not
// confirmed: when it is empty, the object may drop its finalizer; otherwise Finalize runs again
// on the next reconcile with Next as previous.
//
// A previous inventory that is not valid (an entry that fails [inventory.Entry.Validate], an
// identity listed twice) has its problems in [Plan.Errors], at "old[i]" as [inventory.Diff]
// reports them, and every entry is kept: a generator whose inventory cannot be read keeps its
// finalizer. When ctx ends first, even while Finalize reads the cluster (on the calling
// goroutine, one object at a time), it returns no plan and ctx's error: nothing is to be deleted.
func (g *Generator) Finalize(ctx context.Context, previous []inventory.Entry, cluster Cluster) (*Plan, error) {
	res := &Plan{}
	changes, errs := inventory.Diff(previous, nil)
	if len(errs) > 0 {
		res.Errors = errsort.SortUnique(errs)
		res.previous = append([]inventory.Entry{}, previous...) // never nil: Next returns it as it is
		res.Decisions = make([]inventory.Decision, len(previous))
		for i, e := range previous {
			res.Decisions[i] = inventory.Decision{Entry: e, Action: inventory.Keep, Reason: "the inventory has errors"}
		}
		return res, nil
	}
	d := newDecider(g, newSnapshot(ctx, cluster), nil, changes.Stale, true)
	opts := []inventory.Option{inventory.WithGuard(d.guard), inventory.WithAllowDeleteAll(), inventory.WithNamespacePrune()}
	decisions, err := inventory.Collect(ctx, changes, opts...)
	if ctxErr := ctx.Err(); ctxErr != nil {
		return nil, ctxErr
	}
	if err != nil {
		return nil, err // not reached: Diff accepted the entries and the options are valid
	}
	res.Decisions, res.collected = decisions, decisions
	return res, nil
}
