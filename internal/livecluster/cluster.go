package livecluster

import (
	"context"
	"slices"
	"strings"

	"github.com/tenantkit/tenantkit/finalizer"
	"github.com/tenantkit/tenantkit/generator"
	"github.com/tenantkit/tenantkit/inventory"
)

// Object is the part of a live object that a plan reads: its identity, UID,
// labels and annotations.
type Object struct {
	ID          inventory.ID
	UID         string
	Labels      map[string]string
	Annotations map[string]string
}

// Cluster is a set of live objects, by identity. It implements
// generator.ObjectReader, generator.ArtifactLister and finalizer.Lookup;
// [Cluster.Generator] returns it as the generator reads it. The zero value
// is an empty cluster, ready to use.
type Cluster struct {
	// Absent, when set, answers Object for an identity the cluster does
	// not hold, as if it existed; otherwise such an object does not exist
	// (finalizer.ErrNotFound). It does not change ExternalArtifacts or UID.
	Absent func(id inventory.ID) generator.Object

	objects map[inventory.ID]Object
	order   []inventory.ID // the identities held, in the order added
}

// Add holds o, unless the cluster already holds an object with its
// identity: then it changes nothing and returns false.
func (c *Cluster) Add(o Object) bool {
	if _, dup := c.objects[o.ID]; dup {
		return false
	}
	c.Set(o)
	return true
}

// Set holds o, replacing the object with its identity if there is one.
func (c *Cluster) Set(o Object) {
	if c.objects == nil {
		c.objects = map[inventory.ID]Object{}
	}
	if _, held := c.objects[o.ID]; !held {
		c.order = append(c.order, o.ID)
	}
	c.objects[o.ID] = o
}

// Objects returns the objects held, in the order their identities were
// first added.
func (c *Cluster) Objects() []Object {
	out := make([]Object, 0, len(c.order))
	for _, id := range c.order {
		out = append(out, c.objects[id])
	}
	return out
}

// Object implements generator.ObjectReader: the object's labels and
// annotations; finalizer.ErrNotFound for one the cluster does not hold,
// unless Absent is set.
func (c *Cluster) Object(_ context.Context, id inventory.ID) (generator.Object, error) {
	o, ok := c.objects[id]
	if !ok {
		if c.Absent != nil {
			return c.Absent(id), nil
		}
		return generator.Object{}, finalizer.ErrNotFound
	}
	return generator.Object{ID: id, Labels: o.Labels, Annotations: o.Annotations}, nil
}

// ExternalArtifacts implements generator.ArtifactLister: the
// ExternalArtifacts held in namespace, sorted by name.
func (c *Cluster) ExternalArtifacts(_ context.Context, namespace string) ([]generator.Object, error) {
	var out []generator.Object
	for id, o := range c.objects {
		if id.Group == inventory.GroupSource && id.Kind == inventory.KindExternalArtifact && id.Namespace == namespace {
			out = append(out, generator.Object{ID: id, Labels: o.Labels, Annotations: o.Annotations})
		}
	}
	slices.SortFunc(out, func(a, b generator.Object) int { return strings.Compare(a.ID.Name, b.ID.Name) })
	return out, nil
}

// UID implements finalizer.Lookup: the UID of the object r names (its
// version aside), or finalizer.ErrNotFound.
func (c *Cluster) UID(_ context.Context, r finalizer.Reference) (string, error) {
	if o, ok := c.objects[inventory.ID{Group: r.Group, Kind: r.Kind, Namespace: r.Namespace, Name: r.Name}]; ok {
		return o.UID, nil
	}
	return "", finalizer.ErrNotFound
}

// Generator returns the cluster as the generator reads it.
func (c *Cluster) Generator() generator.Cluster {
	return generator.Cluster{Objects: c, Artifacts: c, Finalizers: c}
}

// GroupOf returns the group of an apiVersion: "apps" for "apps/v1", "" for
// "v1".
func GroupOf(apiVersion string) string {
	if i := strings.LastIndexByte(apiVersion, '/'); i >= 0 {
		return apiVersion[:i]
	}
	return ""
}
