package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

// parseInputs reads an applier-inputs file: one YAML (or JSON) document that
// is a mapping. Each value is kept as JSON, as the ArtifactGenerator copies
// it to ExternalArtifact.status.exportedInputs. Duplicate keys are errors;
// yaml/v2's alias and depth limits bound the work.
func parseInputs(data []byte) (map[string]json.RawMessage, error) {
	br := bufioReaders.Get().(*bufio.Reader)
	br.Reset(bytes.NewReader(data))
	defer func() {
		br.Reset(nil)
		bufioReaders.Put(br)
	}()
	r := utilyaml.NewYAMLReader(br)
	var doc []byte
	for {
		raw, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		if len(bytes.TrimSpace(stripComments(raw))) == 0 {
			continue
		}
		if doc != nil {
			return nil, errors.New("must hold one YAML document, found more")
		}
		doc = raw
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

// bufioReaders recycles the readers of parseInputs, whose 4 KiB buffers
// were the largest allocation of a plan. The size stays bufio's default:
// the YAML reader's output depends on it (it drops an unterminated last
// line that ends exactly at the end of a buffer fill).
var bufioReaders = sync.Pool{New: func() any { return bufio.NewReader(nil) }}

// stripComments drops comment-only lines, so that a document of comments
// counts as empty.
func stripComments(doc []byte) []byte {
	var out []byte
	for line := range bytes.Lines(doc) {
		if t := bytes.TrimSpace(line); len(t) > 0 && t[0] != '#' {
			out = append(out, line...)
		}
	}
	return out
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
