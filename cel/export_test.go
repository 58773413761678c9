package cel

import (
	"context"
	"time"

	"github.com/google/cel-go/common/types"
)

// WithoutTimeBudget returns a copy of p whose evaluations get an hour
// instead of TimeBudget. Tests that assert the outcome of an expensive
// evaluation use it, so that the outcome never depends on the machine's
// speed or load (under -race, an evaluation within the cost limit can take
// longer than TimeBudget); only TestEvalTimeBudget shows the budget at work.
func WithoutTimeBudget(p *Program) *Program { return withBudget(p, time.Hour) }

// EvalCost evaluates p as Eval does, and returns the cost charged too.
func EvalCost(p *Program, vars map[string]string) (bool, uint64, error) {
	ctx, cancel := context.WithTimeoutCause(context.Background(), p.budget, errBudget)
	defer cancel()
	out, det, err := p.prg.ContextEval(ctx, &evalState{vars: vars})
	var cost uint64
	if det != nil && det.ActualCost() != nil {
		cost = *det.ActualCost()
	}
	if err != nil {
		return false, cost, &EvalError{Expr: p.expr, Err: p.classify(context.Background(), err)}
	}
	b, _ := out.(types.Bool)
	return bool(b), cost, nil
}

// CPUTime is cpuTime, for the benchmarks of package cel_test.
func CPUTime() int64 { return cpuTime() }
