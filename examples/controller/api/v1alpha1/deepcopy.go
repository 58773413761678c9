package v1alpha1

import (
	"maps"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// Hand-written deep copies: what controller-gen would generate for these
// types, without downloading it.

// DeepCopyObject implements runtime.Object.
func (in *TenantGenerator) DeepCopyObject() runtime.Object { return in.DeepCopy() }

// DeepCopy returns a deep copy.
func (in *TenantGenerator) DeepCopy() *TenantGenerator {
	if in == nil {
		return nil
	}
	out := new(TenantGenerator)
	out.TypeMeta = in.TypeMeta
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	out.Spec = *in.Spec.DeepCopy()
	out.Status = *in.Status.DeepCopy()
	return out
}

// DeepCopyObject implements runtime.Object.
func (in *TenantGeneratorList) DeepCopyObject() runtime.Object {
	if in == nil {
		return nil
	}
	out := new(TenantGeneratorList)
	out.TypeMeta = in.TypeMeta
	in.ListMeta.DeepCopyInto(&out.ListMeta)
	if in.Items != nil {
		out.Items = make([]TenantGenerator, len(in.Items))
		for i := range in.Items {
			out.Items[i] = *in.Items[i].DeepCopy()
		}
	}
	return out
}

// DeepCopy returns a deep copy.
func (in *TenantGeneratorSpec) DeepCopy() *TenantGeneratorSpec {
	out := *in
	out.CommonMetadata = in.CommonMetadata.deepCopy()
	out.Sources = slices.Clone(in.Sources)
	if in.Artifacts != nil {
		out.Artifacts = make([]Artifact, len(in.Artifacts))
		for i, a := range in.Artifacts {
			a.Copy = slices.Clone(a.Copy)
			for j := range a.Copy {
				a.Copy[j].Exclude = slices.Clone(a.Copy[j].Exclude)
			}
			out.Artifacts[i] = a
		}
	}
	if m := in.ManagedNamespaces; m != nil {
		c := *m
		c.AllowedNames = slices.Clone(m.AllowedNames)
		c.Metadata = m.Metadata.deepCopy()
		out.ManagedNamespaces = &c
	}
	return &out
}

func (in *NamespaceMetadata) deepCopy() *NamespaceMetadata {
	if in == nil {
		return nil
	}
	out := &NamespaceMetadata{}
	if fs := in.FromSource; fs != nil {
		out.FromSource = &FromSource{
			Path:               fs.Path,
			AllowedLabels:      maps.Clone(fs.AllowedLabels),
			AllowedAnnotations: maps.Clone(fs.AllowedAnnotations),
		}
	}
	if in.From != nil {
		out.From = make([]Operation, len(in.From))
		for i, op := range in.From {
			op.Labels = maps.Clone(op.Labels)
			op.Annotations = maps.Clone(op.Annotations)
			out.From[i] = op
		}
	}
	return out
}

func (in *Metadata) deepCopy() *Metadata {
	if in == nil {
		return nil
	}
	return &Metadata{Labels: maps.Clone(in.Labels), Annotations: maps.Clone(in.Annotations)}
}

// DeepCopy returns a deep copy.
func (in *TenantGeneratorStatus) DeepCopy() *TenantGeneratorStatus {
	out := *in
	if in.Conditions != nil {
		out.Conditions = make([]metav1.Condition, len(in.Conditions))
		for i := range in.Conditions {
			in.Conditions[i].DeepCopyInto(&out.Conditions[i])
		}
	}
	out.Inventory = slices.Clone(in.Inventory) // entries hold only strings
	if p := in.LastPlan; p != nil {
		c := *p
		c.Changes = slices.Clone(p.Changes)
		c.Warnings = slices.Clone(p.Warnings)
		c.Errors = slices.Clone(p.Errors)
		out.LastPlan = &c
	}
	return &out
}

// DeepCopyObject implements runtime.Object.
func (in *TenantSet) DeepCopyObject() runtime.Object { return in.DeepCopy() }

// DeepCopy returns a deep copy.
func (in *TenantSet) DeepCopy() *TenantSet {
	if in == nil {
		return nil
	}
	out := new(TenantSet)
	out.TypeMeta = in.TypeMeta
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	in.Spec.Selector.DeepCopyInto(&out.Spec.Selector)
	out.Spec.ServiceAccountName = in.Spec.ServiceAccountName
	out.Status = *in.Status.DeepCopy()
	return out
}

// DeepCopyObject implements runtime.Object.
func (in *TenantSetList) DeepCopyObject() runtime.Object {
	if in == nil {
		return nil
	}
	out := new(TenantSetList)
	out.TypeMeta = in.TypeMeta
	in.ListMeta.DeepCopyInto(&out.ListMeta)
	if in.Items != nil {
		out.Items = make([]TenantSet, len(in.Items))
		for i := range in.Items {
			out.Items[i] = *in.Items[i].DeepCopy()
		}
	}
	return out
}

// DeepCopy returns a deep copy.
func (in *TenantSetStatus) DeepCopy() *TenantSetStatus {
	g := TenantGeneratorStatus{
		ObservedGeneration: in.ObservedGeneration,
		Conditions:         in.Conditions,
		Inventory:          in.Inventory,
		LastPlan:           in.LastPlan,
	}
	c := g.DeepCopy()
	return &TenantSetStatus{ObservedGeneration: c.ObservedGeneration, Conditions: c.Conditions, Inventory: c.Inventory, LastPlan: c.LastPlan}
}
