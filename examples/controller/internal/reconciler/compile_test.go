package reconciler_test

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/tenantkit/tenantkit/examples/controller/api/v1alpha1"
	"github.com/tenantkit/tenantkit/examples/controller/internal/reconciler"
)

// updateSpec changes the generator's spec as its owner would, and returns
// the generator's new generation.
func (f *fixture) updateSpec(change func(*v1alpha1.TenantGeneratorSpec)) int64 {
	f.t.Helper()
	tg := f.generator()
	before := tg.Generation
	change(&tg.Spec)
	f.must(admin.Update(f.ctx, tg))
	if tg.Generation == before {
		f.t.Fatalf("generation still %d after a spec change", before)
	}
	return tg.Generation
}

// reconcileN runs n reconciles and returns the generator after the last.
func (f *fixture) reconcileN(n int) *v1alpha1.TenantGenerator {
	f.t.Helper()
	var tg *v1alpha1.TenantGenerator
	for range n {
		_, tg = f.reconcile()
	}
	return tg
}

// The spec is compiled once per generation, not per reconcile: several
// reconciles of one generation compile it once, a spec change compiles it
// exactly once more, and a spec that fails to compile is not compiled
// again at the same generation either. The compiled spec is dropped once
// the generator is gone.
func TestCompileOncePerGeneration(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "cpl")
	f.tenant("cpl-a", "app", "")
	compiles := func(want int64, when string) {
		t.Helper()
		if got := reconciler.Compiles(f.r); got != want {
			t.Fatalf("%s: %d compilations, want %d", when, got, want)
		}
		if got := reconciler.CachedSpecs(f.r); got != 1 {
			t.Errorf("%s: %d compiled specs held, want 1", when, got)
		}
	}

	tg := f.reconcileN(3)
	if c := ready(tg); c.Status != metav1.ConditionTrue {
		t.Fatalf("Ready = %s/%s: %s", c.Status, c.Reason, c.Message)
	}
	compiles(1, "three reconciles of generation 1")

	// A new label in commonMetadata: the namespace gets it, so the plan
	// used the new compilation.
	f.updateSpec(func(s *v1alpha1.TenantGeneratorSpec) { s.CommonMetadata.Labels["tenantkit.dev/extra"] = "x" })
	f.reconcileN(3)
	compiles(2, "three reconciles after a spec change")
	if got := f.namespace("cpl-a").Labels["tenantkit.dev/extra"]; got != "x" {
		t.Errorf("namespace label tenantkit.dev/extra = %q, want %q: the new spec was not used", got, "x")
	}

	// A spec that fails: compiled once, then held as failed with the same
	// message.
	f.updateSpec(func(s *v1alpha1.TenantGeneratorSpec) { s.PathPattern = "@repo/tenants/{namespace/modules/{module}" })
	var messages []string
	for range 3 {
		_, tg := f.reconcile()
		c := ready(tg)
		if c.Status != metav1.ConditionFalse || c.Reason != v1alpha1.ReasonInvalidSpec {
			t.Fatalf("Ready = %s/%s, want False/%s", c.Status, c.Reason, v1alpha1.ReasonInvalidSpec)
		}
		messages = append(messages, c.Message)
	}
	compiles(3, "three reconciles of a failing spec")
	if messages[0] == "" || messages[1] != messages[0] || messages[2] != messages[0] {
		t.Errorf("messages of a held failure differ or are empty: %q", messages)
	}

	// Fixed: once more.
	f.updateSpec(func(s *v1alpha1.TenantGeneratorSpec) { s.PathPattern = "@repo/tenants/{namespace}/modules/{module}" })
	tg = f.reconcileN(2)
	if c := ready(tg); c.Status != metav1.ConditionTrue {
		t.Fatalf("after the fix, Ready = %s/%s: %s", c.Status, c.Reason, c.Message)
	}
	compiles(4, "two reconciles after the fix")

	// Another default service account is another input of Compile.
	f.r.DefaultServiceAccount = "other"
	f.reconcileN(2)
	compiles(5, "two reconciles with another default service account")

	// Deleted: the API server increments the generation as it sets the
	// deletion timestamp, so the teardown compiles once, however many
	// reconciles it takes.
	f.must(admin.Delete(f.ctx, f.generator()))
	tg = f.reconcileN(2)
	if c := ready(tg); c.Reason != v1alpha1.ReasonDeletionInProgress {
		t.Fatalf("Ready = %s/%s, want the namespace's deletion in progress: %s", c.Status, c.Reason, c.Message)
	}
	compiles(6, "two reconciles of the deleted generator")
	f.finishNamespaceDeletion("cpl-a")
	f.reconcileUntilGone()
	if got := reconciler.CachedSpecs(f.r); got != 0 {
		t.Errorf("%d compiled specs held once the generator is gone, want 0", got)
	}
	if got := reconciler.Compiles(f.r); got != 6 {
		t.Errorf("%d compilations, want still 6", got)
	}
}

// reconcileUntilGone reconciles until the generator is gone (its finalizer
// removed), then once more, as the deletion event would.
func (f *fixture) reconcileUntilGone() {
	f.t.Helper()
	for i := 0; ; i++ {
		if _, err := f.r.Reconcile(f.ctx, ctrl.Request{NamespacedName: f.key}); err != nil {
			f.t.Fatalf("reconcile: %v", err)
		}
		tg := &v1alpha1.TenantGenerator{}
		if err := admin.Get(f.ctx, f.key, tg); client.IgnoreNotFound(err) != nil {
			f.t.Fatal(err)
		} else if err != nil {
			break
		}
		if i == 3 {
			f.t.Fatalf("still there after %d reconciles: Ready %+v, inventory %v", i+1, ready(tg), subjects(tg))
		}
	}
	if _, err := f.r.Reconcile(f.ctx, ctrl.Request{NamespacedName: f.key}); err != nil {
		f.t.Fatalf("reconcile of a gone generator: %v", err)
	}
}

// A generator deleted and created again under the same name, with the
// same spec, has generation 1 again, but another UID (the generator's
// label values and finalizer references use it): it is compiled afresh
// even when no reconcile saw it gone.
func TestCompileRecreated(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "cpr")
	f.tenant("cpr-a", "app", "")
	f.reconcileN(2)
	old := f.generator()
	if got := reconciler.Compiles(f.r); got != 1 {
		t.Fatalf("%d compilations, want 1", got)
	}

	// Gone without the controller (its finalizer removed by hand), and
	// back.
	patch := client.MergeFrom(old.DeepCopy())
	old.Finalizers = nil
	f.must(admin.Patch(f.ctx, old, patch))
	f.must(admin.Delete(f.ctx, old))
	f.must(admin.Create(f.ctx, &v1alpha1.TenantGenerator{
		ObjectMeta: metav1.ObjectMeta{Namespace: f.key.Namespace, Name: f.key.Name},
		Spec:       old.Spec,
	}))
	renewed := f.generator()
	if renewed.UID == old.UID || renewed.Generation != old.Generation {
		t.Fatalf("recreated: uid %s -> %s, generation %d -> %d; want a new uid at the same generation", old.UID, renewed.UID, old.Generation, renewed.Generation)
	}
	f.reconcileN(2)
	if got := reconciler.Compiles(f.r); got != 2 {
		t.Errorf("%d compilations after the generator was recreated, want 2", got)
	}
	if got := reconciler.CachedSpecs(f.r); got != 1 {
		t.Errorf("%d compiled specs held, want 1 (the new one replaces the old)", got)
	}
}
