package generator

import "github.com/tenantkit/tenantkit/nsmeta"

// The spec types mirror the tenant-provisioning ArtifactGenerator spec
// (source.extensions.fluxcd.io/v1beta1), with the CRD's JSON field names, so
// that a controller can convert its API object field by field, and a tool can
// decode a manifest's spec into them directly.

// Spec is the spec of an ArtifactGenerator, as far as planning needs it.
// Compile validates it; the zero Spec is not valid (it has no pattern).
type Spec struct {
	// ServiceAccountName is the account the controller impersonates. Managing
	// namespaces requires it, or a default given with
	// [WithDefaultServiceAccount].
	ServiceAccountName string `json:"serviceAccountName,omitempty"`
	// PathPattern discovers tenants and modules, e.g.
	// "@repo/tenants/{namespace}/modules/{module}".
	PathPattern string `json:"pathPattern,omitempty"`
	// CommonMetadata is spec.commonMetadata: it goes on every namespace
	// (first step of the metadata pipeline) and, labels only, on every
	// artifact.
	CommonMetadata *nsmeta.Metadata `json:"commonMetadata,omitempty"`
	// Sources declares the aliases that the pattern and references use.
	Sources []SourceReference `json:"sources"`
	// Artifacts are rendered once per directory that the pattern matches.
	Artifacts []OutputArtifact `json:"artifacts"`
	// ManagedNamespaces opts into namespace management. Without it, the
	// namespaces that an earlier spec managed are released, never deleted.
	ManagedNamespaces *ManagedNamespaces `json:"managedNamespaces,omitempty"`
}

// SourceReference is one entry of spec.sources.
type SourceReference struct {
	Alias     string `json:"alias"`
	Kind      string `json:"kind"`
	Name      string `json:"name"`
	Namespace string `json:"namespace,omitempty"`
}

// OutputArtifact is one entry of spec.artifacts: templates over the
// pattern's captures.
type OutputArtifact struct {
	// Name renders from normalized captures, e.g. "{module}".
	Name string `json:"name"`
	// Namespace renders from normalized captures, e.g. "{namespace}"; empty
	// means the generator's namespace ([WithNamespace]).
	Namespace string `json:"namespace,omitempty"`
	// InputsFrom is an "@alias/path" template of a YAML mapping whose
	// values become the artifact's exported inputs.
	InputsFrom string `json:"inputsFrom,omitempty"`
	// OriginRevision is "@alias", the source whose revision the artifact
	// carries.
	OriginRevision string `json:"originRevision,omitempty"`
	// Copy lists the copy operations, applied in order.
	Copy []CopyOperation `json:"copy"`
}

// CopyOperation is one entry of spec.artifacts[].copy.
type CopyOperation struct {
	// From is "@alias/glob", a template rendered from raw captures.
	From string `json:"from"`
	// To is "@artifact/" or "@artifact/path".
	To string `json:"to"`
	// Exclude lists doublestar patterns of files to leave out.
	Exclude []string `json:"exclude,omitempty"`
	// Strategy is empty or "Overwrite": a later operation that writes the
	// same destination replaces the earlier file.
	Strategy string `json:"strategy,omitempty"`
}

// ManagedNamespaces is spec.managedNamespaces.
type ManagedNamespaces struct {
	// AllowedNames are CEL expressions over the string variable ns; a
	// namespace is allowed when one returns true. Required.
	AllowedNames []string `json:"allowedNames"`
	// Prune says whether namespaces that no artifact uses any more are
	// deleted. Required.
	Prune *bool `json:"prune"`
	// Metadata builds each namespace's labels and annotations.
	Metadata *NamespaceMetadata `json:"metadata,omitempty"`
}

// NamespaceMetadata is spec.managedNamespaces.metadata.
type NamespaceMetadata struct {
	FromSource *MetadataFromSource `json:"fromSource,omitempty"`
	// From is spec.managedNamespaces.metadata.from, the operations of the
	// pipeline's third step, in order.
	From []nsmeta.Operation `json:"from,omitempty"`
}

// MetadataFromSource is spec.managedNamespaces.metadata.fromSource: the
// tenant's NamespaceMetadata file and the schema its keys must pass.
type MetadataFromSource struct {
	Path               string            `json:"path"`
	AllowedLabels      map[string]string `json:"allowedLabels,omitempty"`
	AllowedAnnotations map[string]string `json:"allowedAnnotations,omitempty"`
}
