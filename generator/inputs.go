package generator

import (
	"bytes"
	"encoding/json"
	"fmt"

	"sigs.k8s.io/yaml"

	"github.com/tenantkit/tenantkit/internal/exportedinputs"
	"github.com/tenantkit/tenantkit/internal/yamldoc"
)

// parseInputs reads an inputsFrom file: one YAML (or JSON) document that is a mapping, each value
// kept as JSON, as the ArtifactGenerator copies it to ExternalArtifact.status.exportedInputs.
// parseInputsFast reads a common subset; parseInputsSlow decodes the rest with sigs.k8s.io/yaml,
// after yamldoc.Documents has bounded alias expansion and split off empty documents. Duplicate
// keys are errors, at the file's line. The JSON is read as ReadExportedInputs reads the status
// (exportedinputs.Decode: at most 1 MiB, nested at most 10,000 deep), so that the reader accepts
// whatever the writer exports. It returns the values by name and the object that json.Marshal
// writes of them, nil when there are none.
func parseInputs(data []byte) (map[string]json.RawMessage, json.RawMessage, error) {
	if inputs, object, ok := parseInputsFast(data); ok {
		return inputs, object, nil
	}
	inputs, err := parseInputsSlow(data)
	if err != nil || len(inputs) == 0 {
		return inputs, nil, err
	}
	object, err := json.Marshal(inputs)
	if err != nil {
		return nil, nil, err // not reached: the values are JSON
	}
	return inputs, object, nil
}

// parseInputsSlow is parseInputs with the decoders, for every file.
func parseInputsSlow(data []byte) (map[string]json.RawMessage, error) {
	docs, err := yamldoc.Documents(data)
	if err != nil {
		return nil, err
	}
	if len(docs) > 1 {
		return nil, fmt.Errorf("must hold one YAML document, found %d", len(docs))
	}
	if len(docs) == 0 {
		return map[string]json.RawMessage{}, nil
	}
	j, err := yaml.YAMLToJSONStrict(yamldoc.Aligned(data, docs[0]))
	if err != nil {
		return nil, err
	}
	if t := bytes.TrimSpace(j); len(t) == 0 || t[0] != '{' {
		return nil, fmt.Errorf("must be a YAML mapping of input names to values, not %s", jsonKind(t))
	}
	return exportedinputs.Decode(j)
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
