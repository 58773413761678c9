package generator

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/tenantkit/tenantkit/finalizer"
	"github.com/tenantkit/tenantkit/inventory"
	"github.com/tenantkit/tenantkit/nsmeta"
)

// This file is the decision table: every rule that decides what a plan or Finalize does with an
// object (desired, tracked, live), in order, first match wins. The package documentation
// ("Decisions") lists the rows (TestDecisionRowsDocumented) and Collect's generic rules around them.

// scope is the kind of object a row decides.
type scope int

const (
	// staleObject is tracked and no longer desired: the rows are inventory.Collect's guard.
	staleObject scope = iota
	// desiredNamespace and desiredArtifact adjust inventory.Diff's decision to the live copy.
	desiredNamespace
	desiredArtifact
)

// rule is one row of the decision table.
type rule struct {
	name  string // what the documentation calls it, unique
	scope scope
	// action is the decision; zero keeps inventory.Diff's (desired objects).
	action inventory.Action
	// match reports whether the row decides s, and why.
	match func(s *subject) (reason string, ok bool)
	// failed: the reason is an error; inventory.Collect keeps the object with "guard failed: ".
	failed bool
	// notApplied marks a desired namespace that is not applied.
	notApplied bool
}

// rules is the decision table.
var rules = []rule{
	// Stale objects, in prune order (artifacts before namespaces), after Collect's generic rules.
	{name: "namespace pruning is off", scope: staleObject, action: inventory.Release, match: func(s *subject) (string, bool) {
		return "namespace pruning is off", s.id.IsNamespace() && !(s.d.g.managed && s.d.g.prune)
	}},
	{name: "skipped", scope: staleObject, action: inventory.Keep, match: func(s *subject) (string, bool) {
		o, ok := s.d.skipped[s.id]
		return "skipped: " + o.reason, ok
	}},
	{name: "protected namespace", scope: staleObject, action: inventory.Release, match: func(s *subject) (string, bool) {
		return "protected namespace: never deleted", s.id.IsNamespace() && s.d.protected(s.id.Name)
	}},
	{name: "no ObjectReader", scope: staleObject, action: inventory.Keep, match: func(s *subject) (string, bool) {
		return "the live object cannot be read (no ObjectReader)", errors.Is(s.live().err, errNoReader)
	}},
	{name: "the live object cannot be read", scope: staleObject, action: inventory.Keep, failed: true, match: func(s *subject) (string, bool) {
		return errText("reading the live object: ", s.live().err)
	}},
	{name: "not found", scope: staleObject, action: inventory.Delete, match: func(s *subject) (string, bool) {
		return s.d.why() + "; not found in the cluster", !s.live().found
	}},
	exclusionRow("prune: disabled", pruneDisabled),
	exclusionRow("reconcile: disabled", reconcileDisabled),
	exclusionRow("ssa: Ignore", ssaIgnore),
	{name: "another generator's label", scope: staleObject, action: inventory.Release, match: func(s *subject) (string, bool) {
		owner := otherOwner(s.live(), s.d.g.opts.uid)
		return fmt.Sprintf("applied by another generator (label %s: %s)", GeneratorLabel, owner), owner != ""
	}},
	{name: "an artifact, otherwise", scope: staleObject, action: inventory.Delete, match: func(s *subject) (string, bool) {
		return s.d.why(), !s.id.IsNamespace()
	}},
	{name: "no ArtifactLister", scope: staleObject, action: inventory.Keep, match: func(s *subject) (string, bool) {
		return "the namespace's ExternalArtifacts cannot be listed (no ArtifactLister)", errors.Is(s.d.snap.artifacts(s.id.Name).err, errNoLister)
	}},
	{name: "the ExternalArtifacts cannot be listed", scope: staleObject, action: inventory.Keep, failed: true, match: func(s *subject) (string, bool) {
		return errText("listing the namespace's ExternalArtifacts: ", s.d.snap.artifacts(s.id.Name).err)
	}},
	{name: "an ExternalArtifact lives in it", scope: staleObject, action: inventory.Keep, match: func(s *subject) (string, bool) {
		l := s.lodger()
		return l, l != ""
	}},
	{name: "the finalizer's namespace cannot be read", scope: staleObject, action: inventory.Keep, failed: true, match: func(s *subject) (string, bool) {
		_, err := s.removed()
		return errText("", err)
	}},
	{name: "the finalizer's namespace is removed too", scope: staleObject, action: inventory.Delete, match: func(s *subject) (string, bool) {
		why, _ := s.removed()
		return s.d.why() + "; " + why, why != ""
	}},
	{name: "the finalizer cannot be looked up", scope: staleObject, action: inventory.Keep, failed: true, match: func(s *subject) (string, bool) {
		v, err := s.verdict()
		return errText(cmp.Or(v.Reason, "external finalizer")+": ", err)
	}},
	{name: "handed off, the generator is deleted", scope: staleObject, action: inventory.Release, match: func(s *subject) (string, bool) {
		v, _ := s.verdict()
		return v.Reason + "; released: the generator is deleted", v.HandedOff() && s.d.finalize
	}},
	// Kept, not released: the hand-off holds only while its object exists with that UID, so each
	// pass decides again, dropping the namespace once it is gone, deleting it if the object goes.
	{name: "handed off", scope: staleObject, action: inventory.Keep, match: func(s *subject) (string, bool) {
		v, _ := s.verdict()
		return v.Reason + "; kept in the inventory while the hand-off holds", v.HandedOff()
	}},
	{name: "a namespace, otherwise", scope: staleObject, action: inventory.Delete, match: func(s *subject) (string, bool) {
		v, _ := s.verdict()
		return s.d.why() + "; " + v.Reason, true
	}},

	// Desired namespaces, after inventory.Diff (see [Cluster]).
	{name: "not reconciled, desired metadata", scope: desiredNamespace, action: inventory.Unchanged, notApplied: true, match: func(s *subject) (string, bool) {
		what, where := matchConvention(s.ns.Labels, s.ns.Annotations, applyExclusions)
		return fmt.Sprintf("%s in the desired metadata (%s); not applied, still tracked", what, where), where != ""
	}},
	{name: "not reconciled, live namespace", scope: desiredNamespace, action: inventory.Unchanged, notApplied: true, match: func(s *subject) (string, bool) {
		what, where := s.liveMatch(applyExclusions)
		return fmt.Sprintf("%s on the live namespace (%s); not applied, still tracked", what, where), where != ""
	}},
	{name: "applied only if absent, live namespace", scope: desiredNamespace, action: inventory.Unchanged, notApplied: true, match: func(s *subject) (string, bool) {
		_, where := s.liveMatch(ifNotPresent)
		return fmt.Sprintf("the namespace exists and is applied only if absent (%s on the live namespace); not applied, still tracked", where), where != ""
	}},
	{name: "applied only if absent, desired metadata", scope: desiredNamespace, action: inventory.Unchanged, notApplied: true, match: func(s *subject) (string, bool) {
		_, where := matchConvention(s.ns.Labels, s.ns.Annotations, ifNotPresent)
		return fmt.Sprintf("the namespace exists and is applied only if absent (%s in the desired metadata); not applied, still tracked", where), where != "" && s.live().found
	}},
	{name: "tracked, does not exist", scope: desiredNamespace, action: inventory.Update, match: func(s *subject) (string, bool) {
		l := s.live()
		return "drift: the namespace does not exist", l.err == nil && !l.found && s.action != inventory.Create
	}},
	{name: "live metadata drifted", scope: desiredNamespace, action: inventory.Update, match: func(s *subject) (string, bool) {
		drift := s.drift()
		if _, why := s.ownership(); why != "" {
			return why + "; drift: " + drift, s.action == inventory.Unchanged && drift != ""
		}
		return "drift: " + drift, s.action == inventory.Unchanged && drift != ""
	}},
	{name: "adopted or taken over", scope: desiredNamespace, match: func(s *subject) (string, bool) {
		_, why := s.ownership()
		return why, why != ""
	}},
	{name: "namespace as the inventory says", scope: desiredNamespace, match: always},

	// Desired ExternalArtifacts: applying one that another generator's label names relabels it.
	{name: "artifact taken over, unchanged", scope: desiredArtifact, action: inventory.Update, match: func(s *subject) (string, bool) {
		why := s.takenOver()
		return why, why != "" && s.action == inventory.Unchanged
	}},
	{name: "artifact taken over", scope: desiredArtifact, match: func(s *subject) (string, bool) {
		why := s.takenOver()
		return why, why != ""
	}},
	{name: "artifact as the inventory says", scope: desiredArtifact, match: always},
}

// always matches, with no reason.
func always(*subject) (string, bool) { return "", true }

// errText returns prefix and err's text, and whether there is an error.
func errText(prefix string, err error) (string, bool) {
	if err == nil {
		return "", false
	}
	return prefix + err.Error(), true
}

// exclusionRow releases a stale object whose live copy carries a Flux delete exclusion of list.
func exclusionRow(name string, list []exclusion) rule {
	return rule{name: name, scope: staleObject, action: inventory.Release, match: func(s *subject) (string, bool) {
		what, where := s.liveMatch(list)
		return fmt.Sprintf("%s on the live object (%s)", what, where), where != ""
	}}
}

// decide returns the first row of scope sc that s matches, with its action and reason.
func decide(sc scope, s *subject) (*rule, inventory.Action, string) {
	for i := range rules {
		r := &rules[i]
		if r.scope != sc {
			continue
		}
		if reason, ok := r.match(s); ok {
			return r, cmp.Or(r.action, s.action), reason
		}
	}
	// Not reached: every scope ends with a row that always matches.
	return nil, inventory.Keep, "no rule matches"
}

// deleteExclusions are Flux's delete options (fluxcd/pkg/ssa): a stale object whose live copy
// carries one, label or annotation, with a non-empty value equal in any case, is released.
var deleteExclusions = slices.Concat(pruneDisabled, reconcileDisabled, ssaIgnore)

var (
	pruneDisabled     = conventions("prune", "disabled", "pruning is disabled")
	reconcileDisabled = conventions("reconcile", "disabled", "reconciliation is disabled")
	ssaIgnore         = conventions("ssa", "Ignore", "server-side apply ignores it")
)

// exclusion is one convention: the key, the value that sets it (in any case) and what it means.
type exclusion struct{ key, value, what string }

// fluxPrefixes are the prefixes of Flux's conventions that a plan reads: source-watcher's, and
// kustomize-controller's, which a namespace that a Kustomization once applied may still carry.
var fluxPrefixes = []string{"source.extensions.fluxcd.io", "kustomize.toolkit.fluxcd.io"}

// conventions returns one rule per Flux prefix for the key "<prefix>/name".
func conventions(name, value, what string) []exclusion {
	out := make([]exclusion, 0, len(fluxPrefixes))
	for _, prefix := range fluxPrefixes {
		out = append(out, exclusion{prefix + "/" + name, value, what})
	}
	return out
}

var (
	// applyExclusions keep a namespace from being applied: the exclusion selector that
	// source-watcher gives fluxcd/pkg/ssa's Apply, matching the desired and the live object.
	applyExclusions = slices.Concat(reconcileDisabled, ssaIgnore)
	// ifNotPresent applies a namespace only when it does not exist: ssa's IfNotPresent
	// selector, which source-watcher matches on the desired and the live namespace.
	ifNotPresent = conventions("ssa", "IfNotPresent", "applied only if absent")
)

// matchConvention returns the first rule of list that labels or annotations match (a non-empty
// value equal in any case): what it means, and where, as "label key: value"; or "", "".
func matchConvention(labels, annotations map[string]string, list []exclusion) (what, where string) {
	for _, x := range list {
		if v := labels[x.key]; v != "" && strings.EqualFold(v, x.value) {
			return x.what, fmt.Sprintf("label %s: %s", x.key, v)
		}
		if v := annotations[x.key]; v != "" && strings.EqualFold(v, x.value) {
			return x.what, fmt.Sprintf("annotation %s: %s", x.key, v)
		}
	}
	return "", ""
}

// decider is the decision table's state for one pass: what the rows read besides the object.
type decider struct {
	g       *Generator
	snap    *snapshot
	skipped skips
	// finalize is set for Finalize: the generator is being deleted.
	finalize bool
	// deleting holds the stale objects this pass deletes so far, in prune order: an
	// ExternalArtifact deleted before its namespace does not keep it.
	deleting map[inventory.ID]bool
	// stale holds the namespaces this pass no longer desires (not skipped); removal, for those
	// looked at, whether it removes them (deletes, or lets a hand-off take) rather than releases.
	stale   map[string]bool
	removal map[string]bool
}

// newDecider returns the decider of a pass over the stale entries.
func newDecider(g *Generator, snap *snapshot, skipped skips, staleEntries []inventory.Entry, finalize bool) *decider {
	d := &decider{g: g, snap: snap, skipped: skipped, finalize: finalize, deleting: map[inventory.ID]bool{},
		stale: map[string]bool{}, removal: map[string]bool{}}
	for _, e := range staleEntries {
		if id := e.ID(); id.IsNamespace() {
			if _, ok := skipped[id]; !ok {
				d.stale[id.Name] = true
			}
		}
	}
	return d
}

// guard is the decision table as inventory.Collect's one guard.
func (d *decider) guard(_ context.Context, e inventory.Entry) (inventory.Action, string, error) {
	s := &subject{d: d, id: e.ID()}
	r, action, reason := decide(staleObject, s)
	if r.failed {
		return inventory.Keep, "", errors.New(reason)
	}
	if action == inventory.Delete {
		d.deleting[s.id] = true
	}
	return action, reason, nil
}

// desired adjusts Diff's decision on a desired object (ns, a Namespace's) to its live copy.
func (d *decider) desired(dec *inventory.Decision, ns *Namespace) *rule {
	s := &subject{d: d, id: dec.Entry.ID(), action: dec.Action, ns: ns}
	sc := desiredArtifact
	if s.id.IsNamespace() {
		sc = desiredNamespace
	}
	r, action, reason := decide(sc, s)
	dec.Action, dec.Reason = action, reason
	return r
}

// why is the reason of a deletion, before what the rows found.
func (d *decider) why() string {
	if d.finalize {
		return reasonFinalize
	}
	return "no longer desired"
}

// protected reports whether the name policy protects a stale namespace whatever its rules say
// (nsmeta.NewNamePolicy): never desired, only another controller's inventory can track it.
func (d *decider) protected(name string) bool {
	return d.g.policy != nil && errors.Is(d.g.policy.Check(d.snap.ctx, name), nsmeta.ErrProtectedName)
}

// removing reports whether this pass removes (deletes, keeps until no ExternalArtifact lives in
// it, or hands off) rather than releases the stale namespace ns (a protected name, a live copy
// that disables pruning or that another generator labelled), or an error reading its live copy.
func (d *decider) removing(ns string) (bool, error) {
	if r, ok := d.removal[ns]; ok {
		return r, nil
	}
	r := !d.protected(ns)
	if r {
		live := d.snap.object(inventory.ID{Kind: namespaceKind, Name: ns}, nil)
		if live.err != nil {
			return false, fmt.Errorf("reading namespace %s, where the external finalizer lives: %w", ns, live.err)
		}
		_, excluded := matchConvention(live.Labels, live.Annotations, deleteExclusions)
		r = excluded == "" && otherOwner(live, d.g.opts.uid) == ""
	}
	d.removal[ns] = r
	return r, nil
}

// subject is one object before the table, with what the rows read of it, each fact once.
type subject struct {
	d      *decider
	id     inventory.ID
	action inventory.Action // what inventory.Diff decided of a desired object
	ns     *Namespace       // the desired namespace

	liveRead       *liveObject
	removedDone    bool
	removedWhy     string
	removedErr     error
	verdictDone    bool
	verdictOutcome finalizer.Verdict
	verdictErr     error
}

// live is the object's live copy, from the snapshot.
func (s *subject) live() liveObject {
	if s.liveRead == nil {
		var desired *Object
		if s.ns != nil {
			desired = &Object{ID: s.id, Labels: s.ns.Labels, Annotations: s.ns.Annotations}
		}
		o := s.d.snap.object(s.id, desired)
		s.liveRead = &o
	}
	return *s.liveRead
}

// liveMatch matches list on the live copy, when it exists.
func (s *subject) liveMatch(list []exclusion) (what, where string) {
	l := s.live()
	if !l.found {
		return "", ""
	}
	return matchConvention(l.Labels, l.Annotations, list)
}

// ownership says whether an existing desired object is adopted (no generator's label) or taken
// over (another's): its Conflict and the reason; told only with this generator's UID (WithUID).
func (s *subject) ownership() (conflict, why string) {
	uid := s.d.g.opts.uid
	if uid == "" || !s.live().found {
		return "", ""
	}
	switch owner := s.live().Labels[GeneratorLabel]; {
	case owner == "":
		return reasonAdopted, "adopted: the namespace exists and no generator manages it"
	case owner != uid:
		return reasonOwnershipConflict, fmt.Sprintf("taken over from generator %s (label %s)", owner, GeneratorLabel)
	}
	return "", ""
}

// drift says how the live copy of a desired namespace differs from it.
func (s *subject) drift() string {
	if !s.live().found {
		return ""
	}
	return drift(s.ns, s.live().Object)
}

// takenOver says that a desired ExternalArtifact's live copy names another generator, or "";
// only with a UID (WithUID), with which liveArtifacts read every applied artifact's live copy.
func (s *subject) takenOver() string {
	if conflict, why := s.ownership(); conflict == reasonOwnershipConflict {
		return why
	}
	return ""
}

// otherOwner returns the generator a live copy's GeneratorLabel names when it is not uid, or "".
func otherOwner(l liveObject, uid string) string {
	if owner := l.Labels[GeneratorLabel]; l.found && owner != "" && owner != uid {
		return owner
	}
	return ""
}

// lodger names the first live ExternalArtifact of a stale namespace not deleted here, or "".
func (s *subject) lodger() string {
	for _, a := range s.d.snap.artifacts(s.id.Name).objects {
		aid := a.ID
		if aid.Kind == "" {
			aid = inventory.ID{Group: artifactGroup, Kind: artifactKind, Namespace: s.id.Name, Name: a.ID.Name}
		}
		if s.d.deleting[aid] {
			continue // deleted before the namespace, in this pass
		}
		whose := "not tracked by this generator"
		if owner := a.Labels[GeneratorLabel]; owner != "" && owner != s.d.g.opts.uid {
			whose = "generator " + owner + "'s"
		}
		return fmt.Sprintf("ExternalArtifact %s/%s (%s) still lives in it", s.id.Name, aid.Name, whose)
	}
	return ""
}

// removed returns why the external finalizer of a stale namespace is no hand-off because it
// lives in, or is, another namespace that this pass removes too, or "": two removed tenants
// whose namespaces name each other's objects would otherwise keep each other for ever.
func (s *subject) removed() (string, error) {
	if !s.removedDone {
		s.removedWhy, s.removedErr = s.findRemoved()
		s.removedDone = true
	}
	return s.removedWhy, s.removedErr
}

func (s *subject) findRemoved() (string, error) {
	ns := s.id.Name
	r, err := finalizer.Parse(s.live().Annotations[finalizer.Annotation])
	if err != nil {
		return "", nil // the Decider says why
	}
	other, what := r.Namespace, "lives in namespace "+r.Namespace
	if r.Group == "" && r.Kind == "Namespace" {
		other, what = r.Name, "is namespace "+r.Name
	}
	if other == "" || other == ns || !s.d.stale[other] {
		return "", nil
	}
	removing, err := s.d.removing(other)
	if err != nil || !removing {
		return "", err
	}
	return fmt.Sprintf("external finalizer %s (uid %s) is not a hand-off: it %s, which this generator removes too (no longer desired)", r.Object(), r.UID, what), nil
}

// verdict is the generator's finalizer.Decider's verdict on a stale namespace (a reference into
// the namespace itself is never a hand-off), its lookups through the snapshot.
func (s *subject) verdict() (finalizer.Verdict, error) {
	if !s.verdictDone {
		s.verdictOutcome, s.verdictErr = s.d.g.decider.Decide(s.d.snap.ctx, s.id.Name, s.live().Annotations, finalizer.LookupFunc(s.d.snap.lookup))
		s.verdictDone = true
	}
	return s.verdictOutcome, s.verdictErr
}
