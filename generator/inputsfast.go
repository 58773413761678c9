package generator

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"

	"github.com/tenantkit/tenantkit/internal/exportedinputs"
)

// parseInputsFast reads, without a YAML decoder, the inputs files tenants almost always write, and
// returns what parseInputsSlow returns for them, or false for any other file. It accepts, by line:
//
//	file     = { blank } mapping(n) { blank }     ; at least one key
//	mapping(n) = { n spaces, key ":" ( " " { " " } inline | [ comment ] EOL block(n) ) }
//	block(n) = sequence(m) with m >= n | mapping(m) with m > n
//	sequence(m) = { m spaces, "- " { " " } inline }
//	inline   = ( "[]" | "{}" | integer | quoted | plain ) [ comment ] EOL
//	key      = plain, at most 128 bytes
//	plain    = ( letter | "/" ) { letter | digit | "-" | "." | "_" | "/" }, not
//	           y, n, yes, no, on, off, true, false or null in any case
//	integer  = "0" | [ "-" ] ( "1" ... "9" ) { digit }, at most 15 digits
//	quoted   = '"' { safe } '"' | "'" { safe } "'"
//	safe     = printable ASCII but '"', "'", "\", "<", ">" and "&"
//	blank    = { " " } [ "#" { printable ASCII } ] EOL
//	comment  = " " { " " } "#" { printable ASCII }
//
// with every line of one mapping or sequence at the same indentation, each key once in its
// mapping, nesting at most maxFastDepth deep, and the JSON within exportedinputs.MaxBytes. There
// YAML 1.1 reads plain scalars as strings and integers as their digits, and nothing needs escaping
// in JSON (json.Marshal escapes "<", ">" and "&"), so the JSON is the text itself. Anything else
// (tabs, carriage returns, a BOM, other bytes, markers, directives, anchors, tags, flow content,
// floats, multi-line scalars, nulls) is left to the decoders, errors included. It spares a plan
// decoding every module's inputs file (BenchmarkPlan); FuzzParseInputsFast checks that
// parseInputsSlow returns the same map, byte for byte, and that the object is json.Marshal's.
func parseInputsFast(data []byte) (map[string]json.RawMessage, json.RawMessage, bool) {
	var p fastInputs
	for line := range bytes.Lines(data) {
		line = bytes.TrimSuffix(line, []byte("\n"))
		for _, c := range line {
			if c < ' ' || c > '~' {
				return nil, nil, false
			}
		}
		text := bytes.TrimLeft(line, " ")
		if len(text) > 0 && text[0] != '#' {
			p.lines = append(p.lines, fastLine{indent: len(line) - len(text), text: text})
		}
	}
	if len(p.lines) == 0 {
		return nil, nil, false
	}
	entries, ok := p.mapping(p.lines[0].indent, 1)
	if !ok || p.next < len(p.lines) {
		return nil, nil, false
	}
	size := 1 + len(entries) // "{", "}" and the commas
	for _, e := range entries {
		size += len(e.key) + 3 + len(e.value) // "key":value
	}
	if size > exportedinputs.MaxBytes {
		return nil, nil, false
	}
	// The object, as json.Marshal writes the map (entries sorted, nothing to escape), and the
	// values as parts of it: one allocation, held as long as the artifact.
	object := append(make([]byte, 0, size), '{')
	inputs := make(map[string]json.RawMessage, len(entries))
	for i, e := range entries {
		if i > 0 {
			object = append(object, ',')
		}
		object = append(append(append(object, '"'), e.key...), '"', ':')
		start := len(object)
		object = append(object, e.value...)
		inputs[e.key] = object[start:len(object):len(object)]
	}
	return inputs, append(object, '}'), true
}

// maxFastDepth bounds how deep parseInputsFast nests mappings, the file's counting one; a deeper
// file is left to the decoders.
const maxFastDepth = 16

// maxFastKey bounds a key: yaml/v2 refuses an implicit key of more than 1,024 bytes.
const maxFastKey = 128

type fastInputs struct {
	lines []fastLine // without blank lines and comments
	next  int        // the line to read next
}

// fastLine is a line with content: its text starts after its indentation.
type fastLine struct {
	indent int
	text   []byte
}

type fastEntry struct {
	key   string
	value []byte // JSON
}

// mapping reads a block mapping whose keys are indented by indent, and returns its entries sorted
// by key, as json.Marshal writes them.
func (p *fastInputs) mapping(indent, depth int) ([]fastEntry, bool) {
	var entries []fastEntry
	for p.next < len(p.lines) && p.lines[p.next].indent >= indent {
		l := p.lines[p.next]
		n := plainLen(l.text)
		if l.indent > indent || n == 0 || n > maxFastKey || n == len(l.text) || l.text[n] != ':' || special(l.text[:n]) {
			return nil, false
		}
		key, rest := string(l.text[:n]), l.text[n+1:]
		if len(rest) > 0 && rest[0] != ' ' {
			return nil, false
		}
		p.next++
		var value []byte
		var ok bool
		if rest = bytes.TrimLeft(rest, " "); len(rest) > 0 && rest[0] != '#' {
			value, ok = inlineValue(rest)
		} else {
			value, ok = p.block(indent, depth)
		}
		if !ok {
			return nil, false
		}
		entries = append(entries, fastEntry{key: key, value: value})
	}
	slices.SortFunc(entries, func(a, b fastEntry) int { return strings.Compare(a.key, b.key) })
	for i := 1; i < len(entries); i++ {
		if entries[i].key == entries[i-1].key {
			return nil, false
		}
	}
	return entries, true
}

// block reads the value of a key indented by indent with nothing after its ":": a sequence or a
// mapping on the following lines.
func (p *fastInputs) block(indent, depth int) ([]byte, bool) {
	if p.next == len(p.lines) || depth == maxFastDepth {
		return nil, false
	}
	l := p.lines[p.next]
	switch {
	case l.indent >= indent && bytes.HasPrefix(l.text, []byte("- ")):
		var list []byte
		for p.next < len(p.lines) && p.lines[p.next].indent == l.indent && bytes.HasPrefix(p.lines[p.next].text, []byte("- ")) {
			item, ok := inlineValue(bytes.TrimLeft(p.lines[p.next].text[2:], " "))
			if !ok {
				return nil, false
			}
			list = append(append(list, ','), item...)
			p.next++
		}
		list[0] = '['
		return append(list, ']'), true
	case l.indent > indent:
		entries, ok := p.mapping(l.indent, depth+1)
		if !ok {
			return nil, false
		}
		var obj []byte
		for _, e := range entries {
			obj = append(append(append(append(obj, ',', '"'), e.key...), '"', ':'), e.value...)
		}
		obj[0] = '{'
		return append(obj, '}'), true
	}
	return nil, false // null
}

// inlineValue returns the JSON of the value that starts text, the rest of its line, which may end
// in a comment.
func inlineValue(text []byte) ([]byte, bool) {
	if len(text) == 0 {
		return nil, false // null
	}
	var n int
	switch c := text[0]; {
	case c == '"' || c == '\'':
		n = 1
		for n < len(text) && text[n] >= ' ' && text[n] <= '~' && !strings.ContainsRune(`"'\<>&`, rune(text[n])) {
			n++
		}
		if n == len(text) || text[n] != c {
			return nil, false
		}
		n++
	case bytes.HasPrefix(text, []byte("[]")) || bytes.HasPrefix(text, []byte("{}")):
		n = 2
	case c == '-' || '0' <= c && c <= '9':
		n = intLen(text)
	default:
		if n = plainLen(text); special(text[:n]) {
			return nil, false
		}
	}
	if n == 0 || !isComment(text[n:]) {
		return nil, false
	}
	value := make([]byte, 0, n+2)
	switch c := text[0]; {
	case c == '"' || c == '\'':
		return append(append(append(value, '"'), text[1:n-1]...), '"'), true
	case c == '-' || c == '[' || c == '{' || '0' <= c && c <= '9':
		return append(value, text[:n]...), true
	}
	return append(append(append(value, '"'), text[:n]...), '"'), true
}

// plainLen returns the length of the plain scalar that starts text, or 0.
func plainLen(text []byte) int {
	if len(text) == 0 || !isLetter(text[0]) && text[0] != '/' {
		return 0
	}
	n := 1
	for n < len(text) && (isLetter(text[n]) || '0' <= text[n] && text[n] <= '9' || strings.IndexByte("-._/", text[n]) >= 0) {
		n++
	}
	return n
}

// intLen returns the length of the integer that starts text, or 0.
func intLen(text []byte) int {
	digits := bytes.TrimPrefix(text, []byte("-"))
	n := 0
	for n < len(digits) && '0' <= digits[n] && digits[n] <= '9' {
		n++
	}
	if n == 0 || n > 15 || digits[0] == '0' && (n > 1 || len(digits) < len(text)) {
		return 0 // none, too long, a leading zero, or -0
	}
	return len(text) - len(digits) + n
}

func isLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

// isComment reports whether rest, after a value, is spaces or a comment.
func isComment(rest []byte) bool {
	t := bytes.TrimLeft(rest, " ")
	return len(t) == 0 || t[0] == '#' && len(t) < len(rest)
}

// special reports whether YAML 1.1 could read the plain scalar s as a boolean or null.
func special(s []byte) bool {
	if len(s) > len("false") {
		return false
	}
	switch strings.ToLower(string(s)) {
	case "y", "n", "yes", "no", "on", "off", "true", "false", "null":
		return true
	}
	return false
}
