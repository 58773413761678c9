package finalizer

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Sentinel errors. Match them with [errors.Is]: the errors returned by this
// package wrap them with detail.
var (
	// ErrInvalid is matched by every *[ParseError]: the value is not a
	// reference.
	ErrInvalid = errors.New("finalizer: invalid reference")

	// ErrSelf is returned by [Parse] for the placeholder [Self]: the finalizing
	// controller never replaced it with its own reference.
	ErrSelf = errors.New(`finalizer: value "self" is a placeholder that was never stamped with a reference`)

	// ErrNotFound is what a [Lookup] returns when the referenced object, or its
	// kind, does not exist in the cluster.
	ErrNotFound = errors.New("finalizer: object not found")

	// ErrNotSelf is returned by [Stamp] when the desired annotation holds a
	// value other than [Self].
	ErrNotSelf = errors.New(`finalizer: desired externalFinalizer annotation must be "self"`)

	// ErrOtherMetadata is returned by [Stamp] when the desired namespace carries
	// labels or annotations besides the externalFinalizer one: the namespace's
	// metadata belongs to the generator.
	ErrOtherMetadata = errors.New("finalizer: a namespace with an externalFinalizer annotation must carry no other labels or annotations")

	// ErrDesired is returned by [CheckDesired] when the generator's own desired
	// metadata sets the externalFinalizer annotation: the hand-off must come
	// from somewhere else, or a tenant could make the generator leak the
	// namespace.
	ErrDesired = errors.New("finalizer: generator's desired metadata must not set annotation " + Annotation)
)

// errNilLookup is returned by [Decide] when it needs a lookup and has none.
var errNilLookup = errors.New("finalizer: lookup must not be nil")

// The rules that a *ParseError names. They have no package prefix: they are
// read after "finalizer: invalid reference <value>: <segment>: ".
var (
	errTooLong    = fmt.Errorf("must be no more than %d bytes", MaxLength)
	errSegments   = errors.New("must have exactly six segments group/version/kind/namespace/name/uid")
	errEmpty      = errors.New("must not be empty")
	errTooLong63  = errors.New("must be no more than 63 bytes")
	errTooLong128 = errors.New("must be no more than 128 bytes")
	errVersion    = errors.New(`must be an API version: "v" and digits, then optionally "alpha" or "beta" and digits (e.g. v1, v1beta2, v2alpha1)`)
	errKind       = errors.New("must be a CamelCase identifier: an upper-case ASCII letter, then ASCII letters and digits (e.g. ResourceSet)")
	errUID        = errors.New(`must consist of printable ASCII characters other than space and "/"`)
)

// ruleError joins apimachinery's validation messages into one rule.
func ruleError(msgs []string) error {
	return errors.New(strings.Join(msgs, "; "))
}

// Segment names a segment of a reference, in the order the segments appear in
// "group/version/kind/namespace/name/uid".
type Segment int

// The segments of a reference. SegmentNone marks an error about the whole value:
// its length or its number of segments.
const (
	SegmentNone Segment = iota
	SegmentGroup
	SegmentVersion
	SegmentKind
	SegmentNamespace
	SegmentName
	SegmentUID
)

var segmentNames = [...]string{"value", "group", "version", "kind", "namespace", "name", "uid"}

// String returns the segment's name as in the grammar ("group", "uid"), or
// "value" for SegmentNone.
func (s Segment) String() string {
	if s < 0 || int(s) >= len(segmentNames) {
		return "segment(" + strconv.Itoa(int(s)) + ")"
	}
	return segmentNames[s]
}

// ParseError reports a value that is not a reference: which segment broke which
// rule. It matches [ErrInvalid] and unwraps to the rule.
type ParseError struct {
	Value   string  // the whole value
	Segment Segment // the failing segment; SegmentNone for the whole value
	Err     error   // the rule that failed, e.g. "must not be empty"
}

// Error returns "finalizer: invalid reference <value>: <segment>: <rule>", with
// the value quoted and, when longer than [MaxLength], cut short.
func (e *ParseError) Error() string {
	return "finalizer: invalid reference " + e.detail()
}

// detail is the error message after its "finalizer: invalid reference " prefix.
func (e *ParseError) detail() string {
	rule := "invalid"
	if e.Err != nil {
		rule = e.Err.Error()
	}
	if e.Segment == SegmentNone {
		return quote(e.Value) + ": " + rule
	}
	return quote(e.Value) + ": " + e.Segment.String() + ": " + rule
}

// Unwrap returns the rule that failed.
func (e *ParseError) Unwrap() error { return e.Err }

// Is reports whether target is [ErrInvalid].
func (e *ParseError) Is(target error) bool { return target == ErrInvalid }

// quoteLimit is how many bytes of an over-long value a message shows. Values in
// messages come from annotations that the cluster's users control; a message
// must not carry 256 KiB of them into logs, events and conditions.
const quoteLimit = 64

// quote quotes s with %q semantics, cutting a value longer than MaxLength to its
// first quoteLimit bytes and its length.
func quote(s string) string {
	if len(s) <= MaxLength {
		return strconv.Quote(s)
	}
	return strconv.Quote(s[:quoteLimit]) + "... (" + strconv.Itoa(len(s)) + " bytes)"
}

// maxListedKeys bounds how many keys an error lists per map: the desired
// metadata may be rendered from tenant input.
const maxListedKeys = 10

// listKeys returns the sorted keys of m other than skip, quoted, at most
// maxListedKeys of them followed by how many more there are; "" for none.
func listKeys(m map[string]string, skip string) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		if k != skip {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return ""
	}
	slices.Sort(keys)
	var b strings.Builder
	for i, k := range keys {
		if i == maxListedKeys {
			fmt.Fprintf(&b, " and %d more", len(keys)-i)
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(quote(k))
	}
	return b.String()
}
