package cel

import (
	"cmp"
	"context"
	"errors"
	"math/rand/v2"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/google/cel-go/common/types"
)

// appendRange and appendFoldedRange are regexp/syntax's, which it does not
// export: the tests below check scanPattern's bounds against what they
// append.
func appendRange(r []rune, lo, hi rune) []rune {
	n := len(r)
	for i := 2; i <= 4; i += 2 {
		if n >= i {
			rlo, rhi := r[n-i], r[n-i+1]
			if lo <= rhi+1 && rlo <= hi+1 {
				if lo < rlo {
					r[n-i] = lo
				}
				if hi > rhi {
					r[n-i+1] = hi
				}
				return r
			}
		}
	}
	return append(r, lo, hi)
}

// appendFoldedRange is regexp/syntax's, and returns how many code points
// it folded too.
func appendFoldedRange(r []rune, lo, hi rune) ([]rune, int) {
	if lo <= minFold && hi >= maxFold || hi < minFold || lo > maxFold {
		return appendRange(r, lo, hi), 0
	}
	if lo < minFold {
		r = appendRange(r, lo, minFold-1)
		lo = minFold
	}
	if hi > maxFold {
		r = appendRange(r, maxFold+1, hi)
		hi = maxFold
	}
	folds := 0
	for c := lo; c <= hi; c++ {
		folds++
		r = appendRange(r, c, c)
		for f := unicode.SimpleFold(c); f != c; f = unicode.SimpleFold(f) {
			r = appendRange(r, f, f)
		}
	}
	return r, folds
}

// TestFoldingCodePoints checks minFold and maxFold, regexp/syntax's, and
// foldingCodePoints against package unicode: no code point outside them
// folds.
func TestFoldingCodePoints(t *testing.T) {
	t.Parallel()
	f := foldingCodePoints()
	if len(f) == 0 || f[0] != minFold || f[len(f)-1] != maxFold {
		t.Fatalf("folding code points run from %#x to %#x, want %#x to %#x", f[0], f[len(f)-1], minFold, maxFold)
	}
	for c := rune(0); c <= unicode.MaxRune; c++ {
		if (c < minFold || c > maxFold) && unicode.SimpleFold(c) != c {
			t.Fatalf("%#x folds, outside %#x to %#x", c, minFold, maxFold)
		}
	}
}

// TestFoldedRangeBound checks the bound of a case-insensitive range of a
// class (scanner.classRange) against the ranges and folds of the parser:
// the whole range of folding code points, the issue's, every range of
// Latin-1 and Greek, and random ones.
func TestFoldedRangeBound(t *testing.T) {
	t.Parallel()
	type rng struct{ lo, hi rune }
	ranges := []rng{{0, unicode.MaxRune}, {minFold, maxFold}, {0x42, 0x1e942}, {'B', 0x2000}, {'a', 'z'}, {'k', 'k'}, {0x1c4, 0x1cc}}
	for lo := rune(0x40); lo < 0x400; lo += 7 {
		for hi := lo; hi < 0x400; hi += 5 {
			ranges = append(ranges, rng{lo, hi})
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 300 {
		lo := r.Int32N(maxFold + 100)
		ranges = append(ranges, rng{lo, lo + r.Int32N(5000)})
	}
	for _, rg := range ranges {
		s := scanner{fold: true}
		n := s.classRange(rg.lo, rg.hi)
		got, folds := appendFoldedRange(nil, rg.lo, rg.hi)
		if uint64(len(got)/2) > n || n != s.b.ranges {
			t.Errorf("[%#x-%#x]: the parser appends %d ranges, the bound is %d (counted %d)", rg.lo, rg.hi, len(got)/2, n, s.b.ranges)
		}
		if uint64(folds) != s.b.folds {
			t.Errorf("[%#x-%#x]: the parser folds %d code points, counted %d", rg.lo, rg.hi, folds, s.b.folds)
		}
	}
}

// TestFoldedGroupBound checks the bounds of a case-insensitive Perl or
// POSIX group (groupFolds, groupFoldRanges) against what the parser
// appends for each, folding it into a class of its own.
func TestFoldedGroupBound(t *testing.T) {
	t.Parallel()
	groups := []string{`\d`, `\s`, `\w`}
	for _, name := range []string{"alnum", "alpha", "ascii", "blank", "cntrl", "digit", "graph", "lower", "print", "punct", "space", "upper", "word", "xdigit"} {
		groups = append(groups, "[[:"+name+":]]")
	}
	for _, g := range groups {
		re, err := syntax.Parse(g, syntax.Perl)
		if err != nil || re.Op != syntax.OpCharClass {
			t.Fatalf("%s: %v, %v", g, re, err)
		}
		var out []rune
		folds := 0
		for i := 0; i < len(re.Rune); i += 2 {
			var n int
			out, n = appendFoldedRange(out, re.Rune[i], re.Rune[i+1])
			folds += n
		}
		// Negated, the class has at most one range more.
		if len(out)/2+1 > groupFoldRanges || folds > groupFolds {
			t.Errorf("%s folded: %d ranges and %d folds, bounds %d and %d", g, len(out)/2+1, folds, groupFoldRanges, groupFolds)
		}
	}
}

// TestUnicodeTables checks that every class name the parser accepts has
// a cost no less than the ranges the parser appends for it, folded or
// not, negated or not.
func TestUnicodeTables(t *testing.T) {
	t.Parallel()
	var names []string
	for name := range unicode.Categories {
		names = append(names, name)
	}
	for name := range unicode.Scripts {
		names = append(names, name)
	}
	for name := range unicode.CategoryAliases {
		names = append(names, name)
	}
	names = append(names, "Any", "Assigned", "ASCII", "any", "L_", "greek", "LC", "Lc")
	slices.Sort(names)
	for _, name := range names {
		for _, form := range []string{`\p{%s}`, `\P{%s}`, `(?i)\p{%s}`, `(?i)\P{^%s}`} {
			pattern := strings.Replace(form, "%s", name, 1)
			re, err := syntax.Parse(pattern, syntax.Perl)
			if err != nil {
				continue // a name the parser refuses
			}
			if _, ok := unicodeTables().names[canonicalName(name)]; !ok {
				t.Errorf("%s: the parser knows %q, unicodeTables does not", pattern, name)
			}
			b := scanPattern(pattern)
			if got := uint64(len(re.Rune) / 2); got > b.prog.runes || got > b.ranges {
				t.Errorf("%s: %d ranges, bounded at %d held and %d appended", pattern, got, b.prog.runes, b.ranges)
			}
		}
	}
}

// scanTests are patterns with the bounds scanPattern finds for them and
// their charge: compiling, and matching a 100-byte string.
var scanTests = []struct {
	pattern                      string
	insts, ranges, folds, charge uint64
}{
	{pattern: ``, insts: 3, ranges: 0, folds: 0, charge: 54},
	{pattern: `a`, insts: 3, ranges: 0, folds: 0, charge: 57},
	{pattern: `^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`, insts: 13, ranges: 14, folds: 0, charge: 410},
	{pattern: `^(Enabled|Disabled)$`, insts: 23, ranges: 15, folds: 0, charge: 383},
	{pattern: `\pL`, insts: 3, ranges: 751, folds: 0, charge: 377},
	{pattern: `[\pL\pN]`, insts: 3, ranges: 1782, folds: 0, charge: 1711},
	{pattern: `(?i)[\pL]`, insts: 3, ranges: 1504, folds: 0, charge: 2297},
	{pattern: `(?i)[\x{42}-\x{1E942}]`, insts: 3, ranges: 23014, folds: 125185, charge: 56862},
	{pattern: `a{1000}`, insts: 1002, ranges: 0, folds: 0, charge: 12667},
	{pattern: `(?:a{10}){10}`, insts: 102, ranges: 0, folds: 0, charge: 1313},
	{pattern: `a{2,5}`, insts: 13, ranges: 0, folds: 0, charge: 186},
	{pattern: `(?i)ǅ`, insts: 3, ranges: 0, folds: 1, charge: 87},
	{pattern: `\Q\pL\E`, insts: 5, ranges: 0, folds: 0, charge: 107},
	{pattern: `[[:alpha:]\d]`, insts: 3, ranges: 20, folds: 0, charge: 171},
	{pattern: `(?i)[[:^alpha:]\W]`, insts: 3, ranges: 114, folds: 126, charge: 328},
	{pattern: `\pL|\pN`, insts: 6, ranges: 1782, folds: 0, charge: 1742},
	{pattern: `x{2}{3}`, insts: 8, ranges: 0, folds: 0, charge: 125},
	{pattern: `(?P<name>a)|b`, insts: 8, ranges: 2, folds: 0, charge: 182},
	{pattern: `\x{10FFFF}\101\x41\n`, insts: 6, ranges: 0, folds: 0, charge: 245},
	{pattern: `[`, insts: 3, ranges: 0, folds: 0, charge: 67},
	{pattern: `\p{Foo}`, insts: 3, ranges: 806, folds: 0, charge: 420},
	{pattern: `(((a`, insts: 9, ranges: 0, folds: 0, charge: 154},
	{pattern: `|||`, insts: 9, ranges: 0, folds: 0, charge: 129},
	{pattern: `0|00000`, insts: 10, ranges: 6, folds: 0, charge: 162}, // factored to 0(?:|0000): FuzzRuntimeMatches
	{pattern: `(a*)*`, insts: 9, ranges: 0, folds: 0, charge: 144},
	{pattern: `x{0}y{0,0}`, insts: 4, ranges: 0, folds: 0, charge: 138},
	{pattern: `(?:a|b){3,5}`, insts: 26, ranges: 2, folds: 0, charge: 356},
	{pattern: `[^\x00-\x{10FFFF}]`, insts: 3, ranges: 3, folds: 0, charge: 211},
	{pattern: `(?i)[pP]`, insts: 3, ranges: 28, folds: 2, charge: 125},
	{pattern: `[\x{100}-\x{101}]`, insts: 3, ranges: 2, folds: 0, charge: 200},
	{pattern: `(?i:a)[\x{100}-\x{2000}]`, insts: 4, ranges: 12174, folds: 7938, charge: 15046},
	{pattern: `a**`, insts: 7, ranges: 0, folds: 0, charge: 112},
	{pattern: `\C`, insts: 3, ranges: 0, folds: 0, charge: 57},
	{pattern: `(?m)^a$`, insts: 5, ranges: 0, folds: 0, charge: 117},
	{pattern: `\Aa\z`, insts: 5, ranges: 0, folds: 0, charge: 97},
	{pattern: strings.Repeat(`(?:`, 1500) + `a` + strings.Repeat(`)`, 1500) + `{3}`, insts: 5, ranges: 0, folds: 0, charge: 65070},
	{pattern: strings.Repeat(`(?:`, 1500) + `(a)(b)` + strings.Repeat(`)`, 1500) + `*`, insts: 10, ranges: 0, folds: 0, charge: 65135},
	{pattern: strings.Repeat(`(?:`, 1200) + `a|\pL` + strings.Repeat(`)`, 1200), insts: 6, ranges: 1503, folds: 0, charge: 53436},
	{pattern: strings.Repeat(`(?:`, 1200) + `(?:a{10}){10}` + strings.Repeat(`)`, 1100) + `{5}`, insts: 502, ranges: 0, folds: 0, charge: 52455},
	{pattern: strings.Repeat(`(`, 1200) + `a` + strings.Repeat(`)`, 1200), insts: 2403, ranges: 0, folds: 0, charge: 41029},
}

func TestScanPattern(t *testing.T) {
	t.Parallel()
	for _, tt := range scanTests {
		t.Run(tt.pattern[:min(len(tt.pattern), 64)], func(t *testing.T) {
			t.Parallel()
			b := scanPattern(tt.pattern)
			charge := runtimeMatchCost(strings.Repeat("x", 100), tt.pattern)
			if b.prog.insts != tt.insts || b.ranges != tt.ranges || b.folds != tt.folds || charge != tt.charge {
				t.Errorf("scanPattern(%q) = %d instructions, %d ranges, %d folds, charged %d; want %d, %d, %d, %d",
					tt.pattern, b.prog.insts, b.ranges, b.folds, charge, tt.insts, tt.ranges, tt.folds, tt.charge)
			}
			checkBound(t, tt.pattern, b)
		})
	}
}

// TestScanDepth checks that scanning a pattern nested deeper than maxDepth
// keeps at most maxDepth groups of its own, however deep the pattern: the
// parser accepts 100,000 groups without captures, one in another.
func TestScanDepth(t *testing.T) {
	t.Parallel()
	pattern := strings.Repeat(`(?:`, 100_000) + `a` + strings.Repeat(`)`, 100_000)
	var s scanner
	s.scan(pattern)
	if c := cap(s.groups); c > 2*(maxDepth+1) {
		t.Errorf("the scan held %d groups, want at most %d", c, 2*(maxDepth+1))
	}
	if _, err := regexp.Compile(pattern); err != nil {
		t.Fatalf("regexp.Compile() = %v", err)
	}
	checkBound(t, pattern, s.b)
}

// checkBound checks the bounds of b against the program pattern compiles
// to: its instructions and the ranges of its rune instructions, weighted.
func checkBound(t *testing.T, pattern string, b patternBound) {
	t.Helper()
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return
	}
	prog, err := syntax.Compile(re.Simplify())
	if err != nil {
		return
	}
	var weighted, runes, others uint64
	for _, inst := range prog.Inst {
		switch inst.Op {
		case syntax.InstRune, syntax.InstRune1, syntax.InstRuneAny, syntax.InstRuneAnyNotNL:
			runes += uint64(max(1, len(inst.Rune)/2))
			weighted += instWeight(uint64(len(inst.Rune)/2), inst.Op == syntax.InstRune && syntax.Flags(inst.Arg)&syntax.FoldCase != 0)
		default:
			others++
			weighted++
		}
	}
	if n := uint64(len(prog.Inst)); n > b.prog.insts || weighted > b.prog.weighted || runes > b.prog.runes || others > b.prog.others {
		t.Errorf("%q compiles to %d instructions (%d weighted, %d ranges, %d others), bounded at %d (%d, %d, %d)",
			pattern, n, weighted, runes, others, b.prog.insts, b.prog.weighted, b.prog.runes, b.prog.others)
	}
	if !b.anchored && prog.StartCond()&syntax.EmptyBeginText != 0 {
		t.Errorf("%q starts anchored, not counted", pattern)
	}
}

// issue34Items joins n copies of item with commas: the values of issue 34's
// item 6.
func issue34Items(item string, n int) string {
	return strings.TrimSuffix(strings.Repeat(item+",", n), ",")
}

// runtimePatternTests are evaluations of matches on a pattern from a value,
// issue 34's items 5 and 6 first, each with its exact outcome, evaluated
// with the cost limit limit (CostLimit when 0): a verdict and its cost, or
// an error wrapping ErrCostLimit (or, for detail alone, ErrEval) with that
// message. BenchmarkRuntimePatterns times them.
var runtimePatternTests = []struct {
	name, expr, value string
	limit             uint64
	want              bool
	cost              uint64
	wantErr           error
	detail            string
}{
	// Issue 34, item 5: 2.8 to 3.2 s of CPU, then a verdict, within the
	// budget of a file and the cost limit.
	{name: "issue 34 item 5: 20,480 Unicode classes", expr: `'x'.matches(value)`,
		value: strings.Repeat(`[\pL\pN\pP]`, 20480), wantErr: ErrCostLimit,
		detail: "matches: cost of one call must be no more than 500000, half the cost limit 1000000, got 43261360 (a 1-byte string and a 225280-byte pattern not known before the evaluation: 43205040 to compile it, 56320 to match it)"},
	{name: "issue 34 item 5 under the budget of a file", expr: `'x'.matches(value)`, limit: 100_000,
		value: strings.Repeat(`[\pL\pN\pP]`, 20480), wantErr: ErrCostLimit,
		detail: "matches: cost of one call must be no more than 50000, half the cost limit 100000, got 43261360 (a 1-byte string and a 225280-byte pattern not known before the evaluation: 43205040 to compile it, 56320 to match it)"},
	// Issue 34, item 6: 590 to 630 ms of CPU within the budget of a
	// file, 376 to 460 ms for the case-insensitive items.
	{name: "issue 34 item 6: 29,000 patterns of two classes", expr: `value.split(',').all(x, x.matches(x))`, limit: 100_000,
		value: issue34Items(`[\pL\pN]`, 29000), wantErr: ErrCostLimit, detail: "runtime cost must be no more than 100000"},
	{name: "issue 34 item 6 case-insensitive", expr: `value.split(',').all(x, x.matches(x))`, limit: 100_000,
		value: issue34Items(`(?i)[\pL]`, 25000), wantErr: ErrCostLimit, detail: "runtime cost must be no more than 100000"},
	{name: "issue 34 item 6 within the cost limit", expr: `value.split(',').all(x, x.matches(x))`,
		value: issue34Items(`[\pL\pN]`, 29000), wantErr: ErrCostLimit, detail: "runtime cost must be no more than 1000000"},
	{name: "issue 34 item 6 case-insensitive within the cost limit", expr: `value.split(',').all(x, x.matches(x))`,
		value: issue34Items(`(?i)[\pL]`, 25000), wantErr: ErrCostLimit, detail: "runtime cost must be no more than 1000000"},
	{name: "issue 34 item 6, the items the budget of a file allows", expr: `value.split(',').all(x, x.matches(x))`, limit: 100_000,
		value: issue34Items(`[\pL\pN]`, 60), want: true, cost: 98647},

	// Verdicts, and their charges.
	{name: "a label value as a pattern", expr: `'tenant-a'.matches(value)`, value: `^tenant-[a-z]$`, want: true, cost: 99},
	{name: "a pattern built from a value", expr: `'abc'.matches('^' + value + '$')`, value: `a.c`, want: true, cost: 63},
	{name: "a Unicode class from a value", expr: `'ǅ'.matches(value)`, value: `^\pL$`, want: true, cost: 493},
	{name: "a case-insensitive Kelvin sign", expr: `'k'.matches(value)`, value: `(?i)^\x{212A}$`, want: true, cost: 53},
	{name: "a case-insensitive range", expr: `'ǆ'.matches(value)`, value: `(?i)^[\x{1C4}-\x{1C5}]$`, want: true, cost: 72},
	{name: "no match", expr: `'tenant-a'.matches(value)`, value: `^team-`, want: false, cost: 71},
	{name: "the same class as a constant, compiled once", expr: `'ǅ'.matches('^\\pL$')`, want: true, cost: 3},
	{name: "a value that is no pattern", expr: `'x'.matches(value)`, value: `(`, wantErr: ErrEval, detail: "error parsing regexp: missing closing ): `(`"},
	{name: "a folded range over the budget of a file", expr: `'x'.matches(value)`, limit: 100_000,
		value: strings.Repeat(`(?i)[\x{42}-\x{1E942}]`, 3), wantErr: ErrCostLimit,
		detail: "matches: cost of one call must be no more than 50000, half the cost limit 100000, got 169894 (a 1-byte string and a 66-byte pattern not known before the evaluation: 169877 to compile it, 17 to match it)"},
	{name: "a repetition over the budget of a file", expr: `'x'.matches(value)`, limit: 100_000,
		value: strings.Repeat(`a{1000}`, 60), wantErr: ErrCostLimit,
		detail: "matches: cost of one call must be no more than 50000, half the cost limit 100000, got 259154 (a 1-byte string and a 420-byte pattern not known before the evaluation: 244153 to compile it, 15001 to match it)"},
	{name: "a long subject and a pattern from a value", expr: `value.matches(value.substring(0, 100))`,
		value: strings.Repeat(`\pL`, 40000), wantErr: ErrCostLimit,
		detail: "matches: cost of one call must be no more than 500000, half the cost limit 1000000, got 1200010 (a 120000-byte string and a 100-byte pattern)"},
}

func TestRuntimePatterns(t *testing.T) {
	t.Parallel()
	for _, tt := range runtimePatternTests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := WithoutTimeBudget(MustCompile(tt.expr, "value"))
			got, cost, err := p.EvalLimited(context.Background(), map[string]string{"value": tt.value}, cmp.Or(tt.limit, CostLimit))
			if tt.wantErr == nil {
				if err != nil || got != tt.want || cost != tt.cost {
					t.Fatalf("EvalLimited() = %v, %d, %v; want %v, %d, nil", got, cost, err, tt.want, tt.cost)
				}
				return
			}
			want := "cel: cost limit exceeded: " + tt.detail
			if tt.wantErr == ErrEval {
				want = "cel: runtime error: " + tt.detail
			}
			var ee *EvalError
			if got || !errors.Is(err, tt.wantErr) || !errors.As(err, &ee) || ee.Expr != tt.expr || ee.Err.Error() != want {
				t.Fatalf("EvalLimited() = %v, %v;\nwant false, an *EvalError: %s", got, err, want)
			}
		})
	}
}

// TestRuntimePatternAsKubernetes shows how the charge of a pattern from a
// value departs from cel-go's, which is Kubernetes': cel-go compiles the
// pattern, matches, and charges the lengths of the string and the pattern
// after the call; here the call is charged for compiling the pattern too,
// before it compiles, and refused when that is over the evaluation's cost
// limit (here the budget of a NamespaceMetadata file).
func TestRuntimePatternAsKubernetes(t *testing.T) {
	t.Parallel()
	const expr = `'x'.matches(value)`
	value := strings.Repeat(`[\pL\pN\pP]`, 200)
	out, det, err := bareProgram(t, expr).Eval(map[string]any{"value": value})
	if err != nil || out != types.False || *det.ActualCost() != 551 {
		t.Errorf("cel-go: %v, %d, %v; want false, charged 551, nil", out, *det.ActualCost(), err)
	}
	p := WithoutTimeBudget(MustCompile(expr, "value"))
	vars := map[string]string{"value": value}
	if got, cost, err := p.EvalLimited(context.Background(), vars, CostLimit); got || cost != 422_076 || err != nil {
		t.Errorf("EvalLimited(CostLimit) = %v, %d, %v; want false, charged 422076, nil", got, cost, err)
	}
	const want = "cel: cost limit exceeded: matches: cost of one call must be no more than 50000, half the cost limit 100000, got 422075 " +
		"(a 1-byte string and a 2200-byte pattern not known before the evaluation: 421525 to compile it, 550 to match it)"
	got, cost, err := p.EvalLimited(context.Background(), vars, 100_000)
	var ee *EvalError
	if got || cost != 1 || !errors.Is(err, ErrCostLimit) || !errors.As(err, &ee) || ee.Err.Error() != want {
		t.Errorf("EvalLimited(100000) = %v, %d, %v; want false, charged 1, %s", got, cost, err, want)
	}
}

// FuzzRuntimeMatches checks matches on a pattern from a value against Go's
// regexp: where the charge admits the call, it returns what
// regexp.MatchString returns, the same verdict or the same error, and is
// charged the charge (and the two variables it reads); where it does not,
// it is refused. It checks scanPattern's bounds against the program each
// pattern compiles to, too. Seeded from scanTests, runtimePatternTests
// (their values cut to 256 bytes) and a few items of each of patternFamilies.
func FuzzRuntimeMatches(f *testing.F) {
	for _, tt := range scanTests {
		f.Add("tenant-a", tt.pattern)
	}
	for _, tt := range runtimePatternTests {
		// The first 256 bytes of each value: the fuzzer mutates and
		// minimizes an input by running it thousands of times.
		v := tt.value[:min(len(tt.value), 256)]
		f.Add("x", v)
		f.Add(v, "^"+v)
	}
	for _, fam := range patternFamilies {
		f.Add("x", familyPattern(fam.head, fam.item, fam.tail, 3))
		f.Add("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", familyPattern(fam.head, fam.item, fam.tail, 2))
	}
	p := WithoutTimeBudget(MustCompile(`s.matches(p)`, "s", "p"))
	f.Fuzz(func(t *testing.T, subject, pattern string) {
		charge := runtimeMatchCost(subject, pattern)
		got, cost, err := p.EvalLimited(context.Background(), map[string]string{"s": subject, "p": pattern}, CostLimit)
		if charge > callLimit(CostLimit) { // one call may spend half the limit
			if got || !errors.Is(err, ErrCostLimit) {
				t.Fatalf("charged %d, EvalLimited() = %v, %v; want a refusal", charge, got, err)
			}
			return
		}
		checkBound(t, pattern, scanPattern(pattern))
		want, werr := regexp.MatchString(pattern, subject)
		switch {
		case werr != nil:
			if got || !errors.Is(err, ErrEval) || !strings.Contains(err.Error(), werr.Error()) {
				t.Fatalf("EvalLimited() = %v, %v; want the error %v", got, err, werr)
			}
		case err != nil || got != want:
			t.Fatalf("EvalLimited() = %v, %v; want %v, nil", got, err, want)
		case cost != charge+2:
			t.Fatalf("charged %d, want %d and the two variables", cost, charge)
		}
	})
}

// TestScanLinear checks that scanning stays linear where the parser searches
// ahead for the end of a construct that never comes (or that a refused escape
// leaves unread): before the charge was known, 256 KiB of "[[:" took seconds,
// each "[:" searching the rest of the pattern for ":]".
func TestScanLinear(t *testing.T) {
	t.Parallel()
	for _, unit := range []string{`[[:`, `(?P<`, `(?<`, `\p{`, `\x{`, `[\x{`, `[[:x:]`} {
		t.Run(unit, func(t *testing.T) {
			t.Parallel()
			p := strings.Repeat(unit, 64<<10) + `}`
			var s scanner
			s.scan(p)
			if s.searched > 3*len(p) {
				t.Errorf("the scan searched %d bytes of a %d-byte pattern, want at most %d", s.searched, len(p), 3*len(p))
			}
		})
	}
}
