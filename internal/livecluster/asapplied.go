package livecluster

import (
	"github.com/tenantkit/tenantkit/generator"
	"github.com/tenantkit/tenantkit/inventory"
)

// Assumed is what [AsApplied] assumes of the cluster, in words for a
// preview's output: the preview tool (examples/plan, without -cluster)
// and the policy tests (generator/generatortest, a case without cluster)
// print it after their own "no live cluster given" and the key that gives
// one, so that the two say the same thing for the same assumption.
const Assumed = "assuming every desired namespace exists as planned and every other object without labels or annotations, " +
	"with no external finalizer and no other generator's ExternalArtifact: deletions are planned as if every object were deletable"

// AsApplied returns the cluster that a preview assumes when it is given
// none: each of namespaces exists with its labels and annotations, as the
// generator applies it, so that it is neither adopted nor drifted; every
// other object the plan reads exists without labels or annotations, so
// that nothing stale is released or kept for what its live copy says; and
// nothing else exists: no ExternalArtifact in a namespace, no object that
// an external finalizer names. namespaces are those of a plan made with
// an empty generator.Cluster, which reads nothing.
//
//	first, _ := g.Plan(ctx, sources, previous, generator.Cluster{})
//	p, _ := g.Plan(ctx, sources, previous, livecluster.AsApplied(first.Namespaces).Generator())
func AsApplied(namespaces []generator.Namespace) *Cluster {
	applied := make(map[string]generator.Namespace, len(namespaces))
	for _, ns := range namespaces {
		applied[ns.Name] = ns
	}
	return &Cluster{Absent: func(id inventory.ID) generator.Object {
		if ns, ok := applied[id.Name]; ok && id.IsNamespace() {
			return generator.Object{ID: id, Labels: ns.Labels, Annotations: ns.Annotations}
		}
		return generator.Object{ID: id}
	}}
}
