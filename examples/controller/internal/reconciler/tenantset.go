package reconciler

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	"github.com/tenantkit/tenantkit/examples/controller/api/v1alpha1"
	"github.com/tenantkit/tenantkit/finalizer"
	"github.com/tenantkit/tenantkit/generator"
	"github.com/tenantkit/tenantkit/inventory"
)

// DefaultTenantSetFieldManager is the field manager of a TenantSet's
// server-side applies.
const DefaultTenantSetFieldManager = "tenantkit-tenantset"

// TenantSetReference is the externalFinalizer reference of ts, which it
// stamps on its namespaces and a release looks for: TenantSet's group,
// version and kind, named since an object read through a typed client has
// an empty GroupVersionKind, and ts's UID, which tells it from one
// recreated under the same name. Check it with its Validate.
func TenantSetReference(ts *v1alpha1.TenantSet) finalizer.Reference {
	return finalizer.Reference{Group: v1alpha1.GroupVersion.Group, Version: v1alpha1.GroupVersion.Version,
		Kind: v1alpha1.TenantSetKind, Namespace: ts.Namespace, Name: ts.Name, UID: string(ts.UID)}
}

// TenantSetReconciler reconciles TenantSets: the example's minimal
// ResourceSet-like half of the combo (see the package documentation,
// "TenantSet"). Set the exported fields, then call SetupWithManager, or
// Reconcile directly (the tests do).
type TenantSetReconciler struct {
	// Client reads TenantSets and writes their status and finalizer, as
	// the controller itself (the manager's client).
	Client client.Client
	// Config is the controller's own REST config; every other read and
	// write goes through a copy that impersonates the set's service
	// account.
	Config *rest.Config
	// Scheme knows TenantSet (v1alpha1.AddToScheme) and the core types.
	Scheme *runtime.Scheme
	// Mapper, when set, is shared by the impersonated clients.
	Mapper meta.RESTMapper
	// DefaultServiceAccount is impersonated when spec.serviceAccountName is
	// empty (--default-service-account).
	DefaultServiceAccount string
	// FieldManager names the set in managedFields;
	// DefaultTenantSetFieldManager when empty.
	FieldManager string
	// Interval is how often a TenantSet is reconciled again, to pick up
	// ExternalArtifacts that came, changed or went; zero: never.
	Interval time.Duration
	// RetryInterval is how soon a reconcile that left work undone runs
	// again.
	RetryInterval time.Duration
}

// SetupWithManager registers the reconciler. Status writes do not trigger a
// reconcile; ExternalArtifacts are read again every Interval, as a
// ResourceSetInputProvider polls.
func (r *TenantSetReconciler) SetupWithManager(mgr ctrl.Manager) error {
	if r.Mapper == nil {
		r.Mapper = mgr.GetRESTMapper()
	}
	return ctrl.NewControllerManagedBy(mgr).
		For(&v1alpha1.TenantSet{}, builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		Named("tenantset").
		Complete(r)
}

func (r *TenantSetReconciler) fieldManager() client.FieldOwner {
	if r.FieldManager == "" {
		return DefaultTenantSetFieldManager
	}
	return client.FieldOwner(r.FieldManager)
}

func (r *TenantSetReconciler) retry() time.Duration {
	if r.RetryInterval > 0 {
		return r.RetryInterval
	}
	return 30 * time.Second
}

// Reconcile runs one pass, or one step of the teardown of a deleted set,
// and records it in the TenantSet's status.
func (r *TenantSetReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var ts v1alpha1.TenantSet
	if err := r.Client.Get(ctx, req.NamespacedName, &ts); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	// The reference that the set stamps on its namespaces, and that a
	// release looks for.
	owner := TenantSetReference(&ts)
	if err := owner.Validate(); err != nil {
		return ctrl.Result{}, err // a stored object always has a name and a UID
	}
	if ts.DeletionTimestamp != nil {
		return r.finalize(ctx, &ts, owner)
	}
	if !controllerutil.ContainsFinalizer(&ts, v1alpha1.Finalizer) {
		patch := client.MergeFromWithOptions(ts.DeepCopy(), client.MergeFromWithOptimisticLock{})
		controllerutil.AddFinalizer(&ts, v1alpha1.Finalizer)
		if err := r.Client.Patch(ctx, &ts, patch); err != nil {
			return ctrl.Result{}, client.IgnoreNotFound(err)
		}
	}
	out := r.reconcile(ctx, &ts, owner)
	if err := r.writeStatus(ctx, &ts, out); err != nil {
		return ctrl.Result{}, err
	}
	res := ctrl.Result{RequeueAfter: r.Interval}
	if out.requeue > 0 {
		res.RequeueAfter = out.requeue
	}
	return res, nil
}

// client returns the client of the set's service account, or the outcome
// that says why there is none.
func (r *TenantSetReconciler) client(ts *v1alpha1.TenantSet) (client.Client, *outcome) {
	sa := ts.Spec.ServiceAccountName
	if sa == "" {
		sa = r.DefaultServiceAccount
	}
	if sa == "" {
		return nil, failed(v1alpha1.ReasonNoServiceAccount,
			"a TenantSet acts as a service account: set spec.serviceAccountName, or start the controller with --default-service-account")
	}
	c, err := impersonate(r.Config, r.Scheme, r.Mapper, ts.Namespace, sa)
	if err != nil {
		return nil, failed(v1alpha1.ReasonInvalidSpec, "spec.serviceAccountName: %v", err)
	}
	return c, nil
}

// reconcile is one pass: inputs, render, apply, garbage-collect.
func (r *TenantSetReconciler) reconcile(ctx context.Context, ts *v1alpha1.TenantSet, owner finalizer.Reference) *outcome {
	c, bad := r.client(ts)
	if bad != nil {
		return bad
	}
	sel, err := metav1.LabelSelectorAsSelector(&ts.Spec.Selector)
	if err == nil && sel.Empty() {
		err = fmt.Errorf("must select by at least one label")
	}
	if err != nil {
		return failed(v1alpha1.ReasonInvalidSpec, "spec.selector: %v", err)
	}

	// 1. Inputs: the selected ExternalArtifacts, each one's exported inputs
	// with the provider's own on top.
	arts, err := listArtifacts(ctx, c, sel)
	if err != nil {
		return failed(v1alpha1.ReasonListFailed, "%v; nothing was applied or deleted", err)
	}
	sets, errs := generator.ProviderInputs(arts)
	if len(errs) > 0 {
		return failed(v1alpha1.ReasonInvalidInputs, "%v; nothing was applied or deleted", errs.ToAggregate())
	}

	// 2. Render: per input set a ConfigMap, and the tenant's Namespace,
	// stamped.
	objs, warnings, errs := render(sets, owner)
	if len(errs) > 0 {
		return failed(v1alpha1.ReasonInvalidInputs, "%v; nothing was applied or deleted", errs.ToAggregate())
	}
	desired := make([]inventory.Entry, 0, len(objs))
	byID := make(map[inventory.ID]renderedObject, len(objs))
	for _, o := range objs {
		desired = append(desired, o.entry)
		byID[o.entry.ID()] = o
	}
	previous := ts.Status.Inventory
	changes, errs := inventory.Diff(previous, desired)
	if len(errs) > 0 {
		// Planning reads the inventory strictly: one that cannot be read
		// whole changes nothing (a teardown reads it leniently).
		return failed(v1alpha1.ReasonInvalidInventory, "%v; nothing was applied or deleted", errs.ToAggregate())
	}

	// 3. Apply, in apply order (the Namespace before the ConfigMap in it).
	w := &writer{c: c, owner: r.fieldManager()}
	p := &tsPass{w: w, owner: owner}
	var applied []inventory.Entry
	for _, d := range changes.Decisions() {
		if err := w.c.Apply(ctx, byID[d.Entry.ID()].apply, w.owner, client.ForceOwnership); err != nil {
			p.applyErrors = append(p.applyErrors, fmt.Sprintf("%s: apply: %v", d.Entry.ID(), err))
			continue
		}
		applied = append(applied, d.Entry)
		if d.Action != inventory.Unchanged {
			p.changes = append(p.changes, d.String())
		}
	}
	// What is applied is tracked before anything is deleted, as
	// flux-operator records the union of the previous inventory and what
	// it applied: an apply that fails half way, or a crash before the
	// status is written, leaves nothing it applied untracked.
	union := inventory.Union(previous, applied, inventory.SortApply)
	if len(p.applyErrors) > 0 {
		out := p.outcome(changes, nil, warnings, r.retry())
		out.next = union
		return out
	}
	if !equality.Semantic.DeepEqual(union, previous) {
		if err := r.patchInventory(ctx, ts, union); err != nil {
			return failed(v1alpha1.ReasonApplyFailed, "recording the applied objects: %v", err)
		}
	}

	// 4. Garbage collection: the stale objects, in PruneStages order.
	decisions, err := inventory.Collect(ctx, changes,
		inventory.WithNamespacePrune(),
		// A ResourceSet deletes everything it rendered when its inputs
		// are gone; the generator guards against an empty source.
		inventory.WithAllowDeleteAll(),
		inventory.WithGuard(p.stampedByOwner))
	if err != nil {
		return failed(v1alpha1.ReasonDeletionFailed, "%v; nothing was deleted", err)
	}
	p.prune(ctx, decisions)
	out := p.outcome(changes, decisions, warnings, r.retry())
	out.next = inventory.Next(desired, decisions, nil)
	for _, line := range out.summary.Changes {
		log.FromContext(ctx).Info(line)
	}
	return out
}

// listArtifacts lists the selected ExternalArtifacts in every namespace and
// returns what ProviderInputs reads of each.
func listArtifacts(ctx context.Context, c client.Client, sel labels.Selector) ([]generator.ExternalArtifactInputs, error) {
	list := &unstructured.UnstructuredList{}
	list.SetGroupVersionKind(artifactGVK.GroupVersion().WithKind(artifactGVK.Kind + "List"))
	if err := c.List(ctx, list, client.MatchingLabelsSelector{Selector: sel}); err != nil {
		return nil, fmt.Errorf("listing ExternalArtifacts: %w", err)
	}
	out := make([]generator.ExternalArtifactInputs, 0, len(list.Items))
	for _, u := range list.Items {
		a := generator.ExternalArtifactInputs{Namespace: u.GetNamespace(), Name: u.GetName(), Labels: u.GetLabels()}
		a.Revision, _, _ = unstructured.NestedString(u.Object, "status", "artifact", "revision")
		// The unstructured object decoded the field already; its JSON is
		// checked as it was kept (see generator.ReadExportedInputs).
		if v, found, _ := unstructured.NestedFieldNoCopy(u.Object, "status", "exportedInputs"); found {
			data, err := json.Marshal(v)
			if err != nil {
				return nil, fmt.Errorf("ExternalArtifact %s/%s: status.exportedInputs: %w", a.Namespace, a.Name, err)
			}
			a.ExportedInputs = data
		}
		out = append(out, a)
	}
	return out, nil
}

// patchInventory records entries as the status inventory, and nothing else.
func (r *TenantSetReconciler) patchInventory(ctx context.Context, ts *v1alpha1.TenantSet, entries []inventory.Entry) error {
	before := ts.DeepCopy()
	ts.Status.Inventory = entries
	return r.Client.Status().Patch(ctx, ts, client.MergeFrom(before))
}

// finalize runs once the TenantSet is deleted: every object it tracks is
// deleted in order, objects before their namespace, a namespace only when
// the set's own stamp is on it; a namespace whose pruning is disabled is
// released (its stamp removed) and kept. The finalizer goes once nothing is
// tracked; until then the reconcile is requeued.
func (r *TenantSetReconciler) finalize(ctx context.Context, ts *v1alpha1.TenantSet, owner finalizer.Reference) (ctrl.Result, error) {
	if !controllerutil.ContainsFinalizer(ts, v1alpha1.Finalizer) {
		return ctrl.Result{}, nil
	}
	if len(ts.Status.Inventory) > 0 {
		out := r.teardown(ctx, ts, owner)
		if err := r.writeStatus(ctx, ts, out); err != nil {
			return ctrl.Result{}, client.IgnoreNotFound(err)
		}
		if out.keepPrev || len(out.next) > 0 {
			return ctrl.Result{RequeueAfter: r.retry()}, nil
		}
	}
	patch := client.MergeFromWithOptions(ts.DeepCopy(), client.MergeFromWithOptimisticLock{})
	controllerutil.RemoveFinalizer(ts, v1alpha1.Finalizer)
	return ctrl.Result{}, client.IgnoreNotFound(r.Client.Patch(ctx, ts, patch))
}

func (r *TenantSetReconciler) teardown(ctx context.Context, ts *v1alpha1.TenantSet, owner finalizer.Reference) *outcome {
	c, bad := r.client(ts)
	if bad != nil {
		bad.requeue = r.retry()
		return bad
	}
	// Cleaning up reads the inventory leniently: an entry that does not
	// validate (or an ID listed twice) must not keep the set from deleting
	// the others, nor its finalizer for ever. What it leaves out is no
	// longer tracked, and said so.
	data, err := json.Marshal(ts.Status.Inventory)
	if err != nil {
		return failed(v1alpha1.ReasonInvalidInventory, "%v", err)
	}
	entries, dropped, err := inventory.UnmarshalLenient(data)
	if err != nil {
		return failed(v1alpha1.ReasonInvalidInventory, "%v", err)
	}
	var warnings []string
	for _, e := range dropped {
		warnings = append(warnings, "status.inventory"+e.Error()+": no longer tracked, left as it is")
	}
	changes, errs := inventory.Diff(entries, nil)
	if len(errs) > 0 {
		return failed(v1alpha1.ReasonInvalidInventory, "%v", errs.ToAggregate())
	}
	p := &tsPass{w: &writer{c: c, owner: r.fieldManager()}, owner: owner}
	decisions, err := inventory.Collect(ctx, changes,
		inventory.WithNamespacePrune(), inventory.WithAllowDeleteAll(), inventory.WithGuard(p.stampedByOwner))
	if err != nil {
		return failed(v1alpha1.ReasonDeletionFailed, "%v; nothing was deleted", err)
	}
	p.prune(ctx, decisions)
	out := p.outcome(changes, decisions, warnings, r.retry())
	out.next = inventory.Next(nil, decisions, nil)
	if len(out.next) > 0 && out.ready == metav1.ConditionTrue {
		out.ready, out.reason = metav1.ConditionUnknown, v1alpha1.ReasonFinalizing
		out.message = fmt.Sprintf("the TenantSet is deleted; %d object(s) left before its finalizer is removed", len(out.next))
		out.requeue = r.retry()
	}
	for _, line := range out.summary.Changes {
		log.FromContext(ctx).Info(line)
	}
	return out
}

// writeStatus records the outcome and Ready, patching only when the status
// changed.
func (r *TenantSetReconciler) writeStatus(ctx context.Context, ts *v1alpha1.TenantSet, out *outcome) error {
	before := ts.DeepCopy()
	st := &ts.Status
	out.record(ts.Generation, &st.ObservedGeneration, &st.Inventory, &st.LastPlan, &st.Conditions)
	if equality.Semantic.DeepEqual(before.Status, ts.Status) {
		return nil
	}
	return r.Client.Status().Patch(ctx, ts, client.MergeFrom(before))
}
