package cel

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/interpreter"
)

// Program is a compiled boolean policy. The zero value is not valid; use
// [Compile], [MustCompile] or [Cache.Compile].
//
// A Program is immutable and safe for concurrent use.
type Program struct {
	expr   string
	vars   []string
	prg    cel.Program
	budget time.Duration
}

// envOnce builds the shared base environment once; variables are added per
// expression with Extend, which copies.
var envOnce = sync.OnceValues(newEnvironment)

// identifier is the syntax of a declarable variable name.
var identifier = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// reserved are CEL's reserved words and the names the language already
// defines, which a variable must not shadow.
var reserved = map[string]bool{
	"as": true, "break": true, "const": true, "continue": true, "else": true,
	"false": true, "for": true, "function": true, "if": true, "import": true,
	"in": true, "let": true, "loop": true, "package": true, "namespace": true,
	"null": true, "return": true, "true": true, "var": true, "void": true, "while": true,
}

// Compile type-checks expr with each of vars declared as a string variable
// and returns the program, whose evaluations get [TimeBudget]. The output
// type must be bool.
//
//	p, err := cel.Compile(`value.matches("^(Enabled|Disabled)$")`, "value")
//
// An expression that does not compile is a [*CompileError] wrapping
// [ErrInvalid]: longer than [MaxExpressionBytes], a syntax or type error
// (with its line and column), or an output type other than bool. A variable
// that is not an identifier, is reserved, or is declared twice is an error
// wrapping [ErrInvalidVariable].
func Compile(expr string, vars ...string) (*Program, error) {
	if len(expr) > MaxExpressionBytes {
		return nil, &CompileError{Expr: expr, Err: ErrInvalid,
			Detail: fmt.Sprintf("must be no more than %d bytes, got %d", MaxExpressionBytes, len(expr))}
	}
	decls := make([]cel.EnvOption, 0, len(vars))
	seen := make(map[string]bool, len(vars))
	for _, v := range vars {
		switch {
		case !identifier.MatchString(v):
			return nil, fmt.Errorf("%w %q: must match %s", ErrInvalidVariable, v, identifier)
		case reserved[v]:
			return nil, fmt.Errorf("%w %q: must not be a reserved word", ErrInvalidVariable, v)
		case seen[v]:
			return nil, fmt.Errorf("%w %q: must be declared once", ErrInvalidVariable, v)
		}
		seen[v] = true
		decls = append(decls, cel.Variable(v, cel.StringType))
	}
	base, err := envOnce()
	if err != nil {
		// The environment is fixed at build time; this is a bug, not bad input.
		return nil, fmt.Errorf("cel: building the environment: %w", err)
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
		return nil, &CompileError{Expr: expr, Err: ErrInvalid,
			Detail: fmt.Sprintf("output type must be bool, not %s", out)}
	}
	prg, err := env.Program(ast, programOptions(base, ast)...)
	if err != nil {
		return nil, &CompileError{Expr: expr, Err: ErrInvalid, Detail: err.Error()}
	}
	return &Program{expr: expr, vars: append([]string(nil), vars...), prg: prg, budget: TimeBudget}, nil
}

// issuesError turns cel-go's issues into a CompileError with the position
// of the first one. cel-go renders each issue as "ERROR: <input>:L:C: msg"
// with the source line and a caret; the upper-case "ERROR: " goes, the rest
// stays as cel-go prints it.
func issuesError(expr string, iss *cel.Issues) *CompileError {
	detail := iss.Err().Error() // sorts the issues by position
	detail = strings.TrimPrefix(strings.ReplaceAll(detail, "\nERROR: ", "\n"), "ERROR: ")
	e := &CompileError{Expr: expr, Err: ErrInvalid, Detail: detail}
	if errs := iss.Errors(); len(errs) > 0 && errs[0].Location.Line() >= 1 {
		e.Line, e.Column = errs[0].Location.Line(), errs[0].Location.Column()+1
	}
	return e
}

// MustCompile is like [Compile] but panics if the expression cannot be
// compiled. It is meant for literals in tests and examples.
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

// Eval evaluates the program with vars bound to the declared variables.
//
//	ok, err := p.Eval(ctx, map[string]string{"ns": "tenant-a"})
//
// Every evaluation gets [TimeBudget], whatever ctx says: with
// context.Background() too. ctx can only shorten it.
//
// Eval never turns a failure into false. Every error is an [*EvalError]:
// a declared variable missing from vars or a runtime error wraps
// [ErrEval]; a bound exceeded wraps [ErrCostLimit], and is the same on
// every machine whatever its load; an evaluation stopped because ctx ended
// wraps ctx's error, and one stopped by the time budget wraps
// context.DeadlineExceeded: neither is a verdict on the policy or the
// value, and a retry may succeed. Variables that the program does not
// declare are ignored.
func (p *Program) Eval(ctx context.Context, vars map[string]string) (bool, error) {
	budgeted, cancel := context.WithTimeoutCause(ctx, p.budget, errBudget)
	defer cancel()
	out, _, err := p.prg.ContextEval(budgeted, &evalState{vars: vars})
	if err != nil {
		return false, &EvalError{Expr: p.expr, Err: p.classify(ctx, err)}
	}
	b, ok := out.(types.Bool)
	if !ok {
		// The checker guarantees bool; a dynamic value can still disagree.
		return false, &EvalError{Expr: p.expr, Err: fmt.Errorf("%w: result must be bool, not %s", ErrEval, out.Type())}
	}
	return bool(b), nil
}

// errBudget is the cause of a budgeted context whose time ran out.
var errBudget = errors.New("time budget exhausted")

// classify maps cel-go's error to one that wraps a sentinel or is ctx's.
func (p *Program) classify(ctx context.Context, err error) error {
	var cancelled interpreter.EvalCancelledError
	switch {
	case errors.As(err, &cancelled) && cancelled.Cause == interpreter.CostLimitExceeded:
		return fmt.Errorf("%w: runtime cost must be no more than %d", ErrCostLimit, CostLimit)
	case errors.As(err, &cancelled) && cancelled.Cause == refusedCause:
		return fmt.Errorf("%w: %s", ErrCostLimit, cancelled.Message)
	case ctx.Err() != nil:
		// The caller's context ended: its error, not a failure of the policy.
		return context.Cause(ctx)
	case errors.Is(err, errBudget):
		// Not ErrCostLimit: how far an evaluation gets in a second depends
		// on the machine and its load, so this is no verdict on the policy
		// or the value, and a retry may succeed.
		return fmt.Errorf("cel: must finish within the time budget of %v: %w", p.budget, context.DeadlineExceeded)
	default:
		return fmt.Errorf("%w: %v", ErrEval, err)
	}
}
