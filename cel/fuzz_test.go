package cel_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/tenantkit/tenantkit/cel"
)

// FuzzCompile checks that no expression makes Compile or Eval panic, that
// every error is one of the documented ones, and that a compiled program
// evaluates to a bool or a documented error, never from a call of matches
// that was not planned with its literal pattern.
func FuzzCompile(f *testing.F) {
	for _, tt := range compileTests {
		f.Add(tt.expr, "tenant-a")
	}
	for _, tt := range hostileCompileTests {
		f.Add(tt.expr, "tenant-a")
	}
	for _, tt := range hostileEvalTests {
		f.Add(tt.expr, tt.value)
	}
	for _, tt := range builtinTests {
		f.Add(tt.expr, tt.value)
	}
	f.Fuzz(func(t *testing.T, expr, value string) {
		p, err := cel.Compile(expr, "ns", "value")
		if err != nil {
			var ce *cel.CompileError
			if !errors.As(err, &ce) {
				t.Fatalf("Compile(%q) error %v is not a *CompileError", expr, err)
			}
			return
		}
		_, err = p.Eval(context.Background(), map[string]string{"ns": value, "value": value})
		var ee *cel.EvalError
		if err != nil && (!errors.As(err, &ee) || !errors.Is(err, cel.ErrEval) && !errors.Is(err, cel.ErrCostLimit) && !errors.Is(err, context.DeadlineExceeded)) {
			t.Fatalf("Eval(%q) error %v is not documented", expr, err)
		}
		if err != nil && strings.Contains(err.Error(), "matches: the pattern must be a string literal") {
			t.Fatalf("Eval(%q) called matches without its literal pattern: %v", expr, err)
		}
	})
}
