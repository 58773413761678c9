package cel

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/interpreter"
)

// Program is a compiled boolean policy. The zero value is not valid; use [Compile],
// [MustCompile] or [Cache.Compile]. A Program is immutable and safe for concurrent use.
type Program struct {
	expr   string
	vars   []string
	prg    cel.Program // planned with the cost limit CostLimit
	budget time.Duration

	// EvalLimited's plans, pooled: cel-go fixes a plan's limit, so a limit that changes between
	// evaluations needs a plan per evaluation in flight.
	plan    func(limit *uint64) (cel.Program, error)
	limited *sync.Pool // of *limitedProgram
}

// costLimit is the shared plans' limit, never written: a variable for cel-go's tracker's pointer.
var costLimit uint64 = CostLimit

type limitedProgram struct {
	prg   cel.Program
	limit uint64
}

// envOnce builds the base environment once; Compile adds variables with Extend, a copy.
var envOnce = sync.OnceValues(newEnvironment)

var identifier = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// reserved are CEL's reserved words and predefined names, which a variable must not shadow.
var reserved = map[string]bool{
	"as": true, "break": true, "const": true, "continue": true, "else": true,
	"false": true, "for": true, "function": true, "if": true, "import": true,
	"in": true, "let": true, "loop": true, "package": true, "namespace": true,
	"null": true, "return": true, "true": true, "var": true, "void": true, "while": true,
}

// Compile type-checks expr with each of vars declared as a string variable and returns the
// program, whose evaluations get [TimeBudget]. The output type must be bool.
//
//	p, err := cel.Compile(`value.matches("^(Enabled|Disabled)$")`, "value")
//
// An expression that does not compile is a [*CompileError] wrapping [ErrInvalid]: longer
// than 5 KiB (5120 bytes), a syntax or type error or a pattern of matches that is not a
// string literal or not a valid regular expression (with its line and column), or an output
// type other than bool. A variable that is not an identifier, is reserved, or is declared
// twice is an error wrapping [ErrInvalidVariable].
func Compile(expr string, vars ...string) (*Program, error) {
	if len(expr) > maxExpressionBytes {
		return nil, invalid(expr, fmt.Sprintf("must be no more than %d bytes, got %d", maxExpressionBytes, len(expr)))
	}
	decls := make([]cel.EnvOption, 0, len(vars))
	for i, v := range vars {
		switch {
		case !identifier.MatchString(v):
			return nil, fmt.Errorf("%w %q: must match %s", ErrInvalidVariable, v, identifier)
		case reserved[v]:
			return nil, fmt.Errorf("%w %q: must not be a reserved word", ErrInvalidVariable, v)
		case slices.Contains(vars[:i], v):
			return nil, fmt.Errorf("%w %q: must be declared once", ErrInvalidVariable, v)
		}
		decls = append(decls, cel.Variable(v, cel.StringType))
	}
	base, err := envOnce()
	if err != nil {
		return nil, fmt.Errorf("cel: building the environment: %w", err) // a bug, not bad input
	}
	env, err := base.env.Extend(decls...)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidVariable, err)
	}
	ast, iss := env.Compile(expr)
	if iss.Err() != nil {
		return nil, issuesError(expr, iss)
	}
	if out := ast.OutputType(); !out.IsExactType(cel.BoolType) {
		return nil, invalid(expr, fmt.Sprintf("output type must be bool, not %s", out))
	}
	plan := func(limit *uint64) (cel.Program, error) { return env.Program(ast, programOptions(base, limit)...) }
	prg, err := plan(&costLimit)
	if err != nil {
		return nil, invalid(expr, err.Error())
	}
	return &Program{expr: expr, vars: append([]string(nil), vars...), prg: prg, budget: TimeBudget,
		plan: plan, limited: new(sync.Pool)}, nil
}

func invalid(expr, detail string) *CompileError {
	return &CompileError{Expr: expr, Err: ErrInvalid, Detail: detail}
}

// issuesError turns cel-go's issues into a CompileError without their "ERROR: " prefixes.
func issuesError(expr string, iss *cel.Issues) *CompileError {
	detail := iss.Err().Error() // sorts the issues by position
	detail = strings.TrimPrefix(strings.ReplaceAll(detail, "\nERROR: ", "\n"), "ERROR: ")
	e := invalid(expr, detail)
	if errs := iss.Errors(); len(errs) > 0 && errs[0].Location.Line() >= 1 {
		e.Line, e.Column = errs[0].Location.Line(), errs[0].Location.Column()+1
	}
	return e
}

// MustCompile is like [Compile] but panics if the expression cannot be compiled. It is meant
// for literals in tests and examples.
func MustCompile(expr string, vars ...string) *Program {
	p, err := Compile(expr, vars...)
	if err != nil {
		panic(err)
	}
	return p
}

// String returns the source expression.
func (p *Program) String() string { return p.expr }

// Variables returns the declared variables, in declaration order.
func (p *Program) Variables() []string { return append([]string(nil), p.vars...) }

// Eval evaluates the program with vars bound to the declared variables; variables it does not
// declare are ignored.
//
//	ok, err := p.Eval(ctx, map[string]string{"ns": "tenant-a"})
//
// Every evaluation gets [TimeBudget], even with context.Background(); ctx can only shorten it.
// Eval never turns a failure into false. Every error is an [*EvalError]: a declared variable
// missing from vars or a runtime error wraps [ErrEval]; a bound exceeded wraps [ErrCostLimit],
// the same on every machine whatever its load; an evaluation stopped because ctx ended wraps
// ctx's error, and one stopped by the time budget wraps context.DeadlineExceeded: neither is
// a verdict on the policy or the value, and a retry may succeed.
func (p *Program) Eval(ctx context.Context, vars map[string]string) (bool, error) {
	ok, _, err := p.eval(ctx, p.prg, CostLimit, vars)
	return ok, err
}

// EvalLimited evaluates the program as [Program.Eval] does, with a cost limit of limit where
// that is less than [CostLimit], and also returns the cost the evaluation was charged:
//
//	ok, cost, err := p.EvalLimited(ctx, vars, left)
//
// A caller shares one budget among several evaluations with it, each getting what is left.
// limit bounds all that CostLimit bounds in Eval (a call checked before it runs is refused
// over half of limit), so an evaluation does at most one and a half times limit of work. When
// limit stops it, the error wraps [ErrCostLimit] and names limit, and cost is more than limit
// when the runtime cost went over it, or what was charged before the refused call; after any
// other failure, cost is what was charged until then. The first evaluation below CostLimit,
// and each that runs while all other plans are in use, plans the program again.
func (p *Program) EvalLimited(ctx context.Context, vars map[string]string, limit uint64) (bool, uint64, error) {
	if limit >= CostLimit {
		return p.eval(ctx, p.prg, CostLimit, vars)
	}
	lp, _ := p.limited.Get().(*limitedProgram)
	if lp == nil {
		lp = new(limitedProgram)
		prg, err := p.plan(&lp.limit)
		if err != nil {
			// The program planned once already: a bug, not bad input.
			return false, 0, &EvalError{Expr: p.expr, Err: fmt.Errorf("%w: planning the program: %v", ErrEval, err)}
		}
		lp.prg = prg
	}
	lp.limit = limit
	defer p.limited.Put(lp)
	return p.eval(ctx, lp.prg, limit, vars)
}

// eval evaluates prg, p planned with the cost limit limit.
func (p *Program) eval(ctx context.Context, prg cel.Program, limit uint64, vars map[string]string) (bool, uint64, error) {
	budgeted, cancel := context.WithTimeoutCause(ctx, p.budget, errBudget)
	defer cancel()
	out, det, err := prg.ContextEval(budgeted, &evalState{vars: vars})
	var cost uint64
	if det != nil && det.ActualCost() != nil {
		cost = *det.ActualCost()
	}
	if err != nil {
		return false, cost, &EvalError{Expr: p.expr, Err: p.classify(ctx, err, limit)}
	}
	b, ok := out.(types.Bool)
	if !ok {
		// The checker guarantees bool; a dynamic value can still disagree.
		return false, cost, &EvalError{Expr: p.expr, Err: fmt.Errorf("%w: result must be bool, not %s", ErrEval, out.Type())}
	}
	return bool(b), cost, nil
}

var errBudget = errors.New("time budget exhausted")

// classify maps cel-go's error to one that wraps a sentinel or is ctx's.
func (p *Program) classify(ctx context.Context, err error, limit uint64) error {
	var cancelled interpreter.EvalCancelledError
	switch {
	case errors.As(err, &cancelled) && cancelled.Cause == interpreter.CostLimitExceeded:
		return fmt.Errorf("%w: runtime cost must be no more than %d", ErrCostLimit, limit)
	case errors.As(err, &cancelled) && cancelled.Cause == refusedCause:
		return fmt.Errorf("%w: %s", ErrCostLimit, cancelled.Message)
	case ctx.Err() != nil:
		return context.Cause(ctx) // not a failure of the policy
	case errors.Is(err, errBudget):
		// Not ErrCostLimit: how far an evaluation gets in a second depends on the machine.
		return fmt.Errorf("cel: must finish within the time budget of %v: %w", p.budget, context.DeadlineExceeded)
	default:
		return fmt.Errorf("%w: %v", ErrEval, err)
	}
}
