package main

import (
	"fmt"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/tenantkit/tenantkit/internal/agmanifest"
	"github.com/tenantkit/tenantkit/internal/livecluster"
	"github.com/tenantkit/tenantkit/internal/yamldoc"
	"github.com/tenantkit/tenantkit/inventory"
)

// liveObject is the part of a live object the plan reads: identity, UID,
// labels and annotations.
type liveObject struct {
	APIVersion string              `json:"apiVersion"`
	Kind       string              `json:"kind"`
	Metadata   agmanifest.Metadata `json:"metadata"`
	Items      []liveObject        `json:"items,omitempty"`
}

// parseCluster reads live objects from multi-document YAML, each document an
// object or a List (what kubectl get -o yaml prints). The cluster holds
// them and answers the generator's reads (see package livecluster).
func parseCluster(data []byte) (*livecluster.Cluster, error) {
	c := &livecluster.Cluster{}
	docs, err := yamldoc.Documents(data)
	if err != nil {
		return nil, err
	}
	for i, raw := range docs {
		var o liveObject
		if err := yaml.Unmarshal(raw, &o); err != nil {
			return nil, fmt.Errorf("document %d: %w", i+1, err)
		}
		if err := addLive(c, o, fmt.Sprintf("document %d", i+1)); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// addLive adds o, or the items of a List, to c. The version is not part of
// an object's identity: the API server serves every version of a kind, so
// one object at two versions appears twice.
func addLive(c *livecluster.Cluster, o liveObject, where string) error {
	if strings.HasSuffix(o.Kind, "List") && o.Metadata.Name == "" {
		for i, item := range o.Items {
			if err := addLive(c, item, fmt.Sprintf("%s, items[%d]", where, i)); err != nil {
				return err
			}
		}
		return nil
	}
	if o.Kind == "" || o.APIVersion == "" || o.Metadata.Name == "" {
		return fmt.Errorf("%s: apiVersion, kind and metadata.name are required", where)
	}
	id := inventory.ID{Group: livecluster.GroupOf(o.APIVersion), Kind: o.Kind, Namespace: o.Metadata.Namespace, Name: o.Metadata.Name}
	if !c.Add(livecluster.Object{ID: id, UID: o.Metadata.UID, Labels: o.Metadata.Labels, Annotations: o.Metadata.Annotations}) {
		return fmt.Errorf("%s: %s %s/%s appears twice", where, o.Kind, o.Metadata.Namespace, o.Metadata.Name)
	}
	return nil
}
