package pathpattern

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Errors returned, wrapped in a [*SyntaxError], by [Parse], [Pattern.Template],
// [ParseRef] and [Ref.Validate]. Test for them with [errors.Is].
var (
	ErrTooLong             = errors.New("pathpattern: must not exceed the length limit")
	ErrInvalidUTF8         = errors.New("pathpattern: must be valid UTF-8")
	ErrMissingAlias        = errors.New(`pathpattern: must start with "@alias/"`)
	ErrInvalidAlias        = errors.New("pathpattern: alias must consist of lower case alphanumeric characters, '-' or '_', and must start and end with an alphanumeric character")
	ErrMissingClosingBrace = errors.New("pathpattern: '{' must be closed by '}' in the same segment")
	ErrMissingOpeningBrace = errors.New("pathpattern: '}' must close a '{'")
	ErrEmptyCapture        = errors.New("pathpattern: capture must have a name")
	ErrInvalidCaptureName  = errors.New("pathpattern: capture name must match [A-Za-z_][A-Za-z0-9_]* and be a valid label key (at most 63 characters, starting and ending with an alphanumeric character)")
	ErrDuplicateCapture    = errors.New("pathpattern: capture name must be unique in the pattern")
	ErrEmptySegment        = errors.New("pathpattern: segment must not be empty")
	ErrTrailingSlash       = errors.New("pathpattern: must not end with '/'")
	ErrDotSegment          = errors.New(`pathpattern: segment must not be "." or ".."`)
	ErrUnknownCapture      = errors.New("pathpattern: template must name only captures of its pattern")
	ErrEmptyPath           = errors.New("pathpattern: reference must name a path below the alias")
	ErrAbsolutePath        = errors.New("pathpattern: reference path must be relative")
	ErrDotDot              = errors.New(`pathpattern: reference path must not contain ".."`)
	ErrNUL                 = errors.New("pathpattern: must not contain NUL bytes")
	ErrUncleanPath         = errors.New("pathpattern: reference path must be clean")
)

// ErrMissingValue is returned by [Template.Expand] when the captures lack a
// value that the template names.
var ErrMissingValue = errors.New("pathpattern: captures must hold a value for every capture the template names")

// ErrInvalidValue is wrapped by the terminal [DirError] values of a
// [DiscoverError]: a normalized capture value that is not a valid label value.
var ErrInvalidValue = errors.New("pathpattern: normalized capture value must be a valid label value")

// Errors returned by [ReadFile], wrapped in an [*fs.PathError].
var (
	ErrSymlink    = errors.New("pathpattern: must not be a symbolic link")
	ErrNotRegular = errors.New("pathpattern: must be a regular file")
	ErrTooLarge   = errors.New("pathpattern: file must be no larger than the size limit")
)

// A SyntaxError reports a malformed pattern, template or reference: which
// rule it breaks, where, and the offending part.
type SyntaxError struct {
	Input  string // the pattern, template or reference as given
	Offset int    // byte offset in Input where the problem starts
	Value  string // the offending part (capture name, alias, segment), if any
	Err    error  // one of the sentinel errors above
}

// quoteLimit is how much of an over-long input an error message quotes.
const quoteLimit = 64

func (e *SyntaxError) Error() string {
	in := e.Input
	if len(in) > MaxLength {
		in = in[:quoteLimit] + "..."
	}
	var b strings.Builder
	b.WriteString(e.Err.Error())
	if e.Value != "" {
		b.WriteString(": ")
		b.WriteString(strconv.Quote(e.Value))
	}
	fmt.Fprintf(&b, " (offset %d in %q)", e.Offset, in)
	return b.String()
}

// Unwrap returns the sentinel error.
func (e *SyntaxError) Unwrap() error { return e.Err }

// A DirError describes one directory that [Pattern.Discover] could not turn
// into a [Match]. It is terminal when the directory matched but a normalized
// capture value is not a valid label value: the tree itself is wrong and
// reading it again gives the same answer. Otherwise it is an I/O error while
// reading the tree, and the result of Discover may be missing matches.
type DirError struct {
	Path    string // slash-separated directory, relative to the alias root
	Capture string // the capture with the invalid value; empty for I/O errors
	Value   string // the raw value of Capture; empty for I/O errors
	Err     error  // wraps ErrInvalidValue when terminal; the file system error otherwise
}

func (e *DirError) Error() string {
	if e.Capture == "" {
		return fmt.Sprintf("directory %q: %v", e.Path, e.Err)
	}
	return fmt.Sprintf("directory %q: capture %q value %q: %v", e.Path, e.Capture, e.Value, e.Err)
}

// Unwrap returns the underlying error.
func (e *DirError) Unwrap() error { return e.Err }

// Terminal reports whether the error lies in the tree's content rather than
// in reading it.
func (e *DirError) Terminal() bool { return errors.Is(e.Err, ErrInvalidValue) }

// A DiscoverError lists every directory [Pattern.Discover] could not use,
// sorted by Path and then by capture name.
type DiscoverError struct {
	Dirs []*DirError
}

func (e *DiscoverError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "pathpattern: %d directories cannot be used", len(e.Dirs))
	for _, d := range e.Dirs {
		b.WriteString("; ")
		b.WriteString(d.Error())
	}
	return b.String()
}

// Unwrap returns the directory errors, so that [errors.Is] and [errors.As]
// see each of them.
func (e *DiscoverError) Unwrap() []error {
	errs := make([]error, len(e.Dirs))
	for i, d := range e.Dirs {
		errs[i] = d
	}
	return errs
}

// Terminal reports whether every directory error is terminal: the list of
// matches is complete apart from the directories with invalid values.
func (e *DiscoverError) Terminal() bool {
	for _, d := range e.Dirs {
		if !d.Terminal() {
			return false
		}
	}
	return true
}
