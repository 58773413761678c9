package generator

import (
	"cmp"
	"encoding/json"
	"fmt"
	"hash/adler32"
	"maps"
	"slices"
	"strconv"

	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/tenantkit/tenantkit/internal/exportedinputs"
)

// ReadExportedInputs reads an ExternalArtifact's status.exportedInputs, the other half of
// [Artifact.Inputs]: data is its JSON, an object of input names to values; the result maps each
// name to its value as compact JSON: an empty, non-nil map when the field is absent, empty or null.
//
// It applies the plan's rules for an exported inputsFrom file, from one definition, so that
// whatever a plan exports reads back the same: at most 1 MiB of JSON (compact, as a Kubernetes
// client sends it; indented text may be refused), each name at most once in its object at every
// depth, nested at most 10,000 deep, valid UTF-8. Values stay JSON text, so a number keeps
// every digit. The error names the input and the offset where a rule broke, for example
//
//	input "image": name "tag" must be listed once in its object, found again at offset 20
//
// With a controller-runtime client, read the field as raw JSON where you can. An
// unstructured.Unstructured has decoded it already, keeping the last of two equal names and
// turning numbers into int64 or float64, so its JSON is checked as it was kept:
//
//	v, _, _ := unstructured.NestedFieldNoCopy(ea.Object, "status", "exportedInputs")
//	data, err := json.Marshal(v)
//	inputs, err := generator.ReadExportedInputs(data)
func ReadExportedInputs(data []byte) (map[string]json.RawMessage, error) {
	return exportedinputs.Decode(data)
}

// ExternalArtifactInputs is what a ResourceSetInputProvider of type ExternalArtifact reads of
// one ExternalArtifact it selected, for [ProviderInputs].
type ExternalArtifactInputs struct {
	// Namespace and Name are the ExternalArtifact's.
	Namespace string
	Name      string
	// Labels are its metadata.labels.
	Labels map[string]string
	// Revision is its status.artifact.revision; empty when it has none.
	Revision string
	// ExportedInputs is its status.exportedInputs JSON ([ReadExportedInputs]); empty when none.
	ExportedInputs json.RawMessage
}

// ProviderInput is the input set that [ProviderInputs] makes of one ExternalArtifact: one
// element of a ResourceSetInputProvider's status.exportedInputs.
type ProviderInput struct {
	// Namespace and Name are the ExternalArtifact's.
	Namespace string
	Name      string
	// Inputs maps each input name to its value as compact JSON.
	Inputs map[string]json.RawMessage
	// Overridden lists, sorted, the exported inputs the provider's own replaced with another
	// value (not with the same, as the artifact's own "namespace"): a warning for their author.
	Overridden []string
}

// ProviderInputs makes the input sets that a ResourceSetInputProvider of type ExternalArtifact
// exports for the ExternalArtifacts it selected: each one's exported inputs with the provider's
// own merged on top, for they need priority; they are what flux-operator's provider exports
// today: the artifact's labels, then
//
//	id         adler32 of "<namespace>/<name>", in decimal, as flux-operator's inputs.ID
//	name       the artifact's name
//	namespace  the artifact's namespace
//	revision   status.artifact.revision, when it is set
//
// each a JSON string; a later one replaces an earlier one of the same name (a label "name"
// gives way to the artifact's name), and each exported input they replace with another value
// is listed in the set's Overridden. The sets come sorted by namespace, then name, as
// flux-operator sorts the artifacts before its filter's limit: apply the limit to the result.
// An artifact listed twice (two selectors match it) counts once, as the first listed.
//
// Every artifact must have a namespace that is a DNS-1123 label, a name that is a DNS-1123
// subdomain, valid labels and exported inputs that [ReadExportedInputs] accepts. Otherwise
// ProviderInputs returns no sets and every problem, at "artifacts[i]" in the order given: were
// the others exported alone, a ResourceSet would delete what it rendered for the missing one.
// Nothing is modified.
//
// For flux-operator, each set becomes a ResourceSetInput with its defaults:
//
//	m := make(map[string]any, len(set.Inputs))
//	for k, v := range set.Inputs {
//		m[k] = v
//	}
//	input, err := fluxcdv1.NewResourceSetInput(defaults, m)
func ProviderInputs(artifacts []ExternalArtifactInputs) ([]ProviderInput, field.ErrorList) {
	var errs field.ErrorList
	seen := make(map[[2]string]bool, len(artifacts))
	sets := make([]ProviderInput, 0, len(artifacts))
	for i, a := range artifacts {
		p := field.NewPath("artifacts").Index(i)
		key := [2]string{a.Namespace, a.Name}
		if seen[key] {
			continue
		}
		seen[key] = true
		set, aerrs := providerInput(p, a)
		if errs = append(errs, aerrs...); len(aerrs) == 0 {
			sets = append(sets, set)
		}
	}
	if len(errs) > 0 {
		return nil, errs
	}
	slices.SortFunc(sets, func(a, b ProviderInput) int {
		return cmp.Or(cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.Name, b.Name))
	})
	return sets, nil
}

// providerInput merges one artifact's inputs, or reports its problems at p.
func providerInput(p *field.Path, a ExternalArtifactInputs) (ProviderInput, field.ErrorList) {
	var errs field.ErrorList
	for _, msg := range validation.IsDNS1123Label(a.Namespace) {
		errs = append(errs, field.Invalid(p.Child("namespace"), a.Namespace, msg))
	}
	for _, msg := range validation.IsDNS1123Subdomain(a.Name) {
		errs = append(errs, field.Invalid(p.Child("name"), a.Name, msg))
	}
	errs = append(errs, metav1validation.ValidateLabels(a.Labels, p.Child("labels"))...)
	inputs, err := ReadExportedInputs(a.ExportedInputs)
	if err != nil {
		errs = append(errs, field.Invalid(p.Child("exportedInputs"), field.OmitValueType{},
			fmt.Sprintf("ExternalArtifact %s/%s: %v", a.Namespace, a.Name, err)))
	}
	if len(errs) > 0 {
		return ProviderInput{}, errs
	}

	own := make(map[string]string, len(a.Labels)+4)
	maps.Copy(own, a.Labels)
	own["id"] = strconv.FormatUint(uint64(adler32.Checksum([]byte(a.Namespace+"/"+a.Name))), 10)
	own["name"] = a.Name
	own["namespace"] = a.Namespace
	if a.Revision != "" {
		own["revision"] = a.Revision
	}
	set := ProviderInput{Namespace: a.Namespace, Name: a.Name, Inputs: inputs}
	for k, v := range own {
		if old, ok := inputs[k]; ok && !isJSONString(old, v) {
			set.Overridden = append(set.Overridden, k)
		}
		js, _ := json.Marshal(v) // a string always encodes
		inputs[k] = js
	}
	slices.Sort(set.Overridden)
	return set, nil
}

// isJSONString reports whether js is the JSON of the string s.
func isJSONString(js json.RawMessage, s string) bool {
	var v string
	return len(js) > 0 && js[0] == '"' && json.Unmarshal(js, &v) == nil && v == s
}
