package cel

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// withBudget returns a copy of p whose evaluations get budget d instead of
// TimeBudget: the budget is fixed for callers, and these tests need it spent
// (or long) to show it at work.
func withBudget(p *Program, d time.Duration) *Program {
	q := *p
	q.budget = d
	return &q
}

// TestTimeBudget checks that every way to get a program gives it
// TimeBudget, which Eval applies whatever the caller's context.
func TestTimeBudget(t *testing.T) {
	t.Parallel()
	fromCache, err := NewCache(1).Compile(`true`)
	if err != nil {
		t.Fatal(err)
	}
	for name, p := range map[string]*Program{
		"MustCompile":   MustCompile(`true`),
		"Cache.Compile": fromCache,
	} {
		if p.budget != TimeBudget {
			t.Errorf("%s: budget = %v, want TimeBudget (%v)", name, p.budget, TimeBudget)
		}
	}
}

// budgetExpr takes 1,000 comprehension steps, so that an evaluation checks
// its context (every 100 steps) before it ends.
const budgetExpr = `lists.range(1000).all(i, i >= 0)`

// TestEvalTimeBudget checks that a spent budget stops an evaluation with an
// error that wraps context.DeadlineExceeded, names the budget, and is not
// ErrCostLimit: how far an evaluation gets in its budget depends on the
// machine, so it is no verdict. The budget here is spent before the
// evaluation starts (0), which makes the outcome deterministic.
func TestEvalTimeBudget(t *testing.T) {
	t.Parallel()
	p := withBudget(MustCompile(budgetExpr, "value"), 0)
	got, err := p.Eval(context.Background(), map[string]string{"value": ""})
	const want = `cel: evaluating "lists.range(1000).all(i, i >= 0)": must finish within the time budget of 0s: context deadline exceeded`
	if got || !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, ErrCostLimit) || errors.Is(err, ErrEval) || err.Error() != want {
		t.Errorf("Eval() = %v, %v; want false, %s (context.DeadlineExceeded, not ErrCostLimit nor ErrEval)", got, err, want)
	}
	var ee *EvalError
	if !errors.As(err, &ee) || ee.Expr != budgetExpr {
		t.Errorf("error %v is not an *EvalError naming the expression", err)
	}

	// A caller's context that ends first is the caller's error, without
	// the budget's message.
	ctx, cancel := context.WithDeadline(context.Background(), time.Unix(0, 0))
	defer cancel()
	p = withBudget(p, time.Hour)
	if _, err := p.Eval(ctx, map[string]string{"value": ""}); !errors.Is(err, context.DeadlineExceeded) || strings.Contains(err.Error(), "time budget") {
		t.Errorf("Eval(ended deadline) error = %v, want the caller's context.DeadlineExceeded", err)
	}

	// The same program with its budget to spare evaluates.
	if got, err := p.Eval(context.Background(), map[string]string{"value": ""}); !got || err != nil {
		t.Errorf("Eval() with an hour = %v, %v; want true, nil", got, err)
	}
}
