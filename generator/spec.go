package generator

import "github.com/tenantkit/tenantkit/nsmeta"

// The spec types mirror the tenant-provisioning ArtifactGenerator spec
// (source.extensions.fluxcd.io/v1beta1), with the CRD's JSON field names, so
// that a controller can convert its API object field by field, and a tool can
// decode a manifest's spec into them directly. They hold both shapes of the
// spec (see the package documentation, "Two spec shapes"): source-watcher
// v2.3's spec.namespaces and the seed proposal's spec.managedNamespaces.

// Spec is the spec of an ArtifactGenerator, as far as planning needs it.
// Compile validates it; the zero Spec is not valid (it has no pattern).
type Spec struct {
	// ServiceAccountName is the account the controller impersonates. In the
	// seed proposal's shape, managing namespaces requires it, or a default
	// given with [WithDefaultServiceAccount]; in source-watcher v2.3's
	// shape it is optional, as upstream: the embedder impersonates.
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
	// Namespaces is spec.namespaces, source-watcher v2.3's shape of
	// namespace management. It must not be set together with
	// ManagedNamespaces.
	Namespaces *Namespaces `json:"namespaces,omitempty"`
	// ManagedNamespaces is spec.managedNamespaces, the seed proposal's
	// shape of namespace management. It must not be set together with
	// Namespaces. Without either, the namespaces that an earlier spec
	// managed are released, never deleted.
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

// Namespaces is spec.namespaces, source-watcher v2.3's shape:
//
//	namespaces:
//	  strategy: Managed        # or Unmanaged; required
//	  prune: true              # optional
//	  metadata:                # optional
//	    fromSource:
//	      path: "@repo/tenants/{namespace}/namespace-metadata.yaml"
//	      allowedLabels:
//	        my.org.io/cost-center: "^cc-[0-9]{4}$"
//	    from:
//	      - {strategy: Merge, namespace: "*", labels: {tier: bronze}}
//
// Every namespace that an artifact's namespace field renders is managed,
// but the protected ones, which are refused (kube-system, kube-public,
// kube-node-lease and default), and the generator's own ([WithNamespace]),
// which is left unmanaged without a word while its artifacts are
// generated, as upstream leaves it.
type Namespaces struct {
	// Strategy is "Managed" (the generator creates, labels and, with
	// Prune, deletes the namespaces) or "Unmanaged" (it leaves them alone,
	// as when spec.namespaces is absent). Required.
	Strategy string `json:"strategy"`
	// Prune says whether managed namespaces that no artifact uses any more
	// are deleted. Unset, it is false, or true under
	// [WithDefaultToPruneNamespaces] (upstream's DefaultToPruneNamespaces
	// feature gate). It applies only to the Managed strategy.
	Prune *bool `json:"prune,omitempty"`
	// Metadata builds each namespace's labels and annotations; its
	// allowedLabels and allowedAnnotations rules are Go regular
	// expressions. Under the Unmanaged strategy it is checked and unused,
	// as upstream checks and ignores it.
	Metadata *NamespaceMetadata `json:"metadata,omitempty"`
}

// ManagedNamespaces is spec.managedNamespaces, the seed proposal's shape.
// The generator's own namespace ([WithNamespace]) is protected: a tenant
// that renders it is refused.
type ManagedNamespaces struct {
	// AllowedNames are CEL expressions over the string variable ns; a
	// namespace is allowed when one returns true. Required.
	AllowedNames []string `json:"allowedNames"`
	// Prune says whether namespaces that no artifact uses any more are
	// deleted. Required.
	Prune *bool `json:"prune"`
	// Metadata builds each namespace's labels and annotations; its
	// allowedLabels and allowedAnnotations rules are CEL expressions.
	Metadata *NamespaceMetadata `json:"metadata,omitempty"`
}

// NamespaceMetadata is spec.namespaces.metadata or
// spec.managedNamespaces.metadata.
type NamespaceMetadata struct {
	FromSource *MetadataFromSource `json:"fromSource,omitempty"`
	// From is the metadata block's from, the operations of the pipeline's
	// third step, in order.
	From []nsmeta.Operation `json:"from,omitempty"`
}

// MetadataFromSource is the metadata block's fromSource: the tenant's
// NamespaceMetadata file and the schema its keys must pass.
type MetadataFromSource struct {
	// Path is an "@alias/path" template of the file, read from a source;
	// or, as upstream, "@artifact/path", a file of the namespace's first
	// artifact once its copy operations are done (its first in the order
	// a walk of the source meets their directories, then by
	// spec.artifacts entry), rendered from that artifact's raw captures.
	// The namespace fails when that artifact does, or when it lacks the
	// file (see the package documentation, "Namespace metadata from the
	// artifact").
	Path string `json:"path"`
	// AllowedLabels and AllowedAnnotations map a key to the rule its value
	// must pass: a Go regular expression, matched anywhere in the value,
	// in spec.namespaces; a CEL expression over the string variable
	// value in spec.managedNamespaces. The regular expression r is the
	// CEL expression value.matches(r).
	AllowedLabels      map[string]string `json:"allowedLabels,omitempty"`
	AllowedAnnotations map[string]string `json:"allowedAnnotations,omitempty"`
}
