package generator

import (
	"context"
	"errors"
	"fmt"

	"github.com/tenantkit/tenantkit/finalizer"
	"github.com/tenantkit/tenantkit/inventory"
)

// Object is what a plan reads of a live object: its identity, labels and annotations.
type Object struct {
	ID          inventory.ID
	Labels      map[string]string
	Annotations map[string]string
}

// ObjectReader reads the live metadata of one object. Object returns an error matching
// [finalizer.ErrNotFound] when the object does not exist (a controller maps Kubernetes' NotFound
// to it, as for [finalizer.Lookup]); any other error keeps the object (deleting it may be unsafe).
type ObjectReader interface {
	Object(ctx context.Context, id inventory.ID) (Object, error)
}

// ErrAsApplied is what an [ObjectReader] returns for an object it does not know and assumes to
// exist as this generator applies it, so that a preview given no cluster (the preview tool
// without -cluster, a policy test without cluster:) needs one plan, not two. A desired
// namespace then reads as desired ([Plan.Namespaces]): neither adopted nor drifted; any other
// object reads as existing with no labels or annotations: nothing is released or kept for them.
var ErrAsApplied = errors.New("assumed to exist as this generator applies it")

// readObject reads the live copy of id through r, taking [ErrAsApplied] at its word: desired,
// or an object with no labels or annotations when desired is nil.
func readObject(ctx context.Context, r ObjectReader, id inventory.ID, desired *Object) (Object, error) {
	o, err := r.Object(ctx, id)
	if errors.Is(err, ErrAsApplied) {
		if desired != nil {
			return *desired, nil
		}
		return Object{ID: id}, nil
	}
	return o, err
}

// ObjectReaderFunc adapts a function to an [ObjectReader].
type ObjectReaderFunc func(ctx context.Context, id inventory.ID) (Object, error)

// Object calls f(ctx, id).
func (f ObjectReaderFunc) Object(ctx context.Context, id inventory.ID) (Object, error) {
	return f(ctx, id)
}

// ArtifactLister lists the live ExternalArtifacts of one namespace, every generator's (not only
// this one's): a namespace is deleted only when none lives in it any more. An error keeps it.
type ArtifactLister interface {
	ExternalArtifacts(ctx context.Context, namespace string) ([]Object, error)
}

// ArtifactListerFunc adapts a function to an [ArtifactLister].
type ArtifactListerFunc func(ctx context.Context, namespace string) ([]Object, error)

// ExternalArtifacts calls f(ctx, namespace).
func (f ArtifactListerFunc) ExternalArtifacts(ctx context.Context, namespace string) ([]Object, error) {
	return f(ctx, namespace)
}

// Cluster is what a plan reads of the live cluster, each part a one-method interface that a
// controller implements with its client (or a cache) and a test with a map. A nil part fails
// closed: every object whose deletion would need it is kept, with the reason.
//
// A plan reads the live copy of each desired namespace through [Cluster].Objects, once, one
// namespace at a time in name order (so a Cluster need not be safe for concurrent use; a
// controller reads through its cache), and decides with source-watcher's rules:
//
//	absent                                     create (or, tracked, update: "drift: the namespace does not exist")
//	no GeneratorLabel                          adopted: applied, Conflict "Adopted", a warning
//	another generator's GeneratorLabel         taken over: applied, Conflict "OwnershipConflict", a warning
//	reconcile: disabled or ssa: Ignore         not applied, still tracked (live or desired metadata)
//	ssa: IfNotPresent, and it exists           not applied, still tracked (live or desired metadata)
//	tracked, unchanged, live metadata drifted  update: "drift: live metadata lacks label a, ..."
//	the read fails                             skipped, with its artifacts; an error at "cluster[<name>]"
//	ErrAsApplied                               read as desired: applied as the inventory says
//
// The keys are read as label or annotation, the value in any case, under both Flux prefixes
// (source.extensions.fluxcd.io and kustomize.toolkit.fluxcd.io). A namespace not applied is
// left out of [Plan.Namespaces], its decision [inventory.Unchanged] with the reason, e.g.
// "reconciliation is disabled on the live namespace (annotation
// source.extensions.fluxcd.io/reconcile: disabled); not applied, still tracked"; its entry, with
// the desired digest, stays in the next inventory, it is never deleted for it, and its
// artifacts are applied as usual. An adoption or a takeover is applied like any namespace, with
// its [Namespace.Conflict], reason and a plan warning ("Adopted: namespace tenant-a is not
// managed by any generator and is adopted"); without [WithUID]'s UID, none is told. Drift is a
// desired label or annotation that the live namespace lacks or holds with another value (the
// reason names the first three keys of each kind, sorted); keys only the live namespace has
// are not (other controllers set them). A tracked namespace whose digest changed is an update
// anyway. Without an ObjectReader nothing is read: a desired namespace is applied as the
// inventory says, unless its desired metadata disables reconciliation.
//
// Then, with a UID, it reads the live copy of each ExternalArtifact it applies, once, one at a
// time by namespace and name, tracked or not (another generator can relabel an artifact this
// one created, and source-watcher warns on every apply that takes one over):
//
//	absent, no GeneratorLabel, this generator's   applied as the inventory says
//	another generator's GeneratorLabel            taken over: applied, Conflict "OwnershipConflict", a warning
//	                                              ("OwnershipConflict: ExternalArtifact tenant-a/app is managed by
//	                                              generator <uid> and is taken over"); unchanged becomes update
//	the read fails                                skipped (kept when tracked); an error at "cluster[<namespace>/<name>]"
//
// [Artifact.Conflict] is the reason of source-watcher's Warning event on each artifact it takes
// over; its event on the generator, "ownership conflict detected for N ExternalArtifact(s)", an
// embedder counts from [Plan.Artifacts]. Without an ObjectReader or a UID no artifact is read.
// When ctx ends during any of these reads, Plan returns ctx's error and no plan.
type Cluster struct {
	// Objects reads the live labels and annotations of each desired namespace, each desired
	// ExternalArtifact (with a UID) and each stale object before its deletion. Without it, a
	// plan applies every desired object as the inventory says, and deletes nothing.
	Objects ObjectReader
	// Artifacts lists the live ExternalArtifacts of a namespace before it is deleted.
	Artifacts ArtifactLister
	// Finalizers looks up the external finalizer a namespace names ([finalizer.Decider]).
	Finalizers finalizer.Lookup
}

// contained returns c with each part wrapped so that a panic in the caller's code, panic(nil)
// included, is an error of that read (its object kept), not the death of the controller.
func (c Cluster) contained() Cluster {
	if c.Objects != nil {
		r := c.Objects
		c.Objects = ObjectReaderFunc(func(ctx context.Context, id inventory.ID) (o Object, err error) {
			defer recovered("ObjectReader", &err)
			return r.Object(ctx, id)
		})
	}
	if c.Artifacts != nil {
		l := c.Artifacts
		c.Artifacts = ArtifactListerFunc(func(ctx context.Context, namespace string) (objs []Object, err error) {
			defer recovered("ArtifactLister", &err)
			return l.ExternalArtifacts(ctx, namespace)
		})
	}
	if c.Finalizers != nil {
		f := c.Finalizers
		c.Finalizers = finalizer.LookupFunc(func(ctx context.Context, r finalizer.Reference) (uid string, err error) {
			defer recovered("finalizer Lookup", &err)
			return f.UID(ctx, r)
		})
	}
	return c
}

// recovered turns a panic of the cluster part named what into *err.
func recovered(what string, err *error) {
	if v := recover(); v != nil {
		*err = fmt.Errorf("the cluster's %s panicked: %v", what, v)
	}
}
