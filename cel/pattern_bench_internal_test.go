package cel

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// patternFamilies are patterns built to make one part of compiling
// expensive, each a head, an item repeated and a tail: the worst patterns
// a value can hold, for BenchmarkPatternCharge, BenchmarkRuntimePatterns
// and the seeds of FuzzRuntimeMatches.
var patternFamilies = []struct{ name, head, item, tail string }{
	{"literals", "", "abcdefgh", ""},
	{"class_escapes", "", `[\pL\pN\pP]`, ""},
	{"letter_escape", "", `\pL`, ""},
	{"negated_letters", "", `\PL`, ""},
	{"negated_class", "", `[^\pL]`, ""},
	{"letters_digits", "", `[\pL\pN]`, ""},
	{"greek", "", `\p{Greek}`, ""},
	{"folded_letters", "(?i)", `\pL`, ""},
	{"folded_class", "(?i)", `[\pL\pN]`, ""},
	{"folded_range", "(?i)", `[\x{42}-\x{1E942}]`, ""},
	{"folded_short_range", "(?i)", `[B-\x{2000}]`, ""},
	{"folded_literal", "(?i)", "ǅ", ""},
	{"folded_ascii", "(?i)", "k", ""},
	{"folded_groups", "(?i)", `[[:^alpha:]\W]`, ""},
	{"counted", "", `(?:a{1000})`, ""},
	{"counted_range", "", `a{2,1000}`, ""},
	{"nested_counts", "", `(?:(?:(?:a{10}){10}){10})`, ""},
	{"counted_class", "", `\pL{1000}`, ""},
	{"anchored_counted_class", "^", `\pL{100}`, "$"},
	{"anchored_captures", "^", `(\pL\PL)`, "$"},
	{"anchored_alternation", "^(?:", `\p{Greek}a|\p{Han}a|\p{Latin}a|\p{Cyrillic}a|`, "b)$"},
	{"alternation", "", `a0|`, "b"},
	{"factored_alternation", "", `abcd|abce|`, "b"},
	{"captures", "", `(a)`, ""},
	{"named_captures", "", `(?P<n>a)`, ""},
	{"empty_groups", "", `()`, ""},
	{"assertions", "", `\b^$`, ""},
	{"dots", "", `.`, ""},
	{"perl_classes", "", `\d\W`, ""},
	{"hex_escapes", "", `\x{10FFFF}`, ""},
	{"stars", "", `a*`, ""},
}

// familyPattern is n copies of item between head and tail.
func familyPattern(head, item, tail string, n int) string {
	return head + strings.Repeat(item, n) + tail
}

// BenchmarkPatternCharge measures what a unit of the charge of compiling
// a pattern not known before the evaluation buys (compileCost): for each
// family of patterns, the largest pattern whose charge is within
// CostLimit is compiled as matches compiles it (regexp.Compile, after two
// scans: the check before the call and the charge after it), and
// cpu-ns/unit is its CPU time over its charge. The weights in pattern.go
// are fitted so that the worst, times CostLimit, is about 100 ms on the
// reference machine.
//
//	go test -run '^$' -bench BenchmarkPatternCharge -benchtime 3x ./cel
func BenchmarkPatternCharge(b *testing.B) {
	for _, f := range patternFamilies {
		// The most items within the limit (at most 256 KiB of them).
		most := sort.Search((256<<10)/len(f.item)+1, func(n int) bool {
			return scanPattern(familyPattern(f.head, f.item, f.tail, n)).compileCost() > CostLimit
		}) - 1
		if most < 1 {
			b.Fatalf("%s: one item is over the limit", f.name)
		}
		pattern := familyPattern(f.head, f.item, f.tail, most)
		units := scanPattern(pattern).compileCost()
		b.Run(fmt.Sprintf("%s/%d", f.name, len(pattern)), func(b *testing.B) {
			benchUnits(b, units, func() {
				scanPattern(pattern)
				scanPattern(pattern)
				regexp.Compile(pattern)
			})
		})
	}
}

// BenchmarkRuntimePatterns times whole evaluations of matches on patterns
// from a value, each the worst of its kind within the bounds: the rules
// and values of runtimePatternTests (issue 34's first), and for each family
// of patternFamilies, 'x'.matches(value) with the largest pattern of the
// family within CostLimit and value.split(',').all(x, x.matches(x)) over
// 256 KiB of its items, evaluated with CostLimit and with nsmeta's budget
// of a file (hostileBudget). cpu-ns/op is the CPU of one evaluation, the
// figure bounded at 100 ms; cost/op what it was charged.
//
//	go test -run '^$' -bench BenchmarkRuntimePatterns -benchtime 3x ./cel
func BenchmarkRuntimePatterns(b *testing.B) {
	run := func(b *testing.B, expr, value string, limit uint64) {
		p := WithoutTimeBudget(MustCompile(expr, "value"))
		vars := map[string]string{"value": value}
		var cost uint64
		cpu := cpuTime()
		for b.Loop() {
			_, cost, _ = p.EvalLimited(context.Background(), vars, limit)
		}
		b.ReportMetric(float64(cost), "cost/op")
		b.ReportMetric(float64(cpuTime()-cpu)/float64(b.N), "cpu-ns/op")
	}
	for _, tt := range runtimePatternTests {
		b.Run(strings.ReplaceAll(tt.name, " ", "_"), func(b *testing.B) {
			run(b, tt.expr, tt.value, cmp.Or(tt.limit, CostLimit))
		})
	}
	for _, f := range patternFamilies {
		most := sort.Search((256<<10)/len(f.item)+1, func(n int) bool {
			return runtimeMatchCost("x", familyPattern(f.head, f.item, f.tail, n)) > CostLimit
		}) - 1
		b.Run("one/"+f.name, func(b *testing.B) {
			run(b, `'x'.matches(value)`, familyPattern(f.head, f.item, f.tail, most), CostLimit)
		})
		// The worst evaluation within a limit: the limit's worth of other
		// work, then the largest pattern of the family that one call may
		// compile, with CostLimit and with nsmeta's budget of a file.
		for _, limit := range []uint64{CostLimit, hostileBudget} {
			half := sort.Search(most+1, func(n int) bool {
				return runtimeMatchCost("x", familyPattern(f.head, f.item, f.tail, n)) > callLimit(limit)
			}) - 1
			b.Run(fmt.Sprintf("worst/%s/%d", f.name, limit), func(b *testing.B) {
				run(b, busyWithin(b, limit)+` && 'x'.matches(value)`, familyPattern(f.head, f.item, f.tail, max(half, 0)), limit)
			})
		}
		item := f.head + strings.ReplaceAll(f.item, ",", "") + f.tail
		items := strings.TrimSuffix(strings.Repeat(item+",", (256<<10)/(len(item)+1)), ",")
		for _, limit := range []uint64{CostLimit, hostileBudget} {
			b.Run(fmt.Sprintf("each/%s/%d", f.name, limit), func(b *testing.B) {
				run(b, `value.split(',').all(x, x.matches(x))`, items, limit)
			})
		}
	}
}

// hostileBudget is package nsmeta's budget of CEL cost for the rules of
// one NamespaceMetadata file.
const hostileBudget = 100_000

// busyWithin is an expression that takes as many steps as an evaluation
// can within limit: lists.range(n).all(i, lists.range(100).all(j, j >= 0))
// with the most n that does not go over it.
func busyWithin(tb testing.TB, limit uint64) string {
	expr := func(n int) string { return fmt.Sprintf(`lists.range(%d).all(i, lists.range(100).all(j, j >= 0))`, n) }
	n := sort.Search(10_000, func(n int) bool {
		_, _, err := MustCompile(expr(n)).EvalLimited(context.Background(), nil, limit)
		return errors.Is(err, ErrCostLimit)
	}) - 1
	if n < 1 {
		tb.Fatal("no step of the comprehension is within the limit")
	}
	return expr(n)
}
