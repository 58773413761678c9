// Package apiname checks the API group, version and kind of a Kubernetes object type with the
// API server's rules, in one place for the packages that store or name them (finalizer, inventory).
//
// # Rules
//
// The API server serves a kind from a CustomResourceDefinition or an aggregated APIService, so
// the rules, which the built-in kinds meet too, are those of k8s.io/apiextensions-apiserver's
// ValidateCustomResourceDefinitionSpec and ValidateCustomResourceDefinitionNames, and of
// kube-aggregator's ValidateAPIService:
//
//	group   = "" | dns1123-subdomain          ; "" is the core group; <= 253 bytes
//	version = dns1035-label                   ; v1, v1beta2, v1alpha, v2; <= 63 bytes
//	kind    = ascii, and lower-cased a dns1035-label ; ResourceSet, myKind, My-Kind; <= 63 bytes
//
// A CustomResourceDefinition's group must also contain a dot, but the built-in groups (apps,
// batch, policy) do not, so a reference to any object accepts a group without one.
//
// One difference, on purpose: the API server lower-cases a kind before it checks it, and
// strings.ToLower turns the Kelvin sign (U+212A) into an ASCII "k", so it would accept a kind
// "\u212aind" that prints like "Kind". Here a kind must be ASCII as written.
//
// # Errors
//
// Like apimachinery's IsDNS1123Label, each check returns the broken rules as messages (nil for
// none), leaving field paths and error types to its caller. An empty version or kind breaks
// the rules: a caller that reports a missing value as required checks for "" first.
//
// # Concurrency
//
// The checks are pure functions, safe for concurrent use.
package apiname
