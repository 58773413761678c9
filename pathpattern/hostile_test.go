package pathpattern

import (
	"errors"
	"io"
	"io/fs"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/tenantkit/tenantkit/internal/hostile"
)

// maxMessageBytes bounds the message of a syntax error: it quotes at most
// quoteLimit bytes of an over-long input, and %q at most quadruples the
// rest.
const maxMessageBytes = 4*maxRefLength + 512

// checkSyntaxError checks that err is a *SyntaxError for input, wrapping
// ErrSyntax, that reports rule at offset, naming value when it is set, with
// a bounded message.
func checkSyntaxError(t *testing.T, err error, input, rule string, offset int, value string) {
	t.Helper()
	var se *SyntaxError
	if !errors.Is(err, ErrSyntax) || !errors.As(err, &se) || se.Rule != rule {
		t.Fatalf("error = %v, want a *SyntaxError wrapping ErrSyntax, breaking %q", err, rule)
	}
	if !strings.HasPrefix(err.Error(), "pathpattern: "+rule) {
		t.Errorf("error %q does not word its rule as %q", err, rule)
	}
	if se.Input != input || se.Offset != offset {
		t.Errorf("error at offset %d of %.40q, want offset %d of the input", se.Offset, se.Input, offset)
	}
	msg := err.Error()
	if value != "" && (se.Value != value || !strings.Contains(msg, strconv.Quote(value))) {
		t.Errorf("error %q names value %q, want %q", msg, se.Value, value)
	}
	if !strings.Contains(msg, "offset ") || len(msg) > maxMessageBytes {
		t.Errorf("error %.200q (%d bytes) must give the offset and stay short", msg, len(msg))
	}
}

// manyCaptures returns n captures c0..c(n-1) joined by sep.
func manyCaptures(n int, sep string) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteString(sep)
		}
		b.WriteString("{c")
		b.WriteString(strings.Repeat("x", i/10))
		b.WriteByte(byte('0' + i%10))
		b.WriteString("}")
	}
	return b.String()
}

var hostilePatternTests = []struct {
	name    string
	pattern string
	rule    string // the rule a *SyntaxError reports; "" for a valid pattern
	offset  int
	value   string
}{
	{name: "exactly the length limit", pattern: "@repo/" + strings.Repeat("a", maxLength-6)},
	{name: "511 segments at the length limit", pattern: "@r/" + strings.Repeat("a/", 510) + "a"},
	{name: "one character over the length limit", pattern: "@repo/" + strings.Repeat("a", maxLength-5), rule: ruleTooLong, offset: maxLength},
	{name: "1 MiB", pattern: "@repo/" + strings.Repeat("{a}", 1<<20/3), rule: ruleTooManyBytes, offset: maxBytes},
	{name: "100 captures in one segment", pattern: "@r/" + manyCaptures(100, "-")},
	{name: "1000 opening braces", pattern: "@r/" + strings.Repeat("{", 1000), rule: ruleMissingClose, offset: 3},
	{name: "1000 closing braces", pattern: "@r/" + strings.Repeat("}", 1000), rule: ruleMissingOpen, offset: 3},
	{name: "doubly nested capture", pattern: "@r/{{a}}", rule: ruleMissingClose, offset: 3},
	{name: "nested 300 deep", pattern: "@r/" + strings.Repeat("{", 300) + "a" + strings.Repeat("}", 300), rule: ruleMissingClose, offset: 3},
	{name: "closing before opening", pattern: "@r/}{a}", rule: ruleMissingOpen, offset: 3},
	{name: "capture spanning segments", pattern: "@r/{a/b}", rule: ruleMissingClose, offset: 3},
	{name: "NUL byte in a literal", pattern: "@r/tenants\x00/{a}", rule: ruleNUL, offset: 10},
	{name: "NUL byte in a capture", pattern: "@r/{a\x00}", rule: ruleNUL, offset: 5},
	{name: "NUL byte in the alias", pattern: "@r\x00/a", rule: ruleNUL, offset: 2},
	{name: "NUL byte at the end", pattern: "@r/a\x00", rule: ruleNUL, offset: 4},
	{name: "invalid UTF-8 in a literal", pattern: "@r/a\xffb", rule: ruleInvalidUTF8, offset: 4},
	{name: "overlong encoding of slash", pattern: "@r/a\xc0\xafb", rule: ruleInvalidUTF8, offset: 4},
	{name: "UTF-16 surrogate", pattern: "@r/\xed\xa0\x80", rule: ruleInvalidUTF8, offset: 3},
	{name: "Kelvin sign in a capture name", pattern: "@r/{\u212a}", rule: ruleInvalidName, offset: 4, value: "\u212a"},
	{name: "dotted capital I in a capture name", pattern: "@r/{\u0130d}", rule: ruleInvalidName, offset: 4, value: "\u0130d"},
	{name: "Kelvin sign in the alias", pattern: "@\u212a/a", rule: ruleBadAlias, offset: 1, value: "\u212a"},
	{name: "captures differing in case", pattern: "@r/{a}/{A}"},
	{name: "newline in a literal", pattern: "@r/team\na/{a}"},
	{name: "newline in a capture name", pattern: "@r/{a\nb}", rule: ruleInvalidName, offset: 4, value: "a\nb"},
	{name: "whitespace-only segment", pattern: "@r/ /{a}"},
	{name: "dot dot after captures", pattern: "@r/{a}/..", rule: ruleDotSegment, offset: 7, value: ".."},
	{name: "absolute after alias", pattern: "@r//etc", rule: ruleEmptySegment, offset: 3},
	{name: "only a slash", pattern: "/", rule: ruleMissingAlias, offset: 0},
}

func TestHostileParse(t *testing.T) {
	t.Parallel()
	for _, tt := range hostilePatternTests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			hostile.NoPanic(t, func() {
				p, err := Parse(tt.pattern)
				if tt.rule == "" {
					if err != nil {
						t.Fatalf("Parse() = %v, want a pattern", err)
					}
					if p.String() != tt.pattern {
						t.Errorf("String() = %q", p.String())
					}
					// Discovering costs nothing on an empty tree: no match, or
					// a fixed prefix that is missing.
					if ms, errs, err := p.Discover(fstest.MapFS{}, nil); len(ms) != 0 || errs != nil || err != nil && !errors.Is(err, ErrSourceShape) {
						t.Errorf("Discover(empty) = %v, %v, %v", ms, errs, err)
					}
					return
				}
				if p != nil {
					t.Errorf("Parse() returned a pattern with an error")
				}
				checkSyntaxError(t, err, tt.pattern, tt.rule, tt.offset, tt.value)
			})
		})
	}
}

// TestHostileMatchLinear matches segments with many captures against long
// names whose every position could split them: the matcher must not
// backtrack.
func TestHostileMatchLinear(t *testing.T) {
	t.Parallel()
	p := MustParse("@r/" + manyCaptures(100, "-"))
	for _, name := range []string{
		strings.Repeat("-", 10000),
		strings.Repeat("a-", 5000),
		strings.Repeat("a-", 99) + "a",
		strings.Repeat("\u212a-", 3000),
	} {
		start := time.Now()
		c, ok := p.Match(name)
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("Match of a %d-byte name took %v", len(name), d)
		}
		if ok && len(c) != 100 {
			t.Errorf("Match returned %d captures, want 100", len(c))
		}
	}
}

var hostileTemplateTests = []struct {
	name     string
	template string
	rule     string
	offset   int
	value    string
}{
	{name: "exactly the length limit", template: "{namespace}" + strings.Repeat("x", maxLength-len("{namespace}"))},
	{name: "one character over the length limit", template: "{namespace}" + strings.Repeat("x", maxLength-len("{namespace}")+1), rule: ruleTooLong, offset: maxLength},
	{name: "a capture 500 times", template: strings.Repeat("{module}", 100)},
	{name: "nested braces", template: "{{namespace}}", rule: ruleMissingClose, offset: 0},
	{name: "unclosed", template: "@repo/{namespace", rule: ruleMissingClose, offset: 6},
	{name: "unopened", template: "namespace}", rule: ruleMissingOpen, offset: 9},
	{name: "unknown capture", template: "{tenant}", rule: ruleUnknownCapture, offset: 0, value: "tenant"},
	{name: "capture differing in case", template: "{Namespace}", rule: ruleUnknownCapture, offset: 0, value: "Namespace"},
	{name: "Kelvin sign", template: "{\u212a}", rule: ruleInvalidName, offset: 1, value: "\u212a"},
	{name: "invalid UTF-8", template: "{namespace}\xff", rule: ruleInvalidUTF8, offset: 11},
	{name: "slashes and dot dots are literal", template: "../../{namespace}/../x"},
}

func TestHostileTemplate(t *testing.T) {
	t.Parallel()
	p := MustParse("@repo/tenants/{namespace}/modules/{module}")
	for _, tt := range hostileTemplateTests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			hostile.NoPanic(t, func() {
				tmpl, err := p.Template(tt.template)
				if tt.rule == "" {
					if err != nil {
						t.Fatalf("Template() = %v", err)
					}
					if _, err := tmpl.Expand(map[string]string{"namespace": "a\x00b", "module": "\xff"}); err != nil {
						t.Errorf("Expand() = %v", err)
					}
					if _, err := tmpl.Expand(map[string]string{}); len(tmpl.Captures()) > 0 && !errors.Is(err, ErrMissingValue) {
						t.Errorf("Expand(no values) = %v, want ErrMissingValue", err)
					}
					return
				}
				checkSyntaxError(t, err, tt.template, tt.rule, tt.offset, tt.value)
			})
		})
	}
}

var hostileRefTests = []struct {
	name   string
	ref    string
	path   string // the cleaned path of a valid reference
	rule   string
	offset int
}{
	{name: "exactly the length limit", ref: "@r/" + strings.Repeat("a/", 2045) + "abc", path: strings.Repeat("a/", 2045) + "abc"},
	{name: "one byte over the length limit", ref: "@r/" + strings.Repeat("a", maxRefLength-2), rule: ruleTooManyBytes, offset: maxRefLength},
	{name: "dot dot", ref: "@r/../etc/passwd", rule: ruleDotDot, offset: 3},
	{name: "dot dot that would clean away", ref: "@r/a/../b", rule: ruleDotDot, offset: 5},
	{name: "dot dot at the end", ref: "@r/a/b/..", rule: ruleDotDot, offset: 7},
	{name: "many dot dots", ref: "@r/a/" + strings.Repeat("../", 1000) + "etc", rule: ruleDotDot, offset: 5},
	{name: "absolute", ref: "@r//etc/passwd", rule: ruleAbsolutePath, offset: 3},
	{name: "NUL byte", ref: "@r/a\x00/../../etc", rule: ruleNUL, offset: 4},
	{name: "invalid UTF-8", ref: "@r/a\xff", rule: ruleInvalidUTF8, offset: 4},
	{name: "only dots and slashes", ref: "@r/./././", rule: ruleEmptyPath, offset: 3},
	{name: "empty", ref: "@r/", rule: ruleEmptyPath, offset: 3},
	{name: "backslashes are names", ref: `@r/a\..\b`, path: `a\..\b`},
	{name: "newline in a name", ref: "@r/team\na/x", path: "team\na/x"},
	{name: "unclean but safe", ref: "@r/a//b/./c/", path: "a/b/c"},
	{name: "Kelvin sign", ref: "@r/\u212a", path: "\u212a"},
}

func TestHostileParseRef(t *testing.T) {
	t.Parallel()
	for _, tt := range hostileRefTests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			hostile.NoPanic(t, func() {
				r, err := ParseRef(tt.ref)
				if tt.rule == "" {
					if err != nil || r.Path != tt.path {
						t.Fatalf("ParseRef() = %+v, %v, want path %q", r, err, tt.path)
					}
					if err := r.Validate(); err != nil && r.String() == tt.ref {
						t.Errorf("Validate() = %v", err)
					}
					return
				}
				checkSyntaxError(t, err, tt.ref, tt.rule, tt.offset, "")
			})
		})
	}
}

var hostileGlobTests = []struct {
	name    string
	pattern string
	exclude []string
	detail  string
}{
	{name: "one byte over the length limit", pattern: strings.Repeat("a", maxGlobLength+1), detail: "must be no more than 4096 bytes"},
	{name: "brace bomb", pattern: strings.Repeat("{a,b}", 7), detail: "no more than 64 alternatives"},
	{name: "brace bomb of 2^100", pattern: strings.Repeat("{a,b}", 100), detail: "no more than 64 alternatives"},
	{name: "nested braces 200 deep", pattern: strings.Repeat("{a,", 200) + "b" + strings.Repeat("}", 200), detail: "no more than 64 alternatives"},
	{name: "unbalanced braces", pattern: strings.Repeat("{", 500), detail: "valid doublestar pattern"},
	{name: "unclosed class", pattern: "a/[b", detail: "valid doublestar pattern"},
	{name: "dot dot", pattern: "a/../../etc/*", detail: `"." or ".." elements`},
	{name: "dot dot in an alternative", pattern: "{a,..}/*", detail: `"." or ".." elements`},
	{name: "absolute", pattern: "/etc/*", detail: `empty, "." or ".." elements`},
	{name: "empty", pattern: "", detail: "empty"},
	{name: "bad exclude", pattern: "a/*", exclude: []string{"["}, detail: "valid doublestar pattern"},
	{name: "exclude too long", pattern: "a/*", exclude: []string{strings.Repeat("*", maxGlobLength+1)}, detail: "must be no more than 4096 bytes"},
	{name: "exclude brace bomb", pattern: "a/*", exclude: []string{strings.Repeat("{a,b}", 8)}, detail: "no more than 64 alternatives"},
}

func TestHostileGlobPattern(t *testing.T) {
	t.Parallel()
	fsys := fstest.MapFS{"a/b": file("x")}
	for _, tt := range hostileGlobTests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			hostile.NoPanic(t, func() {
				got, _, err := Glob(t.Context(), fsys, tt.pattern, tt.exclude...)
				if got != nil || !errors.Is(err, doublestar.ErrBadPattern) {
					t.Fatalf("Glob() = %q, %v, want ErrBadPattern", got, err)
				}
				if msg := err.Error(); !strings.Contains(msg, tt.detail) || len(msg) > maxMessageBytes {
					t.Errorf("error %.200q must contain %q and stay short", msg, tt.detail)
				}
			})
		})
	}
}

func long(n int) string { return "m" + strings.Repeat("x", n-2) + "m" }

func TestHostileDiscover(t *testing.T) {
	t.Parallel()
	var ms []Match
	var errs field.ErrorList
	var err error
	hostile.NoPanic(t, func() {
		ms, errs, err = MustParse("@repo/tenants/{namespace}/modules/{module}").Discover(hostile.Tree(), field.NewPath("spec", "pathPattern"))
	})
	if err != nil {
		t.Fatalf("Discover error = %v", err)
	}
	var paths []string
	for _, m := range ms {
		paths = append(paths, m.Path)
	}
	want := []string{
		"tenants/TEAM-A/modules/APP",
		"tenants/Team-A/modules/app",
		"tenants/team-a/modules/app",
		"tenants/team-c/modules/" + long(63),
		// Links and a pipe where the pattern needs a directory are
		// problems; the pipe, socket and device among the modules are no
		// match.
		"tenants/team-d/modules/escape",
		"tenants/team-d/modules/loop",
		"tenants/team-d/modules/up",
		"tenants/team-e/modules",
		"tenants/team-\u212a/modules/app",   // lowercases to team-k, as in source-watcher
		"tenants/\u0130stanbul/modules/app", // lowercases to istanbul, as in source-watcher
	}
	if diff := cmp.Diff(want, paths); diff != "" {
		t.Errorf("Discover paths (-want +got):\n%s", diff)
	}
	checkBad(t, errs, "spec.pathPattern", []wantBad{
		{Value: "team\nb", Dir: "tenants/team\nb/modules/app"},
		{Value: " space", Dir: "tenants/team-c/modules/ space"},
		{Value: "-dash", Dir: "tenants/team-c/modules/-dash"},
		{Value: "a\x00b", Dir: "tenants/team-c/modules/a\x00b"},
		{Value: long(64), Dir: "tenants/team-c/modules/" + long(64)},
		problemErr("tenants/team-d/modules/escape", ruleLink, "{module}"),
		problemErr("tenants/team-d/modules/loop", ruleLink, "{module}"),
		problemErr("tenants/team-d/modules/up", ruleLink, "{module}"),
		problemErr("tenants/team-e/modules", rulePipe, "modules"),
	})
	// The message names every directory, quoted, so that a newline or a
	// NUL cannot forge a line of a log.
	msg := errs.ToAggregate().Error()
	for _, s := range []string{`"tenants/team\nb/modules/app"`, `"team\nb"`, `"a\x00b"`, "must be no more than 63"} {
		if !strings.Contains(msg, s) {
			t.Errorf("error does not contain %s:\n%s", s, msg)
		}
	}
	if strings.ContainsAny(msg, "\n\x00") {
		t.Errorf("error contains a raw newline or NUL: %q", msg)
	}
}

func TestHostileGlobTree(t *testing.T) {
	t.Parallel()
	const d = "tenants/team-d/modules/"
	dev := Skipped{Path: d + "dev", Mode: fs.ModeDevice}
	sock := Skipped{Path: d + "sock", Mode: fs.ModeSocket}
	hostile.NoPanic(t, func() {
		got, skipped, err := Glob(t.Context(), hostile.Tree(), "tenants/**")
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]string{"tenants/team-a/modules/app/meta.yaml"}, got); diff != "" {
			t.Errorf("Glob files (-want +got):\n%s", diff)
		}
		// Every link and irregular file is listed, with its type.
		all := []Skipped{dev, linkAt(d + "escape"), linkAt(d + "loop"), pipeAt(d + "pipe"), sock, linkAt(d + "up"), pipeAt("tenants/team-e/modules")}
		if diff := cmp.Diff(all, skipped); diff != "" {
			t.Errorf("Glob skipped (-want +got):\n%s", diff)
		}
		for pattern, want := range map[string][]Skipped{
			d + "*":                     all[:6],
			d + "loop/**":               {linkAt(d + "loop")},
			d + "up/**":                 {linkAt(d + "up")},
			"tenants/team-e/modules":    {pipeAt("tenants/team-e/modules")},
			"tenants/team-e/modules/**": nil, // a pipe where a directory should be: no file there
		} {
			if got, skipped, err := Glob(t.Context(), hostile.Tree(), pattern); got != nil || err != nil || !slices.Equal(skipped, want) {
				t.Errorf("Glob(%q) = %q, %v, %v, want nothing but %v skipped", pattern, got, skipped, err, want)
			}
		}
	})
}

// growingFS reports a small size but serves a large file, as a file that
// grows between the Stat and the read does.
type growingFS struct{ fstest.MapFS }

func (g growingFS) Open(name string) (fs.File, error) {
	f, err := g.MapFS.Open(name)
	if err != nil {
		return nil, err
	}
	return &growingFile{File: f, r: strings.NewReader(strings.Repeat("x", defaultMaxFileSize+1))}, nil
}

type growingFile struct {
	fs.File
	r io.Reader
}

func (f *growingFile) Read(p []byte) (int, error) { return f.r.Read(p) }

func TestHostileReadFile(t *testing.T) {
	t.Parallel()
	exact := strings.Repeat("x", defaultMaxFileSize)
	fsys := fstest.MapFS{
		"t/exact":     file(exact),
		"t/over":      file(exact + "x"),
		"t/loop":      symlink("loop"),
		"t/escape":    symlink("../../../../etc/passwd"),
		"t/pipe":      &fstest.MapFile{Mode: fs.ModeNamedPipe},
		"t/sock":      &fstest.MapFile{Mode: fs.ModeSocket},
		"t/dev":       &fstest.MapFile{Mode: fs.ModeDevice | fs.ModeCharDevice},
		"t/team\na/f": file("newline"),
		"t/small":     file("x"),
	}
	for _, tt := range []struct {
		name string
		fsys fs.FS
		file string
		max  int64
		want int
		err  error
		path string
	}{
		{name: "exactly 1 MiB", fsys: fsys, file: "t/exact", want: defaultMaxFileSize},
		{name: "one byte over 1 MiB", fsys: fsys, file: "t/over", err: ErrTooLarge, path: "t/over"},
		{name: "negative limit means the default", fsys: fsys, file: "t/exact", max: -5, want: defaultMaxFileSize},
		{name: "symlink loop", fsys: fsys, file: "t/loop", err: ErrNotRegular, path: "t/loop"},
		{name: "symlink escaping the root", fsys: fsys, file: "t/escape", err: ErrNotRegular, path: "t/escape"},
		{name: "through a symlink loop", fsys: fsys, file: "t/loop/x", err: ErrNotRegular, path: "t/loop"},
		{name: "named pipe", fsys: fsys, file: "t/pipe", err: ErrNotRegular, path: "t/pipe"},
		{name: "socket", fsys: fsys, file: "t/sock", err: ErrNotRegular, path: "t/sock"},
		{name: "device", fsys: fsys, file: "t/dev", err: ErrNotRegular, path: "t/dev"},
		{name: "newline in a directory name", fsys: fsys, file: "t/team\na/f", want: len("newline")},
		{name: "dot dot", fsys: fsys, file: "t/../t/exact", err: fs.ErrInvalid, path: "t/../t/exact"},
		{name: "trailing slash", fsys: fsys, file: "t/exact/", err: fs.ErrInvalid, path: "t/exact/"},
		{name: "empty", fsys: fsys, file: "", err: fs.ErrInvalid, path: ""},
		{name: "file that grows after its stat", fsys: growingFS{fsys}, file: "t/small", err: ErrTooLarge, path: "t/small"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			hostile.NoPanic(t, func() {
				got, err := ReadFile(tt.fsys, tt.file, tt.max)
				if tt.err == nil {
					if err != nil || len(got) != tt.want {
						t.Fatalf("ReadFile() = %d bytes, %v, want %d bytes", len(got), err, tt.want)
					}
					return
				}
				var pe *fs.PathError
				if got != nil || !errors.Is(err, tt.err) || !errors.As(err, &pe) || pe.Path != tt.path {
					t.Fatalf("ReadFile() = %d bytes, %v, want a *fs.PathError for %q wrapping %v", len(got), err, tt.path, tt.err)
				}
				if errors.Is(tt.err, ErrTooLarge) && !strings.Contains(err.Error(), "must be no more than 1048576 bytes") {
					t.Errorf("error %q does not give the limit", err)
				}
			})
		})
	}
}
