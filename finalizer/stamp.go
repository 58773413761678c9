package finalizer

import (
	"fmt"
	"maps"
)

// Stamp is for the finalizing controller (a ResourceSet, say) about to apply a
// desired Namespace: it replaces the placeholder [Self] in the externalFinalizer
// annotation with the owner's reference, for example
// Stamp(nil, map[string]string{Annotation: Self}, owner) returns
// map[string]string{Annotation: owner.String()}.
//
// labels and annotations are the desired Namespace's metadata as rendered from
// the platform team's manifest, before the controller adds metadata of its
// own: flux-operator must call Stamp before it sets its owner labels
// (resourceset.fluxcd.controlplane.io/name and /namespace), and add them to
// the result, or Stamp refuses the Namespace for carrying them.
//
// owner must be valid, or Stamp returns its *[ParseError] from
// [Reference.Validate]. When the annotation is absent or empty, the namespace
// is not handed off and Stamp returns a copy of annotations (nil for nil).
// Otherwise the value must be [Self] and the namespace must carry no other
// label or annotation (its metadata belongs to the generator), or Stamp
// returns an error wrapping [ErrStamp]; the result holds the stamped
// annotation only. Stamp returns a new map and never modifies its arguments.
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
	l, a := listKeys(labels, ""), listKeys(annotations, Annotation)
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
