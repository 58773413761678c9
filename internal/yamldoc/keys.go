package yamldoc

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	yamlv2 "go.yaml.in/yaml/v2"
)

// ErrKeys is returned by [CheckKeys] for a stream with a mapping whose keys sigs.k8s.io/yaml
// cannot turn into distinct JSON keys.
var ErrKeys = errors.New("YAML mapping keys must stay distinct as JSON keys")

// checkStream runs [CheckExpansion] first, since [CheckKeys] may decode the stream, then CheckKeys.
func checkStream(data []byte) error {
	if err := CheckExpansion(data); err != nil {
		return err
	}
	return CheckKeys(data)
}

// CheckKeys returns nil when every mapping of the YAML stream in data has keys that
// sigs.k8s.io/yaml turns into distinct JSON keys. It returns an error wrapping ErrKeys that
// names the line of a key, the key, the other key and the JSON key they share, such as
//
//	YAML mapping keys must stay distinct as JSON keys: line 2: key "1" and key 1 (an integer) of line 1 both become the JSON key "1"
//
// or a key that no JSON key can hold (null, an integer above 2^63-1).
//
// Why: yaml/v2 reads a plain key by YAML 1.1's rules (1 an integer, yes true, ~ null), then
// sigs.k8s.io/yaml formats it as a string, so keys that format alike (1 and "1", two .nan)
// collide, and which value survives depends on Go's map order. It decodes the stream whole
// and each piece [Documents] splits it into, unless a scan shows its keys to be strings.
func CheckKeys(data []byte) error {
	if stringKeysOnly(data) {
		return nil
	}
	var found []keyProblem
	check := func(doc []byte, offset int) {
		var v any
		if yamlv2.Unmarshal(doc, &v) != nil {
			return
		}
		exact := exactProblems(v)
		if len(exact) == 0 {
			return
		}
		found = append(found, locate(doc, offset, exact)...)
	}
	pieces, err := splitPieces(data)
	if err != nil {
		return nil // Documents refuses the stream for its separator
	}
	if len(pieces) != 1 || len(pieces[0].data) != len(data) {
		check(data, 0) // else the one piece is data
	}
	for _, p := range pieces {
		check(p.data, p.line)
	}
	if len(found) == 0 {
		return nil
	}
	slices.SortFunc(found, func(a, b keyProblem) int {
		return cmp.Or(cmp.Compare(a.line, b.line), strings.Compare(a.text, b.text))
	})
	if found[0].line > 0 {
		return fmt.Errorf("%w: line %d: %s", ErrKeys, found[0].line, found[0].text)
	}
	return fmt.Errorf("%w: %s", ErrKeys, found[0].text)
}

// A keyProblem is a collision of two keys of one mapping, or a key that no JSON key can hold.
type keyProblem struct {
	line int // of the key, in the stream; 0 when unknown
	text string
}

// jsonKey returns the JSON key that sigs.k8s.io/yaml v1.6.0 makes of a key yaml/v2 decoded
// (convertToJSONableObject), or false for one it refuses.
func jsonKey(k any) (string, bool) {
	switch k := k.(type) {
	case string:
		return k, true
	case int:
		return strconv.Itoa(k), true
	case int64: // only on 32-bit systems
		return strconv.FormatInt(k, 10), true
	case float64:
		// At float32 precision, as sigs.k8s.io/yaml: 0.1 and 0.10000000149 are one key.
		switch s := strconv.FormatFloat(k, 'g', -1, 32); s {
		case "+Inf":
			return ".inf", true
		case "-Inf":
			return "-.inf", true
		case "NaN":
			return ".nan", true
		default:
			return s, true
		}
	case bool:
		return strconv.FormatBool(k), true
	}
	return "", false
}

func describeKey(k any) string {
	switch k := k.(type) {
	case string:
		return strconv.Quote(k)
	case int, int64:
		return fmt.Sprintf("%d (an integer)", k)
	case uint64:
		return fmt.Sprintf("%d (an integer above 2^63-1)", k)
	case float64:
		switch {
		case math.IsNaN(k):
			return ".nan (a float)"
		case math.IsInf(k, 1):
			return ".inf (a float)"
		case math.IsInf(k, -1):
			return "-.inf (a float)"
		}
		s := strconv.FormatFloat(k, 'g', -1, 64)
		if !strings.ContainsAny(s, ".e") {
			s += ".0" // 1.0, not 1, which reads as an integer
		}
		return s + " (a float)"
	case bool:
		return strconv.FormatBool(k) + " (a boolean)"
	case nil:
		return "null"
	}
	return fmt.Sprintf("%v (a %T)", k, k)
}

const unsupported = "\x00unsupported" // in exactProblems' result: keys no JSON key can hold

// exactProblems returns the JSON keys that two keys of one mapping of v, a yaml/v2 document,
// share, and unsupported for a key no JSON key can hold: the decision; locate only finds lines.
func exactProblems(v any) map[string]bool {
	found := map[string]bool{}
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[any]any:
			var seen map[string]bool
			for k, e := range v {
				if _, ok := k.(string); !ok && seen == nil {
					// Only a mapping with a non-string key can collide.
					seen = make(map[string]bool, len(v))
					for k := range v {
						s, ok := jsonKey(k)
						switch {
						case !ok:
							found[unsupported] = true
						case seen[s]:
							found[s] = true
						}
						seen[s] = true
					}
				}
				walk(e)
			}
		case []any:
			for _, e := range v {
				walk(e)
			}
		}
	}
	walk(v)
	return found
}

// locate decodes doc again, keeping each key's line, and returns the problems of its mappings
// whose JSON keys exact holds, lines counted from offset; should it find none, one problem
// without a line, so that the decision never depends on it.
func locate(doc []byte, offset int, exact map[string]bool) []keyProblem {
	var root valueAt
	var found []keyProblem
	if yamlv2.Unmarshal(doc, &root) == nil {
		root.problems(offset, exact, &found)
	}
	if len(found) > 0 {
		return found
	}
	keys := slices.Sorted(maps.Keys(exact))
	if keys[0] == unsupported {
		return []keyProblem{{text: "a key is null or an integer above 2^63-1, which no JSON key can hold"}}
	}
	return []keyProblem{{text: fmt.Sprintf("two keys of one mapping both become the JSON key %q", keys[0])}}
}

// keyAt is a mapping key as yaml/v2 decodes it, with its line; 0 for a null key.
type keyAt struct {
	v    any
	line int
}

func (k *keyAt) UnmarshalYAML(unmarshal func(any) error) error {
	if err := unmarshal(&k.v); err != nil {
		return err
	}
	switch k.v.(type) {
	case map[any]any, []any:
		// yaml/v2 refuses these keys into any; here they would make keyAt unhashable.
		return errors.New("a mapping key must be a scalar")
	}
	// yaml/v2 tells a node's line only in its errors: decoding a scalar into a struct is one.
	var probe struct{}
	k.line = errorLine(unmarshal(&probe))
	return nil
}

// valueAt is a node as yaml/v2 decodes it, keeping only what locate needs.
type valueAt struct {
	line  int // of a mapping
	keys  map[keyAt]valueAt
	items []valueAt
}

func (v *valueAt) UnmarshalYAML(unmarshal func(any) error) error {
	// The probes read only the node's own children: decoding is linear in the expanded size.
	var m map[skip]skip
	if unmarshal(&m) == nil {
		var n int
		v.line = errorLine(unmarshal(&n))
		return unmarshal(&v.keys)
	}
	var s []skip
	if unmarshal(&s) == nil {
		return unmarshal(&v.items)
	}
	return nil
}

// skip is a node that UnmarshalYAML does not read.
type skip struct{}

func (skip) UnmarshalYAML(func(any) error) error { return nil }

// errorLine returns the line that a yaml/v2 TypeError names first, or 0.
func errorLine(err error) int {
	var te *yamlv2.TypeError
	if !errors.As(err, &te) || len(te.Errors) == 0 {
		return 0
	}
	var n int
	if _, err := fmt.Sscanf(te.Errors[0], "line %d:", &n); err != nil {
		return 0
	}
	return n
}

func (v *valueAt) problems(offset int, exact map[string]bool, found *[]keyProblem) {
	lineOf := func(k keyAt) int {
		if k.line == 0 {
			return offset + v.line
		}
		return offset + k.line
	}
	groups := map[string][]keyAt{}
	for k, e := range v.keys {
		s, ok := jsonKey(k.v)
		if !ok {
			if exact[unsupported] {
				*found = append(*found, keyProblem{line: lineOf(k),
					text: fmt.Sprintf("key %s cannot become a JSON key", describeKey(k.v))})
			}
		} else if exact[s] {
			groups[s] = append(groups[s], k)
		}
		e.problems(offset, exact, found)
	}
	for s, keys := range groups {
		slices.SortFunc(keys, func(a, b keyAt) int {
			return cmp.Or(cmp.Compare(a.line, b.line), strings.Compare(describeKey(a.v), describeKey(b.v)))
		})
		// The first key, in line order, that differs from an earlier one.
		for i, k := range keys {
			if j := slices.IndexFunc(keys[:i], func(e keyAt) bool { return e.v != k.v }); j >= 0 {
				*found = append(*found, keyProblem{line: lineOf(k),
					text: fmt.Sprintf("key %s and key %s of line %d both become the JSON key %q",
						describeKey(k.v), describeKey(keys[j].v), lineOf(keys[j]), s)})
				break
			}
		}
	}
	for i := range v.items {
		v.items[i].problems(offset, exact, found)
	}
}

// A piece is a document as [Documents] splits a stream, with the number of lines before it.
type piece struct {
	data []byte
	line int
}

// splitPieces splits data on "---" lines as [Documents] does; at a "---" line that
// apimachinery's YAML reader refuses, it returns the pieces before it and that reader's error.
func splitPieces(data []byte) ([]piece, error) {
	var pieces []piece
	start, startLine, n := 0, 0, 0
	for off := 0; off < len(data); n++ {
		end := len(data)
		if i := bytes.IndexByte(data[off:], '\n'); i >= 0 {
			end = off + i + 1
		}
		line := data[off:end]
		if rest, ok := bytes.CutPrefix(line, []byte("---")); ok {
			rest = bytes.TrimSpace(rest)
			if len(rest) > 0 && rest[0] != '#' {
				return pieces, fmt.Errorf("invalid Yaml document separator: %s", rest)
			}
			if start < off { // else, as that reader does, the line starts the next piece
				pieces = append(pieces, piece{data: data[start:off], line: startLine})
				start, startLine = end, n+1
			}
		}
		off = end
	}
	if start < len(data) {
		pieces = append(pieces, piece{data: data[start:], line: startLine})
	}
	return pieces, nil
}

// stringKeysOnly reports whether a scan of data's lines shows that yaml/v2 decodes every
// mapping key of every document (and piece) of it to a string; false means only that it cannot
// tell. It must never report true for another key (FuzzStringKeysOnly).
//
// An implicit key sits on one line at a node's start: the line's start, after "- ", "? " or
// ": ". A quoted key is a string; a plain key is one unless plainStringKey says otherwise.
// Anything else at a node's start that could make or hide a key is a reason to decode; so is
// input the parser reads other than line by line (UTF-16, U+0085, U+2028, U+2029).
func stringKeysOnly(data []byte) bool {
	// It runs on every file the module reads (BenchmarkStringKeysOnly).
	if bytes.IndexByte(data, 0xFE) >= 0 || bytes.IndexByte(data, 0xFF) >= 0 || hasUnicodeBreak(data) {
		return false
	}
	cr := bytes.IndexByte(data, '\r') >= 0
	for len(data) > 0 {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		for cr && bytes.IndexByte(line, '\r') >= 0 {
			i := bytes.IndexByte(line, '\r')
			if !lineKeysOnly(line[:i]) {
				return false
			}
			line = line[i+1:]
		}
		if !lineKeysOnly(line) {
			return false
		}
	}
	return true
}

func lineKeysOnly(line []byte) bool {
	line = bytes.TrimPrefix(line, []byte("\xEF\xBB\xBF")) // a byte order mark
	if len(line) >= 3 && (string(line[:3]) == "---" || string(line[:3]) == "...") && (len(line) == 3 || isBlankByte(line[3])) {
		line = line[3:] // a document marker, maybe followed by a node
	}
	for {
		line = trimBlanks(line) // a node's start: skip blanks and "- "
		for len(line) > 0 && line[0] == '-' && (len(line) == 1 || isBlankByte(line[1])) {
			line = trimBlanks(line[1:])
		}
		if len(line) == 0 {
			return true
		}
		var rest []byte
		switch line[0] {
		case '{', '[':
			return closedFlow(line)
		case '!', '&', '*', '?', ':':
			return false
		case '#', '|', '>':
			return true // a comment, or a block scalar's header
		case '"', '\'':
			end := quotedEnd(line)
			if end < 0 {
				return true // goes on to the next lines: a key cannot
			}
			rest = trimBlanks(line[end:])
			if len(rest) == 0 || rest[0] != ':' || (len(rest) > 1 && !isBlankByte(rest[1])) {
				return true // a value, not a key
			}
			rest = rest[1:]
		default:
			end := plainKeyEnd(line)
			if end < 0 {
				return true // a value, not a key
			}
			if !plainStringKey(trimTrailingBlanks(line[:end])) {
				return false
			}
			rest = line[end+1:]
		}
		line = rest // the key's value may start on the same line
	}
}

// closedFlow reports whether line, which starts with "[" or "{", is all of a flow sequence of
// plain scalars or an empty flow mapping ("dependsOn: [a, b]", "labels: {}"), so keyless.
func closedFlow(line []byte) bool {
	closing := byte(']')
	if line[0] == '{' {
		closing = '}'
	}
	for i := 1; i < len(line); i++ {
		switch c := line[i]; {
		case c == closing:
			return len(trimBlanks(line[i+1:])) == 0
		case closing == '}' && !isBlankByte(c):
			return false // not an empty mapping
		case strings.IndexByte("\"':{}[]?!&*#|>", c) >= 0:
			return false
		}
	}
	return false // it goes on to the next lines
}

// trimBlanks is a loop, not bytes.TrimLeft, which builds a set of its cutset on every call
// (BenchmarkStringKeysOnly).
func trimBlanks(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t') {
		b = b[1:]
	}
	return b
}

func trimTrailingBlanks(b []byte) []byte {
	for len(b) > 0 && (b[len(b)-1] == ' ' || b[len(b)-1] == '\t') {
		b = b[:len(b)-1]
	}
	return b
}

// isBlankByte counts NUL as a blank, as the parser does.
func isBlankByte(c byte) bool { return c == ' ' || c == '\t' || c == 0 }

// quotedEnd returns the index just past the quoted scalar line starts with, or -1 if it goes on.
func quotedEnd(line []byte) int {
	q := line[0]
	for i := 1; i < len(line); i++ {
		switch {
		case q == '"' && line[i] == '\\':
			i++ // an escaped character
		case line[i] == q && q == '\'' && i+1 < len(line) && line[i+1] == '\'':
			i++ // '' inside single quotes
		case line[i] == q:
			return i + 1
		}
	}
	return -1
}

// plainKeyEnd returns the index of the ":" that ends the plain key line starts with, or -1.
func plainKeyEnd(line []byte) int {
	for from := 0; ; {
		i := bytes.IndexByte(line[from:], ':')
		if i < 0 {
			return -1
		}
		i += from
		if i+1 == len(line) || isBlankByte(line[i+1]) {
			if hasComment(line[:i]) {
				return -1 // a comment ends the scalar, and the line
			}
			return i
		}
		from = i + 1
	}
}

func hasComment(b []byte) bool {
	for i := 0; i < len(b); i++ {
		j := bytes.IndexByte(b[i:], '#')
		if j < 0 {
			return false
		}
		if i += j; i > 0 && isBlankByte(b[i-1]) {
			return true
		}
	}
	return false
}

// plainStringKey reports whether yaml/v2 surely resolves the plain scalar key to a string.
func plainStringKey(key []byte) bool {
	if len(key) == 0 {
		return false
	}
	switch key[0] {
	case '+', '-', '.', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return false
	case 'y', 'Y', 'n', 'N', 't', 'T', 'f', 'F', 'o', 'O', '~':
		switch string(key) {
		case "y", "Y", "yes", "Yes", "YES", "n", "N", "no", "No", "NO",
			"true", "True", "TRUE", "false", "False", "FALSE",
			"on", "On", "ON", "off", "Off", "OFF",
			"~", "null", "Null", "NULL":
			return false
		}
	}
	return true
}
