package cel

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// withBudget returns a copy of p whose evaluations get budget d instead of
// TimeBudget: the budget is fixed for callers, and these tests need it short
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

// budgetSlowExpr stays under CostLimit yet runs for a long time (see
// slowExpr in hostile_test.go).
const budgetSlowExpr = "lists.range(3000).all(i, [0,1,2,3,4,5,6,7,8,9].all(j, i + j >= 0))"

// TestEvalTimeBudget checks that the time budget stops what the cost limit
// does not, with ErrCostLimit and a message that names the budget, when the
// caller's context has no deadline.
func TestEvalTimeBudget(t *testing.T) {
	t.Parallel()
	p := withBudget(MustCompile(budgetSlowExpr, "value"), time.Millisecond)
	got, err := p.Eval(context.Background(), map[string]string{"value": ""})
	if got || !errors.Is(err, ErrCostLimit) || !strings.Contains(err.Error(), "must finish within the time budget of 1ms") {
		t.Errorf("Eval() = %v, %v; want false, ErrCostLimit naming the 1ms budget", got, err)
	}
	// A caller's shorter deadline wins, and is the caller's error.
	ctx, cancel := context.WithTimeout(context.Background(), time.Nanosecond)
	defer cancel()
	if _, err := p.Eval(ctx, map[string]string{"value": ""}); !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, ErrCostLimit) {
		t.Errorf("Eval(deadline) error = %v, want context.DeadlineExceeded", err)
	}
}

// TestEvalTimeBudgetMessage pins the text of a budget that ran out. A
// budget this short runs out at the first check, after 100 steps of the
// comprehension, which makes the text deterministic.
func TestEvalTimeBudgetMessage(t *testing.T) {
	t.Parallel()
	p := withBudget(MustCompile(`value.split(',').all(x, x.matches('^[a-z]+$'))`, "value"), time.Nanosecond)
	_, err := p.Eval(context.Background(), map[string]string{"value": strings.Repeat("a,", 1000)})
	const want = `cel: evaluating "value.split(',').all(x, x.matches('^[a-z]+$'))": cost limit exceeded: must finish within the time budget of 1ns`
	if !errors.Is(err, ErrCostLimit) || err.Error() != want {
		t.Errorf("Eval() error = %v, want %s", err, want)
	}
}

// TestEvalIssue18LongBudget is issue 18's input: the schema rule over a
// tenant-written annotation of 256 KiB ran for more than 5 s under the cost
// limit. Now its range is charged before it starts, and the rule fails
// with ErrCostLimit at once, whatever the time budget.
func TestEvalIssue18LongBudget(t *testing.T) {
	t.Parallel()
	const rule = `value.split(',').all(x, x.matches('^[a-z]+$'))`
	value := strings.Repeat("a,", 128<<10) // 256 KiB
	for name, p := range map[string]*Program{
		"TimeBudget": MustCompile(rule, "value"),
		"1h budget":  withBudget(MustCompile(rule, "value"), time.Hour),
	} {
		got, err := p.Eval(context.Background(), map[string]string{"value": value})
		if got || !errors.Is(err, ErrCostLimit) || !strings.Contains(err.Error(), "a comprehension must range over no more than 4000 elements, got 131073") {
			t.Errorf("%s: Eval() = %v, %v; want false, ErrCostLimit for the range", name, got, err)
		}
	}
}
