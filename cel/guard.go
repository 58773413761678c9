package cel

import (
	"fmt"
	"slices"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/interpreter"
	"github.com/google/cel-go/interpreter/functions"
)

// programOptions bound a program of e by the cost model (cost.go). The cost limit is *limit,
// read by each evaluation, so that a limitedProgram can change it between them.
func programOptions(e *environment, limit *uint64) []cel.ProgramOption {
	sizes := map[string]int{} // the regexSize of each constant pattern, written while planning
	constant := func(args []ref.Val, _ ref.Val) *uint64 {
		pattern, _ := args[1].(types.String)
		size, ok := sizes[string(pattern)]
		if !ok {
			size = regexSize(string(pattern))
		}
		c := matchCost(int(sizeOf(args[0])), size)
		return &c
	}
	return []cel.ProgramOption{
		// cel.CostLimit would copy its limit; this points at *limit.
		cel.CostTrackerOptions(func(t *interpreter.CostTracker) error { t.Limit = limit; return nil }),
		cel.InterruptCheckFrequency(interruptCheckFrequency),
		cel.CustomDecoratorV2(guard(e, limit)),
		cel.OptimizeRegex(matchesOptimization(limit, sizes)),
		// cel-go charges a call by its overload's tracker, else by the estimator, which charges
		// callCost by function name, alike whether the checker resolved the overload or cel-go
		// dispatches it at run time on dyn values.
		cel.CostTracking(estimator{}),
		cel.CostTrackerOptions(interpreter.OverloadCostTracker(constantMatches, constant)),
	}
}

// estimator charges a call by callCost; nil leaves a function the cost model does not list to
// cel-go, which charges 1.
type estimator struct{}

func (estimator) CallCost(function, _ string, args []ref.Val, result ref.Val) *uint64 {
	if c, ok := callCost(function, args, result); ok {
		return &c
	}
	return nil
}

// guard plans each call that is checked before it runs as a checkedCall.
func guard(e *environment, limit *uint64) interpreter.InterpretableDecoratorV2 {
	return func(i interpreter.InterpretableV2) (interpreter.InterpretableV2, error) {
		call, ok := i.(interpreter.InterpretableCall)
		if !ok {
			return i, nil
		}
		fn := call.Function()
		b, ok := builtins[fn]
		if !ok || !b.checked() {
			return i, nil
		}
		impl := e.impl(fn, call.OverloadID())
		if impl == nil {
			return nil, fmt.Errorf("cel: no implementation of %s (%s)", fn, call.OverloadID())
		}
		return &checkedCall{InterpretableCall: call, args: call.Args(), impl: impl, builtin: b, limit: limit}, nil
	}
}

// checkedCall is the call it embeds, which gives its ID, Function, OverloadID and Args, with
// Eval and Exec of its own: the embedded call's never run.
type checkedCall struct {
	interpreter.InterpretableCall
	args    []interpreter.InterpretableV2 // Args(), which some calls build anew
	impl    *functions.Overload
	builtin *builtin
	limit   *uint64 // the cost limit of the evaluation
}

func (c *checkedCall) Eval(a interpreter.Activation) ref.Val { return c.Exec(interpreter.AsFrame(a)) }

// Exec evaluates the arguments as cel-go's calls do, returns the first error or unknown among
// them, refuses the call if its builtin says so, and calls the implementation otherwise.
func (c *checkedCall) Exec(frame *interpreter.ExecutionFrame) ref.Val {
	vals := make([]ref.Val, len(c.args))
	for i, a := range c.args {
		vals[i] = a.Exec(frame)
		if len(c.args) > 2 && types.IsUnknownOrError(vals[i]) {
			return vals[i]
		}
	}
	if i := slices.IndexFunc(vals, types.IsUnknownOrError); i >= 0 {
		return vals[i]
	}
	c.builtin.check(vals, *c.limit)
	if c.builtin.prepare != nil {
		vals = c.builtin.prepare(vals)
	}
	return types.LabelErrNode(c.ID(), c.call(vals))
}

// call runs the implementation as cel-go's planner would.
func (c *checkedCall) call(vals []ref.Val) ref.Val {
	if t := c.impl.OperandTrait; t != 0 && !vals[0].Type().HasTrait(t) {
		return types.NewErrWithNodeID(c.ID(), "no such overload: %s", c.Function())
	}
	switch {
	case len(vals) == 1 && c.impl.Unary != nil:
		return c.impl.Unary(vals[0])
	case len(vals) == 2 && c.impl.Binary != nil:
		return c.impl.Binary(vals[0], vals[1])
	case c.impl.Function != nil:
		return c.impl.Function(vals...)
	}
	return types.NewErrWithNodeID(c.ID(), "no such overload: %s", c.Function())
}

// equality implements == and != as cel-go plans them (types.Equal); the standard library
// binds them to nothing.
var equality = map[string]*functions.Overload{
	"_==_": {Operator: "_==_", Binary: func(a, b ref.Val) ref.Val { return types.Equal(a, b) }},
	"_!=_": {Operator: "_!=_", Binary: func(a, b ref.Val) ref.Val { return types.Bool(types.Equal(a, b) != types.True) }},
}

type evalState struct{ vars map[string]string }

func (s *evalState) ResolveName(name string) (any, bool) {
	if name == alwaysVariable {
		return types.True, true
	}
	v, ok := s.vars[name]
	if !ok {
		return nil, false
	}
	return types.String(v), true
}

func (s *evalState) Parent() interpreter.Activation { return nil }
