package cel

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"unicode/utf8"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
	"github.com/google/cel-go/ext"
	"github.com/google/cel-go/interpreter"
)

const (
	// MaxExpressionBytes bounds the length of an expression. Policies are
	// short; the bound keeps parsing and checking cheap whatever a tenant or
	// a misconfigured spec hands in.
	MaxExpressionBytes = 5 * 1024

	// CostLimit bounds the runtime cost of one evaluation: Kubernetes'
	// PerCallLimit for CEL in the API server.
	CostLimit = 1_000_000

	// MaxStringBytes bounds the string that replace, join, format and
	// strings.quote may produce in one call. They are checked before they
	// allocate, because the cost of a call is only counted after it returns.
	MaxStringBytes = 1 << 20

	// interruptCheckFrequency is how often, in comprehension iterations, an
	// evaluation checks its context for cancellation.
	interruptCheckFrequency = 100

	// maxRangeSize caps lists.range, which allocates its whole list.
	maxRangeSize = 10_000

	// maxFormatPrecision caps the precision of format's %f, %e and %s of a
	// double: without it "%.999999999f" allocates a gigabyte. cel-go applies
	// the same default from strings version 5 on.
	maxFormatPrecision = 100

	// stringCostFactor is CEL's cost per byte traversed
	// (common.StringTraversalCostFactor), the factor Kubernetes uses.
	stringCostFactor = 0.1
)

// baseOptions are the pinned libraries; see the package documentation.
func baseOptions() []cel.EnvOption {
	return []cel.EnvOption{
		cel.HomogeneousAggregateLiterals(),
		// A malformed constant regular expression, duration or timestamp
		// is a compile error, not a failure at every evaluation.
		cel.ASTValidators(cel.ValidateRegexLiterals(), cel.ValidateDurationLiterals(), cel.ValidateTimestampLiterals()),
		cel.EagerlyValidateDeclarations(true),
		cel.DefaultUTCTimeZone(true),
		cel.CrossTypeNumericComparisons(true),
		ext.Strings(ext.StringsVersion(2), ext.StringsMaxPrecision(maxFormatPrecision)),
		ext.Sets(),
		ext.Lists(ext.ListsVersion(3), ext.ListsMaxRangeSize(maxRangeSize)),
	}
}

// sizeBound returns an upper bound, in bytes, of the string an overload
// produces from its arguments, or false when the arguments are not what the
// overload declares (cel-go then reports the error itself).
type sizeBound func(args []ref.Val) (uint64, bool)

// guarded lists the string functions that can produce a string much larger
// than their inputs, with the bound of their output.
var guarded = map[string]struct {
	function string
	bound    sizeBound
}{
	"string_replace_string_string":     {"replace", replaceBound},
	"string_replace_string_string_int": {"replace", replaceBound},
	"list_join":                        {"join", joinBound},
	"list_join_string":                 {"join", joinBound},
	"string_format":                    {"format", formatBound},
	"strings_quote":                    {"strings.quote", quoteBound},
}

// newEnv builds the base environment, then redefines the guarded overloads so
// that each checks the size of its result before calling cel-go's
// implementation.
func newEnv() (*cel.Env, error) {
	base, err := cel.NewEnv(baseOptions()...)
	if err != nil {
		return nil, err
	}
	var redefinitions []cel.EnvOption
	for name, fn := range base.Functions() {
		bindings, err := fn.Bindings()
		if err != nil {
			return nil, err
		}
		for _, decl := range fn.OverloadDecls() {
			g, ok := guarded[decl.ID()]
			if !ok || g.function != name {
				continue
			}
			var impl func(args ...ref.Val) ref.Val
			for _, b := range bindings {
				if b.Operator == decl.ID() {
					impl = callOf(b.Unary, b.Binary, b.Function)
				}
			}
			if impl == nil {
				return nil, fmt.Errorf("cel: no implementation for overload %s", decl.ID())
			}
			opt := cel.MemberOverload
			if !decl.IsMemberFunction() {
				opt = cel.Overload
			}
			redefinitions = append(redefinitions, cel.Function(name,
				opt(decl.ID(), decl.ArgTypes(), decl.ResultType(),
					cel.FunctionBinding(limitSize(decl.ID(), g.bound, impl)))))
		}
	}
	if len(redefinitions) != len(guarded) {
		return nil, fmt.Errorf("cel: found %d of the %d guarded string overloads", len(redefinitions), len(guarded))
	}
	return base.Extend(redefinitions...)
}

// callOf adapts whichever operation cel-go bound to a variadic call.
func callOf(u func(ref.Val) ref.Val, b func(ref.Val, ref.Val) ref.Val, f func(...ref.Val) ref.Val) func(args ...ref.Val) ref.Val {
	return func(args ...ref.Val) ref.Val {
		switch {
		case len(args) == 1 && u != nil:
			return u(args[0])
		case len(args) == 2 && b != nil:
			return b(args[0], args[1])
		case f != nil:
			return f(args...)
		}
		return types.NewErr("no such overload")
	}
}

// errStringTooLong is returned inside CEL as an error value; Program.Eval
// maps it to ErrCostLimit.
var errStringTooLong = fmt.Errorf("string result must be no more than %d bytes", MaxStringBytes)

func limitSize(id string, bound sizeBound, impl func(args ...ref.Val) ref.Val) func(args ...ref.Val) ref.Val {
	return func(args ...ref.Val) ref.Val {
		if n, ok := bound(args); ok && n > MaxStringBytes {
			return types.WrapErr(fmt.Errorf("%s: %w", id, errStringTooLong))
		}
		return impl(args...)
	}
}

func replaceBound(args []ref.Val) (uint64, bool) {
	if len(args) < 3 {
		return 0, false
	}
	s, ok1 := args[0].(types.String)
	old, ok2 := args[1].(types.String)
	repl, ok3 := args[2].(types.String)
	if !ok1 || !ok2 || !ok3 {
		return 0, false
	}
	var count int
	if old == "" {
		count = utf8.RuneCountInString(string(s)) + 1
	} else {
		count = strings.Count(string(s), string(old))
	}
	if len(args) == 4 {
		if n, ok := args[3].(types.Int); ok && n >= 0 && int64(n) < int64(count) {
			count = int(n)
		}
	}
	if len(repl) <= len(old) {
		return uint64(len(s)), true
	}
	return satAdd(uint64(len(s)), satMul(uint64(count), uint64(len(repl)-len(old)))), true
}

func joinBound(args []ref.Val) (uint64, bool) {
	l, ok := args[0].(traits.Lister)
	if !ok {
		return 0, false
	}
	var sep uint64
	if len(args) == 2 {
		s, ok := args[1].(types.String)
		if !ok {
			return 0, false
		}
		sep = uint64(len(s))
	}
	n, ok := l.Size().(types.Int)
	if !ok {
		return 0, false
	}
	total := satMul(uint64(n), sep)
	for i := types.Int(0); i < n && total <= MaxStringBytes; i++ {
		total = satAdd(total, valueBound(l.Get(i), MaxStringBytes))
	}
	return total, true
}

func formatBound(args []ref.Val) (uint64, bool) {
	if len(args) != 2 {
		return 0, false
	}
	s, ok := args[0].(types.String)
	if !ok {
		return 0, false
	}
	return satAdd(uint64(len(s)), valueBound(args[1], MaxStringBytes)), true
}

func quoteBound(args []ref.Val) (uint64, bool) {
	s, ok := args[0].(types.String)
	if !ok {
		return 0, false
	}
	// The widest escape, \uXXXX or \xXX, is six bytes for one input byte.
	return satAdd(satMul(uint64(len(s)), 6), 2), true
}

// scalarBound bounds the text of any scalar that format prints: a double
// with the maximum precision is at most 309 digits, a point and 100
// decimals; a bytes or string value is counted by its length instead.
const scalarBound = 512

// valueBound bounds the text format prints for v, giving up once the bound
// passes limit so that a list nested by reference cannot make the bound
// itself expensive.
func valueBound(v ref.Val, limit uint64) uint64 {
	switch v := v.(type) {
	case types.String:
		return uint64(len(v))
	case types.Bytes:
		return satMul(uint64(len(v)), 4)
	case traits.Lister:
		n, ok := v.Size().(types.Int)
		if !ok {
			return math.MaxUint64
		}
		total := satAdd(2, satMul(uint64(n), 2))
		for i := types.Int(0); i < n && total <= limit; i++ {
			total = satAdd(total, valueBound(v.Get(i), limit-min(total, limit)))
		}
		return total
	case traits.Mapper:
		n, ok := v.Size().(types.Int)
		if !ok {
			return math.MaxUint64
		}
		total := satAdd(2, satMul(uint64(n), 4))
		it := v.Iterator()
		for it.HasNext() == types.True && total <= limit {
			k := it.Next()
			total = satAdd(total, valueBound(k, limit-min(total, limit)))
			total = satAdd(total, valueBound(v.Get(k), limit-min(total, limit)))
		}
		return total
	default:
		return scalarBound
	}
}

func satAdd(a, b uint64) uint64 {
	if a > math.MaxUint64-b {
		return math.MaxUint64
	}
	return a + b
}

func satMul(a, b uint64) uint64 {
	if a != 0 && b > math.MaxUint64/a {
		return math.MaxUint64
	}
	return a * b
}

// costTrackers charge the strings extension's functions for the bytes they
// scan and produce. cel-go does this itself only from strings version 5;
// version 2 would otherwise charge one unit per call whatever the size.
// The formulas are cel-go's version 5 trackers.
func costTrackers() cel.ProgramOption {
	search := func(args []ref.Val, _ ref.Val) *uint64 {
		c := satAdd(1, uint64(math.Ceil(float64(satMul(sizeOf(args[0]), sizeOf(args[1])))*stringCostFactor)))
		return &c
	}
	transform := func(args []ref.Val, result ref.Val) *uint64 {
		c := satAdd(satAdd(1, uint64(math.Ceil(float64(sizeOf(args[0]))*stringCostFactor))), sizeOf(result))
		return &c
	}
	scan := func(args []ref.Val, _ ref.Val) *uint64 {
		c := satAdd(1, uint64(math.Ceil(float64(sizeOf(args[0]))*stringCostFactor)))
		return &c
	}
	replace := func(args []ref.Val, result ref.Val) *uint64 {
		target, needle := max(sizeOf(args[0]), 1), max(sizeOf(args[1]), 1)
		c := satAdd(satAdd(1, uint64(math.Ceil(float64(satMul(target, needle))*stringCostFactor))), sizeOf(result))
		return &c
	}
	split := func(args []ref.Val, result ref.Val) *uint64 {
		c := satAdd(satAdd(1, uint64(math.Ceil(float64(satAdd(sizeOf(args[0]), 1))*stringCostFactor))), satAdd(sizeOf(result), 10))
		return &c
	}
	join := func(args []ref.Val, result ref.Val) *uint64 {
		c := satAdd(satAdd(1, uint64(math.Ceil(float64(satAdd(sizeOf(args[0]), 1))*stringCostFactor))), sizeOf(result))
		return &c
	}
	produce := func(_ []ref.Val, result ref.Val) *uint64 {
		c := satAdd(1, uint64(math.Ceil(float64(sizeOf(result))*stringCostFactor)))
		return &c
	}
	return cel.CostTrackerOptions(
		interpreter.OverloadCostTracker("string_char_at_int", scan),
		interpreter.OverloadCostTracker("string_index_of_string", search),
		interpreter.OverloadCostTracker("string_index_of_string_int", search),
		interpreter.OverloadCostTracker("string_last_index_of_string", search),
		interpreter.OverloadCostTracker("string_last_index_of_string_int", search),
		interpreter.OverloadCostTracker("string_lower_ascii", transform),
		interpreter.OverloadCostTracker("string_upper_ascii", transform),
		interpreter.OverloadCostTracker("string_replace_string_string", replace),
		interpreter.OverloadCostTracker("string_replace_string_string_int", replace),
		interpreter.OverloadCostTracker("string_split_string", split),
		interpreter.OverloadCostTracker("string_split_string_int", split),
		interpreter.OverloadCostTracker("string_substring_int", transform),
		interpreter.OverloadCostTracker("string_substring_int_int", transform),
		interpreter.OverloadCostTracker("string_trim", transform),
		interpreter.OverloadCostTracker("list_join", join),
		interpreter.OverloadCostTracker("list_join_string", join),
		interpreter.OverloadCostTracker("string_format", produce),
		interpreter.OverloadCostTracker("strings_quote", transform),
	)
}

func sizeOf(v ref.Val) uint64 {
	if s, ok := v.(traits.Sizer); ok {
		if n, ok := s.Size().(types.Int); ok && n >= 0 {
			return uint64(n)
		}
	}
	return 1
}

// isStringTooLong reports whether err comes from a guarded function.
func isStringTooLong(err error) bool { return errors.Is(err, errStringTooLong) }
