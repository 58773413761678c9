package main

import (
	"bytes"
	"encoding/json"
	"fmt"

	"sigs.k8s.io/yaml"
)

// parseInputs reads an applier-inputs file: one YAML (or JSON) document that
// is a mapping. Each value is kept as JSON, as the ArtifactGenerator copies
// it to ExternalArtifact.status.exportedInputs. Duplicate keys are errors;
// yaml/v2's alias and depth limits bound the work.
func parseInputs(data []byte) (map[string]json.RawMessage, error) {
	docs, err := yamlDocuments(data)
	if err != nil {
		return nil, err
	}
	if len(docs) > 1 {
		return nil, fmt.Errorf("must hold one YAML document, found %d", len(docs))
	}
	var doc []byte
	if len(docs) == 1 {
		doc = docs[0]
	}
	if doc == nil {
		return map[string]json.RawMessage{}, nil
	}
	j, err := yaml.YAMLToJSONStrict(doc)
	if err != nil {
		return nil, err
	}
	if t := bytes.TrimSpace(j); len(t) == 0 || t[0] != '{' {
		return nil, fmt.Errorf("must be a YAML mapping of input names to values, not %s", jsonKind(t))
	}
	var out map[string]json.RawMessage
	if err := json.Unmarshal(j, &out); err != nil {
		return nil, err
	}
	if out == nil {
		out = map[string]json.RawMessage{}
	}
	return out, nil
}

func jsonKind(j []byte) string {
	if len(j) == 0 {
		return "empty"
	}
	switch j[0] {
	case '[':
		return "a list"
	case '"':
		return "a string"
	case 'n':
		return "null"
	case 't', 'f':
		return "a boolean"
	default:
		return "a number"
	}
}
