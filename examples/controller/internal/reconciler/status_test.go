package reconciler_test

import (
	"net/http"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/tenantkit/tenantkit/examples/controller/api/v1alpha1"
	"github.com/tenantkit/tenantkit/examples/controller/internal/reconciler"
)

// conditions returns the status of Ready, Reconciling and Stalled with
// their reasons, "" for an absent one.
func conditions(tg *v1alpha1.TenantGenerator) map[string]string {
	out := map[string]string{}
	for _, t := range []string{v1alpha1.ConditionReady, v1alpha1.ConditionReconciling, v1alpha1.ConditionStalled} {
		if c := meta.FindStatusCondition(tg.Status.Conditions, t); c != nil {
			out[t] = string(c.Status) + "/" + c.Reason
		} else {
			out[t] = ""
		}
	}
	return out
}

// Reconciling and Stalled beside Ready, as kstatus reads them: neither
// after a success; Stalled when only a spec change helps; Reconciling
// while a retry has work left, gone once it is done.
func TestConditions(t *testing.T) {
	t.Parallel()
	t.Run("succeeded", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, "cs1")
		f.tenant("cs1-a", "app", "")
		_, tg := f.reconcile()
		want := map[string]string{"Ready": "True/ReconciliationSucceeded", "Reconciling": "", "Stalled": ""}
		if diff := cmp.Diff(want, conditions(tg)); diff != "" {
			t.Errorf("conditions (-want +got):\n%s", diff)
		}
	})
	t.Run("stalled", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, "cs2", withSpec(func(s *v1alpha1.TenantGeneratorSpec) {
			s.PathPattern = "@repo/tenants/{namespace/modules/{module}"
		}))
		_, tg := f.reconcile()
		want := map[string]string{"Ready": "False/InvalidSpec", "Reconciling": "", "Stalled": "True/InvalidSpec"}
		if diff := cmp.Diff(want, conditions(tg)); diff != "" {
			t.Errorf("conditions (-want +got):\n%s", diff)
		}
	})
	t.Run("reconciling", func(t *testing.T) {
		t.Parallel()
		f := newFixture(t, "cs3")
		f.tenant("cs3-a", "app", "")
		f.tenant("cs3-b", "app", "")
		f.reconcile()
		f.removeTenant("cs3-b")
		_, tg := f.reconcile()
		want := map[string]string{"Ready": "Unknown/DeletionInProgress", "Reconciling": "True/ProgressingWithRetry", "Stalled": ""}
		if diff := cmp.Diff(want, conditions(tg)); diff != "" {
			t.Errorf("while the namespace terminates (-want +got):\n%s", diff)
		}
		f.finishNamespaceDeletion("cs3-b")
		_, tg = f.reconcile()
		want = map[string]string{"Ready": "True/ReconciliationSucceeded", "Reconciling": "", "Stalled": ""}
		if diff := cmp.Diff(want, conditions(tg)); diff != "" {
			t.Errorf("once it is gone (-want +got):\n%s", diff)
		}
	})
}

// writeCounter counts the requests that are not reads (GET, HEAD), by
// method and path, of every client made from its config: the reconciler's
// own and the impersonated ones (rest.CopyConfig keeps WrapTransport).
type writeCounter struct {
	mu     sync.Mutex
	writes []string
}

func (w *writeCounter) wrap(rt http.RoundTripper) http.RoundTripper {
	return roundTripperFunc(func(req *http.Request) (*http.Response, error) {
		if req.Method != http.MethodGet && req.Method != http.MethodHead {
			w.mu.Lock()
			w.writes = append(w.writes, req.Method+" "+req.URL.Path)
			w.mu.Unlock()
		}
		return rt.RoundTrip(req)
	})
}

func (w *writeCounter) take() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := w.writes
	w.writes = nil
	return out
}

type roundTripperFunc func(*http.Request) (*http.Response, error)

func (f roundTripperFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// A reconcile whose spec and sources did not change makes no API write:
// no apply, no delete, no status patch. The second reconcile still writes
// the status once (its lastPlan says "unchanged" where the first said
// "created"); the third writes nothing.
func TestNoWriteWhenUnchanged(t *testing.T) {
	t.Parallel()
	counter := &writeCounter{}
	f := newFixture(t, "nwr", withReconciler(func(r *reconciler.Reconciler) {
		cfg := rest.CopyConfig(controllerCfg)
		cfg.WrapTransport = counter.wrap
		c, err := client.New(cfg, client.Options{Scheme: scheme})
		if err != nil {
			t.Fatal(err)
		}
		r.Config, r.Client = cfg, c
	}))
	f.tenant("nwr-a", "app", "")
	f.tenant("nwr-b", "app", "")

	_, tg := f.reconcile()
	if c := ready(tg); c.Status != metav1.ConditionTrue {
		t.Fatalf("Ready = %s/%s: %s", c.Status, c.Reason, c.Message)
	}
	if got := counter.take(); len(got) == 0 {
		t.Fatal("the first reconcile wrote nothing: the counter counts nothing")
	}
	f.reconcile()
	want := []string{"PATCH /apis/tenants.tenantkit.dev/v1alpha1/namespaces/gen-nwr/tenantgenerators/tenants/status"}
	if diff := cmp.Diff(want, counter.take()); diff != "" {
		t.Errorf("second reconcile's writes (-want +got):\n%s", diff)
	}
	rv := f.generator().ResourceVersion
	_, tg = f.reconcile()
	if got := counter.take(); len(got) != 0 {
		t.Errorf("third reconcile wrote %v, want nothing", got)
	}
	if tg.ResourceVersion != rv {
		t.Errorf("generator resourceVersion %s -> %s", rv, tg.ResourceVersion)
	}
}
