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
// # Rules
//
// Every rule fails closed: when a plan cannot tell whether deleting is safe,
// it keeps.
//
//  1. An artifact whose namespace is refused (name policy, protected name),
//     whose namespace's metadata failed, whose namespace or name collides
//     with another's, or whose own rendering, inputs or copy failed is never
//     created or updated: it is [inventory.Skip], with the reason, and kept
//     in the inventory when tracked. The valid ones proceed.
//  2. The source of the pattern must be a directory, and so must every
//     directory of the pattern's fixed prefix ("tenants" in
//     "@repo/tenants/{namespace}/modules/{module}"), none a symbolic link.
//     Otherwise the plan has an error. An alias without a source is an
//     error.
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
//     generator; or, a namespace, when its name is protected (Kubernetes'
//     own namespaces and the generator's, which only an inventory that
//     source-watcher wrote can hold). A namespace is then handed off or not by its external
//     finalizer ([finalizer.Decider]); a reference to an object in the
//     namespace itself, or to a kind [WithFinalizerKinds] does not allow, is
//     not a hand-off. A handed-off namespace is kept (tracked, not deleted),
//     not released: the hand-off holds only while its object exists with
//     the stamped UID, so every plan decides again, deletes the namespace
//     once that object is gone or recreated, and drops it once the external
//     finalizer has deleted it.
//  5. Every delete, release, keep and skip carries its reason; a namespace's
//     names the finalizer verdict.
//  6. The artifact digest covers the files and the exported inputs: an
//     inputs-only change is an update.
//  7. Two artifacts, of any spec.artifacts entries, that render the same
//     namespace and name are one error naming both directories.
//  8. A namespace is deleted only when no ExternalArtifact lives in it any
//     more, other than those this plan deletes: not one this generator
//     released, nor one of another generator ([ArtifactLister]).
//  9. Copy operations follow source-watcher's destination rule (see
//     "Copy destinations").
//
// # Live state
//
// A plan reads the live copy of each desired namespace through
// [Cluster].Objects, once, one namespace at a time in name order (so a
// Cluster need not be safe for concurrent use; a controller reads through
// its cache), and decides with source-watcher's rules:
//
//	absent                                     create (or, tracked, update: "drift: the namespace does not exist")
//	no GeneratorLabel                          adopted: applied, Conflict "NamespaceAdopted", a warning
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
// records, its decision's reason and a warning of the plan ("NamespaceAdopted:
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
// # Finalize
//
// [Generator.Finalize] is what deleting the ArtifactGenerator does with its
// inventory, in prune order (every ExternalArtifact before the namespaces):
//
//	ExternalArtifact (any kind but Namespace)     delete, unread
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
// Where tenantkit refuses what source-watcher v2.3 allows, or reads more,
// on purpose (live state and Finalize):
//
//   - A tracked namespace with a protected name (Kubernetes' own, the
//     generator's) is released, never deleted; source-watcher deletes
//     any managed namespace but its own.
//   - No namespace is deleted while an ExternalArtifact that the same
//     pass does not delete lives in it, another generator's included;
//     source-watcher deletes it, and the artifacts with it.
//   - A namespace labelled by another generator is released when it is
//     stale or the generator is deleted; source-watcher's deleteNamespace
//     does not look at the label.
//   - A live namespace that cannot be read skips that namespace and its
//     artifacts, with an error, and the other tenants proceed; in
//     source-watcher the whole reconcile fails.
//   - The apply exclusions (reconcile: disabled, ssa: Ignore, ssa:
//     IfNotPresent) are read under kustomize-controller's prefix too;
//     source-watcher reads only source.extensions.fluxcd.io when it
//     applies a namespace.
//   - Drift compares every desired key, the tenant's NamespaceMetadata
//     included, and is planned per namespace with its keys in the reason;
//     source-watcher compares the common metadata, the from operations
//     and its own labels, and answers with a full reconcile.
//   - A hand-off to an object in the namespace itself, or to a kind that
//     [WithFinalizerKinds] does not allow, is not a hand-off: the
//     namespace is deleted; source-watcher takes any existing object with
//     the UID. A Forbidden lookup keeps the namespace, as any lookup error
//     does in both.
//   - In a normal plan, a handed-off namespace stays tracked while the
//     hand-off holds; source-watcher stops tracking it once it skips its
//     deletion. Finalize releases it, as source-watcher does.
//   - A previous inventory that does not validate (a malformed digest, an
//     identity twice) keeps every entry, in Plan and in Finalize, with the
//     error; source-watcher does not validate it.
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
// destination overwrites an earlier one.
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
// path is the file's destination below "@artifact/"; length, keylen and
// vallen are decimal byte counts without leading zeros; value is the input
// as compact JSON (encoding/json.Compact). No path starts with NUL, so the
// inputs part cannot be read as a file. An artifact without inputs hashes
// its files only. testdata/artifact-digest-vectors.json pins the
// definition with vectors.
//
// # Concurrency
//
// A [Generator] is immutable and safe for concurrent use; so is [Plan.Next]
// on a plan that nobody modifies. Plan builds namespaces and artifacts on
// GOMAXPROCS goroutines, or as many as [WithConcurrency] says; its output
// does not depend on their number or their scheduling. They read the
// sources at once, so each source's fs.FS must be safe for concurrent use,
// as those of os.DirFS, os.Root and fstest.MapFS are. A panic while
// building one namespace or artifact (in a source's file system, say)
// stops that build alone: the object is skipped, and the plan has an
// internal error naming it and the panic value. Plan and
// [Generator.Finalize] call the [Cluster] on the calling goroutine, one
// object at a time, so it need not be safe for concurrent use.
//
// # Cost
//
// A plan reads every file that its artifacts copy, and hashes it, on every
// core it may use; the benchmarks compare it with that floor (see the README's
// Performance section). It holds a file's content only while hashing it,
// and keeps of each artifact its name, labels, captures, inputs, file
// count and digest: the list of its files only when the generator was
// compiled [WithFileLists]. It reads each source through a cache, for the
// length of the plan, of the directories it has seen and the entry types
// of those it has read: every file read on a tenant's behalf has each
// element of its name checked for a symbolic link (pathpattern.ReadFile),
// and the cache answers those checks for the directories already seen, so
// that each directory is checked once per plan, whatever the file system.
// Through the FS of an [os.Root], which walks every name one element at a
// time, opening a file still costs a system call or two for each directory
// on its path. Inputs and NamespaceMetadata files are decoded by
// sigs.k8s.io/yaml.
package generator
