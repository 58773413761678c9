package inventory

import (
	"errors"
	"fmt"

	"github.com/tenantkit/tenantkit/internal/yamldoc"
)

// Sentinel errors, which this package's errors wrap with detail: match them with [errors.Is].
// Problems with the entries of a list come as a field.ErrorList instead.
var (
	// ErrInvalidID is returned by [ParseID] for a Flux id that does not parse.
	ErrInvalidID = errors.New("inventory: invalid id")

	// ErrInvalidOption is returned by [Collect] for an option that breaks its rule.
	ErrInvalidOption = errors.New("inventory: invalid option")

	// ErrDeletionRefused is wrapped by the [*RefusedError] of a pass that [Collect] refuses.
	ErrDeletionRefused = errors.New("inventory: deletion refused")

	// ErrInvalidAction is returned by the text methods of [Action] and [Result] for other values.
	ErrInvalidAction = errors.New("inventory: invalid action")

	// ErrMalformed is returned by [Unmarshal] and [UnmarshalLenient] for a document that is
	// not YAML or JSON, or not shaped like an inventory.
	ErrMalformed = errors.New("inventory: malformed document")

	// ErrTooLarge is returned by [Unmarshal] and [UnmarshalLenient] for a document over 8 MiB.
	ErrTooLarge = errors.New("inventory: document too large")
)

// RefusedError is the error [Collect] returns when its deletion guard refuses a pass, with the
// decisions, each deletion kept; it unwraps to [ErrDeletionRefused]. [WithAllowDeleteAll]
// allows a pass that deletes every tracked entry (Max is -1), a larger [WithMaxDeletions] one
// over Max; its texts name neither, so that a tool or a controller says how with its own flags.
type RefusedError struct {
	// Deletions is how many objects the pass would have deleted; Tracked, how many were tracked.
	Deletions, Tracked int
	// Max is the maximum of [WithMaxDeletions] that Deletions exceeds, or -1 when the pass would
	// delete every tracked object and [WithAllowDeleteAll] was not given.
	Max int
}

// Error returns "inventory: deletion refused: " and the [RefusedError.Rule].
func (e *RefusedError) Error() string { return ErrDeletionRefused.Error() + ": " + e.Rule() }

// Unwrap returns [ErrDeletionRefused].
func (e *RefusedError) Unwrap() error { return ErrDeletionRefused }

// Rule says which rule refused the pass:
//
//	the pass would delete every one of the 9 objects of the inventory, which a wrong source or pattern looks like
//	the pass would delete 12 objects, more than the maximum of 10
func (e *RefusedError) Rule() string {
	if e.Max >= 0 {
		return fmt.Sprintf("the pass would delete %s, more than the maximum of %d", objects(e.Deletions), e.Max)
	}
	every := "every one of the " + objects(e.Deletions)
	if e.Deletions == 1 {
		every = "the one object"
	}
	return fmt.Sprintf("the pass would delete %s of the inventory, which a wrong source or pattern looks like", every)
}

// A yamlError reports a document that is not one YAML document in the document's words, not the
// decoder's ("yaml: ..."), and unwraps to ErrMalformed and to the error (yamldoc.ErrExpansion):
//
//	inventory: malformed document: must be valid YAML: line 2: did not find expected node content
type yamlError struct {
	context string
	err     error
}

func (e *yamlError) Error() string {
	return ErrMalformed.Error() + ": " + e.context + yamldoc.Detail(e.err)
}

func (e *yamlError) Unwrap() []error { return []error{ErrMalformed, e.err} }
