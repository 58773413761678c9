package yamldoc

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	yamlv3 "go.yaml.in/yaml/v3"
)

// ErrMoreDocuments is returned by [Single] for a non-empty document after the first one.
var ErrMoreDocuments = errors.New("a non-empty YAML document follows the first one")

// Single returns nil when data holds at most one non-empty YAML document, its first (the one
// sigs.k8s.io/yaml decodes): empty documents (a stray "---", comments, null) after it do not
// count. It returns ErrMoreDocuments when a non-empty document, or text that is not YAML,
// follows the first one, and the parser's error when the first document itself is not YAML, or
// when the parser meets the bad text while it reads the first document (an unterminated
// string). Nothing is expanded, and the parser's bound on nesting applies, as in [CheckExpansion].
func Single(data []byte) (err error) {
	defer recoverParser(&err)
	dec := yamlv3.NewDecoder(bytes.NewReader(data))
	for n := 0; ; n++ {
		var doc yamlv3.Node
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if n > 0 && (err != nil || !isNull(&doc)) {
			return ErrMoreDocuments
		}
		if err != nil {
			// The parser cannot go on after an error.
			return err
		}
	}
}

// recoverParser, deferred, turns a panic that escapes the parser, its bug, into *err: hostile
// input must not make a crash.
func recoverParser(err *error) {
	if r := recover(); r != nil {
		*err = fmt.Errorf("yaml: %v", r)
	}
}

func isNull(doc *yamlv3.Node) bool {
	return doc.Kind == yamlv3.DocumentNode && len(doc.Content) == 1 &&
		doc.Content[0].Kind == yamlv3.ScalarNode && doc.Content[0].ShortTag() == "!!null"
}
