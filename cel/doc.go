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
// Every declared variable is a string. The expression is type-checked when
// it is compiled: an undeclared variable, a syntax error, or an output type
// other than bool is a compile error. Syntax and type errors carry
// line:column and a caret under the source, as cel-go prints them
// (ExampleCompile_error shows these texts):
//
//	cel: invalid expression "nss == \"a\"": <input>:1:1: undeclared reference to 'nss' (in container '')
//	 | nss == "a"
//	 | ^
//
// # Environment
//
// The environment is pinned so that an expression means the same thing here
// as in a Kubernetes ValidatingAdmissionPolicy or CRD validation rule, which
// share Kubernetes' base CEL environment. It contains exactly:
//
//   - the CEL standard library, including the regular-expression function
//     matches (RE2 syntax) and the has, all, exists, exists_one, map and
//     filter macros;
//   - cel-go's strings extension at version 2 (charAt, indexOf, lastIndexOf,
//     lowerAscii, upperAscii, replace, split, substring, trim, join, format,
//     strings.quote), as Kubernetes pins it;
//   - cel-go's sets extension (sets.contains, sets.equivalent,
//     sets.intersects);
//   - cel-go's lists extension at version 3 (slice, flatten, distinct,
//     lists.range, reverse, sort, sortBy), with lists.range capped at 10,000
//     elements;
//   - homogeneous aggregate literals, cross-type numeric comparisons and UTC
//     as the default time zone, as in Kubernetes.
//
// Kubernetes' own libraries (its isSorted/sum/min/max list functions, URL,
// IP, CIDR, quantity, authorizer) live in k8s.io/apiserver and are not
// included: an expression that uses them fails to compile here, it never
// silently means something else.
//
// # Bounds
//
// Policies are tenant-facing, and so are the values they read, so every
// dimension is bounded:
//
//   - an expression longer than [MaxExpressionBytes] (5 KiB) is rejected
//     before it is parsed;
//   - each evaluation may spend at most [CostLimit] (1,000,000) units of
//     CEL's runtime cost, Kubernetes' PerCallLimit; the string functions are
//     charged for the bytes they scan and produce, as Kubernetes charges
//     them;
//   - a comprehension (all, exists, exists_one, map, filter) is charged
//     n*n/16 for a range of n elements before its first step, because
//     cel-go v0.29's cost tracker takes time quadratic in the steps of a
//     comprehension while it counts them linearly: the rule
//     value.split(',').all(x, x.matches('^[a-z]+$')) over a tenant's
//     annotation took 8, 29 and 131 ms at 4, 8 and 16 KiB and more than 5 s
//     at 256 KiB, all within the cost limit. A range of more than 4,000
//     elements is refused before it starts. Kubernetes does not make this
//     charge, so a comprehension over a long list can pass there and fail
//     here; the macros still mean what they mean there. The charge is made
//     by a hidden call around the range, which a type error names: ranging
//     over a string reports no matching overload for '@charged_range';
//   - matches is refused before it runs when its own charge (the string's
//     length times the pattern's, counting the compiled size of a pattern
//     like "[a-z]{1000}" where larger) is over the cost limit: cel-go
//     charges a call after it returns, and one match of a 5 KiB pattern
//     against a 256 KiB value runs for seconds;
//   - replace, join, format and strings.quote refuse, before allocating, to
//     produce a string longer than [MaxStringBytes] (1 MiB), so that a short
//     expression cannot allocate gigabytes before the cost is counted;
//   - each evaluation has a fixed time budget, [TimeBudget] (1 s), a
//     backstop applied inside [Program.Eval] whatever context the caller
//     passes, context.Background() included; the caller's context can only
//     shorten it. It covers what the cost model does not: nested
//     comprehensions still take time quadratic in their total steps.
//     Comprehensions check for it, and for cancellation, every 100 steps.
//
// An evaluation that exceeds any of these bounds returns an error wrapping
// [ErrCostLimit] whose message names the bound; callers act on them alike
// (the input or the policy is too expensive, and a retry does not help), so
// they share the sentinel. One stopped because the caller's context ended
// wraps the context's error instead. ExampleProgram_Eval_costLimit shows
// the texts, for instance:
//
//	cel: evaluating "value.split(',').all(x, x.matches('^[a-z]+$'))": cost limit exceeded: a comprehension must range over no more than 4000 elements, got 131073
//	cel: evaluating "value.split(',').all(x, x.matches('^[a-z]+$'))": cost limit exceeded: must finish within the time budget of 1s
//
// # Errors
//
// Every error wraps exactly one sentinel, one per failure a caller acts on
// differently, except an evaluation stopped by the caller's context, which
// wraps that context's error; the rule that failed is in the message:
//
//   - [ErrInvalid]: the expression does not compile (too long, a syntax or
//     type error, not bool). The error is a [*CompileError] with the
//     expression and, for syntax and type errors, Line and Column.
//   - [ErrInvalidVariable]: the calling code declared a variable that
//     cannot be one.
//   - [ErrEval]: the evaluation failed: a missing variable or a runtime
//     error (division by zero, a bad regular expression). It is an error,
//     never a silent false.
//   - [ErrCostLimit]: a bound stopped the evaluation.
//
// Evaluation errors are [*EvalError] values holding the expression.
//
// # Concurrency
//
// A [Program] is immutable and safe for concurrent use by multiple
// goroutines. A [Cache] is safe for concurrent use.
package cel
