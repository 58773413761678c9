package nsmeta

import (
	"errors"
	"fmt"
	"strings"

	"github.com/tenantkit/tenantkit/cel"
	"github.com/tenantkit/tenantkit/internal/quote"
)

// Sentinel errors, for what is not a problem of an object's fields (a field.ErrorList). A Check
// stopped by its context wraps the context's error.
var (
	// ErrInvalidFile reports data that is not a NamespaceMetadata document at all, in a
	// [*FileError]; a file without a document gets field errors.
	ErrInvalidFile = errors.New("nsmeta: invalid NamespaceMetadata file")

	// ErrInvalidName reports a namespace name that is not a DNS-1123 label.
	ErrInvalidName = errors.New("nsmeta: namespace name must be a DNS-1123 label")
	// ErrProtectedName reports a protected namespace name.
	ErrProtectedName = errors.New("nsmeta: namespace name must not be protected")
	// ErrNameNotAllowed reports a namespace name that no allowedNames rule accepts.
	ErrNameNotAllowed = errors.New("nsmeta: namespace name must be accepted by an allowedNames rule")
)

// A FileError reports data that [ParseFile] refuses as a whole. Detail says why in the file's
// words, with the line when one is to blame, for a caller to show after the file's name:
//
//	must be valid YAML: line 3: did not find expected node content
//
// It unwraps to [ErrInvalidFile], and to the error it reports, if any.
type FileError struct {
	// Detail is what is wrong with the file, lower case, without a trailing period.
	Detail string
	err    error
}

// Error returns [ErrInvalidFile]'s text, ": " and Detail.
func (e *FileError) Error() string { return ErrInvalidFile.Error() + ": " + e.Detail }

// Unwrap returns [ErrInvalidFile], and the error that Detail reports, if any.
func (e *FileError) Unwrap() []error {
	if e.err == nil {
		return []error{ErrInvalidFile}
	}
	return []error{ErrInvalidFile, e.err}
}

// nameError reports a name that a NamePolicy refuses: Err its sentinel, Reasons one per rule.
type nameError struct {
	Name    string
	Err     error
	Reasons []string
}

// Error returns the sentinel's text, the quoted name (cut to 64 bytes) and the reasons.
func (e *nameError) Error() string {
	return fmt.Sprintf("%v: %q: %s", e.Err, quote.Value(e.Name), strings.Join(e.Reasons, "; "))
}

func (e *nameError) Unwrap() error { return e.Err }

// compileDetail describes a compile error without the expression, the field error's value.
func compileDetail(err error) string {
	if ce, ok := errors.AsType[*cel.CompileError](err); ok {
		return fmt.Sprintf("%v: %s", ce.Err, ce.Detail)
	}
	return err.Error()
}

// evalDetail describes an evaluation error without the expression, which the message quotes.
func evalDetail(err error) string {
	if ee, ok := errors.AsType[*cel.EvalError](err); ok {
		return ee.Err.Error()
	}
	return err.Error()
}
