package finalizer

import (
	"maps"
	"strconv"
)

// StampedBy tells who stamped a live namespace: the reference that its externalFinalizer
// annotation holds, and true. An absent or empty annotation, or [Self], is no stamp: the
// zero Reference, false and no error. A value that is not a reference returns false and the
// *[ParseError] of [Parse]. Whether it is a hand-off is for [Decider.Decide] to look up.
//
//	owner, ok, err := finalizer.StampedBy(ns.GetAnnotations())
func StampedBy(annotations map[string]string) (Reference, bool, error) {
	value := annotations[Annotation]
	if value == "" || value == Self {
		return Reference{}, false, nil
	}
	r, err := Parse(value)
	return r, err == nil, err
}

// ReleaseResult is what [Release] found, and did. Only Released removes the annotation;
// every other result leaves the namespace as it was. The zero value is not a result:
// Release returns it with an error.
type ReleaseResult int

// The results of [Release].
const (
	// NotStamped: the annotation is absent, empty or [Self]: nothing to release.
	NotStamped ReleaseResult = iota + 1
	// Released: the annotation named the owner, and Release removed it.
	Released
	// OtherOwner: the annotation names another object, whose hand-off is not the owner's to undo.
	OtherOwner
	// OtherUID: the annotation names the owner with another UID, an earlier incarnation (for
	// Decide, Recreated) or a later one.
	OtherUID
	// MalformedStamp: the annotation is not a reference (for Decide, Malformed).
	MalformedStamp
)

var releaseResultNames = [...]string{
	NotStamped:     "not stamped",
	Released:       "released",
	OtherOwner:     "stamped by another owner",
	OtherUID:       "stamped by the owner with another uid",
	MalformedStamp: "malformed stamp",
}

// String returns the result in lower-case words, for example "released", or
// "ReleaseResult(n)" for a value that is not a result.
func (r ReleaseResult) String() string {
	if r < NotStamped || r > MalformedStamp {
		return "ReleaseResult(" + strconv.Itoa(int(r)) + ")"
	}
	return releaseResultNames[r]
}

// Release is for the finalizing controller when it stops finalizing a namespace it stamped
// and will not delete: it removes the externalFinalizer annotation only when it names owner
// by API group, kind, namespace, name and UID (not version: one object may be served at v1
// and v2); any other stamp is left alone, and the result says why. It returns a new map,
// never modifying annotations: a copy without the annotation when Released, otherwise a
// copy (nil for nil). An invalid owner returns its *[ParseError] from [Reference.Validate],
// nil and the zero ReleaseResult.
//
//	annotations, result, err := finalizer.Release(ns.GetAnnotations(), owner)
//
// Write the release so that it cannot undo a stamp made since the read: an update with the
// namespace's resourceVersion, or a JSON patch that tests the value it removes:
//
//	[{"op": "test", "path": "/metadata/annotations/source.extensions.fluxcd.io~1externalFinalizer", "value": "<owner>"},
//	 {"op": "remove", "path": "/metadata/annotations/source.extensions.fluxcd.io~1externalFinalizer"}]
func Release(annotations map[string]string, owner Reference) (map[string]string, ReleaseResult, error) {
	if err := owner.Validate(); err != nil {
		return nil, 0, err
	}
	out, result := maps.Clone(annotations), Released
	switch r, ok, err := StampedBy(annotations); {
	case err != nil:
		result = MalformedStamp
	case !ok:
		result = NotStamped
	case r.Group != owner.Group || r.Kind != owner.Kind || r.Namespace != owner.Namespace || r.Name != owner.Name:
		result = OtherOwner
	case r.UID != owner.UID:
		result = OtherUID
	default:
		delete(out, Annotation)
	}
	return out, result, nil
}
