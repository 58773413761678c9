// Package reconciler is the example's TenantGenerator reconciler: the way a
// controller author embeds tenantkit's generator package; and its
// TenantSet reconciler, the ResourceSet-like other half of the combo (see
// "TenantSet" below).
//
// # One reconcile
//
//  1. Compile the spec (generator.Compile), once per generation: the
//     compiled generator, or the compile errors, are kept per
//     TenantGenerator for its (UID, generation) and dropped once it is
//     gone (see [specs]). A bad spec is Ready=False, InvalidSpec, and
//     nothing is touched.
//  2. Plan (Generator.Plan) from the --source directories, the inventory in
//     status, and the live cluster, read through the impersonated service
//     account without a cache (see [cluster]).
//  3. Apply, in the plan's order: namespaces by server-side apply with the
//     controller's field manager, then the ExternalArtifacts (object, then
//     status), each only when the plan creates or updates it, or when its
//     live copy has drifted from the plan (missing, or a managed label,
//     annotation or digest differs).
//  4. Delete the plan's deletions in prune order, artifacts before their
//     namespace, each confirmed or not (see "Confirmed deletions").
//  5. Record Plan.Next with the confirmed deletions as status.inventory,
//     with the Ready condition (and Reconciling or Stalled) and the plan's
//     summary; the status is patched only when it changed.
//
// The first reconcile adds the finalizer v1alpha1.Finalizer. A namespace
// that the plan adopts or takes over (generator.Namespace.Conflict) gets a
// Warning event with that reason once it is applied (Reconciler.Recorder);
// so does an ExternalArtifact taken over from another generator
// (generator.Artifact.Conflict, OwnershipConflict). After the pass the
// TenantGenerator gets one Warning per kind that the pass applied, counting
// them: "adoption detected for N Namespace(s)" (Adopted),
// "ownership conflict detected for N Namespace(s)" and "ownership conflict
// detected for N ExternalArtifact(s)" (OwnershipConflict), as
// source-watcher records them.
//
// # Deletion
//
// Once the TenantGenerator is deleted, a reconcile compiles the spec and
// runs Generator.Finalize on status.inventory instead of Plan (no source is
// read), deletes its Delete decisions as above, and records Plan.Next of
// the confirmed ones. The finalizer is removed only when that is empty;
// otherwise Ready is Unknown (Finalizing, or the failure's reason) and the
// reconcile is requeued. A spec that no longer compiles keeps everything,
// and the finalizer; a generator that tracks nothing goes at once.
//
// # Impersonation
//
// Every namespace and artifact write, and every read that the plan makes of
// the live cluster (finalizer lookups included), goes through a client that
// impersonates system:serviceaccount:<generator namespace>:<name>, the name
// being spec.serviceAccountName or the controller's
// --default-service-account. The controller's own identity needs only
// "impersonate" on that service account and access to TenantGenerators: what
// a tenant's generator can do is what its service account may do. Without a
// service account, namespace management is refused (Ready=False,
// ServiceAccountRequired) before anything is planned.
//
// # Confirmed deletions
//
// A deletion is confirmed when the API server says the object is gone: the
// DELETE, or a GET right after it, answers NotFound. An accepted DELETE that
// leaves the object in place with a deletionTimestamp (a namespace stays
// Terminating until the namespace controller has emptied it and removed its
// "kubernetes" finalizer) is not confirmed: the entry stays in the inventory,
// Ready is Unknown with reason DeletionInProgress, the reconcile is
// requeued, and the next one finds it Terminating, sends no second DELETE and
// applies nothing to it. So the inventory never forgets an object that still
// exists, and never re-creates one it is deleting: a stale entry is never
// applied. Should the tenant come back while its namespace is still
// Terminating, the namespace is desired again, but its artifacts wait (they
// could not be created in a terminating namespace) until it is gone, and then
// it is created afresh.
//
// A namespace is deleted only once every deletion of an object in it was
// confirmed in the same reconcile.
//
// # TenantSet
//
// TenantSetReconciler is a minimal stand-in for flux-operator's ResourceSet
// fed by a ResourceSetInputProvider of type ExternalArtifact, built on
// tenantkit's generator, finalizer and inventory packages. Every read and
// write goes through the set's service account (spec.serviceAccountName,
// or --default-service-account). One reconcile:
//
//  1. Inputs: list the ExternalArtifacts that spec.selector selects, in
//     every namespace (a TenantGenerator's common label), and merge each
//     one's status.exportedInputs with the provider's own inputs (its
//     labels, id, name, namespace, revision), which win:
//     generator.ProviderInputs. An invalid artifact applies and deletes
//     nothing; an overridden exported input is a warning.
//  2. Render per input set the ConfigMap "<name>-inputs" in the set's
//     namespace holding the inputs (InputsKey), and once per namespace the
//     Namespace with the annotation externalFinalizer: self, stamped with
//     the set's own reference (TenantSetReference, with its UID, checked
//     by its Validate; finalizer.Stamp); both carry the set's owner labels.
//  3. Apply them by server-side apply (DefaultTenantSetFieldManager, forced:
//     the Namespace's stamp and owner labels only; its other labels stay
//     the generator's), in apply order; then record
//     inventory.Union(previous, applied) before anything is deleted. A
//     failed apply deletes nothing.
//  4. Garbage-collect status.inventory: inventory.Diff, then
//     inventory.Collect with namespace pruning and a guard that deletes a
//     namespace only when its live stamp is this set's (same UID) and
//     releases any other, then the deletions in inventory.PruneStages order,
//     objects before their namespace, a namespace only once the objects in
//     it are gone, each Decision.Result recorded (Deleted, PruningDisabled,
//     DeletionFailed); inventory.Next of them is the new inventory.
//
// A live object labelled or annotated PruneLabel: disabled is not deleted
// but released (PruningDisabled); if it is a namespace the set stamped, the
// set also removes its stamp (finalizer.Release, then a JSON patch that
// tests the value), so that the generator is accountable for it again at
// once instead of handing it off for as long as the set exists.
//
// When the TenantSet is deleted, its finalizer keeps it until the same
// garbage collection, over a lenient read of its inventory
// (inventory.UnmarshalLenient: an entry that does not validate is dropped
// with a warning instead of blocking the teardown), has deleted its
// ConfigMaps, then the namespaces it stamped, or released them.
//
// The TenantGenerator side lets a TenantSet take a namespace's hand-off
// (FinalizerKinds); its service account needs "get" on tenantsets to
// look the stamp's owner up.
package reconciler
