// Package generator composes the tenantkit packages into the
// tenant-provisioning rules of an ArtifactGenerator: compile a spec once,
// then plan every reconcile, from the sources, the previous inventory and
// what a small interface reads of the live cluster. It is the one package
// that imports its siblings (pathpattern, nsmeta, inventory, finalizer and
// cel): the rules that span them live here, once, so that every embedder
// (source-watcher, flux-operator, a preview tool) gets them by import
// instead of re-writing them.
//
//	g, errs := generator.Compile(spec, generator.WithUID(uid), generator.WithNamespace("flux-system"))
//	// errs: every problem of the spec, under "spec."
//	plan, err := g.Plan(ctx, map[string]fs.FS{"repo": root.FS()}, status.Inventory, cluster)
//	// apply plan.Namespaces, then plan.Artifacts; delete the Delete decisions in order
//	status.Inventory = plan.Next(confirmedDeleted)
//	// once the ArtifactGenerator is being deleted:
//	plan, err = g.Finalize(ctx, status.Inventory, cluster)
//	// delete the Delete decisions; drop the finalizer when plan.Next(confirmedDeleted) is empty
//
// Kubernetes I/O stays with the caller: sources are fs.FS values, one per
// alias, and the cluster is a [Cluster] of three one-method interfaces.
//
// # Without a pattern
//
// spec.pathPattern is optional, as in source-watcher. Without it, each
// spec.artifacts entry is one artifact: its name, namespace, inputsFrom,
// copy froms and the metadata file's path are literals (a capture in them
// is an error of Compile), its name must be a DNS-1123 subdomain and its
// namespace a DNS-1123 label, it has no path and no captures, and no
// source is walked to discover tenants. Errors name the entry, e.g.
// "spec.artifacts[0] and spec.artifacts[1] render the same namespace
// "tenant-a" and name "app"".
//
// # Rules
//
// Every rule fails closed: when a plan cannot tell whether deleting is safe,
// it keeps.
//
//  1. An artifact whose namespace is refused (name policy, protected name),
//     whose namespace's metadata failed (its NamespaceMetadata file, when
//     fromSource names one, missing, unreadable or refused by the schema),
//     whose namespace or name collides
//     with another's, or whose own rendering, inputs or copy failed is never
//     created or updated: it is [inventory.Skip], with the reason, and kept
//     in the inventory when tracked. The valid ones proceed.
//  2. The source of the pattern must be a directory, and so must every
//     directory of the pattern's fixed prefix ("tenants" in
//     "@repo/tenants/{namespace}/modules/{module}"), none a symbolic link.
//     Otherwise the plan has an error. An alias without a source is an
//     error. Below the prefix, a symbolic link where the pattern needs a
//     directory (a tenant's, a module's), or a link or a file at a literal
//     segment ("modules"), is an error naming its path
//     (pathpattern.Match.Problem), never a tenant that went away: every
//     tracked object that a directory there could have rendered is
//     skipped, kept, with the reason `directory "tenants/a" cannot be
//     read: must be a directory, not a symbolic link`. The captures on
//     the way to it tell which: a link in place of a tenant's directory
//     keeps its namespace and every artifact in it, one in place of a
//     module's directory that module's artifact.
//  3. A plan with errors deletes nothing. A plan that would delete every
//     object of a non-empty previous inventory deletes nothing and has an
//     error, unless [WithAllowDeleteAll]; so does one that would delete
//     more than [WithMaxDeletions] objects.
//  4. A stale object is released, never deleted, when its live copy
//     disables pruning as Flux's delete options read it (fluxcd/pkg/ssa):
//     "<prefix>/prune: disabled", "<prefix>/reconcile: disabled" or
//     "<prefix>/ssa: Ignore", as a label or an annotation, the value in any
//     case, for the prefixes source.extensions.fluxcd.io and
//     kustomize.toolkit.fluxcd.io; or when its GeneratorLabel names another
//     generator; or, a namespace, when its name is protected (default,
//     flux-system, Kubernetes' own namespaces and the generator's, which
//     only an inventory that another controller wrote can hold). A namespace is then handed off or not by its external
//     finalizer ([finalizer.Decider]); a reference to an object in the
//     namespace itself, or to a kind [WithFinalizerKinds] does not allow, is
//     not a hand-off. Nor is one to another namespace that the same pass
//     removes (stale, and not released: deleted, kept until its
//     ExternalArtifacts go, or handed off in turn), or to an object in it:
//     that object goes with its namespace, and two removed tenants whose
//     namespaces name each other's objects would otherwise keep each other
//     for ever; the reason says "it lives in namespace c, which this
//     generator removes too". Embedders should name the kinds
//     ([WithFinalizerKinds], e.g. flux-operator's ResourceSet): without the
//     list, any object that exists with the stamped UID keeps a namespace,
//     a ConfigMap in another tenant's namespace or ClusterRole admin among
//     them, and whoever may annotate a namespace may name one. A
//     handed-off namespace is kept (tracked, not deleted), not released:
//     the hand-off holds only while its object exists with
//     the stamped UID, so every plan decides again, deletes the namespace
//     once that object is gone or recreated, and drops it once the external
//     finalizer has deleted it.
//  5. Every delete, release, keep and skip carries its reason; a namespace's
//     names the finalizer verdict.
//  6. The artifact digest covers the files and the exported inputs: an
//     inputs-only change is an update (unless [WithArtifactDigest]
//     computes it, see "Artifact digest").
//  7. Names and namespaces are rendered by pathpattern.Render, the one
//     renderer: a name must be a DNS-1123 subdomain and a namespace a
//     DNS-1123 label, or the artifact is not built and the error names the
//     value and its directory. Two artifacts, of one spec.artifacts entry
//     or of two, that render the same namespace and name are one error
//     naming both directories (and both entries), and both are skipped.
//  8. A namespace is deleted only when no ExternalArtifact lives in it any
//     more, other than those this plan deletes: not one this generator
//     released, nor one of another generator ([ArtifactLister]).
//  9. Copy operations follow source-watcher's destination rule (see
//     "Copy destinations").
//
// # The spec
//
// [Spec] is released source-watcher v2.3's ArtifactGenerator spec, field
// for field (interop/sourcewatcher decodes released manifests with the
// released Go types and with Spec, and compares them):
//
//	spec.managedNamespaces       without it, no namespace is managed
//	  allowedNames               CEL expressions over ns; required
//	  prune                      required
//	  metadata.fromSource        path, and allowedLabels and allowedAnnotations as CEL expressions over value
//	  metadata.from              the Reset, Override and Merge operations
//
// Compile refuses what the released CRD refuses (every validation marker
// and rule, each at its field path), so that an embedder without the CRD
// in front of it says what the API server would. default, kube-system,
// kube-public and flux-system are always refused, as upstream refuses
// them; so are kube-node-lease and the generator's own namespace
// ([WithNamespace]), a difference. Namespace management requires
// spec.serviceAccountName or [WithDefaultServiceAccount].
// spec.commonMetadata.annotations must not set
// source.extensions.fluxcd.io/ssa, /prune or /reconcile (set on every
// object, they would stop the pruning or the reconciling of everything the
// generator manages). The artifact fields are source-watcher's: revision
// and originRevision ("@alias", declared in spec.sources), inputsFrom of the
// artifact itself ("@artifact/path"), and copy's optional and strategy
// ("Overwrite", "Merge" or "Extract", see "Copy strategies").
//
// # Namespace metadata from the artifact
//
// fromSource.path may name a file of the artifact,
// "@artifact/path" (the path may name captures), as upstream allows. The
// file is read, as upstream reads it, from the namespace's first artifact
// once its copy operations are done (merged and extracted files
// included): the first, of the artifacts whose namespace renders it, in
// the order in which a walk of the source meets their directories (depth
// first, each directory's entries by name, as filepath.WalkDir goes: "a/z"
// before "a-b/z"), then by spec.artifacts entry; and its path is rendered
// from that artifact's raw captures. The other artifacts' files do not
// count, whether they hold the file or not. A plan then checks each
// namespace's name and directories first, builds the artifacts of those
// that pass, and decides each namespace's metadata once its first
// artifact is built. The namespace fails, with its artifacts (skipped,
// and kept when tracked), and an error at fromSource.path that names the
// rendered path, when the first artifact fails ("namespace "tenant-a"
// reads its NamespaceMetadata file from artifact tenant-a/api (directory
// "tenants/tenant-a/apps/api"), which is not built: its files cannot be
// read"), when it lacks the file ("must exist: the NamespaceMetadata file
// of namespace "tenant-a", in artifact tenant-a/api ..."), when the path
// is a directory of it, or when the file is refused as a source's would
// be. Upstream fails the whole reconcile in each of those cases; here the
// other tenants proceed.
//
// # Live state
//
// A plan reads the live copy of each desired namespace through
// [Cluster].Objects, once, one namespace at a time in name order (so a
// Cluster need not be safe for concurrent use; a controller reads through
// its cache), and decides with source-watcher's rules:
//
//	absent                                     create (or, tracked, update: "drift: the namespace does not exist")
//	no GeneratorLabel                          adopted: applied, Conflict "Adopted", a warning
//	another generator's GeneratorLabel         taken over: applied, Conflict "OwnershipConflict", a warning
//	reconcile: disabled or ssa: Ignore         not applied, still tracked (live or desired metadata)
//	ssa: IfNotPresent, and it exists           not applied, still tracked (live or desired metadata)
//	tracked, unchanged, live metadata drifted  update: "drift: live metadata lacks label a, ..."
//	the read fails                             skipped, with its artifacts; an error at "cluster[<name>]"
//
// The keys are read as label or annotation, the value in any case, under
// both Flux prefixes (source.extensions.fluxcd.io and
// kustomize.toolkit.fluxcd.io). A namespace that is not applied is left out
// of [Plan.Namespaces] and its decision is [inventory.Unchanged] with the
// reason, for example "reconciliation is disabled on the live namespace
// (annotation source.extensions.fluxcd.io/reconcile: disabled); not applied,
// still tracked"; its entry, with the desired digest, stays in the next
// inventory, and it is never deleted for it; its artifacts are applied as
// usual. An adoption or a takeover is applied like any namespace: its
// [Namespace.Conflict] is the reason of the Warning event source-watcher
// records, its decision's reason and a warning of the plan ("Adopted:
// namespace tenant-a is not managed by any generator and is adopted") say
// more. Ownership is told by the UID of [WithUID]: without it, no
// namespace is adopted or taken over. Drift compares the desired labels and
// annotations with the live ones: a desired key that the live namespace
// lacks, or holds with another value, is drift, and the reason names the
// first three keys of each kind, sorted; keys that only the live namespace
// has are not (other controllers set them). A tracked namespace whose digest
// changed is an update anyway. Without an ObjectReader nothing is read: a
// desired namespace is applied as the inventory says, unless its desired
// metadata disables reconciliation.
//
// Then, with a UID, it reads the live copy of each ExternalArtifact it
// applies, once, one at a time by namespace and name, tracked or not (an
// artifact this generator created can be relabelled by another, and
// source-watcher warns on every apply that takes one over):
//
//	absent, no GeneratorLabel, this generator's   applied as the inventory says
//	another generator's GeneratorLabel            taken over: applied, Conflict "OwnershipConflict", a warning
//	                                              ("OwnershipConflict: ExternalArtifact tenant-a/app is managed by
//	                                              generator <uid> and is taken over"); unchanged becomes update
//	the read fails                                skipped (kept when tracked); an error at "cluster[<namespace>/<name>]"
//
// [Artifact.Conflict] is the reason of the Warning event that source-watcher
// records on each artifact it takes over; it also records one on the
// generator, "ownership conflict detected for N ExternalArtifact(s)", which
// an embedder counts from [Plan.Artifacts]. Without an ObjectReader or a
// UID no artifact is read. When ctx ends during these reads, as during the
// namespaces', Plan returns ctx's error and no plan.
//
// # Previous inventory
//
// The previous inventory is validated as inventory.Diff validates it: an
// entry that fails inventory.Entry.Validate, or whose identity an earlier
// entry has, is an error of the plan at "old[i]", as Diff reports it. The
// plan then fails closed and heals:
//
//	desired object                      its decision against the valid entry with its identity, if any
//	                                    (create, update, unchanged), recorded in the next inventory
//	invalid entry a desired object has  replaced by the desired entry (a malformed digest is written afresh)
//	valid entry not desired             keep: "the previous inventory has errors; nothing is deleted"
//	invalid entry not desired           keep, as it is: "...; this entry does not validate and is kept as it is"
//	skipped object                      skip, kept when tracked, as in any plan
//
// Nothing is deleted or released, and no stale object is read. [Plan.Next]
// holds the desired entries and every kept one, in apply order, an entry
// whose identity is listed twice twice: nothing tracked is lost. An entry
// that does not validate stays, and keeps every later plan from deleting,
// until it is corrected or removed. [Generator.Finalize] keeps every
// entry.
//
// # Finalize
//
// [Generator.Finalize] is what deleting the ArtifactGenerator does with its
// inventory, in prune order (every ExternalArtifact before the namespaces):
//
//	ExternalArtifact (any kind but Namespace)     as in a plan: release when its live copy disables
//	                                              pruning or names another generator, keep when it
//	                                              cannot be read, delete otherwise
//	Namespace, namespaces not managed or pruned    release: "namespace pruning is off"
//	Namespace, protected name                      release
//	Namespace, prune/reconcile disabled, ssa: Ignore (live), another generator's label   release
//	Namespace, hand-off holds                      release: "handed off to ...; released: the generator is deleted"
//	Namespace, an ExternalArtifact this finalize does not delete lives in it             keep
//	Namespace, a read or a lookup fails            keep
//	Namespace, otherwise                           delete
//
// Deleting the generator is the permission to delete what it tracks: the
// delete-all refusal and [WithMaxDeletions] do not apply. A handed-off
// namespace, which a normal plan keeps tracked while the hand-off holds, is
// released: the generator goes, and the external finalizer deletes it.
// [Plan.Next], given the confirmed deletions, holds the survivors (every
// keep and every deletion not confirmed); the object drops its finalizer
// when it is empty, and otherwise finalizes again with it.
//
// # Differences from source-watcher
//
// docs/differences.md lists where tenantkit does something else than
// released source-watcher v2.3 on purpose, with upstream's behaviour and
// the test that shows both, and what only the unreleased code or
// tenantkit's judgement settles (the namespace digest's definition, Merge
// and Extract details, reconcileEvery).
//
// # References
//
// inputsFrom, a copy's from and fromSource.path are references to a file
// or directory, "@alias/path" with an alias declared in spec.sources, or
// "@artifact/path" for a file of the artifact (not a copy's from), that a
// plan renders from each match's raw captures and parses with
// pathpattern.ParseRef: the path must not be empty or name the alias root
// ("@git/", "@git/."), start with "/", hold a ".." element or a NUL byte.
// Compile refuses a reference that no rendering can make valid, with an
// error at its field naming the value and the rule: one without a
// capture that breaks a rule ("@git/../escape.yaml", even in a spec
// without a pattern), and one whose literal text breaks it whatever its
// captures render ("@git/tenants/{tenant}/../inputs.yaml"). What only
// the captures can break, and a reference whose alias names a capture,
// are checked when a plan renders them: an error of that artifact or
// namespace, as for copy destinations below.
//
// # Copy destinations
//
// A copy's from is "@alias/pattern", parsed with pathpattern.ParseRef; its
// to is "@artifact/" or "@artifact/path". The files that
// pathpattern.Glob selects land at:
//
//	pattern without glob characters, a file:  to, or to/<base> when to ends with "/",
//	                                           is "@artifact/", or holds earlier files
//	pattern without glob characters, a dir:   to/<dir base>/<path below dir>
//	pattern "<literal>/**":                    to/<path below literal>
//	any other glob:                            to/<path from the alias root>
//
// A backslash-escaped glob character is literal: "@repo/m/a\*b.yaml" to
// "@artifact/x.yaml" is the file "x.yaml". A later copy to the same
// destination overwrites an earlier one (but see Merge below). A file
// cannot land where an earlier copy made a directory, nor below an earlier
// file: that is an error of the artifact, as writing it into upstream's
// staging directory fails.
//
// With a pattern, to may name captures, like from: "@artifact/{app}/" is
// rendered from each match's raw captures, as upstream renders it. Compile
// refuses a ".." element in to (upstream's CRD does), and a rendered to
// that is not a valid destination is an error of that artifact, naming its
// directory.
//
// # Copy strategies
//
// A copy's strategy says what it does with the files it selects, as
// source-watcher v2.3 does:
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
// Merge decodes every document of both files and merges them in order, so
// the merged file is one document; a document that is not a mapping, or a
// file that is not YAML, is an error of the artifact naming the file.
// A merged mapping's keys are in yaml/v2's natural order, as upstream
// writes them, put in that order from their byte order by a stable sort,
// so that a set of keys that this order cannot sort consistently (see
// "Differences from source-watcher") comes out the same on every plan.
// Extract with a glob extracts the tarballs that the glob matches and
// skips every other file; without one, from must name a tarball, not
// another file or a directory. An archive must not hold an absolute path,
// a ".." element, a NUL byte or a backslash in a name, a symbolic or hard
// link, a device, a FIFO or a socket; each is an error of the artifact
// naming the archive, the entry and the rule. The bounds are listed under
// "Differences from source-watcher".
//
// [Artifact.Files] reports, for a merged file, the last file merged into
// it, and for an extracted file, its archive. An inputsFrom of
// "@artifact/path" (the path may name captures) is read from the
// artifact's files once its copy operations are done, merged and extracted
// files included.
//
// # Artifact digest
//
// An artifact's digest is "sha256:" and the lower-case hex SHA-256 of these
// bytes:
//
//	digest = { file } [ inputs ]
//	file   = path NUL length NUL content            for each file, by path in byte order
//	inputs = NUL "inputs" NUL { input }             only when there is at least one input
//	input  = keylen NUL key NUL vallen NUL value    for each input, by key in byte order
//
// path is the file's destination below "@artifact/", and content what the
// artifact holds there: a copied file's bytes, a merged file's merged YAML,
// an extracted file's bytes from its archive; length, keylen and
// vallen are decimal byte counts without leading zeros; value is the input
// as compact JSON (encoding/json.Compact). No path starts with NUL, so the
// inputs part cannot be read as a file. An artifact without inputs hashes
// its files only. testdata/artifact-digest-vectors.json pins the
// definition with vectors.
//
// Under [WithArtifactDigest] the embedder's function computes the digest
// instead, from the artifact's file system, an fs.FS that passes
// testing/fstest.TestFS: exactly the artifact's files at their
// destinations (a copied file read from its source on each Open, as the
// plan reads it, link-free and at most 8 MiB; a merged or extracted file
// from memory), every directory above them and every directory its
// archives hold, "." its root; listings by name, times zero, a file's mode
// 0755 when it is executable (its source's or its archive entry's execute
// bits) and 0644 otherwise. os.CopyFS writes it into a staging directory as
// upstream's builder leaves its own, for an embedder to archive as it does.
// source-watcher v2.3 records in status.inventory the digest of the
// tarball that its storage writes of that directory
// (fluxcd/pkg/artifact/storage's Archive: its directories and regular
// files in walk order, headers without owners or times, modes reduced to a
// directory's, an executable's or a file's, gzip-compressed, and without
// the files that Flux's default ignore patterns match, such as .git/ or
// *.png); only the archive determines it, so only the embedder can compute
// it, and an inventory it wrote then reads back as unchanged. The exported
// inputs are not in that archive, unless inputsFrom names a file of the
// artifact: a change of a source's inputs file alone leaves upstream's
// digest, and the plan's decision, unchanged, and upstream writes the new
// exportedInputs anyway, as it writes the status of every artifact it
// builds; an embedder applies every artifact of [Plan.Artifacts].
//
// Each entry of source-watcher's inventory also records the name of the
// artifact's file in its storage: "<hash>.tar.gz", a hash of the staged
// files' names and contents, so that the same content gets the same
// name. Its drift check
// looks for that file beside the digest, rebuilding an artifact whose
// file is missing and deleting one whose content does not match the
// digest; its garbage collection and its finalizer remove an artifact's
// files by their directory, not by that name. [Artifact.Filename] carries
// it, and [Plan.Next] records it: the function of [WithArtifactDigest]
// may set it, and otherwise an artifact whose digest is the previous
// entry's keeps the previous entry's name, as the same content gets the
// same name upstream; a changed artifact whose function sets none records
// none, never the name of a file that holds other content. A stale,
// skipped or kept entry is the previous one, its Filename included. So an
// inventory that source-watcher wrote, planned unchanged, reads back
// entry for entry, and an embedder that names its files as upstream does
// (setting Filename in its digest function) records what upstream would.
// Filename plays no part in a plan's decisions.
//
// # Concurrency
//
// A [Generator] is immutable and safe for concurrent use; so is [Plan.Next]
// on a plan that nobody modifies. Plan discovers the pattern's directories
// (below each tenant's, see pathpattern's Pattern.DiscoverConcurrently) and
// builds namespaces and artifacts on GOMAXPROCS goroutines, or as many as
// [WithConcurrency] says; its output does not depend on their number or
// their scheduling. They read the sources at once, so each source's fs.FS
// must be safe for concurrent use, as those of os.DirFS, os.Root and
// fstest.MapFS are. A panic while building one namespace or artifact (in
// a source's file system, say) stops that build alone: the object is
// skipped, and the plan has an internal error naming it and the panic
// value. A panic while discovering is an internal error of the pattern,
// and the plan then builds and deletes nothing, as for any error there. Plan and
// [Generator.Finalize] call the [Cluster] on the calling goroutine, one
// object at a time, so it need not be safe for concurrent use.
//
// # Cost
//
// A plan reads every file that its artifacts copy, and hashes it, on every
// core it may use; the benchmarks compare it with that floor (see
// docs/performance.md in the repository). It holds a copied file's content
// only while hashing it (a merged or extracted file's, which exists nowhere
// else, from the copy that makes it until the artifact is hashed, at most
// 64 MiB per artifact), and keeps of each artifact its name, labels,
// captures, inputs, file count and digest: the list of its files only when
// the generator was compiled [WithFileLists]. It reads each source through a cache, for the
// length of the plan, of the directories it has seen and the directories
// listed in those it has read: every file the spec names (an inputs file, a
// NamespaceMetadata file) has each element of its name checked for a
// symbolic link (pathpattern.ReadFile), and the cache answers those checks
// for the directories already seen, so that each directory is checked once
// per plan, whatever the file system; the files a copy selects were found
// without a link when Glob listed their directories, and only the opened
// file is checked again. Through the FS of an [os.Root], which walks every
// name one element at a time, opening a file still costs a system call or
// two for each directory on its path; through package dirfs (opt-in, an
// fs.FS like any other here), one openat2 that follows no link. At 1,000
// tenants a plan took 186-200 ms through dirfs and 399-445 ms through an
// os.Root, against a floor of 81-87 ms (docs/performance.md). Inputs and
// NamespaceMetadata files are decoded by sigs.k8s.io/yaml.
package generator
