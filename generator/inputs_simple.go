package generator

import (
	"bytes"
	"encoding/json"
	"slices"
)

// simpleInputs reads the usual inputs file without a YAML decoder: a block
// mapping of block mappings, block sequences and scalars, such as
//
//	replicas: 2
//	dependsOn: []
//	image:
//	  repository: ghcr.io/example/payments-api # a comment
//	  tag: "1.8.2"
//
// It reports ok false for anything outside that shape, and parseInputs then
// reads the file with sigs.k8s.io/yaml, which also gives every error. So it
// only has to be exact on what it accepts: there, its result is byte for
// byte the decoder's (FuzzSimpleInputs checks that on every input it
// accepts). It accepts printable ASCII in lines indented with spaces:
//
//   - keys of ASCII letters, digits and "_-./", starting with a letter, not
//     one of YAML 1.1's boolean or null words, each once in its mapping;
//   - a nested mapping, indented more than its key, or a sequence of
//     scalars, indented at least as much ("- " items);
//   - scalars: "[]" and "{}"; quoted strings of printable ASCII without
//     escapes or the characters that JSON writes escaped ("<>&");
//     decimal integers of at most 18 digits without a leading zero; the
//     words that YAML 1.1 reads as booleans or null (true, yes, on, null
//     and their other spellings, not "~"); and plain strings of ASCII
//     letters, digits, spaces and "_-./:@" that start with a letter and
//     have no ": ";
//   - comment lines, blank lines and comments after a value;
//
// nesting at most 16 deep, and at least one key. Anything else: a document
// marker or directive, an anchor, alias, tag or block scalar, a flow
// collection that is not empty, a float, a timestamp, a key without a value,
// a string that needs an escape.
//
// A plan of 1,000 tenants spent 17% of its CPU time parsing its 3,000
// inputs files with sigs.k8s.io/yaml (about 12 µs each, in go.yaml.in/yaml's
// decoder, then a round trip through JSON); this reads them in about
// a tenth of that.
func simpleInputs(data []byte) (map[string]json.RawMessage, bool) {
	p := simpleParser{out: make([]byte, 0, len(data)+len(data)/2)}
	if !p.split(data) || len(p.lines) == 0 || p.lines[0].indent != 0 {
		return nil, false
	}
	entries, ok := p.mapping(0)
	if !ok || p.i != len(p.lines) {
		return nil, false
	}
	in := make(map[string]json.RawMessage, len(entries))
	for _, e := range entries {
		in[string(e.key)] = json.RawMessage(p.out[e.start:e.end:e.end])
	}
	return in, true
}

// simpleMaxDepth bounds the nesting that simpleInputs reads; the decoder
// reads deeper files.
const simpleMaxDepth = 16

type simpleLine struct {
	indent int
	text   []byte // after the indent; never empty
}

type simpleEntry struct {
	key        []byte
	start, end int // the value's JSON in out
}

type simpleParser struct {
	lines []simpleLine
	i     int    // the next line
	out   []byte // the JSON of every value
	depth int
}

// split records the lines that are not blank or comments, and reports
// false on a byte other than a newline and printable ASCII (the decoder
// refuses control characters even in comments), a document marker or a
// directive.
func (p *simpleParser) split(data []byte) bool {
	lines := 1
	for _, b := range data {
		if b == '\n' {
			lines++
		} else if b < ' ' || b > '~' {
			return false
		}
	}
	p.lines = make([]simpleLine, 0, lines)
	for len(data) > 0 {
		var line []byte
		line, data, _ = bytes.Cut(data, []byte{'\n'})
		text := bytes.TrimLeft(line, " ")
		indent := len(line) - len(text)
		text = bytes.TrimRight(text, " ")
		switch {
		case len(text) == 0 || text[0] == '#':
			continue
		case indent == 0 && (text[0] == '%' || bytes.HasPrefix(text, []byte("---")) || bytes.HasPrefix(text, []byte("..."))):
			return false
		}
		p.lines = append(p.lines, simpleLine{indent, text})
	}
	return true
}

// mapping reads the entries of a block mapping whose keys are indented by
// n, appending their values' JSON to out.
func (p *simpleParser) mapping(n int) ([]simpleEntry, bool) {
	var entries []simpleEntry
	for p.i < len(p.lines) && p.lines[p.i].indent == n {
		key, rest, ok := simpleKey(p.lines[p.i].text)
		if !ok || slices.ContainsFunc(entries, func(e simpleEntry) bool { return bytes.Equal(e.key, key) }) {
			return nil, false
		}
		p.i++
		start, ok := p.value(rest, n)
		if !ok {
			return nil, false
		}
		entries = append(entries, simpleEntry{key, start, len(p.out)})
	}
	// A line indented more than the keys, and not part of a value, is a
	// continuation or an error: the decoder knows which.
	if p.i < len(p.lines) && p.lines[p.i].indent > n {
		return nil, false
	}
	return entries, len(entries) > 0
}

// value reads the value of a key indented by n: rest, the text after the
// key's colon, or the nested block on the next lines when rest is empty.
// Its JSON is out[start:].
func (p *simpleParser) value(rest []byte, n int) (start int, ok bool) {
	start = len(p.out)
	if len(rest) > 0 {
		return start, p.scalar(rest)
	}
	if p.i == len(p.lines) {
		return 0, false // a key without a value
	}
	next := p.lines[p.i]
	switch {
	case isSimpleItem(next.text) && next.indent >= n:
		return start, p.sequence(next.indent)
	case next.indent > n:
		if p.depth++; p.depth > simpleMaxDepth {
			return 0, false
		}
		entries, ok := p.mapping(next.indent)
		if !ok {
			return 0, false
		}
		p.depth--
		// An object is written after its values, which stay where they
		// were read, with its keys sorted, as json.Marshal writes a map.
		slices.SortFunc(entries, func(a, b simpleEntry) int { return bytes.Compare(a.key, b.key) })
		start = len(p.out)
		p.out = append(p.out, '{')
		for i, e := range entries {
			if i > 0 {
				p.out = append(p.out, ',')
			}
			p.out = append(p.out, '"')
			p.out = append(p.out, e.key...)
			p.out = append(p.out, '"', ':')
			p.out = append(p.out, p.out[e.start:e.end]...)
		}
		p.out = append(p.out, '}')
		return start, true
	}
	return 0, false
}

// sequence reads the scalar items of a block sequence indented by m.
func (p *simpleParser) sequence(m int) bool {
	p.out = append(p.out, '[')
	for first := true; p.i < len(p.lines) && p.lines[p.i].indent == m && isSimpleItem(p.lines[p.i].text); first = false {
		item := bytes.TrimLeft(p.lines[p.i].text[1:], " ")
		p.i++
		if !first {
			p.out = append(p.out, ',')
		}
		if !p.scalar(item) {
			return false
		}
	}
	p.out = append(p.out, ']')
	return p.i == len(p.lines) || p.lines[p.i].indent <= m
}

func isSimpleItem(text []byte) bool { return len(text) > 1 && text[0] == '-' && text[1] == ' ' }

// simpleKey splits "key: rest" or "key:", and reports false for a key
// outside simpleInputs' shape.
func simpleKey(text []byte) (key, rest []byte, ok bool) {
	i := 0
	for i < len(text) && i <= 128 && isKeyByte(text[i]) {
		i++
	}
	key = text[:i]
	if i == 0 || i > 128 || !isLetter(key[0]) || yamlWord(key) != "" || i == len(text) || text[i] != ':' {
		return nil, nil, false
	}
	rest = text[i+1:]
	if len(rest) > 0 && rest[0] != ' ' {
		return nil, nil, false
	}
	rest = bytes.TrimLeft(rest, " ")
	if len(rest) > 0 && rest[0] == '#' {
		rest = nil
	}
	return key, rest, true
}

// scalar appends the JSON of a scalar, the rest of a line without its
// indent and trailing spaces.
func (p *simpleParser) scalar(s []byte) bool {
	switch c := s[0]; {
	case c == '"' || c == '\'':
		end := bytes.IndexByte(s[1:], c) + 1
		if end == 0 || !blankOrComment(s[end+1:]) {
			return false
		}
		for _, b := range s[1:end] {
			if b == '\\' || b == '"' || b == '<' || b == '>' || b == '&' {
				return false
			}
		}
		p.out = append(p.out, '"')
		p.out = append(p.out, s[1:end]...)
		p.out = append(p.out, '"')
		return true
	case c == '[' || c == '{':
		if len(s) < 2 || s[1] != c+2 || !blankOrComment(s[2:]) { // ']' and '}' follow '[' and '{' by two
			return false
		}
		p.out = append(p.out, c, c+2)
		return true
	}
	if i := bytes.Index(s, []byte(" #")); i >= 0 {
		s = bytes.TrimRight(s[:i], " ")
	}
	if isLetter(s[0]) {
		for i, b := range s {
			if !isKeyByte(b) && b != ' ' && b != '@' && (b != ':' || i+1 == len(s) || s[i+1] == ' ') {
				return false
			}
		}
		if w := yamlWord(s); w != "" {
			p.out = append(p.out, w...)
			return true
		}
		p.out = append(p.out, '"')
		p.out = append(p.out, s...)
		p.out = append(p.out, '"')
		return true
	}
	digits := s
	if digits[0] == '-' {
		digits = digits[1:]
	}
	if len(digits) == 0 || len(digits) > 18 || digits[0] == '0' && len(s) > 1 {
		return false
	}
	for _, b := range digits {
		if b < '0' || b > '9' {
			return false
		}
	}
	p.out = append(p.out, s...)
	return true
}

// blankOrComment reports whether s, after a value, is nothing or a comment.
func blankOrComment(s []byte) bool {
	t := bytes.TrimLeft(s, " ")
	return len(t) == 0 || t[0] == '#' && len(t) < len(s)
}

func isLetter(b byte) bool { return 'a' <= b|0x20 && b|0x20 <= 'z' }

func isKeyByte(b byte) bool {
	return isLetter(b) || '0' <= b && b <= '9' || b == '_' || b == '-' || b == '.' || b == '/'
}

// yamlWord returns the JSON of a plain scalar that go.yaml.in/yaml/v2
// resolves to a boolean or null (its resolve table), or "".
func yamlWord(s []byte) string {
	switch string(s) {
	case "y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON":
		return "true"
	case "n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF":
		return "false"
	case "null", "Null", "NULL":
		return "null"
	}
	return ""
}
