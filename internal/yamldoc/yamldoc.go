package yamldoc

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	yamlv2 "go.yaml.in/yaml/v2"
)

// ErrMoreDocuments is returned by [Single] for a stream with a non-empty
// document after its first one.
var ErrMoreDocuments = errors.New("a non-empty YAML document follows the first one")

// Single returns nil when data holds at most one non-empty YAML document:
// empty documents (a stray "---", comments) do not count. It returns
// ErrMoreDocuments when a non-empty document, or text that is not YAML,
// follows the first one, and the decoder's error when the first document
// itself is not YAML.
//
// Documents are decoded into a *struct{}, which tells an empty document
// from a real one without building it: aliases are not expanded, and a
// document of any kind (mapping, list, scalar) counts the same. The
// decoder's bounds on aliases and nesting apply.
func Single(data []byte) (err error) {
	defer func() {
		// yaml/v2 reports errors by panicking and recovering internally;
		// a panic that escapes it is a bug in the parser, which hostile
		// input must not turn into a crash.
		if r := recover(); r != nil {
			err = fmt.Errorf("yaml: %v", r)
		}
	}()
	dec := yamlv2.NewDecoder(bytes.NewReader(data))
	for n := 0; ; n++ {
		var doc *struct{}
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if n > 0 && (err != nil || doc != nil) {
			return ErrMoreDocuments
		}
		// A document that is not a mapping fails to decode into a struct
		// but is read whole; any other error leaves the decoder unable to
		// go on (a further Decode panics), so it ends the stream.
		var typeErr *yamlv2.TypeError
		if err != nil && !errors.As(err, &typeErr) {
			return err
		}
	}
}
