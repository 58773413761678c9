package inventory

import (
	"fmt"
	"slices"
	"strings"
)

// Action is what a pass does with one entry: [Diff] sorts desired entries into [Create], [Update]
// and [Unchanged], [Collect] decides [Delete], [Release] or [Keep] for each stale one, and [Skip]
// is the caller's. The zero Action is not valid; a [Guard] that returns it gets its entry kept.
type Action int

const (
	// Create applies an entry that the inventory does not track.
	Create Action = iota + 1
	// Update applies a tracked entry whose digest changed.
	Update
	// Unchanged is a tracked entry with the same digest.
	Unchanged
	// Delete deletes a stale entry, which leaves the inventory once [Next] sees it confirmed.
	Delete
	// Release stops tracking a stale entry without deleting it (pruning off, or handed off).
	Release
	// Keep keeps tracking a stale entry without deleting it (in use, guarded, or refused).
	Keep
	// Skip neither applies nor deletes an entry that an error touches; a tracked one stays
	// tracked. Package generator decides it, [Collect] never; a guard's Skip keeps its entry.
	Skip
)

var actionNames = [...]string{
	Create:    "create",
	Update:    "update",
	Unchanged: "unchanged",
	Delete:    "delete",
	Release:   "release",
	Keep:      "keep",
	Skip:      "skip",
}

// Flux's change-line verbs, but "released" and "kept", which Flux's "skipped" would confuse.
var actionVerbs = [...]string{
	Create:    "created",
	Update:    "configured",
	Unchanged: "unchanged",
	Delete:    "deleted",
	Release:   "released",
	Keep:      "kept",
	Skip:      "skipped",
}

func (a Action) valid() bool { return a >= Create && a <= Skip }

// String returns the action's lower-case name, as JSON carries it ("keep"), or "Action(n)" for an
// invalid one.
func (a Action) String() string {
	if !a.valid() {
		return fmt.Sprintf("Action(%d)", int(a))
	}
	return actionNames[a]
}

// Verb returns the word of a change line: "created", "configured", "unchanged", "deleted",
// "released", "kept" or "skipped"; "" for an invalid action.
func (a Action) Verb() string {
	if !a.valid() {
		return ""
	}
	return actionVerbs[a]
}

// MarshalText returns [Action.String], or an error wrapping [ErrInvalidAction] if a is invalid.
func (a Action) MarshalText() ([]byte, error) { return enumText(actionNames[:], " ", a) }

// UnmarshalText reads an [Action.String]; other text fails, wrapping [ErrInvalidAction].
func (a *Action) UnmarshalText(text []byte) error { return parseEnum(actionNames[:], " ", text, a) }

// Decision is what one pass does with one entry, and why.
type Decision struct {
	Entry  Entry  `json:"entry"`
	Action Action `json:"action"`
	// Reason says why, e.g. "in use by ExternalArtifact/tenant-a/app": Collect sets it for
	// Release, Keep and a guard's Delete; a caller may set it for any action.
	Reason string `json:"reason,omitempty"`
	// Result is what deleting a [Delete] decision's entry came to: set by the caller, not
	// Collect, and followed by [Next] and [Decision.String].
	Result Result `json:"result,omitempty"`
}

// String returns the decision as a Flux change line, with the reason in parentheses when there is
// one; a [Delete] decision with a [Result] reads as what happened:
//
//	Namespace/tenant-b kept (in use by ExternalArtifact/tenant-b/web)
//	ExternalArtifact/tenant-a/old released (pruning disabled)
//	ExternalArtifact/tenant-a/old not deleted (deletion failed: <reason>)
func (d Decision) String() string {
	verb, reason := d.Action.Verb(), d.Reason
	if d.Action == Delete && d.Result.valid() {
		switch d.Result {
		case PruningDisabled:
			verb = Release.Verb()
		case DeletionFailed:
			verb = "not deleted"
		}
		if d.Result != Deleted {
			reason = joinReason(d.Result.String(), reason)
		}
	}
	s := d.Entry.ID().String() + " " + verb
	if !d.Action.valid() {
		s += d.Action.String()
	}
	if reason != "" {
		s += " (" + reason + ")"
	}
	return s
}

// joinReason returns "what: why", or what alone when why is empty.
func joinReason(what, why string) string {
	if why == "" {
		return what
	}
	return what + ": " + why
}

// Result is what deleting the entry of a [Delete] decision came to, as a staged deleter such as
// flux-operator's records it. The zero Result is "not tried": [Next] asks its deleted function.
type Result int

const (
	// Deleted: the object is gone, deleted now or not found. The entry leaves the inventory.
	Deleted Result = iota + 1
	// PruningDisabled: the live object disables its own pruning (flux-operator's deleter honours
	// fluxcd.controlplane.io/prune: disabled); released, the entry leaves, the object stays.
	PruningDisabled
	// DeletionFailed: the deletion returned an error; the entry stays, for the next pass.
	DeletionFailed
)

var resultNames = [...]string{
	Deleted:         "deleted",
	PruningDisabled: "pruning disabled",
	DeletionFailed:  "deletion failed",
}

func (r Result) valid() bool { return r >= Deleted && r <= DeletionFailed }

// String returns the result as JSON carries it, "deleted", "pruning disabled" or
// "deletion failed", or "Result(n)" for any other value, the zero Result included.
func (r Result) String() string {
	if !r.valid() {
		return fmt.Sprintf("Result(%d)", int(r))
	}
	return resultNames[r]
}

// MarshalText returns [Result.String], or an error wrapping [ErrInvalidAction] for a value that
// is not a result (a Decision omits its zero Result from JSON).
func (r Result) MarshalText() ([]byte, error) { return enumText(resultNames[:], ": result ", r) }

// UnmarshalText reads a [Result.String]; other text fails, wrapping [ErrInvalidAction].
func (r *Result) UnmarshalText(text []byte) error {
	return parseEnum(resultNames[:], ": result ", text, r)
}

// enumText returns names[v], or an error wrapping ErrInvalidAction that names v after label.
func enumText[T ~int](names []string, label string, v T) ([]byte, error) {
	if v < 1 || int(v) >= len(names) {
		return nil, fmt.Errorf("%w%s%d: must be one of %s", ErrInvalidAction, label, int(v), strings.Join(names[1:], ", "))
	}
	return []byte(names[v]), nil
}

// parseEnum sets *v to the value that text names in names, or returns an error as enumText does.
func parseEnum[T ~int](names []string, label string, text []byte, v *T) error {
	if i := slices.Index(names[1:], string(text)); i >= 0 {
		*v = T(i + 1)
		return nil
	}
	return fmt.Errorf("%w%s%q: must be one of %s", ErrInvalidAction, label, text, strings.Join(names[1:], ", "))
}
