package pathpattern

import (
	"errors"
	"io/fs"
	"strings"
	"testing"
)

var refTests = []struct {
	name   string
	ref    string
	want   Ref
	rule   string // the rule a *SyntaxError reports; "" for a valid reference
	offset int
}{
	{name: "file", ref: "@repo/tenants/team-a/namespace-metadata.yaml", want: Ref{Alias: "repo", Path: "tenants/team-a/namespace-metadata.yaml"}},
	{name: "cleaned", ref: "@repo/a//b/./c/", want: Ref{Alias: "repo", Path: "a/b/c"}},
	{name: "glob", ref: "@repo/tenants/*/manifests/**", want: Ref{Alias: "repo", Path: "tenants/*/manifests/**"}},
	{name: "dots in names", ref: "@r/..a/b../.c", want: Ref{Alias: "r", Path: "..a/b../.c"}},
	{name: "long", ref: "@r/" + strings.Repeat("a", maxRefLength-3), want: Ref{Alias: "r", Path: strings.Repeat("a", maxRefLength-3)}},

	{name: "too long", ref: "@r/" + strings.Repeat("a", maxRefLength-2), rule: ruleTooManyBytes, offset: maxRefLength},
	{name: "no alias", ref: "tenants/a", rule: ruleMissingAlias, offset: 0},
	{name: "alias only", ref: "@repo", rule: ruleMissingAlias, offset: 5},
	{name: "bad alias", ref: "@Repo/a", rule: ruleBadAlias, offset: 1},
	{name: "empty path", ref: "@repo/", rule: ruleEmptyPath, offset: 6},
	{name: "dot path", ref: "@repo/./", rule: ruleEmptyPath, offset: 6},
	{name: "absolute", ref: "@repo//etc/passwd", rule: ruleAbsolutePath, offset: 6},
	{name: "dot dot", ref: "@repo/../x", rule: ruleDotDot, offset: 6},
	{name: "dot dot that cleans away", ref: "@repo/a/../b", rule: ruleDotDot, offset: 8},
	{name: "trailing dot dot", ref: "@repo/a/..", rule: ruleDotDot, offset: 8},
	{name: "nul", ref: "@repo/a\x00b", rule: ruleNUL, offset: 7},
	{name: "invalid utf-8", ref: "@repo/a\xff", rule: ruleInvalidUTF8, offset: 7},
}

func TestParseRef(t *testing.T) {
	t.Parallel()
	for _, tt := range refTests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := ParseRef(tt.ref)
			if tt.rule != "" {
				checkSyntaxError(t, err, tt.ref, tt.rule, tt.offset, "")
				if got != (Ref{}) {
					t.Errorf("ParseRef(%q) = %+v, want the zero Ref", tt.ref, got)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("ParseRef(%q) = %+v, %v, want %+v", tt.ref, got, err, tt.want)
			}
			if err := got.Validate(); err != nil {
				t.Errorf("Validate() = %v", err)
			}
		})
	}
}

func TestRefValidate(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		ref  Ref
		rule string
	}{
		{name: "valid", ref: Ref{Alias: "repo", Path: "a/b"}},
		{name: "zero", ref: Ref{}, rule: ruleBadAlias},
		{name: "unclean", ref: Ref{Alias: "repo", Path: "a//b"}, rule: ruleUncleanPath},
		{name: "dot dot", ref: Ref{Alias: "repo", Path: "../b"}, rule: ruleDotDot},
		{name: "empty path", ref: Ref{Alias: "repo"}, rule: ruleEmptyPath},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := tt.ref.Validate()
			if tt.rule == "" {
				if err != nil {
					t.Errorf("Validate() = %v, want nil", err)
				}
				return
			}
			var se *SyntaxError
			if !errors.Is(err, ErrSyntax) || !errors.As(err, &se) || se.Rule != tt.rule {
				t.Errorf("Validate() = %v, want a *SyntaxError breaking %q", err, tt.rule)
			}
		})
	}
}

func FuzzParseRef(f *testing.F) {
	for _, tt := range refTests {
		f.Add(tt.ref)
	}
	for _, tt := range hostileRefTests {
		f.Add(tt.ref)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := ParseRef(s)
		if err != nil {
			var se *SyntaxError
			if !errors.As(err, &se) || !validRule(se.Rule) || se.Offset < 0 || se.Offset > len(s) {
				t.Fatalf("ParseRef(%q) error %v: want a *SyntaxError with a rule and an offset in the input", s, err)
			}
			return
		}
		if !fs.ValidPath(r.Path) || r.Path == "." {
			t.Fatalf("ParseRef(%q).Path = %q is not a valid fs path", s, r.Path)
		}
		for elem := range strings.SplitSeq(r.Path, "/") {
			if elem == ".." {
				t.Fatalf("ParseRef(%q).Path = %q contains ..", s, r.Path)
			}
		}
		if strings.ContainsRune(r.Path, 0) {
			t.Fatalf("ParseRef(%q).Path contains NUL", s)
		}
		again, err := ParseRef(r.String())
		if err != nil || again != r {
			t.Fatalf("ParseRef(%q) = %+v, %v, want %+v", r.String(), again, err, r)
		}
		if err := r.Validate(); err != nil {
			t.Fatalf("Validate() = %v", err)
		}
	})
}
