package reconciler_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
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

// schemaCause is one cause of an Invalid error: the field and the
// message.
type schemaCause struct {
	field, message string
}

// createManifest creates, as a dry run, a TenantGenerator whose
// spec.managedNamespaces is the YAML mn, and returns the error and, when it
// is Invalid, its causes.
func createManifest(t *testing.T, mn string) ([]schemaCause, error) {
	t.Helper()
	manifest := `apiVersion: tenants.tenantkit.dev/v1alpha1
kind: TenantGenerator
metadata: {namespace: default, generateName: schema-}
spec:
  sources: [{alias: repo}]
  artifacts: [{name: a, copy: [{from: "@repo/x", to: "@artifact/"}]}]
  managedNamespaces: ` + mn + "\n"
	u := &unstructured.Unstructured{}
	if err := yaml.Unmarshal([]byte(manifest), &u.Object); err != nil {
		t.Fatalf("manifest: %v", err)
	}
	err := admin.Create(t.Context(), u, client.DryRunAll)
	var status apierrors.APIStatus
	if !apierrors.IsInvalid(err) || !errors.As(err, &status) || status.Status().Details == nil {
		return nil, err
	}
	var causes []schemaCause
	for _, c := range status.Status().Details.Causes {
		causes = append(causes, schemaCause{c.Field, c.Message})
	}
	return causes, err
}

// The CRD refuses what released source-watcher v2.3's markers and rules
// refuse under spec.managedNamespaces, one case per marker, each with the
// field and the rule, and accepts what they accept.
func TestReleasedShapeSchema(t *testing.T) {
	t.Parallel()
	const mn = "spec.managedNamespaces"
	// With some schema errors (a required field missing, an unsupported
	// value, a string too long) the API server adds that it did not run
	// the CEL rules.
	notChecked := schemaCause{"<nil>", "Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation"}
	refused := map[string]struct {
		mn   string
		want []schemaCause
	}{
		"allowedNames missing": {
			mn:   `{prune: true}`,
			want: []schemaCause{{mn + ".allowedNames", "Required value"}, notChecked},
		},
		"allowedNames empty": {
			mn:   `{allowedNames: [], prune: true}`,
			want: []schemaCause{{mn + ".allowedNames", "Invalid value: 0: spec.managedNamespaces.allowedNames in body should have at least 1 items"}},
		},
		"prune missing": {
			mn:   `{allowedNames: ["true"]}`,
			want: []schemaCause{{mn + ".prune", "Required value"}, notChecked},
		},
		"metadata empty": {
			mn:   `{allowedNames: ["true"], prune: true, metadata: {}}`,
			want: []schemaCause{{mn + ".metadata", `Invalid value: either fromSource or at least one from operation must be set`}},
		},
		"metadata with no from operation": {
			mn:   `{allowedNames: ["true"], prune: true, metadata: {from: []}}`,
			want: []schemaCause{{mn + ".metadata", `Invalid value: either fromSource or at least one from operation must be set`}},
		},
		"fromSource without rules": {
			mn:   `{allowedNames: ["true"], prune: true, metadata: {fromSource: {path: "@repo/ns.yaml"}}}`,
			want: []schemaCause{{mn + ".metadata.fromSource", `Invalid value: at least one annotation or label must be set`}},
		},
		"fromSource with empty rules": {
			mn:   `{allowedNames: ["true"], prune: true, metadata: {fromSource: {path: "@repo/ns.yaml", allowedLabels: {}, allowedAnnotations: {}}}}`,
			want: []schemaCause{{mn + ".metadata.fromSource", `Invalid value: at least one annotation or label must be set`}},
		},
		"fromSource without path": {
			mn:   `{allowedNames: ["true"], prune: true, metadata: {fromSource: {allowedLabels: {team: "true"}}}}`,
			want: []schemaCause{{mn + ".metadata.fromSource.path", "Required value"}, notChecked},
		},
		"fromSource path without alias": {
			mn:   `{allowedNames: ["true"], prune: true, metadata: {fromSource: {path: "ns.yaml", allowedLabels: {team: "true"}}}}`,
			want: []schemaCause{{mn + ".metadata.fromSource.path", `Invalid value: "ns.yaml": spec.managedNamespaces.metadata.fromSource.path in body should match '^@([a-z0-9]([a-z0-9_-]*[a-z0-9])?)/(.*)$'`}},
		},
		"fromSource path too long": {
			mn:   `{allowedNames: ["true"], prune: true, metadata: {fromSource: {path: "@repo/` + strings.Repeat("x", 1019) + `", allowedLabels: {team: "true"}}}}`,
			want: []schemaCause{{mn + ".metadata.fromSource.path", "Too long: may not be more than 1024 bytes"}, notChecked},
		},
		"from without strategy": {
			mn:   `{allowedNames: ["true"], prune: true, metadata: {from: [{namespace: "*"}]}}`,
			want: []schemaCause{{mn + ".metadata.from[0].strategy", "Required value"}, notChecked},
		},
		"from strategy unknown": {
			mn:   `{allowedNames: ["true"], prune: true, metadata: {from: [{strategy: Replace, namespace: "*"}]}}`,
			want: []schemaCause{{mn + ".metadata.from[0].strategy", `Unsupported value: "Replace": supported values: "Reset", "Override", "Merge"`}, notChecked},
		},
		"from without namespace": {
			mn:   `{allowedNames: ["true"], prune: true, metadata: {from: [{strategy: Merge}]}}`,
			want: []schemaCause{{mn + ".metadata.from[0].namespace", "Required value"}, notChecked},
		},
		"from namespace not a name": {
			mn:   `{allowedNames: ["true"], prune: true, metadata: {from: [{strategy: Merge, namespace: Tenant_A}]}}`,
			want: []schemaCause{{mn + ".metadata.from[0].namespace", `Invalid value: "Tenant_A": spec.managedNamespaces.metadata.from[0].namespace in body should match '^(\*|[a-z0-9]([-a-z0-9]*[a-z0-9])?)$'`}},
		},
		"from namespace too long": {
			mn:   `{allowedNames: ["true"], prune: true, metadata: {from: [{strategy: Merge, namespace: ` + strings.Repeat("a", 64) + `}]}}`,
			want: []schemaCause{{mn + ".metadata.from[0].namespace", "Too long: may not be more than 63 bytes"}, notChecked},
		},
	}
	for name, tc := range refused {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got, err := createManifest(t, tc.mn)
			if !apierrors.IsInvalid(err) {
				t.Fatalf("create = %v, want Invalid", err)
			}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(schemaCause{})); diff != "" {
				t.Errorf("causes (-want +got):\n%s\nerror: %v", diff, err)
			}
		})
	}

	accepted := map[string]string{
		"no metadata":             `{allowedNames: ["true"], prune: false}`,
		"from only":               `{allowedNames: ["true"], prune: true, metadata: {from: [{strategy: Reset, namespace: "*"}, {strategy: Override, namespace: tenant-a, labels: {tier: gold}}]}}`,
		"fromSource, labels only": `{allowedNames: ["true"], prune: true, metadata: {fromSource: {path: "@repo/{namespace}/ns.yaml", allowedLabels: {team: "true"}}}}`,
		"fromSource, annotations": `{allowedNames: ["true"], prune: true, metadata: {fromSource: {path: "@repo/ns.yaml", allowedAnnotations: {owner: "true"}}}}`,
		"from namespace of 63":    `{allowedNames: ["true"], prune: true, metadata: {from: [{strategy: Merge, namespace: ` + strings.Repeat("a", 63) + `}]}}`,
		"fromSource path of 1024": `{allowedNames: ["true"], prune: true, metadata: {fromSource: {path: "@repo/` + strings.Repeat("x", 1018) + `", allowedLabels: {team: "true"}}}}`,
	}
	for name, mn := range accepted {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if _, err := createManifest(t, mn); err != nil {
				t.Fatalf("create = %v, want accepted", err)
			}
		})
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
