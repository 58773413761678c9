package nsmeta

import (
	"strconv"

	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
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

// AllNamespaces is the Operation namespace that matches every namespace.
const AllNamespaces = "*"

// The origins that Resolve records for keys set by the fixed steps; an
// operation's origin is "from[i]", i its index in Pipeline.Operations.
const (
	OriginCommon = "common"
	OriginSource = "source"
	OriginFinal  = "final"
)

// Operation is one entry of spec.managedNamespaces.metadata.from: it applies
// its labels and annotations with Strategy to Namespace, or to every
// namespace when Namespace is "*". Strategy and Namespace are required, so
// the zero value is not valid.
type Operation struct {
	Strategy  Strategy `json:"strategy"`
	Namespace string   `json:"namespace"`
	Metadata           // labels and annotations, inline as in the API
}

// Pipeline builds the metadata of a namespace in four steps:
//
//  1. Common: spec.commonMetadata;
//  2. the metadata read from the tenant's NamespaceMetadata file, after
//     Schema.Apply, overriding;
//  3. each of Operations in list order, when its namespace is the one
//     being resolved or "*";
//  4. Final: the caller's own metadata (ownership labels), which nothing can
//     override.
//
// The zero value is valid and resolves every namespace to its file metadata.
// A Pipeline is read, never written, by Resolve: it is safe for concurrent
// use as long as the caller does not modify it.
type Pipeline struct {
	Common     Metadata
	Operations []Operation
	Final      Metadata
}

// Result is the metadata of a resolved namespace, and where each key came
// from: Origin.Labels[k] and Origin.Annotations[k] name the step that last
// set the key: "common", "source", "from[2]" or "final".
type Result struct {
	Metadata
	Origin Metadata
}

// ValidateOperations checks every operation: strategy is required and must be
// Reset, Override or Merge; namespace is required and must be "*" or a
// DNS-1123 label; labels and annotations must pass [Metadata.Validate].
// Errors name fields under fldPath, the path of the list:
//
//	nsmeta.ValidateOperations(ops, field.NewPath("spec", "managedNamespaces", "metadata", "from"))
//	// spec.managedNamespaces.metadata.from[1].strategy: Unsupported value: "Replace": supported values: "Reset", "Override", "Merge"
//
// The list is sorted; it is empty when every operation is valid.
func ValidateOperations(ops []Operation, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, op := range ops {
		p := fldPath.Index(i)
		switch op.Strategy {
		case Reset, Override, Merge:
		case "":
			errs = append(errs, field.Required(p.Child("strategy"), `must be "Reset", "Override" or "Merge"`))
		default:
			errs = append(errs, field.NotSupported(p.Child("strategy"), op.Strategy, strategies))
		}
		switch op.Namespace {
		case AllNamespaces:
		case "":
			errs = append(errs, field.Required(p.Child("namespace"), `must be "*" or a namespace name`))
		default:
			for _, msg := range apivalidation.ValidateNamespaceName(op.Namespace, false) {
				errs = append(errs, field.Invalid(p.Child("namespace"), op.Namespace, msg))
			}
		}
		errs = append(errs, op.Metadata.Validate(p)...)
	}
	return sortErrors(errs)
}

// Resolve builds the metadata of namespace from fromSource, the validated
// metadata of its NamespaceMetadata file (the zero Metadata when it has
// none), through the four steps of [Pipeline]. It neither modifies its inputs
// nor returns maps that share storage with them; its result depends only on
// its inputs. The maps of the result are never nil.
//
//	r, err := p.Resolve("tenant-a", fromFile)
//	r.Labels["tier"]        // "silver"
//	r.Origin.Labels["tier"] // "from[2]"
//
// Resolve is meant to run for every namespace on every reconcile, so it
// checks only what would change its meaning: an operation without a valid
// strategy or without a namespace is an error wrapping ErrInvalidPipeline
// that lists every problem of every operation, with paths from[i].strategy.
// It does not check label and annotation syntax: run [Metadata.Validate] on
// Common and Final and [ValidateOperations] on Operations once, before
// resolving many namespaces. Nor does it check namespace: that is
// [NamePolicy.Check]'s job. A result carrying a non-empty
// ExternalFinalizerAnnotation is an error wrapping ErrReservedAnnotation whose
// field path names the step that set it (from[1].annotations[...]).
// Both errors are *ValidationError values.
func (p Pipeline) Resolve(namespace string, fromSource Metadata) (Result, error) {
	for _, op := range p.Operations {
		if op.Namespace == "" || (op.Strategy != Reset && op.Strategy != Override && op.Strategy != Merge) {
			return Result{}, invalid(ErrInvalidPipeline, ValidateOperations(p.Operations, field.NewPath("from")))
		}
	}

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
	r.override(p.Common, OriginCommon)
	r.override(fromSource, OriginSource)
	for i, op := range p.Operations {
		if op.Namespace != AllNamespaces && op.Namespace != namespace {
			continue
		}
		origin := fromOrigin(i)
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
	r.override(p.Final, OriginFinal)

	if r.Annotations[ExternalFinalizerAnnotation] != "" {
		origin := r.Origin.Annotations[ExternalFinalizerAnnotation]
		return Result{}, invalid(ErrReservedAnnotation, field.ErrorList{field.Forbidden(
			field.NewPath(origin).Child("annotations").Key(ExternalFinalizerAnnotation),
			"the key is reserved for external finalizers, which set it on the live namespace; the generator's desired metadata must not set it",
		)})
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

// fromOrigins holds the origins of the first operations, so that resolving
// does not format them for every key of every namespace.
var fromOrigins = func() (o [32]string) {
	for i := range o {
		o[i] = "from[" + strconv.Itoa(i) + "]"
	}
	return o
}()

// fromOrigin returns the origin of the operation at index i: "from[i]".
func fromOrigin(i int) string {
	if i < len(fromOrigins) {
		return fromOrigins[i]
	}
	return "from[" + strconv.Itoa(i) + "]"
}
