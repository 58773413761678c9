package reconciler_test

import (
	"encoding/json"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/tenantkit/tenantkit/examples/controller/api/v1alpha1"
	"github.com/tenantkit/tenantkit/examples/controller/internal/reconciler"
	"github.com/tenantkit/tenantkit/generator"
)

// appliedKeys returns the label and annotation keys that manager owns by
// server-side apply on obj.
func appliedKeys(t *testing.T, obj metav1.Object, manager string) (labels, annotations []string) {
	t.Helper()
	for _, mf := range obj.GetManagedFields() {
		if mf.Manager != manager || mf.Operation != metav1.ManagedFieldsOperationApply || mf.Subresource != "" {
			continue
		}
		var fields struct {
			Metadata struct {
				Labels      map[string]any `json:"f:labels"`
				Annotations map[string]any `json:"f:annotations"`
			} `json:"f:metadata"`
		}
		if err := json.Unmarshal(mf.FieldsV1.Raw, &fields); err != nil {
			t.Fatal(err)
		}
		for k := range fields.Metadata.Labels {
			labels = append(labels, strings.TrimPrefix(k, "f:"))
		}
		for k := range fields.Metadata.Annotations {
			annotations = append(annotations, strings.TrimPrefix(k, "f:"))
		}
	}
	slices.Sort(labels)
	slices.Sort(annotations)
	return labels, annotations
}

// withoutServerLabels drops the label the API server adds to every
// namespace.
func withoutServerLabels(l map[string]string) map[string]string {
	l = maps.Clone(l)
	delete(l, corev1.LabelMetadataName)
	return l
}

// Scenario 1: the first reconcile creates the namespaces with exactly the
// planned labels and annotations, owned by the controller's field manager,
// and the artifacts in them, and records the inventory.
func TestFirstReconcile(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "s1")
	f.tenant("s1-a", "app", "replicas: 2\nimage: {tag: v1}\n")
	f.tenant("s1-a", "db", "")
	f.namespaceFile("s1-a", "apiVersion: source.extensions.fluxcd.io/v1beta1\nkind: NamespaceMetadata\nmetadata:\n  labels:\n    team: payments\n")
	f.tenant("s1-b", "app", "")

	_, tg := f.reconcile()
	if c := ready(tg); c.Status != metav1.ConditionTrue || c.Reason != v1alpha1.ReasonSucceeded {
		t.Fatalf("Ready = %s/%s: %s", c.Status, c.Reason, c.Message)
	}
	uid := string(tg.UID)
	wantLabels := map[string]map[string]string{
		"s1-a": {"tenantkit.dev/fixture": "s1", "team": "payments", generator.GeneratorLabel: uid},
		"s1-b": {"tenantkit.dev/fixture": "s1", generator.GeneratorLabel: uid},
	}
	for name, want := range wantLabels {
		ns := f.namespace(name)
		if ns == nil {
			t.Fatalf("namespace %s not created", name)
		}
		if diff := cmp.Diff(want, withoutServerLabels(ns.Labels)); diff != "" {
			t.Errorf("namespace %s labels (-want +got):\n%s", name, diff)
		}
		if len(ns.Annotations) != 0 {
			t.Errorf("namespace %s annotations = %v, want none", name, ns.Annotations)
		}
		labels, annotations := appliedKeys(t, ns, reconciler.DefaultFieldManager)
		if diff := cmp.Diff(slices.Sorted(maps.Keys(want)), labels); diff != "" {
			t.Errorf("namespace %s: labels applied by %s (-want +got):\n%s", name, reconciler.DefaultFieldManager, diff)
		}
		if len(annotations) != 0 {
			t.Errorf("namespace %s: annotations applied = %v, want none", name, annotations)
		}
	}
	if got, want := f.artifacts("s1-a"), []string{"app", "db"}; !slices.Equal(got, want) {
		t.Errorf("artifacts in s1-a = %v, want %v", got, want)
	}
	app := f.artifact("s1-a", "app")
	inputs, _, _ := unstructured.NestedMap(app.Object, "status", "exportedInputs")
	if diff := cmp.Diff(map[string]any{"replicas": int64(2), "image": map[string]any{"tag": "v1"}}, inputs); diff != "" {
		t.Errorf("exportedInputs (-want +got):\n%s", diff)
	}
	if app.GetLabels()[generator.GeneratorLabel] != uid {
		t.Errorf("artifact labels = %v, want %s: %s", app.GetLabels(), generator.GeneratorLabel, uid)
	}
	want := []string{"Namespace/s1-a", "Namespace/s1-b", "ExternalArtifact/s1-a/app", "ExternalArtifact/s1-a/db", "ExternalArtifact/s1-b/app"}
	if diff := cmp.Diff(want, subjects(tg)); diff != "" {
		t.Errorf("inventory (-want +got):\n%s", diff)
	}
	digest, _, _ := unstructured.NestedString(app.Object, "status", "artifact", "digest")
	for _, e := range tg.Status.Inventory {
		if e.Digest == "" {
			t.Errorf("inventory entry %s has no digest", e.ID())
		}
		if e.ID().String() == "ExternalArtifact/s1-a/app" && e.Digest.String() != digest {
			t.Errorf("inventory digest %s, live artifact digest %s", e.Digest, digest)
		}
	}
	if s := tg.Status.LastPlan; s == nil || s.Create != 5 {
		t.Errorf("last plan = %+v, want 5 creates", s)
	}

	// A second reconcile writes nothing.
	rv := f.namespace("s1-a").ResourceVersion
	_, tg = f.reconcile()
	if s := tg.Status.LastPlan; s.Unchanged != 5 || len(s.Changes) != 0 {
		t.Errorf("second plan = %+v, want 5 unchanged and no changes", s)
	}
	if got := f.namespace("s1-a").ResourceVersion; got != rv {
		t.Errorf("namespace written again by an unchanged plan: resourceVersion %s -> %s", rv, got)
	}
}

// Scenario 2: a removed tenant's artifacts are deleted, then its namespace.
// Without a namespace controller the namespace stays Terminating: that is
// not a confirmed deletion, so the inventory keeps it (it does not forget
// it), and the controller neither deletes it twice nor applies it again (it
// does not re-create it). Once the namespace is gone, the inventory lets go.
func TestRemovedTenant(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "s2")
	f.tenant("s2-a", "app", "")
	f.tenant("s2-gone", "app", "")
	f.tenant("s2-gone", "web", "")
	f.reconcile()

	f.removeTenant("s2-gone")
	res, tg := f.reconcile()
	if got := f.artifacts("s2-gone"); len(got) != 0 {
		t.Errorf("artifacts left in s2-gone: %v", got)
	}
	ns := f.namespace("s2-gone")
	if ns == nil || ns.DeletionTimestamp == nil || ns.Status.Phase != corev1.NamespaceTerminating {
		t.Fatalf("namespace s2-gone = %+v, want Terminating", ns)
	}
	if !inventoryHas(tg, "Namespace/s2-gone") {
		t.Errorf("inventory forgot the terminating namespace: %v", subjects(tg))
	}
	if inventoryHas(tg, "ExternalArtifact/s2-gone/app") || inventoryHas(tg, "ExternalArtifact/s2-gone/web") {
		t.Errorf("inventory still holds deleted artifacts: %v", subjects(tg))
	}
	if c := ready(tg); c.Status != metav1.ConditionUnknown || c.Reason != v1alpha1.ReasonDeletionInProgress {
		t.Errorf("Ready = %s/%s: %s", c.Status, c.Reason, c.Message)
	}
	if res.RequeueAfter != f.r.RetryInterval {
		t.Errorf("RequeueAfter = %v, want the retry interval %v", res.RequeueAfter, f.r.RetryInterval)
	}

	// Again, and again: still tracked, never written, never re-created.
	rv := ns.ResourceVersion
	for range 2 {
		_, tg = f.reconcile()
		if !inventoryHas(tg, "Namespace/s2-gone") {
			t.Fatalf("inventory forgot the terminating namespace: %v", subjects(tg))
		}
		if ns := f.namespace("s2-gone"); ns == nil || ns.ResourceVersion != rv {
			t.Fatalf("terminating namespace written: %+v", ns)
		}
		if hasChange(tg, "Namespace/s2-gone created") || hasChange(tg, "Namespace/s2-gone configured") {
			t.Fatalf("terminating namespace applied: %v", tg.Status.LastPlan.Changes)
		}
	}
	if !inventoryHas(tg, "Namespace/s2-a") || f.namespace("s2-a").DeletionTimestamp != nil {
		t.Errorf("the other tenant was touched: %v", subjects(tg))
	}

	// The namespace controller would finish now; then the deletion is
	// confirmed and the entry leaves the inventory.
	f.finishNamespaceDeletion("s2-gone")
	_, tg = f.reconcile()
	if inventoryHas(tg, "Namespace/s2-gone") {
		t.Errorf("inventory still holds the deleted namespace: %v", subjects(tg))
	}
	if c := ready(tg); c.Status != metav1.ConditionTrue {
		t.Errorf("Ready = %s/%s: %s", c.Status, c.Reason, c.Message)
	}
}

// Scenario 2, continued: a tenant that comes back while its namespace is
// still Terminating waits, and is created afresh once the namespace is gone.
func TestTenantBackWhileTerminating(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "s2b")
	f.tenant("s2b-a", "app", "")
	f.tenant("s2b-back", "app", "")
	f.reconcile()
	f.removeTenant("s2b-back")
	f.reconcile()
	if ns := f.namespace("s2b-back"); ns == nil || ns.DeletionTimestamp == nil {
		t.Fatalf("namespace s2b-back = %+v, want Terminating", ns)
	}

	f.tenant("s2b-back", "app", "")
	_, tg := f.reconcile()
	if c := ready(tg); c.Reason != v1alpha1.ReasonDeletionInProgress {
		t.Errorf("Ready = %s/%s: %s", c.Status, c.Reason, c.Message)
	}
	if got := f.artifacts("s2b-back"); len(got) != 0 {
		t.Errorf("artifacts written into a terminating namespace: %v", got)
	}
	if !inventoryHas(tg, "Namespace/s2b-back") {
		t.Errorf("inventory forgot the namespace: %v", subjects(tg))
	}

	f.finishNamespaceDeletion("s2b-back")
	_, tg = f.reconcile()
	if ns := f.namespace("s2b-back"); ns == nil || ns.DeletionTimestamp != nil {
		t.Fatalf("namespace s2b-back = %+v, want it created afresh", ns)
	}
	if got := f.artifacts("s2b-back"); !slices.Equal(got, []string{"app"}) {
		t.Errorf("artifacts in s2b-back = %v, want [app]", got)
	}
	if c := ready(tg); c.Status != metav1.ConditionTrue {
		t.Errorf("Ready = %s/%s: %s", c.Status, c.Reason, c.Message)
	}
}

// Scenario 3: a namespace whose external finalizer (a real ConfigMap, its
// real UID stamped on the namespace) exists is not deleted when its tenant
// goes: the generator keeps it in the inventory and decides again on every
// pass (generator: a hand-off is a Keep, never a Release). Delete that
// object and the next reconcile deletes the namespace; recreate it (same
// name, new UID) and the same.
func TestHandOff(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "s3")
	for _, tenant := range []string{"s3-keep", "s3-deleted", "s3-recreated"} {
		f.tenant(tenant, "app", "")
	}
	f.reconcile()
	deleted := f.configMap("rset-deleted")
	f.stampFinalizer("s3-deleted", deleted)
	recreated := f.configMap("rset-recreated")
	f.stampFinalizer("s3-recreated", recreated)
	f.removeTenant("s3-deleted")
	f.removeTenant("s3-recreated")

	// While the hand-off holds: kept, tracked, not deleted, Ready.
	_, tg := f.reconcile()
	for _, name := range []string{"s3-deleted", "s3-recreated"} {
		if ns := f.namespace(name); ns == nil || ns.DeletionTimestamp != nil {
			t.Errorf("handed-off namespace %s deleted: %+v", name, ns)
		}
		if !inventoryHas(tg, "Namespace/"+name) {
			t.Errorf("handed-off namespace %s not tracked: %v", name, subjects(tg))
		}
		if !hasChange(tg, "Namespace/"+name+" kept") {
			t.Errorf("changes = %q, want Namespace/%s kept", tg.Status.LastPlan.Changes, name)
		}
		if got := f.artifacts(name); len(got) != 0 {
			t.Errorf("artifacts left in the handed-off namespace %s: %v", name, got)
		}
	}
	if c := ready(tg); c.Status != metav1.ConditionTrue {
		t.Errorf("Ready = %s/%s: %s", c.Status, c.Reason, c.Message)
	}

	// The finalizer object is deleted, the other recreated with a new UID:
	// the hand-off no longer holds, and the generator deletes both.
	f.must(admin.Delete(f.ctx, deleted))
	f.must(admin.Delete(f.ctx, recreated))
	f.configMap("rset-recreated") // same name, new UID
	_, tg = f.reconcile()
	for _, name := range []string{"s3-deleted", "s3-recreated"} {
		if ns := f.namespace(name); ns == nil || ns.DeletionTimestamp == nil {
			t.Errorf("namespace %s = %+v, want it deleted (Terminating)", name, ns)
		}
		// Terminating without a namespace controller: the deletion was
		// accepted, not yet confirmed.
		if !hasChange(tg, "Namespace/"+name+" deletion in progress") {
			t.Errorf("changes = %q, want Namespace/%s deletion in progress", tg.Status.LastPlan.Changes, name)
		}
	}
	if ns := f.namespace("s3-keep"); ns == nil || ns.DeletionTimestamp != nil {
		t.Errorf("namespace s3-keep = %+v, want it untouched", ns)
	}
}

// Scenario 4: the service account may not get the finalizer's kind. The
// lookup is Forbidden, the namespace is kept (tracked, not deleted),
// Ready=False says why, and the reconcile is requeued.
func TestFinalizerLookupForbidden(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "s4", withRole(limitedRole))
	f.tenant("s4-a", "app", "")
	f.tenant("s4-b", "app", "")
	f.reconcile()
	f.stampFinalizer("s4-b", f.configMap("rset"))
	f.removeTenant("s4-b")

	res, tg := f.reconcile()
	if ns := f.namespace("s4-b"); ns == nil || ns.DeletionTimestamp != nil {
		t.Fatalf("namespace s4-b deleted although its finalizer could not be looked up: %+v", ns)
	}
	if !inventoryHas(tg, "Namespace/s4-b") {
		t.Errorf("inventory dropped the kept namespace: %v", subjects(tg))
	}
	c := ready(tg)
	if c.Status != metav1.ConditionFalse || c.Reason != v1alpha1.ReasonGarbageCollectionBlocked {
		t.Errorf("Ready = %s/%s: %s", c.Status, c.Reason, c.Message)
	}
	if !strings.Contains(c.Message, "Namespace/s4-b kept") || !strings.Contains(c.Message, "forbidden") {
		t.Errorf("Ready message does not say why: %s", c.Message)
	}
	if res.RequeueAfter != f.r.RetryInterval {
		t.Errorf("RequeueAfter = %v, want %v", res.RequeueAfter, f.r.RetryInterval)
	}
}

// Scenario 5: pruning disabled on the live namespace, by label or by
// annotation, in any case: released, not deleted.
func TestPruneDisabled(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "s5")
	for _, tenant := range []string{"s5-a", "s5-label", "s5-annotation"} {
		f.tenant(tenant, "app", "")
	}
	f.reconcile()
	f.patchNamespace("s5-label", map[string]any{"kustomize.toolkit.fluxcd.io/prune": "disabled"}, nil)
	f.patchNamespace("s5-annotation", nil, map[string]any{"source.extensions.fluxcd.io/prune": "Disabled"})
	f.removeTenant("s5-label")
	f.removeTenant("s5-annotation")

	_, tg := f.reconcile()
	for _, name := range []string{"s5-label", "s5-annotation"} {
		if ns := f.namespace(name); ns == nil || ns.DeletionTimestamp != nil {
			t.Errorf("namespace %s deleted although pruning is disabled: %+v", name, ns)
		}
		if inventoryHas(tg, "Namespace/"+name) {
			t.Errorf("released namespace %s still tracked", name)
		}
		if !hasChange(tg, "Namespace/"+name+" released") {
			t.Errorf("changes = %q, want Namespace/%s released", tg.Status.LastPlan.Changes, name)
		}
	}
	if c := ready(tg); c.Status != metav1.ConditionTrue {
		t.Errorf("Ready = %s/%s: %s", c.Status, c.Reason, c.Message)
	}
}

// Scenario 6: a broken source deletes nothing, and the condition says why.
func TestBrokenSource(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		prefix string
		break_ func(f *fixture)
		reason string
		says   string // in the condition's message, if set
	}{{
		name:   "missing directory",
		prefix: "s6m",
		break_: func(f *fixture) { f.r.Sources["repo"] = f.dir + "-moved" },
		reason: v1alpha1.ReasonSourceUnavailable,
	}, {
		name:   "one level too deep",
		prefix: "s6d",
		break_: func(f *fixture) { f.r.Sources["repo"] = filepath.Join(f.dir, "tenants") },
		reason: v1alpha1.ReasonPlanFailed,
	}, {
		name:   "no tenant matches",
		prefix: "s6e",
		break_: func(f *fixture) {
			f.removeTenant(f.prefix + "-a")
			f.removeTenant(f.prefix + "-b")
		},
		reason: v1alpha1.ReasonPlanFailed,
		says:   "which a wrong source or pattern looks like; -allow-delete-all allows the deletions",
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, tt.prefix)
			f.tenant(tt.prefix+"-a", "app", "")
			f.tenant(tt.prefix+"-b", "app", "")
			_, before := f.reconcile()
			if c := ready(before); c.Status != metav1.ConditionTrue {
				t.Fatalf("Ready = %s/%s: %s", c.Status, c.Reason, c.Message)
			}
			tt.break_(f)
			_, tg := f.reconcile()
			c := ready(tg)
			if c.Status != metav1.ConditionFalse || c.Reason != tt.reason || !strings.Contains(c.Message, tt.says) {
				t.Errorf("Ready = %s/%s: %s", c.Status, c.Reason, c.Message)
			}
			t.Logf("Ready message: %s", c.Message)
			if diff := cmp.Diff(subjects(before), subjects(tg)); diff != "" {
				t.Errorf("inventory changed (-before +after):\n%s", diff)
			}
			for _, ns := range []string{tt.prefix + "-a", tt.prefix + "-b"} {
				if n := f.namespace(ns); n == nil || n.DeletionTimestamp != nil {
					t.Errorf("namespace %s deleted: %+v", ns, n)
				}
				if got := f.artifacts(ns); len(got) != 1 {
					t.Errorf("artifacts in %s = %v", ns, got)
				}
			}
		})
	}
}

// Scenario 7: a tenant directory named kube-system gets no artifact there,
// and kube-system is not touched; the other tenants proceed.
func TestProtectedNamespace(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "s7", withSpec(func(s *v1alpha1.TenantGeneratorSpec) {
		s.ManagedNamespaces.AllowedNames = []string{"true"}
	}))
	f.tenant("s7-a", "app", "")
	f.tenant("kube-system", "crb", "")
	before := f.namespace("kube-system")

	_, tg := f.reconcile()
	if got := f.artifacts("kube-system"); len(got) != 0 {
		t.Errorf("artifacts written into kube-system: %v", got)
	}
	after := f.namespace("kube-system")
	if after.ResourceVersion != before.ResourceVersion {
		t.Errorf("kube-system written: labels %v", after.Labels)
	}
	if inventoryHas(tg, "Namespace/kube-system") || inventoryHas(tg, "ExternalArtifact/kube-system/crb") {
		t.Errorf("inventory holds kube-system: %v", subjects(tg))
	}
	if !hasChange(tg, "ExternalArtifact/kube-system/crb skipped") {
		t.Errorf("changes = %q, want the artifact skipped", tg.Status.LastPlan.Changes)
	}
	if got := f.artifacts("s7-a"); !slices.Equal(got, []string{"app"}) {
		t.Errorf("the valid tenant did not proceed: artifacts %v", got)
	}
	c := ready(tg)
	if c.Status != metav1.ConditionFalse || c.Reason != v1alpha1.ReasonPlanFailed || !strings.Contains(c.Message, "kube-system") {
		t.Errorf("Ready = %s/%s: %s", c.Status, c.Reason, c.Message)
	}
}

// Scenario 8: drift. A managed label changed by another field manager is
// restored on the next reconcile; a label another manager owns is left
// alone; an artifact deleted behind the controller's back comes back.
func TestDrift(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "s8")
	f.tenant("s8-a", "app", "")
	f.reconcile()

	f.patchNamespace("s8-a", map[string]any{"tenantkit.dev/fixture": "tampered", "example.com/owner": "someone-else"}, nil)
	u := f.artifact("s8-a", "app")
	f.must(admin.Delete(f.ctx, u))

	_, tg := f.reconcile()
	ns := f.namespace("s8-a")
	if got := ns.Labels["tenantkit.dev/fixture"]; got != "s8" {
		t.Errorf("managed label = %q, want it restored to s8", got)
	}
	if got := ns.Labels["example.com/owner"]; got != "someone-else" {
		t.Errorf("another manager's label = %q, want it left alone", got)
	}
	labels, _ := appliedKeys(t, ns, reconciler.DefaultFieldManager)
	if slices.Contains(labels, "example.com/owner") || !slices.Contains(labels, "tenantkit.dev/fixture") {
		t.Errorf("labels applied by the controller = %v", labels)
	}
	// The plan finds the namespace's drift itself (generator reads the live
	// namespace); the artifact's, the pass.
	if !hasChange(tg, "Namespace/s8-a configured (drift: live metadata has another value for label tenantkit.dev/fixture)") ||
		!hasChange(tg, "ExternalArtifact/s8-a/app created (was missing)") {
		t.Errorf("changes = %q", tg.Status.LastPlan.Changes)
	}
	if f.artifact("s8-a", "app") == nil {
		t.Error("deleted artifact not re-created")
	}
	if c := ready(tg); c.Status != metav1.ConditionTrue {
		t.Errorf("Ready = %s/%s: %s", c.Status, c.Reason, c.Message)
	}
}

// Without spec.serviceAccountName or --default-service-account, namespace
// management is refused before anything is written; with the default, the
// writes go through the impersonated account, whose RBAC is what counts.
func TestServiceAccount(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "sa", withSpec(func(s *v1alpha1.TenantGeneratorSpec) { s.ServiceAccountName = "" }))
	// The controller's own identity may not write namespaces: only the
	// account it impersonates can.
	if err := controller.Create(f.ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "sa-own"}}); !apierrors.IsForbidden(err) {
		t.Fatalf("the controller's own identity creating a namespace: %v, want Forbidden", err)
	}
	f.tenant("sa-a", "app", "")
	_, tg := f.reconcile()
	c := ready(tg)
	if c.Status != metav1.ConditionFalse || c.Reason != v1alpha1.ReasonNoServiceAccount || !strings.Contains(c.Message, "--default-service-account") {
		t.Errorf("Ready = %s/%s: %s", c.Status, c.Reason, c.Message)
	}
	if f.namespace("sa-a") != nil {
		t.Error("namespace created without a service account")
	}

	// A default account without RBAC: the API server refuses its reads of
	// the live namespaces, which the plan makes before any write, so the
	// plan fails and nothing is written or deleted.
	f.r.DefaultServiceAccount = "nobody"
	_, tg = f.reconcile()
	c = ready(tg)
	if c.Status != metav1.ConditionFalse || c.Reason != v1alpha1.ReasonPlanFailed || !strings.Contains(c.Message, `"system:serviceaccount:gen-sa:nobody"`) {
		t.Errorf("Ready = %s/%s: %s", c.Status, c.Reason, c.Message)
	}
	if f.namespace("sa-a") != nil {
		t.Error("namespace created by an account without RBAC")
	}

	// The bound default account.
	f.r.DefaultServiceAccount = serviceAccount
	_, tg = f.reconcile()
	if c := ready(tg); c.Status != metav1.ConditionTrue {
		t.Errorf("Ready = %s/%s: %s", c.Status, c.Reason, c.Message)
	}
	if f.namespace("sa-a") == nil {
		t.Error("namespace not created")
	}
}

// A spec that does not compile: Ready=False, InvalidSpec, with the field
// errors; nothing is written, the inventory is kept.
func TestInvalidSpec(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "inv", withSpec(func(s *v1alpha1.TenantGeneratorSpec) {
		s.PathPattern = "@repo/tenants/{namespace/modules/{module}"
	}))
	f.tenant("inv-a", "app", "")
	_, tg := f.reconcile()
	c := ready(tg)
	if c.Status != metav1.ConditionFalse || c.Reason != v1alpha1.ReasonInvalidSpec ||
		!strings.Contains(c.Message, "spec.pathPattern") {
		t.Errorf("Ready = %s/%s: %s", c.Status, c.Reason, c.Message)
	}
	if f.namespace("inv-a") != nil {
		t.Error("namespace created from an invalid spec")
	}
}
