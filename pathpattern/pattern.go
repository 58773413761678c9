package pathpattern

import (
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"unicode/utf8"

	"k8s.io/apimachinery/pkg/api/validate/content"
)

// maxLength is the longest pattern or template, in characters (code points), that [Parse]
// and [Pattern.Template] accept: the CRD's maxLength, so every pattern the CRD admits is
// accepted. It bounds the segments (the recursion depth of [Pattern.Discover]) and captures.
const maxLength = 1024

// maxBytes is the most bytes maxLength characters take in UTF-8. Checked first, so that
// refusing a huge input costs nothing, it bounds the cost of matching.
const maxBytes = 4 * maxLength

// A Pattern is a parsed path pattern such as "@repo/tenants/{namespace}/modules/{module}".
// The zero value is not valid; use [Parse]. A Pattern is immutable and safe for concurrent use.
type Pattern struct {
	src      string
	alias    string
	segments []segment
	captures []string // capture names in order of appearance
}

type segment struct {
	src      string // the segment as the pattern spells it
	parts    []part
	capture  bool // the segment has at least one capture
	dotOK    bool // the segment starts with a literal '.': dot names may match
	captured int  // how many captures this segment and those before it have
}

type part struct {
	lit     string
	capture int // index into Pattern.captures, or -1 for a literal
}

// Parse parses a path pattern:
//
//	p, err := pathpattern.Parse("@repo/tenants/{namespace}/modules/{module}")
//
// Every error is a [*SyntaxError] (wrapping [ErrSyntax]) with the byte offset and the
// rule broken: more than 1024 characters or 4096 bytes, a NUL byte, invalid UTF-8,
// a missing or invalid "@alias/", an empty, "." or ".." segment, a trailing slash, a missing
// closing or opening brace, an empty, invalid or duplicate capture name.
func Parse(pattern string) (*Pattern, error) {
	if err := checkLength(pattern); err != nil {
		return nil, err
	}
	// A pattern with a NUL matches nothing, and a controller trusting that prunes everything.
	if i := strings.IndexByte(pattern, 0); i >= 0 {
		return nil, &SyntaxError{Input: pattern, Offset: i, Rule: ruleNUL}
	}
	alias, off, err := splitAlias(pattern)
	if err != nil {
		return nil, err
	}
	p := &Pattern{src: pattern, alias: alias}
	for s := range strings.SplitSeq(pattern[off:], "/") {
		seg, err := p.parseSegment(pattern, off, off+len(s))
		if err != nil {
			return nil, err
		}
		p.segments = append(p.segments, seg)
		off += len(s) + 1
	}
	return p, nil
}

// MustParse is like [Parse] but panics on error, for literals in tests and examples.
func MustParse(pattern string) *Pattern {
	p, err := Parse(pattern)
	if err != nil {
		panic(err)
	}
	return p
}

// checkLength returns a [*SyntaxError] where s crosses maxBytes bytes or maxLength characters.
func checkLength(s string) error {
	if len(s) > maxBytes {
		return &SyntaxError{Input: s, Offset: maxBytes, Rule: ruleTooManyBytes}
	}
	if len(s) <= maxLength {
		return nil // no more bytes than the limit in characters
	}
	n := 0
	for i := range s { // invalid bytes count as one character each
		if n == maxLength {
			return &SyntaxError{Input: s, Offset: i, Rule: ruleTooLong}
		}
		n++
	}
	return nil
}

// checkUTF8 returns a [*SyntaxError] at the first byte of s that is not valid UTF-8.
func checkUTF8(s string) error {
	for i, r := range s {
		if _, size := utf8.DecodeRuneInString(s[i:]); r == utf8.RuneError && size == 1 {
			return &SyntaxError{Input: s, Offset: i, Rule: ruleInvalidUTF8}
		}
	}
	return nil
}

// splitAlias checks that s is valid UTF-8 (so offsets fall on runes) and its "@alias/"
// prefix, and returns the alias and the offset after the slash.
func splitAlias(s string) (alias string, rest int, err error) {
	if err := checkUTF8(s); err != nil {
		return "", 0, err
	}
	if !strings.HasPrefix(s, "@") {
		return "", 0, &SyntaxError{Input: s, Offset: 0, Rule: ruleMissingAlias}
	}
	slash := strings.IndexByte(s, '/')
	if slash < 0 {
		return "", 0, &SyntaxError{Input: s, Offset: len(s), Rule: ruleMissingAlias}
	}
	alias = s[1:slash]
	if i := invalidAlias(alias); i >= 0 {
		return "", 0, &SyntaxError{Input: s, Offset: 1 + i, Value: alias, Rule: ruleBadAlias}
	}
	return alias, slash + 1, nil
}

// invalidAlias returns the index of alias's first byte breaking the grammar, or -1.
func invalidAlias(alias string) int {
	if alias == "" {
		return 0
	}
	for i := 0; i < len(alias); i++ {
		c := alias[i]
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || (c == '-' || c == '_') && i != 0 && i != len(alias)-1) {
			return i
		}
	}
	return -1
}

// parseSegment parses pattern[start:end], which holds no slash.
func (p *Pattern) parseSegment(pattern string, start, end int) (segment, error) {
	s := pattern[start:end]
	switch s {
	case "":
		if end == len(pattern) {
			return segment{}, &SyntaxError{Input: pattern, Offset: start - 1, Rule: ruleTrailingSlash}
		}
		return segment{}, &SyntaxError{Input: pattern, Offset: start, Rule: ruleEmptySegment}
	case ".", "..":
		return segment{}, &SyntaxError{Input: pattern, Offset: start, Value: s, Rule: ruleDotSegment}
	}
	parts, err := parseParts(pattern, start, end, func(name string, at int) (int, error) {
		if slices.Contains(p.captures, name) {
			return 0, &SyntaxError{Input: pattern, Offset: at, Value: name, Rule: ruleDuplicateName}
		}
		p.captures = append(p.captures, name)
		return len(p.captures) - 1, nil
	})
	if err != nil {
		return segment{}, err
	}
	seg := segment{src: s, parts: parts, captured: len(p.captures)}
	if len(parts) > 1 || parts[0].capture >= 0 {
		seg.capture, seg.dotOK = true, parts[0].capture < 0 && parts[0].lit[0] == '.'
	}
	return seg, nil
}

// parseParts splits in[start:end] into parts; capture maps a name and its '{' to an index.
func parseParts(in string, start, end int, capture func(name string, at int) (int, error)) ([]part, error) {
	var parts []part
	lit := start
	for i := start; i < end; i++ {
		switch in[i] {
		case '}':
			return nil, &SyntaxError{Input: in, Offset: i, Rule: ruleMissingOpen}
		case '{':
			j := strings.IndexAny(in[i+1:end], "{}")
			if j < 0 || in[i+1+j] == '{' {
				return nil, &SyntaxError{Input: in, Offset: i, Rule: ruleMissingClose}
			}
			closing := i + 1 + j
			name := in[i+1 : closing]
			if name == "" {
				return nil, &SyntaxError{Input: in, Offset: i, Rule: ruleEmptyCapture}
			}
			if !validCaptureName(name) {
				return nil, &SyntaxError{Input: in, Offset: i + 1, Value: name, Rule: ruleInvalidName}
			}
			idx, err := capture(name, i)
			if err != nil {
				return nil, err
			}
			if lit < i {
				parts = append(parts, part{lit: in[lit:i], capture: -1})
			}
			parts = append(parts, part{capture: idx})
			i = closing
			lit = closing + 1
		}
	}
	if lit < end {
		parts = append(parts, part{lit: in[lit:end], capture: -1})
	}
	return parts, nil
}

// validCaptureName reports whether name matches [A-Za-z_][A-Za-z0-9_]* and is a label key.
func validCaptureName(name string) bool {
	for i := 0; i < len(name); i++ {
		c := name[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '_' || i > 0 && '0' <= c && c <= '9' {
			continue
		}
		return false
	}
	return len(content.IsLabelKey(name)) == 0
}

// Alias returns the alias the pattern starts with, without the "@".
func (p *Pattern) Alias() string { return p.alias }

// Captures returns the capture names in order of appearance.
func (p *Pattern) Captures() []string { return slices.Clone(p.captures) }

// String returns the pattern as given to [Parse]; parsing it again gives an equal Pattern.
func (p *Pattern) String() string { return p.src }

// Match reports whether relPath, a directory path relative to the alias root ([fs.ValidPath],
// not "."), matches by the rules of [Pattern.Discover] (reading no tree), and returns the
// raw captured values; it allocates only on a match.
//
//	c, ok := pathpattern.MustParse("@repo/apps/{a}-{b}").Match("apps/x-y-z") // {"a": "x-y", "b": "z"}, true
func (p *Pattern) Match(relPath string) (map[string]string, bool) {
	if !p.match(relPath, nil) {
		return nil, false
	}
	values := make([]string, len(p.captures))
	p.match(relPath, values)
	c := make(map[string]string, len(p.captures))
	for i, name := range p.captures {
		c[name] = values[i]
	}
	return c, true
}

// match reports whether rel matches, storing the values by capture index in non-nil values.
func (p *Pattern) match(rel string, values []string) bool {
	if rel == "." || !fs.ValidPath(rel) {
		return false
	}
	for i := range p.segments {
		name := rel
		if j := strings.IndexByte(rel, '/'); j >= 0 {
			name, rel = rel[:j], rel[j+1:]
		} else {
			rel = ""
		}
		last := i == len(p.segments)-1
		if last != (rel == "") || !p.segments[i].match(name, values) {
			return false
		}
	}
	return true
}

// maxStackParts is how many parts a segment matches with scratch on the stack.
const maxStackParts = 15

// match reports whether name matches the segment like the regular expression with [^/]+
// per capture, leftmost-first and greedy, storing the values in non-nil values. Its time
// is linear in len(name) times the parts: a backward pass finds where each suffix of parts
// can start at the latest, a forward pass gives each capture its longest value.
func (s *segment) match(name string, values []string) bool {
	if !s.capture {
		return name == s.src
	}
	if name == "" || name[0] == '.' && !s.dotOK {
		return false
	}
	var buf [maxStackParts + 1]int
	var last []int
	if len(s.parts) <= maxStackParts {
		last = buf[:len(s.parts)+1]
	} else {
		last = make([]int, len(s.parts)+1)
	}
	// last[j] is the greatest position at which parts[j:] can start, or -1; for a suffix
	// starting with a capture, every smaller position works too.
	last[len(s.parts)] = len(name)
	for j := len(s.parts) - 1; j >= 0; j-- {
		next := last[j+1]
		switch {
		case next < 0:
			last[j] = -1
		case s.parts[j].capture >= 0:
			// The capture needs at least one rune before next.
			if next == 0 {
				last[j] = -1
			} else {
				_, size := utf8.DecodeLastRuneInString(name[:next])
				last[j] = next - size
			}
		case j == len(s.parts)-1:
			if strings.HasSuffix(name, s.parts[j].lit) {
				last[j] = len(name) - len(s.parts[j].lit)
			} else {
				last[j] = -1
			}
		default:
			// parts[j+1] is a capture (no literal follows a literal): the literal ends by next.
			last[j] = strings.LastIndex(name[:next], s.parts[j].lit)
		}
	}
	pos := 0
	for j, pt := range s.parts {
		if pt.capture < 0 {
			if !strings.HasPrefix(name[pos:], pt.lit) {
				return false
			}
			pos += len(pt.lit)
			continue
		}
		end := last[j+1]
		if end <= pos {
			return false
		}
		if values != nil {
			values[pt.capture] = name[pos:end]
		}
		pos = end
	}
	return pos == len(name)
}

// overwritten lists the capture names flux-operator's ExternalArtifact inputs always overwrite.
var overwritten = []string{"id", "name", "revision"}

// Warnings returns, sorted, the problems with the pattern's capture names that are not
// errors: captures become labels, which flux-operator's ExternalArtifact input provider
// turns into inputs, overwriting "id", "name", "namespace" and "revision", so a capture
// with one of those names is lost, unless it is "namespace" and namespace, the artifact's
// namespace template (nil for none), is exactly "{namespace}". A nil p has none.
//
//	ws := p.Warnings(nsTemplate) // [`capture "name" is overwritten ...`]
func (p *Pattern) Warnings(namespace *Template) []string {
	if p == nil {
		return nil
	}
	var ws []string
	for _, name := range p.captures {
		switch {
		case slices.Contains(overwritten, name):
			ws = append(ws, fmt.Sprintf("capture %q is overwritten by the artifact's own %s in flux-operator's ExternalArtifact inputs; rename the capture", name, name))
		case name == "namespace" && (namespace == nil || namespace.String() != "{namespace}"):
			ws = append(ws, `capture "namespace" is overwritten by the artifact's namespace in flux-operator's ExternalArtifact inputs, and the namespace template is not "{namespace}"; rename the capture`)
		}
	}
	slices.Sort(ws)
	return ws
}
