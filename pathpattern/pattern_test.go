package pathpattern

import (
	"errors"
	"io/fs"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

var parseTests = []struct {
	name     string
	pattern  string
	alias    string
	captures []string
	rule     string // the rule a *SyntaxError reports; "" for a valid pattern
	offset   int
	value    string
}{
	{name: "tenants", pattern: "@repo/tenants/{namespace}/modules/{module}", alias: "repo", captures: []string{"namespace", "module"}},
	{name: "captures in one segment", pattern: "@repo/apps/{a}-{b}", alias: "repo", captures: []string{"a", "b"}},
	{name: "adjacent captures", pattern: "@r/{a}{b}", alias: "r", captures: []string{"a", "b"}},
	{name: "literal only", pattern: "@r/tenants", alias: "r"},
	{name: "star and dot are literal", pattern: "@r/*/x.y/{a}.*", alias: "r", captures: []string{"a"}},
	{name: "alias with dash and underscore", pattern: "@my-repo_1/x", alias: "my-repo_1"},
	{name: "digit alias", pattern: "@0/x", alias: "0"},
	{name: "mixed case capture name", pattern: "@r/{Team_1}", alias: "r", captures: []string{"Team_1"}},
	{name: "dot prefixed capture segment", pattern: "@r/.{a}", alias: "r", captures: []string{"a"}},
	{name: "dot prefixed literal", pattern: "@r/.git", alias: "r"},
	{name: "unicode literal", pattern: "@r/équipe/{a}", alias: "r", captures: []string{"a"}},
	{name: "exactly max length", pattern: "@r/" + strings.Repeat("a", maxLength-3), alias: "r"},
	{name: "655 characters of é, 1295 bytes", pattern: "@repo/tenants/" + strings.Repeat("é", 640) + "x", alias: "repo"},
	{name: "1024 characters of two bytes", pattern: "@r/" + strings.Repeat("é", maxLength-3), alias: "r"},
	{name: "1024 characters of four bytes", pattern: "@r/" + strings.Repeat("😀", maxLength-3), alias: "r"},
	{name: "63 character capture name", pattern: "@r/{" + strings.Repeat("a", 63) + "}", alias: "r", captures: []string{strings.Repeat("a", 63)}},

	{name: "too long", pattern: "@r/" + strings.Repeat("a", maxLength-2), rule: ruleTooLong, offset: maxLength},
	{name: "1025 characters of two bytes", pattern: "@r/" + strings.Repeat("é", maxLength-2), rule: ruleTooLong, offset: 3 + 2*(maxLength-3)},
	{name: "over the byte limit", pattern: "@r/" + strings.Repeat("😀", maxLength), rule: ruleTooManyBytes, offset: maxBytes},
	{name: "invalid utf-8", pattern: "@r/a\xffb", rule: ruleInvalidUTF8, offset: 4},
	{name: "empty", pattern: "", rule: ruleMissingAlias, offset: 0},
	{name: "no at sign", pattern: "repo/x", rule: ruleMissingAlias, offset: 0},
	{name: "no slash after alias", pattern: "@repo", rule: ruleMissingAlias, offset: 5},
	{name: "empty alias", pattern: "@/x", rule: ruleBadAlias, offset: 1},
	{name: "upper case alias", pattern: "@Repo/x", rule: ruleBadAlias, offset: 1, value: "Repo"},
	{name: "alias with space", pattern: "@re po/x", rule: ruleBadAlias, offset: 3, value: "re po"},
	{name: "alias starting with dash", pattern: "@-r/x", rule: ruleBadAlias, offset: 1, value: "-r"},
	{name: "alias ending with underscore", pattern: "@r_/x", rule: ruleBadAlias, offset: 2, value: "r_"},
	{name: "trailing slash", pattern: "@r/x/", rule: ruleTrailingSlash, offset: 4},
	{name: "only alias and slash", pattern: "@r/", rule: ruleTrailingSlash, offset: 2},
	{name: "empty segment", pattern: "@r//x", rule: ruleEmptySegment, offset: 3},
	{name: "empty segment before trailing slash", pattern: "@r/a//", rule: ruleEmptySegment, offset: 5},
	{name: "dot segment", pattern: "@r/./x", rule: ruleDotSegment, offset: 3, value: "."},
	{name: "dot dot segment", pattern: "@r/x/..", rule: ruleDotSegment, offset: 5, value: ".."},
	{name: "unclosed brace", pattern: "@r/{a", rule: ruleMissingClose, offset: 3},
	{name: "brace closed in next segment", pattern: "@r/{a/b}", rule: ruleMissingClose, offset: 3},
	{name: "nested brace", pattern: "@r/{a{b}", rule: ruleMissingClose, offset: 3},
	{name: "closing brace without opening", pattern: "@r/a}", rule: ruleMissingOpen, offset: 4},
	{name: "closing brace after capture", pattern: "@r/{a}}", rule: ruleMissingOpen, offset: 6},
	{name: "empty capture", pattern: "@r/x{}", rule: ruleEmptyCapture, offset: 4},
	{name: "capture name with leading underscore", pattern: "@r/{_app}", rule: ruleInvalidName, offset: 4, value: "_app"},
	{name: "capture name with trailing underscore", pattern: "@r/{app_}", rule: ruleInvalidName, offset: 4, value: "app_"},
	{name: "capture name starting with digit", pattern: "@r/{1a}", rule: ruleInvalidName, offset: 4, value: "1a"},
	{name: "capture name with dash", pattern: "@r/{a-b}", rule: ruleInvalidName, offset: 4, value: "a-b"},
	{name: "capture name with dot", pattern: "@r/{a.b}", rule: ruleInvalidName, offset: 4, value: "a.b"},
	{name: "64 character capture name", pattern: "@r/{" + strings.Repeat("a", 64) + "}", rule: ruleInvalidName, offset: 4, value: strings.Repeat("a", 64)},
	{name: "duplicate capture", pattern: "@r/{a}/{a}", rule: ruleDuplicateName, offset: 7, value: "a"},
	{name: "duplicate capture in one segment", pattern: "@r/{a}-{a}", rule: ruleDuplicateName, offset: 7, value: "a"},
}

func TestParse(t *testing.T) {
	t.Parallel()
	for _, tt := range parseTests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p, err := Parse(tt.pattern)
			if tt.rule == "" {
				if err != nil {
					t.Fatalf("Parse(%q): %v", tt.pattern, err)
				}
				if p.Alias() != tt.alias {
					t.Errorf("Alias() = %q, want %q", p.Alias(), tt.alias)
				}
				if diff := cmp.Diff(tt.captures, p.Captures()); diff != "" {
					t.Errorf("Captures() (-want +got):\n%s", diff)
				}
				if p.String() != tt.pattern {
					t.Errorf("String() = %q, want %q", p.String(), tt.pattern)
				}
				return
			}
			if p != nil {
				t.Errorf("Parse(%q) = %v, want nil", tt.pattern, p)
			}
			checkSyntaxError(t, err, tt.pattern, tt.rule, tt.offset, tt.value)
			if se := err.(*SyntaxError); se.Input != tt.pattern {
				t.Errorf("error input %q, want the pattern", se.Input)
			}
			if msg, want := err.Error(), strconv.Quote(shorten(tt.pattern)); !strings.Contains(msg, want) {
				t.Errorf("error %q must quote the pattern as %s", msg, want)
			}
		})
	}
}

func TestCapturesIsACopy(t *testing.T) {
	t.Parallel()
	p := MustParse("@r/{a}/{b}")
	p.Captures()[0] = "x"
	if got := p.Captures(); got[0] != "a" {
		t.Errorf("Captures() = %q after changing a previous result", got)
	}
}

func TestMustParsePanics(t *testing.T) {
	t.Parallel()
	defer func() {
		if r := recover(); r == nil {
			t.Error("MustParse of a bad pattern did not panic")
		}
	}()
	MustParse("@r/")
}

var matchTests = []struct {
	name    string
	pattern string
	path    string
	want    map[string]string // nil for no match
}{
	{name: "tenants", pattern: "@repo/tenants/{namespace}/modules/{module}", path: "tenants/team-a/modules/app", want: map[string]string{"namespace": "team-a", "module": "app"}},
	{name: "raw case kept", pattern: "@r/{a}", path: "Team-A", want: map[string]string{"a": "Team-A"}},
	{name: "leftmost greedy", pattern: "@r/apps/{a}-{b}", path: "apps/x-y-z", want: map[string]string{"a": "x-y", "b": "z"}},
	{name: "adjacent captures", pattern: "@r/{a}{b}", path: "abc", want: map[string]string{"a": "ab", "b": "c"}},
	{name: "adjacent captures split runes", pattern: "@r/{a}{b}", path: "éé", want: map[string]string{"a": "é", "b": "é"}},
	{name: "adjacent captures need two runes", pattern: "@r/{a}{b}", path: "é"},
	{name: "three captures", pattern: "@r/{a}.{b}.{c}", path: "1.2.3.4", want: map[string]string{"a": "1.2", "b": "3", "c": "4"}},
	{name: "literal prefix", pattern: "@r/v{a}", path: "v1.2", want: map[string]string{"a": "1.2"}},
	{name: "literal prefix only", pattern: "@r/v{a}", path: "v"},
	{name: "literal suffix", pattern: "@r/{a}-x", path: "a-x-x", want: map[string]string{"a": "a-x"}},
	{name: "empty capture before literal", pattern: "@r/{a}-x", path: "-x"},
	{name: "missing separator", pattern: "@r/{a}-{b}-{c}", path: "a-b"},
	{name: "overlapping literal", pattern: "@r/{a}aa{b}", path: "xaaa", want: map[string]string{"a": "x", "b": "a"}},
	{name: "literal star", pattern: "@r/*", path: "*", want: map[string]string{}},
	{name: "star is not a wildcard", pattern: "@r/*", path: "x"},
	{name: "literal segments", pattern: "@r/a/b", path: "a/b", want: map[string]string{}},
	{name: "literal mismatch", pattern: "@r/a/b", path: "a/c"},
	{name: "capture skips dot names", pattern: "@r/{a}", path: ".git"},
	{name: "capture after literal dot", pattern: "@r/.{a}", path: ".git", want: map[string]string{"a": "git"}},
	{name: "literal dot name", pattern: "@r/.git", path: ".git", want: map[string]string{}},
	{name: "dot inside", pattern: "@r/{a}", path: "a.b", want: map[string]string{"a": "a.b"}},
	{name: "too few segments", pattern: "@r/{a}/{b}", path: "x"},
	{name: "too many segments", pattern: "@r/{a}", path: "x/y"},
	{name: "empty path", pattern: "@r/{a}", path: ""},
	{name: "dot path", pattern: "@r/{a}", path: "."},
	{name: "absolute path", pattern: "@r/{a}", path: "/x"},
	{name: "trailing slash", pattern: "@r/{a}", path: "x/"},
	{name: "empty element", pattern: "@r/{a}/{b}", path: "x//y"},
	{name: "dot dot element", pattern: "@r/a/{b}", path: "a/.."},
	{name: "invalid utf-8", pattern: "@r/{a}", path: "\xff"},
}

func TestMatch(t *testing.T) {
	t.Parallel()
	for _, tt := range matchTests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, ok := MustParse(tt.pattern).Match(tt.path)
			if ok != (tt.want != nil) {
				t.Fatalf("Match(%q) ok = %v, want %v", tt.path, ok, tt.want != nil)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Match(%q) (-want +got):\n%s", tt.path, diff)
			}
		})
	}
}

func TestMatchManyParts(t *testing.T) {
	t.Parallel()
	// More parts than the stack buffer holds.
	var pat, path strings.Builder
	want := map[string]string{}
	pat.WriteString("@r/")
	for i := range 20 {
		name := "c" + strconv.Itoa(i)
		pat.WriteString("{" + name + "}-")
		path.WriteString(strconv.Itoa(i) + "-")
		want[name] = strconv.Itoa(i)
	}
	got, ok := MustParse(pat.String()).Match(path.String())
	if !ok {
		t.Fatalf("Match(%q) did not match", path.String())
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Match (-want +got):\n%s", diff)
	}
}

func TestMatchNonMatchingDoesNotAllocate(t *testing.T) {
	p := MustParse("@repo/tenants/{namespace}/modules/{a}-{b}.{c}")
	for _, path := range []string{
		"tenants/team-a/modules/app",     // fails in the last segment
		"unrelated/team-a/modules/a-b.c", // fails in the first
		"tenants/team-a/modules",         // too short
	} {
		if n := testing.AllocsPerRun(100, func() { p.Match(path) }); n != 0 {
			t.Errorf("Match(%q) allocates %v times, want 0", path, n)
		}
	}
}

var warningTests = []struct {
	name      string
	pattern   string
	namespace string // namespace template; "" for none
	want      []string
}{
	{name: "none", pattern: "@r/tenants/{namespace}/modules/{module}", namespace: "{namespace}"},
	{name: "namespace without template", pattern: "@r/tenants/{namespace}/{module}", want: []string{`capture "namespace"`}},
	{name: "namespace with another template", pattern: "@r/tenants/{namespace}/{module}", namespace: "tenant-{namespace}", want: []string{`capture "namespace"`}},
	{name: "overwritten names", pattern: "@r/{revision}/{name}/{id}", want: []string{`capture "id"`, `capture "name"`, `capture "revision"`}},
	{name: "case matters", pattern: "@r/{Name}/{ID}"},
}

func TestWarnings(t *testing.T) {
	t.Parallel()
	for _, tt := range warningTests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := MustParse(tt.pattern)
			var ns *Template
			if tt.namespace != "" {
				ns = p.MustTemplate(tt.namespace)
			}
			got := p.Warnings(ns)
			if len(got) != len(tt.want) {
				t.Fatalf("Warnings() = %q, want %d warnings", got, len(tt.want))
			}
			for i := range got {
				if !strings.HasPrefix(got[i], tt.want[i]) {
					t.Errorf("warning %d = %q, want it to start with %q", i, got[i], tt.want[i])
				}
			}
		})
	}
}

// regexpFor builds the regular expression that source-watcher would use for
// p: each capture becomes ([^/]+).
func regexpFor(p *Pattern) *regexp.Regexp {
	var b strings.Builder
	b.WriteString("^")
	for i, seg := range p.segments {
		if i > 0 {
			b.WriteString("/")
		}
		for _, pt := range seg.parts {
			if pt.capture < 0 {
				b.WriteString(regexp.QuoteMeta(pt.lit))
			} else {
				b.WriteString("([^/]+)")
			}
		}
	}
	b.WriteString("$")
	return regexp.MustCompile(b.String())
}

func FuzzParse(f *testing.F) {
	for _, tt := range parseTests {
		f.Add(tt.pattern)
	}
	for _, tt := range hostilePatternTests {
		if len(tt.pattern) <= 2*maxBytes { // a 1 MiB seed slows every mutation
			f.Add(tt.pattern)
		}
	}
	f.Fuzz(func(t *testing.T, pattern string) {
		p, err := Parse(pattern)
		long := len(pattern) > maxBytes || utf8.RuneCountInString(pattern) > maxLength
		if err != nil {
			var se *SyntaxError
			if !errors.As(err, &se) || !errors.Is(err, ErrSyntax) || !validRule(se.Rule) || se.Offset < 0 || se.Offset > len(pattern) || se.Input != pattern {
				t.Fatalf("Parse(%q) error %v: want a *SyntaxError with a rule and an offset in the pattern", pattern, err)
			}
			if (se.Rule == ruleTooLong || se.Rule == ruleTooManyBytes) != long {
				t.Fatalf("Parse of %d bytes, %d characters: %v", len(pattern), utf8.RuneCountInString(pattern), err)
			}
			return
		}
		if long {
			t.Fatalf("Parse accepted %d bytes, %d characters", len(pattern), utf8.RuneCountInString(pattern))
		}
		again, err := Parse(p.String())
		if err != nil {
			t.Fatalf("Parse(%q) of String() of a valid pattern: %v", p.String(), err)
		}
		if diff := cmp.Diff(p, again, cmp.AllowUnexported(Pattern{}, segment{}, part{})); diff != "" {
			t.Fatalf("Parse(String()) differs (-first +second):\n%s", diff)
		}
	})
}

func FuzzMatch(f *testing.F) {
	for _, tt := range matchTests {
		f.Add(tt.pattern, tt.path)
	}
	for _, name := range []string{strings.Repeat("a-", 99) + "a", "team\nb", "\u212a", "\u212Aube", "a\x00b", "\xff"} {
		f.Add("@r/"+manyCaptures(20, "-"), name)
	}
	f.Fuzz(func(t *testing.T, pattern, path string) {
		p, err := Parse(pattern)
		if err != nil {
			return
		}
		checkMatch(t, p, path)
		// Random paths rarely match: also try the pattern with every
		// capture replaced by path.
		var b strings.Builder
		for i, seg := range p.segments {
			if i > 0 {
				b.WriteString("/")
			}
			for _, pt := range seg.parts {
				if pt.capture < 0 {
					b.WriteString(pt.lit)
				} else {
					b.WriteString(path)
				}
			}
		}
		checkMatch(t, p, b.String())
	})
}

// checkMatch checks Match against the regular expression source-watcher
// would use.
func checkMatch(t *testing.T, p *Pattern, path string) {
	got, ok := p.Match(path)
	loc := regexpFor(p).FindStringSubmatchIndex(path)
	// Match is stricter than the regular expression in two ways only: the
	// path must be a valid fs path, and captures skip dot names.
	stricter := path == "." || !fs.ValidPath(path) || hasDotCapture(p, path)
	switch {
	case ok && loc == nil:
		t.Fatalf("Match(%q, %q) = %v, but the regexp does not match", p, path, got)
	case !ok && loc != nil && !stricter:
		t.Fatalf("Match(%q, %q) did not match, but the regexp does", p, path)
	case ok:
		for i, name := range p.captures {
			if want := path[loc[2+2*i]:loc[3+2*i]]; got[name] != want {
				t.Fatalf("Match(%q, %q)[%q] = %q, regexp captured %q", p, path, name, got[name], want)
			}
		}
	}
}

// hasDotCapture reports whether a capture segment of p meets a path element
// starting with "." where the segment does not start with a literal ".".
func hasDotCapture(p *Pattern, path string) bool {
	elems := strings.Split(path, "/")
	for i, seg := range p.segments {
		if i < len(elems) && seg.capture && !seg.dotOK && strings.HasPrefix(elems[i], ".") {
			return true
		}
	}
	return false
}

func BenchmarkMatch(b *testing.B) {
	p := MustParse("@repo/tenants/{namespace}/modules/{module}")
	for _, bb := range []struct {
		name string
		path string
	}{
		{name: "nonmatching-first-segment", path: "unrelated/team-a/modules/app"},
		{name: "nonmatching-last-segment", path: "tenants/team-a/modules/app/manifests"},
		{name: "matching", path: "tenants/team-a/modules/app"},
		{name: "matching-long", path: "tenants/" + strings.Repeat("t", 200) + "/modules/" + strings.Repeat("m", 200)},
	} {
		b.Run(bb.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				p.Match(bb.path)
			}
		})
	}
}
