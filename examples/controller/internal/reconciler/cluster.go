package reconciler

import (
	"context"
	"fmt"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/tenantkit/tenantkit/finalizer"
	"github.com/tenantkit/tenantkit/generator"
	"github.com/tenantkit/tenantkit/inventory"
)

// artifactGVK is the ExternalArtifact kind the controller writes.
var artifactGVK = schema.GroupVersionKind{Group: "source.toolkit.fluxcd.io", Version: "v1", Kind: "ExternalArtifact"}

// cluster is what the plan reads of the live cluster: metadata only
// (PartialObjectMetadata), through the impersonated client, without a cache.
// An uncached read costs a request, but starts no informer for whatever kind
// a finalizer annotation names, and sees what the service account may see,
// no more. It records every error other than "not found", so that the
// reconciler can say why garbage collection is blocked.
type cluster struct {
	c client.Client

	mu   sync.Mutex
	errs []error
}

func (k *cluster) failed(err error) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.errs = append(k.errs, err)
	return err
}

// failures returns the errors the plan's reads met, other than "not found".
func (k *cluster) failures() []error {
	k.mu.Lock()
	defer k.mu.Unlock()
	return append([]error(nil), k.errs...)
}

func (k *cluster) generatorCluster() generator.Cluster {
	return generator.Cluster{
		Objects:    generator.ObjectReaderFunc(k.object),
		Artifacts:  generator.ArtifactListerFunc(k.artifacts),
		Finalizers: finalizer.LookupFunc(k.lookup),
	}
}

// gvk maps an inventory identity (no version) to the version the API
// server prefers.
func (k *cluster) gvk(id inventory.ID) (schema.GroupVersionKind, error) {
	m, err := k.c.RESTMapper().RESTMapping(schema.GroupKind{Group: id.Group, Kind: id.Kind})
	if err != nil {
		return schema.GroupVersionKind{}, err
	}
	return m.GroupVersionKind, nil
}

// object reads the live labels and annotations of a stale object.
func (k *cluster) object(ctx context.Context, id inventory.ID) (generator.Object, error) {
	gvk, err := k.gvk(id)
	if meta.IsNoMatchError(err) {
		// The kind is not served: no object of it exists.
		return generator.Object{}, fmt.Errorf("%w: %w", finalizer.ErrNotFound, err)
	}
	if err != nil {
		return generator.Object{}, k.failed(fmt.Errorf("reading %s: %w", id, err))
	}
	obj := &metav1.PartialObjectMetadata{}
	obj.SetGroupVersionKind(gvk)
	if err := k.c.Get(ctx, client.ObjectKey{Namespace: id.Namespace, Name: id.Name}, obj); err != nil {
		if apierrors.IsNotFound(err) {
			return generator.Object{}, fmt.Errorf("%w: %w", finalizer.ErrNotFound, err)
		}
		return generator.Object{}, k.failed(fmt.Errorf("reading %s: %w", id, err))
	}
	return generator.Object{ID: id, Labels: obj.GetLabels(), Annotations: obj.GetAnnotations()}, nil
}

// artifacts lists the live ExternalArtifacts of a namespace, every
// generator's. When the kind is not served, none can live there.
func (k *cluster) artifacts(ctx context.Context, namespace string) ([]generator.Object, error) {
	list := &metav1.PartialObjectMetadataList{}
	list.SetGroupVersionKind(artifactGVK.GroupVersion().WithKind(artifactGVK.Kind + "List"))
	if err := k.c.List(ctx, list, client.InNamespace(namespace)); err != nil {
		if meta.IsNoMatchError(err) {
			return nil, nil
		}
		return nil, k.failed(fmt.Errorf("listing ExternalArtifacts in namespace %q: %w", namespace, err))
	}
	out := make([]generator.Object, 0, len(list.Items))
	for _, it := range list.Items {
		out = append(out, generator.Object{
			ID:          inventory.ID{Group: artifactGVK.Group, Kind: artifactGVK.Kind, Namespace: it.Namespace, Name: it.Name},
			Labels:      it.Labels,
			Annotations: it.Annotations,
		})
	}
	return out, nil
}

// lookup is finalizer.Lookup as the finalizer package documents it: the
// object's metadata only; "not found" and "kind not served" mean the
// finalizer is gone (finalizer.ErrNotFound); Forbidden wraps
// finalizer.ErrForbidden (the service account lacks "get" on the kind);
// either that or any other error keeps the namespace.
func (k *cluster) lookup(ctx context.Context, r finalizer.Reference) (string, error) {
	obj := &metav1.PartialObjectMetadata{}
	obj.SetGroupVersionKind(r.GroupVersionKind())
	if err := k.c.Get(ctx, client.ObjectKey{Namespace: r.Namespace, Name: r.Name}, obj); err != nil {
		switch {
		case apierrors.IsNotFound(err) || meta.IsNoMatchError(err):
			return "", fmt.Errorf("%w: %w", finalizer.ErrNotFound, err)
		case apierrors.IsForbidden(err):
			err = fmt.Errorf("%w: %w", finalizer.ErrForbidden, err)
		}
		return "", k.failed(fmt.Errorf("looking up external finalizer %s: %w", r, err))
	}
	return string(obj.GetUID()), nil
}
