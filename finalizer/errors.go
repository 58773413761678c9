package finalizer

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// The sentinels, one per failure a caller handles differently; match them with [errors.Is].
var (
	// ErrInvalid is what every *[ParseError] unwraps to: not a reference.
	ErrInvalid = errors.New("finalizer: invalid reference")

	// ErrNotFound is what a [Lookup] wraps when the referenced object, or its kind, does not
	// exist: the finalizer is gone. Package generator's ObjectReader returns it too.
	ErrNotFound = errors.New("finalizer: object not found")

	// ErrForbidden is what a [Lookup] wraps when the caller lacks RBAC "get"
	// on the referenced kind, so a hand-off cannot be told.
	ErrForbidden = errors.New("finalizer: forbidden")

	// ErrStamp is what [Stamp] wraps when the annotation is not [Self], or the desired
	// Namespace carries other labels or annotations, which belong to the generator.
	ErrStamp = errors.New("finalizer: cannot stamp namespace")
)

var errNilLookup = errors.New("finalizer: lookup must not be nil")

// The rules a *ParseError names, after `finalizer: invalid reference "<value>": <segment>: `.
var ruleTooLong = fmt.Sprintf("must be no more than %d bytes", maxLength)

const (
	ruleSegments  = "must have exactly six segments group/version/kind/namespace/name/uid"
	ruleSelf      = `must be a reference, not the placeholder "self" that the finalizer replaces with one`
	ruleEmpty     = "must not be empty"
	ruleUIDLength = "must be no more than 128 bytes"
	ruleUID       = `must consist of printable ASCII characters other than space and "/"`
)

// ParseError reports a value that is not a reference: which segment broke
// which rule. It unwraps to [ErrInvalid].
type ParseError struct {
	Value string // the whole value
	// Segment names the failing segment as the package grammar does: "group", "version",
	// "kind", "namespace", "name" or "uid"; "" for the whole value (length, segment count).
	Segment string
	Rule    string // the rule that failed, e.g. "must not be empty"
}

// Error returns `finalizer: invalid reference "<value>": <segment>: <rule>`,
// without the segment for the whole value, the value cut short past 828 bytes.
func (e *ParseError) Error() string {
	return ErrInvalid.Error() + " " + e.detail()
}

// detail is the error message after its "finalizer: invalid reference " prefix.
func (e *ParseError) detail() string {
	if e.Segment == "" {
		return quote(e.Value) + ": " + e.Rule
	}
	return quote(e.Value) + ": " + e.Segment + ": " + e.Rule
}

// Unwrap returns [ErrInvalid].
func (e *ParseError) Unwrap() error { return ErrInvalid }

// quoteLimit is how much of an over-long value a message shows: an annotation may hold 256 KiB.
const quoteLimit = 64

// quote quotes s, or past maxLength its first quoteLimit bytes and its length.
func quote(s string) string {
	if len(s) <= maxLength {
		return strconv.Quote(s)
	}
	return strconv.Quote(s[:quoteLimit]) + "... (" + strconv.Itoa(len(s)) + " bytes)"
}

// maxListedKeys bounds the keys an error lists per map: metadata may come from tenant input.
const maxListedKeys = 10

// listKeys quotes m's sorted keys but skip, at most maxListedKeys and how many more; "" for none.
func listKeys(m map[string]string, skip string) string {
	keys := slices.DeleteFunc(slices.Sorted(maps.Keys(m)), func(k string) bool { return k == skip })
	quoted := make([]string, 0, min(len(keys), maxListedKeys))
	for _, k := range keys[:cap(quoted)] {
		quoted = append(quoted, quote(k))
	}
	if len(keys) > maxListedKeys {
		return strings.Join(quoted, ", ") + fmt.Sprintf(" and %d more", len(keys)-maxListedKeys)
	}
	return strings.Join(quoted, ", ")
}
