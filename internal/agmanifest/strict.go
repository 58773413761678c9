package agmanifest

import (
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"

	"github.com/tenantkit/tenantkit/internal/jsonfit"
	"github.com/tenantkit/tenantkit/internal/yamldoc"
)

// Parse reads one YAML or JSON document into the values encoding/json gives an any, numbers as
// json.Number. What is not one document is an error wrapping [ErrSyntax] in the file's words,
// not the YAML decoder's ("must be valid YAML: line 2: did not find expected node content").
//
//	doc, err := agmanifest.Parse(data)
func Parse(data []byte) (any, error) {
	docs, err := yamldoc.Documents(data)
	if err != nil {
		return nil, SyntaxError(err)
	}
	if len(docs) != 1 {
		return nil, newError(ErrSyntax, "", "the file must hold one YAML document, found %d", len(docs))
	}
	j, err := yaml.YAMLToJSONStrict(data)
	if err != nil {
		return nil, SyntaxError(err)
	}
	doc, err := jsonfit.Parse(j)
	if err != nil {
		// Not expected: the YAML decoder gave this JSON.
		return nil, newError(ErrSyntax, "", "the file must hold a YAML document")
	}
	return doc, nil
}

// SyntaxError returns the *Error wrapping ErrSyntax that reports err, an error of yamldoc's
// checks or of the YAML decoder, in the file's words (yamldoc.Detail); it unwraps to err too.
func SyntaxError(err error) *Error {
	return &Error{Err: ErrSyntax, Problems: []Problem{{Detail: yamldoc.Detail(err)}}, cause: err}
}

// Unmarshal decodes one YAML or JSON document strictly into the value that ptr points to:
// [Parse], then [Strict] at the document's root. ptr must be a non-nil pointer.
//
//	var suite struct{ Cases []struct{ Name string `json:"name"` } `json:"cases"` }
//	err := agmanifest.Unmarshal(data, &suite) // "cases[0].nmae: unknown field"
func Unmarshal(data []byte, ptr any) error {
	doc, err := Parse(data)
	if err != nil {
		return err
	}
	return Strict(doc, nil, ptr)
}

// Strict decodes v, a value as [Parse] returns it, into the value that ptr points to when v
// fits it (see the package documentation). Otherwise it decodes nothing and returns an error
// wrapping [ErrFields] with every problem, each at its path below path (nil for the root). A
// null leaves its target as it is, as in encoding/json. ptr must be a non-nil pointer.
func Strict(v any, path *field.Path, ptr any) error {
	return problems(jsonfit.Decode(v, path, ptr, jsonfit.RefuseUnknown)).err()
}

// JSONKind names the YAML type of a value as [Parse] returns it, as jsonfit.Kind does ("a mapping").
func JSONKind(v any) string { return jsonfit.Kind(v) }
