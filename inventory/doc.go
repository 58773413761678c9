// Package inventory tracks what a generator applied, as entries keyed by
// (group, kind, namespace, name) with a digest, and decides, safely, what to
// apply, delete, release or keep on each pass.
//
// A pass, for a controller such as Flux's ArtifactGenerator:
//
//	changes, errs := inventory.Diff(previous, desired)    // create, update, unchanged, stale
//	// ... apply changes.Create and changes.Update, in order ...
//	decisions, err := inventory.Collect(ctx, changes, opts...)
//	// ... delete the entries decided Delete, in order ...
//	next := inventory.Next(desired, decisions, confirmedDeleted)
//
// The package does no I/O: whatever needs the cluster (a prune annotation,
// an external finalizer) comes in as a [Guard], and the caller reports which
// deletions succeeded.
//
// # Entries and identity
//
// An [Entry] is one element of the ArtifactGenerator's status.inventory:
//
//	entry      = "{" [ "apiVersion" ":" apiVersion "," ] "kind" ":" kind ","
//	             [ "namespace" ":" namespace "," ] "name" ":" name
//	             [ "," "filename" ":" filename ] [ "," "digest" ":" digest ] "}"
//	apiVersion = [ group "/" ] version   group: DNS-1123 subdomain; version: DNS-1035 label
//	kind       = ASCII, a DNS-1035 label once lower-cased (at most 63 bytes)
//	namespace  = DNS-1123 label (at most 63 bytes); absent for a cluster-scoped object
//	name       = at most 253 bytes, not "." or "..", without "/" or "%"
//	filename   = at most 4096 bytes
//	digest     = algorithm ":" lower-case hex of the algorithm's size
//	algorithm  = "sha1" | "sha256" | "sha384" | "sha512" | "blake3"   (40, 64, 96, 128, 64 hex)
//
// Its identity is an [ID], (group, kind, namespace, name): the version is
// not part of it. An empty kind reads as ExternalArtifact (older
// inventories held nothing else). An empty apiVersion is allowed for the two
// kinds an ArtifactGenerator records: a Namespace is in the core group ""
// and an ExternalArtifact in source.toolkit.fluxcd.io; any other kind must
// carry its apiVersion, for its group cannot be guessed. The kinds, groups
// and versions are exported ([KindNamespace], [GroupSource], ...), and
// [ID.IsNamespace] tells a core Namespace from a kind of that name in
// another group.
//
// The digest algorithms are those of source-watcher's and
// source-controller's --artifact-digest-algo; only the format is checked,
// so no hash implementation is linked in. A digest may be empty: a Flux
// ResourceInventory carries none, and an entry read from one has none. Two
// empty digests are equal, so such an entry is unchanged until it gets a
// digest, and then updated once. An ArtifactGenerator's CRD requires the
// digest of each entry: a generator must set it on every entry it records.
//
// Every string is bounded by its rule, so a validated entry costs a bounded
// amount to store, compare and print, however a tenant names its directory.
//
// # Flux ResourceInventory
//
// kustomize-controller and flux-operator record inventories as ids and
// versions ([ResourceRef]), written and read by github.com/fluxcd/cli-utils
// (v1.2.2 in kustomize-controller v1.9):
//
//	id = namespace "_" name "_" group "_" kind
//
// [ID.FluxID] writes an id exactly as cli-utils does: each ":" of the name
// as "__" for Role, ClusterRole, RoleBinding and ClusterRoleBinding of
// rbac.authorization.k8s.io, and the name as it is for every other kind.
// [ParseID] reads one exactly as cli-utils does: the namespace up to the
// first "_", the kind after the last, the group after the one before, the
// name in between with each "__" read as ":". A name may hold "_" (RBAC and
// CertificateSigningRequest names need only be path segments):
// "_my_role_rbac.authorization.k8s.io_ClusterRole" is the ClusterRole
// "my_role". Where cli-utils reads any string with three "_", ParseID also
// requires an identity that an object can have ([ID.Validate]).
//
// [FromResourceInventory] and [ToResourceInventory] convert whole lists,
// so that those inventories can be diffed too; [Entry.ResourceRef] converts
// one entry, and [SortFluxID] puts entries in the order of their ids, the
// order flux-operator records. ToResourceInventory refuses
// only what cli-utils itself cannot read back: a name holding "__", which
// would read back as ":", and, for the RBAC kinds, a "_" before a ":"
// ("a_:b" is written "a___b" and read "a:_b"). [Unmarshal] reads either
// kind of inventory from YAML or JSON, bounded to 8 MiB, more than five
// times etcd's default limit of 1.5 MiB on a stored object, so that any
// inventory a cluster holds fits, even printed as YAML; an object without
// status.inventory (a fresh generator or Kustomization) is an empty
// inventory.
//
// The module interop/flux runs cli-utils and ssa side by side with this
// package on tables and random inputs.
//
// # Reading to clean up
//
// The reads above are strict, as planning needs: one invalid entry (an id
// whose namespace is not a DNS-1123 label) refuses the whole list, and
// [Diff] refuses an inventory that holds an ID twice, so that a pass that
// cannot read what it tracks changes nothing. To clean up, that would
// block garbage collection for as long as the bad entry stays, and an
// uninstaller would delete nothing. [UnmarshalLenient] and
// [FromResourceInventoryLenient] return the entries that are valid, the
// first of each ID, so that Diff takes them, with a field.ErrorList that
// names each entry they left out.
//
// # Order
//
// Apply order ([SortApply]) is that of Flux's github.com/fluxcd/pkg/ssa
// (v0.77.0), as kustomize-controller and flux-operator apply: a kind table
// puts CustomResourceDefinitions first, then Namespaces, ClusterRoles, the
// cluster-wide classes, ClusterRoleBindings, ResourceQuotas,
// ServiceAccounts, Roles, RoleBindings, ConfigMaps, Secrets, Services,
// LimitRanges, Deployments, StatefulSets, CronJobs and
// PodDisruptionBudgets; every other kind comes after them, and
// MutatingWebhookConfigurations and ValidatingWebhookConfigurations last.
// Within a rank, entries sort by group, kind, namespace and name. The table
// is keyed by kind alone, as ssa's is: a kind named Namespace in another
// group ranks with Namespaces, after the core ones. Prune order
// ([SortPrune]) is the exact reverse, as ssa's DeleteAll: a Kustomization,
// HelmRelease or ResourceSet goes before the RoleBinding and ServiceAccount
// it runs as, so it can still clean up after itself, and Namespaces and
// CRDs go last, after the objects in them. [Diff] returns desired entries
// in apply order and stale ones in prune order; [Collect] decides in prune
// order; [Next] returns the inventory in apply order. Nothing depends on
// map order.
//
// # Garbage collection
//
// [Collect] returns one [Decision] per stale entry: [Delete], [Release]
// (stop tracking, do not delete: prune policy off, pruning disabled on the
// object, handed off to another finalizer) or [Keep] (stay tracked: a
// Namespace that a desired entry still lives in, a guard that said so or
// failed, or a refusal of the deletion guard). Its documentation lists the
// rules in the order they apply. When unsure, it keeps: a guard error is a
// Keep, never a Delete, and so is an error of Collect itself.
//
// [Next] records desired + Keep + every Delete not confirmed deleted:
// nothing tracked leaves the inventory without a confirmed deletion or a
// Release, so an entry whose deletion failed is retried on the next pass,
// as kustomize-controller does.
//
// Options are off unless given. Stale Namespaces are released, not
// deleted, unless [WithNamespacePrune] is given (the ArtifactGenerator's
// managedNamespaces.prune). A pass that would delete every entry the
// inventory tracked, which is what an empty or unreadable source looks
// like (nothing desired), or a wrong pattern (everything desired is new),
// is refused unless [WithAllowDeleteAll] is given (Flux, which prunes
// everything on an empty source, behaves as with it).
// [WithMaxDeletions](n) refuses a pass that would delete more than n
// entries. A refusal keeps every entry that would have been deleted, with
// a reason naming the option that allows it, and Collect returns the
// decisions with an error wrapping [ErrDeletionRefused]. For a desired
// state that has errors, [WithKeepAll] keeps every stale entry.
//
// A Namespace kept alive because of a released entry in it is kept for
// that pass only: once released, an entry is no longer tracked, and a later
// pass deletes the Namespace, and the released object with it. A caller that
// must preserve such objects guards the Namespace itself, looking at what it
// holds.
//
// # A controller that applies in steps
//
// A controller that applies its desired state in steps and records its
// inventory as it goes, as flux-operator's ResourceSet does, records the
// [Union] of the previous inventory and what it has applied so far, in
// apply order or, as flux-operator writes it, in the order of Flux's ids
// (SortFluxID), so that a step that fails leaves nothing untracked. Its
// garbage collection is staged: [PruneStages] splits the entries to delete
// into Flux's appliers (Kustomizations, HelmReleases), to delete and wait
// for first, so that they can still clean up under the ServiceAccount and
// RoleBindings of the second stage, and the rest. The deleter records what
// each deletion came to in [Decision.Result] ([Deleted], [PruningDisabled]
// for an object whose prune annotation kept it, which is released, or
// [DeletionFailed], which stays tracked), and [Next] follows it:
//
//	decisions, err := inventory.Collect(ctx, changes, inventory.WithNamespacePrune())
//	// for each stage of PruneStages(the Delete entries): delete, set each Result, wait
//	next := inventory.Next(desired, decisions, nil)
//
// # Change lines
//
// [Decision.String] prints Flux's change lines:
//
//	Namespace/tenant-a created
//	ExternalArtifact/tenant-a/app configured
//	ExternalArtifact/tenant-a/old deleted
//	Namespace/tenant-b kept (in use by ExternalArtifact/tenant-b/web)
//	ExternalArtifact/tenant-c/app skipped (its namespace is refused)
//
// Actions marshal to JSON as "create", "update", "unchanged", "delete",
// "release", "keep" and "skip". [Skip] is for a caller that composes a pass
// of its own, as package generator does: an object that an error touches is
// neither applied nor deleted, and stays in the inventory if it was tracked.
// Diff and Collect never return it.
//
// # Errors
//
// Problems with entries come as a field.ErrorList, every problem with its
// path ("desired[3].digest", "status.inventory.entries[1].id") and type,
// in list and index order: [Diff], [FromResourceInventory] and
// [ToResourceInventory] return it; [Collect] and [Unmarshal], which can
// fail otherwise too, return its ToAggregate; [UnmarshalLenient] and
// [FromResourceInventoryLenient] return it beside the entries they kept. The sentinels ([ErrInvalidID],
// [ErrInvalidOption], [ErrDeletionRefused], [ErrInvalidAction],
// [ErrMalformed], [ErrTooLarge]) are for the other failures; a document
// that is malformed is said so in its own words, at the path of the value
// ("status.inventory[0].name: must be a string, found a number"), never in
// the decoder's. A duplicate names its object for people:
//
//	desired[1]: Duplicate value: "ExternalArtifact/tenant-a/app"
//
// # Concurrency
//
// Every function is safe for concurrent use: none keeps state between calls
// or modifies its arguments, except [SortApply], [SortPrune] and
// [SortFluxID], which sort the slice they are given, and [Union], which
// calls the sort it is given on a slice of its own. [Collect] runs the guards one at a time on the
// calling goroutine.
package inventory
