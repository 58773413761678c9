package generator

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"sigs.k8s.io/yaml"

	"github.com/tenantkit/tenantkit/internal/exportedinputs"
	"github.com/tenantkit/tenantkit/internal/yamldoc"
)

// parseInputs reads an inputsFrom file: one YAML (or JSON) document that is
// a mapping, each value kept as JSON, as the ArtifactGenerator copies it to
// ExternalArtifact.status.exportedInputs. parseInputsFast reads a common
// subset; parseInputsSlow decodes the rest with sigs.k8s.io/yaml, after
// yamldoc.Documents has bounded alias expansion and split off empty
// documents. Duplicate keys are errors, at the file's line. The JSON is
// read as ReadExportedInputs reads the status (exportedinputs.Decode: at
// most 1 MiB, nested at most 10,000 deep), so that the reader accepts
// whatever the writer exports.
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

// inputsObject returns what json.Marshal writes of inputs that parseInputs
// returned, nil when there are none, without its reflection on every
// artifact: the names in byte order and the values as they are, compact
// and escaped alike (FuzzParseInputs checks that the two agree).
func inputsObject(inputs map[string]json.RawMessage) json.RawMessage {
	if len(inputs) == 0 {
		return nil
	}
	keys := slices.Sorted(maps.Keys(inputs))
	n := 1 // the braces and, for each input, its quotes, colon and comma
	for _, k := range keys {
		n += len(k) + len(inputs[k]) + 4
	}
	b := append(make([]byte, 0, n), '{')
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		if plainKey(k) {
			b = append(append(append(b, '"'), k...), '"')
		} else {
			q, _ := json.Marshal(k) // a string always encodes
			b = append(b, q...)
		}
		b = append(append(b, ':'), inputs[k]...)
	}
	return append(b, '}')
}

// plainKey reports whether json.Marshal writes k as it is between quotes:
// printable ASCII but the quote, the backslash and "<", ">" and "&".
func plainKey(k string) bool {
	for i := 0; i < len(k); i++ {
		switch c := k[i]; {
		case c < 0x20, c >= 0x7f, c == '"', c == '\\', c == '<', c == '>', c == '&':
			return false
		}
	}
	return true
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
