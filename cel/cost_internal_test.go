package cel

import (
	"context"
	"errors"
	"strings"
	"testing"

	gocel "github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/overloads"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/ext"
)

// TestEveryFunctionCharged checks that the cost model classifies every
// function of the environment, once: charged by builtins, or constant; or,
// for matches alone, neither: its pattern is a literal, so every call is
// matchesOptimization's, charged by its tracker (TestMatchCost). A function
// that a new library or cel-go version brings fails here until it is
// classified.
func TestEveryFunctionCharged(t *testing.T) {
	t.Parallel()
	e, err := envOnce()
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for name := range e.env.Functions() {
		seen[name] = true
		_, charged := builtins[name]
		if name == overloads.Matches {
			if charged || constantFunctions[name] {
				t.Errorf("function matches: in builtins %v, in constantFunctions %v; want neither", charged, constantFunctions[name])
			}
			continue
		}
		if charged == constantFunctions[name] {
			t.Errorf("function %s: in builtins %v, in constantFunctions %v; want exactly one", name, charged, constantFunctions[name])
		}
	}
	for name := range builtins {
		if !seen[name] {
			t.Errorf("builtins lists %s, which the environment does not have", name)
		}
	}
	for name := range constantFunctions {
		if !seen[name] {
			t.Errorf("constantFunctions lists %s, which the environment does not have", name)
		}
	}
}

// strs returns a list of n copies of s.
func strs(n int, s string) ref.Val {
	l := make([]string, n)
	for i := range l {
		l[i] = s
	}
	return types.DefaultTypeAdapter.NativeToValue(l)
}

// ints returns the list 0..n-1.
func ints(n int) ref.Val {
	l := make([]int64, n)
	for i := range l {
		l[i] = int64(i)
	}
	return types.DefaultTypeAdapter.NativeToValue(l)
}

// TestCallCost pins the charge of calls, where it is cel-go's and where it
// is higher. Strings are counted in bytes.
func TestCallCost(t *testing.T) {
	t.Parallel()
	long := types.String(strings.Repeat("a", 1000))
	nested := types.DefaultTypeAdapter.NativeToValue([][]int64{{1, 2}, {3}})
	tests := []struct {
		name     string
		function string
		args     []ref.Val
		result   ref.Val
		want     uint64
	}{
		// cel-go's charges.
		{name: "sets.contains of short elements, one a pair", function: "sets.contains", args: []ref.Val{ints(1000), ints(1000)}, want: 1_000_001},
		{name: "sets.equivalent, both ways", function: "sets.equivalent", args: []ref.Val{ints(700), ints(700)}, want: 980_001},
		{name: "distinct of ints, two a pair", function: "distinct", args: []ref.Val{ints(100)}, want: 20_011},
		{name: "distinct of short strings, 2.1 a pair", function: "distinct", args: []ref.Val{strs(100, "ab")}, want: 21_011},
		{name: "sort of short strings", function: "sort", args: []ref.Val{strs(100, "ab")}, want: 21_011},
		{name: "sortBy, by its keys", function: "@sortByAssociatedKeys", args: []ref.Val{strs(100, "ab"), ints(100)}, want: 20_011},
		{name: "in a list of short strings, one an element", function: "@in", args: []ref.Val{types.String("ab"), strs(1000, "ab")}, want: 1000},
		{name: "== of strings, the shorter", function: "_==_", args: []ref.Val{long, types.String("ab")}, want: 1},
		{name: "== of lists of different sizes, 0.1 an element", function: "_==_", args: []ref.Val{ints(100), ints(99)}, want: 10},
		{name: "ordering of strings", function: "_<_", args: []ref.Val{long, long}, want: 100},
		{name: "concatenation of strings", function: "_+_", args: []ref.Val{long, long}, want: 200},
		{name: "startsWith, by the prefix", function: "startsWith", args: []ref.Val{long, types.String("aaaaa")}, want: 1},
		{name: "indexOf, string times substring", function: "indexOf", args: []ref.Val{long, types.String(strings.Repeat("a", 10))}, want: 1001},
		{name: "flatten of ints, depth times elements", function: "flatten", args: []ref.Val{ints(10), types.Int(3)}, want: 41},
		{name: "bytes of a string", function: "bytes", args: []ref.Val{long}, want: 100},
		{name: "time zone offset", function: "getHours", args: []ref.Val{types.Timestamp{}, types.String("+01:00")}, want: 1},

		// Higher than cel-go's.
		{name: "size of a string reads it", function: "size", args: []ref.Val{long}, want: 100},
		{name: "size of a list does not", function: "size", args: []ref.Val{ints(1000)}, want: 1},
		{name: "int of a string reads it", function: "int", args: []ref.Val{types.String(strings.Repeat("1", 50))}, want: 5},
		{name: "string of a string does not", function: "string", args: []ref.Val{long}, want: 1},
		{name: "concatenation of lists, by the result", function: "_+_", args: []ref.Val{ints(3), ints(4)}, want: 7},
		{name: "in a list of long strings, by the bytes compared", function: "@in", args: []ref.Val{long, strs(100, string(long))}, want: 10_000},
		{name: "in a list of long strings of other lengths", function: "@in", args: []ref.Val{long, strs(100, "ab")}, want: 100},
		{name: "in a map, by the bytes hashed", function: "@in", args: []ref.Val{long, types.DefaultTypeAdapter.NativeToValue(map[string]bool{"a": true})}, want: 100},
		{name: "== of lists, one a pair of elements", function: "_==_", args: []ref.Val{ints(100), ints(100)}, want: 100},
		{name: "== of lists of long strings", function: "_==_", args: []ref.Val{strs(3, string(long)), strs(3, string(long))}, want: 303},
		{name: "sets.contains of long strings", function: "sets.contains", args: []ref.Val{strs(100, string(long)), strs(100, string(long))}, want: 1_000_000},
		{name: "distinct of long strings", function: "distinct", args: []ref.Val{strs(100, string(long))}, want: 495_000},
		{name: "sort of long strings", function: "sort", args: []ref.Val{strs(100, string(long))}, want: 140_000},
		{name: "flatten, by the result", function: "flatten", args: []ref.Val{nested}, want: 14},
		{name: "time zone name", function: "getHours", args: []ref.Val{types.Timestamp{}, types.String("Europe/Paris")}, want: 200},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, ok := callCost(tt.function, tt.args, tt.result)
			if !ok || got != tt.want {
				t.Errorf("callCost(%s) = %d, %v; want %d, true", tt.function, got, ok, tt.want)
			}
		})
	}
}

// TestMatchCost pins the charge of matching a constant pattern (matches
// with a constant pattern, which is compiled once, when the program is
// made): four times cel-go's, or cel-go's for a short string, by the
// instructions of the pattern, weighted (instWeight), where more than its
// bytes.
func TestMatchCost(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name    string
		subject int
		pattern string
		want    uint64
	}{
		{name: "four times cel-go's", subject: 1000, pattern: "x+y", want: 501},
		{name: "a short string, cel-go's", subject: 1, pattern: "^[a-z]+$", want: 2},
		{name: "by the compiled size where larger than the length", subject: 1000, pattern: "[a-z]{100}y", want: 10_311},
		{name: "a class of more than four ranges three times", subject: 1000, pattern: `\pL{100}y`, want: 30_331},
		{name: "a case-insensitive literal twice", subject: 1000, pattern: `(?i)ǅ{100}y`, want: 20_421},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := matchCost(tt.subject, regexSize(tt.pattern)); got != tt.want {
				t.Errorf("matchCost(%d, regexSize(%q)) = %d, want %d", tt.subject, tt.pattern, got, tt.want)
			}
		})
	}
}

// bareProgram compiles expr in cel-go's own environment with the libraries
// of this one, cel-go's macros and cel-go's charges, with no bounds.
func bareProgram(t *testing.T, expr string) gocel.Program {
	t.Helper()
	env, err := gocel.NewEnv(gocel.Variable("value", gocel.StringType),
		ext.Strings(ext.StringsVersion(2)), ext.Sets(), ext.Lists(ext.ListsVersion(3)))
	if err != nil {
		t.Fatal(err)
	}
	a, iss := env.Compile(expr)
	if iss.Err() != nil {
		t.Fatal(iss.Err())
	}
	prg, err := env.Program(a, gocel.CostLimit(1<<62))
	if err != nil {
		t.Fatal(err)
	}
	return prg
}

// TestCostAsCelGo checks that an evaluation without comprehensions, strings
// beyond 10 bytes or list concatenation costs what cel-go charges, which is
// what Kubernetes charges, however the call is dispatched.
func TestCostAsCelGo(t *testing.T) {
	t.Parallel()
	short := "[" + strings.TrimSuffix(strings.Repeat("'ab',", 100), ",") + "]"
	for _, expr := range []string{
		`sets.equivalent(lists.range(490), lists.range(490))`,
		`sets.intersects(lists.range(500), [600]) || sets.contains(lists.range(500), [1, 2])`,
		`lists.range(400).distinct().size() == 400`,
		`lists.range(400).sort().size() == 400`,
		`599 in lists.range(600)`,
		`lists.range(600).reverse().slice(1, 3).size() == 2`,
		`[[1], [2]].flatten().size() == 2`,
		short + `.distinct().size() == 1`,
		short + `.sort().size() == 100 && 'ab' in ` + short,
		`sets.contains(` + short + `, ['ab'])`,
		`value.startsWith('a') && value.endsWith('b') && value.contains('ab') && value < 'b' && bytes(value).size() == 2`,
	} {
		ours := WithoutTimeBudget(MustCompile(expr, "value"))
		_, det, err := ours.prg.ContextEval(context.Background(), &evalState{vars: map[string]string{"value": "ab"}})
		if err != nil {
			t.Fatalf("%s: %v", expr, err)
		}
		_, bare, err := bareProgram(t, expr).Eval(map[string]any{"value": "ab"})
		if err != nil {
			t.Fatalf("%s: cel-go: %v", expr, err)
		}
		if got, want := *det.ActualCost(), *bare.ActualCost(); got != want {
			t.Errorf("%s: cost %d, cel-go's %d", expr, got, want)
		}
	}
}

// TestCostDispatch checks that a call dispatched when it runs (on dyn
// values) is charged and checked as one the checker resolved: by the cost
// model, plus 1 for each dyn.
func TestCostDispatch(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ static, dynamic string }{
		{`lists.range(490).sort().size() > 0`, `dyn(lists.range(490)).sort().size() > 0`},
		{`value.size() > 0`, `dyn(value).size() > 0`},
		{`value + value != ''`, `dyn(value) + value != ''`},
		{`lists.range(9) + lists.range(9) != []`, `dyn(lists.range(9)) + lists.range(9) != []`},
		{`bytes(value).size() > 0`, `bytes(dyn(value)).size() > 0`},
		{`value.matches('^[0-9]{100}$')`, `dyn(value).matches('^[0-9]{100}$')`},
	} {
		cost := func(expr string) uint64 {
			p := WithoutTimeBudget(MustCompile(expr, "value"))
			_, det, err := p.prg.ContextEval(context.Background(), &evalState{vars: map[string]string{"value": strings.Repeat("1", 1000)}})
			if err != nil {
				t.Fatalf("%s: %v", expr, err)
			}
			return *det.ActualCost()
		}
		if s, d := cost(tt.static), cost(tt.dynamic); d != s+1 {
			t.Errorf("%s costs %d, %s costs %d; want one more", tt.static, s, tt.dynamic, d)
		}
	}
}

// TestMeaningAsCelGo checks that the macros, expanded so that cel-go's cost
// tracker takes linear time, mean what cel-go's expansions mean (the same
// value, or an error where cel-go's is one, including where a predicate
// fails for some elements and decides for others), and that the builtins
// checked before they run return what cel-go's do.
func TestMeaningAsCelGo(t *testing.T) {
	t.Parallel()
	for _, expr := range []string{
		`[1, 2, 3].all(x, x > 0)`, `[1, 2, 3].all(x, x > 1)`, `[].all(x, x > 0)`,
		`[1, 0, 2].all(x, 10 / x > 100)`, `[1, 0, 2].all(x, 10 / x > 0)`, `[0, 1].all(x, 10 / x > 100)`,
		`[1, 2, 3].exists(x, x == 2)`, `[1, 2, 3].exists(x, x == 4)`, `[].exists(x, x == 4)`,
		`[0, 2].exists(x, 10 / x == 5)`, `[2, 0].exists(x, 10 / x == 5)`, `[0, 1].exists(x, 10 / x == 5)`, `[0].exists(x, 10 / x == 5)`,
		`[1, 2, 3].exists_one(x, x > 2)`, `[1, 2, 3].exists_one(x, x > 1)`, `[0, 5].exists_one(x, 10 / x == 2)`,
		`[1, 2, 3].map(x, x * 2) == [2, 4, 6]`, `[1, 2, 3].map(x, x > 1, x * 2) == [4, 6]`, `[0, 1].map(x, 10 / x).size() == 2`,
		`[1, 2, 3].filter(x, x > 1) == [2, 3]`, `[0, 1].filter(x, 10 / x > 1).size() == 1`,
		`{'a': 1, 'b': 2}.all(k, k != 'c')`, `{'a': 1}.exists(k, k == 'a')`, `{'a': 1, 'b': 2}.map(k, k).size() == 2`,
		`['b', 'a', 'c'].sortBy(x, x) == ['a', 'b', 'c']`, `[3, 1, 2].sortBy(x, -x) == [3, 2, 1]`, `[].sortBy(x, x) == []`,
		`[[1, 2], [3]].all(l, l.exists(x, x == 3) || l.size() == 2)`,
		`value.split(',').all(x, x.split(':').exists(y, y == 'b'))`,
		`sets.equivalent(value.split(','), ['b:c', 'a:b'])`, `sets.equivalent(value.split(','), ['b:c', 'a:b', 'x'])`,
		`sets.contains(value.split(','), ['a:b'])`, `sets.contains(value.split(','), ['a:b', 'x'])`,
		`sets.intersects(['x', 'a:b'], value.split(','))`, `sets.intersects(['x', 'y'], value.split(','))`,
		`sets.contains([1, 2.0, 3u], [2, 3])`, `sets.equivalent([1, 2.0], [2u, 1])`,
		`value.split(',').distinct() == ['a:b', 'b:c']`, `value.split(',').sort() == ['a:b', 'b:c']`,
		`'a:b' in value.split(',')`, `[[1], [2]] == [[1], [2]]`, `[[1], [2]] != [[1], [3]]`, `dyn([1]) == dyn([1.0])`,
		`value.indexOf('b') == 2 && value.lastIndexOf('b') == 4`, `[[1], [[2]]].flatten(2) == [1, 2]`,
	} {
		p := WithoutTimeBudget(MustCompile(expr, "value"))
		got, err := p.Eval(context.Background(), map[string]string{"value": "a:b,b:c"})
		out, _, bareErr := bareProgram(t, expr).Eval(map[string]any{"value": "a:b,b:c"})
		switch {
		case bareErr != nil:
			if !errors.Is(err, ErrEval) {
				t.Errorf("%s = %v, %v; cel-go's is an error (%v)", expr, got, err, bareErr)
			}
		case err != nil || types.Bool(got) != out:
			t.Errorf("%s = %v, %v; cel-go's is %v", expr, got, err, out)
		}
	}
}

// TestRefusalAborts checks that a refused call ends the evaluation, even
// where || or && would absorb an error: as the cost limit does.
func TestRefusalAborts(t *testing.T) {
	t.Parallel()
	for _, expr := range []string{
		`lists.range(2000).distinct().size() > 0 || true`,
		`lists.range(2000).sort().size() > 0 && false`,
		`lists.range(2000).map(i, value).join('') == '' || true`,
	} {
		p := WithoutTimeBudget(MustCompile(expr, "value"))
		if got, err := p.Eval(context.Background(), map[string]string{"value": strings.Repeat("a", 1000)}); got || !errors.Is(err, ErrCostLimit) {
			t.Errorf("%s = %v, %v; want false, ErrCostLimit", expr, got, err)
		}
	}
}
