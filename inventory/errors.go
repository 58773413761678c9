package inventory

import (
	"errors"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Sentinel errors. Match them with [errors.Is]: the errors returned by this
// package wrap them with detail.
var (
	// ErrInvalidEntry is matched by a *[ListError] that reports an entry
	// breaking a rule of [Entry.Validate].
	ErrInvalidEntry = errors.New("inventory: invalid entry")

	// ErrDuplicate is matched by a *[ListError] that reports two entries of one
	// list with the same [ID].
	ErrDuplicate = errors.New("inventory: duplicate entry")

	// ErrInvalidID is returned by [ParseID] and [ID.Validate], and matched by a
	// *[ListError] from [FromResourceInventory] or [Unmarshal] that reports
	// a Flux id that does not parse.
	ErrInvalidID = errors.New("inventory: invalid id")

	// ErrInvalidOption is returned by [Collect] for an option that breaks its
	// rule, such as a negative [WithMaxDeletions].
	ErrInvalidOption = errors.New("inventory: invalid option")

	// ErrInvalidAction is returned by [Action.UnmarshalText] for a name that is
	// not one of the six actions.
	ErrInvalidAction = errors.New("inventory: invalid action")

	// ErrMalformed is returned by [Unmarshal] for a document that is not YAML
	// or JSON, or not shaped like an inventory.
	ErrMalformed = errors.New("inventory: malformed document")

	// ErrTooLarge is returned by [Unmarshal] for a document longer than
	// [MaxDocumentBytes].
	ErrTooLarge = errors.New("inventory: document too large")
)

// ListError reports every problem found in one or more lists of entries, in
// list order and, within a list, in entry order. Each error's field path
// starts with the name of the list: the argument of the function ("old[3]",
// "desired[0].digest"), or the field of the document that held it
// ("status.inventory[1].kind", "entries[2].id").
//
// A *ListError matches [ErrDuplicate] with [errors.Is] when it reports a
// duplicate, [ErrInvalidID] when it reports a Flux id that does not parse,
// and [ErrInvalidEntry] when it reports any other rule.
type ListError struct {
	// Errs holds one error per broken rule. It is never empty.
	Errs field.ErrorList
}

// Error returns the errors joined, e.g.
// `inventory: desired[1].digest: Invalid value: "sha256:abc": ...`.
func (e *ListError) Error() string {
	var b strings.Builder
	b.WriteString("inventory: ")
	for i, fe := range e.Errs {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(fe.Error())
	}
	return b.String()
}

// Unwrap returns the sentinels that the reported errors fall under.
func (e *ListError) Unwrap() []error {
	var dup, id, other bool
	for _, fe := range e.Errs {
		switch {
		case fe.Type == field.ErrorTypeDuplicate:
			dup = true
		case strings.HasSuffix(fe.Field, ".id"):
			// Only a Flux ref has a field "id"; an Entry has none.
			id = true
		default:
			other = true
		}
	}
	var errs []error
	if dup {
		errs = append(errs, ErrDuplicate)
	}
	if id {
		errs = append(errs, ErrInvalidID)
	}
	if other {
		errs = append(errs, ErrInvalidEntry)
	}
	return errs
}

// listError returns errs as a *ListError, or a plain nil when it is empty.
func listError(errs field.ErrorList) error {
	if len(errs) == 0 {
		return nil
	}
	return &ListError{Errs: errs}
}
