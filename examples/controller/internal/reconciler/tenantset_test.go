package reconciler_test

import (
	"encoding/json"
	"hash/adler32"
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	"github.com/tenantkit/tenantkit/examples/controller/api/v1alpha1"
	"github.com/tenantkit/tenantkit/examples/controller/internal/reconciler"
	"github.com/tenantkit/tenantkit/finalizer"
	"github.com/tenantkit/tenantkit/generator"
	"github.com/tenantkit/tenantkit/inventory"
)

// tenantSet is the TenantSet "tenants" beside a fixture's TenantGenerator,
// in its namespace, acting as the service account "tenant-set" (bound to
// the tenant-set role) and selecting the fixture's ExternalArtifacts by
// the generator's common label.
type tenantSet struct {
	f   *fixture
	r   *reconciler.TenantSetReconciler
	key types.NamespacedName
}

// comboFixture is a fixture whose generator is compiled as the controller
// compiles it (reconciler.FinalizerKinds: a TenantSet may take the
// hand-off), with its TenantSet created.
func comboFixture(t *testing.T, prefix string) (*fixture, *tenantSet) {
	t.Helper()
	f := newFixture(t, prefix, withReconciler(func(r *reconciler.Reconciler) { r.Options = nil }))
	f.must(admin.Create(f.ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: f.key.Namespace, Name: tenantSetAccount}}))
	f.must(admin.Create(f.ctx, &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: f.key.Namespace + "-" + tenantSetAccount},
		RoleRef:    rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: tenantSetRole},
		Subjects:   []rbacv1.Subject{{Kind: "ServiceAccount", Namespace: f.key.Namespace, Name: tenantSetAccount}},
	}))
	s := &tenantSet{f: f, key: types.NamespacedName{Namespace: f.key.Namespace, Name: "tenants"}, r: &reconciler.TenantSetReconciler{
		Client:        controller,
		Config:        controllerCfg,
		Scheme:        scheme,
		RetryInterval: 7 * time.Second,
	}}
	s.create()
	return f, s
}

// create creates the TenantSet (again, after a deletion: with a new UID).
func (s *tenantSet) create() {
	s.f.t.Helper()
	s.f.must(admin.Create(s.f.ctx, &v1alpha1.TenantSet{
		ObjectMeta: metav1.ObjectMeta{Namespace: s.key.Namespace, Name: s.key.Name},
		Spec: v1alpha1.TenantSetSpec{
			ServiceAccountName: tenantSetAccount,
			Selector:           metav1.LabelSelector{MatchLabels: map[string]string{"tenantkit.dev/fixture": s.f.prefix}},
		},
	}))
}

// get returns the TenantSet, or nil once it is gone.
func (s *tenantSet) get() *v1alpha1.TenantSet {
	s.f.t.Helper()
	ts := &v1alpha1.TenantSet{}
	if err := admin.Get(s.f.ctx, s.key, ts); err != nil {
		if apierrors.IsNotFound(err) {
			return nil
		}
		s.f.t.Fatal(err)
	}
	return ts
}

// reconcile runs one reconcile and returns its result and the TenantSet as
// it is afterwards, nil once it is gone.
func (s *tenantSet) reconcile() (ctrl.Result, *v1alpha1.TenantSet) {
	s.f.t.Helper()
	res, err := s.r.Reconcile(s.f.ctx, ctrl.Request{NamespacedName: s.key})
	if err != nil {
		s.f.t.Fatalf("reconcile TenantSet: %v", err)
	}
	return res, s.get()
}

// owner is the reference the TenantSet stamps: its kind and its UID.
func (s *tenantSet) owner(ts *v1alpha1.TenantSet) finalizer.Reference {
	s.f.t.Helper()
	ref := reconciler.TenantSetReference(ts)
	s.f.must(ref.Validate())
	return ref
}

func tsReady(ts *v1alpha1.TenantSet) metav1.Condition {
	if c := meta.FindStatusCondition(ts.Status.Conditions, v1alpha1.ConditionReady); c != nil {
		return *c
	}
	return metav1.Condition{}
}

func tsSubjects(ts *v1alpha1.TenantSet) []string {
	var out []string
	for _, e := range ts.Status.Inventory {
		out = append(out, e.ID().String())
	}
	return out
}

// tsChange returns the index of the TenantSet's first change line that
// starts with prefix, or -1.
func tsChange(ts *v1alpha1.TenantSet, prefix string) int {
	if ts.Status.LastPlan == nil {
		return -1
	}
	return slices.IndexFunc(ts.Status.LastPlan.Changes, func(s string) bool { return strings.HasPrefix(s, prefix) })
}

// change returns the generator's change line that starts with prefix, or "".
func change(tg *v1alpha1.TenantGenerator, prefix string) string {
	if tg.Status.LastPlan == nil {
		return ""
	}
	for _, s := range tg.Status.LastPlan.Changes {
		if strings.HasPrefix(s, prefix) {
			return s
		}
	}
	return ""
}

// liveConfigMap returns the live ConfigMap, or nil.
func (f *fixture) liveConfigMap(namespace, name string) *corev1.ConfigMap {
	f.t.Helper()
	cm := &corev1.ConfigMap{}
	if err := admin.Get(f.ctx, client.ObjectKey{Namespace: namespace, Name: name}, cm); err != nil {
		if apierrors.IsNotFound(err) {
			return nil
		}
		f.t.Fatal(err)
	}
	return cm
}

// hold sets a finalizer of its own on a live object, or removes it, as
// another controller would: while it is there, a deletion is accepted but
// not finished.
func (f *fixture) hold(obj client.Object, on bool) {
	f.t.Helper()
	f.must(admin.Get(f.ctx, client.ObjectKeyFromObject(obj), obj))
	patch := client.MergeFrom(obj.DeepCopyObject().(client.Object))
	if on {
		controllerutil.AddFinalizer(obj, "tenantkit.dev/hold")
	} else {
		controllerutil.RemoveFinalizer(obj, "tenantkit.dev/hold")
	}
	f.must(admin.Patch(f.ctx, obj, patch))
}

// stamp returns who stamped the live namespace, failing on a malformed
// stamp; the zero Reference when there is none.
func (f *fixture) stamp(name string) finalizer.Reference {
	f.t.Helper()
	ns := f.namespace(name)
	if ns == nil {
		f.t.Fatalf("namespace %s not found", name)
	}
	ref, _, err := finalizer.StampedBy(ns.Annotations)
	f.must(err)
	return ref
}

// The combo on the API server: a monorepo, the generator (namespaces and
// ExternalArtifacts with exported inputs), a TenantSet that selects the
// artifacts by the generator's common label and renders per tenant a
// ConfigMap of the merged inputs and the stamped Namespace; a tenant
// removed (the generator hands its namespace off, the TenantSet deletes
// its ConfigMap, then the namespace, and nothing is left); the TenantSet
// recreated with a new UID while a stale stamp names the old one (the
// generator is accountable again, and says why).
func TestTenantSetCombo(t *testing.T) {
	t.Parallel()
	f, s := comboFixture(t, "cb")
	// "name" is also one of the provider's own inputs, which win.
	f.tenant("cb-a", "app", "replicas: 2\nname: hijacked\nimage: {tag: v1}\n")
	f.tenant("cb-b", "app", "replicas: 1\n")
	f.tenant("cb-c", "app", "")

	// The generator: namespaces, and artifacts with exported inputs.
	_, tg := f.reconcile()
	if c := ready(tg); c.Status != metav1.ConditionTrue {
		t.Fatalf("generator Ready = %s/%s: %s", c.Status, c.Reason, c.Message)
	}
	art := f.artifact("cb-a", "app")
	exported, _, _ := unstructured.NestedMap(art.Object, "status", "exportedInputs")
	if diff := cmp.Diff(map[string]any{"replicas": int64(2), "name": "hijacked", "image": map[string]any{"tag": "v1"}}, exported); diff != "" {
		t.Fatalf("exportedInputs of cb-a/app (-want +got):\n%s", diff)
	}

	// The TenantSet selects them, merges, renders, stamps and applies.
	_, ts := s.reconcile()
	if c := tsReady(ts); c.Status != metav1.ConditionTrue || c.Reason != v1alpha1.ReasonSucceeded {
		t.Fatalf("TenantSet Ready = %s/%s: %s", c.Status, c.Reason, c.Message)
	}
	owner := s.owner(ts)
	wantInventory := []string{"Namespace/cb-a", "Namespace/cb-b", "Namespace/cb-c",
		"ConfigMap/cb-a/app-inputs", "ConfigMap/cb-b/app-inputs", "ConfigMap/cb-c/app-inputs"}
	if diff := cmp.Diff(wantInventory, tsSubjects(ts)); diff != "" {
		t.Errorf("TenantSet inventory (-want +got):\n%s", diff)
	}
	ownerLabels := []string{"tenantset.tenants.tenantkit.dev/name", "tenantset.tenants.tenantkit.dev/namespace"}
	for _, name := range []string{"cb-a", "cb-b", "cb-c"} {
		ns := f.namespace(name)
		if got := ns.Annotations[finalizer.Annotation]; got != owner.String() {
			t.Errorf("namespace %s: %s = %q, want %q", name, finalizer.Annotation, got, owner.String())
		}
		// Two field managers share the namespace: the generator's labels,
		// the set's stamp and owner labels.
		if got := ns.Labels[generator.GeneratorLabel]; got != string(tg.UID) {
			t.Errorf("namespace %s: generator label %q, want %q", name, got, tg.UID)
		}
		labels, annotations := appliedKeys(t, ns, reconciler.DefaultTenantSetFieldManager)
		if !slices.Equal(labels, ownerLabels) || !slices.Equal(annotations, []string{finalizer.Annotation}) {
			t.Errorf("namespace %s: applied by the TenantSet: labels %v, annotations %v", name, labels, annotations)
		}
		if f.liveConfigMap(name, "app-inputs") == nil {
			t.Errorf("ConfigMap %s/app-inputs not rendered", name)
		}
	}
	// The inputs of cb-a/app: its exported inputs, then its labels, then
	// the provider's id, name, namespace and revision, each a string, on
	// top. "name" is the artifact's, so is the ConfigMap's name.
	revision, _, _ := unstructured.NestedString(art.Object, "status", "artifact", "revision")
	want := map[string]any{"replicas": float64(2), "image": map[string]any{"tag": "v1"}}
	for k, v := range art.GetLabels() {
		want[k] = v
	}
	maps.Copy(want, map[string]any{
		"id":        strconv.FormatUint(uint64(adler32.Checksum([]byte("cb-a/app"))), 10),
		"name":      "app",
		"namespace": "cb-a",
		"revision":  revision,
	})
	var got map[string]any
	f.must(json.Unmarshal([]byte(f.liveConfigMap("cb-a", "app-inputs").Data[reconciler.InputsKey]), &got))
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("inputs of cb-a/app (-want +got):\n%s", diff)
	}
	if got["name"] != "app" || got["replicas"] != float64(2) || revision == "" || got["tenantkit.dev/fixture"] != "cb" {
		t.Errorf("inputs of cb-a/app = %v: want the provider's name over the exported one, the exported replicas, the revision and the common label", got)
	}
	if f.liveConfigMap("cb-a", "hijacked-inputs") != nil {
		t.Error("ConfigMap named from the overridden exported input")
	}
	if w := "ExternalArtifact/cb-a/app: the provider's own inputs override the exported input(s) name"; !slices.Contains(ts.Status.LastPlan.Warnings, w) {
		t.Errorf("warnings = %q, want %q", ts.Status.LastPlan.Warnings, w)
	}

	// cb-b leaves the monorepo: the generator deletes its artifact and
	// hands the namespace off; it stays.
	f.removeTenant("cb-b")
	_, tg = f.reconcile()
	if ns := f.namespace("cb-b"); ns == nil || ns.DeletionTimestamp != nil {
		t.Fatalf("namespace cb-b = %+v, want it kept for the TenantSet", ns)
	}
	if got := f.artifacts("cb-b"); len(got) != 0 {
		t.Errorf("artifacts left in cb-b: %v", got)
	}
	handedOff := "Namespace/cb-b kept (handed off to " + owner.Object() + " (uid " + owner.UID + ")"
	if change(tg, handedOff) == "" {
		t.Errorf("generator changes = %q, want %q...", tg.Status.LastPlan.Changes, handedOff)
	}

	// The TenantSet no longer renders cb-b: its ConfigMap is deleted
	// first, and the namespace waits while it is not gone (another
	// finalizer holds it).
	cm := f.liveConfigMap("cb-b", "app-inputs")
	f.hold(cm, true)
	_, ts = s.reconcile()
	if cm := f.liveConfigMap("cb-b", "app-inputs"); cm == nil || cm.DeletionTimestamp == nil {
		t.Fatalf("ConfigMap cb-b/app-inputs = %+v, want it being deleted", cm)
	}
	if ns := f.namespace("cb-b"); ns.DeletionTimestamp != nil {
		t.Fatal("namespace cb-b deleted before the ConfigMap in it is gone")
	}
	if tsChange(ts, "Namespace/cb-b waiting (an object in it is not deleted yet)") < 0 {
		t.Errorf("TenantSet changes = %q, want the namespace waiting", ts.Status.LastPlan.Changes)
	}
	if c := tsReady(ts); c.Status != metav1.ConditionUnknown || c.Reason != v1alpha1.ReasonDeletionInProgress {
		t.Errorf("TenantSet Ready = %s/%s: %s", c.Status, c.Reason, c.Message)
	}
	if got := tsSubjects(ts); !slices.Contains(got, "Namespace/cb-b") || !slices.Contains(got, "ConfigMap/cb-b/app-inputs") {
		t.Errorf("TenantSet inventory = %v, want cb-b's objects still tracked", got)
	}

	// Once the ConfigMap is gone, the namespace is deleted.
	f.hold(cm, false)
	_, ts = s.reconcile()
	cmLine, nsLine := tsChange(ts, "ConfigMap/cb-b/app-inputs deleted"), tsChange(ts, "Namespace/cb-b deletion in progress")
	if cmLine < 0 || nsLine < 0 || cmLine > nsLine {
		t.Errorf("TenantSet changes = %q, want the ConfigMap deleted, then the namespace", ts.Status.LastPlan.Changes)
	}
	if ns := f.namespace("cb-b"); ns == nil || ns.DeletionTimestamp == nil {
		t.Fatalf("namespace cb-b = %+v, want it Terminating", ns)
	}
	f.finishNamespaceDeletion("cb-b")
	_, ts = s.reconcile()
	_, tg = f.reconcile()
	// Nothing is left of cb-b: no object, no entry in either inventory.
	if f.namespace("cb-b") != nil || f.liveConfigMap("cb-b", "app-inputs") != nil || len(f.artifacts("cb-b")) != 0 {
		t.Error("something of cb-b is left")
	}
	if got := tsSubjects(ts); slices.Contains(got, "Namespace/cb-b") || slices.Contains(got, "ConfigMap/cb-b/app-inputs") {
		t.Errorf("TenantSet inventory = %v, want cb-b gone", got)
	}
	if inventoryHas(tg, "Namespace/cb-b") || inventoryHas(tg, "ExternalArtifact/cb-b/app") {
		t.Errorf("generator inventory = %v, want cb-b gone", subjects(tg))
	}
	if c := tsReady(ts); c.Status != metav1.ConditionTrue {
		t.Errorf("TenantSet Ready = %s/%s: %s", c.Status, c.Reason, c.Message)
	}

	// The TenantSet goes without its finalizer (abandoned) and comes back
	// under the same name: a new UID. cb-a's stamp names the old one.
	old := s.get()
	patch := client.MergeFrom(old.DeepCopy())
	old.Finalizers = nil
	f.must(admin.Patch(f.ctx, old, patch))
	f.must(admin.Delete(f.ctx, old))
	s.create()
	renewed := s.get()
	if renewed.UID == old.UID {
		t.Fatal("recreated TenantSet has the old UID")
	}
	if got := f.stamp("cb-a"); got != owner {
		t.Fatalf("cb-a stamped by %v, want the old TenantSet %v", got, owner)
	}

	// cb-a leaves the monorepo: the stamp is not a hand-off any more, and
	// the generator deletes the namespace itself.
	f.removeTenant("cb-a")
	_, tg = f.reconcile()
	line := change(tg, "Namespace/cb-a deletion in progress")
	wantReason := "external finalizer " + owner.Object() + ` has uid "` + string(renewed.UID) + `", not "` + owner.UID +
		`": it was recreated and may not track the namespace`
	if !strings.Contains(line, wantReason) {
		t.Errorf("generator change for cb-a = %q, want the reason %q (changes %q)", line, wantReason, tg.Status.LastPlan.Changes)
	}
	if ns := f.namespace("cb-a"); ns == nil || ns.DeletionTimestamp == nil {
		t.Errorf("namespace cb-a = %+v, want it deleted by the generator", ns)
	}

	// The new TenantSet stamps what it renders with its own UID.
	_, ts = s.reconcile()
	if c := tsReady(ts); c.Status != metav1.ConditionTrue {
		t.Errorf("TenantSet Ready = %s/%s: %s", c.Status, c.Reason, c.Message)
	}
	if got, want := f.stamp("cb-c"), s.owner(renewed); got != want {
		t.Errorf("cb-c stamped by %v, want the new TenantSet %v", got, want)
	}
	if diff := cmp.Diff([]string{"Namespace/cb-c", "ConfigMap/cb-c/app-inputs"}, tsSubjects(ts)); diff != "" {
		t.Errorf("new TenantSet inventory (-want +got):\n%s", diff)
	}
}

// Deleting a TenantSet: its ConfigMaps first, then the namespaces it
// stamped (a namespace waits while an object in it is not gone), then its
// finalizer; a namespace whose pruning is disabled is not deleted: the set
// stops finalizing it, removes its stamp (finalizer.Release) and keeps it.
// An inventory that does not validate stops a reconcile, not the teardown,
// which leaves the bad entries out and says so.
func TestTenantSetDeletion(t *testing.T) {
	t.Parallel()
	f, s := comboFixture(t, "td")
	f.tenant("td-a", "app", "")
	f.tenant("td-keep", "app", "")
	f.reconcile()
	_, ts := s.reconcile()
	if c := tsReady(ts); c.Status != metav1.ConditionTrue || !controllerutil.ContainsFinalizer(ts, v1alpha1.Finalizer) {
		t.Fatalf("TenantSet Ready = %s/%s (%s), finalizers %v", c.Status, c.Reason, c.Message, ts.Finalizers)
	}
	owner := s.owner(ts)

	// An inventory that does not validate (an entry whose namespace is not
	// a DNS label, an object listed twice): a reconcile reads it strictly,
	// and applies and deletes nothing.
	bad := ts.DeepCopy()
	bad.Status.Inventory = append(bad.Status.Inventory,
		inventory.Entry{APIVersion: "v1", Kind: "ConfigMap", Namespace: "Not_A_Label", Name: "x"}, ts.Status.Inventory[0])
	f.must(admin.Status().Patch(f.ctx, bad, client.MergeFrom(ts)))
	_, ts = s.reconcile()
	if c := tsReady(ts); c.Status != metav1.ConditionFalse || c.Reason != v1alpha1.ReasonInvalidInventory {
		t.Errorf("TenantSet Ready = %s/%s: %s", c.Status, c.Reason, c.Message)
	}
	if len(ts.Status.Inventory) != 6 {
		t.Errorf("TenantSet inventory = %v, want it kept as it is", tsSubjects(ts))
	}

	f.patchNamespace("td-keep", map[string]any{reconciler.PruneLabel: "disabled"}, nil)
	held := f.liveConfigMap("td-a", "app-inputs")
	f.hold(held, true)
	f.must(admin.Delete(f.ctx, ts))

	// First step, from a lenient read of the inventory (the two bad
	// entries left out, and said so): both ConfigMaps deleted (td-a's
	// held by its finalizer), td-a's namespace waiting, td-keep's
	// released.
	res, ts := s.reconcile()
	if ts == nil || !controllerutil.ContainsFinalizer(ts, v1alpha1.Finalizer) || res.RequeueAfter != s.r.RetryInterval {
		t.Fatalf("TenantSet = %+v, requeue %v: want it kept by its finalizer, and a retry", ts, res.RequeueAfter)
	}
	if w := ts.Status.LastPlan.Warnings; len(w) != 2 || !strings.Contains(w[0], `"Not_A_Label"`) || !strings.Contains(w[1], "Duplicate value") {
		t.Errorf("warnings = %q, want the two entries left out", w)
	}
	if cm := f.liveConfigMap("td-a", "app-inputs"); cm == nil || cm.DeletionTimestamp == nil {
		t.Errorf("ConfigMap td-a/app-inputs = %+v, want it being deleted", cm)
	}
	if f.liveConfigMap("td-keep", "app-inputs") != nil {
		t.Error("ConfigMap td-keep/app-inputs not deleted")
	}
	if ns := f.namespace("td-a"); ns == nil || ns.DeletionTimestamp != nil {
		t.Errorf("namespace td-a = %+v, want it untouched while its ConfigMap is not gone", ns)
	}
	keep := f.namespace("td-keep")
	if keep == nil || keep.DeletionTimestamp != nil {
		t.Fatalf("namespace td-keep = %+v, want it kept: its pruning is disabled", keep)
	}
	if v, ok := keep.Annotations[finalizer.Annotation]; ok {
		t.Errorf("namespace td-keep still stamped: %q", v)
	}
	if keep.Labels[generator.GeneratorLabel] == "" {
		t.Errorf("namespace td-keep lost its generator label: %v", keep.Labels)
	}
	released := "Namespace/td-keep released (pruning disabled: label " + reconciler.PruneLabel + ": disabled; externalFinalizer stamp: released)"
	if tsChange(ts, released) < 0 {
		t.Errorf("TenantSet changes = %q, want %q", ts.Status.LastPlan.Changes, released)
	}
	if diff := cmp.Diff([]string{"Namespace/td-a", "ConfigMap/td-a/app-inputs"}, tsSubjects(ts)); diff != "" {
		t.Errorf("TenantSet inventory (-want +got):\n%s", diff)
	}
	if got := f.stamp("td-a"); got != owner {
		t.Errorf("td-a stamped by %v, want %v", got, owner)
	}

	// The ConfigMap gone, the namespace is deleted; once it is gone, so
	// is the finalizer, and the TenantSet.
	f.hold(held, false)
	if _, ts = s.reconcile(); ts == nil {
		t.Fatal("TenantSet gone while its namespace is terminating")
	}
	if ns := f.namespace("td-a"); ns == nil || ns.DeletionTimestamp == nil {
		t.Fatalf("namespace td-a = %+v, want it Terminating", ns)
	}
	if diff := cmp.Diff([]string{"Namespace/td-a"}, tsSubjects(ts)); diff != "" {
		t.Errorf("TenantSet inventory (-want +got):\n%s", diff)
	}
	f.finishNamespaceDeletion("td-a")
	if _, ts = s.reconcile(); ts != nil {
		t.Fatalf("TenantSet still there: finalizers %v, inventory %v, Ready %+v", ts.Finalizers, tsSubjects(ts), tsReady(ts))
	}
	if ns := f.namespace("td-keep"); ns == nil || ns.DeletionTimestamp != nil {
		t.Errorf("namespace td-keep = %+v, want it kept", ns)
	}
}

// Stale namespaces that the TenantSet does not delete. One whose pruning
// is disabled: the set releases its own stamp and keeps it, and the
// generator, which handed it off while the stamp held, is accountable for it
// again at once (here it deletes it: its own prune conventions are other
// keys). One that another TenantSet has stamped since: not the set's to
// delete nor to release; it stays handed off to the other.
func TestTenantSetReleasesStamp(t *testing.T) {
	t.Parallel()
	f, s := comboFixture(t, "tr")
	for _, tenant := range []string{"tr-a", "tr-b", "tr-c"} {
		f.tenant(tenant, "app", "")
	}
	f.reconcile()
	_, ts := s.reconcile()
	owner := s.owner(ts)
	other := &v1alpha1.TenantSet{
		ObjectMeta: metav1.ObjectMeta{Namespace: s.key.Namespace, Name: "other"},
		Spec:       v1alpha1.TenantSetSpec{Selector: metav1.LabelSelector{MatchLabels: map[string]string{"tenantkit.dev/fixture": "none"}}},
	}
	f.must(admin.Create(f.ctx, other))
	otherRef := s.owner(other)
	f.patchNamespace("tr-b", nil, map[string]any{reconciler.PruneLabel: "Disabled"})
	f.patchNamespace("tr-c", nil, map[string]any{finalizer.Annotation: otherRef.String()})
	f.removeTenant("tr-b")
	f.removeTenant("tr-c")
	_, tg := f.reconcile()
	if change(tg, "Namespace/tr-b kept (handed off to "+owner.Object()) == "" ||
		change(tg, "Namespace/tr-c kept (handed off to "+otherRef.Object()) == "" {
		t.Fatalf("generator changes = %q, want tr-b handed off to the set, tr-c to the other", tg.Status.LastPlan.Changes)
	}

	_, ts = s.reconcile()
	for _, name := range []string{"tr-b", "tr-c"} {
		if ns := f.namespace(name); ns == nil || ns.DeletionTimestamp != nil {
			t.Fatalf("namespace %s = %+v, want it kept", name, ns)
		}
		if f.liveConfigMap(name, "app-inputs") != nil {
			t.Errorf("ConfigMap %s/app-inputs not deleted", name)
		}
	}
	if v, ok := f.namespace("tr-b").Annotations[finalizer.Annotation]; ok {
		t.Errorf("namespace tr-b still stamped: %q", v)
	}
	if got := f.stamp("tr-c"); got != otherRef {
		t.Errorf("tr-c stamped by %v, want the other TenantSet's stamp left alone", got)
	}
	for _, line := range []string{
		"Namespace/tr-b released (pruning disabled: annotation " + reconciler.PruneLabel + ": Disabled; externalFinalizer stamp: released)",
		"Namespace/tr-c released (stamped by " + otherRef.Object() + " (uid " + otherRef.UID + "), not by this TenantSet)",
	} {
		if tsChange(ts, line) < 0 {
			t.Errorf("TenantSet changes = %q, want %q", ts.Status.LastPlan.Changes, line)
		}
	}
	if diff := cmp.Diff([]string{"Namespace/tr-a", "ConfigMap/tr-a/app-inputs"}, tsSubjects(ts)); diff != "" {
		t.Errorf("TenantSet inventory (-want +got):\n%s", diff)
	}
	if c := tsReady(ts); c.Status != metav1.ConditionTrue {
		t.Errorf("TenantSet Ready = %s/%s: %s", c.Status, c.Reason, c.Message)
	}

	_, tg = f.reconcile()
	if line := change(tg, "Namespace/tr-b deletion in progress"); !strings.Contains(line, "no external finalizer") {
		t.Errorf("generator change for tr-b = %q, want it deleted with no external finalizer (changes %q)", line, tg.Status.LastPlan.Changes)
	}
	if change(tg, "Namespace/tr-c kept (handed off to "+otherRef.Object()) == "" {
		t.Errorf("generator changes = %q, want tr-c still handed off to the other", tg.Status.LastPlan.Changes)
	}
}
