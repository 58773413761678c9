// Package apiname checks the API group, version and kind of a Kubernetes object type with the
// API server's rules, in one place for the packages that store or name them (finalizer, inventory).
//
// # Rules
//
// The rules, which the built-in kinds meet too, are those of a CustomResourceDefinition
// (apiextensions-apiserver's ValidateCustomResourceDefinitionSpec and ...Names) and of an
// aggregated APIService (kube-aggregator's ValidateAPIService):
//
//	group   = "" | dns1123-subdomain          ; "" is the core group; <= 253 bytes
//	version = dns1035-label                   ; v1, v1beta2, v1alpha, v2; <= 63 bytes
//	kind    = ascii, and lower-cased a dns1035-label ; ResourceSet, myKind, My-Kind; <= 63 bytes
//
// A CustomResourceDefinition's group must also contain a dot, but the built-in groups (apps,
// batch, policy) do not, so a reference to any object accepts a group without one.
//
// Stricter than the API server, which lower-cases a kind before it checks it and so accepts a
// kind "\u212aind" (the Kelvin sign) that prints like "Kind": here a kind must be ASCII.
//
// # Errors
//
// Like apimachinery's IsDNS1123Label, each check returns the broken rules as messages (nil for
// none), leaving field paths to its caller. An empty version or kind breaks the rules.
//
// # Concurrency
//
// The checks are pure functions, safe for concurrent use.
package apiname
