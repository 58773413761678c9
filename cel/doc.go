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
// dimension is bounded, and a bound decides the same on every machine,
// whatever its load:
//
//   - an expression longer than [MaxExpressionBytes] (5 KiB) is rejected
//     before it is parsed;
//   - each evaluation may spend at most [CostLimit] (1,000,000) units of
//     CEL's runtime cost, Kubernetes' PerCallLimit. Every function of the
//     environment is charged from the sizes of its arguments, as cel-go
//     (and so Kubernetes) charges it except where Charges says otherwise,
//     and alike whether the type checker resolved its overload or cel-go
//     dispatches the call when it runs, on dyn values;
//   - a call whose work can grow faster than its arguments, or that reads
//     more than its arguments' sizes show, is charged before it runs, and
//     refused when that charge alone is over half the evaluation's cost
//     limit (500,000 of CostLimit): distinct, sort,
//     sortBy, sets.contains, sets.equivalent, sets.intersects, in, == and
//     != (of lists and maps), flatten, indexOf, lastIndexOf and matches.
//     cel-go charges a call only after it returns: distinct over the 16,000
//     hexadecimal numbers of a 75 KiB annotation ran for 9.5 s before the
//     cost limit stopped it, sort over 50,000 for 2 s; now they are
//     refused in milliseconds, by a message that names the function, its
//     charge and its arguments. A call within half the limit runs, and
//     is charged, so an evaluation does at most its limit of work plus one
//     call of at most half of it: one and a half times its limit in all
//     (BenchmarkRuntimePatterns' worst cases build exactly that). A
//     refusal ends the evaluation, as the cost
//     limit does: || and && do not absorb it as they absorb an error;
//   - matches on a pattern that is not a constant of the expression (a
//     variable's value, or a string built from one) compiles the pattern
//     at every call, and compiling is work that the pattern's length does
//     not show: Go's regexp/syntax appends every range of a Unicode class
//     escape (\pL alone has 659) and sorts them, folds each code point of a
//     case-insensitive range one at a time ((?i)[\x{42}-\x{1E942}] folds
//     125,185), and copies what a counted repetition repeats (x{1000} is
//     a thousand instructions). Such a call is charged for compiling its
//     pattern as well as for matching it, before anything is parsed or
//     compiled, from one scan of the pattern's text, linear in its length,
//     that bounds what the parser and the compiler will do with it: its
//     bytes; its nodes and instructions, each charged more as a pattern
//     grows; the ranges its classes append and the sorting of each class;
//     the code points folded one at a time; and, for a pattern that can
//     start with ^ or \A, the ranges of the one-pass analysis. The call is
//     refused when that charge is over half the evaluation's cost limit, so
//     that a tenant's value of Unicode classes under 'x'.matches(value)
//     is refused before it compiles rather than after (issue 34's inputs
//     are regression tests; BenchmarkRuntimePatterns measures them). A
//     constant pattern is compiled once, when the program is made, and
//     charged for matching only;
//   - replace, join, format and strings.quote refuse, before allocating, to
//     produce a string longer than [MaxStringBytes] (1 MiB), so that a short
//     expression cannot allocate gigabytes before the cost is counted;
//   - the comprehensions (all, exists, exists_one, map, filter, sortBy) are
//     charged step by step, as in Kubernetes, whatever the size of their
//     range. Their macros expand so that cel-go's cost tracker takes linear
//     time over them (see macros in env.go): with cel-go's own expansion it
//     takes time quadratic in the steps for a cost that grows linearly
//     (BenchmarkEvalComprehension shows both);
//   - [Program.EvalLimited] evaluates with a cost limit smaller than
//     CostLimit, which bounds all that CostLimit bounds (the runtime cost,
//     and the charge of one call checked before it runs, matches included,
//     whatever its pattern), and returns the cost charged: a caller shares
//     a budget among several evaluations with it, giving each what the
//     ones before it left. Package nsmeta shares 100,000 units among the
//     rules of one NamespaceMetadata file, so that a hostile file costs
//     about a tenth of what one evaluation within CostLimit may;
//   - each evaluation has a fixed time budget, [TimeBudget] (1 s), a
//     backstop applied inside [Program.Eval] whatever context the caller
//     passes, context.Background() included; the caller's context can only
//     shorten it. Comprehensions check for it, and for cancellation, every
//     100 steps. How far an evaluation gets in a second depends on the
//     machine and its load, so the budget's expiry is never a verdict: it
//     is an error that wraps context.DeadlineExceeded, not ErrCostLimit,
//     and a retry may succeed. Within the cost limit an evaluation takes a
//     fraction of the budget (below).
//
// The weights are fitted so that a unit of cost buys about the same CPU
// for the slowest work charged (comprehension steps, matches on Go's NFA,
// in, == and sets.intersects over cel-go's lists of strings) and for
// compiling a pattern from a value, so that CostLimit bounds an
// evaluation's time; one that ends in a call charged up to half of it
// may take one and a half times that. BenchmarkBuiltins, BenchmarkPatternCharge and
// BenchmarkRuntimePatterns measure them; docs/performance.md has the
// current figures.
//
// An evaluation stopped by a bound returns an error wrapping [ErrCostLimit]
// whose message names the bound, for instance (ExampleProgram_Eval_costLimit
// shows more):
//
//	cel: evaluating "value.split(',').distinct().size() == value.split(',').size()": cost limit exceeded: distinct: cost of one call must be no more than 500000, half the cost limit 1000000, got 537600011 (a list of 16000 elements)
//	cel: evaluating "lists.range(3000).all(i, value.size() > 0)": cost limit exceeded: runtime cost must be no more than 1000000
//
// # Charges
//
// Where cel-go undercounts the work of a call, the charge here is higher
// than cel-go's, and so than Kubernetes': an expression near the cost limit
// can pass there and fail here.
//
//   - Strings are counted in bytes, where cel-go counts code points: the
//     same for ASCII, more for other text, and known without reading the
//     string.
//   - size of a string, and int, uint, double, duration and timestamp of a
//     string, read it: 0.1 a byte (cel-go: 1). size over a 256 KiB value
//     in a loop of 3,000 steps took 2.2 s within the cost limit.
//   - + of two lists: the elements of the result (cel-go: 1, for a list
//     it builds lazily, which every later use reads whole).
//   - == and != of lists and maps: one a pair of elements, and 0.1 a byte
//     of the strings compared (cel-go: 0.1 an element).
//   - in, sets.contains, sets.equivalent, sets.intersects, distinct, sort
//     and sortBy: cel-go's (one, or two, a comparison), or 0.1 a byte of
//     the strings their comparisons can read when that is more; in over a
//     map, 0.1 a byte of a string key.
//   - flatten: the elements of its result, when more than cel-go's (the
//     depth times the elements of the list).
//   - matches: four times the product cel-go charges, by the compiled size
//     of the pattern where larger than its length (regexMultiplier in
//     env.go: Go's regexp runs some patterns on its NFA, several times
//     slower a unit of cel-go's charge, BenchmarkBuiltins); a short string is charged as cel-go
//     charges it. The size counts an instruction that matches a class of
//     more than four ranges, which Go's regexp searches by halves, 2 to 5
//     times (3 for \pL), and a case-insensitive literal twice (instWeight
//     in env.go), where cel-go counts the pattern's bytes.
//   - matches on a pattern that is not a constant: compiling the pattern
//     too, before it compiles (see Bounds). cel-go, and Kubernetes with
//     it, compiles such a pattern and matches, then charges the call by
//     the lengths of the string and the pattern, whatever the pattern
//     holds: 551 for 'x'.matches(value) over 200 "[\pL\pN\pP]" (2,200
//     bytes), which is charged 422,076 here, and refused under the budget
//     of a NamespaceMetadata file (TestRuntimePatternAsKubernetes).
//   - A timestamp accessor given a time zone name, which loads the zone at
//     every call: 200 (cel-go: 1).
//   - The strings extension at version 2 is charged as cel-go charges it
//     from version 5 on (version 2 charges 1 a call, and Kubernetes some of
//     its functions by an estimator of its own): indexOf and lastIndexOf,
//     which compare the substring at every position, the string's bytes
//     times the substring's, where Kubernetes charges the string's bytes.
//
// Kubernetes runs every rule of an object with the whole PerCallLimit, and
// takes its cost from the object's budget (RuntimeCELCostBudget) after it
// ran, failing the object once the budget is overdrawn: an object may
// spend its budget plus one call's limit. [Program.EvalLimited] runs an
// evaluation with what is left instead, so a budget is overdrawn by at
// most the charge that stops the evaluation; a rule that Kubernetes would
// let finish, and then fail the object for, stops here where the budget
// runs out.
//
// The steps of the comprehensions cost one unit more or less than in
// Kubernetes, whose expansions evaluate other loop conditions: a step of
// all costs one less, of exists_one, map and filter one more, so a
// comprehension near the cost limit can also pass here and fail there.
//
// # Errors
//
// Every error wraps exactly one sentinel, one per failure a caller acts on
// differently, except an evaluation stopped by a context or the time
// budget; the rule that failed is in the message:
//
//   - [ErrInvalid]: the expression does not compile (too long, a syntax or
//     type error, not bool). The error is a [*CompileError] with the
//     expression and, for syntax and type errors, Line and Column.
//   - [ErrInvalidVariable]: the calling code declared a variable that
//     cannot be one.
//   - [ErrEval]: the evaluation failed: a missing variable or a runtime
//     error (division by zero, a bad regular expression). It is an error,
//     never a silent false.
//   - [ErrCostLimit]: a bound stopped the evaluation, the same way on every
//     machine.
//
// An evaluation stopped by the caller's context wraps the context's error,
// and one stopped by the time budget wraps context.DeadlineExceeded: either
// may succeed when tried again.
//
// Evaluation errors are [*EvalError] values holding the expression.
//
// # Concurrency
//
// A [Program] is immutable and safe for concurrent use by multiple
// goroutines. A [Cache] is safe for concurrent use.
package cel
