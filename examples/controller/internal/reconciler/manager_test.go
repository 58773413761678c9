package reconciler_test

import (
	"context"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
)

// The reconciler wired into a manager, as main does, running as the
// controller's own user: a new TenantGenerator gets reconciled through the
// watch. The manager's cache is limited to the fixture's namespace, so that
// it leaves the other tests' generators alone.
func TestManager(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "mgr")
	f.tenant("mgr-a", "app", "")
	mgr, err := ctrl.NewManager(controllerCfg, ctrl.Options{
		Scheme:                 scheme,
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		Cache:                  cache.Options{DefaultNamespaces: map[string]cache.Config{f.key.Namespace: {}}},
	})
	f.must(err)
	f.r.Client = mgr.GetClient()
	f.must(f.r.SetupWithManager(mgr))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	}()

	// Wait for the watch to deliver the generator and the reconcile to
	// finish; the deadline only bounds a broken run.
	deadline := time.Now().Add(60 * time.Second)
	for {
		tg := f.generator()
		if c := ready(tg); c.Status == metav1.ConditionTrue && inventoryHas(tg, "ExternalArtifact/mgr-a/app") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("not reconciled: Ready %+v, inventory %v", ready(tg), subjects(tg))
		}
		time.Sleep(100 * time.Millisecond)
	}
	if f.artifact("mgr-a", "app") == nil {
		t.Error("artifact not created")
	}
}
