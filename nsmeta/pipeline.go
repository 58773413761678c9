package nsmeta

import (
	"strconv"

	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/tenantkit/tenantkit/internal/quote"
)

// Strategy says how an Operation combines its metadata with the metadata
// built so far.
type Strategy string

// The three strategies of spec.managedNamespaces.metadata.from[].strategy.
const (
	// Reset replaces all labels and annotations with the operation's own.
	Reset Strategy = "Reset"
	// Override sets the operation's labels and annotations over existing ones.
	Override Strategy = "Override"
	// Merge adds only the operation's keys that are absent.
	Merge Strategy = "Merge"
)

// strategies lists the valid strategies in the order the API documents them.
var strategies = []Strategy{Reset, Override, Merge}

// allNamespaces is the Operation namespace that matches every namespace.
const allNamespaces = "*"

// The origins that Resolve records for keys set by the fixed steps; an
// operation's origin is "from[i]", i its index in [Pipeline.Operations].
const (
	originCommon = "common"
	originSource = "source"
	originFinal  = "final"
)

// Operation is one entry of spec.managedNamespaces.metadata.from: it applies
// its labels and annotations with Strategy to Namespace, or to every
// namespace when Namespace is "*". Strategy and Namespace are required, so
// the zero value is not valid (see [Pipeline.Validate]).
type Operation struct {
	Strategy  Strategy `json:"strategy"`
	Namespace string   `json:"namespace"`
	Metadata           // labels and annotations, inline as in the API
}

// Pipeline builds the metadata of a namespace in four steps:
//
//  1. common: Common, spec.commonMetadata;
//  2. source: the metadata read from the tenant's NamespaceMetadata file,
//     after Schema.Apply, overriding;
//  3. from[i]: each of Operations in list order, when its namespace is the
//     one being resolved or "*";
//  4. final: Final, the caller's own metadata (ownership labels), which
//     nothing can override.
//
// Fill in the steps, check them once with [Pipeline.Validate], then call
// [Pipeline.Resolve] for each namespace:
//
//	p := nsmeta.Pipeline{Common: common, Operations: ops, Final: owner}
//	errs := p.Validate(field.NewPath("spec", "commonMetadata"),
//		field.NewPath("spec", "managedNamespaces", "metadata", "from"), field.NewPath("metadata"))
//
// The zero value is valid: it resolves every namespace to its source
// metadata. Validate and Resolve never modify a Pipeline, so one is safe
// for concurrent use as long as nobody modifies its maps and slices.
type Pipeline struct {
	// Common is the first step, spec.commonMetadata.
	Common Metadata
	// Operations are the third step, spec.managedNamespaces.metadata.from.
	Operations []Operation
	// Final is the last step, the caller's own metadata.
	Final Metadata
}

// Result is the metadata of a resolved namespace, and where each key came
// from: Origin.Labels[k] and Origin.Annotations[k] name the step that last
// set the key: "common", "source", "from[2]" or "final".
type Result struct {
	Metadata
	Origin Metadata
}

// Validate checks every step of p, each under its own field path: Common
// under common, Operations under operations (the path of the list), Final
// under final, the path of whatever the caller built it from. It returns
// the sorted list of every problem, or nil:
//
//   - every step's labels and annotations must pass [Metadata.Validate];
//   - an operation's strategy is required and must be Reset, Override or
//     Merge (from[1].strategy: Unsupported value: "Replace": supported
//     values: "Reset", "Override", "Merge"); its namespace is required and
//     must be "*" or a DNS-1123 label;
//   - no step may set the externalFinalizer annotation
//     (source.extensions.fluxcd.io/externalFinalizer) to a non-empty value
//     (a Forbidden error at its key): that key belongs to the external
//     finalizer, and a generator that set it in its own desired state could
//     hand a namespace off to itself.
func (p Pipeline) Validate(common, operations, final *field.Path) field.ErrorList {
	var errs field.ErrorList
	errs = append(errs, validateStep(p.Common, common)...)
	for i, op := range p.Operations {
		fp := operations.Index(i)
		switch op.Strategy {
		case Reset, Override, Merge:
		case "":
			errs = append(errs, field.Required(fp.Child("strategy"), `must be "Reset", "Override" or "Merge"`))
		default:
			errs = append(errs, field.NotSupported(fp.Child("strategy"), quote.Value(string(op.Strategy)), strategies))
		}
		switch op.Namespace {
		case allNamespaces:
		case "":
			errs = append(errs, field.Required(fp.Child("namespace"), `must be "*" or a namespace name`))
		default:
			for _, msg := range apivalidation.ValidateNamespaceName(op.Namespace, false) {
				errs = append(errs, field.Invalid(fp.Child("namespace"), quote.Value(op.Namespace), msg))
			}
		}
		errs = append(errs, validateStep(op.Metadata, fp)...)
	}
	errs = append(errs, validateStep(p.Final, final)...)
	return sortErrors(errs)
}

// validateStep validates the metadata of one step, under fldPath.
func validateStep(m Metadata, fldPath *field.Path) field.ErrorList {
	errs := m.Validate(fldPath)
	if m.Annotations[externalFinalizerAnnotation] != "" {
		errs = append(errs, reserved(fldPath))
	}
	return errs
}

// reserved reports the externalFinalizer annotation set under fldPath.
func reserved(fldPath *field.Path) *field.Error {
	return field.Forbidden(fldPath.Child("annotations").Key(externalFinalizerAnnotation),
		"the key is reserved for external finalizers, which set it on the live namespace; the generator's desired metadata must not set it")
}

// Resolve builds the metadata of namespace from fromSource, the validated
// metadata of its NamespaceMetadata file (the zero Metadata when it has
// none), through the four steps of [Pipeline]. It neither modifies its
// input nor returns maps that share storage with it or with the pipeline;
// its result depends only on its inputs. The maps of the result are never
// nil.
//
//	r, errs := p.Resolve("tenant-a", fromFile)
//	r.Labels["tier"]        // "silver"
//	r.Origin.Labels["tier"] // "from[2]"
//
// Resolve only applies the steps: check them once with [Pipeline.Validate]
// first (an operation with another strategy than the three does nothing
// here). It checks neither fromSource's syntax (ParseFile did) nor
// namespace (that is [NamePolicy.Check]'s job). Its one error: a result
// that carries a non-empty externalFinalizer annotation, which only
// fromSource can have set once the steps are valid, is refused with a
// Forbidden error at
// metadata.annotations[source.extensions.fluxcd.io/externalFinalizer], the
// path of the key in a NamespaceMetadata file.
func (p Pipeline) Resolve(namespace string, fromSource Metadata) (Result, field.ErrorList) {
	// Size the maps for every key that may be set, so that they never grow.
	nl := len(p.Common.Labels) + len(fromSource.Labels) + len(p.Final.Labels)
	na := len(p.Common.Annotations) + len(fromSource.Annotations) + len(p.Final.Annotations)
	for _, op := range p.Operations {
		nl += len(op.Labels)
		na += len(op.Annotations)
	}
	r := Result{
		Metadata: Metadata{Labels: make(map[string]string, nl), Annotations: make(map[string]string, na)},
		Origin:   Metadata{Labels: make(map[string]string, nl), Annotations: make(map[string]string, na)},
	}
	r.override(p.Common, originCommon)
	r.override(fromSource, originSource)
	for i, op := range p.Operations {
		if op.Namespace != allNamespaces && op.Namespace != namespace {
			continue
		}
		origin := "from[" + strconv.Itoa(i) + "]"
		switch op.Strategy {
		case Reset:
			clear(r.Labels)
			clear(r.Annotations)
			clear(r.Origin.Labels)
			clear(r.Origin.Annotations)
			r.override(op.Metadata, origin)
		case Override:
			r.override(op.Metadata, origin)
		case Merge:
			r.merge(op.Metadata, origin)
		}
	}
	r.override(p.Final, originFinal)

	if r.Annotations[externalFinalizerAnnotation] != "" {
		return Result{}, field.ErrorList{reserved(field.NewPath("metadata"))}
	}
	return r, nil
}

// override sets every key of m, recording origin.
func (r *Result) override(m Metadata, origin string) {
	for k, v := range m.Labels {
		r.Labels[k] = v
		r.Origin.Labels[k] = origin
	}
	for k, v := range m.Annotations {
		r.Annotations[k] = v
		r.Origin.Annotations[k] = origin
	}
}

// merge sets the keys of m that are absent, recording origin.
func (r *Result) merge(m Metadata, origin string) {
	for k, v := range m.Labels {
		if _, ok := r.Labels[k]; !ok {
			r.Labels[k] = v
			r.Origin.Labels[k] = origin
		}
	}
	for k, v := range m.Annotations {
		if _, ok := r.Annotations[k]; !ok {
			r.Annotations[k] = v
			r.Origin.Annotations[k] = origin
		}
	}
}
