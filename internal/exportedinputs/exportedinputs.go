package exportedinputs

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"unicode/utf8"
)

const (
	// MaxBytes bounds the JSON of the whole object, as [Encode] writes it (package doc, "Bounds").
	MaxBytes = 1 << 20

	// MaxDepth bounds how deep values nest, the object counting one (package doc, "Bounds").
	MaxDepth = 10000
)

const jsonSpace = " \t\r\n" // RFC 8259's whitespace, narrower than Unicode's

// quoteLimit is how many bytes of a name a message quotes: names are hostile input.
const quoteLimit = 64

// Decode reads the JSON of a status.exportedInputs object (see the package documentation for
// the rules). It returns a new, non-nil map, empty for no inputs, whose values are compact
// copies of the text, sharing no memory with data, or nil and an error naming the rule broken.
//
//	inputs, err := exportedinputs.Decode([]byte(`{"replicas":3,"image":{"tag":"1.8.2"}}`))
func Decode(data []byte) (map[string]json.RawMessage, error) {
	if len(data) > MaxBytes {
		return nil, fmt.Errorf("must be no more than %d bytes of JSON, not %d", MaxBytes, len(data))
	}
	if t := bytes.Trim(data, jsonSpace); len(t) == 0 || string(t) == "null" {
		return map[string]json.RawMessage{}, nil
	}
	if i := invalidUTF8(data); i >= 0 {
		return nil, fmt.Errorf("must be valid UTF-8: invalid byte at offset %d", i)
	}
	if t := bytes.TrimLeft(data, jsonSpace); t[0] != '{' {
		if k := kind(t); k != "" {
			return nil, fmt.Errorf("must be a JSON object of input names to values, not %s", k)
		}
		return nil, fmt.Errorf("must be a JSON object of input names to values: invalid JSON at offset %d", len(data)-len(t))
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if _, err := dec.Token(); err != nil { // "{"
		return nil, syntaxError("", data, 0, err)
	}
	out := map[string]json.RawMessage{}
	var buf bytes.Buffer
	for dec.More() {
		before := dec.InputOffset()
		tok, err := dec.Token()
		if err != nil {
			return nil, syntaxError("", data, before, err)
		}
		name, _ := tok.(string) // the decoder reads nothing else as a name
		if _, dup := out[name]; dup {
			return nil, fmt.Errorf("input %s: must be listed once, found again at offset %d", quote(name), tokenStart(data, before))
		}
		start := dec.InputOffset()
		if err := skipValue(dec, data, name); err != nil {
			return nil, err
		}
		raw := data[tokenStart(data, start):dec.InputOffset()]
		buf.Reset()
		if err := json.Compact(&buf, raw); err != nil {
			return nil, syntaxError(name, data, start, err)
		}
		out[name] = bytes.Clone(buf.Bytes())
	}
	before := dec.InputOffset()
	if _, err := dec.Token(); err != nil { // "}"
		return nil, syntaxError("", data, before, err)
	}
	before = dec.InputOffset()
	switch _, err := dec.Token(); {
	case err == io.EOF:
	case err != nil:
		return nil, syntaxError("", data, before, err)
	default:
		return nil, fmt.Errorf("must hold one JSON value, found another at offset %d", tokenStart(data, before))
	}
	return out, nil
}

// Encode returns the JSON of inputs as a Kubernetes client sends it and [MaxBytes] measures
// it: compact, names in byte order, "<", ">" and "&" escaped; an error when a value is not JSON
// or the text is longer than MaxBytes. Decode(Encode(in)) returns in, its values compacted.
func Encode(inputs map[string]json.RawMessage) ([]byte, error) {
	if inputs == nil {
		inputs = map[string]json.RawMessage{}
	}
	b, err := json.Marshal(inputs)
	if err != nil {
		return nil, err
	}
	if len(b) > MaxBytes {
		return nil, fmt.Errorf("must be no more than %d bytes of JSON, not %d", MaxBytes, len(b))
	}
	return b, nil
}

type level struct {
	object  bool
	wantKey bool                // an object's next token is a name or "}"
	names   map[string]struct{} // an object's names so far
}

// skipValue reads the tokens of input name's value, checking its depth and names, with a stack
// so that its own depth does not grow with the value's.
func skipValue(dec *json.Decoder, data []byte, name string) error {
	var stack []level
	for {
		before := dec.InputOffset()
		tok, err := dec.Token()
		if err != nil {
			return syntaxError(name, data, before, err)
		}
		if n := len(stack); n > 0 && stack[n-1].wantKey {
			if key, ok := tok.(string); ok {
				top := &stack[n-1]
				if _, dup := top.names[key]; dup {
					return fmt.Errorf("input %s: name %s must be listed once in its object, found again at offset %d",
						quote(name), quote(key), tokenStart(data, before))
				}
				if top.names == nil {
					top.names = map[string]struct{}{}
				}
				top.names[key] = struct{}{}
				top.wantKey = false
				continue
			}
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			// The object of inputs is the first level; its values the second.
			if depth := len(stack) + 2; depth > MaxDepth {
				return fmt.Errorf("input %s: must be nested no more than %d deep, found %d at offset %d",
					quote(name), MaxDepth, depth, tokenStart(data, before))
			}
			isObject := tok == json.Delim('{')
			stack = append(stack, level{object: isObject, wantKey: isObject})
			continue
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
		}
		// A value is complete: the input's own, or one inside it.
		if len(stack) == 0 {
			return nil
		}
		if top := &stack[len(stack)-1]; top.object {
			top.wantKey = true
		}
	}
}

// syntaxError words a decoder error about the token after offset before, with its offset in data.
func syntaxError(name string, data []byte, before int64, err error) error {
	var se *json.SyntaxError
	switch {
	case errors.As(err, &se):
		err = fmt.Errorf("invalid JSON at offset %d: %s", tokenStart(data, before), se.Error())
	case err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF):
		err = errors.New("invalid JSON: unexpected end")
	}
	if name == "" {
		return err
	}
	return fmt.Errorf("input %s: %w", quote(name), err)
}

// tokenStart returns the offset of the token after off, past whitespace and one ":" or ",".
func tokenStart(data []byte, off int64) int {
	rest := bytes.TrimLeft(data[min(int(off), len(data)):], jsonSpace)
	if len(rest) > 0 && (rest[0] == ':' || rest[0] == ',') {
		rest = bytes.TrimLeft(rest[1:], jsonSpace)
	}
	return len(data) - len(rest)
}

func invalidUTF8(data []byte) int {
	for i := 0; i < len(data); {
		r, size := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && size == 1 {
			return i
		}
		i += size
	}
	return -1
}

// kind names the type of the JSON value that j starts with ("an object"), or "" for none.
func kind(j []byte) string {
	if len(j) == 0 {
		return ""
	}
	switch c := j[0]; {
	case c == '{':
		return "an object"
	case c == '[':
		return "a list"
	case c == '"':
		return "a string"
	case c == 'n':
		return "null"
	case c == 't' || c == 'f':
		return "a boolean"
	case c == '-' || '0' <= c && c <= '9':
		return "a number"
	}
	return ""
}

func quote(s string) string {
	if len(s) <= quoteLimit {
		return strconv.Quote(s)
	}
	return strconv.Quote(s[:quoteLimit]) + "... (" + strconv.Itoa(len(s)) + " bytes)"
}
