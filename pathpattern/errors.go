package pathpattern

import (
	"errors"
	"fmt"
	"unicode/utf8"

	"github.com/tenantkit/tenantkit/internal/readfile"
)

// The sentinels, one per failure a caller acts on differently; test with [errors.Is].
var (
	// ErrSyntax is wrapped by every [*SyntaxError], from [Parse],
	// [Pattern.Template], [ParseRef] or [Ref.Validate]: the input must be fixed.
	ErrSyntax = errors.New("pathpattern: invalid syntax")

	// ErrMissingValue is returned by [Template.Expand] when the captures lack
	// a value that the template names: they come from another pattern.
	ErrMissingValue = errors.New("pathpattern: captures must hold a value for every capture the template names")

	// ErrSourceShape is returned by [Pattern.Discover], in an [*fs.PathError] naming the
	// directory, when the root or a fixed-prefix directory is missing, a symbolic link or
	// not a directory: an empty result would mean nothing.
	ErrSourceShape = errors.New("pathpattern: source does not have the shape the pattern needs")

	// ErrNotRegular is returned by [ReadFile], in an [*fs.PathError], for a
	// path with a symbolic link in it or a file that is not a regular file.
	ErrNotRegular = readfile.ErrNotRegular

	// ErrTooLarge is returned by [ReadFile], in an [*fs.PathError], for a
	// file over the size limit, and by [Glob] for a walk over its bounds.
	ErrTooLarge = readfile.ErrTooLarge
)

// A SyntaxError reports a malformed pattern, template or reference: the
// rule it breaks, where, and the offending part. It unwraps to [ErrSyntax].
type SyntaxError struct {
	Input  string // the pattern, template or reference as given
	Offset int    // byte offset in Input where the problem starts
	Value  string // the offending part (capture name, alias, segment), if any
	Rule   Rule   // the rule Input breaks, such as [RuleTrailingSlash]
}

// A Rule names the grammar rule a [SyntaxError] breaks, so that a caller can word it its
// own way without reading the message. The zero value is no rule.
type Rule int

// The rules that [Parse], [Pattern.Template], [ParseRef] and [Ref.Validate] enforce.
const (
	RuleTooLong        Rule = iota + 1 // more than MaxLength characters (a pattern or template)
	RuleTooManyBytes                   // more than 4096 bytes (a pattern, template or reference)
	RuleInvalidUTF8                    // a byte that is not part of valid UTF-8
	RuleNUL                            // a NUL byte
	RuleMissingAlias                   // no "@alias/" at the start
	RuleBadAlias                       // an alias outside [a-z0-9]([a-z0-9_-]*[a-z0-9])?
	RuleMissingClose                   // a '{' without a '}' in its segment
	RuleMissingOpen                    // a '}' without a '{'
	RuleEmptyCapture                   // "{}"
	RuleInvalidName                    // a capture name outside [A-Za-z_][A-Za-z0-9_]* or not a label key
	RuleDuplicateName                  // a capture name used twice in a pattern
	RuleEmptySegment                   // "//" in a pattern
	RuleTrailingSlash                  // a pattern ending with "/"
	RuleDotSegment                     // a "." or ".." segment in a pattern
	RuleUnknownCapture                 // a template naming a capture its pattern lacks
	RuleEmptyPath                      // a reference without a path below the alias
	RuleAbsolutePath                   // a reference path starting with "/"
	RuleDotDot                         // a ".." element in a reference path
	RuleUncleanPath                    // a [Ref] whose Path is not clean
)

var ruleText = [...]string{
	RuleTooLong:        fmt.Sprintf("must be no more than %d characters", MaxLength),
	RuleTooManyBytes:   fmt.Sprintf("must be no more than %d bytes", maxBytes),
	RuleInvalidUTF8:    "must be valid UTF-8",
	RuleNUL:            "must not contain NUL bytes",
	RuleMissingAlias:   `must start with "@alias/"`,
	RuleBadAlias:       "alias must consist of lower case alphanumeric characters, '-' or '_', and must start and end with an alphanumeric character",
	RuleMissingClose:   "'{' must be closed by '}' in the same segment",
	RuleMissingOpen:    "'}' must close a '{'",
	RuleEmptyCapture:   "capture must have a name",
	RuleInvalidName:    "capture name must match [A-Za-z_][A-Za-z0-9_]* and be a valid label key (at most 63 characters, starting and ending with an alphanumeric character)",
	RuleDuplicateName:  "capture name must be unique in the pattern",
	RuleEmptySegment:   "segment must not be empty",
	RuleTrailingSlash:  "must not end with '/'",
	RuleDotSegment:     `segment must not be "." or ".."`,
	RuleUnknownCapture: "template must name only captures of its pattern",
	RuleEmptyPath:      "reference must name a path below the alias",
	RuleAbsolutePath:   "reference path must be relative",
	RuleDotDot:         `reference path must not contain ".."`,
	RuleUncleanPath:    "reference path must be clean",
}

// String returns the rule as a [SyntaxError] message words it ("must not
// end with '/'" for [RuleTrailingSlash]), or "rule N" for no rule.
func (r Rule) String() string {
	if r > 0 && int(r) < len(ruleText) {
		return ruleText[r]
	}
	return fmt.Sprintf("rule %d", int(r))
}

// quoteLimit is how many bytes of an input over maxBytes a message quotes.
const quoteLimit = 64

// Error returns "pathpattern: <rule>", the offending value if any, and the
// offset in the input, e.g.
// `pathpattern: must not end with '/' (offset 25 in "@repo/tenants/{namespace}/")`.
func (e *SyntaxError) Error() string {
	value := ""
	if e.Value != "" {
		value = fmt.Sprintf(": %q", shorten(e.Value))
	}
	return fmt.Sprintf("pathpattern: %s%s (offset %d in %q)", e.Rule, value, e.Offset, shorten(e.Input))
}

// Unwrap returns [ErrSyntax].
func (e *SyntaxError) Unwrap() error { return ErrSyntax }

// shorten returns s, or past maxBytes its first quoteLimit bytes (at a rune start) and "...".
func shorten(s string) string {
	if len(s) <= maxBytes {
		return s
	}
	n := quoteLimit
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "..."
}

// errorf reads "pathpattern: <rule>" and unwraps to sentinel, as ReadFile's checks do.
var errorf = readfile.Errorf
