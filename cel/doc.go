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
// line:column and a caret under the source, as cel-go prints them:
//
//	cel: invalid expression "nss == 'a'": ERROR: <input>:1:1: undeclared reference to 'nss' (in container '')
//	 | nss == 'a'
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
// Policies are tenant-facing, so every dimension is bounded:
//
//   - an expression longer than [MaxExpressionBytes] (5 KiB) is rejected
//     before it is parsed;
//   - each evaluation may spend at most [CostLimit] (1,000,000) units of
//     CEL's runtime cost, Kubernetes' PerCallLimit; the string functions are
//     charged for the bytes they scan and produce, as Kubernetes charges
//     them;
//   - replace, join and format refuse, before allocating, to produce a string
//     longer than [MaxStringBytes] (1 MiB), so that a short expression cannot
//     allocate gigabytes before the cost is counted;
//   - comprehensions check for interruption every 100 iterations, so a
//     cancelled context stops an evaluation promptly.
//
// An evaluation that exceeds a bound returns an error wrapping
// [ErrCostLimit]; one stopped by its context wraps the context's error.
//
// The cost limit bounds work as cel-go counts it, not time. Two gaps are
// known in cel-go v0.29.0: its cost tracker is quadratic in the iterations
// of one comprehension (a 150-byte expression over 80,000 list elements
// stays under the limit and ran for 12.7 s on a loaded 2-core machine), and
// matches is charged only after it ran (a pathological 5 KiB constant
// regular expression against a 256 KiB annotation value took 9 s before
// the limit stopped it). Both need an expression written to be slow, and
// policy expressions come from the platform team, not from tenants; a
// caller that evaluates expressions it does not trust should still pass a
// context with a deadline.
//
// # Errors
//
// Compile errors are [*CompileError] values wrapping [ErrTooLong],
// [ErrInvalid], [ErrNotBool] or [ErrInvalidVariable]. Evaluation errors are
// [*EvalError] values: a missing variable or a runtime error (division by
// zero, a bad regular expression) is an error, never a silent false.
//
// # Concurrency
//
// A [Program] is immutable and safe for concurrent use by multiple
// goroutines. A [Cache] is safe for concurrent use.
package cel
