package reconciler

import (
	"context"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/events"

	"github.com/tenantkit/tenantkit/examples/controller/api/v1alpha1"
	"github.com/tenantkit/tenantkit/generator"
	"github.com/tenantkit/tenantkit/inventory"
)

// pass is what applying one plan did.
type pass struct {
	changes    []string // change lines, not "unchanged" ones
	errors     []string // writes that failed
	inProgress []string // deletions accepted but not finished, namespaces terminating
	confirmed  map[inventory.ID]bool
	applied    int

	// waiting holds the namespaces whose artifacts must not be written now
	// (the namespace failed, or is terminating), with why.
	waiting map[string]string
	// pendingIn holds the namespaces where a deletion was not confirmed in
	// this pass: the namespace itself is not deleted yet.
	pendingIn map[string]bool

	// rec records the conflict events; nil records none.
	rec events.EventRecorder
	// conflicts counts the ExternalArtifacts taken over from another
	// generator in this pass, for the summary event on the generator.
	conflicts int
	// adopted and takenOver count the namespaces applied in this pass that
	// were adopted or taken over (the conflict OwnershipConflict), for the
	// summary events on the generator; adoptedReason is the plan's
	// Conflict of the adopted ones, the reason of their summary.
	adopted, takenOver int
	adoptedReason      string
}

// ownershipConflict is the Conflict of a namespace or ExternalArtifact
// that the plan takes over from another generator; any other non-empty
// Conflict of a namespace is its adoption.
const ownershipConflict = "OwnershipConflict"

// summary is a summary Warning event on the generator, one per kind of
// conflict that a pass applied, as source-watcher records them besides the
// event on each object: reason, and the message with the count.
type summary struct {
	reason, format string
	count          int
}

func (p *pass) summaries() []summary {
	return []summary{
		{p.adoptedReason, "adoption detected for %d Namespace(s)", p.adopted},
		{ownershipConflict, "ownership conflict detected for %d Namespace(s)", p.takenOver},
		{ownershipConflict, "ownership conflict detected for %d ExternalArtifact(s)", p.conflicts},
	}
}

func isNamespace(id inventory.ID) bool { return id.Group == "" && id.Kind == "Namespace" }

// apply carries out the plan's decisions in the plan's order: desired
// objects in apply order (namespaces before artifacts), then the skipped
// ones, then the stale ones in prune order (artifacts before namespaces).
func (r *Reconciler) apply(ctx context.Context, w *writer, plan *generator.Plan) *pass {
	p := &pass{confirmed: map[inventory.ID]bool{}, waiting: map[string]string{}, pendingIn: map[string]bool{}, rec: r.Recorder}
	namespaces := make(map[string]generator.Namespace, len(plan.Namespaces))
	for _, ns := range plan.Namespaces {
		namespaces[ns.Name] = ns
	}
	artifacts := make(map[inventory.ID]generator.Artifact, len(plan.Artifacts))
	for _, a := range plan.Artifacts {
		artifacts[inventory.ID{Group: artifactGVK.Group, Kind: artifactGVK.Kind, Namespace: a.Namespace, Name: a.Name}] = a
	}
	for _, d := range plan.Decisions {
		if ctx.Err() != nil {
			p.errors = append(p.errors, ctx.Err().Error())
			return p
		}
		id := d.Entry.ID()
		switch d.Action {
		case inventory.Create, inventory.Update, inventory.Unchanged:
			if ns, ok := namespaces[id.Name]; ok && isNamespace(id) {
				p.namespace(ctx, w, ns, d)
			} else if a, ok := artifacts[id]; ok {
				p.artifact(ctx, w, a, d)
			}
		case inventory.Delete:
			p.delete(ctx, w, d)
		default: // skip, release, keep: nothing to write
			p.changes = append(p.changes, d.String())
		}
	}
	if p.rec != nil {
		// As source-watcher: one Warning on the generator that counts the
		// namespaces adopted, one the namespaces taken over and one the
		// ExternalArtifacts taken over, besides one on each of them.
		for _, sum := range p.summaries() {
			if sum.count > 0 {
				p.rec.Eventf(w.gen, nil, corev1.EventTypeWarning, sum.reason, "Apply", sum.format, sum.count)
			}
		}
	}
	return p
}

func (p *pass) fail(d inventory.Decision, what string, err error) {
	p.errors = append(p.errors, fmt.Sprintf("%s: %s: %v", d.Entry.ID().String(), what, err))
}

// done records an applied object's change line; an unchanged one that had
// to be written is a corrected drift.
func (p *pass) done(d inventory.Decision, existed bool) {
	p.applied++
	switch {
	case d.Action != inventory.Unchanged:
		p.changes = append(p.changes, d.String())
	case existed:
		p.changes = append(p.changes, d.Entry.ID().String()+" configured (drift corrected)")
	default:
		p.changes = append(p.changes, d.Entry.ID().String()+" created (was missing)")
	}
}

func (p *pass) namespace(ctx context.Context, w *writer, ns generator.Namespace, d inventory.Decision) {
	l, err := w.getMeta(ctx, namespaceGVK, "", ns.Name)
	if err != nil {
		p.fail(d, "read", err)
		p.waiting[ns.Name] = "its namespace could not be read"
		return
	}
	if l.terminating {
		// Deleted before (by this controller or another): writing it now
		// would not stop the deletion, and its artifacts cannot be created
		// in it. Wait until it is gone, then create it afresh.
		p.waiting[ns.Name] = "its namespace is terminating"
		p.inProgress = append(p.inProgress, d.Entry.ID().String()+" is terminating")
		p.changes = append(p.changes, d.Entry.ID().String()+" waiting (terminating; created again once gone)")
		return
	}
	if d.Action == inventory.Unchanged && l.exists && !drifted(l.labels, ns.Labels) && !drifted(l.annotations, ns.Annotations) {
		return
	}
	if err := w.applyNamespace(ctx, ns); err != nil {
		p.fail(d, "apply", err)
		p.waiting[ns.Name] = "its namespace could not be applied"
		return
	}
	p.done(d, l.exists)
	if ns.Conflict != "" && p.rec != nil {
		// As source-watcher: a Warning on the Namespace itself, whose
		// reason is the conflict, once the namespace is applied.
		regarding := &corev1.Namespace{
			TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Namespace"},
			ObjectMeta: metav1.ObjectMeta{Name: ns.Name, UID: types.UID(l.uid)},
		}
		p.rec.Eventf(regarding, w.gen, corev1.EventTypeWarning, ns.Conflict, "Apply", "%s", d.Reason)
		if ns.Conflict == ownershipConflict {
			p.takenOver++
		} else {
			// The reason is the plan's: the controller repeats what
			// package generator calls an adoption.
			p.adopted++
			p.adoptedReason = ns.Conflict
		}
	}
}

func (p *pass) artifact(ctx context.Context, w *writer, a generator.Artifact, d inventory.Decision) {
	if why, ok := p.waiting[a.Namespace]; ok {
		p.changes = append(p.changes, d.Entry.ID().String()+" waiting ("+why+")")
		return
	}
	existed := true
	if d.Action == inventory.Unchanged {
		drift, err := w.artifactDrifted(ctx, a)
		if err != nil {
			p.fail(d, "read", err)
			return
		}
		if !drift {
			return
		}
		l, err := w.getMeta(ctx, artifactGVK, a.Namespace, a.Name)
		if err != nil {
			p.fail(d, "read", err)
			return
		}
		existed = l.exists
	}
	if err := w.applyArtifact(ctx, a); err != nil {
		p.fail(d, "apply", err)
		return
	}
	p.done(d, existed)
	if a.Conflict != "" && p.rec != nil {
		// As source-watcher: a Warning on the ExternalArtifact itself,
		// whose reason is the conflict, once it is applied.
		p.conflicts++
		regarding := &metav1.PartialObjectMetadata{}
		regarding.SetGroupVersionKind(artifactGVK)
		regarding.SetNamespace(a.Namespace)
		regarding.SetName(a.Name)
		if l, err := w.getMeta(ctx, artifactGVK, a.Namespace, a.Name); err == nil {
			regarding.SetUID(types.UID(l.uid))
		}
		p.rec.Eventf(regarding, w.gen, corev1.EventTypeWarning, a.Conflict, "Apply", "%s", d.Reason)
	}
}

func (p *pass) delete(ctx context.Context, w *writer, d inventory.Decision) {
	id := d.Entry.ID()
	if isNamespace(id) && p.pendingIn[id.Name] {
		p.inProgress = append(p.inProgress, id.String()+" waits for the deletion of its objects")
		p.changes = append(p.changes, id.String()+" waiting (an object in it is not deleted yet)")
		return
	}
	res, err := w.delete(ctx, d.Entry)
	switch {
	case err != nil:
		p.fail(d, "delete", err)
	case res == deletionConfirmed:
		p.confirmed[id] = true
		p.changes = append(p.changes, d.String())
		return
	default:
		p.inProgress = append(p.inProgress, id.String()+" is being deleted")
		p.changes = append(p.changes, id.String()+" deletion in progress ("+d.Reason+"; still tracked until the API server removes it)")
	}
	if id.Namespace != "" {
		p.pendingIn[id.Namespace] = true
	}
}

// outcome turns the pass into the status: the next inventory, the summary
// and the Ready condition, worst problem first.
func (p *pass) outcome(plan *generator.Plan, readErrs []error, retry time.Duration) *outcome {
	s := &v1alpha1.PlanSummary{}
	var kept []string
	for _, d := range plan.Decisions {
		switch d.Action {
		case inventory.Create:
			s.Create++
		case inventory.Update:
			s.Update++
		case inventory.Unchanged:
			s.Unchanged++
		case inventory.Delete:
			s.Delete++
		case inventory.Release:
			s.Release++
		case inventory.Keep:
			s.Keep++
			kept = append(kept, d.String())
		case inventory.Skip:
			s.Skip++
		}
	}
	var cut [4]bool
	s.Changes, cut[0] = firstN(p.changes)
	s.Warnings, cut[1] = firstN(plan.Warnings)
	var errs []string
	for _, e := range plan.Errors {
		errs = append(errs, e.Error())
	}
	errs = append(errs, p.errors...)
	s.Errors, cut[2] = firstN(errs)
	s.Truncated = cut[0] || cut[1] || cut[2]

	out := &outcome{
		summary: s,
		next:    plan.Next(func(e inventory.Entry) bool { return p.confirmed[e.ID()] }),
	}
	counts := fmt.Sprintf("%d created, %d configured, %d unchanged, %d deleted, %d released, %d kept, %d skipped",
		s.Create, s.Update, s.Unchanged, len(p.confirmed), s.Release, s.Keep, s.Skip)
	switch {
	case plan.HasErrors():
		out.ready, out.reason = metav1.ConditionFalse, v1alpha1.ReasonPlanFailed
		out.message = fmt.Sprintf("the desired state has %d error(s), so nothing was deleted: %s", len(plan.Errors), joinFirst(errs, 5))
		if r := plan.Refused; r != nil {
			// The refusal names no option: say which of this controller's flags allows it.
			allow := "-allow-delete-all"
			if r.Max >= 0 {
				allow = "a larger -max-deletions"
			}
			out.message += fmt.Sprintf("; %s allows the deletions", allow)
		}
		out.requeue = retry
	case len(p.errors) > 0:
		out.ready, out.reason = metav1.ConditionFalse, v1alpha1.ReasonApplyFailed
		out.message = fmt.Sprintf("%d write(s) failed: %s", len(p.errors), joinFirst(p.errors, 5))
		out.requeue = retry
	case len(readErrs) > 0:
		var msgs []string
		for _, e := range readErrs {
			msgs = append(msgs, e.Error())
		}
		out.ready, out.reason = metav1.ConditionFalse, v1alpha1.ReasonGarbageCollectionBlocked
		out.message = fmt.Sprintf("%s; kept until the cluster can be read: %s", joinFirst(kept, 5), joinFirst(msgs, 5))
		out.requeue = retry
	case len(p.inProgress) > 0:
		out.ready, out.reason = metav1.ConditionUnknown, v1alpha1.ReasonDeletionInProgress
		out.message = joinFirst(p.inProgress, 5) + "; " + counts
		out.requeue = retry
	default:
		out.ready, out.reason = metav1.ConditionTrue, v1alpha1.ReasonSucceeded
		out.message = counts
		if len(p.confirmed) > 0 && len(kept) > 0 {
			// A namespace kept for an artifact deleted in this pass can go
			// in the next one.
			out.requeue = retry
		}
	}
	return out
}

func joinFirst(s []string, n int) string {
	if len(s) > n {
		return strings.Join(s[:n], "; ") + fmt.Sprintf("; and %d more", len(s)-n)
	}
	return strings.Join(s, "; ")
}
