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
//	version   = "v" digits [ ( "alpha" | "beta" ) digits ]   ; v1, v1beta2; <= 63 bytes
//	kind      = upper { upper | lower | digit }            ; CamelCase; <= 63 bytes
//	namespace = "" | dns1123-label        ; "" for a cluster-scoped object; <= 63 bytes
//	name      = dns1123-subdomain         ; <= 253 bytes
//	uid       = visible { visible }       ; <= 128 bytes
//	digits    = digit { digit }
//	upper     = "A" ... "Z"
//	lower     = "a" ... "z"
//	digit     = "0" ... "9"
//	visible   = "!" ... "~" but "/"       ; printable ASCII: no space, no control character
//
// so the whole value is at most [MaxLength] (828) bytes. Examples:
//
//	fluxcd.controlplane.io/v1/ResourceSet/flux-system/tenants/0d1e3c4a-5b6c-4d7e-8f90-a1b2c3d4e5f6
//	/v1/ConfigMap/flux-system/rset/abc
//	fluxcd.controlplane.io/v1/ResourceSet//tenants/1234-uid
//
// The value "self" ([Self]) is not a reference but a placeholder: [Parse] returns
// [ErrSelf] for it. Every other failure is a *[ParseError] naming the segment and
// the rule. Whitespace is never trimmed: " self" and "/v1/ConfigMap/ns/n/uid "
// are malformed.
//
// # Stamping self
//
// The platform team puts a Namespace in the finalizing controller's desired
// state with the annotation set to "self" and no other metadata. Before it
// applies that Namespace, the controller calls [Stamp] with its own reference:
//
//	annotations, err := finalizer.Stamp(ns.GetLabels(), ns.GetAnnotations(), owner)
//
// Stamp refuses a value other than "self", and any other label or annotation:
// the namespace's metadata belongs to the generator.
//
// # Deciding
//
// The generator calls [CheckDesired] on its own desired metadata for each
// namespace: it must never set the annotation itself, or whoever writes its
// inputs could make it leak the namespace. When it is about to delete a
// namespace it manages, it calls [Decide] with the live namespace's annotations
// and a [Lookup]:
//
//	absent or empty       -> accountable (Absent); no lookup
//	"self"                -> accountable (Unstamped); no lookup
//	malformed             -> accountable (Malformed); no lookup
//	lookup: ErrNotFound   -> accountable (NotFound): the finalizer is gone
//	lookup: another UID   -> accountable (Recreated): it may never track the namespace
//	lookup: the same UID  -> handed off (HandedOff): release, do not delete
//	lookup: other error   -> the error (Undecided): keep the namespace and retry
//
// A forged or stale annotation can therefore only stop a deletion, and only
// while the object it names exists with that UID; it never causes one. When in
// doubt, the generator does not delete.
//
// # Looking up with controller-runtime
//
// Kubernetes I/O stays with the caller, behind the one-method [Lookup]. A
// controller-runtime caller gets the object's metadata only, and maps both
// "object not found" and "kind not served" (the CRD was removed) to
// [ErrNotFound]; any other error, Forbidden included, stays as it is and makes
// [Decide] keep the namespace:
//
//	import (
//		apierrors "k8s.io/apimachinery/pkg/api/errors"
//		"k8s.io/apimachinery/pkg/api/meta"
//		metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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
//			if apierrors.IsNotFound(err) || meta.IsNoMatchError(err) {
//				return "", fmt.Errorf("%w: %w", finalizer.ErrNotFound, err)
//			}
//			return "", err
//		}
//		return string(obj.GetUID()), nil
//	})
//
//	verdict, err := finalizer.Decide(ctx, ns.GetAnnotations(), lookup)
//	switch {
//	case err != nil:
//		// keep the namespace tracked with verdict.Reason, and requeue
//	case verdict.HandedOff():
//		// release: stop tracking the namespace, do not delete it
//	default:
//		// accountable: delete the namespace
//	}
//
// An unstructured.Unstructured works as well as PartialObjectMetadata. Give the
// client that performs the lookup RBAC "get" on the finalizer's kind: without
// it every lookup is Forbidden, and the namespace is kept for ever.
//
// # Bounds
//
// The annotation is written by whoever may patch the namespace, and the API
// server accepts values of up to 256 KiB. [Parse] rejects a value longer than
// [MaxLength] before splitting it, and every segment has its bound. Messages
// quote at most the first 64 bytes of an over-long value, and list at most ten
// keys of a map, so that they stay fit for logs, events and conditions.
//
// # Concurrency
//
// Everything in this package is a pure function of its arguments: [Parse],
// [Stamp], [CheckDesired] and [Reference] values are safe for concurrent use,
// and so is [Decide] when its [Lookup] is.
package finalizer
