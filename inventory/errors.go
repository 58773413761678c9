package inventory

import "errors"

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
