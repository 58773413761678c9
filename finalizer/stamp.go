package finalizer

import (
	"fmt"
	"maps"
	"strings"
)

// Stamp is for the finalizing controller (a ResourceSet, say) about to apply a desired
// Namespace: it replaces the placeholder [Self] in the externalFinalizer annotation with the
// owner's reference, for example Stamp(nil, map[string]string{Annotation: Self}, owner)
// returns map[string]string{Annotation: owner.String()}.
//
// labels and annotations are the Namespace's metadata as rendered from the platform team's
// manifest. A value other than [Self], or any other label or annotation (the generator's),
// is an error wrapping [ErrStamp], except the owner labels that Flux's
// ssa.ResourceManager.SetOwnerLabels writes for an owner of a named API group, with exactly
// these values, so that flux-operator may stamp before or after adding them
// (resourceset.fluxcd.controlplane.io/name and /namespace for a ResourceSet, whose
// spec.commonMetadata is refused):
//
//	<lower-case kind>.<group>/name       owner.Name
//	<lower-case kind>.<group>/namespace  owner.Namespace ("" for a cluster-scoped owner)
//
// owner must be valid, or Stamp returns its *[ParseError] from [Reference.Validate]. An
// absent or empty annotation is no hand-off: Stamp returns a copy of annotations (nil for
// nil). A stamped result holds the annotation only; the caller keeps its labels. Stamp
// returns a new map and never modifies its arguments.
func Stamp(labels, annotations map[string]string, owner Reference) (map[string]string, error) {
	if err := owner.Validate(); err != nil {
		return nil, err
	}
	value := annotations[Annotation]
	if value == "" {
		return maps.Clone(annotations), nil
	}
	if value != Self {
		return nil, fmt.Errorf("%w: annotation %s must be %q, not %s", ErrStamp, Annotation, Self, quote(value))
	}
	const rule = "must carry no labels or annotations besides " + Annotation
	l, a := listKeys(withoutOwnerLabels(labels, owner), ""), listKeys(annotations, Annotation)
	switch {
	case l != "" && a != "":
		return nil, fmt.Errorf("%w: %s: found labels %s and annotations %s", ErrStamp, rule, l, a)
	case l != "":
		return nil, fmt.Errorf("%w: %s: found labels %s", ErrStamp, rule, l)
	case a != "":
		return nil, fmt.Errorf("%w: %s: found annotations %s", ErrStamp, rule, a)
	}
	return map[string]string{Annotation: owner.String()}, nil
}

// withoutOwnerLabels returns a copy of labels without the SetOwnerLabels labels carrying
// owner's name and namespace; labels itself for an owner of the core group.
func withoutOwnerLabels(labels map[string]string, owner Reference) map[string]string {
	if owner.Group == "" {
		return labels
	}
	prefix := strings.ToLower(owner.Kind) + "." + owner.Group
	rest := maps.Clone(labels)
	if rest[prefix+"/name"] == owner.Name {
		delete(rest, prefix+"/name")
	}
	if rest[prefix+"/namespace"] == owner.Namespace {
		delete(rest, prefix+"/namespace")
	}
	return rest
}
