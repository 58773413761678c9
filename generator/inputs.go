package generator

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"

	"github.com/tenantkit/tenantkit/internal/yamldoc"
)

// parseInputs reads an inputsFrom file: one YAML (or JSON) document that is
// a mapping. Each value is kept as JSON, as the ArtifactGenerator copies it
// to ExternalArtifact.status.exportedInputs. Duplicate keys are errors; the
// YAML decoder's alias and depth limits bound the work.
func parseInputs(data []byte) (map[string]json.RawMessage, error) {
	docs, err := yamlDocuments(data)
	if err != nil {
		return nil, err
	}
	if len(docs) > 1 {
		return nil, fmt.Errorf("must hold one YAML document, found %d", len(docs))
	}
	if len(docs) == 0 {
		return map[string]json.RawMessage{}, nil
	}
	j, err := yaml.YAMLToJSONStrict(docs[0])
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

// yamlDocuments splits a YAML stream into its documents, leaving out empty
// ones (separators, comments). A "..." end marker inside a piece would make
// a YAML decoder read the first document and silently drop the rest, so a
// piece holding more than one document is an error.
func yamlDocuments(data []byte) ([][]byte, error) {
	var src io.Reader = bytes.NewReader(data)
	if len(data) > 0 && data[len(data)-1] != '\n' {
		// The YAML reader drops a last line that has no newline and ends
		// exactly where a fill of the bufio buffer ends. It ends every line
		// it returns with a newline anyway, so adding one changes no
		// document.
		src = io.MultiReader(src, strings.NewReader("\n"))
	}
	// A buffer the size of a small file, not bufio's 4 KiB default: inputs
	// files are a few hundred bytes, and a plan reads one per artifact.
	r := utilyaml.NewYAMLReader(bufio.NewReaderSize(src, min(len(data)+1, 4096)))
	var docs [][]byte
	for {
		raw, err := r.Read()
		if errors.Is(err, io.EOF) {
			return docs, nil
		}
		if err != nil {
			return nil, err
		}
		if len(bytes.TrimSpace(stripComments(raw))) == 0 {
			continue
		}
		if hasEndMarker(raw) {
			if err := yamldoc.Single(raw); errors.Is(err, yamldoc.ErrMoreDocuments) {
				return nil, fmt.Errorf(`document %d: must not hold a second YAML document after a "..." end marker`, len(docs)+1)
			} else if err != nil {
				return nil, fmt.Errorf("document %d: %w", len(docs)+1, err)
			}
		}
		docs = append(docs, raw)
	}
}

// hasEndMarker reports whether doc has a "..." document end marker line.
func hasEndMarker(doc []byte) bool {
	for line := range bytes.Lines(doc) {
		if bytes.HasPrefix(line, []byte("...")) {
			return true
		}
	}
	return false
}

// stripComments drops comment-only lines and document markers, so that a
// piece of separators and comments counts as empty.
func stripComments(doc []byte) []byte {
	var out []byte
	for line := range bytes.Lines(doc) {
		t := bytes.TrimSpace(line)
		if len(t) == 0 || t[0] == '#' || bytes.Equal(t, []byte("---")) || bytes.Equal(t, []byte("...")) {
			continue
		}
		out = append(out, line...)
	}
	return out
}
