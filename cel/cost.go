package cel

import (
	"fmt"
	"math"
	"math/bits"
	"slices"
	"strings"

	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
)

// This file is the cost model (the package doc's Bounds and Charges): every function is in
// builtins or constantFunctions, but matches, whose literal pattern matchesOptimization
// compiles once and whose tracker charges it (TestEveryFunctionCharged). Strings count in bytes, since
// counting code points allocates four bytes for each.

const (
	// tzCost is the charge of a timestamp accessor given a time zone name, which cel-go loads
	// at every call (time.LoadLocation) and charges 1 (BenchmarkBuiltins).
	tzCost = 200

	listCallCost = 11 // cel-go's: one for the call, ten for the list (common.ListCreateBaseCost)

	// maxVisits bounds the values one call's charge reads to weigh nested lists and maps; past
	// it the call is refused, since a charge not computed cheaply cannot be bounded either.
	maxVisits = CostLimit
)

// builtin is how one function is charged.
type builtin struct {
	name   string                                      // as an expression writes it
	cost   func(args []ref.Val, result ref.Val) uint64 // of a call that ran; if nil, before's
	before func(args []ref.Val) uint64                 // if set, known first; refused over callLimit
	detail func(args []ref.Val) string                 // if set, describes a refused call's args
	// produces, if set, bounds the bytes of the string result from args, or is false when they
	// are not what the function declares (cel-go then reports the error); the call is refused
	// over MaxStringBytes.
	produces func(args []ref.Val) (uint64, bool)
	prepare  func(args []ref.Val) []ref.Val // if set, rewrites the args of a call not refused
}

func (b *builtin) checked() bool { return b.before != nil || b.produces != nil || b.prepare != nil }

// check refuses (see refuse) a call of b that must not run under the cost limit limit.
func (b *builtin) check(args []ref.Val, limit uint64) {
	if b.produces != nil {
		if n, ok := b.produces(args); ok && n > MaxStringBytes {
			refuse("%s: string result must be no more than %d bytes", b.name, MaxStringBytes)
		}
	}
	if b.before != nil {
		if c := b.before(args); c > callLimit(limit) {
			detail := b.detail
			if detail == nil {
				detail = describeArgs
			}
			refuseCall(b.name, limit, c, detail(args))
		}
	}
}

// callLimit is the most one call checked before it runs may be charged: half the limit, so an
// evaluation does at most one and a half times its limit of work (its limit, then one call).
func callLimit(limit uint64) uint64 { return limit / 2 }

func refuseCall(function string, limit, c uint64, detail string) {
	refuse("%s: cost of one call must be no more than %d, half the cost limit %d, got %d (%s)",
		function, callLimit(limit), limit, c, detail)
}

func describeArgs(args []ref.Val) string {
	d := make([]string, len(args))
	for i, a := range args {
		d[i] = describe(a)
	}
	return strings.Join(d, " and ")
}

// charge is the charge of a call of b that ran: cost's, or before's for a builtin without cost.
func (b *builtin) charge(args []ref.Val, result ref.Val) uint64 {
	if b.cost == nil {
		return b.before(args)
	}
	return b.cost(args, result)
}

// builtins are the functions the cost model charges, under cel-go's internal names ("_+_").
var builtins = func() map[string]*builtin {
	m := map[string]*builtin{
		// Size and conversions of a string read it all (size counts code points); cel-go: 1.
		"size":      {name: "size", cost: reads[types.String]},
		"int":       {name: "int", cost: reads[types.String]},
		"uint":      {name: "uint", cost: reads[types.String]},
		"double":    {name: "double", cost: reads[types.String]},
		"duration":  {name: "duration", cost: reads[types.String]},
		"timestamp": {name: "timestamp", cost: reads[types.String]},
		// The conversions between strings and bytes copy, as cel-go charges.
		"bytes":  {name: "bytes", cost: reads[types.String]},
		"string": {name: "string", cost: reads[types.Bytes]},

		// The standard library's string functions, as cel-go charges them.
		"startsWith": {name: "startsWith", cost: func(args []ref.Val, _ ref.Val) uint64 { return traverse(sizeOf(args[1])) }},
		"endsWith":   {name: "endsWith", cost: func(args []ref.Val, _ ref.Val) uint64 { return traverse(sizeOf(args[1])) }},
		"contains": {name: "contains", cost: func(args []ref.Val, _ ref.Val) uint64 {
			return satMul(traverse(sizeOf(args[0])), traverse(sizeOf(args[1])))
		}},
		"_<_":  {name: "<", cost: compareScalars},
		"_<=_": {name: "<=", cost: compareScalars},
		"_>_":  {name: ">", cost: compareScalars},
		"_>=_": {name: ">=", cost: compareScalars},
		"_+_":  {name: "+", cost: add},

		// Equality and membership read the elements of lists and maps, and their strings.
		"_==_": {name: "==", before: equalCost},
		"_!=_": {name: "!=", before: equalCost},
		"@in":  {name: "in", before: inCost},

		// The strings extension as cel-go charges it from version 5 on (version 2: 1 a call).
		"charAt":        {name: "charAt", cost: scan},
		"lowerAscii":    {name: "lowerAscii", cost: transform},
		"upperAscii":    {name: "upperAscii", cost: transform},
		"substring":     {name: "substring", cost: transform},
		"trim":          {name: "trim", cost: transform},
		"indexOf":       {name: "indexOf", before: searchCost},
		"lastIndexOf":   {name: "lastIndexOf", before: searchCost},
		"split":         {name: "split", cost: splitCost},
		"replace":       {name: "replace", cost: replaceCost, produces: replaceBound},
		"join":          {name: "join", cost: joinCost, produces: joinBound},
		"format":        {name: "format", cost: produce, produces: formatBound},
		"strings.quote": {name: "strings.quote", cost: transform, produces: quoteBound},

		// The lists extension: slice, reverse and lists.range as cel-go charges them.
		"slice":                 {name: "slice", cost: listResult},
		"reverse":               {name: "reverse", cost: listResult},
		"lists.range":           {name: "lists.range", cost: listResult},
		"flatten":               {name: "flatten", before: flattenCost, detail: flattenDetail},
		"distinct":              {name: "distinct", before: distinctCost},
		"sort":                  {name: "sort", before: func(args []ref.Val) uint64 { return sortCost(args[0]) }},
		"@sortByAssociatedKeys": {name: "sortBy", before: func(args []ref.Val) uint64 { return sortCost(args[1]) }},

		"sets.contains":   {name: "sets.contains", before: setsCost(1), prepare: scanned(0, 1)},
		"sets.intersects": {name: "sets.intersects", before: setsCost(1), prepare: scanned(1, 0)},
		"sets.equivalent": {name: "sets.equivalent", before: setsCost(2),
			prepare: func(args []ref.Val) []ref.Val { return scanned(1, 0)(scanned(0, 1)(args)) }},
	}
	// The deprecated spellings of in, which cel-go still dispatches.
	m["in"], m["_in_"] = m["@in"], m["@in"]
	// Timestamp accessors with a time zone name load the zone.
	for _, f := range []string{"getDate", "getDayOfMonth", "getDayOfWeek", "getDayOfYear", "getFullYear",
		"getHours", "getMilliseconds", "getMinutes", "getMonth", "getSeconds"} {
		m[f] = &builtin{name: f, cost: zoneCost}
	}
	return m
}()

// constantFunctions are those whose work does not depend on their arguments' sizes, which
// cel-go charges 1 a call; index is charged by the attribute it is part of.
var constantFunctions = map[string]bool{
	"!_": true, "-_": true, "_%_": true, "_&&_": true, "_*_": true, "_-_": true, "_/_": true,
	"_?_:_": true, "_||_": true, "@not_strictly_false": true, "__not_strictly_false__": true,
	"bool": true, "dyn": true, "type": true, "_[_]": true,
}

// callCost is the charge of a call of function, or false for one left to cel-go.
func callCost(function string, args []ref.Val, result ref.Val) (uint64, bool) {
	b, ok := builtins[function]
	if !ok {
		return 0, false
	}
	return b.charge(args, result), true
}

func traverse(n uint64) uint64 {
	return uint64(math.Ceil(float64(n) * stringCostFactor))
}

// sizeOf is cel-go's measure: bytes of a string or bytes, elements of a list or map, else 1.
func sizeOf(v ref.Val) uint64 {
	switch v := v.(type) {
	case types.String:
		return uint64(len(v))
	case types.Bytes:
		return uint64(len(v))
	case traits.Sizer:
		if n, ok := v.Size().(types.Int); ok && n >= 0 {
			return uint64(n)
		}
	}
	return 1
}

// reads charges a call by the bytes of its first argument when that is a T, else 1.
func reads[T types.String | types.Bytes](args []ref.Val, _ ref.Val) uint64 {
	if s, ok := args[0].(T); ok {
		return max(1, traverse(uint64(len(s))))
	}
	return 1
}

func compareScalars(args []ref.Val, _ ref.Val) uint64 {
	return traverse(min(sizeOf(args[0]), sizeOf(args[1])))
}

// add charges lists by the result's size: cel-go charges 1 for a list it builds lazily, so
// lists that double at each step would cost nothing while every later use reads them whole.
func add(args []ref.Val, _ ref.Val) uint64 {
	switch args[0].(type) {
	case types.String, types.Bytes:
		return traverse(satAdd(sizeOf(args[0]), sizeOf(args[1])))
	case traits.MutableLister:
		return max(1, sizeOf(args[1])) // the accumulator of map and filter, appended to
	case traits.Lister:
		return max(1, satAdd(sizeOf(args[0]), sizeOf(args[1])))
	}
	return 1
}

// equalCost is the charge of == and !=: cel-go's, or, when more, one a pair of elements the
// comparison can read and 0.1 a byte of their strings, since cel-go's 0.1 an element
// undercounts lists of strings against comprehension steps (BenchmarkBuiltins).
func equalCost(args []ref.Val) uint64 {
	visits := uint64(maxVisits)
	work := equalWork(args[0], args[1], &visits)
	if visits == 0 {
		return math.MaxUint64
	}
	return max(traverse(min(sizeOf(args[0]), sizeOf(args[1]))), traverse(work))
}

// inCost is the charge of in: for a list, cel-go's or 0.1 a byte the comparisons can read,
// when more; for a map, the bytes of a string key, which is hashed.
func inCost(args []ref.Val) uint64 {
	switch c := args[1].(type) {
	case traits.Lister:
		if n := sizeOf(c); n > CostLimit {
			return n
		}
		visits := uint64(maxVisits)
		var work uint64
		it := c.Iterator()
		for it.HasNext() == types.True && visits > 0 {
			visits--
			work = satAdd(work, equalWork(args[0], it.Next(), &visits))
		}
		if visits == 0 {
			return math.MaxUint64
		}
		return max(sizeOf(c), traverse(work))
	case traits.Mapper:
		return reads[types.String](args, nil)
	}
	return 1
}

// equalWork bounds what types.Equal(a, b) reads, in tenths of a unit: a byte of strings and
// bytes of equal length, 10 a pair of elements or entries of lists and maps of equal size.
// Each value read counts against visits; at 0 the result is meaningless and the call refused.
func equalWork(a, b ref.Val, visits *uint64) uint64 {
	switch a := a.(type) {
	case types.String:
		if b, ok := b.(types.String); ok && len(a) == len(b) {
			return uint64(len(a))
		}
	case types.Bytes:
		if b, ok := b.(types.Bytes); ok && len(a) == len(b) {
			return uint64(len(a))
		}
	case traits.Lister:
		b, ok := b.(traits.Lister)
		if !ok || sizeOf(a) != sizeOf(b) {
			return 0
		}
		n := types.Int(sizeOf(a))
		var work uint64
		for i := types.Int(0); i < n && *visits > 0; i++ {
			*visits--
			work = satAdd(work, satAdd(10, equalWork(a.Get(i), b.Get(i), visits)))
		}
		return work
	case traits.Mapper:
		b, ok := b.(traits.Mapper)
		if !ok || sizeOf(a) != sizeOf(b) {
			return 0
		}
		var work uint64
		it := a.Iterator()
		for it.HasNext() == types.True && *visits > 0 {
			*visits--
			k := it.Next()
			work = satAdd(work, satAdd(10, sizeOf(k)))
			if bv, found := b.Find(k); found {
				av, _ := a.Find(k)
				work = satAdd(work, equalWork(av, bv, visits))
			}
		}
		return work
	}
	return 0
}

// census groups a list's elements of one kind and size (nothing else is compared past them),
// each group with its count and the most a comparison within it reads.
type census map[shape]group

type shape struct {
	kind byte // 's' string, 'b' bytes, 'l' list, 'm' map
	size uint64
}

type group struct{ count, weight uint64 }

// censusOf takes the census of l; false past maxVisits values.
func censusOf(l ref.Val) (census, bool) {
	c := census{}
	lister, ok := l.(traits.Lister)
	if !ok {
		return c, true
	}
	visits := uint64(maxVisits)
	it := lister.Iterator()
	for it.HasNext() == types.True {
		if visits == 0 {
			return c, false
		}
		visits--
		e := it.Next()
		var kind byte
		switch e.(type) {
		case types.String:
			kind = 's'
		case types.Bytes:
			kind = 'b'
		case traits.Lister:
			kind = 'l'
		case traits.Mapper:
			kind = 'm'
		default:
			continue
		}
		s := shape{kind, sizeOf(e)}
		g := c[s]
		c[s] = group{g.count + 1, max(g.weight, weight(e, &visits))}
	}
	return c, visits > 0
}

// weight is the most that comparing v with another value reads: its bytes and elements, nested.
func weight(v ref.Val, visits *uint64) uint64 {
	switch v := v.(type) {
	case types.String, types.Bytes:
		return sizeOf(v)
	case traits.Lister:
		var w uint64
		it := v.Iterator()
		for it.HasNext() == types.True && *visits > 0 {
			*visits--
			w = satAdd(w, satAdd(1, weight(it.Next(), visits)))
		}
		return w
	case traits.Mapper:
		var w uint64
		it := v.Iterator()
		for it.HasNext() == types.True && *visits > 0 {
			*visits--
			k := it.Next()
			val, _ := v.Find(k)
			w = satAdd(w, satAdd(1, satAdd(weight(k, visits), weight(val, visits))))
		}
		return w
	}
	return 1
}

func pairWork(a, b census) uint64 {
	var work uint64
	for s, ga := range a {
		if gb, ok := b[s]; ok {
			work = satAdd(work, satMul(satMul(ga.count, gb.count), min(ga.weight, gb.weight)))
		}
	}
	return work
}

func selfWork(a census) uint64 {
	var work uint64
	for _, g := range a {
		work = satAdd(work, satMul(satMul(g.count, g.count-1)/2, g.weight))
	}
	return work
}

// selfCompareCost is cel-go's charge of distinct and sort.
func selfCompareCost(l ref.Val) uint64 {
	n := sizeOf(l)
	factor := 2.0
	if lister, ok := l.(traits.Lister); ok && n > 0 {
		switch lister.Get(types.IntZero).(type) {
		case types.String, types.Bytes:
			factor += stringCostFactor
		}
	}
	return satAdd(scale(satMul(n, n), factor), listCallCost)
}

func scale(n uint64, f float64) uint64 {
	x := float64(n) * f
	if x >= math.MaxUint64 {
		return math.MaxUint64
	}
	return uint64(x)
}

func describe(v ref.Val) string {
	switch v := v.(type) {
	case types.String:
		return fmt.Sprintf("a %d-byte string", len(v))
	case types.Bytes:
		return fmt.Sprintf("%d bytes", len(v))
	case traits.Lister:
		return fmt.Sprintf("a list of %d elements", sizeOf(v))
	case traits.Mapper:
		return fmt.Sprintf("a map of %d entries", sizeOf(v))
	}
	return "a " + v.Type().TypeName()
}

func distinctCost(args []ref.Val) uint64 {
	celgo := selfCompareCost(args[0])
	if celgo > CostLimit {
		return celgo // refused as it is: the census of a long list takes time
	}
	c, ok := censusOf(args[0])
	if !ok {
		return math.MaxUint64
	}
	return max(celgo, traverse(selfWork(c)))
}

// sortCost is the charge of sorting by keys: cel-go's, or, when more, 0.1 a byte of at most
// about 2*n*log2(n) comparisons, each reading at most the second longest key.
func sortCost(keys ref.Val) uint64 {
	celgo := selfCompareCost(keys)
	if celgo > CostLimit {
		return celgo
	}
	n := sizeOf(keys)
	var first, second uint64
	if l, ok := keys.(traits.Lister); ok {
		it := l.Iterator()
		for it.HasNext() == types.True {
			w := uint64(1)
			switch k := it.Next(); k.(type) {
			case types.String, types.Bytes:
				w = sizeOf(k)
			}
			if w > first {
				first, second = w, first
			} else if w > second {
				second = w
			}
		}
	}
	compares := satMul(satMul(2, n), uint64(bits.Len64(n)))
	return max(celgo, traverse(satMul(compares, second)))
}

// setsCost is the charge of the sets functions (factor 2 for sets.equivalent, both ways):
// cel-go's, one a pair, or 0.1 a byte the comparisons can read, when more.
func setsCost(factor uint64) func(args []ref.Val) uint64 {
	return func(args []ref.Val) uint64 {
		celgo := satAdd(1, satMul(factor, satMul(sizeOf(args[0]), sizeOf(args[1]))))
		if celgo > CostLimit {
			return celgo
		}
		a, okA := censusOf(args[0])
		b, okB := censusOf(args[1])
		if !okA || !okB {
			return math.MaxUint64
		}
		return max(celgo, traverse(satMul(factor, pairWork(a, b))))
	}
}

// scanned gives a sets function that scans args[list] once per element of args[per] the list
// converted to CEL values once: cel-go's list of split's strings converts an element at every
// read (BenchmarkHostile, BenchmarkHostilePlan).
func scanned(list, per int) func(args []ref.Val) []ref.Val {
	return func(args []ref.Val) []ref.Val {
		l, ok := args[list].(traits.Lister)
		if !ok || sizeOf(args[per]) < 2 {
			return args
		}
		vals := make([]ref.Val, 0, sizeOf(l))
		for it := l.Iterator(); it.HasNext() == types.True; {
			vals = append(vals, it.Next())
		}
		out := slices.Clone(args)
		out[list] = types.NewRefValList(types.DefaultTypeAdapter, vals)
		return out
	}
}

func flattenCost(args []ref.Val) uint64 {
	depth, ok := flattenDepth(args)
	if !ok {
		return 1 // flatten reports the error
	}
	visits := uint64(maxVisits)
	out := flattenedSize(args[0], depth, &visits)
	return satAdd(max(satMul(depth, sizeOf(args[0])), out), listCallCost)
}

func flattenDepth(args []ref.Val) (uint64, bool) {
	if len(args) < 2 {
		return 1, true
	}
	d, ok := args[1].(types.Int)
	return uint64(d), ok && d >= 0
}

func flattenDetail(args []ref.Val) string {
	depth, _ := flattenDepth(args)
	visits := uint64(maxVisits)
	if out := flattenedSize(args[0], depth, &visits); out != math.MaxUint64 {
		return fmt.Sprintf("%s flattened to %d elements", describe(args[0]), out)
	}
	return fmt.Sprintf("%s flattened through more than %d lists", describe(args[0]), maxVisits)
}

// flattenedSize counts the elements of l flattened to depth, math.MaxUint64 past visits.
func flattenedSize(l ref.Val, depth uint64, visits *uint64) uint64 {
	lister, ok := l.(traits.Lister)
	if !ok {
		return 1
	}
	var n uint64
	it := lister.Iterator()
	for it.HasNext() == types.True {
		if *visits == 0 {
			return math.MaxUint64
		}
		*visits--
		inner, ok := it.Next().(traits.Lister)
		switch {
		case !ok || depth == 0:
			n = satAdd(n, 1)
		case depth == 1:
			n = satAdd(n, sizeOf(inner))
		default:
			n = satAdd(n, flattenedSize(inner, depth-1, visits))
		}
	}
	return n
}

func listResult(_ []ref.Val, result ref.Val) uint64 {
	return satAdd(sizeOf(result), listCallCost)
}

// searchCost is cel-go's charge of indexOf and lastIndexOf from strings version 5 on.
func searchCost(args []ref.Val) uint64 {
	return satAdd(1, traverse(satMul(sizeOf(args[0]), sizeOf(args[1]))))
}

func zoneCost(args []ref.Val, _ ref.Val) uint64 {
	if len(args) == 2 {
		if tz, ok := args[1].(types.String); ok && !strings.Contains(string(tz), ":") {
			return tzCost
		}
	}
	return 1
}

// The strings extension's charges, cel-go's from strings version 5 on.

func scan(args []ref.Val, _ ref.Val) uint64 {
	return satAdd(1, traverse(sizeOf(args[0])))
}

func transform(args []ref.Val, result ref.Val) uint64 {
	return satAdd(satAdd(1, traverse(sizeOf(args[0]))), sizeOf(result))
}

func replaceCost(args []ref.Val, result ref.Val) uint64 {
	target, needle := max(sizeOf(args[0]), 1), max(sizeOf(args[1]), 1)
	return satAdd(satAdd(1, traverse(satMul(target, needle))), sizeOf(result))
}

func splitCost(args []ref.Val, result ref.Val) uint64 {
	return satAdd(satAdd(1, traverse(satAdd(sizeOf(args[0]), 1))), satAdd(sizeOf(result), 10))
}

func joinCost(args []ref.Val, result ref.Val) uint64 {
	return satAdd(satAdd(1, traverse(satAdd(sizeOf(args[0]), 1))), sizeOf(result))
}

func produce(_ []ref.Val, result ref.Val) uint64 {
	return satAdd(1, traverse(sizeOf(result)))
}
