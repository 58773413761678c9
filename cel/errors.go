package cel

import (
	"errors"
	"fmt"
)

var (
	// ErrTooLong reports an expression longer than MaxExpressionBytes.
	ErrTooLong = errors.New("cel: expression too long")
	// ErrInvalid reports a syntax or type error.
	ErrInvalid = errors.New("cel: invalid expression")
	// ErrNotBool reports an expression whose output type is not bool.
	ErrNotBool = errors.New("cel: output type must be bool")
	// ErrInvalidVariable reports a variable name that cannot be declared.
	ErrInvalidVariable = errors.New("cel: invalid variable")
	// ErrCostLimit reports an evaluation stopped by a resource bound: the
	// runtime cost limit or the size limit of a string function.
	ErrCostLimit = errors.New("cel: cost limit exceeded")
	// ErrEval reports an evaluation that failed: a missing variable, a runtime
	// error, or a result that is not a bool.
	ErrEval = errors.New("cel: evaluation failed")
)

// CompileError reports an expression that could not be compiled. It names the
// expression; Detail holds cel-go's message with line:column and a caret
// under the source where cel-go provides one.
type CompileError struct {
	Expr   string // the expression, truncated to 256 bytes in messages
	Err    error  // ErrTooLong, ErrInvalid, ErrNotBool or ErrInvalidVariable
	Detail string // what is wrong
}

func (e *CompileError) Error() string {
	return fmt.Sprintf("%v: expression %q: %s", e.Err, quoteExpr(e.Expr), e.Detail)
}

// Unwrap returns the sentinel error.
func (e *CompileError) Unwrap() error { return e.Err }

// EvalError reports an evaluation that failed. It names the expression.
type EvalError struct {
	Expr string // the expression, truncated to 256 bytes in messages
	Err  error  // wraps ErrEval, ErrCostLimit, or a context error
}

func (e *EvalError) Error() string {
	return fmt.Sprintf("cel: evaluating %q: %v", quoteExpr(e.Expr), e.Err)
}

// Unwrap returns the underlying error.
func (e *EvalError) Unwrap() error { return e.Err }

// quoteExpr keeps messages short when a hostile expression is huge.
func quoteExpr(s string) string {
	const max = 256
	if len(s) <= max {
		return s
	}
	return s[:max] + "..."
}
