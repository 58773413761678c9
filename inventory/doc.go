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
// Its identity is an [ID], without the version; [Entry] says how an empty kind or apiVersion
// reads. Only a digest's format is checked, so no hash implementation is linked in.
//
// # Flux ResourceInventory
//
// kustomize-controller and flux-operator record inventories as ids and versions ([ResourceRef]),
// written and read by github.com/fluxcd/cli-utils (v1.2.2 in kustomize-controller v1.9):
//
//	id = namespace "_" name "_" group "_" kind
//
// [ID.FluxID] writes and [ParseID] reads an id exactly as cli-utils does, but where cli-utils
// reads any string with three "_", ParseID also requires an identity an object can have.
// [FromResourceInventory] and [ToResourceInventory] convert whole lists, and [Unmarshal] reads
// either kind of inventory. Module interop/flux tests this against cli-utils.
//
// # Order
//
// Apply order ([SortApply]) is that of Flux's github.com/fluxcd/pkg/ssa (v0.77.0), prune order
// its exact reverse; [Diff], [Collect] and [Next] return lists in these orders,
// never in map order.
//
// # Garbage collection
//
// [Collect] decides each stale entry [Delete], [Release] (stop tracking, do not delete) or [Keep]
// (stay tracked). When unsure it keeps: a guard error, or an error of Collect itself, is a Keep.
// [Next] drops nothing tracked without a confirmed deletion or a Release, so a failed deletion is
// retried on the next pass, as kustomize-controller does.
//
// Stale Namespaces are released unless [WithNamespacePrune], and a pass that would delete every
// tracked entry (an empty source, a wrong pattern) is refused unless [WithAllowDeleteAll]; Flux,
// which prunes everything on an empty source, behaves as with it.
//
// Every read refuses a whole list for one invalid entry, and [Diff] one that holds an ID twice, so
// that a pass that cannot read what it tracks changes nothing; to clean up, [UnmarshalLenient] keeps
// the valid entries, of a Flux ResourceInventory ({"entries": [...]}) too.
//
// A controller that applies in steps, as flux-operator's ResourceSet does, records the [Union] of
// what it tracked and applied, stages deletions with [PruneStages], and sets [Decision.Result].
//
// [Decision.String] prints Flux's change lines, such as "ExternalArtifact/tenant-a/old deleted" or
// "Namespace/tenant-b kept (in use by ExternalArtifact/tenant-b/web)".
//
// # Errors
//
// Problems with entries come as a field.ErrorList at their paths ("desired[3].digest"), in list
// and index order ([Collect] and [Unmarshal] return its ToAggregate), a duplicate named for people
// (desired[1]: Duplicate value: "ExternalArtifact/tenant-a/app"); sentinels ([ErrInvalidID], ...)
// are for other failures. A malformed document is described in its own words, not the decoder's.
//
// # Concurrency
//
// Every function is safe for concurrent use ([Collect] when its guards are): none keeps state
// between calls or modifies its arguments, except [SortApply],
// which sorts the slice it is given, and [Union], which sorts a slice of its own.
package inventory
