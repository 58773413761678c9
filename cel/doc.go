// Package cel compiles and evaluates boolean CEL policies over string
// variables, with the bounds a controller needs when the policy or its
// inputs come from a tenant.
//
// A policy is compiled once and evaluated many times:
//
//	p, err := cel.Compile(`ns.startsWith("tenant-")`, "ns")
//	if err != nil { ... }
//	ok, err := p.Eval(ctx, map[string]string{"ns": "tenant-a"})
//
// Every declared variable is a string. [Compile] type-checks the expression; syntax and type
// errors carry line:column and a caret under the source, as cel-go prints them
// (ExampleCompile_error shows these texts):
//
//	cel: invalid expression "nss == \"a\"": <input>:1:1: undeclared reference to 'nss' (in container '')
//	 | nss == "a"
//	 | ^
//
// # Environment
//
// The environment is pinned to Kubernetes' base CEL environment, so that an expression means
// the same here as in a ValidatingAdmissionPolicy or CRD validation rule. It contains exactly:
//
//   - the CEL standard library, with matches (RE2 syntax; its pattern a string literal, see
//     Bounds) and the has, all, exists, exists_one, map and filter macros;
//   - cel-go's strings extension at version 2, as Kubernetes pins it (charAt, indexOf, lastIndexOf,
//     lowerAscii, upperAscii, replace, split, substring, trim, join, format, strings.quote);
//   - cel-go's sets extension (sets.contains, sets.equivalent, sets.intersects);
//   - cel-go's lists extension at version 3 (slice, flatten, distinct, lists.range, reverse,
//     sort, sortBy), with lists.range capped at 10,000 elements;
//   - homogeneous aggregate literals, cross-type numeric comparisons and UTC as the default
//     time zone, as in Kubernetes.
//
// Kubernetes' own libraries (isSorted/sum/min/max, URL, IP, CIDR, quantity, authorizer) are
// not included: an expression that uses them fails to compile.
//
// # Bounds
//
// Policies and the values they read are tenant-facing, so every dimension is bounded, and a
// bound decides the same on every machine, whatever its load:
//
//   - an expression longer than 5 KiB (5120 bytes) is rejected before it is parsed;
//   - an evaluation may spend at most [CostLimit] (1,000,000) units of CEL's runtime cost,
//     Kubernetes' PerCallLimit. Every function is charged from the sizes of its arguments, as
//     cel-go (and so Kubernetes) charges it except where Charges says otherwise, alike whether
//     the checker resolved its overload or cel-go dispatches it at run time on dyn values;
//   - a call whose work can grow faster than its arguments, or that reads more than their sizes
//     show, is charged before it runs and refused when that alone is over half the cost limit:
//     distinct, sort, sortBy, sets.contains, sets.equivalent, sets.intersects, in, == and != (of
//     lists and maps), flatten, indexOf, lastIndexOf and matches. cel-go charges a call after
//     it returns, so it may run for seconds first. So an evaluation does at most one and a half
//     times its limit of work; a refusal ends it as the cost limit does: || and && do not
//     absorb it;
//   - the pattern of matches, in s.matches(p) and matches(s, p), must be a string literal: an
//     expression whose pattern is anything else (a variable, a concatenation, a call, a
//     comprehension's variable) does not compile. A pattern built from a value would let a
//     tenant write the regular expression that checks the tenant's own value, and compiling one
//     is work its length does not show (\pL alone appends 659 ranges). A literal pattern is
//     checked when the expression compiles and compiled once. This is stricter than cel-go's
//     standard library, Kubernetes and source-watcher v2.3, which all compile
//     'x'.matches(value) (TestMatchesLiteralPatternAsCelGo, issue 34's items 5 and 6 in
//     TestMatchesLiteralPattern);
//   - replace, join, format and strings.quote refuse, before allocating, a string over
//     [MaxStringBytes] (1 MiB), so a short expression cannot allocate gigabytes uncharged;
//   - the comprehensions (all, exists, exists_one, map, filter, sortBy) are charged step by
//     step, as in Kubernetes, and their macros expand so that cel-go's cost tracker takes
//     linear time over them, not quadratic;
//   - [Program.EvalLimited] evaluates under a smaller limit, to share a budget among several
//     evaluations (nsmeta shares 100,000 units among a NamespaceMetadata file's rules);
//   - each evaluation has a fixed time budget, [TimeBudget] (1 s), which the caller's context
//     can only shorten; comprehensions check it every 100 steps. Its expiry depends on the
//     machine, so it is never a verdict: see [Program.Eval].
//
// A unit of cost buys about the same CPU for the slowest work charged, so CostLimit also
// bounds an evaluation's time (BenchmarkBuiltins).
//
// An evaluation stopped by a bound returns an error wrapping [ErrCostLimit] whose message
// names the bound (ExampleProgram_Eval_costLimit shows more):
//
//	cel: evaluating "value.split(',').distinct().size() == value.split(',').size()": cost limit exceeded: distinct: cost of one call must be no more than 500000, half the cost limit 1000000, got 537600011 (a list of 16000 elements)
//	cel: evaluating "lists.range(3000).all(i, value.size() > 0)": cost limit exceeded: runtime cost must be no more than 1000000
//
// # Charges
//
// Where cel-go undercounts the work of a call, the charge here is higher than cel-go's, and
// so than Kubernetes': an expression near the cost limit can pass there and fail here.
//
//   - Strings are counted in bytes, where cel-go counts code points: the same for ASCII, more
//     for other text, and known without reading the string.
//   - size, int, uint, double, duration and timestamp of a string read it: 0.1 a byte (cel-go: 1).
//   - + of two lists: the result's elements (cel-go: 1, for a lazy list later uses read whole).
//   - == and != of lists and maps: one a pair of elements, and 0.1 a byte of the strings
//     compared (cel-go: 0.1 an element).
//   - in, sets.contains, sets.equivalent, sets.intersects, distinct, sort and sortBy: cel-go's
//     (one, or two, a comparison), or 0.1 a byte of the strings their comparisons can read
//     when more; in over a map, 0.1 a byte of a string key.
//   - flatten: the elements of its result, when more than cel-go's (depth times elements).
//   - matches: four times the product cel-go charges (Go's regexp runs some patterns on its
//     slower NFA), a short string as cel-go charges it; and by the compiled size of the pattern
//     where larger than its length, cel-go's measure: an instruction matching a class of more
//     than four ranges counts 2 to 5 times (3 for \pL), a case-insensitive literal twice.
//   - A timestamp accessor given a time zone name, which loads the zone each call: 200 (cel-go: 1).
//   - The strings extension as cel-go charges it from version 5 on (version 2 charges 1 a call,
//     Kubernetes some functions by its own estimator): indexOf and lastIndexOf the string's
//     bytes times the substring's, where Kubernetes charges the string's bytes.
//
// Kubernetes runs every rule of an object with the whole PerCallLimit and takes its cost from
// the object's budget (RuntimeCELCostBudget) after it ran; [Program.EvalLimited] runs with
// what is left instead: a rule that Kubernetes would let finish, then fail the object for,
// stops here. A comprehension step costs one unit less than in Kubernetes for all, one more
// for exists_one, map and filter (Kubernetes' expansions evaluate other loop conditions).
//
// # Errors
//
// Every error wraps exactly one sentinel, one per failure a caller acts on differently, and
// its message names the rule that failed: [ErrInvalid] (a [*CompileError]),
// [ErrInvalidVariable], [ErrEval] (never a silent false) or [ErrCostLimit]. The exception is
// an evaluation stopped by the caller's context or the time budget (see [Program.Eval]).
// Evaluation errors are [*EvalError] values holding the expression.
//
// # Concurrency
//
// A [Program] is immutable and safe for concurrent use by multiple
// goroutines. A [Cache] is safe for concurrent use.
package cel
