package cel_test

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tenantkit/tenantkit/cel"

	"github.com/tenantkit/tenantkit/internal/hostile"
)

// maxExpressionBytes is the bound on an expression's length that the package doc states.
const maxExpressionBytes = 5 * 1024

// atLimit returns a valid expression of exactly maxExpressionBytes
// bytes plus extra.
func atLimit(extra int) string {
	const head, tail = `value == "`, `"`
	return head + strings.Repeat("a", maxExpressionBytes+extra-len(head)-len(tail)) + tail
}

// maxMessageBytes bounds the message of any error: cel-go repeats the
// offending line under its caret, so an expression at the length limit
// gives a message a few times its size, never more.
const maxMessageBytes = 4*maxExpressionBytes + 1024

// hostileCompileTests are expressions a misconfigured or malicious spec
// could hold. Each must compile (wantErr nil) or fail with the sentinel,
// a *CompileError naming the expression, and a message containing every
// string of detail.
var hostileCompileTests = []struct {
	name    string
	expr    string
	vars    []string
	wantErr error
	detail  []string
}{
	// Size.
	{name: "exactly the length limit", expr: atLimit(0), vars: []string{"value"}},
	{name: "one byte over the length limit", expr: atLimit(1), vars: []string{"value"}, wantErr: cel.ErrInvalid,
		detail: []string{"must be no more than 5120 bytes, got 5121"}},
	{name: "1 MiB expression", expr: "true || " + strings.Repeat("x", 1<<20), wantErr: cel.ErrInvalid,
		detail: []string{"got 1048584", "..."}},
	{name: "1 MiB of open parentheses", expr: strings.Repeat("(", 1<<20), wantErr: cel.ErrInvalid},

	// Nesting and balance.
	// cel-go reports its recursion limits without a usable position
	// ("<input>:-1:0"), so these name only the limit.
	{name: "parentheses nested 2500 deep", expr: strings.Repeat("(", 2500) + "true" + strings.Repeat(")", 2500), wantErr: cel.ErrInvalid,
		detail: []string{"expression recursion limit exceeded: 250"}},
	{name: "lists nested 2000 deep", expr: strings.Repeat("[", 2000) + "true" + strings.Repeat("]", 2000) + " == []", wantErr: cel.ErrInvalid,
		detail: []string{"expression recursion limit exceeded: 250"}},
	{name: "maps nested 700 deep", expr: strings.Repeat("{'a': ", 700) + "true" + strings.Repeat("}", 700) + ` == {}`, wantErr: cel.ErrInvalid,
		detail: []string{"expression recursion limit exceeded: 250"}},
	{name: "left-nested concatenation 600 deep", expr: strings.Repeat("value + ", 600) + `value == ""`, vars: []string{"value"}, wantErr: cel.ErrInvalid,
		detail: []string{"max recursion depth exceeded"}},
	{name: "unary negation 5000 deep", expr: strings.Repeat("!", 5000) + "true"},
	{name: "unclosed parentheses", expr: "((((true", wantErr: cel.ErrInvalid,
		detail: []string{"<input>:1:9: Syntax error", "\n | ((((true\n | ........^"}},
	{name: "unopened parentheses", expr: "true)))", wantErr: cel.ErrInvalid,
		detail: []string{"<input>:1:5: Syntax error", "\n | ....^"}},
	{name: "unbalanced brackets and braces", expr: "[{(]})", wantErr: cel.ErrInvalid, detail: []string{"Syntax error"}},
	{name: "unterminated string", expr: `value == "abc`, vars: []string{"value"}, wantErr: cel.ErrInvalid, detail: []string{"Syntax error"}},

	// Bytes that do not belong in an expression.
	{name: "NUL byte after the expression", expr: "true\x00", wantErr: cel.ErrInvalid,
		detail: []string{"<input>:1:5: Syntax error: token recognition error"}},
	{name: "NUL byte in an identifier", expr: "val\x00ue == ''", vars: []string{"value"}, wantErr: cel.ErrInvalid},
	{name: "NUL byte in a string literal", expr: "value == 'a\x00b'", vars: []string{"value"}},
	{name: "invalid UTF-8 outside a literal", expr: "\xff", wantErr: cel.ErrInvalid, detail: []string{"<input>:1:1: Syntax error"}},
	{name: "invalid UTF-8 in a string literal", expr: "value == '\xc3\x28'", vars: []string{"value"}},
	{name: "Kelvin sign as an identifier", expr: "\u212a == 'k'", vars: []string{"value"}, wantErr: cel.ErrInvalid},
	{name: "newline and carriage return", expr: "value ==\r\n'a' ||\n\n\n value == 'b'", vars: []string{"value"}},

	// Output types other than bool.
	{name: "string output", expr: "value", vars: []string{"value"}, wantErr: cel.ErrInvalid, detail: []string{"output type must be bool, not string"}},
	{name: "int output", expr: "value.size()", vars: []string{"value"}, wantErr: cel.ErrInvalid, detail: []string{"output type must be bool, not int"}},
	{name: "null output", expr: "null", wantErr: cel.ErrInvalid, detail: []string{"output type must be bool, not null_type"}},
	{name: "list of bool output", expr: "[true]", wantErr: cel.ErrInvalid, detail: []string{"list(bool)"}},
	{name: "map output", expr: "{'a': true}", wantErr: cel.ErrInvalid, detail: []string{"map(string, bool)"}},
	{name: "dyn output", expr: "dyn(true)", wantErr: cel.ErrInvalid, detail: []string{"output type must be bool, not dyn"}},
	{name: "bytes output", expr: "b'true'", wantErr: cel.ErrInvalid, detail: []string{"bytes"}},
	{name: "duration output", expr: "duration('1s')", wantErr: cel.ErrInvalid, detail: []string{"duration"}},
	{name: "bool or int", expr: "value == 'a' ? true : 1", vars: []string{"value"}, wantErr: cel.ErrInvalid, detail: []string{"no matching overload"}},

	// Regular expressions and literals checked when compiled.
	{name: "invalid constant regex", expr: `value.matches("(a")`, vars: []string{"value"}, wantErr: cel.ErrInvalid,
		detail: []string{"<input>:1:15: the pattern of matches must be a valid regular expression: error parsing regexp: missing closing ): `(a`"}},
	// A pattern from the value is refused, not compiled at each call
	// (TestMatchesLiteralPattern has every form).
	{name: "regex from the value", expr: "value.matches(value)", vars: []string{"value"}, wantErr: cel.ErrInvalid,
		detail: []string{"<input>:1:15: the pattern of matches must be a string literal\n | value.matches(value)\n | ..............^"}},
	{name: "regex built from the value", expr: "'x'.matches('^' + value)", vars: []string{"value"}, wantErr: cel.ErrInvalid,
		detail: []string{"<input>:1:17: the pattern of matches must be a string literal"}},
	{name: "invalid duration literal", expr: `duration("forever") > duration("1s")`, wantErr: cel.ErrInvalid},
	{name: "format precision bomb", expr: `"%.999999999f".format([1.0]) == ""`, wantErr: cel.ErrInvalid, detail: []string{"precision"}},

	// Variables.
	{name: "empty variable", expr: "true", vars: []string{""}, wantErr: cel.ErrInvalidVariable, detail: []string{`variable ""`}},
	{name: "variable with a NUL byte", expr: "true", vars: []string{"ns\x00"}, wantErr: cel.ErrInvalidVariable, detail: []string{`"ns\x00"`}},
	{name: "variable with a dash", expr: "true", vars: []string{"my-var"}, wantErr: cel.ErrInvalidVariable},
	{name: "variable with the Kelvin sign", expr: "true", vars: []string{"\u212a"}, wantErr: cel.ErrInvalidVariable},
	{name: "reserved variable", expr: "true", vars: []string{"null"}, wantErr: cel.ErrInvalidVariable, detail: []string{"reserved"}},
	{name: "duplicate variable", expr: "true", vars: []string{"value", "value"}, wantErr: cel.ErrInvalidVariable, detail: []string{"declared once"}},
	{name: "undeclared variable", expr: "ns == ''", vars: []string{"value"}, wantErr: cel.ErrInvalid, detail: []string{"undeclared reference to 'ns'"}},
}

func TestHostileCompile(t *testing.T) {
	t.Parallel()
	for _, tt := range hostileCompileTests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			hostile.NoPanic(t, func() {
				p, err := cel.Compile(tt.expr, tt.vars...)
				if tt.wantErr == nil {
					if err != nil {
						t.Fatalf("Compile() = %v, want no error", err)
					}
					if p.String() != tt.expr {
						t.Errorf("String() = %q, want the expression", p.String())
					}
					return
				}
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("Compile() error = %v, want %v", err, tt.wantErr)
				}
				var ce *cel.CompileError
				if isCompileError := errors.As(err, &ce); isCompileError != (tt.wantErr == cel.ErrInvalid) || isCompileError && ce.Expr != tt.expr {
					t.Fatalf("error %v: a *CompileError holding the expression if and only if it wraps ErrInvalid", err)
				}
				msg := err.Error()
				for _, d := range tt.detail {
					if !strings.Contains(msg, d) {
						t.Errorf("error %.300q does not contain %q", msg, d)
					}
				}
				if len(msg) > maxMessageBytes {
					t.Errorf("error message is %d bytes, want at most %d", len(msg), maxMessageBytes)
				}
			})
		})
	}
}

// hostileEvalTests are expressions that compile but must fail, or stay
// bounded, when evaluated with a hostile value.
var hostileEvalTests = []struct {
	name    string
	expr    string
	value   string
	want    bool
	wantErr error
	detail  string
}{
	// Runtime errors are errors, never false.
	{name: "division by zero", expr: "1 / value.size() == 1", wantErr: cel.ErrEval, detail: "division by zero"},
	{name: "index out of range", expr: "value.split(',')[5] == ''", value: "a,b", wantErr: cel.ErrEval, detail: "index"},
	{name: "range too large", expr: "lists.range(10001).size() > 0", wantErr: cel.ErrEval, detail: "exceeds maximum allowed (10000)"},
	{name: "negative range", expr: "lists.range(-1).size() > 0", wantErr: cel.ErrEval},

	// Costs that grow exponentially with nesting, or with the value.
	{name: "comprehensions nested 6 deep over a large value",
		expr:  strings.Repeat("[0,1,2,3,4,5,6,7,8,9].all(x, ", 6) + "value.lowerAscii() != ''" + strings.Repeat(")", 6),
		value: strings.Repeat("A", 64<<10), wantErr: cel.ErrCostLimit, detail: "runtime cost must be no more than 1000000"},
	{name: "doubling a string 24 times",
		expr: "[value + value].all(a, [a + a].all(b, [b + b].all(c, [c + c].all(d, [d + d].all(e, [e + e].all(f, [f + f].all(g, [g + g].all(h, " +
			"[h + h].all(i, [i + i].all(j, [j + j].all(k, [k + k].all(l, [l + l].all(m, [m + m].all(n, [n + n].all(o, [o + o].all(p, " +
			"[p + p].all(q, [q + q].all(r, [r + r].all(s, [s + s].all(u, [u + u].all(v, [v + v].all(w, [w + w].all(y, [y + y].all(z, z.size() > 0))))))))))))))))))))))))",
		value: "ab", wantErr: cel.ErrCostLimit},
	{name: "search quadratic in the value", expr: "value.indexOf(value) >= 0", value: strings.Repeat("a", 1<<20), wantErr: cel.ErrCostLimit},
	{name: "concatenating 16 MiB", expr: `value + value != ""`, value: strings.Repeat("a", 8<<20), wantErr: cel.ErrCostLimit},

	// Issue 18: a tenant's annotation under a schema rule; also a seed of
	// FuzzCompile. cel-go's cost tracker took time quadratic in the steps
	// of a comprehension (more than 5 s here, within the cost limit); the
	// macros now expand so that it takes linear time, and the rule
	// evaluates within the cost limit, as in Kubernetes. The last element
	// of "a,a,...," is empty, so the rule is false.
	{name: "issue 18: split and matches over a 256 KiB annotation", expr: `value.split(',').all(x, x.matches('^[a-z]+$'))`,
		value: strings.Repeat("a,", 128<<10), want: false},
	{name: "issue 18 without the empty element", expr: `value.split(',').all(x, x.matches('^[a-z]+$'))`,
		value: strings.Repeat("a,", 128<<10-1) + "a", want: true},
	{name: "one match charged over the limit", expr: "value.matches('" + strings.Repeat("(a|b)", 1000) + "')",
		value: strings.Repeat("a", 256<<10), wantErr: cel.ErrCostLimit,
		detail: "matches: cost of one call must be no more than 500000, half the cost limit 1000000"},
	{name: "one match over the limit by the compiled size of its pattern", expr: "value.matches('^[a-z]{1000}$')",
		value: strings.Repeat("a", 256<<10), wantErr: cel.ErrCostLimit,
		detail: "matches: cost of one call must be no more than 500000, half the cost limit 1000000, got 26319358 (a 262144-byte string and a pattern of size 1004)"},

	// Functions that would allocate far more than the cost counts, stopped
	// before they allocate.
	{name: "replace bomb", expr: "value.replace('', value) != ''", value: strings.Repeat("x", 2<<10), wantErr: cel.ErrCostLimit,
		detail: "string result must be no more than 1048576 bytes"},
	{name: "join bomb", expr: "lists.range(1000).map(i, value).join('') != ''", value: strings.Repeat("x", 2<<10), wantErr: cel.ErrCostLimit,
		detail: "string result must be no more than 1048576 bytes"},
	{name: "format bomb", expr: "'%s'.format([lists.range(1000).map(i, value)]) != ''", value: strings.Repeat("x", 2<<10), wantErr: cel.ErrCostLimit,
		detail: "string result must be no more than 1048576 bytes"},
	{name: "quote bomb", expr: "strings.quote(value) != ''", value: strings.Repeat("\x00", 256<<10), wantErr: cel.ErrCostLimit,
		detail: "string result must be no more than 1048576 bytes"},

	// Hostile values that stay within the bounds.
	{name: "8 MiB value, size", expr: "value.size() > 0", value: strings.Repeat("a", 8<<20), want: true},
	{name: "NUL bytes in the value", expr: `value.contains("\x00")`, value: "a\x00b", want: true},
	{name: "invalid UTF-8 in the value", expr: "value.size() == 3", value: "a\xffb", want: true},
	{name: "Kelvin sign lowercased is not k", expr: `value.lowerAscii() == "k"`, value: "\u212a", want: false},
	{name: "dotted capital I lowercased is not i", expr: `value.lowerAscii() == "i"`, value: "\u0130", want: false},
	{name: "unary negation 5000 deep", expr: strings.Repeat("!", 5000) + "(value == '')", want: true},
	{name: "pathological regex against a label value", expr: "value.matches('^" + strings.Repeat("(a?)", 30) + strings.Repeat("a", 30) + "$')",
		value: strings.Repeat("a", 63), want: false},
}

func TestHostileEval(t *testing.T) {
	t.Parallel()
	for _, tt := range hostileEvalTests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			hostile.NoPanic(t, func() {
				p, err := cel.Compile(tt.expr, "value")
				if err != nil {
					t.Fatalf("Compile() = %v", err)
				}
				got, err := cel.WithoutTimeBudget(p).Eval(context.Background(), map[string]string{"value": tt.value})
				if tt.wantErr == nil {
					if err != nil || got != tt.want {
						t.Fatalf("Eval() = %v, %v; want %v, nil", got, err, tt.want)
					}
					return
				}
				if got || !errors.Is(err, tt.wantErr) {
					t.Fatalf("Eval() = %v, %v; want false, %v", got, err, tt.wantErr)
				}
				var ee *cel.EvalError
				if !errors.As(err, &ee) || ee.Expr != tt.expr {
					t.Fatalf("error %v is not an *EvalError naming the expression", err)
				}
				msg := err.Error()
				if !strings.Contains(msg, tt.detail) {
					t.Errorf("error %.300q does not contain %q", msg, tt.detail)
				}
				if len(msg) > maxMessageBytes {
					t.Errorf("error message is %d bytes, want at most %d", len(msg), maxMessageBytes)
				}
			})
		})
	}
}

// hexList returns the numbers 0 to n-1 in hexadecimal, joined by commas:
// the hostile annotation of the issue "Hostile tenants, round three".
func hexList(n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.FormatInt(int64(i), 16))
	}
	return b.String()
}

// builtinTests are builtins whose work grows faster than their arguments,
// or that cel-go charged less than their work, each with the input that
// showed it. Each is refused with ErrCostLimit and the exact reason
// (wantErr; a call refused before it runs names the function, its charge
// and its arguments), or completes within the cost limit (want).
// BenchmarkHostile times the same inputs.
var builtinTests = []struct {
	name    string
	expr    string
	value   string
	size    int // the value's length in bytes, checked
	want    bool
	wantErr string
}{
	// Issue "Hostile tenants, round three", item 1: 9.5 s, 45.9 s, 10.6 s
	// and 2.0 s, charged only after they returned.
	{name: "distinct over 16,000 hex numbers", expr: `value.split(',').distinct().size() == value.split(',').size()`,
		value: hexList(16000), size: 75631,
		wantErr: `distinct: cost of one call must be no more than 500000, half the cost limit 1000000, got 537600011 (a list of 16000 elements)`},
	{name: "distinct over 40,000 hex numbers", expr: `value.split(',').distinct().size() == value.split(',').size()`,
		value: hexList(40000), size: 195631,
		wantErr: `distinct: cost of one call must be no more than 500000, half the cost limit 1000000, got 3360000011 (a list of 40000 elements)`},
	{name: "sets.equivalent over 16,000 hex numbers", expr: `sets.equivalent(value.split(','), value.split(','))`,
		value: hexList(16000), size: 75631,
		wantErr: `sets.equivalent: cost of one call must be no more than 500000, half the cost limit 1000000, got 512000001 (a list of 16000 elements and a list of 16000 elements)`},
	{name: "sort over 50,000 hex numbers", expr: `value.split(',').sort() == value.split(',')`,
		value: hexList(50000), size: 245631,
		wantErr: `sort: cost of one call must be no more than 500000, half the cost limit 1000000, got 5250000011 (a list of 50000 elements)`},
	// The same functions under the limit run, and are charged.
	{name: "distinct over 400 hex numbers", expr: `value.split(',').distinct().size() == value.split(',').size()`,
		value: hexList(400), size: 1327, want: true},
	{name: "sets.equivalent over 490 hex numbers", expr: `sets.equivalent(value.split(','), value.split(','))`,
		value: hexList(490), size: 1687, want: true},
	{name: "sort over 400 hex numbers", expr: `value.split(',').sort().size() == 400`,
		value: hexList(400), size: 1327, want: true},

	// Found with them.
	{name: "sortBy over 50,000 hex numbers", expr: `value.split(',').sortBy(x, x.size()).size() > 0`,
		value: hexList(50000), size: 245631,
		wantErr: `sortBy: cost of one call must be no more than 500000, half the cost limit 1000000, got 5000000011 (a list of 50000 elements and a list of 50000 elements)`},
	{name: "sort dispatched at run time", expr: `dyn(value.split(',')).sort().size() > 0`,
		value: hexList(50000), size: 245631,
		wantErr: `sort: cost of one call must be no more than 500000, half the cost limit 1000000, got 5250000011 (a list of 50000 elements)`},
	{name: "nested comprehensions over a 176 KiB annotation", expr: `value.split(',').all(x, x.split(':').all(y, y.size() < 10))`,
		value: strings.Repeat(strings.Repeat("a:", 29)+"a,", 2999) + "a", size: 179941, want: true},
	{name: "size of a 256 KiB string in a loop", expr: `lists.range(3000).all(i, value.size() > 0)`,
		value: strings.Repeat("a", 256<<10), size: 256 << 10,
		wantErr: `runtime cost must be no more than 1000000`},
	{name: "in over copies of a 256 KiB string", expr: `value.lowerAscii() in lists.range(3000).map(i, value)`,
		value: strings.Repeat("a", 256<<10), size: 256 << 10,
		wantErr: `in: cost of one call must be no more than 500000, half the cost limit 1000000, got 78643200 (a 262144-byte string and a list of 3000 elements)`},
	{name: "equality of lists of 256 KiB strings", expr: `lists.range(2000).map(i, value) == lists.range(2000).map(i, value)`,
		value: strings.Repeat("a", 256<<10), size: 256 << 10,
		wantErr: `==: cost of one call must be no more than 500000, half the cost limit 1000000, got 52430800 (a list of 2000 elements and a list of 2000 elements)`},
	{name: "indexOf quadratic in the value", expr: `value.indexOf(value.substring(1)) >= 0`,
		value: strings.Repeat("a", 256<<10), size: 256 << 10,
		wantErr: `indexOf: cost of one call must be no more than 500000, half the cost limit 1000000, got 6871921461 (a 262144-byte string and a 262143-byte string)`},
	{name: "flatten of references to one list", expr: `[lists.range(10000)].all(l, lists.range(2000).map(i, l).flatten().size() > 0)`,
		wantErr: `flatten: cost of one call must be no more than 500000, half the cost limit 1000000, got 20000011 (a list of 2000 elements flattened to 20000000 elements)`},
	{name: "a list doubled 30 times", expr: `[lists.range(10)]` + strings.Repeat(`.map(a, a + a)`, 30) + `.size() > 0`,
		wantErr: `runtime cost must be no more than 1000000`},
	{name: "a string doubled 30 times through dyn", expr: `[dyn(value)]` + strings.Repeat(`.map(a, dyn(a) + dyn(a))`, 30) + `.size() > 0`,
		value: strings.Repeat("a", 63), size: 63,
		wantErr: `runtime cost must be no more than 1000000`},
	{name: "a time zone loaded in a loop", expr: `lists.range(10000).all(i, timestamp('2024-01-01T00:00:00Z').getHours('Europe/Paris') >= 0)`,
		wantErr: `runtime cost must be no more than 1000000`},
	{name: "a refusal is not absorbed by ||", expr: `sets.equivalent(value.split(','), value.split(',')) || true`,
		value: hexList(16000), size: 75631,
		wantErr: `sets.equivalent: cost of one call must be no more than 500000, half the cost limit 1000000, got 512000001 (a list of 16000 elements and a list of 16000 elements)`},
}

// TestHostileBuiltins checks each of builtinTests, whatever the time its
// evaluation takes (WithoutTimeBudget): the outcome is the cost model's.
func TestHostileBuiltins(t *testing.T) {
	t.Parallel()
	for _, tt := range builtinTests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if len(tt.value) != tt.size {
				t.Fatalf("value is %d bytes, want %d", len(tt.value), tt.size)
			}
			p := cel.WithoutTimeBudget(cel.MustCompile(tt.expr, "value"))
			got, err := p.Eval(context.Background(), map[string]string{"value": tt.value})
			if tt.wantErr == "" {
				if err != nil || got != tt.want {
					t.Fatalf("Eval() = %v, %v; want %v, nil", got, err, tt.want)
				}
				return
			}
			var ee *cel.EvalError
			if got || !errors.Is(err, cel.ErrCostLimit) || !errors.As(err, &ee) || ee.Expr != tt.expr ||
				ee.Err.Error() != "cel: cost limit exceeded: "+tt.wantErr {
				t.Fatalf("Eval() = %v, %v;\nwant false, an *EvalError wrapping ErrCostLimit: %s", got, err, tt.wantErr)
			}
		})
	}
}

// TestHostileEvalMissingVariable checks that an unbound variable is an
// error, not false, even when the expression would be false anyway.
func TestHostileEvalMissingVariable(t *testing.T) {
	t.Parallel()
	p := cel.MustCompile(`ns == "x" && value == "y"`, "ns", "value")
	for _, vars := range []map[string]string{nil, {}, {"ns": "x"}, {"NS": "x", "Value": "y"}} {
		got, err := p.Eval(context.Background(), vars)
		if got || !errors.Is(err, cel.ErrEval) {
			t.Errorf("Eval(%v) = %v, %v; want false, ErrEval", vars, got, err)
		}
	}
}

// TestHostileEvalContext checks that the caller's context bounds an
// evaluation: the interrupt check every 100 comprehension steps stops it
// once the context is done, with the context's error. The contexts here are
// done before the evaluation starts, so that the outcome does not depend on
// the machine's speed.
func TestHostileEvalContext(t *testing.T) {
	t.Parallel()
	p := cel.WithoutTimeBudget(cel.MustCompile("lists.range(3000).all(i, [0,1,2,3,4,5,6,7,8,9].all(j, i + j >= 0))", "value"))

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if got, err := p.Eval(ctx, map[string]string{"value": ""}); got || !errors.Is(err, context.Canceled) {
		t.Errorf("Eval(cancelled) = %v, %v; want false, context.Canceled", got, err)
	}

	ctx, cancel = context.WithDeadline(context.Background(), time.Unix(0, 0))
	defer cancel()
	got, err := p.Eval(ctx, map[string]string{"value": ""})
	if got || !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, cel.ErrCostLimit) {
		t.Errorf("Eval(deadline) = %v, %v; want false, context.DeadlineExceeded and not ErrCostLimit", got, err)
	}
}

// TestHostileCache checks that hostile expressions are never cached and
// leave the cache usable.
func TestHostileCache(t *testing.T) {
	t.Parallel()
	c := cel.NewCache(4)
	for _, tt := range hostileCompileTests {
		if tt.wantErr == nil {
			continue
		}
		hostile.NoPanic(t, func() {
			if _, err := c.Compile(tt.expr, tt.vars...); !errors.Is(err, tt.wantErr) {
				t.Errorf("%s: Cache.Compile() error = %v, want %v", tt.name, err, tt.wantErr)
			}
		})
	}
	if n := c.Len(); n != 0 {
		t.Errorf("Len() = %d after only failing compiles, want 0", n)
	}
	p, err := c.Compile(`value == "a"`, "value")
	if err != nil || c.Len() != 1 {
		t.Fatalf("Compile() = %v, Len() = %d after hostile input", err, c.Len())
	}
	if ok, err := p.Eval(context.Background(), map[string]string{"value": "a"}); !ok || err != nil {
		t.Errorf("Eval() = %v, %v", ok, err)
	}
}
