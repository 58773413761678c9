// Package generator composes the tenantkit packages (pathpattern, nsmeta, inventory, finalizer
// and cel) into the tenant-provisioning rules of an ArtifactGenerator, once, so that every
// embedder (source-watcher, flux-operator, a preview tool) imports them instead of re-writing
// them: compile a spec once, then plan every reconcile from the sources, the previous inventory
// and what a small interface reads of the live cluster.
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
// Kubernetes I/O stays with the caller: sources are fs.FS values, one per alias, and the
// cluster is a [Cluster] of three one-method interfaces.
//
// # Rules
//
// Every rule fails closed: when a plan cannot tell whether deleting is safe, it keeps.
//
//  1. An artifact whose namespace is refused (name policy, protected name) or its metadata
//     failed (the NamespaceMetadata file fromSource names is missing, unreadable or refused by
//     the schema), whose namespace or name collides with another's, or whose rendering, inputs
//     or copy failed is never created or updated: it is [inventory.Skip], with the reason, and
//     kept in the inventory when tracked. The valid ones proceed.
//  2. The source of the pattern must be a directory, and so must every directory of the
//     pattern's fixed prefix ("tenants" in "@repo/tenants/{namespace}/modules/{module}"), none a
//     symbolic link; an alias needs a source. Below the prefix, a link where the pattern needs a
//     directory, or a link or a file at a literal segment, is an error naming its path
//     (pathpattern.Match.Problem), never a tenant that went away: the plan deletes nothing (rule 3).
//  3. A plan with errors deletes nothing. A plan that would delete every object of a non-empty
//     previous inventory deletes nothing and has an error, unless [WithAllowDeleteAll]; so
//     does one that would delete more than [WithMaxDeletions] objects.
//  4. A stale object is released, never deleted, when its live copy disables pruning as Flux's
//     delete options read it (fluxcd/pkg/ssa: prune: disabled, reconcile: disabled or
//     ssa: Ignore, as a label or an annotation under source.extensions.fluxcd.io/ or
//     kustomize.toolkit.fluxcd.io/, the value in any case), when its GeneratorLabel names
//     another generator, or, a namespace, when its name is protected. A namespace is handed
//     off by its external finalizer ([finalizer.Decider]) only to an object outside it, of a
//     kind [WithFinalizerKinds] allows (embedders should name them: without the list, any
//     object with the stamped UID keeps it), and outside any namespace the same pass removes
//     (no cycles); a handed-off namespace is kept, and every plan decides again.
//  5. Every delete, release, keep and skip carries its reason; a namespace's names the
//     finalizer verdict.
//  6. The artifact digest covers the files and the exported inputs: an inputs-only change is
//     an update (unless [WithArtifactDigest] computes it, see [Artifact]).
//  7. Names and namespaces are rendered in one place, from the normalized captures: a name
//     must be a DNS-1123 subdomain and a namespace a DNS-1123 label, or the artifact is not
//     built and the error names the value and its directory. Two artifacts, of one
//     spec.artifacts entry or of two, that render the same namespace and name are one error
//     naming both directories (and both entries), and both are skipped. spec.pathPattern is
//     optional, as in source-watcher: without it, no source is walked, and each spec.artifacts
//     entry is one artifact without path or captures, its name, namespace, inputsFrom, copy
//     froms and metadata file path literals (a capture in them is an error of Compile); errors
//     name the entry ("spec.artifacts[0] and spec.artifacts[1] render the same namespace
//     "tenant-a" and name "app"").
//  8. A namespace is deleted only when no ExternalArtifact lives in it any more, other than
//     those this plan deletes ([ArtifactLister]).
//  9. Copy operations follow source-watcher's destination rule (see [CopyOperation]).
//
// # The spec
//
// [Spec] is released source-watcher v2.3's ArtifactGenerator spec, field for field
// (interop/sourcewatcher decodes released manifests with the released Go types and with Spec,
// and compares them):
//
//	spec.managedNamespaces       without it, no namespace is managed
//	  allowedNames               CEL expressions over ns; required
//	  prune                      required
//	  metadata.fromSource        path, and allowedLabels and allowedAnnotations as CEL expressions over value
//	  metadata.from              the Reset, Override and Merge operations
//
// [Compile] refuses what the released CRD refuses, each at its field path. default,
// kube-system, kube-public and flux-system are refused as upstream refuses them; so are
// kube-node-lease and the generator's own namespace, a difference ([ManagedNamespaces]). The
// artifact fields are source-watcher's ([OutputArtifact], [CopyOperation]).
//
// # Decisions
//
// One table decides every object, first match wins, in a plan and in [Generator.Finalize] alike
// (a pass that desires nothing, its deletions' reason "the generator is deleted", where a
// hand-off releases). Around it, inventory.Collect keeps every stale object of a plan with
// errors, a namespace a desired object lives in, and one that holds a stale object kept or
// released; then the deletion guard (rule 3; not in Finalize) looks at the deletions. Each
// row's name leads its test case (TestDecisionRows); "diff" keeps what inventory.Diff decided:
//
//	row                                       decision
//	stale objects, in prune order:
//	namespace pruning is off                  release
//	skipped                                   keep
//	protected namespace                       release
//	no ObjectReader                           keep
//	the live object cannot be read            keep
//	not found                                 delete
//	prune: disabled                           release
//	reconcile: disabled                       release
//	ssa: Ignore                               release
//	another generator's label                 release
//	an artifact, otherwise                    delete
//	no ArtifactLister                         keep
//	the ExternalArtifacts cannot be listed    keep
//	an ExternalArtifact lives in it           keep
//	the finalizer's namespace cannot be read  keep
//	the finalizer's namespace is removed too  delete
//	the finalizer cannot be looked up         keep
//	handed off, the generator is deleted      release
//	handed off                                keep
//	a namespace, otherwise                    delete
//	desired namespaces (see [Cluster]):
//	not reconciled, desired metadata          unchanged
//	not reconciled, live namespace            unchanged
//	applied only if absent, live namespace    unchanged
//	applied only if absent, desired metadata  unchanged
//	tracked, does not exist                   update
//	live metadata drifted                     update
//	adopted or taken over                     diff
//	namespace as the inventory says           diff
//	desired ExternalArtifacts, with a UID:
//	artifact taken over, unchanged            update
//	artifact taken over                       diff
//	artifact as the inventory says            diff
//
// # Differences from source-watcher
//
// docs/differences.md lists each, with upstream's behaviour and the test that shows both, and
// what tenantkit's judgement settles.
//
// # Concurrency
//
// A [Generator] is immutable and safe for concurrent use; so is [Plan.Next] on a plan that
// nobody modifies. Plan builds namespaces and artifacts on GOMAXPROCS goroutines
// ([WithConcurrency]), its output independent of their number and scheduling, so each source's
// fs.FS must be safe for concurrent use, as os.DirFS's, os.Root's and fstest.MapFS's are. A
// panic while building one object skips it, with an internal error naming it and the panic
// value; one while discovering is an internal error of the pattern, and the plan builds and
// deletes nothing. Plan and [Generator.Finalize] call the [Cluster] on the calling goroutine,
// one object at a time, so it need not be safe for concurrent use.
//
// # Cost
//
// A plan reads and hashes every file its artifacts copy, on every core it may use
// (BenchmarkPlan compares it with that floor; docs/performance.md has the figures). It holds a
// copied file only while hashing it, merged or extracted content until its artifact is hashed,
// and keeps of each artifact its name, labels, captures, inputs, file count and digest (its
// file list only under [WithFileLists]). Merge and Extract copies are charged before they run,
// per file, per artifact and per plan; the plan's budget (250,000 units, 256 more a namespace)
// goes to the smallest needs first, so an artifact fails for it, named and kept, only when the
// plan as a whole is over it, the largest first, alike on every machine and worker count.
package generator
