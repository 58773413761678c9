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
// reads as ExternalArtifact, and only a Namespace or an ExternalArtifact may omit its apiVersion
// (see [Entry]). Only a digest's format is checked, so no hash implementation is linked in; a
// digest may be empty, as in a Flux ResourceInventory. Each string is bounded ([Entry.Validate]).
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
// those inventories can be diffed too, and [SortFluxID] puts entries in the order flux-operator
// records. [Unmarshal] reads either kind of inventory from YAML or JSON, bounded to 8 MiB. The
// module interop/flux runs cli-utils and ssa beside this package on tables and random inputs.
//
// # Reading to clean up
//
// The reads above refuse a whole list for one invalid entry, and [Diff] one that holds an ID
// twice, so that a pass that cannot read what it tracks changes nothing. To clean up, where that
// would block garbage collection, [UnmarshalLenient] and [FromResourceInventoryLenient] keep the
// valid entries and name the others.
//
// # Order
//
// Apply order ([SortApply]) is that of Flux's github.com/fluxcd/pkg/ssa (v0.77.0), and prune
// order ([SortPrune]) its exact reverse, as ssa's DeleteAll: an applier before the RoleBinding it
// runs as, Namespaces and CRDs after the objects in them. [Diff] returns desired entries in apply
// order and stale ones in prune order, [Collect] decides in prune order, and [Next] returns the
// inventory in apply order. Nothing depends on map order.
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
// Options are off unless given: stale Namespaces are released unless [WithNamespacePrune], and a
// pass that would delete every tracked entry (an empty or unreadable source, a wrong pattern) is
// refused unless [WithAllowDeleteAll]; Flux, which prunes everything on an empty source, behaves
// as with it. See also [WithMaxDeletions] and [WithKeepAll].
//
// # A controller that applies in steps
//
// A controller that applies in steps, as flux-operator's ResourceSet does, records the [Union] of
// its previous inventory and what it has applied so far, stages its garbage collection with
// [PruneStages], and records what each deletion came to in [Decision.Result] for [Next]:
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
// # Errors
//
// Problems with entries come as a field.ErrorList, each with its path ("desired[3].digest") and
// type, in list and index order ([Collect] and [Unmarshal] return its ToAggregate); sentinels
// ([ErrInvalidID], ...) are for other failures. A malformed document is said so at the path of
// the value, in its own words, never in the decoder's. A duplicate names its object for people:
//
//	desired[1]: Duplicate value: "ExternalArtifact/tenant-a/app"
//
// # Concurrency
//
// Every function is safe for concurrent use ([Collect] when its guards are): none keeps state
// between calls or modifies its arguments, except [SortApply], [SortPrune] and [SortFluxID],
// which sort the slice they are given, and [Union], which sorts a slice of its own.
package inventory
