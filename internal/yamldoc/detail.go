package yamldoc

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	yamlv2 "go.yaml.in/yaml/v2"
)

// Detail returns what err says is wrong with a YAML stream, in the stream's words, for a
// message that names the file before it:
//
//	must be valid YAML: line 3: did not find expected node content
//
// err is an error of this package's checks, whose text Detail returns, or of a YAML decoder:
// go.yaml.in/yaml v2 or v3, alone or under sigs.k8s.io/yaml. go.yaml.in/yaml reports a syntax
// error only as text, so its "yaml: " is cut from that text, here and nowhere else in the
// module; sigs.k8s.io/yaml's "error converting YAML to JSON: " is left behind by unwrapping;
// this package's "document 2: " is kept. A [json.UnsupportedValueError] is a number JSON
// cannot hold (.inf, .nan); a mapping key that is a mapping or a sequence is named as such.
//
//	fmt.Sprintf("%s: %s", file, yamldoc.Detail(err))
func Detail(err error) string {
	if de, ok := errors.AsType[*documentError](err); ok {
		return fmt.Sprintf("document %d: %s", de.n, Detail(de.err))
	}
	if te, ok := errors.AsType[*yamlv2.TypeError](err); ok {
		return "must be valid YAML: " + strings.Join(te.Errors, "; ")
	}
	if ue, ok := errors.AsType[*json.UnsupportedValueError](err); ok {
		return fmt.Sprintf("must hold only finite numbers, not %s (.inf or .nan); quote a value that is text", ue.Str)
	}
	inner := err
	for u := errors.Unwrap(inner); u != nil; u = errors.Unwrap(inner) {
		inner = u
	}
	text, decoder := strings.CutPrefix(inner.Error(), "yaml: ")
	if !decoder {
		return err.Error() // this package's words
	}
	if strings.HasPrefix(text, "invalid map key: ") {
		// yaml/v2 quotes the key as a Go value ("[]interface {}{...}").
		text = "a mapping key must be a scalar, not a mapping or a sequence"
	}
	return "must be valid YAML: " + text
}

// A documentError is an error of one document of a stream, which [Documents] names by its
// number, from 1, since the error's own line is counted from the document's start.
type documentError struct {
	n   int
	err error
}

func (e *documentError) Error() string { return fmt.Sprintf("document %d: %v", e.n, e.err) }

func (e *documentError) Unwrap() error { return e.err }
