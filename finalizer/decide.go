package finalizer

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/tenantkit/tenantkit/internal/apiname"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Lookup finds the object a reference names in the cluster (the package documentation shows
// a controller-runtime one). UID returns the object's current UID, or an error wrapping
// [ErrNotFound] when the object or its kind does not exist, or [ErrForbidden] when reading
// it is forbidden; any other error means "cannot tell", and [Decider.Decide] keeps the namespace.
type Lookup interface {
	UID(ctx context.Context, r Reference) (string, error)
}

// LookupFunc adapts a function to a [Lookup].
type LookupFunc func(ctx context.Context, r Reference) (string, error)

// UID calls f(ctx, r).
func (f LookupFunc) UID(ctx context.Context, r Reference) (string, error) {
	return f(ctx, r)
}

// Outcome is what [Decider.Decide] found, one value per branch; zero is Undecided.
type Outcome int

// The outcomes of [Decider.Decide]. Only HandedOff releases the generator
// from deleting the namespace; Undecided and Forbidden come with an error:
// keep the namespace and retry; every other outcome: delete the namespace.
const (
	Undecided       Outcome = iota // the lookup failed; Decide returned its error
	Absent                         // no annotation, or an empty value
	Unstamped                      // the value is "self": the finalizer never stamped it
	Malformed                      // the value is not a reference
	InsideNamespace                // the reference names the namespace or an object in it
	KindNotAllowed                 // the referenced kind is not in the allow-list
	NotFound                       // the referenced object or its kind does not exist
	Recreated                      // the object exists with another UID
	Forbidden                      // the lookup was forbidden; Decide returned its error
	HandedOff                      // the object exists with the referenced UID
)

var outcomeNames = [...]string{
	"undecided", "absent", "unstamped", "malformed", "inside the namespace", "kind not allowed",
	"not found", "recreated", "forbidden", "handed off",
}

// String returns the outcome in lower case words, for example "handed off".
func (o Outcome) String() string {
	if o < 0 || int(o) >= len(outcomeNames) {
		return "outcome(" + strconv.Itoa(int(o)) + ")"
	}
	return outcomeNames[o]
}

// Verdict is the decision of [Decider.Decide] for one namespace.
type Verdict struct {
	// Outcome is the branch Decide took.
	Outcome Outcome
	// Reference is the parsed annotation value; zero when it is absent, "self" or malformed.
	Reference Reference
	// Reason explains the outcome in one line, fit for an inventory reason
	// and a condition message; every verdict has one. For example "handed off
	// to fluxcd.controlplane.io/v1/ResourceSet/flux-system/tenants (uid 0d1e...)".
	Reason string
}

// HandedOff reports whether the namespace was handed off: do not delete it, only stop tracking it.
func (v Verdict) HandedOff() bool { return v.Outcome == HandedOff }

// Decider decides hand-offs under one policy, the kinds that may take one. Build it once
// with [NewDecider]; it is immutable and safe for concurrent use. The zero Decider allows
// every kind, like NewDecider(fldPath).
type Decider struct {
	allowed     map[schema.GroupKind]bool // nil: every kind
	allowedText string                    // the allowed kinds, sorted, for reasons
}

// NewDecider returns a Decider that lets only the allowed kinds, by API group and kind (not
// version), take a hand-off; a reference to any other kind leaves the generator accountable
// ([KindNotAllowed]). With no kind, every kind may, and whoever may annotate a namespace can
// keep it for ever (see Hostile annotations in the package documentation): name the kinds.
// fldPath is where the caller's list of kinds is:
//
//	d, errs := finalizer.NewDecider(field.NewPath("allowedKinds"), schema.GroupKind{Group: "fluxcd.controlplane.io", Kind: "ResourceSet"})
//
// A group or kind that breaks the API server's rules is a field.Invalid (an empty kind, a
// field.Required) at fldPath.Index(i).Child("group") or .Child("kind"), i the kind's index.
// It returns a nil Decider and every problem, in the order of the kinds, or a nil list.
func NewDecider(fldPath *field.Path, allowed ...schema.GroupKind) (*Decider, field.ErrorList) {
	d := &Decider{}
	if len(allowed) == 0 {
		return d, nil
	}
	var errs field.ErrorList
	d.allowed = make(map[schema.GroupKind]bool, len(allowed))
	names := make([]string, 0, len(allowed))
	for i, gk := range allowed {
		for _, msg := range apiname.IsGroup(gk.Group) {
			errs = append(errs, field.Invalid(fldPath.Index(i).Child("group"), gk.Group, msg))
		}
		if gk.Kind == "" {
			errs = append(errs, field.Required(fldPath.Index(i).Child("kind"), ""))
		} else {
			for _, msg := range apiname.IsKind(gk.Kind) {
				errs = append(errs, field.Invalid(fldPath.Index(i).Child("kind"), gk.Kind, msg))
			}
		}
		d.allowed[gk] = true
		names = append(names, groupKind(gk.Group, gk.Kind))
	}
	if len(errs) > 0 {
		return nil, errs
	}
	slices.Sort(names)
	d.allowedText = strings.Join(slices.Compact(names), ", ")
	return d, nil
}

// Decide is for the generator, about to delete a namespace it manages: it tells from the
// live namespace's externalFinalizer annotation whether the deletion was handed off, by the
// table of the package documentation:
//
//	verdict, err := d.Decide(ctx, ns.GetName(), ns.GetAnnotations(), lookup)
//
// It is handed off only when the value names an object of an allowed kind outside the
// namespace, and l, called only then, finds it with the referenced UID. An error from l
// wrapping [ErrForbidden] is returned as it is, with a Forbidden verdict naming the RBAC the
// caller lacks; any other is returned wrapped, with an Undecided verdict: either way the
// caller must keep the namespace and retry, never delete it. Decide also returns an error
// when namespace is not a namespace name, and when it needs a lookup and l is nil.
func (d *Decider) Decide(ctx context.Context, namespace string, live map[string]string, l Lookup) (Verdict, error) {
	if msgs := validation.IsDNS1123Label(namespace); len(msgs) > 0 {
		err := fmt.Errorf("finalizer: namespace %s: %s", quote(namespace), strings.Join(msgs, "; "))
		return Verdict{Reason: "cannot decide: " + err.Error()}, err
	}
	value := live[Annotation]
	if value == "" {
		return Verdict{Outcome: Absent, Reason: "no external finalizer"}, nil
	}
	if value == Self {
		return Verdict{Outcome: Unstamped, Reason: `external finalizer "self" was never stamped with a reference`}, nil
	}
	r, err := Parse(value)
	if err != nil {
		reason := "malformed external finalizer: " + err.Error()
		var pe *ParseError
		if errors.As(err, &pe) {
			reason = "malformed external finalizer " + pe.detail()
		}
		return Verdict{Outcome: Malformed, Reason: reason}, nil
	}
	target := r.Object() + " (uid " + r.UID + ")"
	notHandOff := func(o Outcome, why string) (Verdict, error) {
		return Verdict{Outcome: o, Reference: r, Reason: "external finalizer " + target + " is not a hand-off: " + why}, nil
	}
	switch {
	case r.Namespace == namespace:
		return notHandOff(InsideNamespace, "it is inside namespace "+namespace+" itself and cannot outlive it")
	case r.Group == "" && r.Kind == "Namespace" && r.Name == namespace:
		return notHandOff(InsideNamespace, "it is namespace "+namespace+" itself")
	case d.allowed != nil && !d.allowed[schema.GroupKind{Group: r.Group, Kind: r.Kind}]:
		return notHandOff(KindNotAllowed, "kind "+groupKind(r.Group, r.Kind)+" is not allowed (allowed: "+d.allowedText+")")
	}
	if l == nil {
		return Verdict{Reference: r, Reason: "cannot look up external finalizer " + target + ": no lookup"}, errNilLookup
	}
	uid, err := l.UID(ctx, r)
	switch {
	case errors.Is(err, ErrNotFound):
		return Verdict{Outcome: NotFound, Reference: r, Reason: "external finalizer " + target + " not found"}, nil
	case errors.Is(err, ErrForbidden):
		where := "at cluster scope"
		if r.Namespace != "" {
			where = "in namespace " + r.Namespace
		}
		return Verdict{Outcome: Forbidden, Reference: r, Reason: "cannot look up external finalizer " + target +
			": RBAC: get " + groupKind(r.Group, r.Kind) + " " + where + " is forbidden"}, err
	case err != nil:
		return Verdict{Reference: r, Reason: "cannot look up external finalizer " + target + ": " + err.Error()},
			fmt.Errorf("finalizer: look up %s: %w", target, err)
	case uid != r.UID:
		return Verdict{Outcome: Recreated, Reference: r, Reason: "external finalizer " + r.Object() + " has uid " + quote(uid) +
			", not " + strconv.Quote(r.UID) + ": it was recreated and may not track the namespace"}, nil
	}
	return Verdict{Outcome: HandedOff, Reference: r, Reason: "handed off to " + target}, nil
}

// groupKind returns "group/Kind", or "Kind" for the core group, for reasons.
func groupKind(group, kind string) string {
	if group == "" {
		return kind
	}
	return group + "/" + kind
}
