package simpleyaml

import (
	"bytes"
	"slices"
	"strconv"
)

// MaxDepth bounds the nesting of the mappings that Parse reads; the
// decoders read deeper files.
const MaxDepth = 16

// Kind is the kind of a Node.
type Kind uint8

// The kinds of node.
const (
	Mapping Kind = iota + 1
	Sequence
	String
	Int
	Bool
	Null
)

// Node is a value of a file that Parse accepted. Its byte slices point
// into the file, or into constants for a boolean or null: read them, do
// not modify them.
type Node struct {
	Kind Kind
	// Text is a scalar: a string's content, an integer's digits, or the
	// JSON of a boolean or null ("true", "false", "null").
	Text []byte
	// Entries are a mapping's entries, sorted by key.
	Entries []Entry
	// Items are a sequence's items.
	Items []Node
}

// Entry is a key of a mapping and its value.
type Entry struct {
	Key   []byte
	Value Node
}

// Parse returns the mapping at the top of data, and false when data has
// another shape than the package's (see the package documentation).
func Parse(data []byte) (Node, bool) {
	if bytes.IndexByte(data, '&') >= 0 && bytes.IndexByte(data, '*') >= 0 {
		// It may hold an anchor and an alias, for yamldoc.CheckExpansion
		// to parse: no file that the check parses is read here.
		return Node{}, false
	}
	var p parser
	if !p.split(data) || len(p.lines) == 0 || p.lines[0].indent != 0 {
		return Node{}, false
	}
	top, ok := p.mapping(0)
	return top, ok && p.i == len(p.lines)
}

// AppendJSON appends n's JSON, as sigs.k8s.io/yaml writes it: compact, with
// the keys of each object sorted.
func (n Node) AppendJSON(b []byte) []byte {
	switch n.Kind {
	case Mapping:
		b = append(b, '{')
		for i, e := range n.Entries {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, '"')
			b = append(b, e.Key...)
			b = append(b, '"', ':')
			b = e.Value.AppendJSON(b)
		}
		return append(b, '}')
	case Sequence:
		b = append(b, '[')
		for i, v := range n.Items {
			if i > 0 {
				b = append(b, ',')
			}
			b = v.AppendJSON(b)
		}
		return append(b, ']')
	case String:
		b = append(b, '"')
		b = append(b, n.Text...)
		return append(b, '"')
	}
	return append(b, n.Text...)
}

// Any returns n as go.yaml.in/yaml/v2 decodes it into an interface value:
// map[any]any with string keys, []any, string, int (int64 when it does not
// fit an int), bool or nil.
func (n Node) Any() any {
	switch n.Kind {
	case Mapping:
		m := make(map[any]any, len(n.Entries))
		for _, e := range n.Entries {
			m[string(e.Key)] = e.Value.Any()
		}
		return m
	case Sequence:
		s := make([]any, len(n.Items))
		for i, v := range n.Items {
			s[i] = v.Any()
		}
		return s
	case String:
		return string(n.Text)
	case Int:
		v, _ := strconv.ParseInt(string(n.Text), 10, 64) // at most 18 digits
		if v == int64(int(v)) {
			return int(v)
		}
		return v
	case Bool:
		return n.Text[0] == 't'
	}
	return nil
}

type line struct {
	indent int
	text   []byte // after the indent and without trailing spaces; never empty
}

type parser struct {
	lines []line
	i     int // the next line
	depth int
}

// split records the lines that are not blank or comments, and reports
// false on a byte other than a newline and printable ASCII (the decoder
// refuses control characters even in comments), a document marker or a
// directive.
func (p *parser) split(data []byte) bool {
	lines := 1
	for _, b := range data {
		if b == '\n' {
			lines++
		} else if b < ' ' || b > '~' {
			return false
		}
	}
	// Sized for a usual file at once; a file of many blank or comment
	// lines does not reserve a line for each.
	p.lines = make([]line, 0, min(lines, 64))
	for len(data) > 0 {
		var l []byte
		l, data, _ = bytes.Cut(data, []byte{'\n'})
		text := bytes.TrimLeft(l, " ")
		indent := len(l) - len(text)
		text = bytes.TrimRight(text, " ")
		switch {
		case len(text) == 0 || text[0] == '#':
			continue
		case indent == 0 && (text[0] == '%' || bytes.HasPrefix(text, []byte("---")) || bytes.HasPrefix(text, []byte("..."))):
			return false
		}
		p.lines = append(p.lines, line{indent, text})
	}
	return true
}

// mapping reads a block mapping whose keys are indented by n.
func (p *parser) mapping(n int) (Node, bool) {
	var entries []Entry
	for p.i < len(p.lines) && p.lines[p.i].indent == n {
		key, rest, ok := splitKey(p.lines[p.i].text)
		if !ok {
			return Node{}, false
		}
		p.i++
		v, ok := p.value(rest, n)
		if !ok {
			return Node{}, false
		}
		entries = append(entries, Entry{key, v})
	}
	// A line indented more than the keys, and not part of a value, is a
	// continuation or an error: the decoder knows which.
	if len(entries) == 0 || p.i < len(p.lines) && p.lines[p.i].indent > n {
		return Node{}, false
	}
	// A key given twice is the decoder's error to report. Sorted, equal
	// keys are neighbours: finding them takes n log n comparisons, where
	// looking each key up among those before it took n²: 17 s for a 1 MiB
	// file of 100,000 short keys, 53-90 ms now (BenchmarkParse/keys=100000).
	slices.SortFunc(entries, func(a, b Entry) int { return bytes.Compare(a.Key, b.Key) })
	for i := 1; i < len(entries); i++ {
		if bytes.Equal(entries[i-1].Key, entries[i].Key) {
			return Node{}, false
		}
	}
	return Node{Kind: Mapping, Entries: entries}, true
}

// value reads the value of a key indented by n: rest, the text after the
// key's colon, or the nested block on the next lines when rest is empty.
func (p *parser) value(rest []byte, n int) (Node, bool) {
	if len(rest) > 0 {
		return scalar(rest)
	}
	if p.i == len(p.lines) {
		return Node{}, false // a key without a value
	}
	switch next := p.lines[p.i]; {
	case isItem(next.text) && next.indent >= n:
		return p.sequence(next.indent)
	case next.indent > n:
		if p.depth++; p.depth > MaxDepth {
			return Node{}, false
		}
		m, ok := p.mapping(next.indent)
		p.depth--
		return m, ok
	}
	return Node{}, false
}

// sequence reads the scalar items of a block sequence indented by m.
func (p *parser) sequence(m int) (Node, bool) {
	var items []Node
	for p.i < len(p.lines) && p.lines[p.i].indent == m && isItem(p.lines[p.i].text) {
		item, ok := scalar(bytes.TrimLeft(p.lines[p.i].text[1:], " "))
		if !ok {
			return Node{}, false
		}
		p.i++
		items = append(items, item)
	}
	return Node{Kind: Sequence, Items: items}, p.i == len(p.lines) || p.lines[p.i].indent <= m
}

func isItem(text []byte) bool { return len(text) > 1 && text[0] == '-' && text[1] == ' ' }

// splitKey splits "key: rest" or "key:", and reports false for a key
// outside the package's shape.
func splitKey(text []byte) (key, rest []byte, ok bool) {
	const maxKey = 128 // the decoder refuses simple keys longer than 1,024 bytes
	i := 0
	for i < len(text) && i <= maxKey && isKeyByte(text[i]) {
		i++
	}
	key = text[:i]
	if i == 0 || i > maxKey || !isLetter(key[0]) || word(key) != nil || i == len(text) || text[i] != ':' {
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

// scalar reads a scalar: the rest of a line, without its indent and
// trailing spaces.
func scalar(s []byte) (Node, bool) {
	switch c := s[0]; {
	case c == '"' || c == '\'':
		end := bytes.IndexByte(s[1:], c) + 1
		if end == 0 || !blankOrComment(s[end+1:]) || bytes.ContainsAny(s[1:end], `\"<>&`) {
			return Node{}, false
		}
		return Node{Kind: String, Text: s[1:end]}, true
	case c == '[' || c == '{':
		if len(s) < 2 || s[1] != c+2 || !blankOrComment(s[2:]) { // ']' and '}' follow '[' and '{' by two
			return Node{}, false
		}
		if c == '[' {
			return Node{Kind: Sequence}, true
		}
		return Node{Kind: Mapping}, true
	}
	if i := bytes.Index(s, []byte(" #")); i >= 0 {
		s = bytes.TrimRight(s[:i], " ")
	}
	if isLetter(s[0]) {
		for i, b := range s {
			if !isKeyByte(b) && b != ' ' && b != '@' && (b != ':' || i+1 == len(s) || s[i+1] == ' ') {
				return Node{}, false
			}
		}
		if w := word(s); w != nil {
			if w[0] == 'n' {
				return Node{Kind: Null, Text: w}, true
			}
			return Node{Kind: Bool, Text: w}, true
		}
		return Node{Kind: String, Text: s}, true
	}
	digits := s
	if digits[0] == '-' {
		digits = digits[1:]
	}
	if len(digits) == 0 || len(digits) > 18 || digits[0] == '0' && len(s) > 1 {
		return Node{}, false
	}
	for _, b := range digits {
		if b < '0' || b > '9' {
			return Node{}, false
		}
	}
	return Node{Kind: Int, Text: s}, true
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

var trueJSON, falseJSON, nullJSON = []byte("true"), []byte("false"), []byte("null")

// word returns the JSON of a plain scalar that go.yaml.in/yaml/v2 resolves
// to a boolean or null (its resolve table), or nil.
func word(s []byte) []byte {
	switch string(s) {
	case "y", "Y", "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON":
		return trueJSON
	case "n", "N", "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF":
		return falseJSON
	case "null", "Null", "NULL":
		return nullJSON
	}
	return nil
}
