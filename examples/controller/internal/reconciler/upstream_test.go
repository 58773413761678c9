package reconciler_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/tenantkit/tenantkit/examples/controller/api/v1alpha1"
	"github.com/tenantkit/tenantkit/generator"
)

// upstreamShape replaces the fixture's spec.managedNamespaces with
// source-watcher v2.3's spec.namespaces: the Managed strategy, prune, and
// a fromSource schema of regular expressions.
func upstreamShape(prune bool) fixtureOption {
	return withSpec(func(s *v1alpha1.TenantGeneratorSpec) {
		s.ManagedNamespaces = nil
		s.Namespaces = &v1alpha1.Namespaces{
			Strategy: v1alpha1.NamespacesManaged,
			Prune:    &prune,
			Metadata: &v1alpha1.NamespaceMetadata{FromSource: &v1alpha1.FromSource{
				Path:          "@repo/tenants/{namespace}/namespace.yaml",
				AllowedLabels: map[string]string{"team": "^[a-z]+$"},
			}},
		}
	})
}

// A TenantGenerator in source-watcher v2.3's shape, stored by the API
// server as the CRD accepts it, provisions a tenant's namespace (with the
// label its NamespaceMetadata file asks for, under the regexp schema) and
// its artifact.
func TestUpstreamShape(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "up", upstreamShape(true))
	f.tenant("up-a", "app", "")
	f.namespaceFile("up-a", "apiVersion: source.extensions.fluxcd.io/v1beta1\nkind: NamespaceMetadata\nmetadata:\n  labels:\n    team: payments\n")

	stored := f.generator()
	if stored.Spec.Namespaces == nil || stored.Spec.Namespaces.Strategy != "Managed" || stored.Spec.Namespaces.Metadata.FromSource.AllowedLabels["team"] != "^[a-z]+$" {
		t.Fatalf("spec.namespaces as stored = %+v", stored.Spec.Namespaces)
	}
	_, tg := f.reconcile()
	if c := ready(tg); c.Status != metav1.ConditionTrue || c.Reason != v1alpha1.ReasonSucceeded {
		t.Fatalf("Ready = %s/%s: %s", c.Status, c.Reason, c.Message)
	}
	ns := f.namespace("up-a")
	if ns == nil {
		t.Fatal("namespace up-a not created")
	}
	want := map[string]string{"tenantkit.dev/fixture": "up", "team": "payments", generator.GeneratorLabel: string(tg.UID)}
	if diff := cmp.Diff(want, withoutServerLabels(ns.Labels)); diff != "" {
		t.Errorf("namespace labels (-want +got):\n%s", diff)
	}
	a := f.artifact("up-a", "app")
	if a == nil {
		t.Fatal("artifact up-a/app not created")
	}
	if d, _, _ := unstructured.NestedString(a.Object, "status", "artifact", "digest"); d == "" {
		t.Error("artifact has no digest in its status")
	}
	if diff := cmp.Diff([]string{"Namespace/up-a", "ExternalArtifact/up-a/app"}, subjects(tg)); diff != "" {
		t.Errorf("inventory (-want +got):\n%s", diff)
	}

	// A label the regexp refuses is an error of that tenant, which is
	// skipped: nothing is written, nothing deleted.
	f.namespaceFile("up-a", "apiVersion: source.extensions.fluxcd.io/v1beta1\nkind: NamespaceMetadata\nmetadata:\n  labels:\n    team: Payments-1\n")
	_, tg = f.reconcile()
	if got := f.namespace("up-a").Labels["team"]; got != "payments" {
		t.Errorf("namespace label team = %q after a refused file, want payments kept", got)
	}
	if f.artifact("up-a", "app") == nil {
		t.Error("artifact deleted after a refused metadata file")
	}
	if s := tg.Status.LastPlan; s == nil || s.Skip == 0 {
		t.Errorf("last plan = %+v, want skipped objects", s)
	}
}

// The CRD refuses a strategy that upstream's does not know, and a
// namespaces block without one.
func TestUpstreamShapeSchema(t *testing.T) {
	t.Parallel()
	for name, ns := range map[string]*v1alpha1.Namespaces{
		"unknown strategy": {Strategy: "Sometimes"},
		"no strategy":      {},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			tg := &v1alpha1.TenantGenerator{
				ObjectMeta: metav1.ObjectMeta{Namespace: "default", GenerateName: "schema-"},
				Spec: v1alpha1.TenantGeneratorSpec{
					Sources:    []v1alpha1.Source{{Alias: "repo"}},
					Artifacts:  []v1alpha1.Artifact{{Name: "a", Copy: []v1alpha1.Copy{{From: "@repo/x", To: "@artifact/"}}}},
					Namespaces: ns,
				},
			}
			err := admin.Create(t.Context(), tg)
			if err == nil || !apierrors.IsInvalid(err) {
				t.Fatalf("create = %v, want Invalid", err)
			}
		})
	}
}
