// Package inventory tracks what a generator applied, as entries keyed by (group, kind, namespace,
// name) with a digest, and decides, safely, what to apply, delete, release or keep on each pass.
//
// A pass, for a controller such as Flux's ArtifactGenerator:
//
//	changes, errs := inventory.Diff(previous, desired)    // create, update, unchanged, stale
//	// ... apply changes.Create and changes.Update, in order ...
//	decisions, err := inventory.Collect(ctx, changes, opts...)
//	// ... delete the entries decided Delete, in order ...
//	next := inventory.Next(desired, decisions, confirmedDeleted)
//
// The package does no I/O: whatever needs the cluster (a prune annotation, an external finalizer)
// comes in as a [Guard], and the caller reports which deletions succeeded.
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
// Its identity is an [ID], (group, kind, namespace, name), without the version. An empty kind
// reads as ExternalArtifact, and only a Namespace or an ExternalArtifact may omit its apiVersion,
// for any other kind's group cannot be guessed (see [Entry]); [ID.IsNamespace] tells a core
// Namespace from a kind of that name in another group. Only a digest's format is checked, so no
// hash implementation is linked in. A digest may be empty, as in a Flux ResourceInventory, and
// two empty digests are equal. Every string is bounded ([Entry.Validate]).
//
// # Flux ResourceInventory
//
// kustomize-controller and flux-operator record inventories as ids and versions ([ResourceRef]),
// written and read by github.com/fluxcd/cli-utils (v1.2.2 in kustomize-controller v1.9):
//
//	id = namespace "_" name "_" group "_" kind
//
// [ID.FluxID] writes and [ParseID] reads an id exactly as cli-utils does: "__" in a name stands
// for ":" (written so for the RBAC kinds only), and a name may hold "_". Where cli-utils reads
// any string with three "_", ParseID also requires an identity that an object can have
// ([ID.Validate]). [FromResourceInventory] and [ToResourceInventory] convert whole lists, so that
// those inventories can be diffed too, and [Entry.ResourceRef] one entry; [SortFluxID] puts
// entries in the order flux-operator records. [Unmarshal] reads either kind of inventory from
// YAML or JSON, bounded to 8 MiB, which any inventory a cluster holds fits; an object without
// status.inventory (a fresh generator or Kustomization) is an empty inventory. The module
// interop/flux runs cli-utils and ssa side by side with this package on tables and random inputs.
//
// # Reading to clean up
//
// The reads above are strict, as planning needs: one invalid entry refuses the whole list, and
// [Diff] refuses an ID held twice, so that a pass that cannot read what it tracks changes
// nothing. To clean up, that would block garbage collection for as long as the bad entry stays:
// [UnmarshalLenient] and [FromResourceInventoryLenient] return the valid entries, the first of
// each ID, with a field.ErrorList naming each entry they left out.
//
// # Order
//
// Apply order ([SortApply]) is that of Flux's github.com/fluxcd/pkg/ssa (v0.77.0), as
// kustomize-controller and flux-operator apply: CustomResourceDefinitions and Namespaces first,
// webhook configurations last. Prune order ([SortPrune]) is its exact reverse, as ssa's
// DeleteAll: a Kustomization, HelmRelease or ResourceSet goes before the RoleBinding and
// ServiceAccount it runs as, so it can still clean up after itself, and Namespaces and CRDs go
// after the objects in them. [Diff] returns desired entries in apply order and stale ones in
// prune order; [Collect] decides in prune order; [Next] returns the inventory in apply order.
// Nothing depends on map order.
//
// # Garbage collection
//
// [Collect] returns one [Decision] per stale entry: [Delete], [Release] (stop tracking, do not
// delete) or [Keep] (stay tracked), by the rules its documentation lists in order. When unsure,
// it keeps: a guard error is a Keep, never a Delete, and so is an error of Collect itself. [Next]
// records desired + Keep + every Delete not confirmed deleted: nothing tracked leaves the
// inventory without a confirmed deletion or a Release, so an entry whose deletion failed is
// retried on the next pass, as kustomize-controller does.
//
// Options are off unless given. Stale Namespaces are released, not deleted, unless
// [WithNamespacePrune] is given (the ArtifactGenerator's managedNamespaces.prune). A pass that
// would delete every entry the inventory tracked, which is what an empty or unreadable source or
// a wrong pattern looks like, is refused unless [WithAllowDeleteAll] is given: Flux, which prunes
// everything on an empty source, behaves as with it. [WithMaxDeletions] caps the deletions of a
// pass, and [WithKeepAll] keeps every stale entry of a desired state that has errors.
//
// # A controller that applies in steps
//
// A controller that applies in steps and records its inventory as it goes, as flux-operator's
// ResourceSet does, records the [Union] of the previous inventory and what it has applied so far,
// so that a step that fails leaves nothing untracked. [PruneStages] stages its garbage
// collection, Flux's appliers first, and the deleter records what each deletion came to in
// [Decision.Result] ([Deleted], [PruningDisabled] or [DeletionFailed]), which [Next] follows:
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
// Actions marshal to JSON by name ([Action.String]). [Skip] is for a caller that composes a pass
// of its own, as package generator does; Diff and Collect never return it.
//
// # Errors
//
// Problems with entries come as a field.ErrorList, every problem with its path
// ("desired[3].digest", "status.inventory.entries[1].id") and type, in list and index order:
// [Diff], [FromResourceInventory] and [ToResourceInventory] return it; [Collect] and [Unmarshal],
// which can fail otherwise too, return its ToAggregate; the lenient reads return it beside the
// entries they kept. The sentinels ([ErrInvalidID], [ErrInvalidOption], [ErrDeletionRefused],
// [ErrInvalidAction], [ErrMalformed], [ErrTooLarge]) are for the other failures; a malformed
// document is said so at the path of the value, in its own words
// ("status.inventory[0].name: must be a string, found a number"), never in the decoder's. A
// duplicate names its object for people:
//
//	desired[1]: Duplicate value: "ExternalArtifact/tenant-a/app"
//
// # Concurrency
//
// Every function is safe for concurrent use: none keeps state between calls or modifies its
// arguments, except [SortApply], [SortPrune] and [SortFluxID], which sort the slice they are
// given, and [Union], which calls the sort it is given on a slice of its own. [Collect] runs the
// guards one at a time on the calling goroutine.
package inventory
