package cel

import (
	"errors"
	"fmt"
	"strings"

	"github.com/google/cel-go/interpreter"
)

// The sentinels, one per failure a caller acts on differently; the message names the rule.
var (
	// ErrInvalid reports an expression that does not compile (see [Compile]): fix the policy.
	ErrInvalid = errors.New("cel: invalid expression")

	// ErrInvalidVariable reports a variable name that cannot be declared (see [Compile]). The
	// calling code is at fault, not the expression.
	ErrInvalidVariable = errors.New("cel: invalid variable")

	// ErrEval reports an evaluation that failed: a declared variable missing from the input, a
	// runtime error such as division by zero or an index out of range, or a non-bool result.
	ErrEval = errors.New("cel: runtime error")

	// ErrCostLimit reports an evaluation stopped by a bound, which the message names: the cost
	// limit, one call charged over half of it, or a string function's size limit. Bounds are
	// counted, not timed, so a retry does not help. The time budget is not one: see [Program.Eval].
	ErrCostLimit = errors.New("cel: cost limit exceeded")
)

// CompileError reports an expression that does not compile. It holds the expression and, for
// syntax and type errors, the position of the first problem.
type CompileError struct {
	Expr string // the expression, truncated to 256 bytes in messages
	Err  error  // always ErrInvalid

	// Line and Column locate the first problem, counted from 1 (Column in code points); 0 when
	// it has no position: the length limit, the output type, a nesting limit.
	Line, Column int

	// Detail is a rule, or cel-go's messages with <input>:line:column, source line and caret.
	Detail string
}

// Error returns "cel: invalid expression <expr>: <detail>", the expression
// quoted and cut to 256 bytes.
func (e *CompileError) Error() string {
	return fmt.Sprintf("%v %q: %s", e.Err, quoteExpr(e.Expr), e.Detail)
}

// Unwrap returns the sentinel, ErrInvalid.
func (e *CompileError) Unwrap() error { return e.Err }

// EvalError reports an evaluation that failed. It holds the expression.
type EvalError struct {
	Expr string // the expression, truncated to 256 bytes in messages

	// Err wraps ErrEval or ErrCostLimit with what went wrong; or is the caller's context's
	// error when that ended the evaluation; or wraps context.DeadlineExceeded when the budget did.
	Err error
}

// Error returns "cel: evaluating <expr>: <reason>", the reason being Err's message without
// its "cel: " prefix, so that the prefix appears once.
func (e *EvalError) Error() string {
	return fmt.Sprintf("cel: evaluating %q: %s", quoteExpr(e.Expr), strings.TrimPrefix(e.Err.Error(), "cel: "))
}

// Unwrap returns Err.
func (e *EvalError) Unwrap() error { return e.Err }

func quoteExpr(s string) string {
	const max = 256
	if len(s) <= max {
		return s
	}
	return s[:max] + "..."
}

const refusedCause interpreter.CancellationCause = -1

// refuse stops the evaluation before a call runs whose result or charge exceeds a bound, by a
// panic that cel-go recovers, as its tracker does past the cost limit: && and || would absorb
// an error value, turning a refusal into a verdict.
func refuse(format string, args ...any) {
	panic(interpreter.EvalCancelledError{Cause: refusedCause, Message: fmt.Sprintf(format, args...)})
}
