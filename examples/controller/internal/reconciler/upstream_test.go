package reconciler_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/tenantkit/tenantkit/examples/controller/api/v1alpha1"
	"github.com/tenantkit/tenantkit/generator"
)

// releasedNamespaces is spec.managedNamespaces with every field of released
// source-watcher v2.3's shape set, for the tenants "up-*": two name
// expressions, prune, a fromSource schema of CEL rules for a label and an
// annotation, and a from operation.
func releasedNamespaces() *v1alpha1.ManagedNamespaces {
	return &v1alpha1.ManagedNamespaces{
		AllowedNames: []string{"ns.startsWith('up-')", "ns == 'other'"},
		Prune:        true,
		Metadata: &v1alpha1.NamespaceMetadata{
			FromSource: &v1alpha1.FromSource{
				Path:               "@repo/tenants/{namespace}/namespace.yaml",
				AllowedLabels:      map[string]string{"team": "value.matches('^[a-z]+$')"},
				AllowedAnnotations: map[string]string{"tenantkit.dev/owner": "value.endsWith('@example.com')"},
			},
			// Merge adds only the keys the file did not set: tier, not team.
			From: []v1alpha1.Operation{{Strategy: "Merge", Namespace: "*", Labels: map[string]string{"tier": "bronze", "team": "none"}}},
		},
	}
}

// A TenantGenerator with every field of released source-watcher v2.3's
// spec.managedNamespaces is stored by the API server as it was sent (the
// CRD's structural schema prunes none of it) and provisions a tenant's
// namespace, with the label and annotation its NamespaceMetadata file asks
// for under the CEL schema, then the from operation, and its artifact.
func TestReleasedShape(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "up", withSpec(func(s *v1alpha1.TenantGeneratorSpec) { s.ManagedNamespaces = releasedNamespaces() }))
	f.tenant("up-a", "app", "")
	f.namespaceFile("up-a", "apiVersion: source.extensions.fluxcd.io/v1beta1\nkind: NamespaceMetadata\nmetadata:\n  labels:\n    team: payments\n  annotations:\n    tenantkit.dev/owner: a@example.com\n")

	if diff := cmp.Diff(releasedNamespaces(), f.generator().Spec.ManagedNamespaces); diff != "" {
		t.Fatalf("spec.managedNamespaces as stored (-sent +stored):\n%s", diff)
	}
	_, tg := f.reconcile()
	if c := ready(tg); c.Status != metav1.ConditionTrue || c.Reason != v1alpha1.ReasonSucceeded {
		t.Fatalf("Ready = %s/%s: %s", c.Status, c.Reason, c.Message)
	}
	ns := f.namespace("up-a")
	if ns == nil {
		t.Fatal("namespace up-a not created")
	}
	want := map[string]string{"tenantkit.dev/fixture": "up", "team": "payments", "tier": "bronze", generator.GeneratorLabel: string(tg.UID)}
	if diff := cmp.Diff(want, withoutServerLabels(ns.Labels)); diff != "" {
		t.Errorf("namespace labels (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]string{"tenantkit.dev/owner": "a@example.com"}, ns.Annotations); diff != "" {
		t.Errorf("namespace annotations (-want +got):\n%s", diff)
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

	// A label the CEL rule refuses is an error of that tenant, which is
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

// The unreleased spec.namespaces shape is gone: the API server refuses it
// as an unknown field when asked to validate strictly (kubectl's default),
// and otherwise prunes it.
func TestUnreleasedShapeRefused(t *testing.T) {
	t.Parallel()
	manifest := `apiVersion: tenants.tenantkit.dev/v1alpha1
kind: TenantGenerator
metadata: {namespace: default, generateName: schema-}
spec:
  sources: [{alias: repo}]
  artifacts: [{name: a, copy: [{from: "@repo/x", to: "@artifact/"}]}]
  namespaces: {strategy: Managed, prune: true}
`
	u := &unstructured.Unstructured{}
	if err := yaml.Unmarshal([]byte(manifest), &u.Object); err != nil {
		t.Fatal(err)
	}
	err := admin.Create(t.Context(), u.DeepCopy(), client.DryRunAll, client.FieldValidation("Strict"))
	if want := `unknown field "spec.namespaces"`; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("strict create = %v, want an error with %s", err, want)
	}
	created := u.DeepCopy()
	if err := admin.Create(t.Context(), created, client.DryRunAll, client.FieldValidation("Ignore")); err != nil {
		t.Fatalf("create = %v", err)
	}
	if _, found, _ := unstructured.NestedFieldNoCopy(created.Object, "spec", "namespaces"); found {
		t.Errorf("spec.namespaces kept: %v", created.Object["spec"])
	}
}
