package reconciler

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/opencontainers/go-digest"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/tenantkit/tenantkit/examples/controller/api/v1alpha1"
	"github.com/tenantkit/tenantkit/finalizer"
	"github.com/tenantkit/tenantkit/generator"
	"github.com/tenantkit/tenantkit/inventory"
)

// InputsKey is the key, in the ConfigMap that a TenantSet renders per input
// set, of the input set as a JSON object (keys sorted, values as compact
// JSON). Input names are not all ConfigMap keys: a label "team.example.com/x"
// is an input too.
const InputsKey = "inputs.json"

// PruneLabel is flux-operator's convention, honoured as a label or an
// annotation of the live object: with the value "disabled" (in any case) a
// TenantSet does not delete the object when it no longer renders it, nor
// when it is deleted; it releases it. A Namespace it stamped it releases
// too: it removes its externalFinalizer stamp (finalizer.Release), so that
// the namespace's generator is accountable for it again at once.
const PruneLabel = "fluxcd.controlplane.io/prune"

// renderedObject is one object a TenantSet applies: its inventory entry,
// with the digest of what is applied, and its apply configuration.
type renderedObject struct {
	entry inventory.Entry
	apply runtime.ApplyConfiguration
}

// ownerLabels are the labels a TenantSet sets on every object it applies,
// naming itself: Flux's ssa owner labels with the owner group "<lower-case
// kind>.<group>", as flux-operator sets resourceset.fluxcd.controlplane.io/name
// and /namespace. finalizer.Stamp accepts exactly these on a Namespace.
func ownerLabels(owner finalizer.Reference) map[string]string {
	group := strings.ToLower(owner.Kind) + "." + owner.Group
	return map[string]string{group + "/name": owner.Name, group + "/namespace": owner.Namespace}
}

// render renders per input set the ConfigMap "<name>-inputs" holding the
// set (InputsKey) in the set's namespace, and once per namespace the
// Namespace, from the template a platform team would write, the annotation
// externalFinalizer: self and nothing else, stamped with the owner's
// reference. The warnings name the exported inputs that the provider's own
// inputs overrode.
func render(sets []generator.ProviderInput, owner finalizer.Reference) ([]renderedObject, []string, field.ErrorList) {
	var (
		objs     []renderedObject
		warnings []string
		errs     field.ErrorList
		seen     = map[string]bool{}
		labels   = ownerLabels(owner)
	)
	for i, set := range sets {
		p := field.NewPath("inputs").Index(i)
		// The provider sets both, as JSON strings, and ProviderInputs has
		// checked them (a DNS-1123 label and subdomain).
		var name, namespace string
		if err := json.Unmarshal(set.Inputs["name"], &name); err != nil {
			errs = append(errs, field.Invalid(p.Child("name"), string(set.Inputs["name"]), "must be a string"))
			continue
		}
		if err := json.Unmarshal(set.Inputs["namespace"], &namespace); err != nil {
			errs = append(errs, field.Invalid(p.Child("namespace"), string(set.Inputs["namespace"]), "must be a string"))
			continue
		}
		cmName := name + "-inputs"
		if msgs := validation.IsDNS1123Subdomain(cmName); len(msgs) > 0 {
			errs = append(errs, field.Invalid(p.Child("name"), cmName, strings.Join(msgs, "; ")))
			continue
		}
		if len(set.Overridden) > 0 {
			warnings = append(warnings, fmt.Sprintf("ExternalArtifact/%s/%s: the provider's own inputs override the exported input(s) %s",
				set.Namespace, set.Name, strings.Join(set.Overridden, ", ")))
		}
		if !seen[namespace] {
			seen[namespace] = true
			annotations, err := finalizer.Stamp(labels, map[string]string{finalizer.Annotation: finalizer.Self}, owner)
			if err != nil {
				errs = append(errs, field.InternalError(p.Child("namespace"), err))
				continue
			}
			ns := corev1ac.Namespace(namespace).WithLabels(labels).WithAnnotations(annotations)
			objs = append(objs, newRendered(ns, "Namespace", "", namespace))
		}
		data, err := json.Marshal(set.Inputs) // keys sorted, values compact
		if err != nil {
			errs = append(errs, field.InternalError(p, err))
			continue
		}
		cm := corev1ac.ConfigMap(cmName, namespace).WithLabels(labels).WithData(map[string]string{InputsKey: string(data)})
		objs = append(objs, newRendered(cm, "ConfigMap", namespace, cmName))
	}
	return objs, warnings, errs
}

// newRendered returns the object with its entry: a core v1 kind, and the
// digest of the apply configuration's JSON.
func newRendered(ac runtime.ApplyConfiguration, kind, namespace, name string) renderedObject {
	data, _ := json.Marshal(ac) // an apply configuration of strings always encodes
	return renderedObject{
		entry: inventory.Entry{APIVersion: "v1", Kind: kind, Namespace: namespace, Name: name, Digest: digest.FromBytes(data)},
		apply: ac,
	}
}

// tsPass is what one TenantSet pass or teardown step did.
type tsPass struct {
	w     *writer
	owner finalizer.Reference

	changes     []string
	applyErrors []string
	gcErrors    []string // deletions, releases and guard reads that failed
	inProgress  []string // deletions accepted and not finished, or waiting
}

// stampedByOwner is the Collect guard of a TenantSet: a stale Namespace is
// deleted only when the live one carries this set's own stamp (the same
// object and UID); any other is released, left to whoever is accountable for
// it. A namespace that cannot be read is kept.
func (p *tsPass) stampedByOwner(ctx context.Context, e inventory.Entry) (inventory.Action, string, error) {
	id := e.ID()
	if !id.IsNamespace() {
		return inventory.Delete, "", nil
	}
	l, err := p.w.getMeta(ctx, namespaceGVK, "", id.Name)
	if err != nil {
		p.gcErrors = append(p.gcErrors, fmt.Sprintf("%s: read: %v", id, err))
		return inventory.Keep, "", err
	}
	if !l.exists {
		return inventory.Delete, "", nil // the deleter confirms it
	}
	ref, ok, err := finalizer.StampedBy(l.annotations)
	switch {
	case err != nil:
		return inventory.Release, "its externalFinalizer annotation is not this TenantSet's stamp: " + err.Error(), nil
	case !ok:
		return inventory.Release, "not stamped by this TenantSet: its generator is accountable for it", nil
	case !sameObject(ref, p.owner):
		return inventory.Release, "stamped by " + ref.Object() + " (uid " + ref.UID + "), not by this TenantSet", nil
	}
	return inventory.Delete, "", nil
}

// sameObject reports whether two references name one object: the same
// group, kind, namespace, name and UID, whatever the version.
func sameObject(a, b finalizer.Reference) bool {
	return a.Group == b.Group && a.Kind == b.Kind && a.Namespace == b.Namespace && a.Name == b.Name && a.UID == b.UID
}

// prune deletes the Delete decisions in PruneStages order, recording each
// one's Result: within a stage in prune order (objects before their
// namespace), and a namespace only once every object in it that this pass
// deleted is gone. A stage that is not gone holds the next one back until a
// later pass, as flux-operator waits for its first stage.
func (p *tsPass) prune(ctx context.Context, decisions []inventory.Decision) {
	index := map[inventory.ID]int{}
	var deletions []inventory.Entry
	for i, d := range decisions {
		if d.Action == inventory.Delete {
			index[d.Entry.ID()] = i
			deletions = append(deletions, d.Entry)
		} else {
			p.changes = append(p.changes, d.String())
		}
	}
	pending := map[string]bool{} // namespaces holding an object not deleted in this pass
	blocked := false
	for _, stage := range inventory.PruneStages(deletions) {
		gone := true
		for _, e := range stage {
			d := &decisions[index[e.ID()]]
			if blocked {
				p.inProgress = append(p.inProgress, e.ID().String()+" waits for an earlier stage")
				p.changes = append(p.changes, e.ID().String()+" waiting (an earlier prune stage is not gone yet)")
				continue
			}
			p.delete(ctx, d, pending)
			if d.Result != inventory.Deleted && d.Result != inventory.PruningDisabled {
				gone = false
			}
		}
		blocked = blocked || !gone
	}
}

// delete carries out one Delete decision and sets its Result: Deleted once
// the API server says the object is gone; PruningDisabled when the live
// object disables its pruning (a namespace's stamp is released); or
// DeletionFailed. A deletion accepted but not finished (a Terminating
// namespace) leaves the Result zero: the entry stays tracked.
func (p *tsPass) delete(ctx context.Context, d *inventory.Decision, pending map[string]bool) {
	id := d.Entry.ID()
	defer func() {
		if d.Result != inventory.Deleted && id.Namespace != "" {
			pending[id.Namespace] = true
		}
	}()
	if id.IsNamespace() && pending[id.Name] {
		p.inProgress = append(p.inProgress, id.String()+" waits for the deletion of its objects")
		p.changes = append(p.changes, id.String()+" waiting (an object in it is not deleted yet)")
		return
	}
	gvk, err := p.w.gvk(d.Entry)
	if err != nil {
		p.failDelete(d, err)
		return
	}
	l, err := p.w.getMeta(ctx, gvk, id.Namespace, id.Name)
	if err != nil {
		p.failDelete(d, err)
		return
	}
	if l.exists && !l.terminating {
		if why := pruneDisabled(l.labels, l.annotations); why != "" {
			d.Reason = why
			if id.IsNamespace() {
				res, err := p.release(ctx, id.Name, l.annotations)
				if err != nil {
					p.failDelete(d, fmt.Errorf("%s; releasing its externalFinalizer stamp: %w", why, err))
					return
				}
				d.Reason += "; externalFinalizer stamp: " + res.String()
			}
			d.Result = inventory.PruningDisabled
			p.changes = append(p.changes, d.String())
			return
		}
	}
	res, err := p.w.delete(ctx, d.Entry)
	switch {
	case err != nil:
		p.failDelete(d, err)
	case res == deletionConfirmed:
		d.Result = inventory.Deleted
		p.changes = append(p.changes, d.String())
	default:
		p.inProgress = append(p.inProgress, id.String()+" is being deleted")
		p.changes = append(p.changes, id.String()+" deletion in progress (still tracked until the API server removes it)")
	}
}

func (p *tsPass) failDelete(d *inventory.Decision, err error) {
	d.Result, d.Reason = inventory.DeletionFailed, err.Error()
	p.gcErrors = append(p.gcErrors, d.String())
	p.changes = append(p.changes, d.String())
}

// release removes the namespace's externalFinalizer annotation when it
// names this set (finalizer.Release), with a JSON patch that tests the
// value it removes, so that it cannot undo a stamp made since the read.
// Another owner's stamp, or a recreated owner's, is left alone.
func (p *tsPass) release(ctx context.Context, namespace string, annotations map[string]string) (finalizer.ReleaseResult, error) {
	_, res, err := finalizer.Release(annotations, p.owner)
	if err != nil || res != finalizer.Released {
		return res, err
	}
	path := "/metadata/annotations/" + strings.NewReplacer("~", "~0", "/", "~1").Replace(finalizer.Annotation)
	patch, err := json.Marshal([]map[string]string{
		{"op": "test", "path": path, "value": annotations[finalizer.Annotation]},
		{"op": "remove", "path": path},
	})
	if err != nil {
		return res, err
	}
	obj := &metav1.PartialObjectMetadata{}
	obj.SetGroupVersionKind(namespaceGVK)
	obj.SetName(namespace)
	return res, p.w.c.Patch(ctx, obj, client.RawPatch(types.JSONPatchType, patch))
}

// pruneDisabled says where a live object disables its pruning with
// PruneLabel, or "".
func pruneDisabled(labels, annotations map[string]string) string {
	if strings.EqualFold(labels[PruneLabel], "disabled") {
		return "label " + PruneLabel + ": " + labels[PruneLabel]
	}
	if strings.EqualFold(annotations[PruneLabel], "disabled") {
		return "annotation " + PruneLabel + ": " + annotations[PruneLabel]
	}
	return ""
}

// outcome turns the pass into the status: the summary and Ready, worst
// problem first. The caller sets next.
func (p *tsPass) outcome(changes inventory.Changes, decisions []inventory.Decision, warnings []string, retry time.Duration) *outcome {
	s := &v1alpha1.PlanSummary{Create: len(changes.Create), Update: len(changes.Update), Unchanged: len(changes.Unchanged)}
	deleted, released := 0, 0
	for _, d := range decisions {
		switch d.Action {
		case inventory.Delete:
			s.Delete++
			switch d.Result {
			case inventory.Deleted:
				deleted++
			case inventory.PruningDisabled:
				released++
			}
		case inventory.Release:
			s.Release++
			released++
		case inventory.Keep:
			s.Keep++
		}
	}
	var cut [3]bool
	s.Changes, cut[0] = firstN(p.changes)
	s.Warnings, cut[1] = firstN(warnings)
	s.Errors, cut[2] = firstN(append(append([]string(nil), p.applyErrors...), p.gcErrors...))
	s.Truncated = cut[0] || cut[1] || cut[2]
	out := &outcome{summary: s}
	counts := fmt.Sprintf("%d created, %d configured, %d unchanged, %d deleted, %d released, %d kept",
		s.Create, s.Update, s.Unchanged, deleted, released, s.Keep)
	switch {
	case len(p.applyErrors) > 0:
		out.ready, out.reason = metav1.ConditionFalse, v1alpha1.ReasonApplyFailed
		out.message = fmt.Sprintf("%d apply(s) failed, so nothing was deleted: %s", len(p.applyErrors), joinFirst(p.applyErrors, 5))
		out.requeue = retry
	case len(p.gcErrors) > 0:
		out.ready, out.reason = metav1.ConditionFalse, v1alpha1.ReasonDeletionFailed
		out.message = fmt.Sprintf("%d deletion(s) failed: %s", len(p.gcErrors), joinFirst(p.gcErrors, 5))
		out.requeue = retry
	case len(p.inProgress) > 0:
		out.ready, out.reason = metav1.ConditionUnknown, v1alpha1.ReasonDeletionInProgress
		out.message = joinFirst(p.inProgress, 5) + "; " + counts
		out.requeue = retry
	default:
		out.ready, out.reason = metav1.ConditionTrue, v1alpha1.ReasonSucceeded
		out.message = counts
	}
	return out
}
