package generator

import "github.com/tenantkit/tenantkit/nsmeta"

// Spec is the spec of an ArtifactGenerator, as far as planning needs it: released source-watcher
// v2.3's (source.extensions.fluxcd.io/v1beta1, module github.com/fluxcd/source-watcher/api/v2),
// with its JSON field names, so that a controller converts its API object field by field and a
// tool decodes a manifest's spec into it (interop/sourcewatcher decodes released manifests with
// both, comparing every field). Compile validates it; the zero Spec is not valid (no sources,
// no artifacts).
type Spec struct {
	// ServiceAccountName is the account the controller impersonates, a DNS-1123 label.
	// Managing namespaces requires it, or [WithDefaultServiceAccount], as upstream.
	ServiceAccountName string `json:"serviceAccountName,omitempty"`
	// PathPattern discovers tenants and modules, e.g. "@repo/tenants/{namespace}/modules/{module}".
	PathPattern string `json:"pathPattern,omitempty"`
	// CommonMetadata goes on every namespace (the metadata pipeline's first step) and, labels
	// only, on every artifact. Its annotations must not set source.extensions.fluxcd.io/ssa,
	// /prune or /reconcile, which belong on individual objects (upstream's CRD refuses them too).
	CommonMetadata *nsmeta.Metadata `json:"commonMetadata,omitempty"`
	// Sources declares the aliases that the pattern and references use.
	Sources []SourceReference `json:"sources"`
	// Artifacts are rendered once per directory that the pattern matches.
	Artifacts []OutputArtifact `json:"artifacts"`
	// ManagedNamespaces is spec.managedNamespaces. Without it the artifacts' namespaces are
	// unmanaged: they must exist, and those an earlier spec managed are released, never deleted.
	ManagedNamespaces *ManagedNamespaces `json:"managedNamespaces,omitempty"`
}

// SourceReference is one entry of spec.sources.
type SourceReference struct {
	Alias     string `json:"alias"`
	Kind      string `json:"kind"`
	Name      string `json:"name"`
	Namespace string `json:"namespace,omitempty"`
}

// OutputArtifact is one entry of spec.artifacts: templates over the pattern's captures.
//
// inputsFrom, a copy's from and fromSource.path reference a file or directory: "@alias/path",
// the alias declared in spec.sources, or "@artifact/path", a file of the artifact (not for a
// copy's from). A plan renders them from each match's raw captures and parses them with
// pathpattern.ParseRef: the path must not be empty or name the alias root ("@git/", "@git/."),
// start with "/", hold a ".." element or a NUL byte. Compile refuses, at the field, naming the
// value and the rule, a reference that no rendering can make valid: one without a capture that
// breaks a rule ("@git/../escape.yaml", even without a pattern), or whose literal text breaks
// one whatever its captures render ("@git/tenants/{tenant}/../inputs.yaml"). What only the
// captures can break, and an alias that names a capture, fail when a plan renders them: an
// error of that artifact or namespace, as for copy destinations ([CopyOperation]).
type OutputArtifact struct {
	// Name renders from normalized captures, e.g. "{module}".
	Name string `json:"name"`
	// Namespace renders from normalized captures, e.g. "{namespace}"; "" is [WithNamespace]'s.
	Namespace string `json:"namespace,omitempty"`
	// InputsFrom is an "@alias/path" template of a YAML mapping whose values become the
	// artifact's exported inputs, or "@artifact/path", the artifact's own file once its copy
	// operations are done (merged and extracted files included).
	InputsFrom string `json:"inputsFrom,omitempty"`
	// Revision is "@alias", the source whose revision the artifact takes instead of one
	// computed from its content. Compile checks the alias is declared; a plan computes none.
	Revision string `json:"revision,omitempty"`
	// OriginRevision is "@alias", the source whose origin revision the artifact carries
	// (upstream's org.opencontainers.image.revision annotation). Compile checks the alias.
	OriginRevision string `json:"originRevision,omitempty"`
	// Copy lists the copy operations, applied in order.
	Copy []CopyOperation `json:"copy"`
}

// CopyOperation is one entry of spec.artifacts[].copy.
//
// A copy's from is "@alias/pattern", parsed with pathpattern.ParseRef; its to is "@artifact/"
// or "@artifact/path". The files that pathpattern.Glob selects land at:
//
//	pattern without glob characters, a file:  to, or to/<base> when to ends with "/",
//	                                           is "@artifact/", or holds earlier files
//	pattern without glob characters, a dir:   to/<dir base>/<path below dir>
//	pattern "<literal>/**":                    to/<path below literal>
//	any other glob:                            to/<path from the alias root>
//
// A backslash-escaped glob character is literal: "@repo/m/a\*b.yaml" to "@artifact/x.yaml" is
// the file "x.yaml". A later copy to the same destination overwrites an earlier one (but see
// Merge below). A file cannot land where an earlier copy made a directory, nor below an earlier
// file: an error of the artifact, as writing it into upstream's staging directory fails.
//
// A symbolic link or an irregular file (a named pipe, a socket, a device) that a copy would
// take is left out, as are the files a link leads to, and a plan warning names each, with the
// artifact and why: "@repo/m/link.yaml: left out of artifact a/app: a symbolic link" (see
// pathpattern.Glob). Upstream leaves them out without a word: source-controller's
// artifacts, which source-watcher copies from, hold only regular files and directories.
//
// With a pattern, to may name captures, like from, rendered from each match's raw captures as
// upstream does ("@artifact/{app}/"). Compile refuses a ".." element in to (upstream's CRD does);
// a rendered to that is no valid destination is an error of that artifact, naming its directory.
//
// A copy's strategy says what it does with the files it selects, as source-watcher v2.3 does:
//
//	Overwrite (or none)  put each file at its destination, replacing what is there
//	Merge                merge each file into the file at its destination, if any:
//	                     YAML maps merged recursively, the later value winning,
//	                     lists replaced; the result re-encoded by sigs.k8s.io/yaml,
//	                     byte for byte as upstream writes it; else as Overwrite
//	Extract              put there the files of each gzip-compressed tarball
//	                     (.tar.gz or .tgz, in any case) that from selects, each
//	                     entry at to/<its name>, to always a directory
//
// Merge merges every document of both files, in order, into one; a document that is not a
// mapping, or a file that is not YAML, is an error of the artifact naming the file. A merged
// mapping's keys are in yaml/v2's natural order, as upstream writes them, sorted stably from
// their byte order so that keys this order cannot sort consistently come out the same on every
// plan. Extract with a glob extracts the tarballs it matches and skips every other file;
// without one, from must name a tarball, not another file or a directory. An archive must not
// hold an absolute path, a ".." element, a NUL byte or a backslash in a name, a symbolic or
// hard link, a device, a FIFO or a socket: each is an error of the artifact naming the
// archive, the entry and the rule. docs/differences.md lists the bounds and the key order.
// [Artifact.Files] reports, for a merged file, the last file merged into it, and for an
// extracted file, its archive.
type CopyOperation struct {
	// From is "@alias/glob", a template rendered from raw captures.
	From string `json:"from"`
	// To is "@artifact/" or "@artifact/path", a template rendered from raw captures.
	To string `json:"to"`
	// Exclude lists doublestar patterns of files to leave out.
	Exclude []string `json:"exclude,omitempty"`
	// Strategy is "Overwrite" (or empty), "Merge" or "Extract" (see [CopyOperation]).
	Strategy string `json:"strategy,omitempty"`
	// Optional makes an operation that selects no file copy nothing; otherwise selecting no
	// file is an error of the artifact.
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
// default, kube-system, kube-public and flux-system are always refused, whatever the
// expressions say, as upstream refuses them; tenantkit also refuses kube-node-lease and the
// generator's own namespace ([WithNamespace]).
type ManagedNamespaces struct {
	// AllowedNames are CEL expressions over the string variable ns; one returning true allows a
	// name. Required.
	AllowedNames []string `json:"allowedNames"`
	// Prune says whether namespaces that no artifact uses any more, or all of them when the
	// generator is deleted, are deleted. Required: a nil Prune is an error, as in the CRD.
	Prune *bool `json:"prune"`
	// Metadata builds each namespace's labels and annotations on top of spec.commonMetadata.
	Metadata *NamespaceMetadata `json:"metadata,omitempty"`
}

// NamespaceMetadata is spec.managedNamespaces.metadata: built on top of spec.commonMetadata
// from the tenant's file, then the operations. It must set FromSource or an operation.
type NamespaceMetadata struct {
	// FromSource is the tenant's NamespaceMetadata file and its schema.
	FromSource *MetadataFromSource `json:"fromSource,omitempty"`
	// From is the operations of the pipeline's third step, in order.
	From []nsmeta.Operation `json:"from,omitempty"`
}

// MetadataFromSource is the metadata block's fromSource: the tenant's NamespaceMetadata file
// and the schema its keys must pass.
//
// As upstream, fromSource.path may name a file of the artifact, "@artifact/path" (the path may
// name captures), read from the namespace's first artifact once its copy operations are done
// (merged and extracted files included): the first, of the artifacts whose namespace renders
// it, in the order a walk of the source meets their directories (depth first, each directory's
// entries by name, as filepath.WalkDir: "a/z" before "a-b/z"), then by spec.artifacts entry;
// its path is rendered from that artifact's raw captures, and no other artifact's files count.
// A plan checks each namespace's name and directories first, builds the artifacts of those
// that pass, and decides each namespace's metadata once its first artifact is built. The
// namespace fails, with its artifacts (skipped, kept when tracked), and an error at
// fromSource.path naming the rendered path, when the first artifact fails ("namespace
// "tenant-a" reads its NamespaceMetadata file from artifact tenant-a/api (directory
// "tenants/tenant-a/apps/api"), which is not built: its files cannot be read"), when it lacks
// the file ("must exist: the NamespaceMetadata file of namespace "tenant-a", in artifact
// tenant-a/api ..."), when the path is a directory of it, or when the file is refused as a
// source's would be. Upstream fails the whole reconcile in each case; here the others proceed.
type MetadataFromSource struct {
	// Path is an "@alias/path" template of a source's file that names only captures every
	// artifact's namespace names, so that all the artifacts of a namespace read the same file;
	// or, as upstream, "@artifact/path", a file of the namespace's first artifact (see
	// [MetadataFromSource]).
	Path string `json:"path"`
	// AllowedLabels and AllowedAnnotations map a key to the rule its value must pass, a CEL
	// expression over the string variable value. A key they do not list is dropped with a
	// warning (an error under [WithStrict]). At least one of them must list a key.
	AllowedLabels      map[string]string `json:"allowedLabels,omitempty"`
	AllowedAnnotations map[string]string `json:"allowedAnnotations,omitempty"`
}
