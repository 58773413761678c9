package inventory

import (
	"context"
	"fmt"
)

// Guard is a caller's check on one stale entry, run by [Collect] in prune order, typically on the
// live object (its prune annotation, an external finalizer). It returns [Delete] when it has no
// objection (a reason is the deletion's unless an earlier guard gave one), or [Release] or [Keep]
// with a reason. An error, or any other action, keeps the entry: a guard that cannot tell never
// causes a deletion. Collect does not recover a guard's panic: that is a bug in the guard.
type Guard func(ctx context.Context, e Entry) (Action, string, error)

// Option configures [Collect].
type Option func(*options)

type options struct {
	guards       []Guard
	nsPrune      bool
	maxDeletes   int
	maxSet       bool // maxDeletes applies
	allowAll     bool
	keepReason   string // WithKeepAll's, never empty when given
	invalidError error
}

// WithGuard adds a guard. Guards run in the order they were added; the first that returns
// anything but [Delete] decides. A nil guard is invalid.
func WithGuard(g Guard) Option {
	return func(o *options) {
		if g == nil {
			o.invalid(fmt.Errorf("%w: guard must not be nil", ErrInvalidOption))
			return
		}
		o.guards = append(o.guards, g)
	}
}

// WithNamespacePrune lets [Collect] delete stale Namespaces, as an ArtifactGenerator's
// managedNamespaces.prune: true does; without it, each that no desired entry uses is released.
func WithNamespacePrune() Option {
	return func(o *options) { o.nsPrune = true }
}

// WithMaxDeletions makes [Collect] refuse a pass that would delete more than n entries: it
// deletes none of them and returns an error wrapping [ErrDeletionRefused]. n must not be
// negative; 0 refuses every deletion. By default there is no limit.
func WithMaxDeletions(n int) Option {
	return func(o *options) {
		if n < 0 {
			o.invalid(fmt.Errorf("%w: max deletions %d must not be negative", ErrInvalidOption, n))
			return
		}
		o.maxDeletes, o.maxSet = n, true
	}
}

// WithAllowDeleteAll lets a pass delete every entry that the inventory tracked. Without it,
// [Collect] refuses a pass that would delete some and leave none tracked, which is what an empty
// or unreadable source, or a pattern renaming every tenant, looks like. Flux prunes everything on
// an empty source: pass this option for that.
func WithAllowDeleteAll() Option {
	return func(o *options) { o.allowAll = true }
}

// WithKeepAll keeps every stale entry, with reason, before any other rule or guard runs: for a
// desired state with errors, whose stale list cannot be trusted. The reason must not be empty.
//
//	decisions, err := inventory.Collect(ctx, changes, inventory.WithKeepAll("desired state has errors"))
func WithKeepAll(reason string) Option {
	return func(o *options) {
		if reason == "" {
			o.invalid(fmt.Errorf("%w: keep-all reason must not be empty", ErrInvalidOption))
			return
		}
		o.keepReason = reason
	}
}

// invalid records the first invalid option.
func (o *options) invalid(err error) {
	if o.invalidError == nil {
		o.invalidError = err
	}
}
