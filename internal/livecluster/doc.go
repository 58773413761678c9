// Package livecluster holds a cluster's live objects in memory and answers
// the reads a plan makes of the cluster (generator.Cluster) from them: the
// live state that the preview tool reads from its -cluster file
// (examples/plan) and that a policy test case gives (generator/generatortest).
// Each of them decodes its own format; both hold and look up the objects
// here, so that the two answer the generator alike.
//
// An object is known by its identity (inventory.ID): group, kind, namespace
// and name, not the version, since the API server serves every version of a
// kind. An object the cluster does not hold does not exist
// (finalizer.ErrNotFound), unless [Cluster.Absent] says otherwise.
//
// A Cluster is not safe for concurrent use while objects are added; once
// filled, its reads are (the generator reads one object at a time).
package livecluster
