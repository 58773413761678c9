package main

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/tenantkit/tenantkit/generator"
	"github.com/tenantkit/tenantkit/generator/generatortest"
	"github.com/tenantkit/tenantkit/internal/agmanifest"
	"github.com/tenantkit/tenantkit/internal/yamldoc"
	"github.com/tenantkit/tenantkit/inventory"
)

// liveObject is the part of a live object the plan reads: identity, UID,
// labels and annotations.
type liveObject struct {
	APIVersion string              `json:"apiVersion"`
	Kind       string              `json:"kind"`
	Metadata   agmanifest.Metadata `json:"metadata"`
}

// liveMetadata are the fields of metadata that liveObject reads; the
// others (resourceVersion, managedFields, ...) are not read.
var liveMetadata = []string{"name", "namespace", "uid", "labels", "annotations"}

// parseCluster reads live objects from multi-document YAML, each document an
// object or a List (what kubectl get -o yaml prints). The cluster holds
// them and answers the generator's reads (see generatortest.Cluster). Of each
// object it reads the type fields and metadata.name, namespace, uid,
// labels and annotations, whose values must have their types (an error
// names the field's path); the rest, spec and status among it, it does
// not read.
func parseCluster(data []byte) (*generatortest.Cluster, error) {
	c := &generatortest.Cluster{}
	docs, err := yamldoc.Documents(data)
	if err != nil {
		return nil, agmanifest.SyntaxError(err)
	}
	for i, raw := range docs {
		where := fmt.Sprintf("document %d", i+1)
		doc, err := agmanifest.Parse(raw)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", where, err)
		}
		if err := addLive(c, doc, nil, where); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// addLive adds v, an object or the items of a List at path in a document,
// to c. The version is not part of an object's identity: the API server
// serves every version of a kind, so one object at two versions appears
// twice.
func addLive(c *generatortest.Cluster, v any, path *field.Path, doc string) error {
	where := doc
	if path != nil {
		where += ", " + path.String()
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return fmt.Errorf("%s: must be an object, a mapping, found %s", where, agmanifest.JSONKind(v))
	}
	kind, _ := obj["kind"].(string)
	meta, _ := obj["metadata"].(map[string]any)
	if name, _ := meta["name"].(string); strings.HasSuffix(kind, "List") && name == "" {
		items, ok := obj["items"].([]any)
		if obj["items"] != nil && !ok {
			return fmt.Errorf("%s: items: must be a list, found %s", where, agmanifest.JSONKind(obj["items"]))
		}
		for i, item := range items {
			if err := addLive(c, item, path.Child("items").Index(i), doc); err != nil {
				return err
			}
		}
		return nil
	}
	read := map[string]any{"apiVersion": obj["apiVersion"], "kind": obj["kind"], "metadata": obj["metadata"]}
	if meta != nil {
		m := map[string]any{}
		for _, k := range liveMetadata {
			if v, ok := meta[k]; ok {
				m[k] = v
			}
		}
		read["metadata"] = m
	}
	var o liveObject
	if err := agmanifest.Strict(read, nil, &o); err != nil {
		return fmt.Errorf("%s: %w", where, err)
	}
	if o.Kind == "" || o.APIVersion == "" || o.Metadata.Name == "" {
		return fmt.Errorf("%s: apiVersion, kind and metadata.name are required", where)
	}
	gv, err := schema.ParseGroupVersion(o.APIVersion)
	if err != nil {
		return fmt.Errorf("%s: apiVersion: %q is not group/version or version", where, o.APIVersion)
	}
	id := inventory.ID{Group: gv.Group, Kind: o.Kind, Namespace: o.Metadata.Namespace, Name: o.Metadata.Name}
	if c.Set(generator.Object{ID: id, Labels: o.Metadata.Labels, Annotations: o.Metadata.Annotations}, o.Metadata.UID) {
		return fmt.Errorf("%s: %s %s/%s appears twice", where, o.Kind, o.Metadata.Namespace, o.Metadata.Name)
	}
	return nil
}
