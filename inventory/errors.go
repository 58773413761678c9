package inventory

import (
	"errors"
	"fmt"

	"github.com/tenantkit/tenantkit/internal/yamldoc"
)

// Sentinel errors. Match them with [errors.Is]: the errors returned by this
// package wrap them with detail.
//
// Problems with the entries of a list (an invalid field, a duplicate [ID])
// are not sentinels: they come as a field.ErrorList, each error with its
// path in the list, such as "desired[1].digest" or
// "status.inventory.entries[2].id", and its type (Invalid, Required,
// Duplicate, ...).
var (
	// ErrInvalidID is returned by [ParseID] for a Flux id that does not
	// parse.
	ErrInvalidID = errors.New("inventory: invalid id")

	// ErrInvalidOption is returned by [Collect] for an option that breaks its
	// rule, such as a negative [WithMaxDeletions].
	ErrInvalidOption = errors.New("inventory: invalid option")

	// ErrDeletionRefused is returned by [Collect] when its deletion guard
	// refuses a pass: more deletions than [WithMaxDeletions] allows, or,
	// without [WithAllowDeleteAll], every tracked entry deleted at once. The
	// message says which, and the decisions come with it, each deletion
	// kept.
	ErrDeletionRefused = errors.New("inventory: deletion refused")

	// ErrInvalidAction is returned by [Action.UnmarshalText] for a name that is
	// not one of the seven actions, and by [Result.UnmarshalText] for one
	// that is not one of the three results.
	ErrInvalidAction = errors.New("inventory: invalid action")

	// ErrMalformed is returned by [Unmarshal] for a document that is not YAML
	// or JSON, or not shaped like an inventory.
	ErrMalformed = errors.New("inventory: malformed document")

	// ErrTooLarge is returned by [Unmarshal] for a document longer than
	// 8 MiB.
	ErrTooLarge = errors.New("inventory: document too large")
)

// RefusedError is the error [Collect] returns when its deletion guard
// refuses a pass; it unwraps to [ErrDeletionRefused]. A tool that sets the
// guard with its own flags words the refusal with [RefusedError.Rule].
type RefusedError struct {
	// Deletions is how many objects the pass would have deleted, and
	// Tracked how many the inventory tracked.
	Deletions, Tracked int
	// Max is the maximum of [WithMaxDeletions] that Deletions exceeds, or
	// -1 when the pass would delete every tracked object and
	// [WithAllowDeleteAll] was not given.
	Max int
}

// Error returns the refusal in the options' words: "inventory: deletion
// refused: " and [RefusedError.Rule].
func (e *RefusedError) Error() string {
	return ErrDeletionRefused.Error() + ": " + e.Rule("WithMaxDeletions", "WithAllowDeleteAll")
}

// Unwrap returns [ErrDeletionRefused].
func (e *RefusedError) Unwrap() error { return ErrDeletionRefused }

// Rule says which rule refused the pass, naming what allows it as the
// caller sets it: maxDeletions for [WithMaxDeletions], allowDeleteAll for
// [WithAllowDeleteAll], e.g. a tool's "-max-deletions" and
// "-allow-delete-all".
//
//	err.Rule("-max-deletions", "-allow-delete-all")
//	// the pass would delete every one of the 9 objects of the inventory, which a wrong source or pattern looks like; -allow-delete-all allows it
func (e *RefusedError) Rule(maxDeletions, allowDeleteAll string) string {
	if e.Max >= 0 {
		return fmt.Sprintf("the pass would delete %s, more than the maximum of %d that %s allows", objects(e.Deletions), e.Max, maxDeletions)
	}
	every := "every one of the " + objects(e.Deletions)
	if e.Deletions == 1 {
		every = "the one object"
	}
	return fmt.Sprintf("the pass would delete %s of the inventory, which a wrong source or pattern looks like; %s allows it", every, allowDeleteAll)
}

// A yamlError reports a document that is not one YAML document: ErrMalformed
// and the problem in the document's words (yamldoc.Detail), without the
// YAML decoder's ("yaml: line 2: ...", "error converting YAML to JSON"),
// after context, if any:
//
//	inventory: malformed document: must be valid YAML: line 2: did not find expected node content
//
// It unwraps to ErrMalformed and to the error it reports (such as
// yamldoc.ErrExpansion).
type yamlError struct {
	context string
	err     error
}

// Error returns ErrMalformed's text, the context and the detail.
func (e *yamlError) Error() string {
	return ErrMalformed.Error() + ": " + e.context + yamldoc.Detail(e.err)
}

// Unwrap returns ErrMalformed and the error reported.
func (e *yamlError) Unwrap() []error { return []error{ErrMalformed, e.err} }
