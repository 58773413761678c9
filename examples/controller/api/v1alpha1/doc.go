// Package v1alpha1 holds the example controller's own API, TenantGenerator in
// the group tenants.tenantkit.dev: the spec is the ArtifactGenerator's
// tenant-provisioning spec (what package generator compiles) and the status
// holds what the controller did with it, in the ArtifactGenerator's shape;
// and TenantSet, a minimal stand-in for flux-operator's ResourceSet that
// renders per-tenant objects from the ExternalArtifacts a TenantGenerator
// writes and takes over deleting the tenants' namespaces.
//
// The types are written by hand, deep-copy functions included, and so is the
// CRD in config/crd: the example downloads no code generator.
package v1alpha1
