package generator

import (
	"bytes"
	"encoding/json"
	"fmt"

	"sigs.k8s.io/yaml"

	"github.com/tenantkit/tenantkit/internal/exportedinputs"
	"github.com/tenantkit/tenantkit/internal/yamldoc"
)

// parseInputs reads an inputsFrom file: one YAML (or JSON) document that is
// a mapping. Each value is kept as JSON, as the ArtifactGenerator copies it
// to ExternalArtifact.status.exportedInputs. It is decoded by
// sigs.k8s.io/yaml alone, after yamldoc.Documents has bounded what its
// aliases expand to and split off empty documents. Duplicate keys are
// errors; an error's line is the file's. The JSON is then read as
// ReadExportedInputs reads the status (internal/exportedinputs' Decode):
// at most 1 MiB of it, nested at most 10,000 deep, so that the reader
// accepts whatever the writer exports.
//
// parseInputsFast reads the files of a common subset of YAML without the
// decoders, with the same results; parseInputsSlow reads every other one.
func parseInputs(data []byte) (map[string]json.RawMessage, error) {
	if inputs, ok := parseInputsFast(data); ok {
		return inputs, nil
	}
	return parseInputsSlow(data)
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
