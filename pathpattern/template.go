package pathpattern

import (
	"fmt"
	"slices"
	"strings"
)

// A Template is a string with captures, such as "{module}" or
// "@repo/tenants/{namespace}/modules/{module}/applier-inputs.yaml", bound to the [Pattern]
// whose captures it names. The zero value is not valid; use [Pattern.Template]. A Template
// is immutable and safe for concurrent use.
type Template struct {
	src   string
	parts []part
	names []string // the pattern's capture names, indexed by part.capture
}

// Template parses s with the brace rules of the pattern grammar and binds it to p:
//
//	t, err := p.Template("{module}")
//
// Everything outside braces is literal, slashes included; a capture may be named more than
// once, or none. Every error is a [*SyntaxError] (wrapping [ErrSyntax]) with the byte offset
// and the rule broken: more than 1024 characters or 4096 bytes, invalid UTF-8, a
// missing closing or opening brace, an empty or invalid capture name, or one that p lacks
// (before any tree is read). A nil p, no pattern, makes a literal template, in which a
// capture is one that p lacks.
func (p *Pattern) Template(s string) (*Template, error) {
	if err := checkLength(s); err != nil {
		return nil, err
	}
	if err := checkUTF8(s); err != nil {
		return nil, err
	}
	var names []string
	if p != nil {
		names = p.captures
	}
	parts, err := parseParts(s, 0, len(s), func(name string, at int) (int, error) {
		i := slices.Index(names, name)
		if i < 0 {
			return 0, &SyntaxError{Input: s, Offset: at, Value: name, Rule: ruleUnknownCapture}
		}
		return i, nil
	})
	if err != nil {
		return nil, err
	}
	return &Template{src: s, parts: parts, names: names}, nil
}

// MustTemplate is like [Pattern.Template] but panics on error, for literals in tests and examples.
func (p *Pattern) MustTemplate(s string) *Template {
	t, err := p.Template(s)
	if err != nil {
		panic(err)
	}
	return t
}

// String returns the template as given to [Pattern.Template].
func (t *Template) String() string { return t.src }

// Captures returns the names of the captures the template uses, in order of first use.
func (t *Template) Captures() []string {
	var names []string
	for _, pt := range t.parts {
		if pt.capture >= 0 && !slices.Contains(names, t.names[pt.capture]) {
			names = append(names, t.names[pt.capture])
		}
	}
	return names
}

// Expand replaces each capture in the template with its value in c: [Match].Normalized for
// object names, namespaces and labels, [Match].Raw for paths in the source, which must name
// the directories as they are:
//
//	name, err := nameTemplate.Expand(m.Normalized)
//	ref, err := inputsTemplate.Expand(m.Raw)
//
// It checks nothing about the result (see [ParseRef]; the caller checks names and
// namespaces). The only possible error wraps [ErrMissingValue]: c lacks a capture the
// template names.
func (t *Template) Expand(c map[string]string) (string, error) {
	// The length first, for one allocation: a plan expands several per file.
	n := 0
	for _, pt := range t.parts {
		if pt.capture < 0 {
			n += len(pt.lit)
			continue
		}
		name := t.names[pt.capture]
		v, ok := c[name]
		if !ok {
			return "", fmt.Errorf("%w: %q in template %q", ErrMissingValue, name, t.src)
		}
		n += len(v)
	}
	var b strings.Builder
	b.Grow(n)
	for _, pt := range t.parts {
		if pt.capture < 0 {
			b.WriteString(pt.lit)
		} else {
			b.WriteString(c[t.names[pt.capture]])
		}
	}
	return b.String(), nil
}
