package nsmeta

import (
	"context"
	"fmt"
	"maps"
	"slices"

	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/tenantkit/tenantkit/cel"
	"github.com/tenantkit/tenantkit/internal/quote"
)

// valueVariable is the CEL variable through which a schema rule receives
// the value of a label or annotation.
const valueVariable = "value"

// Schema is the compiled form of
// spec.managedNamespaces.metadata.fromSource.allowedLabels and
// allowedAnnotations: for each allowed key, a CEL rule over the string
// variable "value" that must return true.
//
// The zero value is not valid; use CompileSchema. A Schema is immutable and
// safe for concurrent use.
type Schema struct {
	labels, annotations map[string]*cel.Program
	strict              bool
}

// CompileSchema compiles the rules of allowedLabels and allowedAnnotations,
// each a map from a key to a boolean CEL expression over the string
// variable "value", found under fldPath
// (spec.managedNamespaces.metadata.fromSource in an ArtifactGenerator):
//
//	s, errs := nsmeta.CompileSchema(nil, map[string]string{
//		"my.org.io/observability": `value.matches("^(Enabled|Disabled)$")`,
//	}, field.NewPath("spec", "managedNamespaces", "metadata", "fromSource"))
//
// Options: [WithStrict], [WithCache]; any other is an error at its name.
// Every key must be a valid label or annotation key and every expression
// must compile (cel.Compile: at most 5 KiB, type-checked, bool output).
// Otherwise it returns a nil Schema and the sorted list of every bad key
// and rule, at fldPath.allowedLabels[key] or fldPath.allowedAnnotations[key],
// compile errors with line:column and a caret. The list is nil when the
// schema compiles.
func CompileSchema(allowedLabels, allowedAnnotations map[string]string, fldPath *field.Path, opts ...Option) (*Schema, field.ErrorList) {
	var o options
	errs := o.apply(opts, "CompileSchema", "WithStrict")
	s := &Schema{
		labels:      make(map[string]*cel.Program, len(allowedLabels)),
		annotations: make(map[string]*cel.Program, len(allowedAnnotations)),
		strict:      o.strict,
	}
	lp, ap := fldPath.Child("allowedLabels"), fldPath.Child("allowedAnnotations")
	for k, expr := range allowedLabels {
		errs = append(errs, metav1validation.ValidateLabelName(k, lp.Key(k))...)
		errs = append(errs, compileRule(o.cache, s.labels, k, expr, lp.Key(k))...)
	}
	for k, expr := range allowedAnnotations {
		// The annotation key rules, one key at a time so that the error names it.
		errs = append(errs, apivalidation.ValidateAnnotations(map[string]string{k: ""}, ap.Key(k))...)
		errs = append(errs, compileRule(o.cache, s.annotations, k, expr, ap.Key(k))...)
	}
	if len(errs) > 0 {
		return nil, sortErrors(errs)
	}
	return s, nil
}

// compileRule compiles the rule for key into rules.
func compileRule(c *cel.Cache, rules map[string]*cel.Program, key, expr string, p *field.Path) field.ErrorList {
	if expr == "" {
		return field.ErrorList{field.Required(p, "must be a CEL expression over value that returns a bool")}
	}
	prog, err := compile(c, expr, valueVariable)
	if err != nil {
		return field.ErrorList{field.Invalid(p, expr, compileDetail(err))}
	}
	rules[key] = prog
	return nil
}

// Apply checks m, the metadata of a NamespaceMetadata file, against the
// schema and returns the metadata it keeps, warnings and errors:
//
//	kept, warnings, errs := s.Apply(ctx, fromFile)
//
// A key the schema lists is kept when its rule returns true. When the rule
// returns false, or fails to evaluate (a runtime error, the cost limit, a
// cancelled ctx), the key is dropped and reported as an error naming the
// key, its value and the rule: a rule that fails never lets a key through.
// A key the schema does not list is dropped with a warning, or reported as a
// Forbidden error under [WithStrict]. Paths are those of the file,
// metadata.labels[team]; a value is shown by its first 64 bytes when it is
// longer; warnings and errors are sorted, and errors nil when there are none. Apply does not check
// key and value syntax: ParseFile did. The maps of kept are never nil.
func (s *Schema) Apply(ctx context.Context, m Metadata) (Metadata, []string, field.ErrorList) {
	kept := Metadata{Labels: map[string]string{}, Annotations: map[string]string{}}
	var (
		warnings []string
		errs     field.ErrorList
	)
	p := field.NewPath("metadata")
	for _, part := range [...]struct {
		what, list string
		in, out    map[string]string
		rules      map[string]*cel.Program
		p          *field.Path
	}{
		{"label", "allowedLabels", m.Labels, kept.Labels, s.labels, p.Child("labels")},
		{"annotation", "allowedAnnotations", m.Annotations, kept.Annotations, s.annotations, p.Child("annotations")},
	} {
		// Sorted, so that warnings come in a stable order.
		for _, k := range slices.Sorted(maps.Keys(part.in)) {
			v, kp := part.in[k], part.p.Key(k)
			rule, ok := part.rules[k]
			if !ok {
				if s.strict {
					errs = append(errs, field.Forbidden(kp, "must be listed in "+part.list))
				} else {
					warnings = append(warnings, fmt.Sprintf("%s: %s %q is not in %s; dropped", kp, part.what, k, part.list))
				}
				continue
			}
			if err := ctx.Err(); err != nil {
				// cel checks ctx only inside comprehensions: check it here too,
				// so that a cancelled Apply ends promptly and keeps nothing.
				errs = append(errs, field.InternalError(kp, err))
				continue
			}
			pass, err := rule.Eval(ctx, map[string]string{valueVariable: v})
			switch {
			case err != nil && ctx.Err() != nil:
				errs = append(errs, field.InternalError(kp, err))
			case err != nil:
				errs = append(errs, field.Invalid(kp, quote.Value(v), fmt.Sprintf("rule %q failed to evaluate: %s", rule.String(), evalDetail(err))))
			case !pass:
				errs = append(errs, field.Invalid(kp, quote.Value(v), fmt.Sprintf("must satisfy rule %q", rule.String())))
			default:
				part.out[k] = v
			}
		}
	}
	return kept, warnings, sortErrors(errs)
}
