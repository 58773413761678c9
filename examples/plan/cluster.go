package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/tenantkit/tenantkit/finalizer"
	"github.com/tenantkit/tenantkit/inventory"
	"sigs.k8s.io/yaml"
)

// liveObject is the part of a live object the plan reads: identity, UID and
// annotations.
type liveObject struct {
	APIVersion string       `json:"apiVersion"`
	Kind       string       `json:"kind"`
	Metadata   objectMeta   `json:"metadata"`
	Items      []liveObject `json:"items,omitempty"`
}

// objectKey identifies a live object. The version is left out: the API
// server serves every version of a kind, so a reference with any served
// version finds the object.
type objectKey struct{ group, kind, namespace, name string }

// cluster is the live state given with -cluster.
type cluster struct {
	objects map[objectKey]liveObject
}

// parseCluster reads live objects from multi-document YAML, each document an
// object or a List (what kubectl get -o yaml prints).
func parseCluster(data []byte) (*cluster, error) {
	c := &cluster{objects: map[objectKey]liveObject{}}
	docs, err := yamlDocuments(data)
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
	k := objectKey{group: groupOf(o.APIVersion), kind: o.Kind, namespace: o.Metadata.Namespace, name: o.Metadata.Name}
	if _, dup := c.objects[k]; dup {
		return fmt.Errorf("%s: %s %s/%s appears twice", where, o.Kind, o.Metadata.Namespace, o.Metadata.Name)
	}
	c.objects[k] = o
	return nil
}

// namespaceAnnotations returns the annotations of a live namespace, or nil
// when the cluster does not have it.
func (c *cluster) namespaceAnnotations(name string) map[string]string {
	if c == nil {
		return nil
	}
	return c.objects[objectKey{kind: "Namespace", name: name}].Metadata.Annotations
}

// UID implements finalizer.Lookup over the live objects.
func (c *cluster) UID(_ context.Context, r finalizer.Reference) (string, error) {
	if c != nil {
		if o, ok := c.objects[objectKey{group: r.Group, kind: r.Kind, namespace: r.Namespace, name: r.Name}]; ok {
			return o.Metadata.UID, nil
		}
	}
	return "", finalizer.ErrNotFound
}

// groupOf returns the group of an apiVersion: "" for "v1".
func groupOf(apiVersion string) string {
	if i := strings.LastIndexByte(apiVersion, '/'); i >= 0 {
		return apiVersion[:i]
	}
	return ""
}

// lookup returns the live copy of an inventory entry's object.
func (c *cluster) lookup(e inventory.Entry) (liveObject, bool) {
	if c == nil {
		return liveObject{}, false
	}
	id := e.ID()
	o, ok := c.objects[objectKey{group: id.Group, kind: id.Kind, namespace: id.Namespace, name: id.Name}]
	return o, ok
}
