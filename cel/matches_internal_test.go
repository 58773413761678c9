package cel

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	gocel "github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
)

// notLiteral is the detail of Compile's error for a pattern of matches that
// is not a string literal at line:column of srcLine, cel-go's caret under it.
func notLiteral(srcLine string, line, column int) string {
	return fmt.Sprintf("<input>:%d:%d: the pattern of matches must be a string literal\n | %s\n | %s^",
		line, column, srcLine, strings.Repeat(".", column-1))
}

// nonLiteralPatternTests are expressions whose pattern of matches is not a
// string literal, each refused by Compile (with the variables ns and value)
// at the pattern: issue 34's items 5 and 6 first, whose patterns came from
// a tenant's value. Where there are several, the error names each.
var nonLiteralPatternTests = []struct {
	name, expr   string
	line, column int
	detail       string // when empty, notLiteral of the expression's line
}{
	{name: "issue 34 item 5: a value as the pattern", expr: `'x'.matches(value)`, line: 1, column: 13},
	{name: "issue 34 item 6: each item as its own pattern", expr: `value.split(',').all(x, x.matches(x))`, line: 1, column: 35},
	{name: "the value as the pattern of itself", expr: `value.matches(value)`, line: 1, column: 15},
	{name: "ns as the pattern", expr: `"a".matches(ns)`, line: 1, column: 13},
	{name: "the global form", expr: `matches('x', value)`, line: 1, column: 14},
	{name: "the global form, both variables", expr: `matches(value, ns)`, line: 1, column: 16},
	{name: "a concatenation with a variable", expr: `value.matches('^' + ns)`, line: 1, column: 19},
	{name: "a pattern built around a value", expr: `'abc'.matches('^' + value + '$')`, line: 1, column: 27},
	{name: "a concatenation of literals", expr: `value.matches('^a' + 'b$')`, line: 1, column: 20},
	{name: "a literal behind dyn", expr: `value.matches(dyn('^a$'))`, line: 1, column: 18},
	{name: "a dynamic subject and a variable", expr: `dyn(value).matches(ns)`, line: 1, column: 20},
	{name: "a conditional between literals", expr: `value.matches(ns == '' ? '^a$' : '^b$')`, line: 1, column: 24},
	{name: "a substring of the value", expr: `value.matches(value.substring(0, 100))`, line: 1, column: 30},
	{name: "a format", expr: `value.matches('^%s$'.format([ns]))`, line: 1, column: 28},
	{name: "in exists", expr: `[ns].exists(p, value.matches(p))`, line: 1, column: 30},
	{name: "in exists_one, the global form", expr: `value.split(',').exists_one(x, matches('a', x))`, line: 1, column: 45},
	{name: "in map", expr: `value.split(',').map(x, 'a'.matches(x)).all(b, b)`, line: 1, column: 37},
	{name: "in filter", expr: `value.split(',').filter(x, 'a'.matches(x)).size() > 0`, line: 1, column: 40},
	{name: "in sortBy", expr: `value.split(',').sortBy(x, 'a'.matches(x)).size() > 0`, line: 1, column: 40},
	{name: "nested comprehensions", expr: `value.split(',').all(x, ns.split(',').exists(y, x.matches('^' + y)))`, line: 1, column: 63},
	{name: "on a second line", expr: "ns != '' &&\n  ns.matches(value)", line: 2, column: 14, detail: notLiteral("  ns.matches(value)", 2, 14)},
	{name: "after a literal pattern", expr: `value.matches('^a') && ns.matches(value)`, line: 1, column: 35},
	{name: "two of them", expr: `ns.matches(value) || value.matches(ns)`, line: 1, column: 12,
		detail: notLiteral(`ns.matches(value) || value.matches(ns)`, 1, 12) + "\n" + notLiteral(`ns.matches(value) || value.matches(ns)`, 1, 36)},
}

// TestMatchesLiteralPattern checks that Compile refuses an expression whose
// pattern of matches is not a string literal, a *CompileError at the
// pattern: the pattern would be the tenant's, and its compile unbounded.
func TestMatchesLiteralPattern(t *testing.T) {
	t.Parallel()
	for _, tt := range nonLiteralPatternTests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			detail := tt.detail
			if detail == "" {
				detail = notLiteral(tt.expr, tt.line, tt.column)
			}
			p, err := Compile(tt.expr, "ns", "value")
			var ce *CompileError
			if p != nil || !errors.Is(err, ErrInvalid) || !errors.As(err, &ce) {
				t.Fatalf("Compile() = %v, %v; want a *CompileError wrapping ErrInvalid", p, err)
			}
			if ce.Expr != tt.expr || ce.Line != tt.line || ce.Column != tt.column || ce.Detail != detail {
				t.Errorf("Compile() error %q at %d:%d, %q;\nwant %q at %d:%d, %q", ce.Expr, ce.Line, ce.Column, ce.Detail,
					tt.expr, tt.line, tt.column, detail)
			}
		})
	}
}

// TestMatchesLiteralPatternEval checks that matches on a literal pattern, in
// either form, compiles and evaluates to the verdict and the cost it had
// before non-literal patterns were refused. The one exception is the first:
// cel-go's ValidateRegexLiterals checked the subject of the global form as
// a pattern, and refused matches('(', 'a').
func TestMatchesLiteralPatternEval(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, expr, value string
		want              bool
		cost              uint64
	}{
		{name: "a literal subject of the global form that is no pattern", expr: `matches('(', 'a')`, want: false, cost: 1},
		{name: "member form", expr: `value.matches('^(Enabled|Disabled)$')`, value: "Enabled", want: true, cost: 19},
		{name: "member form, no match", expr: `value.matches('^(Enabled|Disabled)$')`, value: "Maybe", want: false, cost: 15},
		{name: "global form", expr: `matches(value, '^a+$')`, value: "aaa", want: true, cost: 4},
		{name: "double-quoted", expr: `value.matches("^tenant-[a-z]$")`, value: "tenant-a", want: true, cost: 14},
		{name: "raw", expr: `value.matches(r'^\d+$')`, value: "123", want: true, cost: 4},
		{name: "triple-quoted", expr: `value.matches('''^a$''')`, value: "a", want: true, cost: 3},
		{name: "a dynamic subject", expr: `dyn(value).matches('^a$')`, value: "a", want: true, cost: 4},
		{name: "in all", expr: `value.split(',').all(x, x.matches('^[a-z]+$'))`, value: "a,b,c", want: true, cost: 32},
		{name: "in exists, the global form", expr: `[value].exists(x, matches(x, '^[0-9]+$'))`, value: "42", want: true, cost: 20},
		{name: "a Unicode class", expr: `'ǅ'.matches('^\\pL$')`, want: true, cost: 3},
		{name: "a case-insensitive Kelvin sign", expr: `value.matches('(?i)^\\x{212A}$')`, value: "k", want: true, cost: 5},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p, err := Compile(tt.expr, "ns", "value")
			if err != nil {
				t.Fatalf("Compile() = %v", err)
			}
			got, cost, err := WithoutTimeBudget(p).EvalLimited(context.Background(), map[string]string{"value": tt.value}, CostLimit)
			if err != nil || got != tt.want || cost != tt.cost {
				t.Errorf("EvalLimited() = %v, %d, %v; want %v, %d, nil", got, cost, err, tt.want, tt.cost)
			}
		})
	}
}

// TestMatchesLiteralPatternAsCelGo shows the departure from source-watcher
// v2.3, whose rules compile in cel-go's standard environment (as
// Kubernetes' do): there a pattern from the value compiles, and runs; here
// it is refused at Compile.
func TestMatchesLiteralPatternAsCelGo(t *testing.T) {
	t.Parallel()
	env, err := gocel.NewEnv(gocel.Variable("value", gocel.StringType))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		expr, value string
		want        types.Bool
		column      int
	}{
		{expr: `'x'.matches(value)`, value: `^\pL$`, want: true, column: 13},
		{expr: `[value].all(x, x.matches(x))`, value: `a`, want: true, column: 26},
	} {
		ast, iss := env.Compile(tt.expr)
		if iss.Err() != nil {
			t.Fatalf("cel-go: Compile(%q) = %v", tt.expr, iss.Err())
		}
		prg, err := env.Program(ast)
		if err != nil {
			t.Fatal(err)
		}
		if out, _, err := prg.Eval(map[string]any{"value": tt.value}); out != tt.want || err != nil {
			t.Errorf("cel-go: %s = %v, %v; want %v", tt.expr, out, err, tt.want)
		}
		want := fmt.Sprintf("cel: invalid expression %q: %s", tt.expr, notLiteral(tt.expr, 1, tt.column))
		if p, err := Compile(tt.expr, "value"); p != nil || err == nil || err.Error() != want {
			t.Errorf("Compile(%q) = %v, %v; want %s", tt.expr, p, err, want)
		}
	}
}

// celLiteral is a CEL string literal of s: printable ASCII as it is, but for
// the quote and the backslash, and every other code point escaped. It is
// false for s that is not UTF-8, which no CEL string holds.
func celLiteral(s string) (string, bool) {
	if !utf8.ValidString(s) {
		return "", false
	}
	var b strings.Builder
	b.WriteByte('\'')
	for _, r := range s {
		switch {
		case r == '\'' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r >= ' ' && r <= '~':
			b.WriteRune(r)
		case r <= 0xFFFF:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			fmt.Fprintf(&b, `\U%08x`, r)
		}
	}
	b.WriteByte('\'')
	return b.String(), true
}

// nonLiteralForms are expressions whose pattern of matches is built from a
// literal %[1]s and the variables s and p; § marks where Compile reports it.
var nonLiteralForms = []string{
	`s.matches(%[1]s §+ p)`,
	`s.matches(p §+ %[1]s)`,
	`matches(s, %[1]s §+ %[1]s)`,
	`s.matches(dyn§(%[1]s))`,
	`[%[1]s].exists(x, s.matches(§x))`,
	`s.split(%[1]s).all(x, x.matches(§x))`,
	`s.matches(s == '' §? %[1]s : %[1]s + p)`,
}

// patternSeeds are the patterns of FuzzMatchesLiteralPattern's seeds: those
// that pinned the charge of compiling a pattern from a value, before such
// patterns were refused, and each its own regression (0|00000, [[:).
var patternSeeds = []string{
	``, `a`, `^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`, `^(Enabled|Disabled)$`, `\pL`, `[\pL\pN]`, `(?i)[\pL]`,
	`(?i)[\x{42}-\x{1E942}]`, `a{1000}`, `(?:a{10}){10}`, `a{2,5}`, `(?i)ǅ`, `\Q\pL\E`, `[[:alpha:]\d]`,
	`(?i)[[:^alpha:]\W]`, `\pL|\pN`, `x{2}{3}`, `(?P<name>a)|b`, `\x{10FFFF}\101\x41\n`, `[`, `\p{Foo}`,
	`(((a`, `|||`, `0|00000`, `(a*)*`, `x{0}y{0,0}`, `(?:a|b){3,5}`, `[^\x00-\x{10FFFF}]`, `(?i)[pP]`,
	`[\x{100}-\x{101}]`, `(?i:a)[\x{100}-\x{2000}]`, `a**`, `\C`, `(?m)^a$`, `\Aa\z`, `(`,
	`[[:[[:[[:`, `(?P<(?P<`, `\p{\p{`, `\x{\x{`, `[\x{[\x{`, `[[:x:][[:x:]`, `^tenant-[a-z]$`, `(?i)^\x{212A}$`,
	strings.Repeat(`(?:`, 1200) + `a|\pL` + strings.Repeat(`)`, 1200),
	strings.Repeat(`(`, 1200) + `a` + strings.Repeat(`)`, 1200),
	strings.Repeat(`[\pL\pN\pP]`, 23), strings.Repeat(`(?i)[\pL],`, 25), strings.Repeat(`a{1000}`, 60),
	`abcdefghabcdefghabcdefgh`, `\PL\PL\PL`, `[^\pL][^\pL][^\pL]`, `\p{Greek}\p{Greek}\p{Greek}`, `(?i)\pL\pL\pL`,
	`(?i)[B-\x{2000}][B-\x{2000}]`, `(?i)kkk`, `\pL{1000}`, `^\pL{100}\pL{100}$`, `^(\pL\PL)(\pL\PL)$`,
	`^(?:\p{Greek}a|\p{Han}a|\p{Latin}a|\p{Cyrillic}a|b)$`, `a0|a0|a0|b`, `abcd|abce|abcd|abce|b`,
	`(a)(a)(a)`, `(?P<n>a)(?P<n>a)`, `()()()`, `\b^$\b^$`, `...`, `\d\W\d\W`, `\x{10FFFF}\x{10FFFF}`, `a*a*a*`,
}

// FuzzMatchesLiteralPattern checks that no expression whose pattern of
// matches is built from a value compiles, with the exact error at the
// pattern, and that the same pattern as a literal compiles when Go's regexp
// does, or is refused with regexp's error, and then returns what
// regexp.MatchString returns, charged matchCost, or is refused when that is
// over half the cost limit. Nothing panics.
func FuzzMatchesLiteralPattern(f *testing.F) {
	for _, p := range patternSeeds {
		f.Add("tenant-a", p)
		f.Add(strings.Repeat("a", 80), p)
	}
	ctx := context.Background()
	f.Fuzz(func(t *testing.T, subject, pattern string) {
		lit, ok := celLiteral(pattern)
		if !ok {
			lit, _ = celLiteral(strings.ToValidUTF8(pattern, "\uFFFD"))
		}
		for _, form := range nonLiteralForms {
			src := fmt.Sprintf(form, lit)
			column := strings.Index(src, "§") + 1
			expr := strings.Replace(src, "§", "", 1)
			if len(expr) > maxExpressionBytes {
				continue // refused for its length first (TestCompile)
			}
			p, err := Compile(expr, "s", "p")
			var ce *CompileError
			if p != nil || !errors.As(err, &ce) || !errors.Is(err, ErrInvalid) || ce.Line != 1 || ce.Column != column ||
				ce.Detail != notLiteral(expr, 1, column) {
				t.Fatalf("Compile(%q) = %v, %v; want %s", expr, p, err, notLiteral(expr, 1, column))
			}
		}
		expr := "s.matches(" + lit + ")"
		if !ok || len(expr) > maxExpressionBytes {
			return
		}
		re, reErr := regexp.Compile(pattern)
		p, err := Compile(expr, "s")
		if reErr != nil {
			want := fmt.Sprintf("<input>:1:11: the pattern of matches must be a valid regular expression: %v\n | %s\n | ..........^", reErr, expr)
			var ce *CompileError
			if p != nil || !errors.As(err, &ce) || ce.Detail != want {
				t.Fatalf("Compile(%q) = %v, %v; want %s", expr, p, err, want)
			}
			return
		}
		if err != nil {
			t.Fatalf("Compile(%q) = %v", expr, err)
		}
		got, cost, err := WithoutTimeBudget(p).EvalLimited(ctx, map[string]string{"s": subject}, CostLimit)
		charge := matchCost(len(subject), regexSize(pattern))
		switch {
		case charge > callLimit(CostLimit):
			if got || !errors.Is(err, ErrCostLimit) {
				t.Fatalf("charged %d, EvalLimited() = %v, %v; want a refusal", charge, got, err)
			}
		case err != nil || got != re.MatchString(subject):
			t.Fatalf("EvalLimited() = %v, %v; want %v, nil", got, err, re.MatchString(subject))
		case cost != charge+1:
			t.Fatalf("charged %d, want %d and the variable", cost, charge)
		}
	})
}
