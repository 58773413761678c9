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

// The reasons of source-watcher's Warning events when it applies a namespace that it did not
// create (see [Namespace.Conflict]).
const (
	reasonAdopted           = "Adopted"
	reasonOwnershipConflict = "OwnershipConflict"
)

// liveState reads a desired namespace's live copy into the snapshot and sets ns.Conflict, with
// an adoption's or a takeover's warning, unless it is not applied (the desiredNamespace rows;
// without an ObjectReader, by its desired metadata). A read that fails otherwise than with
// finalizer.ErrNotFound is an error at "cluster[<name>]", and ok is false: the namespace is
// skipped (neither applied nor deleted).
func (t *task) liveState(ns *Namespace) (ok bool) {
	s := &subject{d: &decider{g: t.g, snap: t.snap}, id: inventory.ID{Kind: namespaceKind, Name: ns.Name}, ns: ns}
	if err := s.live().err; err != nil && !errors.Is(err, errNoReader) {
		t.errs = append(t.errs, field.InternalError(field.NewPath("cluster").Key(ns.Name),
			fmt.Errorf("reading the live namespace: %w", err)))
		return false
	}
	if r, _, _ := decide(desiredNamespace, s); r.notApplied {
		return true
	}
	switch conflict, _ := s.ownership(); conflict {
	case reasonAdopted:
		ns.Conflict = conflict
		t.warn = append(t.warn, fmt.Sprintf("%s: namespace %s is not managed by any generator and is adopted",
			reasonAdopted, ns.Name))
	case reasonOwnershipConflict:
		ns.Conflict = conflict
		t.warn = append(t.warn, fmt.Sprintf("%s: namespace %s is managed by generator %s and is taken over",
			reasonOwnershipConflict, ns.Name, s.live().Labels[GeneratorLabel]))
	}
	return true
}

// maxDriftKeys bounds the keys a drift reason names in each of its lists, so that a reason
// stays fit for a change line and a condition message.
const maxDriftKeys = 3

// drift says how the live metadata lacks or differs from the desired labels and annotations,
// naming the first keys of each kind, sorted (labels before annotations); "" when it carries
// them all. Keys only the live namespace has are not drift: other actors may set them.
func drift(ns *Namespace, live Object) string {
	var lacks, differs []string
	compare := func(kind string, desired, live map[string]string) {
		for _, k := range slices.Sorted(maps.Keys(desired)) {
			if v, ok := live[k]; !ok {
				lacks = append(lacks, kind+" "+k)
			} else if v != desired[k] {
				differs = append(differs, kind+" "+k)
			}
		}
	}
	compare("label", ns.Labels, live.Labels)
	compare("annotation", ns.Annotations, live.Annotations)
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

// liveArtifacts reads the live copy of each artifact the plan applies, as [Cluster] says, and
// returns skipped with those whose read failed (an error each); one that another generator's
// label names is taken over, with its Conflict and a warning. ctx ending stops the reads.
func (p *planner) liveArtifacts(arts []Artifact, skipped skips) ([]Artifact, skips, findings) {
	uid := p.g.opts.uid
	if p.snap.cluster.Objects == nil || uid == "" || len(arts) == 0 {
		return arts, skipped, findings{}
	}
	var found findings
	skipped = skipped.clone()
	for i := range arts {
		a := &arts[i]
		if p.ctx.Err() != nil || skipped.reason(a.Namespace, a.Name) != "" {
			continue
		}
		e := newArtifactEntry(a.Namespace, a.Name)
		live := p.snap.object(e.ID(), nil)
		switch {
		case live.err != nil && p.ctx.Err() != nil:
			continue
		case live.err != nil:
			found.errs = append(found.errs, field.InternalError(field.NewPath("cluster").Key(a.Namespace+"/"+a.Name),
				fmt.Errorf("reading the live ExternalArtifact: %w", live.err)))
			skipped.add(e, "the live ExternalArtifact cannot be read")
			continue
		}
		if owner := otherOwner(live, uid); owner != "" {
			a.Conflict = reasonOwnershipConflict
			found.warn = append(found.warn, fmt.Sprintf("%s: ExternalArtifact %s/%s is managed by generator %s and is taken over",
				reasonOwnershipConflict, a.Namespace, a.Name, owner))
		}
	}
	return arts, skipped, found
}
