package finalizer

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Option configures a [Decider]; pass options to [NewDecider].
type Option func(*options)

type options struct {
	allowedKinds    []schema.GroupKind
	allowedKindsSet bool
}

// WithAllowedKinds restricts hand-offs to finalizers of the given kinds, by
// API group and kind (the version does not matter): a reference to any other
// kind is not a hand-off, and the generator stays accountable
// ([KindNotAllowed]). Without it every kind may take a hand-off. For
// flux-operator's ResourceSet:
//
//	finalizer.WithAllowedKinds(schema.GroupKind{Group: "fluxcd.controlplane.io", Kind: "ResourceSet"})
//
// Use it. Whoever may annotate a namespace can otherwise point its finalizer
// at any object that outlives it, and keep it for ever: a cluster-scoped
// object, an object in another namespace, or an object of a kind the
// generator may not read, whose every lookup is Forbidden. With the list,
// only objects of those kinds, outside the namespace, can keep it.
//
// [NewDecider] refuses an empty list, and a group or kind that breaks the
// rules the API server applies. Several WithAllowedKinds add up.
func WithAllowedKinds(kinds ...schema.GroupKind) Option {
	return func(o *options) {
		o.allowedKinds = append(o.allowedKinds, kinds...)
		o.allowedKindsSet = true
	}
}
