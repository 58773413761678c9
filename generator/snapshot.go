package generator

import (
	"context"
	"errors"
	"slices"
	"strings"

	"github.com/tenantkit/tenantkit/finalizer"
	"github.com/tenantkit/tenantkit/inventory"
)

// snapshot is what one plan or one Finalize read of the live cluster: the live copy of each
// object it looked at, the ExternalArtifacts listed in each namespace, and each external
// finalizer looked up. Each fact is read once, on the calling goroutine, when a decision first
// needs it, then answered from the snapshot: the decisions of one pass see one cluster. Reads
// are lazy because what a pass need not read (a skipped object, a released namespace) it must
// not: a Cluster may be slow, and each read can fail. It reads through [Cluster.contained] (a
// read that fails or panics is an error of that fact, and its object is kept), bounded by ctx.
type snapshot struct {
	ctx     context.Context
	cluster Cluster
	objects map[inventory.ID]liveCopy
	lists   map[string]liveList
	uids    map[finalizer.Reference]liveUID
}

// liveObject is one object's live copy: found, not found, or an error (errNoReader included).
type liveObject struct {
	Object
	found bool
	err   error
}

// liveCopy is a liveObject less its identity, its key (a plan keeps one per desired object).
type liveCopy struct {
	labels, annotations map[string]string
	found               bool
	err                 error
}

type liveList struct {
	objects []Object // by name
	err     error
}

type liveUID struct {
	uid string
	err error
}

// errNoReader is the error of every object read without an ObjectReader.
var errNoReader = errors.New("no ObjectReader")

func newSnapshot(ctx context.Context, cluster Cluster) *snapshot {
	return &snapshot{ctx: ctx, cluster: cluster.contained(), objects: map[inventory.ID]liveCopy{},
		lists: map[string]liveList{}, uids: map[finalizer.Reference]liveUID{}}
}

// object returns id's live copy, read the first time; desired is what [ErrAsApplied] reads as.
func (s *snapshot) object(id inventory.ID, desired *Object) liveObject {
	if c, ok := s.objects[id]; ok {
		return liveObject{Object: Object{ID: id, Labels: c.labels, Annotations: c.annotations}, found: c.found, err: c.err}
	}
	o := liveObject{Object: Object{ID: id}}
	if s.cluster.Objects == nil {
		o.err = errNoReader
	} else {
		live, err := readObject(s.ctx, s.cluster.Objects, id, desired)
		switch {
		case errors.Is(err, finalizer.ErrNotFound):
		case err != nil:
			o.err = err
		default:
			o.Object, o.found = live, true
		}
	}
	s.objects[id] = liveCopy{labels: o.Labels, annotations: o.Annotations, found: o.found, err: o.err}
	return o
}

// artifacts returns the live ExternalArtifacts of namespace ns, by name, listing them the
// first time; without an ArtifactLister, the error is errNoLister.
func (s *snapshot) artifacts(ns string) liveList {
	if l, ok := s.lists[ns]; ok {
		return l
	}
	var l liveList
	if s.cluster.Artifacts == nil {
		l.err = errNoLister
	} else {
		l.objects, l.err = s.cluster.Artifacts.ExternalArtifacts(s.ctx, ns)
		l.objects = slices.Clone(l.objects)
		slices.SortFunc(l.objects, func(a, b Object) int { return strings.Compare(a.ID.Name, b.ID.Name) })
	}
	s.lists[ns] = l
	return l
}

// errNoLister is the error of every list made without an ArtifactLister.
var errNoLister = errors.New("no ArtifactLister")

// lookup is the snapshot's finalizer.Lookup: each reference is looked up once.
func (s *snapshot) lookup(ctx context.Context, r finalizer.Reference) (string, error) {
	if u, ok := s.uids[r]; ok {
		return u.uid, u.err
	}
	var u liveUID
	if s.cluster.Finalizers == nil {
		u.err = errors.New("no finalizer Lookup")
	} else {
		u.uid, u.err = s.cluster.Finalizers.UID(ctx, r)
	}
	s.uids[r] = u
	return u.uid, u.err
}
