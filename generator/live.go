package generator

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/tenantkit/tenantkit/inventory"
)

// The reasons of the Warning events that source-watcher records when it
// applies a namespace that it did not create (see [Namespace.Conflict]).
const (
	reasonAdopted           = "Adopted"
	reasonOwnershipConflict = "OwnershipConflict"
)

// fluxPrefixes are the prefixes of Flux's live-object conventions that a
// plan reads: source-watcher's own, and kustomize-controller's, which a
// namespace that a Kustomization once applied may still carry.
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
	// applyExclusions keep a namespace from being applied: the exclusion
	// selector that source-watcher gives fluxcd/pkg/ssa's Apply, which
	// matches the desired object and the live one.
	applyExclusions = slices.Concat(
		conventions("reconcile", "disabled", "reconciliation is disabled"),
		conventions("ssa", "Ignore", "server-side apply ignores it"),
	)
	// ifNotPresent applies a namespace only when it does not exist: ssa's
	// IfNotPresent selector, which source-watcher matches on the desired
	// and the live namespace.
	ifNotPresent = conventions("ssa", "IfNotPresent", "applied only if absent")
)

// matchConvention returns the first rule of list that labels or
// annotations match, with a non-empty value equal to the rule's in any
// case: what the rule means, and where it matched, as "label key: value";
// or two empty strings.
func matchConvention(labels, annotations map[string]string, list []exclusion) (what, where string) {
	for _, x := range list {
		for _, m := range []struct {
			kind string
			m    map[string]string
		}{{"label", labels}, {"annotation", annotations}} {
			if v := m.m[x.key]; v != "" && strings.EqualFold(v, x.value) {
				return x.what, fmt.Sprintf("%s %s: %s", m.kind, x.key, v)
			}
		}
	}
	return "", ""
}

// liveNamespace is what a plan read of a desired namespace's live copy,
// and what it means for the namespace's decision.
type liveNamespace struct {
	read   bool // the live copy was read: an ObjectReader was given
	exists bool
	// notApplied says why the namespace is not applied; it stays tracked.
	notApplied string
	// adoption says that the namespace is adopted or taken over, for the
	// decision's reason; conflict is Namespace.Conflict.
	adoption string
	// drift says how the live metadata differs from the desired.
	drift string
}

// liveState reads the live copy of a desired namespace and decides what it
// means, setting ns.Conflict and adding the warning of an adoption or a
// takeover. Without an ObjectReader, only the desired metadata is looked
// at. A read that fails otherwise than with finalizer.ErrNotFound is an
// error of the plan, at "cluster[<name>]", and ok is false: the namespace
// is skipped (neither applied nor deleted).
func (p *planner) liveState(ns *Namespace) (l *liveNamespace, ok bool) {
	l = &liveNamespace{}
	// The desired metadata can opt out of apply too (ssa matches both).
	if what, where := matchConvention(ns.Labels, ns.Annotations, applyExclusions); where != "" {
		l.notApplied = fmt.Sprintf("%s in the desired metadata (%s)", what, where)
	}
	id := inventory.ID{Kind: namespaceKind, Name: ns.Name}
	live := p.snap.object(id, &Object{ID: id, Labels: ns.Labels, Annotations: ns.Annotations})
	switch {
	case errors.Is(live.err, errNoReader):
		return l, true
	case live.err != nil:
		p.errs = append(p.errs, field.InternalError(field.NewPath("cluster").Key(ns.Name),
			fmt.Errorf("reading the live namespace: %w", live.err)))
		return nil, false
	case !live.found:
		l.read = true
		return l, true
	}
	l.read, l.exists = true, true
	if l.notApplied != "" {
		return l, true
	}
	if what, where := matchConvention(live.Labels, live.Annotations, applyExclusions); where != "" {
		l.notApplied = fmt.Sprintf("%s on the live namespace (%s)", what, where)
		return l, true
	}
	if _, where := matchConvention(live.Labels, live.Annotations, ifNotPresent); where != "" {
		l.notApplied = fmt.Sprintf("the namespace exists and is applied only if absent (%s on the live namespace)", where)
		return l, true
	}
	if _, where := matchConvention(ns.Labels, ns.Annotations, ifNotPresent); where != "" {
		l.notApplied = fmt.Sprintf("the namespace exists and is applied only if absent (%s in the desired metadata)", where)
		return l, true
	}
	// Ownership can be told only with a UID of our own (WithUID).
	if uid := p.g.opts.uid; uid != "" {
		switch owner := live.Labels[GeneratorLabel]; {
		case owner == "":
			ns.Conflict = reasonAdopted
			l.adoption = "adopted: the namespace exists and no generator manages it"
			p.warn = append(p.warn, fmt.Sprintf("%s: namespace %s is not managed by any generator and is adopted",
				reasonAdopted, ns.Name))
		case owner != uid:
			ns.Conflict = reasonOwnershipConflict
			l.adoption = fmt.Sprintf("taken over from generator %s (label %s)", owner, GeneratorLabel)
			p.warn = append(p.warn, fmt.Sprintf("%s: namespace %s is managed by generator %s and is taken over",
				reasonOwnershipConflict, ns.Name, owner))
		}
	}
	l.drift = drift(ns, live.Object)
	return l, true
}

// maxDriftKeys bounds the keys a drift reason names in each of its lists,
// so that a reason stays fit for a change line and a condition message.
const maxDriftKeys = 3

// drift says how the live metadata lacks or differs from the desired
// labels and annotations, naming the first keys of each kind, sorted
// (labels before annotations); "" when it carries them all. Keys that only
// the live namespace has are not drift: other actors may set them.
func drift(ns *Namespace, live Object) string {
	var lacks, differs []string
	for _, m := range []struct {
		kind          string
		desired, live map[string]string
	}{{"label", ns.Labels, live.Labels}, {"annotation", ns.Annotations, live.Annotations}} {
		for _, k := range slices.Sorted(maps.Keys(m.desired)) {
			v, ok := m.live[k]
			switch {
			case !ok:
				lacks = append(lacks, m.kind+" "+k)
			case v != m.desired[k]:
				differs = append(differs, m.kind+" "+k)
			}
		}
	}
	var parts []string
	if len(lacks) > 0 {
		parts = append(parts, "lacks "+firstFew(lacks))
	}
	if len(differs) > 0 {
		parts = append(parts, "has another value for "+firstFew(differs))
	}
	if len(parts) == 0 {
		return ""
	}
	return "live metadata " + strings.Join(parts, " and ")
}

// firstFew joins the first maxDriftKeys names, and says how many more.
func firstFew(names []string) string {
	if len(names) <= maxDriftKeys {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:maxDriftKeys], ", "), len(names)-maxDriftKeys)
}

// notApplied leaves the namespaces that are not applied out of
// res.Namespaces; their entries stay desired, so that Next tracks them.
func (p *planner) notApplied(res *Plan) {
	res.Namespaces = slices.DeleteFunc(res.Namespaces, func(ns Namespace) bool {
		l := p.live[ns.Name]
		return l != nil && l.notApplied != ""
	})
	if len(res.Namespaces) == 0 {
		res.Namespaces = nil // as a plan's lists are when empty
	}
}

// liveDecisions adjusts the decisions of the desired namespaces to their
// live state (applyLive), and says of each artifact taken over from another
// generator that it is: an unchanged one is an update, since applying it
// changes its live label.
func (p *planner) liveDecisions(ds []inventory.Decision) {
	for i := range ds {
		id := ds[i].Entry.ID()
		if id.IsNamespace() {
			if l := p.live[id.Name]; l != nil {
				applyLive(&ds[i], l)
			}
			continue
		}
		if owner, ok := p.takeovers[id]; ok {
			if ds[i].Action == inventory.Unchanged {
				ds[i].Action = inventory.Update
			}
			ds[i].Reason = fmt.Sprintf("taken over from generator %s (label %s)", owner, GeneratorLabel)
		}
	}
}

// applyLive adjusts the decision of a desired namespace to its live state
// (see [Cluster]): a namespace that is not
// applied is unchanged, with the reason; a tracked one that is missing, or
// an unchanged one whose live metadata drifted, is updated, with the
// reason; an adopted or taken-over one says so.
func applyLive(d *inventory.Decision, l *liveNamespace) {
	if l.notApplied != "" {
		d.Action, d.Reason = inventory.Unchanged, l.notApplied+"; not applied, still tracked"
		return
	}
	var why []string
	if l.adoption != "" {
		why = append(why, l.adoption)
	}
	switch {
	case l.read && !l.exists && d.Action != inventory.Create:
		d.Action = inventory.Update
		why = append(why, "drift: the namespace does not exist")
	case l.drift != "" && d.Action == inventory.Unchanged:
		d.Action = inventory.Update
		why = append(why, "drift: "+l.drift)
	}
	d.Reason = strings.Join(why, "; ")
}

// liveArtifacts reads the live copy of each artifact that the plan applies,
// one at a time in the order of arts (namespace, then name), and returns
// arts without those whose read failed. An artifact whose live copy
// carries another generator's GeneratorLabel is taken over, as
// source-watcher takes it over: its Conflict is "OwnershipConflict", the
// plan warns, and its decision says so (liveDecisions). A read that fails
// otherwise than with finalizer.ErrNotFound is an error of the plan at
// "cluster[<namespace>/<name>]", and the artifact is skipped (kept when
// tracked), as a namespace whose read fails is.
//
// Nothing is read without an ObjectReader, or without a UID (WithUID):
// ownership cannot be told then. When ctx ends, reading stops and arts is
// returned as it is: Plan returns ctx's error.
//
// Every applied artifact is read, tracked or not, rather than only those
// that the previous inventory does not track: an artifact that this
// generator created can be relabelled by another one (two generators that
// render the same artifact take it from each other on every reconcile),
// and source-watcher warns each time it takes it back.
func (p *planner) liveArtifacts(items []*item, arts []Artifact) []Artifact {
	uid := p.g.opts.uid
	if p.snap.cluster.Objects == nil || uid == "" || len(arts) == 0 {
		return arts
	}
	type key struct{ namespace, name string }
	var failed map[key]bool
	for i := range arts {
		a := &arts[i]
		if p.ctx.Err() != nil {
			return arts
		}
		id := inventory.ID{Group: artifactGroup, Kind: artifactKind, Namespace: a.Namespace, Name: a.Name}
		live := p.snap.object(id, nil)
		switch {
		case live.err != nil && p.ctx.Err() != nil:
			return arts
		case live.err != nil:
			p.errs = append(p.errs, field.InternalError(field.NewPath("cluster").Key(a.Namespace+"/"+a.Name),
				fmt.Errorf("reading the live ExternalArtifact: %w", live.err)))
			if failed == nil {
				failed = map[key]bool{}
			}
			failed[key{a.Namespace, a.Name}] = true
			continue
		}
		if owner := live.Labels[GeneratorLabel]; owner != "" && owner != uid {
			a.Conflict = reasonOwnershipConflict
			if p.takeovers == nil {
				p.takeovers = map[inventory.ID]string{}
			}
			p.takeovers[id] = owner
			p.warn = append(p.warn, fmt.Sprintf("%s: ExternalArtifact %s/%s is managed by generator %s and is taken over",
				reasonOwnershipConflict, a.Namespace, a.Name, owner))
		}
	}
	if len(failed) == 0 {
		return arts
	}
	for _, it := range items {
		if it.skip == "" && failed[key{it.namespace, it.name}] {
			it.skip = "the live ExternalArtifact cannot be read"
		}
	}
	arts = slices.DeleteFunc(arts, func(a Artifact) bool { return failed[key{a.Namespace, a.Name}] })
	if len(arts) == 0 {
		arts = nil // as a plan's lists are when empty
	}
	return arts
}
