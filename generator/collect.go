package generator

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/tenantkit/tenantkit/finalizer"
	"github.com/tenantkit/tenantkit/inventory"
	"github.com/tenantkit/tenantkit/nsmeta"
)

// deleteExclusions are the live-object conventions of Flux (fluxcd/pkg/ssa's
// delete options, as kustomize-controller and source-watcher set them): a
// stale object whose live copy carries one of these keys, as a label or an
// annotation, with a non-empty value equal to the given one in any case, is
// released, never deleted.
var deleteExclusions = slices.Concat(
	conventions("prune", "disabled", "pruning is disabled"),
	conventions("reconcile", "disabled", "reconciliation is disabled"),
	conventions("ssa", "Ignore", "server-side apply ignores it"),
)

// exclusion is one convention: the key, the value that sets it (in any
// case) and what it means, for reasons.
type exclusion struct{ key, value, what string }

// excluded returns why a live object is excluded from deletion, or "".
func excluded(o Object) string {
	if what, where := matchConvention(o.Labels, o.Annotations, deleteExclusions); where != "" {
		return fmt.Sprintf("%s on the live object (%s)", what, where)
	}
	return ""
}

// collect diffs the desired entries against the previous inventory,
// decides what happens to every stale entry and fills in the decisions.
func (p *planner) collect(res *Plan, desired, previous []inventory.Entry, skips map[inventory.ID]skippedObject) error {
	g := p.g
	p.notApplied(res)
	changes, derrs := inventory.Diff(previous, desired)
	if len(derrs) > 0 {
		// The desired entries are built here and valid: the previous
		// inventory is not.
		res.Errors = append(res.Errors, derrs...)
		return p.collectInvalid(res, desired, previous, skips)
	}
	gc := &collector{g: g, snap: p.snap, skips: skips, deleting: map[inventory.ID]bool{}, reasons: map[inventory.ID]string{}}
	gc.removes(changes.Stale)
	opts := []inventory.Option{inventory.WithGuard(gc.guard)}
	if g.opts.allowDeleteAll {
		opts = append(opts, inventory.WithAllowDeleteAll())
	}
	if g.opts.maxSet {
		opts = append(opts, inventory.WithMaxDeletions(g.opts.maxDeletions))
	}
	if len(res.Errors) > 0 {
		opts = append(opts, inventory.WithKeepAll(reasonDesiredErrors))
	}
	if g.managed && g.prune {
		// Without it, and without managedNamespaces, tracked namespaces
		// are released, never deleted.
		opts = append(opts, inventory.WithNamespacePrune())
	}
	// inventory's deletion guards refuse a pass that would delete more than
	// WithMaxDeletions allows, or every object of the previous inventory
	// (what a wrong source or pattern looks like); the decisions come back
	// complete, each deletion kept, and the refusal is an error of the spec.
	decisions, err := inventory.Collect(p.ctx, changes, opts...)
	var refused *inventory.RefusedError
	switch {
	case err == nil:
	case errors.As(err, &refused):
		res.Refused = refused
		res.Errors = append(res.Errors, field.Forbidden(specPath, refused.Rule("WithMaxDeletions", "WithAllowDeleteAll")))
	case p.ctx.Err() != nil:
		return p.ctx.Err()
	default:
		res.Errors = append(res.Errors, asFieldErrors(err, field.NewPath("inventory"), nil)...)
	}
	res.desired, res.collected = desired, decisions

	desiredDecisions := changes.Decisions()
	p.liveDecisions(desiredDecisions)
	if n := len(desiredDecisions) + len(skips) + len(decisions); n > 0 {
		res.Decisions = make([]inventory.Decision, 0, n)
	}
	res.Decisions = append(res.Decisions, desiredDecisions...)
	skipped, _ := skipDecisions(skips, changes.Stale)
	res.Decisions = append(res.Decisions, skipped...)
	for _, d := range decisions {
		if _, skip := skips[d.Entry.ID()]; skip {
			continue
		}
		reason := d.Reason
		if d.Action == inventory.Delete {
			reason = gc.reasons[d.Entry.ID()]
			if reason == "" {
				reason = "no longer desired"
			}
		}
		res.Decisions = append(res.Decisions, inventory.Decision{Entry: d.Entry, Action: d.Action, Reason: reason})
	}
	return nil
}

// collector is the live-object guard of one plan. inventory.Collect calls
// it one entry at a time, in prune order: the objects in a namespace before
// the namespace.
type collector struct {
	g        *Generator
	snap     *snapshot
	skips    map[inventory.ID]skippedObject
	deleting map[inventory.ID]bool   // stale objects this guard let be deleted
	reasons  map[inventory.ID]string // why, for each
	// finalize is set for Finalize: a handed-off namespace is released.
	finalize bool
	// stale holds the namespaces that this pass no longer desires (stale,
	// not skipped); removal, for those looked at, whether this pass removes
	// them (deletes them or lets a hand-off take them) rather than
	// releasing them.
	stale   map[string]bool
	removal map[string]bool
}

// removes records the stale namespaces among stale, but those skipped.
func (c *collector) removes(stale []inventory.Entry) {
	c.stale, c.removal = map[string]bool{}, map[string]bool{}
	for _, e := range stale {
		if id := e.ID(); id.IsNamespace() {
			if _, skipped := c.skips[id]; !skipped {
				c.stale[id.Name] = true
			}
		}
	}
}

// removing reports whether this pass removes the stale namespace ns: it
// does unless it releases it (a protected name, a live copy that disables
// pruning or that another generator labelled). A namespace it deletes,
// keeps until an ExternalArtifact leaves it, or lets a hand-off take, is
// one it removes: nothing in it outlives the generator's intent. The live
// copy is read once per pass; an error reading it is returned.
func (c *collector) removing(ctx context.Context, ns string) (bool, error) {
	if r, ok := c.removal[ns]; ok {
		return r, nil
	}
	r := c.protected(ctx, ns) == ""
	if r {
		live := c.snap.object(inventory.ID{Kind: namespaceKind, Name: ns}, nil)
		switch {
		case live.err != nil:
			return false, fmt.Errorf("reading namespace %s, where the external finalizer lives: %w", ns, live.err)
		case !live.found:
		case excluded(live.Object) != "":
			r = false
		case live.Labels[GeneratorLabel] != "" && live.Labels[GeneratorLabel] != c.g.opts.uid:
			r = false
		}
	}
	c.removal[ns] = r
	return r, nil
}

// removed returns why the external finalizer that annotations name is no
// hand-off because it lives in, or is, another namespace that this pass
// removes too, or "": two removed tenants whose namespaces name each
// other's objects would otherwise keep each other for ever.
func (c *collector) removed(ctx context.Context, ns string, annotations map[string]string) (string, error) {
	r, err := finalizer.Parse(annotations[finalizer.Annotation])
	if err != nil {
		return "", nil // the Decider says why
	}
	other, what := r.Namespace, "lives in namespace "+r.Namespace
	if r.Group == "" && r.Kind == "Namespace" {
		other, what = r.Name, "is namespace "+r.Name
	}
	if other == "" || other == ns || !c.stale[other] {
		return "", nil
	}
	removing, err := c.removing(ctx, other)
	if err != nil || !removing {
		return "", err
	}
	return fmt.Sprintf("external finalizer %s (uid %s) is not a hand-off: it %s, which this generator removes too (no longer desired)", r.Object(), r.UID, what), nil
}

// why is the reason of a deletion, before what the guard found.
func (c *collector) why() string {
	if c.finalize {
		return reasonFinalize
	}
	return "no longer desired"
}

func (c *collector) guard(ctx context.Context, e inventory.Entry) (inventory.Action, string, error) {
	id := e.ID()
	if s, ok := c.skips[id]; ok {
		return inventory.Keep, "skipped: " + s.reason, nil
	}
	if id.IsNamespace() {
		if why := c.protected(ctx, id.Name); why != "" {
			return inventory.Release, why, nil
		}
	}
	live := c.snap.object(id, nil)
	switch {
	case errors.Is(live.err, errNoReader):
		return inventory.Keep, "the live object cannot be read (no ObjectReader)", nil
	case live.err != nil:
		return inventory.Keep, "", fmt.Errorf("reading the live object: %w", live.err)
	case !live.found:
		c.deleting[id], c.reasons[id] = true, c.why()+"; not found in the cluster"
		return inventory.Delete, "", nil
	}
	if reason := excluded(live.Object); reason != "" {
		return inventory.Release, reason, nil
	}
	if owner := live.Labels[GeneratorLabel]; owner != "" && owner != c.g.opts.uid {
		return inventory.Release, fmt.Sprintf("applied by another generator (label %s: %s)", GeneratorLabel, owner), nil
	}
	reason := c.why()
	if id.IsNamespace() {
		arts := c.snap.artifacts(id.Name)
		switch {
		case errors.Is(arts.err, errNoLister):
			return inventory.Keep, "the namespace's ExternalArtifacts cannot be listed (no ArtifactLister)", nil
		case arts.err != nil:
			return inventory.Keep, "", fmt.Errorf("listing the namespace's ExternalArtifacts: %w", arts.err)
		}
		for _, a := range arts.objects {
			aid := a.ID
			if aid.Kind == "" {
				aid = inventory.ID{Group: artifactGroup, Kind: artifactKind, Namespace: id.Name, Name: a.ID.Name}
			}
			if c.deleting[aid] {
				continue // deleted before the namespace, in this pass
			}
			whose := "not tracked by this generator"
			if owner := a.Labels[GeneratorLabel]; owner != "" && owner != c.g.opts.uid {
				whose = "generator " + owner + "'s"
			}
			return inventory.Keep, fmt.Sprintf("ExternalArtifact %s/%s (%s) still lives in it", id.Name, aid.Name, whose), nil
		}
		why, err := c.removed(ctx, id.Name, live.Annotations)
		verdict := false
		if why == "" && err == nil {
			verdict, why, err = c.handOff(ctx, id.Name, live.Annotations)
		}
		if err != nil {
			return inventory.Keep, "", err
		}
		if verdict && c.finalize {
			// The generator goes: the external finalizer takes over.
			return inventory.Release, why + "; released: the generator is deleted", nil
		}
		if verdict {
			// Kept, not released: the hand-off holds only while its object
			// exists with that UID, so every pass decides again. Once the
			// external finalizer has deleted the namespace, the next pass
			// finds it gone and drops it; if the finalizer object goes
			// first, the next pass deletes the namespace itself.
			return inventory.Keep, why + "; kept in the inventory while the hand-off holds", nil
		}
		reason += "; " + why
	}
	c.deleting[id], c.reasons[id] = true, reason
	return inventory.Delete, "", nil
}

// protected says why a stale namespace is one that no generator may
// delete, or "": a name that the name policy protects whatever its rules
// say (default, flux-system, Kubernetes' own and the generator's, see
// nsmeta.NewNamePolicy). Such a namespace is never desired; it can be
// tracked only by an inventory that another controller wrote.
func (c *collector) protected(ctx context.Context, name string) string {
	if c.g.policy == nil {
		return ""
	}
	if err := c.g.policy.Check(ctx, name); errors.Is(err, nsmeta.ErrProtectedName) {
		return "protected namespace: never deleted"
	}
	return ""
}

// handOff decides whether a namespace was handed off to an external
// finalizer, with the generator's finalizer.Decider (the kinds of
// WithFinalizerKinds; a reference into the namespace itself is never a
// hand-off).
func (c *collector) handOff(ctx context.Context, ns string, annotations map[string]string) (bool, string, error) {
	v, err := c.g.decider.Decide(ctx, ns, annotations, finalizer.LookupFunc(c.snap.lookup))
	if err != nil {
		if v.Reason != "" {
			return false, "", fmt.Errorf("%s: %w", v.Reason, err)
		}
		return false, "", fmt.Errorf("external finalizer: %w", err)
	}
	return v.HandedOff(), v.Reason, nil
}

func groupKind(group, kind string) string {
	if group == "" {
		return kind
	}
	return kind + "." + group
}

// skipDecisions returns a Skip decision for each skipped object, tracked or
// not, in apply order, and the tracked entries among them (in stale), which
// the next inventory keeps as they are.
func skipDecisions(skips map[inventory.ID]skippedObject, stale []inventory.Entry) ([]inventory.Decision, []inventory.Entry) {
	tracked := map[inventory.ID]inventory.Entry{}
	for _, e := range stale {
		tracked[e.ID()] = e
	}
	entries := make([]inventory.Entry, 0, len(skips))
	for id, s := range skips {
		e := s.entry
		if t, ok := tracked[id]; ok {
			e = t
		}
		entries = append(entries, e)
	}
	inventory.SortApply(entries)
	var ds []inventory.Decision
	var kept []inventory.Entry
	for _, e := range entries {
		reason := skips[e.ID()].reason
		if _, ok := tracked[e.ID()]; ok {
			reason += "; kept in the inventory"
			kept = append(kept, e)
		}
		ds = append(ds, inventory.Decision{Entry: e, Action: inventory.Skip, Reason: reason})
	}
	return ds, kept
}

// reasonInvalidInventory is why a plan over a previous inventory that does
// not validate keeps what it no longer desires.
const reasonInvalidInventory = "the previous inventory has errors"

// collectInvalid decides a plan whose previous inventory does not validate
// (an entry that fails inventory.Entry.Validate, an identity listed twice;
// the errors are in res.Errors at "old[i]"). It fails closed and heals:
// every desired object gets its decision against the valid tracked entry
// with its identity, if any, and is recorded in the next inventory, so
// that whatever the embedder applies is tracked; every tracked entry that
// is not desired, valid or not, is kept, as it is, in the next inventory,
// and nothing is deleted or read; an invalid entry whose identity a desired
// object has is replaced by the desired entry, so that a malformed digest
// is written afresh.
func (p *planner) collectInvalid(res *Plan, desired, previous []inventory.Entry, skips map[inventory.ID]skippedObject) error {
	// Each entry is checked alone, and an identity is invalid from its
	// second occurrence on, as inventory.Diff reports them.
	valid := make([]inventory.Entry, 0, len(previous))
	var invalid []inventory.Entry
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
	changes, errs := inventory.Diff(valid, desired)
	if len(errs) > 0 {
		// Not reached: valid validates, and desired did. Keep everything.
		res.Errors = append(res.Errors, errs...)
		res.previous = slices.Clone(previous)
		if res.previous == nil {
			res.previous = []inventory.Entry{}
		}
		return nil
	}
	isDesired := make(map[inventory.ID]bool, len(desired))
	for _, e := range desired {
		isDesired[e.ID()] = true
	}
	desiredDecisions := changes.Decisions()
	p.liveDecisions(desiredDecisions)
	res.Decisions = append(res.Decisions, desiredDecisions...)
	skipped, keptSkipped := skipDecisions(skips, changes.Stale)
	res.Decisions = append(res.Decisions, skipped...)
	next := append(slices.Clone(desired), keptSkipped...)
	// Every other tracked entry not desired, the invalid ones included, is
	// kept as it is, in prune order.
	var kept []inventory.Decision
	for _, e := range changes.Stale {
		if _, skip := skips[e.ID()]; !skip {
			kept = append(kept, inventory.Decision{Entry: e, Action: inventory.Keep, Reason: reasonInvalidInventory + "; nothing is deleted"})
		}
	}
	for _, e := range invalid {
		if !isDesired[e.ID()] {
			kept = append(kept, inventory.Decision{Entry: e, Action: inventory.Keep, Reason: reasonInvalidInventory + "; this entry does not validate and is kept as it is"})
		}
	}
	res.Decisions = append(res.Decisions, sortPrune(kept)...)
	for _, d := range kept {
		next = append(next, d.Entry)
	}
	// The next inventory holds every entry, not compacted by identity
	// (inventory.Next drops a second entry with an identity): nothing
	// tracked is lost, a duplicate included.
	inventory.SortApply(next)
	res.previous = next
	return nil
}

// sortPrune returns decisions in the prune order of their entries
// (inventory.SortPrune), those with one identity in their order.
func sortPrune(ds []inventory.Decision) []inventory.Decision {
	byID := make(map[inventory.ID][]inventory.Decision, len(ds))
	var ids []inventory.Entry // one per identity
	for _, d := range ds {
		id := d.Entry.ID()
		if _, ok := byID[id]; !ok {
			ids = append(ids, d.Entry)
		}
		byID[id] = append(byID[id], d)
	}
	inventory.SortPrune(ids)
	out := make([]inventory.Decision, 0, len(ds))
	for _, e := range ids {
		out = append(out, byID[e.ID()]...)
	}
	return out
}
