package reconciler_test

import (
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	"github.com/tenantkit/tenantkit/examples/controller/api/v1alpha1"
	"github.com/tenantkit/tenantkit/generator"
)

// otherUID is the UID of a generator that is not the fixture's.
const otherUID = "0b6f3c2e-6a53-4d4e-9a55-4c1e7f0a0001"

// preexisting creates a namespace as someone else would, before the
// generator runs.
func (f *fixture) preexisting(name string, labels, annotations map[string]string) *corev1.Namespace {
	f.t.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels, Annotations: annotations}}
	f.must(admin.Create(f.ctx, ns))
	return ns
}

// events returns the events recorded on a namespace (events on a
// cluster-scoped object are stored in namespace default) with a reason.
func (f *fixture) events(namespace, reason string) []corev1.Event {
	f.t.Helper()
	l, err := clientset.CoreV1().Events(metav1.NamespaceDefault).List(f.ctx, metav1.ListOptions{
		FieldSelector: "involvedObject.kind=Namespace,involvedObject.name=" + namespace + ",reason=" + reason,
	})
	f.must(err)
	return l.Items
}

// waitEvent waits until an event with the reason is recorded on the
// namespace (the recorder writes asynchronously) and returns it; the
// deadline only bounds a broken run.
func (f *fixture) waitEvent(namespace, reason string) corev1.Event {
	f.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		if evs := f.events(namespace, reason); len(evs) > 0 {
			return evs[0]
		}
		if time.Now().After(deadline) {
			f.t.Fatalf("no %s event on namespace %s", reason, namespace)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// Adopting a namespace that no generator manages, and taking over one that
// another generator's label names, apply it and record a Warning event on
// the Namespace whose reason is the conflict (read back from the API
// server, as source-watcher's TestArtifactGeneratorReconciler_OwnershipConflict
// reads its per-object events); a namespace the generator creates gets none.
// The TenantGenerator gets one summary Warning per kind, counting them, as
// source-watcher's TestArtifactGeneratorReconciler_ManagedNamespacesAdopt
// and _ManagedNamespacesTakeover expect: "adoption detected for 2
// Namespace(s)" and "ownership conflict detected for 1 Namespace(s)". A
// second reconcile, the namespaces now the generator's, records none.
func TestConflictEvents(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "ev")
	f.preexisting("ev-adopted", map[string]string{"owner": "hand"}, nil)
	f.preexisting("ev-adopted-2", nil, nil)
	f.preexisting("ev-taken", map[string]string{generator.GeneratorLabel: otherUID}, nil)
	for _, name := range []string{"ev-adopted", "ev-adopted-2", "ev-taken", "ev-new"} {
		f.tenant(name, "app", "")
	}
	_, tg := f.reconcile()
	if c := ready(tg); c.Status != metav1.ConditionTrue {
		t.Fatalf("Ready = %s/%s: %s", c.Status, c.Reason, c.Message)
	}
	summaries := map[string]string{
		"Adopted":           "adoption detected for 2 Namespace(s)",
		"OwnershipConflict": "ownership conflict detected for 1 Namespace(s)",
	}
	for reason, want := range summaries {
		evs := f.waitObjectEvents(f.key.Namespace, "TenantGenerator", f.key.Name, reason, 1)
		if len(evs) != 1 || evs[0].Type != corev1.EventTypeWarning || evs[0].Message != want || evs[0].InvolvedObject.UID != tg.UID {
			t.Errorf("generator %s events %+v, want one Warning on it: %q", reason, evs, want)
		}
	}
	for name, reason := range map[string]string{"ev-adopted": "Adopted", "ev-adopted-2": "Adopted", "ev-taken": "OwnershipConflict"} {
		ev := f.waitEvent(name, reason)
		if ev.Type != corev1.EventTypeWarning || ev.InvolvedObject.Kind != "Namespace" || ev.InvolvedObject.UID != f.namespace(name).UID {
			t.Errorf("%s event on %s: type %s, regarding %+v", reason, name, ev.Type, ev.InvolvedObject)
		}
		if got := f.namespace(name).Labels[generator.GeneratorLabel]; got != string(tg.UID) {
			t.Errorf("namespace %s: %s = %q, want the generator's UID (applied)", name, generator.GeneratorLabel, got)
		}
	}
	for _, reason := range []string{"Adopted", "OwnershipConflict"} {
		if evs := f.events("ev-new", reason); len(evs) != 0 {
			t.Errorf("created namespace ev-new has %s events: %v", reason, evs)
		}
	}
	// Now the generator's own, they are not in conflict any more: a second
	// reconcile records nothing new.
	before := len(f.events("ev-adopted", "Adopted"))
	f.reconcile()
	time.Sleep(time.Second) // what the recorder would have sent by now
	if evs := f.events("ev-adopted", "Adopted"); len(evs) != before || evs[0].Count > 1 {
		t.Errorf("second reconcile recorded Adopted again: %+v", evs)
	}
	for reason := range summaries {
		if evs := f.objectEvents(f.key.Namespace, "TenantGenerator", f.key.Name, reason); len(evs) != 1 || evs[0].Count > 1 {
			t.Errorf("second reconcile: generator %s events %+v, want the first one alone", reason, evs)
		}
	}
}

// objectEvents returns the events recorded on an object of a kind, in a
// namespace, with a reason.
func (f *fixture) objectEvents(namespace, kind, name, reason string) []corev1.Event {
	f.t.Helper()
	l, err := clientset.CoreV1().Events(namespace).List(f.ctx, metav1.ListOptions{
		FieldSelector: "involvedObject.kind=" + kind + ",involvedObject.name=" + name + ",reason=" + reason,
	})
	f.must(err)
	return l.Items
}

// waitObjectEvents waits until n events with the reason are recorded on
// the object (the recorder writes asynchronously) and returns them; the
// deadline only bounds a broken run.
func (f *fixture) waitObjectEvents(namespace, kind, name, reason string, n int) []corev1.Event {
	f.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		if evs := f.objectEvents(namespace, kind, name, reason); len(evs) >= n {
			return evs
		}
		if time.Now().After(deadline) {
			f.t.Fatalf("no %s event on %s %s/%s", reason, kind, namespace, name)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// ExternalArtifacts that another generator's label names are taken over:
// relabelled, one Warning event OwnershipConflict on each, and one on the
// TenantGenerator, "ownership conflict detected for 2 ExternalArtifact(s)",
// read back from the API server as source-watcher's
// TestArtifactGeneratorReconciler_OwnershipConflict reads them. A second
// reconcile, the artifacts now the generator's, records none.
func TestArtifactConflictEvents(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "ac")
	tg := f.generator()
	// The namespace is the generator's already: no Adopted.
	f.preexisting("ac-a", map[string]string{generator.GeneratorLabel: string(tg.UID)}, nil)
	names := []string{"app", "web"}
	for _, name := range names {
		f.tenant("ac-a", name, "")
		other := &unstructured.Unstructured{}
		other.SetAPIVersion("source.toolkit.fluxcd.io/v1")
		other.SetKind("ExternalArtifact")
		other.SetNamespace("ac-a")
		other.SetName(name)
		other.SetLabels(map[string]string{generator.GeneratorLabel: otherUID})
		f.must(unstructured.SetNestedStringMap(other.Object, map[string]string{"kind": "TenantGenerator", "name": "other"}, "spec", "sourceRef"))
		f.must(admin.Create(f.ctx, other))
	}
	_, tg = f.reconcile()
	if c := ready(tg); c.Status != metav1.ConditionTrue {
		t.Fatalf("Ready = %s/%s: %s", c.Status, c.Reason, c.Message)
	}
	for _, name := range names {
		a := f.artifact("ac-a", name)
		if got := a.GetLabels()[generator.GeneratorLabel]; got != string(tg.UID) {
			t.Errorf("artifact %s: %s = %q, want the generator's UID (taken over)", name, generator.GeneratorLabel, got)
		}
		evs := f.waitObjectEvents("ac-a", "ExternalArtifact", name, "OwnershipConflict", 1)
		want := "taken over from generator " + otherUID + " (label " + generator.GeneratorLabel + ")"
		if len(evs) != 1 || evs[0].Type != corev1.EventTypeWarning || evs[0].InvolvedObject.UID != a.GetUID() || evs[0].Message != want {
			t.Errorf("artifact %s: events %+v, want one Warning on it: %q", name, evs, want)
		}
	}
	evs := f.waitObjectEvents(f.key.Namespace, "TenantGenerator", f.key.Name, "OwnershipConflict", 1)
	if len(evs) != 1 || evs[0].Type != corev1.EventTypeWarning || evs[0].Message != "ownership conflict detected for 2 ExternalArtifact(s)" {
		t.Errorf("generator events %+v, want one Warning: ownership conflict detected for 2 ExternalArtifact(s)", evs)
	}
	if evs := f.events("ac-a", "Adopted"); len(evs) != 0 {
		t.Errorf("namespace ac-a adopted: %+v", evs)
	}
	if evs := f.objectEvents(f.key.Namespace, "TenantGenerator", f.key.Name, "Adopted"); len(evs) != 0 {
		t.Errorf("generator has Adopted events, no namespace was adopted: %+v", evs)
	}

	_, tg = f.reconcile()
	if c := ready(tg); c.Status != metav1.ConditionTrue {
		t.Fatalf("second reconcile: Ready = %s/%s: %s", c.Status, c.Reason, c.Message)
	}
	time.Sleep(time.Second) // what the recorder would have sent by now
	for _, name := range names {
		if evs := f.objectEvents("ac-a", "ExternalArtifact", name, "OwnershipConflict"); len(evs) != 1 || evs[0].Count > 1 {
			t.Errorf("second reconcile: artifact %s events %+v, want the first one alone", name, evs)
		}
	}
	if evs := f.objectEvents(f.key.Namespace, "TenantGenerator", f.key.Name, "OwnershipConflict"); len(evs) != 1 || evs[0].Count > 1 {
		t.Errorf("second reconcile: generator events %+v, want the first one alone", evs)
	}
}

// A live namespace with reconcile: disabled, ssa: Ignore or ssa:
// IfNotPresent is not written (its resourceVersion does not move), stays
// in the inventory, and its artifacts are applied (generator's "Live
// state" rules).
func TestNamespacesNotWritten(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "nw")
	annotations := map[string]string{
		"nw-disabled": "source.extensions.fluxcd.io/reconcile",
		"nw-ignore":   "source.extensions.fluxcd.io/ssa",
		"nw-ifnp":     "source.extensions.fluxcd.io/ssa",
	}
	values := map[string]string{"nw-disabled": "disabled", "nw-ignore": "Ignore", "nw-ifnp": "IfNotPresent"}
	rv := map[string]string{}
	for name, key := range annotations {
		rv[name] = f.preexisting(name, nil, map[string]string{key: values[name]}).ResourceVersion
		f.tenant(name, "app", "")
	}
	_, tg := f.reconcile()
	if c := ready(tg); c.Status != metav1.ConditionTrue {
		t.Fatalf("Ready = %s/%s: %s", c.Status, c.Reason, c.Message)
	}
	for name := range annotations {
		t.Run(name, func(t *testing.T) {
			ns := f.namespace(name)
			if ns.ResourceVersion != rv[name] {
				t.Errorf("namespace written: resourceVersion %s -> %s, labels %v", rv[name], ns.ResourceVersion, ns.Labels)
			}
			if f.artifact(name, "app") == nil {
				t.Error("its artifact was not applied")
			}
			if !inventoryHas(tg, "Namespace/"+name) {
				t.Errorf("not tracked: inventory %v", subjects(tg))
			}
		})
	}
	if s := tg.Status.LastPlan; s.Unchanged != 3 || s.Create != 3 {
		t.Errorf("last plan = %+v, want 3 unchanged namespaces and 3 created artifacts", s)
	}
}

// deleteGenerator deletes the TenantGenerator; its finalizer keeps it.
func (f *fixture) deleteGenerator() {
	f.t.Helper()
	f.must(admin.Delete(f.ctx, &v1alpha1.TenantGenerator{ObjectMeta: metav1.ObjectMeta{Namespace: f.key.Namespace, Name: f.key.Name}}))
}

// finalizeStep reconciles the deleted generator and returns the result and
// the generator afterwards, nil once it is gone.
func (f *fixture) finalizeStep() (ctrl.Result, *v1alpha1.TenantGenerator) {
	f.t.Helper()
	res, err := f.r.Reconcile(f.ctx, ctrl.Request{NamespacedName: f.key})
	f.must(err)
	tg := &v1alpha1.TenantGenerator{}
	if err := admin.Get(f.ctx, f.key, tg); err != nil {
		if apierrors.IsNotFound(err) {
			return res, nil
		}
		f.t.Fatal(err)
	}
	return res, tg
}

// Deleting a TenantGenerator: the finalizer, added on the first reconcile,
// keeps it until Finalize has deleted its artifacts and (managed, pruned)
// namespaces (generator's "Finalize" rules); a namespace Terminating is
// not yet gone.
func TestFinalizePrune(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "fp")
	f.tenant("fp-a", "app", "")
	f.tenant("fp-a", "db", "")
	_, tg := f.reconcile()
	if !controllerutil.ContainsFinalizer(tg, v1alpha1.Finalizer) {
		t.Fatalf("finalizers = %v, want %s", tg.Finalizers, v1alpha1.Finalizer)
	}
	f.deleteGenerator()

	res, tg := f.finalizeStep()
	if tg == nil {
		t.Fatal("generator gone while its namespace is terminating")
	}
	if got := f.artifacts("fp-a"); len(got) != 0 {
		t.Errorf("artifacts left in fp-a: %v", got)
	}
	if ns := f.namespace("fp-a"); ns == nil || ns.DeletionTimestamp == nil {
		t.Fatalf("namespace fp-a not being deleted: %+v", ns)
	}
	if diff := cmp.Diff([]string{"Namespace/fp-a"}, subjects(tg)); diff != "" {
		t.Errorf("inventory (-want +got):\n%s", diff)
	}
	if !controllerutil.ContainsFinalizer(tg, v1alpha1.Finalizer) || res.RequeueAfter == 0 {
		t.Errorf("finalizers %v, requeue %v: want the finalizer kept and a requeue", tg.Finalizers, res.RequeueAfter)
	}

	f.finishNamespaceDeletion("fp-a")
	if _, tg := f.finalizeStep(); tg != nil {
		t.Fatalf("generator still there: finalizers %v, inventory %v, Ready %+v", tg.Finalizers, subjects(tg), ready(tg))
	}
}

// With prune off, deleting the generator deletes its artifacts and
// releases its namespaces: they stay, and the generator goes at once.
func TestFinalizeNoPrune(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "fn", withSpec(func(s *v1alpha1.TenantGeneratorSpec) { s.ManagedNamespaces.Prune = false }))
	f.tenant("fn-a", "app", "")
	f.reconcile()
	f.deleteGenerator()
	if _, tg := f.finalizeStep(); tg != nil {
		t.Fatalf("generator still there: inventory %v, Ready %+v", subjects(tg), ready(tg))
	}
	if ns := f.namespace("fn-a"); ns == nil || ns.DeletionTimestamp != nil {
		t.Errorf("namespace fn-a deleted with prune off: %+v", ns)
	}
	if got := f.artifacts("fn-a"); len(got) != 0 {
		t.Errorf("artifacts left in fn-a: %v", got)
	}
}

// A namespace that another generator's ExternalArtifact lives in survives
// the finalize: it is kept, the generator stays with its finalizer, and it
// goes once the other artifact is gone.
func TestFinalizeSurvivor(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "fs")
	f.tenant("fs-a", "app", "")
	f.reconcile()
	other := &unstructured.Unstructured{}
	other.SetAPIVersion("source.toolkit.fluxcd.io/v1")
	other.SetKind("ExternalArtifact")
	other.SetNamespace("fs-a")
	other.SetName("other")
	other.SetLabels(map[string]string{generator.GeneratorLabel: otherUID})
	f.must(unstructured.SetNestedStringMap(other.Object, map[string]string{"kind": "TenantGenerator", "name": "other"}, "spec", "sourceRef"))
	f.must(admin.Create(f.ctx, other))
	f.deleteGenerator()

	for range 2 { // the second pass changes nothing
		res, tg := f.finalizeStep()
		if tg == nil {
			t.Fatal("generator gone while a namespace survives")
		}
		if ns := f.namespace("fs-a"); ns == nil || ns.DeletionTimestamp != nil {
			t.Fatalf("namespace fs-a deleted under another generator's artifact: %+v", ns)
		}
		if got := f.artifacts("fs-a"); !slices.Equal(got, []string{"other"}) {
			t.Errorf("artifacts in fs-a = %v, want only the other generator's", got)
		}
		if diff := cmp.Diff([]string{"Namespace/fs-a"}, subjects(tg)); diff != "" {
			t.Errorf("inventory (-want +got):\n%s", diff)
		}
		if c := ready(tg); c.Status != metav1.ConditionUnknown || c.Reason != v1alpha1.ReasonFinalizing {
			t.Errorf("Ready = %s/%s: %s", c.Status, c.Reason, c.Message)
		}
		if !controllerutil.ContainsFinalizer(tg, v1alpha1.Finalizer) || res.RequeueAfter == 0 {
			t.Errorf("finalizers %v, requeue %v: want the finalizer kept and a requeue", tg.Finalizers, res.RequeueAfter)
		}
	}

	f.must(admin.Delete(f.ctx, other))
	if _, tg := f.finalizeStep(); tg == nil {
		t.Fatal("generator gone while its namespace is terminating")
	}
	if ns := f.namespace("fs-a"); ns == nil || ns.DeletionTimestamp == nil {
		t.Fatalf("namespace fs-a not deleted once free: %+v", ns)
	}
	f.finishNamespaceDeletion("fs-a")
	if _, tg := f.finalizeStep(); tg != nil {
		t.Fatalf("generator still there: inventory %v, Ready %+v", subjects(tg), ready(tg))
	}
}

// A generator that never tracked anything (here it names no service
// account, so it never got further) goes at once when deleted: its spec is
// not needed to tear nothing down.
func TestFinalizeNothingTracked(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "f0", withSpec(func(s *v1alpha1.TenantGeneratorSpec) { s.ServiceAccountName = "" }))
	f.tenant("f0-a", "app", "")
	_, tg := f.reconcile()
	if c := ready(tg); c.Reason != v1alpha1.ReasonNoServiceAccount || !controllerutil.ContainsFinalizer(tg, v1alpha1.Finalizer) {
		t.Fatalf("Ready = %s/%s, finalizers %v: want ServiceAccountRequired and the finalizer", c.Status, c.Reason, tg.Finalizers)
	}
	f.deleteGenerator()
	if _, tg := f.finalizeStep(); tg != nil {
		t.Fatalf("generator still there: Ready %+v", ready(tg))
	}
}
