package reconciler

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"slices"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	"github.com/tenantkit/tenantkit/cel"
	"github.com/tenantkit/tenantkit/dirfs"
	"github.com/tenantkit/tenantkit/examples/controller/api/v1alpha1"
	"github.com/tenantkit/tenantkit/generator"
	"github.com/tenantkit/tenantkit/inventory"
)

// DefaultFieldManager is the field manager of every server-side apply.
const DefaultFieldManager = "tenantkit-controller"

// ResourceSetKind is flux-operator's ResourceSet, which the controller lets
// take a namespace's hand-off, as it lets the example's own TenantSet (see
// FinalizerKinds and Reconciler.Options).
var ResourceSetKind = schema.GroupKind{Group: "fluxcd.controlplane.io", Kind: "ResourceSet"}

// FinalizerKinds are the kinds that may take a namespace's hand-off by
// default: flux-operator's ResourceSet and the example's TenantSet, the
// objects that do delete the namespaces they finalize
// (generator.WithFinalizerKinds).
var FinalizerKinds = []schema.GroupKind{ResourceSetKind, v1alpha1.TenantSetGroupKind}

// Reconciler reconciles TenantGenerators. Set the exported fields, then
// call SetupWithManager, or Reconcile directly (the tests do).
type Reconciler struct {
	// Client reads TenantGenerators and writes their status, as the
	// controller itself (the manager's client).
	Client client.Client
	// Config is the controller's own REST config; namespace and artifact
	// writes go through a copy that impersonates the service account.
	Config *rest.Config
	// Scheme knows TenantGenerator (v1alpha1.AddToScheme).
	Scheme *runtime.Scheme
	// Recorder, when set, records a Warning event on every namespace that
	// a reconcile applies while adopting it (Adopted) or taking it
	// over from another generator (OwnershipConflict), and on every
	// ExternalArtifact it takes over (OwnershipConflict), with one summary
	// Warning on the TenantGenerator for each of the three that counts
	// them, as source-watcher does; main sets the manager's
	// (GetEventRecorder).
	Recorder events.EventRecorder
	// Mapper, when set, is shared by the impersonated clients (the
	// manager's), so that each reconcile does not rediscover the API.
	Mapper meta.RESTMapper

	// Sources maps each alias to a local directory (--source alias=DIR), as
	// if a source controller had extracted the artifact there.
	Sources map[string]string
	// DefaultServiceAccount is impersonated when spec.serviceAccountName is
	// empty (--default-service-account).
	DefaultServiceAccount string
	// FieldManager names the controller in managedFields;
	// DefaultFieldManager when empty.
	FieldManager string
	// Interval is how often a TenantGenerator is reconciled again to
	// correct drift and pick up source changes; zero: never.
	Interval time.Duration
	// RetryInterval is how soon a reconcile that left work undone (a
	// deletion in progress, a lookup refused, a write failed) runs again.
	RetryInterval time.Duration
	// Options are passed to generator.Compile after the controller's own
	// (WithUID, WithNamespace, WithDefaultServiceAccount, WithCache,
	// WithFinalizerKinds of FinalizerKinds), e.g. generator.WithMaxDeletions,
	// or a WithFinalizerKinds that allows other kinds. A spec is compiled
	// once per generation and kept, so set them before the first reconcile:
	// a change later is seen only by generations compiled after it.
	Options []generator.Option

	cacheOnce sync.Once
	cache     *cel.Cache // the CEL programs of every generator's spec
	specs     specs      // each generator's spec, compiled at its generation
}

// SetupWithManager registers the reconciler. Status writes do not trigger a
// reconcile (only a new generation does, or the intervals).
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager) error {
	if r.Mapper == nil {
		r.Mapper = mgr.GetRESTMapper()
	}
	return ctrl.NewControllerManagedBy(mgr).
		For(&v1alpha1.TenantGenerator{}, builder.WithPredicates(predicate.GenerationChangedPredicate{})).
		Named("tenantgenerator").
		Complete(r)
}

// outcome is what one reconcile did, for the status.
type outcome struct {
	ready    metav1.ConditionStatus
	reason   string
	message  string
	requeue  time.Duration
	summary  *v1alpha1.PlanSummary
	next     []inventory.Entry
	keepPrev bool // record the previous inventory unchanged
}

// Reconcile runs one pass (see the package documentation) and records it
// in the TenantGenerator's status.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var tg v1alpha1.TenantGenerator
	if err := r.Client.Get(ctx, req.NamespacedName, &tg); err != nil {
		if apierrors.IsNotFound(err) {
			// Gone: so is its compiled spec.
			r.specs.drop(req.NamespacedName)
		}
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if tg.DeletionTimestamp != nil {
		return r.finalize(ctx, &tg)
	}
	if !controllerutil.ContainsFinalizer(&tg, v1alpha1.Finalizer) {
		// Before anything is created: from now on, deleting the generator
		// waits until Finalize has cleaned up what it tracks.
		patch := client.MergeFromWithOptions(tg.DeepCopy(), client.MergeFromWithOptimisticLock{})
		controllerutil.AddFinalizer(&tg, v1alpha1.Finalizer)
		if err := r.Client.Patch(ctx, &tg, patch); err != nil {
			return ctrl.Result{}, client.IgnoreNotFound(err)
		}
	}
	out, err := r.reconcile(ctx, &tg)
	if err != nil {
		return ctrl.Result{}, err
	}
	if err := r.writeStatus(ctx, &tg, out); err != nil {
		return ctrl.Result{}, err
	}
	res := ctrl.Result{RequeueAfter: r.Interval}
	if out.requeue > 0 {
		res.RequeueAfter = out.requeue
	}
	return res, nil
}

func (r *Reconciler) fieldManager() client.FieldOwner {
	if r.FieldManager == "" {
		return DefaultFieldManager
	}
	return client.FieldOwner(r.FieldManager)
}

func (r *Reconciler) retry() time.Duration {
	if r.RetryInterval > 0 {
		return r.RetryInterval
	}
	return 30 * time.Second
}

func failed(reason, format string, args ...any) *outcome {
	return &outcome{ready: metav1.ConditionFalse, reason: reason, message: fmt.Sprintf(format, args...), keepPrev: true}
}

// toSpec converts the API's spec to the generator's: the fields have the
// same JSON names (both are the ArtifactGenerator's).
func toSpec(s v1alpha1.TenantGeneratorSpec) (generator.Spec, error) {
	data, err := json.Marshal(s)
	if err != nil {
		return generator.Spec{}, err
	}
	var out generator.Spec
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&out); err != nil {
		return generator.Spec{}, err
	}
	return out, nil
}

// compiled is the generator compiled from the spec's generation (see
// [specs]), with the client that reads and writes as its service account.
type compiled struct {
	g *generator.Generator
	c client.Client
}

// compile checks the service account, compiles the spec (or takes it from
// the cache, when this generation was compiled before) and builds the
// client: the first steps of a reconcile and of a finalize. A non-nil
// outcome says why it could not.
func (r *Reconciler) compile(tg *v1alpha1.TenantGenerator) (*compiled, *outcome) {
	r.cacheOnce.Do(func() { r.cache = cel.NewCache(256) })

	// 1. A service account to act as. Namespace management without one is
	// refused here, before anything is read or planned.
	sa := tg.Spec.ServiceAccountName
	if sa == "" {
		sa = r.DefaultServiceAccount
	}
	if sa == "" && tg.Spec.ManagesNamespaces() {
		return nil, failed(v1alpha1.ReasonNoServiceAccount,
			"managing namespaces requires a service account to impersonate: set spec.serviceAccountName, or start the controller with --default-service-account")
	}

	// 2. Compile, once per generation (see [specs]).
	g, bad := r.compiledSpec(tg)
	if bad != nil {
		return nil, bad
	}

	// 3. The client for the plan's reads and for the writes: the service
	// account's; or, for a generator that manages no namespaces and names
	// no account, the controller's own (uncached, as source-watcher writes
	// its artifacts; its RBAC must then allow ExternalArtifacts).
	var c client.Client
	var err error
	if sa != "" {
		c, err = r.impersonatedClient(tg.Namespace, sa)
	} else {
		c, err = client.New(r.Config, client.Options{Scheme: r.Scheme, Mapper: r.Mapper})
	}
	if err != nil {
		return nil, failed(v1alpha1.ReasonInvalidSpec, "spec.serviceAccountName: %v", err)
	}
	return &compiled{g: g, c: c}, nil
}

// compiledSpec returns the generator compiled from tg's spec at its
// generation, compiling it only when the cache holds no entry for that
// generation (see [specs]); a failure, held as well, is returned as an
// InvalidSpec outcome.
func (r *Reconciler) compiledSpec(tg *v1alpha1.TenantGenerator) (*generator.Generator, *outcome) {
	key := client.ObjectKeyFromObject(tg)
	e := r.specs.get(key, tg.UID, tg.Generation, r.DefaultServiceAccount)
	if e == nil {
		e = r.compileSpec(tg)
		r.specs.put(key, e)
	}
	if e.g == nil {
		return nil, failed(e.reason, "%s", e.message)
	}
	return e.g, nil
}

// compileSpec converts and compiles tg's spec with the controller's options.
func (r *Reconciler) compileSpec(tg *v1alpha1.TenantGenerator) *specEntry {
	r.specs.compiles.Add(1)
	e := &specEntry{uid: tg.UID, generation: tg.Generation, defaultSA: r.DefaultServiceAccount}
	spec, err := toSpec(tg.Spec)
	if err != nil {
		e.reason, e.message = v1alpha1.ReasonInvalidSpec, fmt.Sprintf("spec: %v", err)
		return e
	}
	opts := []generator.Option{
		generator.WithUID(string(tg.UID)),
		generator.WithNamespace(tg.Namespace),
		generator.WithCache(r.cache),
		// Only a ResourceSet or a TenantSet may take a namespace's
		// hand-off. Whoever may annotate a namespace could otherwise name
		// any object that outlives it (a ConfigMap in another namespace,
		// ClusterRole "admin") as its external finalizer, and keep it for
		// ever.
		generator.WithFinalizerKinds(FinalizerKinds...),
	}
	if r.DefaultServiceAccount != "" {
		opts = append(opts, generator.WithDefaultServiceAccount(r.DefaultServiceAccount))
	}
	g, errs := generator.Compile(spec, append(opts, r.Options...)...)
	if len(errs) > 0 {
		e.reason, e.message = v1alpha1.ReasonInvalidSpec, errs.ToAggregate().Error()
		return e
	}
	e.g = g
	return e
}

func (r *Reconciler) reconcile(ctx context.Context, tg *v1alpha1.TenantGenerator) (*outcome, error) {
	logger := log.FromContext(ctx)
	cg, bad := r.compile(tg)
	if bad != nil {
		return bad, nil
	}

	// 4. Sources: each alias of the spec must have its directory.
	// They are opened with dirfs, whose opens never follow a symbolic link
	// (nor leave the directory): a tenant's path through a link is an error
	// for that tenant, even when the tree changes while the plan reads it.
	sources := map[string]fs.FS{}
	for _, s := range tg.Spec.Sources {
		dir, ok := r.Sources[s.Alias]
		if !ok {
			return failed(v1alpha1.ReasonSourceUnavailable, "no directory for source alias %q: start the controller with --source %s=DIR", s.Alias, s.Alias), nil
		}
		fsys, err := dirfs.Open(dir)
		if err != nil {
			return failed(v1alpha1.ReasonSourceUnavailable, "source %q: %v; nothing was applied or deleted", s.Alias, err), nil
		}
		defer fsys.Close()
		sources[s.Alias] = fsys
	}
	k := &cluster{c: cg.c}

	// 5. Plan.
	plan, err := cg.g.Plan(ctx, sources, tg.Status.Inventory, k.generatorCluster())
	if err != nil {
		return nil, err // the context ended
	}

	// 6. Apply and delete.
	w := &writer{c: cg.c, owner: r.fieldManager(), gen: tg}
	a := r.apply(ctx, w, plan)
	out := a.outcome(plan, k.failures(), r.retry())
	for _, line := range out.summary.Changes {
		logger.Info(line)
	}
	return out, nil
}

// writeStatus records the outcome: Ready, and Reconciling or Stalled. It
// patches, so that a spec change made meanwhile is not overwritten, and
// only when the status changed.
func (r *Reconciler) writeStatus(ctx context.Context, tg *v1alpha1.TenantGenerator, out *outcome) error {
	before := tg.DeepCopy()
	st := &tg.Status
	out.record(tg.Generation, &st.ObservedGeneration, &st.Inventory, &st.LastPlan, &st.Conditions)
	switch {
	case out.ready == metav1.ConditionTrue:
		meta.RemoveStatusCondition(&tg.Status.Conditions, v1alpha1.ConditionReconciling)
		meta.RemoveStatusCondition(&tg.Status.Conditions, v1alpha1.ConditionStalled)
	case out.reason == v1alpha1.ReasonInvalidSpec || out.reason == v1alpha1.ReasonNoServiceAccount:
		meta.RemoveStatusCondition(&tg.Status.Conditions, v1alpha1.ConditionReconciling)
		meta.SetStatusCondition(&tg.Status.Conditions, metav1.Condition{
			Type:               v1alpha1.ConditionStalled,
			Status:             metav1.ConditionTrue,
			Reason:             out.reason,
			Message:            truncate(out.message, 32<<10),
			ObservedGeneration: tg.Generation,
		})
	default:
		meta.RemoveStatusCondition(&tg.Status.Conditions, v1alpha1.ConditionStalled)
		meta.SetStatusCondition(&tg.Status.Conditions, metav1.Condition{
			Type:               v1alpha1.ConditionReconciling,
			Status:             metav1.ConditionTrue,
			Reason:             v1alpha1.ReasonProgressingWithRetry,
			Message:            truncate(out.message, 32<<10),
			ObservedGeneration: tg.Generation,
		})
	}
	if equality.Semantic.DeepEqual(before.Status, tg.Status) {
		// Nothing new to say: a reconcile that changed nothing writes
		// nothing.
		return nil
	}
	return r.Client.Status().Patch(ctx, tg, client.MergeFrom(before))
}

// record writes into a status what every kind records of out: the
// generation observed, the inventory (unless the previous one is kept),
// the plan's summary when there is one, and Ready.
func (out *outcome) record(generation int64, observed *int64, inv *[]inventory.Entry, lastPlan **v1alpha1.PlanSummary, conditions *[]metav1.Condition) {
	*observed = generation
	if !out.keepPrev {
		*inv = out.next
	}
	if out.summary != nil {
		*lastPlan = out.summary
	}
	meta.SetStatusCondition(conditions, metav1.Condition{
		Type:               v1alpha1.ConditionReady,
		Status:             out.ready,
		Reason:             out.reason,
		Message:            truncate(out.message, 32<<10),
		ObservedGeneration: generation,
	})
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}

// firstN returns at most v1alpha1.MaxListed strings, and whether it cut.
func firstN(s []string) ([]string, bool) {
	if len(s) > v1alpha1.MaxListed {
		return slices.Clone(s[:v1alpha1.MaxListed]), true
	}
	return slices.Clone(s), false
}
