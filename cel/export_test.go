package cel

import (
	"context"
	"time"
)

// WithoutTimeBudget returns a copy of p whose evaluations get an hour
// instead of TimeBudget. Tests that assert the outcome of an expensive
// evaluation use it, so that the outcome never depends on the machine's
// speed or load (under -race, an evaluation within the cost limit can take
// longer than TimeBudget); only TestEvalTimeBudget shows the budget at work.
func WithoutTimeBudget(p *Program) *Program { return withBudget(p, time.Hour) }

// EvalCost evaluates p as Eval does, and returns the cost charged too.
func EvalCost(p *Program, vars map[string]string) (bool, uint64, error) {
	return p.EvalLimited(context.Background(), vars, CostLimit)
}

// CPUTime is cpuTime, for the benchmarks of package cel_test.
func CPUTime() int64 { return cpuTime() }
