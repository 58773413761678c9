package generator

import "github.com/tenantkit/tenantkit/nsmeta"

// The spec types mirror released source-watcher v2.3's ArtifactGenerator
// spec (source.extensions.fluxcd.io/v1beta1, the Go module
// github.com/fluxcd/source-watcher/api/v2), with its JSON field names, so
// that a controller can convert its API object field by field, and a tool can
// decode a manifest's spec into them directly. interop/sourcewatcher decodes
// released manifests with both and compares every field.

// Spec is the spec of an ArtifactGenerator, as far as planning needs it.
// Compile validates it; the zero Spec is not valid (it has no pattern).
type Spec struct {
	// ServiceAccountName is the account the controller impersonates: a
	// DNS-1123 label. Managing namespaces requires it, or a default given
	// with [WithDefaultServiceAccount], as upstream.
	ServiceAccountName string `json:"serviceAccountName,omitempty"`
	// PathPattern discovers tenants and modules, e.g.
	// "@repo/tenants/{namespace}/modules/{module}".
	PathPattern string `json:"pathPattern,omitempty"`
	// CommonMetadata is spec.commonMetadata: it goes on every namespace
	// (first step of the metadata pipeline) and, labels only, on every
	// artifact. Its annotations must not set
	// source.extensions.fluxcd.io/ssa, /prune or /reconcile, which belong
	// on individual objects (upstream's CRD refuses them too).
	CommonMetadata *nsmeta.Metadata `json:"commonMetadata,omitempty"`
	// Sources declares the aliases that the pattern and references use.
	Sources []SourceReference `json:"sources"`
	// Artifacts are rendered once per directory that the pattern matches.
	Artifacts []OutputArtifact `json:"artifacts"`
	// ManagedNamespaces is spec.managedNamespaces. Without it the
	// artifacts' namespaces are unmanaged: they must exist, and the
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
	// values become the artifact's exported inputs, or "@artifact/path",
	// a file of the artifact itself once its copy operations are done.
	InputsFrom string `json:"inputsFrom,omitempty"`
	// Revision is "@alias", the source whose revision the artifact takes
	// instead of one computed from its content. Compile checks that the
	// alias is declared; the plan does not compute revisions.
	Revision string `json:"revision,omitempty"`
	// OriginRevision is "@alias", the source whose origin revision the
	// artifact carries (upstream's org.opencontainers.image.revision
	// annotation). Compile checks that the alias is declared.
	OriginRevision string `json:"originRevision,omitempty"`
	// Copy lists the copy operations, applied in order.
	Copy []CopyOperation `json:"copy"`
}

// CopyOperation is one entry of spec.artifacts[].copy.
type CopyOperation struct {
	// From is "@alias/glob", a template rendered from raw captures.
	From string `json:"from"`
	// To is "@artifact/" or "@artifact/path", a template rendered from raw
	// captures.
	To string `json:"to"`
	// Exclude lists doublestar patterns of files to leave out.
	Exclude []string `json:"exclude,omitempty"`
	// Strategy is "Overwrite" (or empty): a later operation that writes
	// the same destination replaces the earlier file; "Merge": a YAML file
	// is merged into the file already at its destination; or "Extract":
	// the files of the tarballs selected are extracted below To (see the
	// package documentation, "Copy strategies").
	Strategy string `json:"strategy,omitempty"`
	// Optional makes an operation that selects no file copy nothing;
	// otherwise selecting no file is an error of the artifact.
	Optional bool `json:"optional,omitempty"`
}

// ManagedNamespaces is spec.managedNamespaces:
//
//	managedNamespaces:
//	  allowedNames: ["ns.startsWith('tenant-')"]
//	  prune: true
//	  metadata:
//	    fromSource:
//	      path: "@repo/tenants/{namespace}/namespace-metadata.yaml"
//	      allowedLabels:
//	        my.org.io/cost-center: "value.matches('^cc-[0-9]{4}$')"
//	    from:
//	      - {strategy: Merge, namespace: "*", labels: {tier: bronze}}
//
// default, kube-system, kube-public and flux-system are always refused,
// whatever the expressions say, as upstream refuses them; tenantkit also
// refuses kube-node-lease and the generator's own namespace
// ([WithNamespace]).
type ManagedNamespaces struct {
	// AllowedNames are CEL expressions over the string variable ns; a
	// namespace is allowed when one returns true. Required.
	AllowedNames []string `json:"allowedNames"`
	// Prune says whether namespaces that no artifact uses any more, or
	// all of them when the generator is deleted, are deleted. Required:
	// a nil Prune is an error, as the CRD requires the field.
	Prune *bool `json:"prune"`
	// Metadata builds each namespace's labels and annotations on top of
	// spec.commonMetadata.
	Metadata *NamespaceMetadata `json:"metadata,omitempty"`
}

// NamespaceMetadata is spec.managedNamespaces.metadata: built on top of
// spec.commonMetadata from the tenant's file, then the operations. It must
// set FromSource or at least one operation.
type NamespaceMetadata struct {
	// FromSource is the tenant's NamespaceMetadata file and its schema.
	FromSource *MetadataFromSource `json:"fromSource,omitempty"`
	// From is the metadata block's from, the operations of the pipeline's
	// third step, in order.
	From []nsmeta.Operation `json:"from,omitempty"`
}

// MetadataFromSource is the metadata block's fromSource: the tenant's
// NamespaceMetadata file and the schema its keys must pass.
type MetadataFromSource struct {
	// Path is an "@alias/path" template of the file, read from a source,
	// that names only captures every artifact's namespace names, so that
	// all the artifacts of a namespace read the same file;
	// or, as upstream, "@artifact/path", a file of the namespace's first
	// artifact once its copy operations are done (its first in the order
	// a walk of the source meets their directories, then by
	// spec.artifacts entry), rendered from that artifact's raw captures.
	// The namespace fails when that artifact does, or when it lacks the
	// file (see the package documentation, "Namespace metadata from the
	// artifact").
	Path string `json:"path"`
	// AllowedLabels and AllowedAnnotations map a key to the rule its value
	// must pass: a CEL expression over the string variable value. A key
	// they do not list is dropped with a warning (an error under
	// [WithStrict]). At least one of them must list a key.
	AllowedLabels      map[string]string `json:"allowedLabels,omitempty"`
	AllowedAnnotations map[string]string `json:"allowedAnnotations,omitempty"`
}
