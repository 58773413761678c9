// Package inventory tracks what a generator applied, as entries keyed by
// (group, kind, namespace, name) with a digest, and decides, safely, what to
// apply, delete, release or keep on each pass.
//
// A pass, for a controller such as Flux's ArtifactGenerator:
//
//	changes, err := inventory.Diff(previous, desired)     // create, update, unchanged, stale
//	// ... apply changes.Create and changes.Update, in order ...
//	decisions, err := inventory.Collect(ctx, changes.Stale, desired, opts...)
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
//	digest     = ( "sha256" | "sha384" | "sha512" ) ":" lower-case hex of the algorithm's size
//
// Its identity is an [ID], (group, kind, namespace, name): the version is
// not part of it. An empty kind reads as ExternalArtifact (older
// inventories held nothing else). An empty apiVersion is allowed for the two
// kinds an ArtifactGenerator records: a Namespace is in the core group ""
// and an ExternalArtifact in source.toolkit.fluxcd.io; any other kind must
// carry its apiVersion, for its group cannot be guessed. A digest may be
// empty (a Flux ResourceInventory carries none); two empty digests are
// equal.
//
// Every string is bounded by its rule, so a validated entry costs a bounded
// amount to store, compare and print, however a tenant names its directory.
//
// # Flux ResourceInventory
//
// kustomize-controller and flux-operator record inventories as ids and
// versions ([ResourceRef]):
//
//	id = namespace "_" name "_" group "_" kind     each ":" of name written "__"
//
// [ParseID] splits an id as Flux does, and [ID.String] writes one;
// [FromResourceInventory] and [ToResourceInventory] convert whole lists, so
// that those inventories can be diffed too. A name that contains "_" cannot
// be written as an id. [Unmarshal] reads either kind of inventory from YAML
// or JSON, bounded by [MaxDocumentBytes].
//
// # Order
//
// Apply order ([SortApply]) puts CustomResourceDefinitions
// (apiextensions.k8s.io) first, then Namespaces (core group), then the rest,
// each by group, kind, namespace and name. The table is keyed by group and
// kind: a kind named Namespace in another group is an ordinary object.
// Prune order ([SortPrune]) is the exact reverse, so Namespaces and CRDs go
// last, after the objects in them. [Diff] returns desired entries in apply
// order and stale ones in prune order; [Collect] decides in prune order;
// [Next] returns the inventory in apply order. Nothing depends on map
// order.
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
// The deletion guard is off by default, as in Flux. [WithMaxDeletions](n)
// refuses a pass that would delete more than n entries, and
// [WithDeleteAll](false) refuses a pass that would delete while nothing is
// desired, which is what an empty or unreadable source looks like. A refusal
// keeps every entry that would have been deleted, with a reason naming the
// option that allows it. For a desired state that has errors,
// [WithKeepAll] keeps every stale entry.
//
// A Namespace kept alive because of a released entry in it is kept for
// that pass only: once released, an entry is no longer tracked, and a later
// pass deletes the Namespace, and the released object with it. A caller that
// must preserve such objects guards the Namespace itself, looking at what it
// holds.
//
// # Change lines
//
// [Decision.String] prints Flux's change lines, and [Summarize] counts the
// decisions by action:
//
//	Namespace/tenant-a created
//	ExternalArtifact/tenant-a/app configured
//	ExternalArtifact/tenant-a/old deleted
//	Namespace/tenant-b kept (in use by ExternalArtifact/tenant-b/web)
//
// Actions marshal to JSON as "create", "update", "unchanged", "delete",
// "release" and "keep".
//
// # Concurrency
//
// Every function is safe for concurrent use: none keeps state between calls
// or modifies its arguments, except [SortApply] and [SortPrune], which sort
// the slice they are given. [Collect] runs the guards one at a time on the
// calling goroutine.
package inventory
