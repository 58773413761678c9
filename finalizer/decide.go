package finalizer

import (
	"context"
	"errors"
	"fmt"
	"strconv"
)

// Lookup finds the object a reference names in the cluster. UID returns the
// object's current UID, or an error matching [ErrNotFound] when the object or
// its kind does not exist. Any other error means "cannot tell": [Decide]
// returns it, and the namespace is kept.
//
// The package documentation shows a controller-runtime implementation.
type Lookup interface {
	UID(ctx context.Context, r Reference) (string, error)
}

// LookupFunc adapts a function to a [Lookup].
type LookupFunc func(ctx context.Context, r Reference) (string, error)

// UID calls f(ctx, r).
func (f LookupFunc) UID(ctx context.Context, r Reference) (string, error) {
	return f(ctx, r)
}

// Outcome is what [Decide] found, one value per branch. The zero value is
// Undecided.
type Outcome int

// The outcomes of [Decide]. Only HandedOff releases the generator from
// deleting the namespace; Undecided comes with an error and means neither
// delete nor release: keep the namespace and retry.
const (
	Undecided Outcome = iota // the lookup failed; Decide returned its error
	Absent                   // no annotation, or an empty value
	Unstamped                // the value is "self": the finalizer never stamped it
	Malformed                // the value is not a reference
	NotFound                 // the referenced object or its kind does not exist
	Recreated                // the object exists with another UID
	HandedOff                // the object exists with the referenced UID
)

var outcomeNames = [...]string{"undecided", "absent", "unstamped", "malformed", "not found", "recreated", "handed off"}

// String returns the outcome in lower case words, for example "handed off".
func (o Outcome) String() string {
	if o < 0 || int(o) >= len(outcomeNames) {
		return "outcome(" + strconv.Itoa(int(o)) + ")"
	}
	return outcomeNames[o]
}

// Verdict is the decision of [Decide] for one namespace.
type Verdict struct {
	// Outcome is the branch Decide took.
	Outcome Outcome
	// Reference is the parsed annotation value; zero when the annotation is
	// absent, "self" or malformed.
	Reference Reference
	// Reason explains the outcome in one line, fit for an inventory Release or
	// Keep reason, for example "handed off to
	// fluxcd.controlplane.io/v1/ResourceSet/flux-system/tenants (uid 0d1e...)".
	Reason string
}

// HandedOff reports whether the namespace was handed off: the generator must
// not delete it, only stop tracking it. Every other verdict leaves the generator
// accountable.
func (v Verdict) HandedOff() bool { return v.Outcome == HandedOff }

// Decide is for the generator, about to delete a namespace it manages: it reads
// the externalFinalizer annotation from the live namespace's annotations and
// tells whether the deletion was handed off, for example
// Decide(ctx, ns.GetAnnotations(), lookup).
//
// The namespace is handed off only when the value parses, l finds the object,
// and its UID is the referenced one. When the annotation is absent or empty,
// "self" or malformed, Decide does not call l and the generator stays
// accountable, as it does when l reports [ErrNotFound] (the finalizer is gone)
// or another UID (the finalizer was recreated and may never track the
// namespace). Any other error from l is returned, wrapped, with an Undecided
// verdict: the caller must keep the namespace and retry, never delete it. A nil
// l is an error when a lookup is needed.
func Decide(ctx context.Context, live map[string]string, l Lookup) (Verdict, error) {
	value := live[Annotation]
	if value == "" {
		return Verdict{Outcome: Absent, Reason: "no external finalizer"}, nil
	}
	r, err := Parse(value)
	if err != nil {
		if errors.Is(err, ErrSelf) {
			return Verdict{Outcome: Unstamped, Reason: `external finalizer "self" was never stamped with a reference`}, nil
		}
		reason := "malformed external finalizer"
		var pe *ParseError
		if errors.As(err, &pe) {
			reason += " " + pe.detail()
		}
		return Verdict{Outcome: Malformed, Reason: reason}, nil
	}
	target := r.object() + " (uid " + r.UID + ")"
	if l == nil {
		return Verdict{Reference: r, Reason: "cannot look up external finalizer " + target + ": no lookup"}, errNilLookup
	}
	uid, err := l.UID(ctx, r)
	switch {
	case errors.Is(err, ErrNotFound):
		return Verdict{Outcome: NotFound, Reference: r, Reason: "external finalizer " + target + " not found"}, nil
	case err != nil:
		return Verdict{Reference: r, Reason: "cannot look up external finalizer " + target + ": " + err.Error()},
			fmt.Errorf("finalizer: look up %s: %w", target, err)
	case uid != r.UID:
		return Verdict{Outcome: Recreated, Reference: r, Reason: "external finalizer " + r.object() + " has uid " + quote(uid) +
			", not " + strconv.Quote(r.UID) + ": it was recreated and may not track the namespace"}, nil
	}
	return Verdict{Outcome: HandedOff, Reference: r, Reason: "handed off to " + target}, nil
}
