package reconciler

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/tenantkit/tenantkit/examples/controller/api/v1alpha1"
	"github.com/tenantkit/tenantkit/generator"
	"github.com/tenantkit/tenantkit/inventory"
)

var namespaceGVK = schema.GroupVersionKind{Version: "v1", Kind: "Namespace"}

// writer applies and deletes, as the impersonated service account, with the
// controller's field manager.
type writer struct {
	c     client.Client
	owner client.FieldOwner
	gen   *v1alpha1.TenantGenerator
}

// live is what a GET says of an object: whether it exists, and whether it is
// being deleted.
type live struct {
	exists      bool
	terminating bool
	labels      map[string]string
	annotations map[string]string
	uid         string
	obj         *unstructured.Unstructured // artifacts only
}

func (w *writer) getMeta(ctx context.Context, gvk schema.GroupVersionKind, namespace, name string) (live, error) {
	obj := &metav1.PartialObjectMetadata{}
	obj.SetGroupVersionKind(gvk)
	if err := w.c.Get(ctx, client.ObjectKey{Namespace: namespace, Name: name}, obj); err != nil {
		if apierrors.IsNotFound(err) {
			return live{}, nil
		}
		return live{}, err
	}
	return live{
		exists:      true,
		terminating: obj.GetDeletionTimestamp() != nil,
		labels:      obj.GetLabels(),
		annotations: obj.GetAnnotations(),
		uid:         string(obj.GetUID()),
	}, nil
}

// drifted reports whether a live object misses a desired key or carries
// another value for it. Keys the controller does not want are not its
// business: another field manager may own them.
func drifted(live, desired map[string]string) bool {
	for k, v := range desired {
		if lv, ok := live[k]; !ok || lv != v {
			return true
		}
	}
	return false
}

// applyNamespace applies the namespace's labels and annotations by
// server-side apply, forcing ownership of exactly those fields: a field
// this manager applied before and no longer applies is removed; fields
// other managers own are left alone.
func (w *writer) applyNamespace(ctx context.Context, ns generator.Namespace) error {
	ac := corev1ac.Namespace(ns.Name).
		WithLabels(ns.Labels).
		WithAnnotations(ns.Annotations)
	return w.c.Apply(ctx, ac, w.owner, client.ForceOwnership)
}

// artifactObject is the desired ExternalArtifact, without status.
func (w *writer) artifactObject(a generator.Artifact) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(artifactGVK)
	u.SetNamespace(a.Namespace)
	u.SetName(a.Name)
	u.SetLabels(maps.Clone(a.Labels))
	_ = unstructured.SetNestedStringMap(u.Object, map[string]string{
		"apiVersion": v1alpha1.GroupVersion.String(),
		"kind":       "TenantGenerator",
		"namespace":  w.gen.Namespace,
		"name":       w.gen.Name,
	}, "spec", "sourceRef")
	return u
}

// artifactStatus is the desired status of an ExternalArtifact: the plan's
// digest and exported inputs. The example stores no tarball: a real
// generator would upload the files (a.Files, WithFileLists) and set url
// and size.
func artifactStatus(a generator.Artifact) (map[string]any, error) {
	st := map[string]any{
		"artifact": map[string]any{
			"digest":   a.Digest.String(),
			"revision": "latest@" + a.Digest.String(),
			"path":     fmt.Sprintf("externalartifact/%s/%s/%s.tar.gz", a.Namespace, a.Name, a.Digest.Encoded()),
			"metadata": map[string]any{"files": fmt.Sprint(a.FileCount)},
		},
	}
	if len(a.Inputs) > 0 {
		var inputs map[string]any
		if err := json.Unmarshal(a.Inputs, &inputs); err != nil {
			return nil, fmt.Errorf("inputs: %w", err)
		}
		st["exportedInputs"] = inputs
	}
	return st, nil
}

// applyArtifact applies the ExternalArtifact, then its status.
func (w *writer) applyArtifact(ctx context.Context, a generator.Artifact) error {
	if err := w.c.Apply(ctx, client.ApplyConfigurationFromUnstructured(w.artifactObject(a)), w.owner, client.ForceOwnership); err != nil {
		return err
	}
	st, err := artifactStatus(a)
	if err != nil {
		return err
	}
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(artifactGVK)
	u.SetNamespace(a.Namespace)
	u.SetName(a.Name)
	u.Object["status"] = st
	return w.c.Status().Apply(ctx, client.ApplyConfigurationFromUnstructured(u), w.owner, client.ForceOwnership)
}

// artifactDrifted reads the live ExternalArtifact and reports whether it is
// missing or differs from the plan in a label or its digest.
func (w *writer) artifactDrifted(ctx context.Context, a generator.Artifact) (bool, error) {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(artifactGVK)
	if err := w.c.Get(ctx, client.ObjectKey{Namespace: a.Namespace, Name: a.Name}, u); err != nil {
		if apierrors.IsNotFound(err) {
			return true, nil
		}
		return false, err
	}
	d, _, _ := unstructured.NestedString(u.Object, "status", "artifact", "digest")
	return d != a.Digest.String() || drifted(u.GetLabels(), a.Labels), nil
}

// gvk returns the entry's group, version and kind: its apiVersion's, or,
// for an entry without one (a Namespace or an ExternalArtifact may leave it
// empty), the version the API server prefers.
func (w *writer) gvk(e inventory.Entry) (schema.GroupVersionKind, error) {
	gvk := schema.FromAPIVersionAndKind(e.APIVersion, e.Kind)
	if gvk.Version != "" {
		return gvk, nil
	}
	id := e.ID()
	m, err := w.c.RESTMapper().RESTMapping(schema.GroupKind{Group: id.Group, Kind: id.Kind})
	if err != nil {
		return schema.GroupVersionKind{}, err
	}
	return m.GroupVersionKind, nil
}

// deletion is the outcome of deleting one object.
type deletion int

const (
	deletionConfirmed  deletion = iota + 1 // the API server says it is gone
	deletionInProgress                     // accepted; the object is still there, being deleted
)

// delete deletes the object of a stale entry and says whether the API
// server confirms it is gone (see the package documentation). The DELETE
// carries the UID just read as a precondition, so that it never deletes an
// object recreated since the plan looked at it.
func (w *writer) delete(ctx context.Context, e inventory.Entry) (deletion, error) {
	gvk, err := w.gvk(e)
	if err != nil {
		return 0, err
	}
	l, err := w.getMeta(ctx, gvk, e.Namespace, e.Name)
	switch {
	case err != nil:
		return 0, err
	case !l.exists:
		return deletionConfirmed, nil
	case l.terminating:
		// Accepted before: a second DELETE would change nothing (for a
		// namespace the API server even refuses it with a conflict).
		return deletionInProgress, nil
	}
	obj := &metav1.PartialObjectMetadata{}
	obj.SetGroupVersionKind(gvk)
	obj.SetNamespace(e.Namespace)
	obj.SetName(e.Name)
	uid := types.UID(l.uid)
	err = w.c.Delete(ctx, obj, client.Preconditions{UID: &uid}, client.PropagationPolicy(metav1.DeletePropagationBackground))
	if apierrors.IsNotFound(err) {
		return deletionConfirmed, nil
	}
	if err != nil {
		return 0, err
	}
	l, err = w.getMeta(ctx, gvk, e.Namespace, e.Name)
	switch {
	case err != nil:
		return 0, err
	case !l.exists:
		return deletionConfirmed, nil
	}
	return deletionInProgress, nil
}
