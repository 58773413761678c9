// Package finalizer implements the externalFinalizer hand-off between a generator that
// manages namespaces (source-watcher's ArtifactGenerator) and a controller that takes over
// deleting them (flux-operator's ResourceSet).
//
// A generator that creates a namespace is accountable for deleting it. A finalizing
// controller takes that duty over by stamping a reference to itself into the live
// namespace's [Annotation], but only while the referenced object exists with the referenced
// UID: if it is gone, or was recreated and may never track the namespace, the generator is
// accountable again. The generator keeps managing metadata; the finalizer only deletes.
//
// # Syntax
//
// The annotation value is a fully qualified object reference, with the API version (so that
// no discovery is needed) and the UID:
//
//	value     = group "/" version "/" kind "/" namespace "/" name "/" uid
//	group     = "" | dns1123-subdomain     ; "" is the core API group; <= 253 bytes
//	version   = dns1035-label              ; v1, v1beta2, v1alpha; <= 63 bytes
//	kind      = ASCII, lower-cased a dns1035-label   ; ResourceSet, myKind, My-Kind; <= 63 bytes
//	namespace = "" | dns1123-label        ; "" for a cluster-scoped object; <= 63 bytes
//	name      = dns1123-subdomain         ; <= 253 bytes
//	uid       = visible { visible }       ; <= 128 bytes
//	visible   = "!" ... "~" but "/"       ; printable ASCII: no space, no control character
//
// Group, version and kind follow the API server's rules for the types it serves (a CRD's
// group, spec.versions[].name and spec.names.kind; an APIService's group and version), so
// every object Kubernetes can serve can be named; a kind must also be ASCII. Examples:
//
//	fluxcd.controlplane.io/v1/ResourceSet/flux-system/tenants/0d1e3c4a-5b6c-4d7e-8f90-a1b2c3d4e5f6
//	/v1/ConfigMap/flux-system/rset/abc
//	fluxcd.controlplane.io/v1/ResourceSet//tenants/1234-uid
//
// The value "self" ([Self]) is a placeholder, not a reference, and whitespace is never
// trimmed (" self" is malformed): [Parse] refuses both.
//
// # The finalizing controller's side
//
// The platform team puts a Namespace annotated "self", with no other metadata, in the
// finalizing controller's desired state; the controller stamps its own reference (a
// [Reference] it fills in and checks with [Reference.Validate]) into it with [Stamp] before
// applying it; [StampedBy] reads a stamp. If it will not delete a namespace it finalizes
// (pruning disabled, or its service account cannot be impersonated), it calls [Release], which
// removes only its own stamp: the generator is accountable again at once.
//
// # Deciding
//
// The generator must never set the annotation in its own desired metadata (package nsmeta
// refuses it), or whoever writes its inputs could make it leak the namespace. Before
// deleting a namespace it manages, it calls [Decider.Decide] of a [Decider] built once with
// the allowed kinds:
//
//	absent or empty                -> accountable (Absent); no lookup
//	"self"                         -> accountable (Unstamped); no lookup
//	malformed                      -> accountable (Malformed); no lookup
//	the namespace, or inside it    -> accountable (InsideNamespace); no lookup
//	a kind not allowed             -> accountable (KindNotAllowed); no lookup
//	lookup: ErrNotFound            -> accountable (NotFound): the finalizer is gone
//	lookup: another UID            -> accountable (Recreated): it may never track the namespace
//	lookup: the same UID           -> handed off (HandedOff): release, do not delete
//	lookup: ErrForbidden           -> the error (Forbidden): keep the namespace, report the RBAC
//	lookup: other error            -> the error (Undecided): keep the namespace and retry
//
// A forged or stale annotation can therefore only stop a deletion, and only while the object
// it names exists with that UID; it never causes one. When in doubt, the generator does not
// delete.
//
// # Hostile annotations
//
// Whoever may annotate a namespace can write any reference into it. Three kinds would keep
// the namespace for ever: the namespace itself or an object in it, which lives as long as
// the namespace (always refused); an object of a kind the generator may not read, whose
// every lookup is Forbidden (refused without a lookup when [NewDecider] names the allowed
// kinds); an object of an allowed kind the generator may not read (kept until the RBAC is
// fixed, with an error wrapping [ErrForbidden] and a reason to surface as a condition, such
// as "RBAC: get fluxcd.controlplane.io/ResourceSet in namespace flux-system is forbidden").
// An object of an allowed kind outside the namespace does take the hand-off, even in another
// tenant's namespace: allow only kinds that tenants cannot create, or whose objects do
// delete the namespaces they finalize.
//
// # Looking up with controller-runtime
//
// Kubernetes I/O stays with the caller, behind the one-method [Lookup]. A controller-runtime
// caller reads the object's metadata only, maps "object not found" and "kind not served"
// (the CRD was removed) to [ErrNotFound] and Forbidden to [ErrForbidden], and returns any
// other error as it is, so that [Decider.Decide] keeps the namespace:
//
//	// reader is mgr.GetAPIReader(): an uncached read starts no informer for
//	// whatever kind an annotation names; client is controller-runtime's.
//	lookup := finalizer.LookupFunc(func(ctx context.Context, r finalizer.Reference) (string, error) {
//		obj := &metav1.PartialObjectMetadata{}
//		obj.SetGroupVersionKind(r.GroupVersionKind())
//		key := client.ObjectKey{Namespace: r.Namespace, Name: r.Name}
//		if err := reader.Get(ctx, key, obj); err != nil {
//			switch {
//			case apierrors.IsNotFound(err) || meta.IsNoMatchError(err):
//				return "", fmt.Errorf("%w: %w", finalizer.ErrNotFound, err)
//			case apierrors.IsForbidden(err):
//				return "", fmt.Errorf("%w: %w", finalizer.ErrForbidden, err)
//			}
//			return "", err
//		}
//		return string(obj.GetUID()), nil
//	})
//
// An unstructured.Unstructured works as well as PartialObjectMetadata. Give the client that
// performs the lookup RBAC "get" on every allowed kind.
//
// # Errors and bounds
//
// One sentinel per failure a caller handles differently, the rule in the message (the
// Examples show them): a malformed reference or owner is a *[ParseError] that unwraps to
// [ErrInvalid]; [Stamp] wraps [ErrStamp]; a [Lookup] wraps [ErrNotFound] or [ErrForbidden].
//
// Whoever may patch the namespace can write 256 KiB into the annotation: [Parse] rejects a
// value over 828 bytes, the longest valid reference, before splitting it, and messages quote
// at most 64 bytes of it and ten keys of a map, to stay fit for logs, events and conditions.
//
// # Concurrency
//
// [Parse], [Stamp], [StampedBy] and [Release] are pure functions of their
// arguments. [Reference] values and a [Decider] are immutable and safe for concurrent use;
// so is [Decider.Decide] when its [Lookup] is.
package finalizer
