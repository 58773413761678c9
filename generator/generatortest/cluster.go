package generatortest

import (
	"context"
	"slices"
	"strings"

	"github.com/tenantkit/tenantkit/finalizer"
	"github.com/tenantkit/tenantkit/generator"
	"github.com/tenantkit/tenantkit/inventory"
)

// Assumed is what [AsApplied] assumes of the cluster, in words for a
// preview's output: the policy tests (a case without cluster:) and the
// preview tool (examples/plan without -cluster) print it after their own
// "no live cluster given" and the key that gives one, so that the two say
// the same thing for the same assumption.
const Assumed = "assuming every desired namespace exists as planned and every other object without labels or annotations, " +
	"with no external finalizer and no other generator's ExternalArtifact: deletions are planned as if every object were deletable"

// Cluster is a live cluster held in memory: the objects a plan reads, each
// known by its identity (group, kind, namespace and name, not the version:
// the API server serves every version of a kind) with its UID, labels and
// annotations. It implements [generator.ObjectReader],
// [generator.ArtifactLister] and [finalizer.Lookup]; [Cluster.Generator]
// returns it as a plan reads it. A suite's case (cluster:) and the preview
// tool (examples/plan -cluster) each fill one from their own format, so
// that both answer a plan alike.
//
// The zero value is an empty cluster, ready to use: an object it does not
// hold does not exist ([finalizer.ErrNotFound]). Set is not safe for
// concurrent use; once the cluster is filled, its reads are.
type Cluster struct {
	objects map[inventory.ID]liveObject
	order   []inventory.ID // the identities held, in the order first set
	// asApplied answers generator.ErrAsApplied for an object not held.
	asApplied bool
}

// liveObject is an object held, with its UID.
type liveObject struct {
	generator.Object
	uid string
}

// AsApplied returns the cluster that a preview assumes when it is given
// none (see [Assumed]): it holds nothing, and answers
// [generator.ErrAsApplied] for every object, so that a plan takes each
// desired namespace to exist as it applies it and every other object to
// exist with no labels or annotations. No ExternalArtifact lives in a
// namespace, and no object that an external finalizer names exists.
func AsApplied() *Cluster {
	return &Cluster{asApplied: true}
}

// Set holds o, with its UID, in place of the object with its identity if
// there is one, and reports whether there was.
func (c *Cluster) Set(o generator.Object, uid string) (replaced bool) {
	if c.objects == nil {
		c.objects = map[inventory.ID]liveObject{}
	}
	_, replaced = c.objects[o.ID]
	if !replaced {
		c.order = append(c.order, o.ID)
	}
	c.objects[o.ID] = liveObject{o, uid}
	return replaced
}

// Objects returns the objects held, in the order their identities were
// first set.
func (c *Cluster) Objects() []generator.Object {
	out := make([]generator.Object, 0, len(c.order))
	for _, id := range c.order {
		out = append(out, c.objects[id].Object)
	}
	return out
}

// Object implements [generator.ObjectReader]: the labels and annotations of
// the object held; for one not held, [finalizer.ErrNotFound], or
// [generator.ErrAsApplied] from [AsApplied].
func (c *Cluster) Object(_ context.Context, id inventory.ID) (generator.Object, error) {
	o, ok := c.objects[id]
	switch {
	case ok:
		return o.Object, nil
	case c.asApplied:
		return generator.Object{}, generator.ErrAsApplied
	}
	return generator.Object{}, finalizer.ErrNotFound
}

// ExternalArtifacts implements [generator.ArtifactLister]: the
// ExternalArtifacts held in namespace, sorted by name.
func (c *Cluster) ExternalArtifacts(_ context.Context, namespace string) ([]generator.Object, error) {
	var out []generator.Object
	for id, o := range c.objects {
		if id.Group == inventory.GroupSource && id.Kind == inventory.KindExternalArtifact && id.Namespace == namespace {
			out = append(out, o.Object)
		}
	}
	slices.SortFunc(out, func(a, b generator.Object) int { return strings.Compare(a.ID.Name, b.ID.Name) })
	return out, nil
}

// UID implements [finalizer.Lookup]: the UID of the object r names (its
// version aside), or [finalizer.ErrNotFound].
func (c *Cluster) UID(_ context.Context, r finalizer.Reference) (string, error) {
	if o, ok := c.objects[inventory.ID{Group: r.Group, Kind: r.Kind, Namespace: r.Namespace, Name: r.Name}]; ok {
		return o.uid, nil
	}
	return "", finalizer.ErrNotFound
}

// Generator returns the cluster as a plan reads it.
func (c *Cluster) Generator() generator.Cluster {
	return generator.Cluster{Objects: c, Artifacts: c, Finalizers: c}
}
