// Package finalizer implements the externalFinalizer hand-off between a
// generator that manages namespaces (source-watcher's ArtifactGenerator) and a
// controller that takes over deleting them (flux-operator's ResourceSet).
//
// A generator that creates a namespace is accountable for deleting it. A
// finalizing controller can take that duty over by stamping a reference to
// itself into the live namespace, in the [Annotation] annotation
// (source.extensions.fluxcd.io/externalFinalizer). The generator then leaves the
// deletion to it, but only while the referenced object exists with the
// referenced UID: if it is gone, or was recreated and may never track the
// namespace, the generator is accountable again. Metadata management stays with
// the generator whatever happens; the finalizer only deletes.
//
// # Syntax
//
// The annotation value is a fully qualified object reference, with the API
// version (so that no discovery is needed) and the UID:
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
// Group, version and kind follow the rules the API server applies to the
// types it serves (a CustomResourceDefinition's group, spec.versions[].name
// and spec.names.kind; an APIService's group and version), so every object
// Kubernetes can serve can be named; a kind must also be ASCII as written.
// The whole value is at most 828 bytes, the sum of the segment bounds and
// the five separators. Examples:
//
//	fluxcd.controlplane.io/v1/ResourceSet/flux-system/tenants/0d1e3c4a-5b6c-4d7e-8f90-a1b2c3d4e5f6
//	/v1/ConfigMap/flux-system/rset/abc
//	fluxcd.controlplane.io/v1/ResourceSet//tenants/1234-uid
//
// The value "self" ([Self]) is not a reference but a placeholder. [Parse]
// refuses it like any malformed value, with a *[ParseError] naming the
// segment and the rule, which unwraps to [ErrInvalid]. Whitespace is never
// trimmed: " self" and "/v1/ConfigMap/ns/n/uid " are malformed.
//
// # The finalizing controller's side
//
// The platform team puts a Namespace in the finalizing controller's desired
// state with the annotation set to "self" and no other metadata. The
// controller builds its own reference from the object it reconciles, with
// [ReferenceFor], and calls [Stamp] with it before it applies that
// Namespace:
//
//	owner, err := finalizer.ReferenceFor(gvk, obj.GetNamespace(), obj.GetName(), string(obj.GetUID()))
//	annotations, err := finalizer.Stamp(ns.GetLabels(), ns.GetAnnotations(), owner)
//
// Stamp refuses a value other than "self", and any other label or
// annotation: the namespace's metadata belongs to the generator. It accepts
// the owner labels that flux-operator adds to every object a ResourceSet
// applies (resourceset.fluxcd.controlplane.io/name and /namespace, naming
// the owner), so flux-operator may stamp before or after adding them; the
// ResourceSet's spec.commonMetadata it refuses.
//
// [StampedBy] tells who stamped a live namespace. When the controller stops
// finalizing a namespace that it will not delete (the namespace left its
// desired state with pruning disabled, or its service account cannot be
// impersonated when the owner is deleted), it calls [Release], which
// removes the annotation only when it names this owner, so that the
// generator is accountable for the namespace again at once; a stamp of
// another owner, or of a recreated owner (another UID), is left alone, and
// the [ReleaseResult] says which:
//
//	annotations, result, err := finalizer.Release(ns.GetAnnotations(), owner)
//	if result == finalizer.Released {
//		// patch the namespace: remove the annotation, testing its value
//	}
//
// # Deciding
//
// The generator must never set the annotation in its own desired metadata,
// or whoever writes its inputs could make it leak the namespace (package
// nsmeta's pipeline refuses it). It builds a [Decider] once, with
// the kinds that may take a hand-off, and when it is about to delete a
// namespace it manages, it calls [Decider.Decide] with the namespace's name,
// the live namespace's annotations and a [Lookup]:
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
// Every verdict carries a reason for people, fit for an inventory decision and
// a condition message. A forged or stale annotation can therefore only stop a
// deletion, and only while the object it names exists with that UID; it never
// causes one. When in doubt, the generator does not delete.
//
// # Hostile annotations
//
// Whoever may annotate a namespace can write any reference into it. Three
// kinds of reference would keep the namespace for ever, and Decide refuses
// the first two:
//
//   - An object inside the namespace, such as
//     /v1/ConfigMap/tenant-a/kube-root-ca.crt/<uid> on tenant-a, or the
//     namespace itself: it exists as long as the namespace does, so nothing
//     would ever delete it. Always refused (InsideNamespace).
//   - An object of a kind the generator may not read: every lookup is
//     Forbidden, and the namespace is kept on every pass. With
//     the kinds given to [NewDecider] (for example only flux-operator's ResourceSet) such
//     a reference is refused without a lookup (KindNotAllowed).
//   - An object of an allowed kind that the generator may not read: the
//     lookup is Forbidden, and the namespace is kept until the RBAC is
//     fixed. Decide returns the error wrapping [ErrForbidden] with a
//     Forbidden verdict whose reason says what is missing, for example
//     "RBAC: get fluxcd.controlplane.io/ResourceSet in namespace flux-system
//     is forbidden": surface it as a condition.
//
// An object of an allowed kind outside the namespace does take the hand-off,
// including one in another tenant's namespace: keep the allow-list to kinds
// that tenants cannot create, or whose objects do delete the namespaces they
// finalize.
//
// # Looking up with controller-runtime
//
// Kubernetes I/O stays with the caller, behind the one-method [Lookup]. A
// controller-runtime caller gets the object's metadata only, maps both
// "object not found" and "kind not served" (the CRD was removed) to
// [ErrNotFound] and Forbidden to [ErrForbidden]; any other error stays as it
// is and makes [Decider.Decide] keep the namespace:
//
//	import (
//		apierrors "k8s.io/apimachinery/pkg/api/errors"
//		"k8s.io/apimachinery/pkg/api/meta"
//		metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
//		"k8s.io/apimachinery/pkg/runtime/schema"
//		"sigs.k8s.io/controller-runtime/pkg/client"
//	)
//
//	// reader is mgr.GetAPIReader(): an uncached read does not start an
//	// informer for whatever kind an annotation names.
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
//	// Once, with the generator's spec:
//	decider, err := finalizer.NewDecider(
//		schema.GroupKind{Group: "fluxcd.controlplane.io", Kind: "ResourceSet"})
//
//	// For each namespace about to be deleted:
//	verdict, err := decider.Decide(ctx, ns.GetName(), ns.GetAnnotations(), lookup)
//	switch {
//	case err != nil:
//		// keep the namespace tracked with verdict.Reason, and requeue;
//		// errors.Is(err, finalizer.ErrForbidden): a condition with verdict.Reason
//	case verdict.HandedOff():
//		// release: stop tracking the namespace, do not delete it
//	default:
//		// accountable: delete the namespace
//	}
//
// An unstructured.Unstructured works as well as PartialObjectMetadata. Give the
// client that performs the lookup RBAC "get" on every allowed kind.
//
// # Errors
//
// One sentinel per failure a caller handles differently; the rule is in the
// message. [Parse], [ReferenceFor], [StampedBy] and [Reference.Validate]
// return a *[ParseError] (the value, the [Segment], the rule) that unwraps to
// [ErrInvalid], and so do [Stamp] and [Release] for an invalid owner; [Stamp]
// wraps [ErrStamp]; a [Lookup] wraps [ErrNotFound] or [ErrForbidden]. The Examples show the messages as they are.
//
// # Bounds
//
// The annotation is written by whoever may patch the namespace, and the API
// server accepts values of up to 256 KiB. [Parse] rejects a value longer than
// 828 bytes, the longest valid reference (253 + 63 + 63 + 63 + 253 + 128
// bytes of segments and 5 separators), before splitting it, and every
// segment has its bound. Messages quote at most the first 64 bytes of an
// over-long value, and list at most ten keys of a map, so that they stay fit
// for logs, events and conditions.
//
// # Concurrency
//
// [Parse], [ReferenceFor], [Stamp], [StampedBy] and [Release] are pure
// functions of their arguments.
// [Reference] values and a [Decider] are immutable and safe for concurrent
// use; so is [Decider.Decide] when its [Lookup] is.
package finalizer
