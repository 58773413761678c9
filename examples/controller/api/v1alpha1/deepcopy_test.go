package v1alpha1

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tenantkit/tenantkit/inventory"
)

// full returns a spec with every pointer, slice and map set.
func full() *TenantGeneratorSpec {
	return &TenantGeneratorSpec{
		PathPattern:    "@repo/tenants/{namespace}",
		CommonMetadata: &Metadata{Labels: map[string]string{"l": "v"}, Annotations: map[string]string{"a": "v"}},
		Sources:        []Source{{Alias: "repo"}},
		Artifacts:      []Artifact{{Name: "app", Copy: []Copy{{From: "@repo/x", To: "@artifact/", Exclude: []string{"*.md"}}}}},
		ManagedNamespaces: &ManagedNamespaces{AllowedNames: []string{"true"}, Prune: true, Metadata: &NamespaceMetadata{
			FromSource: &FromSource{Path: "@repo/ns.yaml", AllowedLabels: map[string]string{"team": "value.matches('^[a-z]+$')"}, AllowedAnnotations: map[string]string{"a": "true"}},
			From:       []Operation{{Strategy: "Merge", Namespace: "*", Labels: map[string]string{"tier": "bronze"}, Annotations: map[string]string{"n": "v"}}},
		}},
	}
}

// A deep copy is equal, and changing every reference of the copy leaves
// the original as it was.
func TestSpecDeepCopy(t *testing.T) {
	t.Parallel()
	in := full()
	out := in.DeepCopy()
	if diff := cmp.Diff(in, out); diff != "" {
		t.Fatalf("copy differs (-in +out):\n%s", diff)
	}
	out.CommonMetadata.Labels["l"] = "x"
	out.Sources[0].Alias = "x"
	out.Artifacts[0].Copy[0].Exclude[0] = "x"
	m := out.ManagedNamespaces.Metadata
	m.FromSource.AllowedLabels["team"] = "x"
	m.FromSource.AllowedAnnotations["a"] = "x"
	m.From[0].Labels["tier"] = "x"
	m.From[0].Annotations["n"] = "x"
	out.ManagedNamespaces.Prune = false
	out.ManagedNamespaces.AllowedNames[0] = "x"
	if diff := cmp.Diff(full(), in); diff != "" {
		t.Errorf("original changed through the copy (-want +got):\n%s", diff)
	}
}

// The same for a TenantSet, spec and status.
func TestTenantSetDeepCopy(t *testing.T) {
	t.Parallel()
	full := func() *TenantSet {
		return &TenantSet{
			ObjectMeta: metav1.ObjectMeta{Name: "tenants", Labels: map[string]string{"l": "v"}},
			Spec: TenantSetSpec{ServiceAccountName: "sa", Selector: metav1.LabelSelector{
				MatchLabels:      map[string]string{"team": "a"},
				MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "k", Operator: metav1.LabelSelectorOpIn, Values: []string{"x"}}},
			}},
			Status: TenantSetStatus{
				Conditions: []metav1.Condition{{Type: ConditionReady, Reason: ReasonSucceeded}},
				Inventory:  []inventory.Entry{{APIVersion: "v1", Kind: "Namespace", Name: "a"}},
				LastPlan:   &PlanSummary{Changes: []string{"Namespace/a created"}, Warnings: []string{"w"}, Errors: []string{"e"}},
			},
		}
	}
	in := full()
	out := in.DeepCopy()
	if diff := cmp.Diff(in, out); diff != "" {
		t.Fatalf("copy differs (-in +out):\n%s", diff)
	}
	out.Labels["l"] = "x"
	out.Spec.Selector.MatchLabels["team"] = "x"
	out.Spec.Selector.MatchExpressions[0].Values[0] = "y"
	out.Status.Conditions[0].Reason = "x"
	out.Status.Inventory[0].Name = "x"
	out.Status.LastPlan.Changes[0] = "x"
	out.Status.LastPlan.Warnings[0] = "x"
	out.Status.LastPlan.Errors[0] = "x"
	if diff := cmp.Diff(full(), in); diff != "" {
		t.Errorf("original changed through the copy (-want +got):\n%s", diff)
	}
}
