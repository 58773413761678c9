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
// labels and annotations are the desired Namespace's metadata. owner must be
// valid, or Stamp returns its *[ParseError] from [Reference.Validate]. When the
// annotation is absent or empty, the namespace is not handed off and Stamp
// returns a copy of annotations (nil for nil). Otherwise the value must be
// [Self] ([ErrNotSelf]) and the namespace must carry no other label or
// annotation ([ErrOtherMetadata]: its metadata belongs to the generator); the
// result holds the stamped annotation only. Stamp returns a new map and never
// modifies its arguments.
func Stamp(labels, annotations map[string]string, owner Reference) (map[string]string, error) {
	if err := owner.Validate(); err != nil {
		return nil, err
	}
	value := annotations[Annotation]
	if value == "" {
		return maps.Clone(annotations), nil
	}
	if value != Self {
		return nil, fmt.Errorf("%w, not %s", ErrNotSelf, quote(value))
	}
	l, a := listKeys(labels, ""), listKeys(annotations, Annotation)
	switch {
	case l != "" && a != "":
		return nil, fmt.Errorf("%w: found labels %s and annotations %s", ErrOtherMetadata, l, a)
	case l != "":
		return nil, fmt.Errorf("%w: found labels %s", ErrOtherMetadata, l)
	case a != "":
		return nil, fmt.Errorf("%w: found annotations %s", ErrOtherMetadata, a)
	}
	return map[string]string{Annotation: owner.String()}, nil
}

// CheckDesired is for the generator: it returns an error wrapping [ErrDesired]
// when its own desired metadata for a namespace (annotations) sets the
// externalFinalizer annotation to a non-empty value, [Self] included. The
// hand-off must come from the finalizing controller; a generator that applied
// it itself would let whoever writes its inputs make it leak the namespace. For
// example CheckDesired(map[string]string{Annotation: "self"}) fails.
func CheckDesired(annotations map[string]string) error {
	if value := annotations[Annotation]; value != "" {
		return fmt.Errorf("%w: found %s", ErrDesired, quote(value))
	}
	return nil
}
