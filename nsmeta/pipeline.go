package nsmeta

import (
	"strconv"

	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/tenantkit/tenantkit/internal/errsort"
	"github.com/tenantkit/tenantkit/internal/quote"
)

// Strategy says how an Operation combines its metadata with what came before.
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

// The origins that Resolve records for keys set by the fixed steps; an operation's origin is
// "from[i]", i its index in [Pipeline.Operations].
const (
	originCommon = "common"
	originSource = "source"
	originFinal  = "final"
)

// Operation is one entry of spec.managedNamespaces.metadata.from: it applies its metadata with
// Strategy to Namespace, or to every namespace for "*". The zero value is not valid: both are
// required.
type Operation struct {
	Strategy  Strategy `json:"strategy"`
	Namespace string   `json:"namespace"`
	Metadata           // labels and annotations, inline as in the API
}

// Pipeline builds the metadata of a namespace in the four steps of the package documentation:
// Common, the tenant's file, each of Operations in order, and Final, which nothing overrides.
// Check the steps once with [Pipeline.Validate], then call [Pipeline.Resolve] per namespace:
//
//	p := nsmeta.Pipeline{Common: common, Operations: ops, Final: owner}
//	errs := p.Validate(field.NewPath("spec", "commonMetadata"),
//		field.NewPath("spec", "managedNamespaces", "metadata", "from"), field.NewPath("metadata"))
//
// The zero value is valid: it resolves every namespace to its source metadata. A Pipeline is safe
// for concurrent use while nobody modifies its maps and slices (Validate and Resolve never do).
type Pipeline struct {
	// Common is the first step, spec.commonMetadata.
	Common Metadata
	// Operations are the third step, spec.managedNamespaces.metadata.from.
	Operations []Operation
	// Final is the last step, the caller's own metadata.
	Final Metadata
}

// Result is the metadata of a resolved namespace, and in Origin the step that last set each key:
// "common", "source", "from[2]" or "final".
type Result struct {
	Metadata
	Origin Metadata
}

// Validate checks every step of p, each under the path the caller built it from (operations: the
// list's), and returns the sorted list of every problem, or nil. Every step's metadata must pass
// [Metadata.Validate]. An operation's strategy and namespace are required: Reset, Override or
// Merge (from[1].strategy: Unsupported value: "Replace": supported values: "Reset", "Override",
// "Merge"), and "*" or a DNS-1123 label. No step may set the externalFinalizer annotation
// non-empty (Forbidden at its key): a generator that set it could hand a namespace off to itself.
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
	return errsort.Sort(errs)
}

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

// Resolve builds the metadata of namespace through the steps of p from fromSource, the validated
// metadata of its file (zero when it has none). Its result depends only on its inputs, its maps
// are never nil, and it shares no storage with its input or the pipeline, nor modifies them.
//
//	r, errs := p.Resolve("tenant-a", fromFile)
//	r.Labels["tier"]        // "silver"
//	r.Origin.Labels["tier"] // "from[2]"
//
// It checks neither the steps ([Pipeline.Validate]: an unknown strategy does nothing here), nor
// fromSource's syntax, nor namespace ([NamePolicy.Check]). Its one error: a non-empty
// externalFinalizer annotation in the result, from fromSource, is a Forbidden error at
// metadata.annotations[source.extensions.fluxcd.io/externalFinalizer].
func (p Pipeline) Resolve(namespace string, fromSource Metadata) (Result, field.ErrorList) {
	r := Result{
		Metadata: Metadata{Labels: map[string]string{}, Annotations: map[string]string{}},
		Origin:   Metadata{Labels: map[string]string{}, Annotations: map[string]string{}},
	}
	r.set(p.Common, originCommon, false)
	r.set(fromSource, originSource, false)
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
			r.set(op.Metadata, origin, false)
		case Override, Merge:
			r.set(op.Metadata, origin, op.Strategy == Merge)
		}
	}
	r.set(p.Final, originFinal, false)

	if r.Annotations[externalFinalizerAnnotation] != "" {
		return Result{}, field.ErrorList{reserved(field.NewPath("metadata"))}
	}
	return r, nil
}

// set sets the keys of m, with merge only those that are absent, recording origin.
func (r *Result) set(m Metadata, origin string, merge bool) {
	setKeys(r.Labels, r.Origin.Labels, m.Labels, origin, merge)
	setKeys(r.Annotations, r.Origin.Annotations, m.Annotations, origin, merge)
}

func setKeys(dst, origins, src map[string]string, origin string, merge bool) {
	for k, v := range src {
		if _, ok := dst[k]; !ok || !merge {
			dst[k], origins[k] = v, origin
		}
	}
}
