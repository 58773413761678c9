package nsmeta

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/tenantkit/tenantkit/cel"
	"github.com/tenantkit/tenantkit/internal/errsort"
	"github.com/tenantkit/tenantkit/internal/quote"
)

// nameVariable is the CEL variable that holds the name an allowedNames rule checks.
const nameVariable = "ns"

// defaultProtectedNames are refused whatever the rules and options, so that no tenant claims one
// nor a pruning generator deletes it: fail closed.
func defaultProtectedNames() []string {
	return []string{"default", "flux-system", "kube-node-lease", "kube-public", "kube-system"}
}

// NamePolicy is the compiled form of spec.managedNamespaces.allowedNames. The zero value is not
// valid; use NewNamePolicy. A NamePolicy is immutable and safe for concurrent use.
type NamePolicy struct {
	rules     []*cel.Program
	protected []string // sorted
}

// NewNamePolicy compiles allowedNames, a non-empty list of boolean CEL expressions over the string
// variable "ns", found under fldPath (spec.managedNamespaces):
//
//	p, errs := nsmeta.NewNamePolicy([]string{`ns.startsWith("tenant-")`},
//		field.NewPath("spec", "managedNamespaces"), nsmeta.WithProtectedNames("platform"))
//
// Options: [WithProtectedNames] and [WithCache]; any other is an error at its name. An empty list,
// an empty expression or one that does not compile (with line:column and a caret) is an error at
// fldPath.allowedNames or fldPath.allowedNames[i], a bad protected name at protectedNames[i]: it
// returns a nil NamePolicy and the sorted list of every problem, or a nil list.
func NewNamePolicy(allowedNames []string, fldPath *field.Path, opts ...Option) (*NamePolicy, field.ErrorList) {
	var o options
	errs := o.apply(opts, "NewNamePolicy", "WithProtectedNames")
	p := fldPath.Child("allowedNames")
	if len(allowedNames) == 0 {
		errs = append(errs, field.Required(p, "must list at least one CEL expression over ns; use [\"true\"] to allow any name"))
	}
	policy := &NamePolicy{rules: make([]*cel.Program, 0, len(allowedNames)), protected: defaultProtectedNames()}
	for i, expr := range allowedNames {
		if expr == "" {
			errs = append(errs, field.Required(p.Index(i), "must be a CEL expression over ns that returns a bool"))
			continue
		}
		prog, err := compile(o.cache, expr, nameVariable)
		if err != nil {
			errs = append(errs, field.Invalid(p.Index(i), expr, compileDetail(err)))
			continue
		}
		policy.rules = append(policy.rules, prog)
	}
	for i, name := range o.protected {
		// Not a field of the ArtifactGenerator: the caller's own option.
		for _, msg := range apivalidation.ValidateNamespaceName(name, false) {
			errs = append(errs, field.Invalid(field.NewPath("protectedNames").Index(i), quote.Value(name), msg))
		}
		policy.protected = append(policy.protected, name)
	}
	if len(errs) > 0 {
		return nil, errsort.Sort(errs)
	}
	slices.Sort(policy.protected)
	policy.protected = slices.Compact(policy.protected)
	return policy, nil
}

// Check returns nil when the policy allows name: a DNS-1123 label (at most 63 characters, so the
// rules see a bounded input), not protected, and accepted by an allowedNames rule, checked in that
// order. A refusal wraps [ErrInvalidName], [ErrProtectedName] or [ErrNameNotAllowed] and gives the
// name and one reason per broken rule (a rule that fails to evaluate does not accept, its error a
// reason). When ctx ends first, the error wraps ctx.Err(), and when a rule runs out of the
// load-dependent [cel.TimeBudget], context.DeadlineExceeded: neither is a verdict on the name.
//
//	err := p.Check(ctx, "kube-system") // errors.Is(err, nsmeta.ErrProtectedName)
func (p *NamePolicy) Check(ctx context.Context, name string) error {
	if msgs := apivalidation.ValidateNamespaceName(name, false); len(msgs) > 0 {
		return &nameError{Name: name, Err: ErrInvalidName, Reasons: msgs}
	}
	if _, found := slices.BinarySearch(p.protected, name); found {
		return &nameError{Name: name, Err: ErrProtectedName, Reasons: []string{
			"protected names are " + strings.Join(p.protected, ", "),
		}}
	}
	var reasons []string
	for _, rule := range p.rules {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("nsmeta: checking namespace name %q: %w", quote.Value(name), err)
		}
		ok, err := rule.Eval(ctx, map[string]string{nameVariable: name})
		switch {
		case err == nil && ok:
			return nil
		case ctx.Err() != nil:
			return fmt.Errorf("nsmeta: checking namespace name %q: %w", quote.Value(name), ctx.Err())
		case errors.Is(err, context.DeadlineExceeded):
			// cel's load-dependent time budget: an error to retry, never a verdict on the name.
			return fmt.Errorf("nsmeta: checking namespace name %q: rule %q: %w", quote.Value(name), rule.String(), err)
		case err != nil:
			reasons = append(reasons, fmt.Sprintf("rule %q failed to evaluate: %s", rule.String(), evalDetail(err)))
		default:
			reasons = append(reasons, fmt.Sprintf("rule %q returned false", rule.String()))
		}
	}
	return &nameError{Name: name, Err: ErrNameNotAllowed, Reasons: reasons}
}
