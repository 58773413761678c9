package main

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/tenantkit/tenantkit/finalizer"
	"github.com/tenantkit/tenantkit/generator"
	"github.com/tenantkit/tenantkit/internal/yamldoc"
	"github.com/tenantkit/tenantkit/inventory"
)

// liveObject is the part of a live object the plan reads: identity, UID,
// labels and annotations.
type liveObject struct {
	APIVersion string       `json:"apiVersion"`
	Kind       string       `json:"kind"`
	Metadata   objectMeta   `json:"metadata"`
	Items      []liveObject `json:"items,omitempty"`
}

// cluster is the live state given with -cluster: it reads objects, lists
// ExternalArtifacts and looks up external finalizers for the generator.
// The version is not part of an object's key: the API server serves every
// version of a kind.
type cluster struct {
	objects map[inventory.ID]liveObject
	// unknown is set when no -cluster was given: then every object is
	// taken to exist, a desired namespace as this generator applied it
	// (applied), any other object without labels or annotations, and no
	// external finalizer or other ExternalArtifact exists.
	unknown bool
	applied map[string]generator.Namespace
}

func newCluster() *cluster { return &cluster{objects: map[inventory.ID]liveObject{}} }

// parseCluster reads live objects from multi-document YAML, each document an
// object or a List (what kubectl get -o yaml prints).
func parseCluster(data []byte) (*cluster, error) {
	c := newCluster()
	docs, err := yamldoc.Documents(data)
	if err != nil {
		return nil, err
	}
	for i, raw := range docs {
		var o liveObject
		if err := yaml.Unmarshal(raw, &o); err != nil {
			return nil, fmt.Errorf("document %d: %w", i+1, err)
		}
		if err := c.add(o, fmt.Sprintf("document %d", i+1)); err != nil {
			return nil, err
		}
	}
	return c, nil
}

func (c *cluster) add(o liveObject, where string) error {
	if strings.HasSuffix(o.Kind, "List") && o.Metadata.Name == "" {
		for i, item := range o.Items {
			if err := c.add(item, fmt.Sprintf("%s, items[%d]", where, i)); err != nil {
				return err
			}
		}
		return nil
	}
	if o.Kind == "" || o.APIVersion == "" || o.Metadata.Name == "" {
		return fmt.Errorf("%s: apiVersion, kind and metadata.name are required", where)
	}
	id := inventory.ID{Group: groupOf(o.APIVersion), Kind: o.Kind, Namespace: o.Metadata.Namespace, Name: o.Metadata.Name}
	if _, dup := c.objects[id]; dup {
		return fmt.Errorf("%s: %s %s/%s appears twice", where, o.Kind, o.Metadata.Namespace, o.Metadata.Name)
	}
	c.objects[id] = o
	return nil
}

// groupOf returns the group of an apiVersion: "" for "v1".
func groupOf(apiVersion string) string {
	if i := strings.LastIndexByte(apiVersion, '/'); i >= 0 {
		return apiVersion[:i]
	}
	return ""
}

// Object implements generator.ObjectReader.
func (c *cluster) Object(_ context.Context, id inventory.ID) (generator.Object, error) {
	o, ok := c.objects[id]
	if !ok {
		if c.unknown {
			if ns, ok := c.applied[id.Name]; ok && id.IsNamespace() {
				return generator.Object{ID: id, Labels: ns.Labels, Annotations: ns.Annotations}, nil
			}
			return generator.Object{ID: id}, nil
		}
		return generator.Object{}, finalizer.ErrNotFound
	}
	return generator.Object{ID: id, Labels: o.Metadata.Labels, Annotations: o.Metadata.Annotations}, nil
}

// ExternalArtifacts implements generator.ArtifactLister.
func (c *cluster) ExternalArtifacts(_ context.Context, namespace string) ([]generator.Object, error) {
	var out []generator.Object
	for id, o := range c.objects {
		if id.Group == inventory.GroupSource && id.Kind == inventory.KindExternalArtifact && id.Namespace == namespace {
			out = append(out, generator.Object{ID: id, Labels: o.Metadata.Labels, Annotations: o.Metadata.Annotations})
		}
	}
	slices.SortFunc(out, func(a, b generator.Object) int { return strings.Compare(a.ID.Name, b.ID.Name) })
	return out, nil
}

// UID implements finalizer.Lookup.
func (c *cluster) UID(_ context.Context, r finalizer.Reference) (string, error) {
	if o, ok := c.objects[inventory.ID{Group: r.Group, Kind: r.Kind, Namespace: r.Namespace, Name: r.Name}]; ok {
		return o.Metadata.UID, nil
	}
	return "", finalizer.ErrNotFound
}

// live returns the cluster as the generator reads it.
func (c *cluster) live() generator.Cluster {
	return generator.Cluster{Objects: c, Artifacts: c, Finalizers: c}
}
