package nsmeta

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/tenantkit/tenantkit/cel"
)

// Sentinel errors. Every error this package returns wraps exactly one of
// them, so callers can tell the kinds apart with [errors.Is]; the one
// exception is NamePolicy.Check stopped by its context, whose error wraps
// the context's error instead.
var (
	// ErrFileTooLarge reports a NamespaceMetadata file larger than MaxFileSize.
	ErrFileTooLarge = errors.New("nsmeta: file must be no more than 1 MiB")
	// ErrFileEmpty reports a file that holds no YAML document, or only a null one.
	ErrFileEmpty = errors.New("nsmeta: file must hold a NamespaceMetadata document")
	// ErrFileSyntax reports a file that is not valid YAML, has duplicate keys,
	// nests too deeply or expands too many aliases.
	ErrFileSyntax = errors.New("nsmeta: file must be valid YAML")
	// ErrFileDocuments reports a file with more than one YAML document.
	ErrFileDocuments = errors.New("nsmeta: file must hold exactly one YAML document")
	// ErrInvalidFile reports a NamespaceMetadata document that is not a
	// mapping, or whose fields break the schema; the latter comes as a
	// *ValidationError.
	ErrInvalidFile = errors.New("nsmeta: invalid NamespaceMetadata file")

	// ErrInvalidSchema reports allowedLabels or allowedAnnotations with a key
	// that is not a valid label or annotation key, or a rule that does not
	// compile; it comes as a *ValidationError.
	ErrInvalidSchema = errors.New("nsmeta: invalid metadata schema")
	// ErrInvalidPipeline reports a pipeline with an operation that has no
	// valid strategy or namespace; it comes as a *ValidationError.
	ErrInvalidPipeline = errors.New("nsmeta: invalid metadata pipeline")
	// ErrReservedAnnotation reports a resolved namespace that would carry a
	// non-empty externalFinalizer annotation; it comes as a *ValidationError.
	ErrReservedAnnotation = errors.New("nsmeta: annotation " + ExternalFinalizerAnnotation + " is reserved for external finalizers")

	// ErrInvalidPolicy reports allowedNames or protected names that cannot be
	// used; it comes as a *ValidationError.
	ErrInvalidPolicy = errors.New("nsmeta: invalid name policy")
	// ErrInvalidOption reports an option passed to a constructor it does not
	// apply to.
	ErrInvalidOption = errors.New("nsmeta: invalid option")

	// ErrInvalidName reports a namespace name that is not a DNS-1123 label.
	ErrInvalidName = errors.New("nsmeta: namespace name must be a DNS-1123 label")
	// ErrProtectedName reports a protected namespace name.
	ErrProtectedName = errors.New("nsmeta: namespace name must not be protected")
	// ErrNameNotAllowed reports a namespace name that no allowedNames rule accepts.
	ErrNameNotAllowed = errors.New("nsmeta: namespace name must be accepted by an allowedNames rule")
)

// ValidationError carries every field problem found in one input, sorted by
// field path, type and detail so that the message is deterministic. Err is
// the sentinel saying what was validated; Errors maps onto the object's
// fields for callers that report them one by one.
//
//	var ve *nsmeta.ValidationError
//	if errors.As(err, &ve) {
//		for _, fe := range ve.Errors { ... fe.Field, fe.Type, fe.BadValue, fe.Detail ... }
//	}
type ValidationError struct {
	Err    error           // ErrInvalidFile, ErrInvalidSchema, ErrInvalidPipeline, ErrReservedAnnotation or ErrInvalidPolicy
	Errors field.ErrorList // never empty
}

// Error returns the sentinel's text followed by every field error.
func (e *ValidationError) Error() string {
	var b strings.Builder
	b.WriteString(e.Err.Error())
	for i, fe := range e.Errors {
		if i == 0 {
			b.WriteString(": ")
		} else {
			b.WriteString("; ")
		}
		b.WriteString(fe.Error())
	}
	return b.String()
}

// Unwrap returns the sentinel.
func (e *ValidationError) Unwrap() error { return e.Err }

// invalid returns nil for an empty list, and a *ValidationError wrapping
// sentinel with the sorted list otherwise.
func invalid(sentinel error, errs field.ErrorList) error {
	if len(errs) == 0 {
		return nil
	}
	return &ValidationError{Err: sentinel, Errors: sortErrors(errs)}
}

// sortErrors sorts errs in place by field, type, detail and value, so that
// output never depends on map iteration order, and returns it.
func sortErrors(errs field.ErrorList) field.ErrorList {
	slices.SortStableFunc(errs, func(a, b *field.Error) int {
		if c := cmp.Or(
			strings.Compare(a.Field, b.Field),
			strings.Compare(string(a.Type), string(b.Type)),
			strings.Compare(a.Detail, b.Detail),
		); c != 0 {
			return c
		}
		return strings.Compare(fmt.Sprint(a.BadValue), fmt.Sprint(b.BadValue))
	})
	return errs
}

// NameError reports a namespace name that a NamePolicy refuses. Err says
// which rule set refused it: ErrInvalidName (DNS-1123 label rules),
// ErrProtectedName (the protected names) or ErrNameNotAllowed (allowedNames);
// Reasons says why, one entry per broken rule.
type NameError struct {
	Name    string
	Err     error
	Reasons []string
}

// Error returns the sentinel's text, the quoted name and the reasons.
func (e *NameError) Error() string {
	return fmt.Sprintf("%v: %q: %s", e.Err, e.Name, strings.Join(e.Reasons, "; "))
}

// Unwrap returns the sentinel.
func (e *NameError) Unwrap() error { return e.Err }

// compileDetail describes a compile error without repeating the expression,
// which the field error carries as its value.
func compileDetail(err error) string {
	if ce, ok := errors.AsType[*cel.CompileError](err); ok {
		return fmt.Sprintf("%v: %s", ce.Err, ce.Detail)
	}
	return err.Error()
}

// evalDetail describes an evaluation error without repeating the expression,
// which the message that quotes the rule already shows.
func evalDetail(err error) string {
	if ee, ok := errors.AsType[*cel.EvalError](err); ok {
		return ee.Err.Error()
	}
	return err.Error()
}
