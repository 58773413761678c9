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
	// Rule is the rule Input breaks as the message words it, e.g. "must not end with '/'".
	Rule string
}

// The rules that [Parse], [Pattern.Template], [ParseRef] and [Ref.Validate] enforce.
var (
	ruleTooLong      = fmt.Sprintf("must be no more than %d characters", maxLength) // a pattern or template
	ruleTooManyBytes = fmt.Sprintf("must be no more than %d bytes", maxBytes)       // a pattern, template or reference
)

const (
	ruleInvalidUTF8    = "must be valid UTF-8"
	ruleNUL            = "must not contain NUL bytes"
	ruleMissingAlias   = `must start with "@alias/"`
	ruleBadAlias       = "alias must consist of lower case alphanumeric characters, '-' or '_', and must start and end with an alphanumeric character"
	ruleMissingClose   = "'{' must be closed by '}' in the same segment"
	ruleMissingOpen    = "'}' must close a '{'"
	ruleEmptyCapture   = "capture must have a name"
	ruleInvalidName    = "capture name must match [A-Za-z_][A-Za-z0-9_]* and be a valid label key (at most 63 characters, starting and ending with an alphanumeric character)"
	ruleDuplicateName  = "capture name must be unique in the pattern"
	ruleEmptySegment   = "segment must not be empty"
	ruleTrailingSlash  = "must not end with '/'"
	ruleDotSegment     = `segment must not be "." or ".."`
	ruleUnknownCapture = "template must name only captures of its pattern"
	ruleEmptyPath      = "reference must name a path below the alias"
	ruleAbsolutePath   = "reference path must be relative"
	ruleDotDot         = `reference path must not contain ".."`
	ruleUncleanPath    = "reference path must be clean"
)

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
