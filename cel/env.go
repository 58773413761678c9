package cel

import (
	"fmt"
	"math"
	"regexp"
	"regexp/syntax"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common"
	"github.com/google/cel-go/common/ast"
	"github.com/google/cel-go/common/env"
	"github.com/google/cel-go/common/operators"
	"github.com/google/cel-go/common/overloads"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
	"github.com/google/cel-go/ext"
	"github.com/google/cel-go/interpreter"
	"github.com/google/cel-go/parser"
)

const (
	// MaxExpressionBytes bounds the length of an expression. Policies are
	// short; the bound keeps parsing and checking cheap whatever a tenant or
	// a misconfigured spec hands in.
	MaxExpressionBytes = 5 * 1024

	// CostLimit bounds the runtime cost of one evaluation: Kubernetes'
	// PerCallLimit for CEL in the API server.
	CostLimit = 1_000_000

	// TimeBudget bounds the wall-clock time of one evaluation, a backstop
	// for what the cost limit does not bound: cel-go v0.29's cost tracker
	// takes time quadratic in the steps of a comprehension, which the
	// charge of a range covers for one comprehension but not for nested
	// ones. Eval applies it whatever context the caller passes; a caller's
	// context can only shorten it. It is fixed: a caller that wants less
	// passes a context with a deadline. A second is ten times and more what an evaluation within
	// the cost limit takes on a loaded machine (a stop at 100 ms was seen
	// under -race on a shared 2-core machine), so that a result does not
	// depend on the load, and it still bounds what a tenant's value can
	// make one rule take.
	TimeBudget = time.Second

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

	// regexCostFactor is CEL's cost per byte of a regular expression
	// (common.RegexStringLengthCostFactor).
	regexCostFactor = 0.25

	// rangeCostDivisor sets the charge of a comprehension over n elements,
	// n*n/rangeCostDivisor, made before its first step. cel-go v0.29's cost
	// tracker scans a stack that grows with every step, so a comprehension
	// takes time quadratic in n while its cost grows linearly: the rule
	// value.split(',').all(x, x.matches('^[a-z]+$')) took 8, 29 and 131 ms
	// over 4, 8 and 16 KiB of "a,a,...", and on a loaded 2-core machine
	// all() over 1,000 and 8,000 elements took 1.5 and 69 ms for a cost of
	// 4,014 and 32,014 (about 1 to 9 ns per n*n, with the load). With 16, a
	// comprehension costs about what its time shows next to the linear work
	// the limit was made for, and one over more than maxRangeElements is
	// refused before it starts, well within TimeBudget.
	rangeCostDivisor = 16

	// maxRangeElements is the largest comprehension range whose charge is
	// within CostLimit: 4000*4000/16 = CostLimit.
	maxRangeElements = 4000

	// rangeFunction wraps the range of every comprehension that a macro
	// (all, exists, exists_one, map, filter) expands to, so that the range
	// can be charged. The name cannot be written in an expression.
	rangeFunction = "@charged_range"
)

// baseOptions are the pinned libraries; see the package documentation.
func baseOptions() []cel.EnvOption {
	return []cel.EnvOption{
		// The standard library without matches and the comprehension
		// macros, which come next, checked and charged.
		cel.StdLib(cel.StdLibSubset(env.NewLibrarySubset().
			AddExcludedFunctions(env.NewFunction(overloads.Matches)).
			AddExcludedMacros(operators.All, operators.Exists, operators.ExistsOne, operators.Map, operators.Filter))),
		matchesFunction(),
		cel.Macros(chargedMacros()...),
		cel.Function(rangeFunction,
			cel.Overload("charged_range_list", []*cel.Type{cel.ListType(cel.TypeParamType("T"))}, cel.ListType(cel.TypeParamType("T")),
				cel.UnaryBinding(chargeRange)),
			cel.Overload("charged_range_map", []*cel.Type{cel.MapType(cel.TypeParamType("K"), cel.TypeParamType("V"))},
				cel.MapType(cel.TypeParamType("K"), cel.TypeParamType("V")),
				cel.UnaryBinding(chargeRange))),
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

// check returns a refusal when a call must not run, or nil.
type check func(function string, args []ref.Val) *refusal

// guarded lists the string functions that can produce a string much larger
// than their inputs, with the bound of their output, checked before they
// run. matches is checked too, but is defined here (matchesFunction).
var guarded = map[string]struct {
	function string
	check    check
}{
	"string_replace_string_string":     {"replace", limitSize(replaceBound)},
	"string_replace_string_string_int": {"replace", limitSize(replaceBound)},
	"list_join":                        {"join", limitSize(joinBound)},
	"list_join_string":                 {"join", limitSize(joinBound)},
	"string_format":                    {"format", limitSize(formatBound)},
	"strings_quote":                    {"strings.quote", limitSize(quoteBound)},
}

// newEnv builds the base environment, then redefines the guarded overloads so
// that each checks the size of its result before calling cel-go's
// implementation.
func newEnv() (*cel.Env, error) {
	base, err := cel.NewCustomEnv(baseOptions()...)
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
			// The overload's own binding, or else the function's singleton
			// binding, bound under the function's name (matches has one).
			var impl, singleton func(args ...ref.Val) ref.Val
			for _, b := range bindings {
				switch b.Operator {
				case decl.ID():
					impl = callOf(b.Unary, b.Binary, b.Function)
				case name:
					singleton = callOf(b.Unary, b.Binary, b.Function)
				}
			}
			if impl == nil {
				impl = singleton
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
					cel.FunctionBinding(checked(name, g.check, impl)))))
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

// checked runs impl unless check refuses the call.
func checked(function string, check check, impl func(args ...ref.Val) ref.Val) func(args ...ref.Val) ref.Val {
	return func(args ...ref.Val) ref.Val {
		if r := check(function, args); r != nil {
			return types.WrapErr(r)
		}
		return impl(args...)
	}
}

// limitSize refuses a call whose result would be longer than MaxStringBytes.
func limitSize(bound sizeBound) check {
	return func(function string, args []ref.Val) *refusal {
		if n, ok := bound(args); ok && n > MaxStringBytes {
			return refuse("%s: string result must be no more than %d bytes", function, MaxStringBytes)
		}
		return nil
	}
}

// matchesFunction replaces the standard library's matches, which the base
// environment leaves out: the same overloads, with the charge of a call
// checked before it runs (checkMatchCost). A constant pattern is handled by
// matchesOptimization instead.
func matchesFunction() cel.EnvOption {
	impl := func(str, pat ref.Val) ref.Val {
		s, ok1 := str.(types.String)
		pattern, ok2 := pat.(types.String)
		if !ok1 || !ok2 {
			return types.NoSuchOverloadErr()
		}
		// The length first: it needs no parsing, and parsing a long
		// pattern is itself work.
		if r := checkMatchCost(len(s), len(pattern)); r != nil {
			return types.WrapErr(r)
		}
		if r := checkMatchCost(len(s), regexSize(string(pattern))); r != nil {
			return types.WrapErr(r)
		}
		re, err := regexp.Compile(string(pattern))
		if err != nil {
			return types.WrapErr(err)
		}
		return types.Bool(re.MatchString(string(s)))
	}
	// One binding for both overloads, as the standard library has it: an
	// overload named like its function cannot have a binding of its own.
	return cel.Function(overloads.Matches,
		cel.Overload(overloads.Matches, []*cel.Type{cel.StringType, cel.StringType}, cel.BoolType),
		cel.MemberOverload(overloads.MatchesString, []*cel.Type{cel.StringType, cel.StringType}, cel.BoolType),
		cel.SingletonBinaryBinding(impl))
}

// regexSize is the size the cost of matching counts for a pattern: its
// length, as cel-go counts it, or the number of instructions it compiles
// to when that is larger ("[a-z]{1000}" is 11 bytes and over 1,000
// instructions, and the time of matching grows with the instructions). A
// pattern that does not parse gets its length; matching reports the error.
func regexSize(pattern string) int {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return len(pattern)
	}
	prog, err := syntax.Compile(re.Simplify())
	if err != nil {
		return len(pattern)
	}
	return max(len(pattern), len(prog.Inst))
}

// matchCost is cel-go's charge for matches, with size for the pattern.
func matchCost(subject, size int) uint64 {
	str := uint64(math.Ceil((1 + float64(subject)) * stringCostFactor))
	re := uint64(math.Ceil(float64(size) * regexCostFactor))
	return satMul(str, re)
}

// checkMatchCost refuses a match whose charge alone is over CostLimit:
// cel-go charges a call after it returns, and one match of a 5 KiB pattern
// against a 256 KiB string runs for seconds.
func checkMatchCost(subject, size int) *refusal {
	if c := matchCost(subject, size); c > CostLimit {
		return refuse("matches: cost of one call must be no more than %d, got %d (a %d-byte string and a pattern of size %d)",
			CostLimit, c, subject, size)
	}
	return nil
}

// matchesOptimization compiles a constant pattern once, when the program is
// made, and checks the charge of each call before it runs, as
// matchesFunction does for other patterns.
var matchesOptimization = &interpreter.RegexOptimization{
	Function:   "matches",
	RegexIndex: 1,
	Factory: func(call interpreter.InterpretableCall, pattern string) (interpreter.InterpretableCall, error) {
		re, err := regexp.Compile(pattern)
		if err != nil {
			return nil, err
		}
		size := regexSize(pattern)
		return interpreter.NewCall(call.ID(), call.Function(), call.OverloadID(), call.Args(), func(args ...ref.Val) ref.Val {
			if len(args) != 2 {
				return types.NoSuchOverloadErr()
			}
			s, ok := args[0].(types.String)
			if !ok {
				return types.NoSuchOverloadErr()
			}
			if r := checkMatchCost(len(s), size); r != nil {
				return types.WrapErr(r)
			}
			return types.Bool(re.MatchString(string(s)))
		}), nil
	},
}

// chargedMacros are CEL's comprehension macros, each expanding as cel-go's
// does but with the range wrapped in rangeFunction, so that the range is
// charged (chargeRange, rangeCost) before the first step.
func chargedMacros() []cel.Macro {
	charged := func(expand parser.MacroExpander) parser.MacroExpander {
		return func(eh parser.ExprHelper, target ast.Expr, args []ast.Expr) (ast.Expr, *common.Error) {
			return expand(eh, eh.NewCall(rangeFunction, target), args)
		}
	}
	return []cel.Macro{
		parser.NewReceiverMacro(operators.All, 2, charged(parser.MakeAll)),
		parser.NewReceiverMacro(operators.Exists, 2, charged(parser.MakeExists)),
		parser.NewReceiverMacro(operators.ExistsOne, 2, charged(parser.MakeExistsOne)),
		parser.NewReceiverMacro(operators.Map, 2, charged(parser.MakeMap)),
		parser.NewReceiverMacro(operators.Map, 3, charged(parser.MakeMap)),
		parser.NewReceiverMacro(operators.Filter, 2, charged(parser.MakeFilter)),
	}
}

// chargeRange returns the range of a comprehension unchanged, or refuses a
// range whose charge alone is over CostLimit. The charge itself is made by
// the cost tracker (rangeCost).
func chargeRange(v ref.Val) ref.Val {
	if n := sizeOf(v); n > maxRangeElements {
		return types.WrapErr(refuse("a comprehension must range over no more than %d elements, got %d", maxRangeElements, n))
	}
	return v
}

// rangeCost is the charge of a comprehension over n elements.
func rangeCost(n uint64) uint64 {
	return satAdd(1, satMul(n, n)/rangeCostDivisor)
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
// The formulas are cel-go's version 5 trackers. They also charge the range
// of a comprehension (rangeCost) and, as cel-go does, matches.
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
	// A call refused before it ran (chargeRange, checkMatchCost) did no
	// work: it costs 1, so that the error says why it was refused rather
	// than that the limit was passed.
	charge := func(args []ref.Val, result ref.Val) *uint64 {
		c := uint64(1)
		if !types.IsError(result) {
			c = rangeCost(sizeOf(args[0]))
		}
		return &c
	}
	// cel-go's own charge for matches, by the length of the pattern.
	match := func(args []ref.Val, result ref.Val) *uint64 {
		c := uint64(1)
		if !types.IsError(result) {
			c = matchCost(int(sizeOf(args[0])), int(sizeOf(args[1])))
		}
		return &c
	}
	return cel.CostTrackerOptions(
		interpreter.OverloadCostTracker("charged_range_list", charge),
		interpreter.OverloadCostTracker("charged_range_map", charge),
		interpreter.OverloadCostTracker(overloads.Matches, match),
		interpreter.OverloadCostTracker(overloads.MatchesString, match),
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
