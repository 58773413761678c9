package nsmeta

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"

	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/tenantkit/tenantkit/cel"
	"github.com/tenantkit/tenantkit/internal/errsort"
	"github.com/tenantkit/tenantkit/internal/quote"
)

// valueVariable is the CEL variable that holds the value a schema rule checks.
const valueVariable = "value"

// costBudget is the CEL cost the rules of one file may spend together (Bounds in doc.go).
const costBudget = 100_000

// Schema is the compiled form of spec.managedNamespaces.metadata.fromSource.allowedLabels and
// allowedAnnotations: a CEL rule over "value" per allowed key. The zero value is not valid; use
// CompileSchema. A Schema is immutable and safe for concurrent use.
type Schema struct {
	labels, annotations map[string]*cel.Program
	strict              bool
}

// CompileSchema compiles every rule of allowedLabels and allowedAnnotations, each a map from a key
// to a boolean CEL expression over the string variable "value", found under fldPath
// (spec.managedNamespaces.metadata.fromSource):
//
//	s, errs := nsmeta.CompileSchema(nil, map[string]string{
//		"my.org.io/observability": `value.matches("^(Enabled|Disabled)$")`,
//	}, field.NewPath("spec", "managedNamespaces", "metadata", "fromSource"))
//
// Options: [WithStrict], [WithCache]; any other is an error at its name. Every key must be a valid
// label or annotation key, every expression non-empty and compile (cel.Compile: at most 5 KiB,
// type-checked, bool output); otherwise it returns a nil Schema and the sorted list of every bad
// key and rule at fldPath.allowedLabels[key] or allowedAnnotations[key], the rule as the value
// (compile errors with line:column and a caret), else a nil list.
func CompileSchema(allowedLabels, allowedAnnotations map[string]string, fldPath *field.Path, opts ...Option) (*Schema, field.ErrorList) {
	var o options
	errs := o.apply(opts, "CompileSchema", "WithStrict")
	s := &Schema{
		labels:      make(map[string]*cel.Program, len(allowedLabels)),
		annotations: make(map[string]*cel.Program, len(allowedAnnotations)),
		strict:      o.strict,
	}
	lp, ap := fldPath.Child("allowedLabels"), fldPath.Child("allowedAnnotations")
	for k, r := range allowedLabels {
		errs = append(errs, metav1validation.ValidateLabelName(k, lp.Key(k))...)
		errs = append(errs, compileRule(&o, s.labels, k, r, lp.Key(k))...)
	}
	for k, r := range allowedAnnotations {
		// The annotation key rules, one key at a time so that the error names it.
		errs = append(errs, apivalidation.ValidateAnnotations(map[string]string{k: ""}, ap.Key(k))...)
		errs = append(errs, compileRule(&o, s.annotations, k, r, ap.Key(k))...)
	}
	if len(errs) > 0 {
		return nil, errsort.Sort(errs)
	}
	return s, nil
}

// compileRule compiles the CEL rule r for key into rules.
func compileRule(o *options, rules map[string]*cel.Program, key, r string, p *field.Path) field.ErrorList {
	if r == "" {
		return field.ErrorList{field.Required(p, "must be a CEL expression over value that returns a bool")}
	}
	prog, err := compile(o.cache, r, valueVariable)
	if err != nil {
		return field.ErrorList{field.Invalid(p, r, compileDetail(err))}
	}
	rules[key] = prog
	return nil
}

// Apply checks m, the metadata of a NamespaceMetadata file, against the schema and returns the
// metadata it keeps (maps never nil), warnings and errors, both sorted, errors nil when there are
// none:
//
//	kept, warnings, errs := s.Apply(ctx, fromFile)
//
// A listed key is kept when its rule returns true; else it is dropped, with an error at its path
// naming the key, its value (its first 64 bytes) and the rule. An unlisted key is dropped with a
// warning, or is a Forbidden error under [WithStrict]. Key and value syntax is ParseFile's to
// check. The rules share a budget of 100,000 units of CEL cost, charged key by key (labels, then
// annotations, each sorted), each rule running with the smaller of cel.CostLimit and what is left:
// one that does not finish is an error at its key naming the rule, the value's size, the budget
// and what was left, as is every later key whose rule costs anything, so the same file fails at
// the same key on every machine. A rule stopped by ctx or by the load-dependent [cel.TimeBudget]
// is an internal error at its key, not a verdict on the value.
func (s *Schema) Apply(ctx context.Context, m Metadata) (Metadata, []string, field.ErrorList) {
	kept, warnings, errs, _ := s.apply(ctx, m)
	return kept, warnings, errs
}

// apply is Apply, and returns the cost the rules spent too.
func (s *Schema) apply(ctx context.Context, m Metadata) (Metadata, []string, field.ErrorList, uint64) {
	kept := Metadata{Labels: map[string]string{}, Annotations: map[string]string{}}
	var (
		warnings []string
		errs     field.ErrorList
	)
	p := field.NewPath("metadata")
	var spent uint64
	for _, part := range [...]struct {
		what, list string
		in, out    map[string]string
		rules      map[string]*cel.Program
		p          *field.Path
	}{
		{"label", "allowedLabels", m.Labels, kept.Labels, s.labels, p.Child("labels")},
		{"annotation", "allowedAnnotations", m.Annotations, kept.Annotations, s.annotations, p.Child("annotations")},
	} {
		// Sorted: stable warnings, and the budget runs out at the same key every time.
		for _, k := range slices.Sorted(maps.Keys(part.in)) {
			v, kp := part.in[k], part.p.Key(k)
			prog, ok := part.rules[k]
			if !ok {
				if s.strict {
					errs = append(errs, field.Forbidden(kp, "must be listed in "+part.list))
				} else {
					warnings = append(warnings, fmt.Sprintf("%s: %s %q is not in %s; dropped", kp, part.what, k, part.list))
				}
				continue
			}
			if err := ctx.Err(); err != nil {
				// cel checks ctx only in comprehensions: a cancelled Apply ends here, keeping
				// nothing.
				errs = append(errs, field.InternalError(kp, err))
				continue
			}
			left := costBudget - spent
			pass, cost, err := prog.EvalLimited(ctx, map[string]string{valueVariable: v}, left)
			spent += min(cost, left)
			switch {
			case err != nil && (ctx.Err() != nil || errors.Is(err, context.DeadlineExceeded)):
				// The caller's context, or cel's load-dependent time budget: never a verdict.
				errs = append(errs, field.InternalError(kp, err))
			case errors.Is(err, cel.ErrCostLimit) && left < cel.CostLimit:
				errs = append(errs, field.Invalid(kp, quote.Value(v), fmt.Sprintf(
					"rule %q failed to evaluate within the CEL cost budget of the file: its rules may cost %d together, charged key by key (labels, then annotations, each in sorted order), and %d was left for this %d-byte value: %s",
					prog, costBudget, left, len(v), evalDetail(err))))
			case err != nil:
				errs = append(errs, field.Invalid(kp, quote.Value(v), fmt.Sprintf("rule %q failed to evaluate: %s", prog, evalDetail(err))))
			case !pass:
				errs = append(errs, field.Invalid(kp, quote.Value(v), fmt.Sprintf("must satisfy rule %q", prog)))
			default:
				part.out[k] = v
			}
		}
	}
	return kept, warnings, errsort.Sort(errs), spent
}
