package cel

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	gocel "github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/ext"
)

// BenchmarkBuiltins measures what a unit of the cost model buys: each
// builtin whose work can grow faster than its arguments, or that cel-go
// undercharged, runs unbounded (in cel-go's own environment, which calls
// the same implementations) over 1,000, 10,000 and 50,000 elements or
// bytes, and ns/unit is its time over its charge (callCost); the CPU time
// (cpu-ns/unit) does not count waiting for the CPU on a shared machine. The
// comprehension runs in this environment (cel-go's own expansion takes
// time quadratic in its steps), charged per step. Quadratic builtins skip
// 50,000 elements, which takes minutes. The charges are fitted so that the
// worst ns/unit, times CostLimit, is about 100 ms on the reference machine.
//
//	go test -run '^$' -bench BenchmarkBuiltins -benchtime 1x ./cel
func BenchmarkBuiltins(b *testing.B) {
	hex := func(n int) []string {
		l := make([]string, n)
		for i := range l {
			l[i] = strconv.FormatInt(int64(i), 16)
		}
		return l
	}
	cases := []struct {
		name, function, expr string
		quadratic            bool
		args                 func(n int) (l []string, s string)
	}{
		{name: "distinct", function: "distinct", expr: `l.distinct()`, quadratic: true,
			args: func(n int) ([]string, string) { return hex(n), "" }},
		{name: "sort", function: "sort", expr: `l.sort()`, quadratic: true,
			args: func(n int) ([]string, string) { return hex(n), "" }},
		{name: "sets.equivalent", function: "sets.equivalent", expr: `sets.equivalent(l, l)`, quadratic: true,
			args: func(n int) ([]string, string) { return hex(n), "" }},
		{name: "sets.intersects", function: "sets.intersects", expr: `sets.intersects(l, ['zz'])`,
			args: func(n int) ([]string, string) { return hex(n), "" }},
		{name: "in", function: "@in", expr: `'zz' in l`,
			args: func(n int) ([]string, string) { return hex(n), "" }},
		{name: "equals", function: "_==_", expr: `l == m`,
			args: func(n int) ([]string, string) { return hex(n), "" }},
		{name: "indexOf", function: "indexOf", expr: `s.indexOf('aaaaaaaaab')`,
			args: func(n int) ([]string, string) { return nil, strings.Repeat("a", n) }},
		{name: "matches_unanchored", function: "matches", expr: `s.matches('x+y')`,
			args: func(n int) ([]string, string) { return nil, strings.Repeat("x", n) }},
		{name: "matches_anchored", function: "matches", expr: `s.matches('^[a-z]+$')`,
			args: func(n int) ([]string, string) { return nil, strings.Repeat("x", n) }},
		{name: "matches_label", function: "matches", expr: `s.matches('^[a-z0-9]([-a-z0-9]*[a-z0-9])?$')`,
			args: func(n int) ([]string, string) { return nil, strings.Repeat("x", n) }},
		{name: "matches_counted", function: "matches", expr: `s.matches('[a-z]{100}y')`,
			args: func(n int) ([]string, string) { return nil, strings.Repeat("x", n) }},
		{name: "matches_counted_letters", function: "matches", expr: `s.matches(r'\pL{100}y')`,
			args: func(n int) ([]string, string) { return nil, strings.Repeat("x", n) }},
		{name: "matches_counted_classes", function: "matches", expr: `s.matches(r'[\pL\pN\pP]{100}y')`,
			args: func(n int) ([]string, string) { return nil, strings.Repeat("x", n) }},
		{name: "matches_counted_folded", function: "matches", expr: `s.matches('(?i)ǅ{100}y')`,
			args: func(n int) ([]string, string) { return nil, strings.Repeat("ǆ", n/2) }},
		{name: "size", function: "size", expr: `s.size()`,
			args: func(n int) ([]string, string) { return nil, strings.Repeat("é", n/2) }},
		{name: "split", function: "split", expr: `s.split(',')`,
			args: func(n int) ([]string, string) { return nil, strings.Repeat(",", n) }},
		{name: "lowerAscii", function: "lowerAscii", expr: `s.lowerAscii()`,
			args: func(n int) ([]string, string) { return nil, strings.Repeat("A", n) }},
	}
	for _, c := range cases {
		env, err := gocel.NewEnv(gocel.Variable("l", gocel.ListType(gocel.StringType)), gocel.Variable("m", gocel.ListType(gocel.StringType)),
			gocel.Variable("s", gocel.StringType),
			ext.Strings(ext.StringsVersion(2)), ext.Sets(), ext.Lists(ext.ListsVersion(3)))
		if err != nil {
			b.Fatal(err)
		}
		a, iss := env.Compile(c.expr)
		if iss.Err() != nil {
			b.Fatal(iss.Err())
		}
		prg, err := env.Program(a)
		if err != nil {
			b.Fatal(err)
		}
		for _, n := range []int{1000, 10_000, 50_000} {
			if c.quadratic && n > 10_000 {
				continue
			}
			b.Run(fmt.Sprintf("%s/%d", c.name, n), func(b *testing.B) {
				l, s := c.args(n)
				vars := map[string]any{"l": l, "m": slices.Clone(l), "s": s}
				var args []ref.Val
				switch {
				case c.function == "_==_":
					args = []ref.Val{types.DefaultTypeAdapter.NativeToValue(l), types.DefaultTypeAdapter.NativeToValue(l)}
				case c.function == "sets.equivalent":
					args = []ref.Val{types.DefaultTypeAdapter.NativeToValue(l), types.DefaultTypeAdapter.NativeToValue(l)}
				case c.function == "sets.intersects":
					args = []ref.Val{types.DefaultTypeAdapter.NativeToValue(l), types.DefaultTypeAdapter.NativeToValue([]string{"zz"})}
				case c.function == "@in":
					args = []ref.Val{types.String("zz"), types.DefaultTypeAdapter.NativeToValue(l)}
				case l != nil:
					args = []ref.Val{types.DefaultTypeAdapter.NativeToValue(l)}
				case c.function == "indexOf":
					args = []ref.Val{types.String(s), types.String("aaaaaaaaab")}
				case c.function == "matches":
					pattern := strings.TrimSuffix(strings.SplitN(c.expr, "'", 3)[1], "'")
					args = []ref.Val{types.String(s), types.String(pattern)}
				case c.function == "split":
					args = []ref.Val{types.String(s), types.String(",")}
				default:
					args = []ref.Val{types.String(s)}
				}
				out, _, err := prg.Eval(vars)
				if err != nil {
					b.Fatal(err)
				}
				units, _ := callCost(c.function, args, out)
				if c.function == "matches" {
					// By the compiled size of the pattern, as the check
					// before the call and the tracker of its program count.
					units = matchCost(len(s), regexSize(string(args[1].(types.String))))
				}
				benchUnits(b, units, func() { prg.Eval(vars) })
			})
		}
	}
	// Comprehension steps, charged as cel-go charges them.
	p := WithoutTimeBudget(MustCompile(`value.split(',').all(x, x.size() < 10)`, "value"))
	for _, n := range []int{1000, 10_000, 50_000} {
		b.Run(fmt.Sprintf("all/%d", n), func(b *testing.B) {
			state := &evalState{vars: map[string]string{"value": strings.Join(hex(n), ",")}}
			_, det, err := p.prg.ContextEval(context.Background(), state)
			if err != nil {
				b.Fatal(err)
			}
			benchUnits(b, *det.ActualCost(), func() { p.prg.ContextEval(context.Background(), state) })
		})
	}
	// A time zone loaded at every call.
	tz := WithoutTimeBudget(MustCompile(`lists.range(1000).all(i, timestamp(0).getHours('Europe/Paris') >= 0)`))
	b.Run("getHours_tz/1000", func(b *testing.B) {
		state := &evalState{}
		_, det, err := tz.prg.ContextEval(context.Background(), state)
		if err != nil {
			b.Fatal(err)
		}
		benchUnits(b, *det.ActualCost(), func() { tz.prg.ContextEval(context.Background(), state) })
	})
}

// benchUnits runs f, charged units, reporting ns/unit and cpu-ns/unit.
func benchUnits(b *testing.B, units uint64, f func()) {
	b.Helper()
	cpu := cpuTime()
	for b.Loop() {
		f()
	}
	b.ReportMetric(float64(units), "units/op")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(units), "ns/unit")
	if cpu != 0 {
		b.ReportMetric(float64(cpuTime()-cpu)/float64(b.N)/float64(units), "cpu-ns/unit")
	}
}
