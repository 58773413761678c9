package reconciler

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/tenantkit/tenantkit/examples/controller/api/v1alpha1"
)

// finalize runs when the TenantGenerator is being deleted: generator.Finalize
// plans the teardown of its inventory (artifacts deleted; namespaces
// deleted only when managed and pruned, else released), the Delete
// decisions are carried out in order, and Plan.Next of the confirmed ones
// becomes status.inventory. The finalizer goes only when that is empty;
// otherwise the reconcile is requeued and finalizes again from it.
// Sources are not read: a teardown needs none.
func (r *Reconciler) finalize(ctx context.Context, tg *v1alpha1.TenantGenerator) (ctrl.Result, error) {
	if !controllerutil.ContainsFinalizer(tg, v1alpha1.Finalizer) {
		return ctrl.Result{}, nil
	}
	// With nothing tracked there is nothing to tear down: not even the spec
	// is needed (one that never compiled, or names no service account,
	// must not keep the object for ever).
	if len(tg.Status.Inventory) > 0 {
		out, err := r.teardown(ctx, tg)
		if err != nil {
			return ctrl.Result{}, err
		}
		if err := r.writeStatus(ctx, tg, out); err != nil {
			return ctrl.Result{}, client.IgnoreNotFound(err)
		}
		if out.keepPrev || len(out.next) > 0 {
			return ctrl.Result{RequeueAfter: r.retry()}, nil
		}
	}
	patch := client.MergeFromWithOptions(tg.DeepCopy(), client.MergeFromWithOptimisticLock{})
	controllerutil.RemoveFinalizer(tg, v1alpha1.Finalizer)
	if err := r.Client.Patch(ctx, tg, patch); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	// The generator is on its way out and will not be compiled again.
	r.specs.drop(client.ObjectKeyFromObject(tg))
	return ctrl.Result{}, nil
}

func (r *Reconciler) teardown(ctx context.Context, tg *v1alpha1.TenantGenerator) (*outcome, error) {
	cg, bad := r.compile(tg)
	if bad != nil {
		// The generator cannot tell what it may delete: keep everything,
		// and the finalizer, until the spec is fixed.
		bad.requeue = r.retry()
		return bad, nil
	}
	k := &cluster{c: cg.c}
	plan, err := cg.g.Finalize(ctx, tg.Status.Inventory, k.generatorCluster())
	if err != nil {
		return nil, err // the context ended
	}
	w := &writer{c: cg.c, owner: r.fieldManager(), gen: tg}
	a := r.apply(ctx, w, plan)
	out := a.outcome(plan, k.failures(), r.retry())
	for _, line := range out.summary.Changes {
		log.FromContext(ctx).Info(line)
	}
	if len(out.next) > 0 && out.ready == metav1.ConditionTrue {
		// Nothing failed, but something survives (a namespace that another
		// generator's ExternalArtifact keeps): not done.
		var left []string
		for _, e := range out.next {
			left = append(left, e.ID().String())
		}
		out.ready, out.reason = metav1.ConditionUnknown, v1alpha1.ReasonFinalizing
		out.message = fmt.Sprintf("the generator is deleted; %d object(s) left before its finalizer is removed: %s", len(left), joinFirst(left, 5))
		out.requeue = r.retry()
	}
	return out, nil
}
