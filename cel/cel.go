package cel

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"sync"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/interpreter"
)

// Program is a compiled boolean policy. The zero value is not valid; use
// [Compile], [MustCompile] or [Cache.Compile].
//
// A Program is immutable and safe for concurrent use.
type Program struct {
	expr string
	vars []string
	prg  cel.Program
}

// envOnce builds the shared base environment once; variables are added per
// expression with Extend, which copies.
var envOnce = sync.OnceValues(newEnv)

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
// and returns the program. The output type must be bool.
//
//	p, err := cel.Compile(`value.matches("^(Enabled|Disabled)$")`, "value")
//
// Errors are [*CompileError] values wrapping [ErrTooLong] (more than
// [MaxExpressionBytes]), [ErrInvalidVariable] (a variable that is not an
// identifier, is reserved, or is declared twice), [ErrInvalid] (a syntax or
// type error, with line:column and a caret) or [ErrNotBool].
func Compile(expr string, vars ...string) (*Program, error) {
	if len(expr) > MaxExpressionBytes {
		return nil, &CompileError{Expr: expr, Err: ErrTooLong,
			Detail: fmt.Sprintf("must be no more than %d bytes, got %d", MaxExpressionBytes, len(expr))}
	}
	decls := make([]cel.EnvOption, 0, len(vars))
	seen := make(map[string]bool, len(vars))
	for _, v := range vars {
		switch {
		case !identifier.MatchString(v):
			return nil, &CompileError{Expr: expr, Err: ErrInvalidVariable,
				Detail: fmt.Sprintf("variable %q must match %s", v, identifier)}
		case reserved[v]:
			return nil, &CompileError{Expr: expr, Err: ErrInvalidVariable,
				Detail: fmt.Sprintf("variable %q must not be a reserved word", v)}
		case seen[v]:
			return nil, &CompileError{Expr: expr, Err: ErrInvalidVariable,
				Detail: fmt.Sprintf("variable %q must be declared once", v)}
		}
		seen[v] = true
		decls = append(decls, cel.Variable(v, cel.StringType))
	}
	base, err := envOnce()
	if err != nil {
		// The environment is fixed at build time; this is a bug, not bad input.
		return nil, fmt.Errorf("cel: building the environment: %w", err)
	}
	env, err := base.Extend(decls...)
	if err != nil {
		return nil, &CompileError{Expr: expr, Err: ErrInvalidVariable, Detail: err.Error()}
	}
	ast, iss := env.Compile(expr)
	if iss.Err() != nil {
		return nil, &CompileError{Expr: expr, Err: ErrInvalid, Detail: iss.Err().Error()}
	}
	if out := ast.OutputType(); !out.IsExactType(cel.BoolType) {
		return nil, &CompileError{Expr: expr, Err: ErrNotBool,
			Detail: fmt.Sprintf("the output type is %s, not bool", out)}
	}
	prg, err := env.Program(ast,
		cel.CostLimit(CostLimit),
		cel.InterruptCheckFrequency(interruptCheckFrequency),
		// Compile a constant regular expression once, not at every call.
		cel.OptimizeRegex(interpreter.MatchesRegexOptimization),
		costTrackers(),
	)
	if err != nil {
		return nil, &CompileError{Expr: expr, Err: ErrInvalid, Detail: err.Error()}
	}
	return &Program{expr: expr, vars: append([]string(nil), vars...), prg: prg}, nil
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
// A declared variable missing from vars, a runtime error, and a bound
// exceeded are errors ([*EvalError] wrapping [ErrEval], [ErrCostLimit] or
// the context's error): Eval never turns a failure into false. Variables
// that the program does not declare are ignored.
func (p *Program) Eval(ctx context.Context, vars map[string]string) (bool, error) {
	out, _, err := p.prg.ContextEval(ctx, activation(vars))
	if err != nil {
		return false, &EvalError{Expr: p.expr, Err: classify(ctx, err)}
	}
	b, ok := out.(types.Bool)
	if !ok {
		// The checker guarantees bool; a dynamic value can still disagree.
		return false, &EvalError{Expr: p.expr, Err: fmt.Errorf("%w: result is %s, not bool", ErrEval, out.Type())}
	}
	return bool(b), nil
}

func classify(ctx context.Context, err error) error {
	var cancelled interpreter.EvalCancelledError
	switch {
	case errors.As(err, &cancelled) && cancelled.Cause == interpreter.CostLimitExceeded,
		isStringTooLong(err):
		return fmt.Errorf("%w: %v", ErrCostLimit, err)
	case ctx.Err() != nil:
		return fmt.Errorf("%w: %w", ErrEval, context.Cause(ctx))
	default:
		return fmt.Errorf("%w: %v", ErrEval, err)
	}
}

// activation resolves variables from a string map without copying it.
type activation map[string]string

func (a activation) ResolveName(name string) (any, bool) {
	v, ok := a[name]
	if !ok {
		return nil, false
	}
	return types.String(v), true
}

func (a activation) Parent() interpreter.Activation { return nil }
