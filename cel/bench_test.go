package cel_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	gocel "github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/interpreter"
	"github.com/tenantkit/tenantkit/cel"
)

func BenchmarkCompile(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := cel.Compile(`ns.startsWith("tenant-")`, "ns"); err != nil {
			b.Fatal(err)
		}
	}
}

var evalCases = []struct{ name, expr, ns string }{
	{"prefix", `ns.startsWith("tenant-")`, "tenant-a"},
	{"regex", `ns.matches("^tenant-[a-z0-9]([-a-z0-9]*[a-z0-9])?$")`, "tenant-alpha-42"},
}

// BenchmarkEval measures the wrapper; BenchmarkEvalBare the same program
// through cel-go directly, with the same options, to show the wrapper's
// overhead.
func BenchmarkEval(b *testing.B) {
	for _, c := range evalCases {
		b.Run(c.name, func(b *testing.B) {
			p := cel.MustCompile(c.expr, "ns")
			vars := map[string]string{"ns": c.ns}
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				if ok, err := p.Eval(ctx, vars); !ok || err != nil {
					b.Fatal(ok, err)
				}
			}
		})
	}
}

func BenchmarkEvalBare(b *testing.B) {
	for _, c := range evalCases {
		b.Run(c.name, func(b *testing.B) {
			env, err := gocel.NewEnv(gocel.Variable("ns", gocel.StringType))
			if err != nil {
				b.Fatal(err)
			}
			ast, iss := env.Compile(c.expr)
			if iss.Err() != nil {
				b.Fatal(iss.Err())
			}
			prg, err := env.Program(ast, gocel.CostLimit(cel.CostLimit), gocel.InterruptCheckFrequency(100),
				gocel.OptimizeRegex(interpreter.MatchesRegexOptimization))
			if err != nil {
				b.Fatal(err)
			}
			vars := map[string]any{"ns": c.ns}
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				if out, _, err := prg.ContextEval(ctx, vars); err != nil || out != types.True {
					b.Fatal(out, err)
				}
			}
		})
	}
}

func BenchmarkCacheHit(b *testing.B) {
	c := cel.NewCache(64)
	if _, err := c.Compile(`ns.startsWith("tenant-")`, "ns"); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.Compile(`ns.startsWith("tenant-")`, "ns"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEvalComprehension is issue 18's rule over "a,a,...": the time
// grows with the square of the elements (cel-go's cost tracker), which is
// what the charge of a range answers; 8 KiB (4,097 elements) is refused.
func BenchmarkEvalComprehension(b *testing.B) {
	p := cel.MustCompile(`value.split(',').all(x, x.matches('^[a-z]+$'))`, "value")
	ctx := context.Background()
	for _, kib := range []int{1, 2, 4, 8} {
		b.Run(fmt.Sprintf("%dKiB", kib), func(b *testing.B) {
			vars := map[string]string{"value": strings.Repeat("a,", kib<<10/2)}
			b.ReportAllocs()
			for b.Loop() {
				p.Eval(ctx, vars)
			}
		})
	}
}
