package cel

import (
	"fmt"
	"maps"
	"math"
	"math/bits"
	"regexp"
	"regexp/syntax"
	"strings"
	"time"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/ast"
	"github.com/google/cel-go/common/env"
	"github.com/google/cel-go/common/operators"
	"github.com/google/cel-go/common/overloads"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
	"github.com/google/cel-go/ext"
	"github.com/google/cel-go/interpreter"
	"github.com/google/cel-go/interpreter/functions"
	"github.com/google/cel-go/parser"
)

const (
	// maxExpressionBytes bounds the length of an expression: policies are short, and the bound
	// keeps parsing and checking cheap whatever a tenant or a misconfigured spec hands in.
	maxExpressionBytes = 5 * 1024

	// CostLimit bounds the runtime cost of one evaluation: Kubernetes' PerCallLimit for CEL.
	CostLimit = 1_000_000

	// TimeBudget bounds the wall-clock time of one evaluation: a fixed backstop, several times
	// what one within the cost limit takes, should the cost model miss work; see [Program.Eval].
	TimeBudget = time.Second

	// MaxStringBytes bounds the string that replace, join, format and strings.quote may produce
	// in one call, checked before they allocate: cel-go charges a call only after it returns.
	MaxStringBytes = 1 << 20

	interruptCheckFrequency = 100 // comprehension steps between checks of ctx

	maxRangeSize = 10_000 // lists.range allocates its whole list

	// maxFormatPrecision caps format's precision of a double, without which "%.999999999f"
	// allocates a gigabyte; cel-go has the same default from strings version 5 on.
	maxFormatPrecision = 100

	stringCostFactor = 0.1  // CEL's cost per byte traversed (common.StringTraversalCostFactor)
	regexCostFactor  = 0.25 // CEL's cost per pattern byte (common.RegexStringLengthCostFactor)

	// regexMultiplier scales cel-go's charge of matches to its time: on Go's NFA a unit of it
	// takes about four times the CPU of a comprehension step (BenchmarkBuiltins). Kubernetes
	// charges '[a-z]{100}y' over 256 KiB 78,645, here 2,700,094 (103 instructions), refused.
	regexMultiplier = 4

	// alwaysVariable, true in every evaluation and unnameable in an expression, is the loop
	// condition of the comprehensions that never stop early (macros).
	alwaysVariable = "@always"

	sortByInput = "@__sortBy_input__" // the list that sortBy sorts, bound once
)

// baseOptions are the pinned libraries; see the package documentation.
func baseOptions() []cel.EnvOption {
	return []cel.EnvOption{
		// The standard library without matches and the comprehension macros, which come next.
		cel.StdLib(cel.StdLibSubset(env.NewLibrarySubset().
			AddExcludedFunctions(env.NewFunction(overloads.Matches)).
			AddExcludedMacros(operators.All, operators.Exists, operators.ExistsOne, operators.Map, operators.Filter))),
		matchesFunction(),
		cel.Macros(macros()...),
		cel.Variable(alwaysVariable, cel.BoolType),
		// A pattern that is not a valid string literal, or a malformed constant duration or
		// timestamp, is a compile error, not a failure at every evaluation.
		cel.ASTValidators(literalPatterns{}, cel.ValidateDurationLiterals(), cel.ValidateTimestampLiterals()),
		cel.EagerlyValidateDeclarations(true),
		cel.DefaultUTCTimeZone(true),
		cel.CrossTypeNumericComparisons(true),
		ext.Strings(ext.StringsVersion(2), ext.StringsMaxPrecision(maxFormatPrecision)),
		ext.Sets(),
		ext.Lists(ext.ListsVersion(3), ext.ListsMaxRangeSize(maxRangeSize)),
	}
}

// environment is the base environment and the implementations that guard checks.
type environment struct {
	env   *cel.Env
	impls map[string]*functions.Overload
}

func newEnvironment() (*environment, error) {
	base, err := cel.NewCustomEnv(baseOptions()...)
	if err != nil {
		return nil, err
	}
	env, err := base.Extend(cel.Macros(sortBy()))
	if err != nil {
		return nil, err
	}
	e := &environment{env: env, impls: map[string]*functions.Overload{}}
	for name, fn := range env.Functions() {
		if b, ok := builtins[name]; !ok || !b.checked() {
			continue
		}
		bindings, err := fn.Bindings()
		if err != nil {
			return nil, err
		}
		// Each overload's binding under its ID, the function's under its name.
		for _, binding := range bindings {
			e.impls[binding.Operator] = binding
		}
	}
	maps.Copy(e.impls, equality)
	return e, nil
}

// impl returns the implementation cel-go's planner would call: the overload's, else the function's.
func (e *environment) impl(function, overload string) *functions.Overload {
	if impl, ok := e.impls[overload]; ok && overload != "" {
		return impl
	}
	return e.impls[function]
}

// matchesFunction replaces the standard library's matches. Every pattern is a literal
// (literalPatterns), so matchesOptimization plans every call; the binding, never called, is
// an error rather than a compile of a pattern at each call.
func matchesFunction() cel.EnvOption {
	impl := func(ref.Val, ref.Val) ref.Val { return types.NewErr("matches: the pattern must be a string literal") }
	// One binding for both: an overload named like its function cannot have its own.
	return cel.Function(overloads.Matches,
		cel.Overload(overloads.Matches, []*cel.Type{cel.StringType, cel.StringType}, cel.BoolType),
		cel.MemberOverload(overloads.MatchesString, []*cel.Type{cel.StringType, cel.StringType}, cel.BoolType),
		cel.SingletonBinaryBinding(impl))
}

// literalPatterns refuses a call of matches whose pattern is not a string literal or does not
// compile. A pattern built from a value would let a tenant write the regular expression that
// checks the tenant's own value, and compiling it is work its length does not show (\pL alone
// appends 659 ranges). cel.ValidateRegexLiterals reads the subject of matches(s, p), not p.
type literalPatterns struct{}

func (literalPatterns) Name() string { return "tenantkit.matches.literal" }

func (literalPatterns) Validate(_ *cel.Env, _ cel.ValidatorConfig, a *ast.AST, iss *cel.Issues) {
	for _, call := range ast.MatchDescendants(ast.NavigateAST(a), ast.FunctionMatcher(overloads.Matches)) {
		args := call.AsCall().Args() // s.matches(p): [p]; matches(s, p): [s, p]
		if len(args) == 0 {
			continue
		}
		arg := args[len(args)-1]
		pattern, ok := types.String(""), arg.Kind() == ast.LiteralKind
		if ok {
			pattern, ok = arg.AsLiteral().(types.String)
		}
		if !ok {
			iss.ReportErrorAtID(arg.ID(), "the pattern of matches must be a string literal")
		} else if _, err := regexp.Compile(string(pattern)); err != nil {
			iss.ReportErrorAtID(arg.ID(), "the pattern of matches must be a valid regular expression: %v", err)
		}
	}
}

// regexSize is a pattern's size for the cost of matching: its length, as cel-go counts it, or
// its instructions weighted by instWeight when more ("[a-z]{1000}" is 11 bytes, 1,000+
// instructions). A pattern that does not parse gets its length; matching reports the error.
func regexSize(pattern string) int {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return len(pattern)
	}
	prog, err := syntax.Compile(re.Simplify())
	if err != nil {
		return len(pattern)
	}
	var size uint64
	for _, inst := range prog.Inst {
		if inst.Op == syntax.InstRune {
			size += instWeight(uint64(len(inst.Rune)/2), syntax.Flags(inst.Arg)&syntax.FoldCase != 0)
		} else {
			size++
		}
	}
	return max(len(pattern), int(min(size, math.MaxInt)))
}

// instWeight is the steps of matching a rune instruction of ranges ranges: Go's regexp searches
// a class of over four ranges by halves, a step for about every five halvings, and folds a
// case-insensitive literal at every step (BenchmarkBuiltins' matches_counted_*).
func instWeight(ranges uint64, folds bool) uint64 {
	switch {
	case folds && ranges <= 1:
		return 2
	case ranges <= 4:
		return 1
	}
	return 1 + uint64(bits.Len64(ranges)+4)/5
}

// matchCost is the charge of matches: cel-go's product of a tenth of the string's bytes and a
// quarter of size (regexSize) times regexMultiplier, or cel-go's rounded-up one when more.
func matchCost(subject, size int) uint64 {
	str := (1 + float64(subject)) * stringCostFactor
	re := float64(size) * regexCostFactor
	celgo := satMul(uint64(math.Ceil(str)), uint64(math.Ceil(re)))
	return max(celgo, scale(1, math.Ceil(str*re*regexMultiplier)))
}

// constantMatches is the overload of the calls that matchesOptimization planned, which the
// tracker charges by matchCost (programOptions).
const constantMatches = "@matches_constant"

// matchesOptimization compiles a constant pattern once, records its regexSize in sizes for the
// tracker of constantMatches, and checks each call's charge against *limit.
func matchesOptimization(limit *uint64, sizes map[string]int) *interpreter.RegexOptimization {
	return &interpreter.RegexOptimization{
		Function:   "matches",
		RegexIndex: 1,
		Factory: func(call interpreter.InterpretableCall, pattern string) (interpreter.InterpretableCall, error) {
			re, err := regexp.Compile(pattern)
			if err != nil {
				return nil, err
			}
			size := regexSize(pattern)
			sizes[pattern] = size
			return interpreter.NewCall(call.ID(), call.Function(), constantMatches, call.Args(), func(args ...ref.Val) ref.Val {
				if len(args) != 2 {
					return types.NoSuchOverloadErr()
				}
				s, ok := args[0].(types.String)
				if !ok {
					return types.NoSuchOverloadErr()
				}
				// Refused when the match's charge alone is over callLimit.
				if c := matchCost(len(s), size); c > callLimit(*limit) {
					refuseCall("matches", *limit, c, fmt.Sprintf("a %d-byte string and a pattern of size %d", len(s), size))
				}
				return types.Bool(re.MatchString(string(s)))
			}), nil
		},
	}
}

// macros are CEL's comprehension macros (all, exists, exists_one, map, filter), expanded as
// cel-go expands them (sortBy too) except that the loop condition is a bare identifier: the
// accumulator for all and exists, alwaysVariable for the others.
//
// cel-go v0.29's cost tracker keeps a stack of seen values that a variable searches for its
// previous one; cel-go's own conditions leave two entries a step that every later step reads
// through, time quadratic in the steps (issue 18's rule). A bare identifier finds its value on
// top, so time grows linearly (BenchmarkEvalComprehension). A step's charge is cel-go's, ±1.
//
// The expansions, with @result the accumulator:
//
//	all(x, p)        init true, condition @result, step @result && p, result @result
//	exists(x, p)     init true, condition @result, step @result && !p, result !@result
//	exists_one(x, p) init 0, condition @always, step p ? @result + 1 : @result, result @result == 1
//	map(x, f)        init [], condition @always, step @result + [f], result @result
//	map(x, p, f)     init [], condition @always, step p ? @result + [f] : @result, result @result
//	filter(x, p)     init [], condition @always, step p ? @result + [x] : @result, result @result
//
// exists is all over the negated predicate, negated, with CEL's results (errors included).
func macros() []cel.Macro {
	return []cel.Macro{
		cel.ReceiverMacro(operators.All, 2, quantifier(operators.All)),
		cel.ReceiverMacro(operators.Exists, 2, quantifier(operators.Exists)),
		cel.ReceiverMacro(operators.ExistsOne, 2, quantifier(operators.ExistsOne)),
		cel.ReceiverMacro(operators.Map, 2, mapMacro),
		cel.ReceiverMacro(operators.Map, 3, mapMacro),
		cel.ReceiverMacro(operators.Filter, 2, filterMacro),
	}
}

// iterationVariable returns a comprehension's variable, or the error cel-go's macros report.
func iterationVariable(eh cel.MacroExprFactory, arg ast.Expr, notIdent string) (string, *cel.Error) {
	if arg.Kind() != ast.IdentKind {
		return "", eh.NewError(arg.ID(), notIdent)
	}
	if v := arg.AsIdent(); v != eh.AccuIdentName() && v != parser.AccumulatorName {
		return v, nil
	}
	return "", eh.NewError(arg.ID(), "iteration variable overwrites accumulator variable")
}

func quantifier(kind string) cel.MacroFactory {
	return func(eh cel.MacroExprFactory, target ast.Expr, args []ast.Expr) (ast.Expr, *cel.Error) {
		v, err := iterationVariable(eh, args[0], "argument must be a simple name")
		if err != nil {
			return nil, err
		}
		accu := eh.AccuIdentName()
		switch kind {
		case operators.All:
			return eh.NewComprehension(target, v, accu, eh.NewLiteral(types.True), eh.NewAccuIdent(),
				eh.NewCall(operators.LogicalAnd, eh.NewAccuIdent(), args[1]), eh.NewAccuIdent()), nil
		case operators.Exists:
			return eh.NewComprehension(target, v, accu, eh.NewLiteral(types.True), eh.NewAccuIdent(),
				eh.NewCall(operators.LogicalAnd, eh.NewAccuIdent(), eh.NewCall(operators.LogicalNot, args[1])),
				eh.NewCall(operators.LogicalNot, eh.NewAccuIdent())), nil
		default: // exists_one
			return eh.NewComprehension(target, v, accu, eh.NewLiteral(types.IntZero), eh.NewIdent(alwaysVariable),
				eh.NewCall(operators.Conditional, args[1],
					eh.NewCall(operators.Add, eh.NewAccuIdent(), eh.NewLiteral(types.IntOne)), eh.NewAccuIdent()),
				eh.NewCall(operators.Equals, eh.NewAccuIdent(), eh.NewLiteral(types.IntOne))), nil
		}
	}
}

func mapMacro(eh cel.MacroExprFactory, target ast.Expr, args []ast.Expr) (ast.Expr, *cel.Error) {
	v, err := iterationVariable(eh, args[0], "argument is not an identifier")
	if err != nil {
		return nil, err
	}
	fn := args[len(args)-1]
	step := eh.NewCall(operators.Add, eh.NewAccuIdent(), eh.NewList(fn))
	if len(args) == 3 {
		step = eh.NewCall(operators.Conditional, args[1], step, eh.NewAccuIdent())
	}
	return eh.NewComprehension(target, v, eh.AccuIdentName(), eh.NewList(), eh.NewIdent(alwaysVariable), step, eh.NewAccuIdent()), nil
}

// filterMacro is filter(x, p) expanded as map(x, p, x).
func filterMacro(eh cel.MacroExprFactory, target ast.Expr, args []ast.Expr) (ast.Expr, *cel.Error) {
	return mapMacro(eh, target, []ast.Expr{args[0], args[1], args[0]})
}

// sortBy is list.sortBy(e, key) as the lists extension expands it: the list bound to sortByInput
// by a comprehension over no elements, the keys by mapMacro. Defined later, it replaces theirs.
func sortBy() cel.Macro {
	return cel.ReceiverMacro("sortBy", 2, func(eh cel.MacroExprFactory, target ast.Expr, args []ast.Expr) (ast.Expr, *cel.Error) {
		switch target.Kind() {
		case ast.ListKind, ast.SelectKind, ast.IdentKind, ast.ComprehensionKind, ast.CallKind:
		default:
			return nil, eh.NewError(target.ID(), "sortBy can only be applied to a list, identifier, comprehension, call or select expression")
		}
		list := eh.NewIdent(sortByInput)
		keys, err := mapMacro(eh, eh.Copy(list), args)
		if err != nil {
			return nil, err
		}
		sorted := eh.NewMemberCall("@sortByAssociatedKeys", eh.Copy(list), keys)
		return eh.NewComprehension(eh.NewList(), "#unused", sortByInput, target, eh.NewLiteral(types.False), list, sorted), nil
	})
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
	count := strings.Count(string(s), string(old)) // for "", one more than the code points
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
	return satAdd(satMul(uint64(len(s)), 6), 2), true // \uXXXX: six bytes for one input byte
}

// scalarBound bounds the text format prints for a scalar: a double at most precision is at
// most 309 digits, a point and 100 decimals.
const scalarBound = 512

// valueBound bounds the text format prints for v, giving up past limit so that a list nested
// by reference cannot make the bound itself expensive.
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
