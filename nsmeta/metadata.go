package nsmeta

import (
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/tenantkit/tenantkit/internal/errsort"
	"github.com/tenantkit/tenantkit/internal/quote"
)

// externalFinalizerAnnotation is finalizer.Annotation, copied as nsmeta imports no sibling but cel
// (generator's TestCompileRefusesExternalFinalizer checks they are equal).
const externalFinalizerAnnotation = "source.extensions.fluxcd.io/externalFinalizer"

// Metadata is the labels and annotations of a namespace. A nil map and an empty one mean the same
// everywhere in this package. The zero value is valid and empty.
type Metadata struct {
	Labels      map[string]string `json:"labels,omitempty"`
	Annotations map[string]string `json:"annotations,omitempty"`
}

// Validate checks every key and value with apimachinery's rules and returns the sorted list of
// errors, each at its key under fldPath, or nil: label keys are qualified names and label values
// at most 63 characters of [A-Za-z0-9_.-]; annotation keys are qualified names,
// case-insensitively, and all annotations together hold at most 256 KiB. A bad key or value shows
// its first 64 bytes.
//
//	m.Validate(field.NewPath("spec", "commonMetadata")) // spec.commonMetadata.labels[team]: Invalid value: ...
func (m Metadata) Validate(fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	labels := fldPath.Child("labels")
	for k, v := range m.Labels {
		p := labels.Key(k)
		// metav1validation.ValidateLabels per key, so that errors name the key.
		errs = append(errs, metav1validation.ValidateLabelName(k, p)...)
		for _, msg := range validation.IsValidLabelValue(v) {
			errs = append(errs, field.Invalid(p, v, msg))
		}
	}
	annotations := fldPath.Child("annotations")
	for _, fe := range apivalidation.ValidateAnnotations(m.Annotations, annotations) {
		// A bad key comes with the map as its field: move it to the key.
		if k, ok := fe.BadValue.(string); ok && fe.Type == field.ErrorTypeInvalid {
			fe.Field = annotations.Key(k).String()
		}
		errs = append(errs, fe)
	}
	for _, fe := range errs {
		if v, ok := fe.BadValue.(string); ok {
			fe.BadValue = quote.Value(v)
		}
	}
	return errsort.Sort(errs)
}
