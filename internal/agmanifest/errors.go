package agmanifest

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/tenantkit/tenantkit/internal/jsonfit"
)

// Sentinel errors, wrapped by every [*Error]. Match them with [errors.Is].
var (
	// ErrSyntax is an input that is not one YAML or JSON document: not YAML, several
	// documents or none, a repeated key, YAML aliases that expand it too far.
	ErrSyntax = errors.New("agmanifest: not one YAML document")
	// ErrNotGenerator is a document that is not an ArtifactGenerator: other type fields, not a
	// mapping, or a List that does not hold exactly one.
	ErrNotGenerator = errors.New("agmanifest: not an ArtifactGenerator")
	// ErrFields is a document with fields that its Go type does not have, or values of the
	// wrong type: [Error.Problems] lists them.
	ErrFields = errors.New("agmanifest: fields that do not fit")
)

const maxNamed = 10 // objects of a List that a message names; the rest are left out

// Problem is one field of a document that does not fit its Go type (internal/jsonfit's): its
// path ("" for the document) and what is wrong, e.g. "spec.sources[0].alais: unknown field".
type Problem = jsonfit.Problem

// Error is an error of this package, its message in the file's words, without the package
// name: a tool prints it as is.
type Error struct {
	Err error // the sentinel: ErrSyntax, ErrNotGenerator or ErrFields
	// Problems are the fields that do not fit, sorted by path, for ErrFields; for the
	// others, one problem with the message.
	Problems []Problem
	cause    error
}

// Error returns the problems on one line, separated by "; ", at most ten named (jsonfit.Join).
func (e *Error) Error() string { return jsonfit.Join(e.Problems) }

// Unwrap returns the sentinel, and the error that the message reports, if any.
func (e *Error) Unwrap() []error {
	if e.cause != nil {
		return []error{e.Err, e.cause}
	}
	return []error{e.Err}
}

func newError(sentinel error, field, format string, args ...any) *Error {
	return &Error{Err: sentinel, Problems: []Problem{{Field: field, Detail: fmt.Sprintf(format, args...)}}}
}

type problems []Problem

// err returns nil for no problem, or an *Error wrapping ErrFields, the problems sorted by path.
func (ps problems) err() error {
	if len(ps) == 0 {
		return nil
	}
	slices.SortStableFunc(ps, func(a, b Problem) int { return strings.Compare(a.Field, b.Field) })
	return &Error{Err: ErrFields, Problems: ps}
}
