package nsmeta

import (
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/tenantkit/tenantkit/internal/quote"
)

// externalFinalizerAnnotation is the annotation through which an external
// finalizer (a ResourceSet) takes over the deletion of a namespace. The
// generator's own desired state must never set it, or it could hand off a
// namespace to itself and leak it. It is finalizer.Annotation, the one
// exported name of the key, copied here because nsmeta imports no sibling
// but cel; package generator's TestCompileRefusesExternalFinalizer checks
// that the two are equal.
const externalFinalizerAnnotation = "source.extensions.fluxcd.io/externalFinalizer"

// Metadata is the labels and annotations of a namespace. A nil map and an
// empty one mean the same thing everywhere in this package. The zero value
// is valid and empty.
type Metadata struct {
	Labels      map[string]string `json:"labels,omitempty"`
	Annotations map[string]string `json:"annotations,omitempty"`
}

// Validate checks every key and value with apimachinery's rules: label keys
// are qualified names and label values at most 63 characters of
// [A-Za-z0-9_.-] (metav1validation.ValidateLabelName,
// validation.IsValidLabelValue); annotation keys are qualified names,
// case-insensitively, and all annotations together hold at most 256 KiB
// (apivalidation.ValidateAnnotations). Errors name the key under fldPath:
//
//	m.Validate(field.NewPath("spec", "commonMetadata")) // spec.commonMetadata.labels[team]: Invalid value: ...
//
// A bad key or value is shown by its first 64 bytes when it is longer. The
// list is sorted; it is nil when m is valid.
func (m Metadata) Validate(fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	labels := fldPath.Child("labels")
	for k, v := range m.Labels {
		p := labels.Key(k)
		// The two halves of metav1validation.ValidateLabels, called per key
		// so that each error names its key rather than the whole map.
		errs = append(errs, metav1validation.ValidateLabelName(k, p)...)
		for _, msg := range validation.IsValidLabelValue(v) {
			errs = append(errs, field.Invalid(p, v, msg))
		}
	}
	annotations := fldPath.Child("annotations")
	for _, fe := range apivalidation.ValidateAnnotations(m.Annotations, annotations) {
		// ValidateAnnotations reports a bad key with the key as the value and
		// the map as the field: move it to the key.
		if k, ok := fe.BadValue.(string); ok && fe.Type == field.ErrorTypeInvalid {
			fe.Field = annotations.Key(k).String()
		}
		errs = append(errs, fe)
	}
	for _, fe := range errs {
		// Show a long bad key or value by its first 64 bytes.
		if v, ok := fe.BadValue.(string); ok {
			fe.BadValue = quote.Value(v)
		}
	}
	return sortErrors(errs)
}
