package cel_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tenantkit/tenantkit/cel"
)

// compileTests is shared by TestCompile and FuzzCompile's seeds.
var compileTests = []struct {
	name    string
	expr    string
	vars    []string
	wantErr error  // nil: compiles
	detail  string // substring the error must contain
}{
	{name: "prefix", expr: `ns.startsWith("tenant-")`, vars: []string{"ns"}},
	{name: "regex", expr: `value.matches('^(Enabled|Disabled)$')`, vars: []string{"value"}},
	{name: "true", expr: `true`},
	{name: "two vars", expr: `a == b`, vars: []string{"a", "b"}},
	{name: "strings v2", expr: `value.lowerAscii().replace("-", "_").split("_").join(".") == "a.b"`, vars: []string{"value"}},
	{name: "format", expr: `"%s-%d".format([value, 1]) == "a-1"`, vars: []string{"value"}},
	{name: "quote", expr: `strings.quote(value) != ""`, vars: []string{"value"}},
	{name: "sets", expr: `sets.contains(["a", "b"], [value])`, vars: []string{"value"}},
	{name: "lists v3", expr: `[value, "b", "a"].sort().distinct().reverse()[0] == "b"`, vars: []string{"value"}},
	{name: "comprehension", expr: `value.split(",").all(x, x.size() <= 63)`, vars: []string{"value"}},
	{name: "cross type numeric", expr: `1 < 2.5 && value.size() > 0u`, vars: []string{"value"}},
	{name: "multi-line", expr: "ns != \"\" &&\n  ns.endsWith(\"-prod\")", vars: []string{"ns"}},

	{name: "string output", expr: `ns`, vars: []string{"ns"}, wantErr: cel.ErrInvalid, detail: "output type must be bool, not string"},
	{name: "concat output", expr: `ns + "x"`, vars: []string{"ns"}, wantErr: cel.ErrInvalid, detail: "output type must be bool, not string"},
	{name: "int output", expr: `1 + 1`, wantErr: cel.ErrInvalid, detail: "output type must be bool, not int"},
	{name: "undeclared", expr: `nss == "a"`, vars: []string{"ns"}, wantErr: cel.ErrInvalid, detail: "<input>:1:1: undeclared reference to 'nss' (in container '')\n | nss == \"a\"\n | ^"},
	{name: "syntax", expr: `ns.startsWith(`, vars: []string{"ns"}, wantErr: cel.ErrInvalid, detail: "<input>:1:15: Syntax error"},
	{name: "syntax line 2", expr: "ns == 'a' ||\n ns ==", vars: []string{"ns"}, wantErr: cel.ErrInvalid, detail: "<input>:2:7: Syntax error"},
	{name: "bad regex literal", expr: `ns.matches("(")`, vars: []string{"ns"}, wantErr: cel.ErrInvalid,
		detail: "<input>:1:12: the pattern of matches must be a valid regular expression: error parsing regexp: missing closing ): `(`"},
	{name: "pattern from a variable", expr: `"a".matches(ns)`, vars: []string{"ns"}, wantErr: cel.ErrInvalid,
		detail: "<input>:1:13: the pattern of matches must be a string literal\n | \"a\".matches(ns)\n | ............^"},
	{name: "type error", expr: `ns == 1`, vars: []string{"ns"}, wantErr: cel.ErrInvalid, detail: "no matching overload"},
	{name: "kubernetes-only function", expr: `[1, 2].isSorted()`, wantErr: cel.ErrInvalid, detail: "undeclared reference to 'isSorted'"},
	{name: "strings v3 reverse", expr: `ns.reverse() == ns`, vars: []string{"ns"}, wantErr: cel.ErrInvalid},
	{name: "format precision", expr: `"%.999999999f".format([1.0]) == ""`, wantErr: cel.ErrInvalid, detail: "exceeds maximum allowed precision 100"},
	{name: "empty", expr: ``, wantErr: cel.ErrInvalid},
	{name: "too long", expr: `true || ` + strings.Repeat("true || ", 640) + `true`, wantErr: cel.ErrInvalid, detail: "must be no more than 5120 bytes"},
	{name: "bad variable", expr: `true`, vars: []string{"my-var"}, wantErr: cel.ErrInvalidVariable, detail: `"my-var"`},
	{name: "reserved variable", expr: `true`, vars: []string{"in"}, wantErr: cel.ErrInvalidVariable, detail: "reserved"},
	{name: "duplicate variable", expr: `ns == ""`, vars: []string{"ns", "ns"}, wantErr: cel.ErrInvalidVariable, detail: "declared once"},
	{name: "deep nesting", expr: strings.Repeat("(", 300) + "true" + strings.Repeat(")", 300), wantErr: cel.ErrInvalid},
}

func TestCompile(t *testing.T) {
	t.Parallel()
	for _, tt := range compileTests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p, err := cel.Compile(tt.expr, tt.vars...)
			if tt.wantErr == nil {
				if err != nil {
					t.Fatalf("Compile(%q) = %v, want no error", tt.expr, err)
				}
				if p.String() != tt.expr {
					t.Errorf("String() = %q, want %q", p.String(), tt.expr)
				}
				return
			}
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("Compile(%q) error = %v, want %v", tt.expr, err, tt.wantErr)
			}
			var ce *cel.CompileError
			if isCompileError := errors.As(err, &ce); isCompileError != (tt.wantErr == cel.ErrInvalid) || isCompileError && ce.Expr != tt.expr {
				t.Fatalf("error %v: a *CompileError naming the expression if and only if it wraps ErrInvalid", err)
			}
			if !strings.Contains(err.Error(), tt.detail) {
				t.Errorf("error %q does not contain %q", err, tt.detail)
			}
		})
	}
}

func TestEval(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		expr    string
		vars    map[string]string
		want    bool
		wantErr error
	}{
		{name: "true", expr: `ns.startsWith("tenant-")`, vars: map[string]string{"ns": "tenant-a"}, want: true},
		{name: "false", expr: `ns.startsWith("tenant-")`, vars: map[string]string{"ns": "kube-system"}, want: false},
		{name: "extra variable ignored", expr: `ns == "a"`, vars: map[string]string{"ns": "a", "other": "b"}, want: true},
		{name: "missing variable", expr: `ns == "a"`, vars: map[string]string{}, wantErr: cel.ErrEval},
		{name: "nil map", expr: `ns == "a"`, wantErr: cel.ErrEval},
		{name: "division by zero", expr: `ns.size() / 0 == 1`, vars: map[string]string{"ns": "a"}, wantErr: cel.ErrEval},
		{name: "index out of range", expr: `ns.split(",")[5] == "a"`, vars: map[string]string{"ns": "a"}, wantErr: cel.ErrEval},
		{name: "error absorbed by or", expr: `true || ns.size() / 0 == 1`, vars: map[string]string{"ns": "a"}, want: true},
		{name: "range over limit", expr: `lists.range(20000).size() > 0`, vars: map[string]string{}, wantErr: cel.ErrEval},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := cel.MustCompile(tt.expr, "ns")
			got, err := p.Eval(context.Background(), tt.vars)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("Eval() error = %v, want %v", err, tt.wantErr)
			}
			if err != nil {
				var ee *cel.EvalError
				if !errors.As(err, &ee) || ee.Expr != tt.expr {
					t.Fatalf("error %v is not an *EvalError naming the expression", err)
				}
			}
			if got != tt.want {
				t.Errorf("Eval() = %v, want %v", got, tt.want)
			}
		})
	}
}

func list(n int, elem string) string {
	return "[" + strings.TrimSuffix(strings.Repeat(elem+",", n), ",") + "]"
}

// TestEvalBounds feeds expressions built to exhaust CPU or memory and checks
// that each is stopped by a bound, with ErrCostLimit, well before it could
// do its damage.
func TestEvalBounds(t *testing.T) {
	t.Parallel()
	hundred := list(100, "0")
	tests := []struct {
		name string
		expr string
	}{
		{name: "nested comprehensions", expr: hundred + `.all(a, ` + hundred + `.all(b, ` + hundred + `.all(c, true)))`},
		{name: "nested exists", expr: hundred + `.exists(a, ` + hundred + `.exists(b, ` + hundred + `.exists(c, c == 1)))`},
		{name: "replace growth", expr: `ns.replace("", ns).replace("", ns).replace("", ns).replace("", ns).replace("", ns).replace("", ns).size() > 0`},
		{name: "replace n growth", expr: `ns.replace("", ns, 100000).replace("", ns, 100000).replace("", ns, 100000).replace("", ns, 100000).size() > 0`},
		{name: "join growth", expr: list(10, "ns") + `.map(a, ` + list(10, "a") + `.join()).map(b, ` + list(10, "b") + `.join()).map(c, ` + list(10, "c") + `.join()).map(d, ` + list(10, "d") + `.join()).join().size() > 0`},
		{name: "join of shared references", expr: `[ns + ns + ns + ns + ns + ns + ns + ns].map(s, s + s + s + s + s + s + s + s).map(s, s + s + s + s + s + s + s + s).map(s, ` + list(200, "s") + `.join()).size() > 0`},
		{name: "format of shared references", expr: `[ns + ns + ns + ns].map(s, s + s + s + s + s + s + s + s).map(s, ` + list(50, "s") + `).map(l, ` + list(50, "l") + `).map(m, "%s".format([m])).size() > 0`},
		{name: "quote growth", expr: `["\\"].map(a, a + a + a + a + a + a + a + a + a + a).map(b, b + b + b + b + b + b + b + b + b + b).map(c, c + c + c + c + c + c + c + c + c + c).map(d, strings.quote(strings.quote(strings.quote(strings.quote(strings.quote(strings.quote(strings.quote(strings.quote(strings.quote(strings.quote(d))))))))))).size() > 0`},
		{name: "concatenation doubling", expr: `[ns].map(a, a + a).map(a, a + a).map(a, a + a).map(a, a + a).map(a, a + a).map(a, a + a).map(a, a + a).map(a, a + a).map(a, a + a).map(a, a + a).map(a, a + a).map(a, a + a).map(a, a + a).map(a, a + a).map(a, a + a).map(a, a + a).map(a, a + a).map(a, a + a).map(a, a + a).map(a, a + a).map(a, a + a).map(a, a + a).map(a, a + a).map(a, a + a).map(a, a + a).map(a, a + a).map(a, a + a).map(a, a + a).map(a, a + a).map(a, a + a).size() > 0`},
		{name: "scan of a large string", expr: `[ns].map(a, a + a + a + a + a + a + a + a + a + a).map(b, b + b + b + b + b + b + b + b + b + b).map(c, c + c + c + c + c + c + c + c + c + c).map(d, lists.range(10000).exists(i, d.lowerAscii() == "")).size() > 0`},
		{name: "regex over a large string", expr: `[ns].map(a, a + a + a + a + a + a + a + a + a + a).map(b, b + b + b + b + b + b + b + b + b + b).map(c, c + c + c + c + c + c + c + c + c + c).map(d, lists.range(10000).exists(i, d.matches("x+y"))).size() > 0`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := cel.WithoutTimeBudget(cel.MustCompile(tt.expr, "ns"))
			start := time.Now()
			_, err := p.Eval(context.Background(), map[string]string{"ns": strings.Repeat("x", 63)})
			if !errors.Is(err, cel.ErrCostLimit) {
				t.Fatalf("Eval() error = %v, want %v", err, cel.ErrCostLimit)
			}
			// Not a timing assertion (benchmarks hold those): a log to see
			// that a bound stops it in milliseconds.
			t.Logf("stopped after %v: %v", time.Since(start), err)
		})
	}
}

func TestEvalContext(t *testing.T) {
	t.Parallel()
	hundred := list(100, "0")
	p := cel.MustCompile(hundred+`.all(a, `+hundred+`.all(b, true))`, "ns")

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := p.Eval(ctx, map[string]string{"ns": ""})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Eval() with a cancelled context: error = %v, want %v", err, context.Canceled)
	}
	// The caller's cancellation is not a failure of the policy.
	if errors.Is(err, cel.ErrEval) || errors.Is(err, cel.ErrCostLimit) {
		t.Errorf("Eval() with a cancelled context: error = %v, want it to wrap no sentinel of cel", err)
	}
	var ee *cel.EvalError
	if !errors.As(err, &ee) {
		t.Errorf("Eval() with a cancelled context: error %v is not an *EvalError", err)
	}
}

// TestProgramConcurrent shares one Program among goroutines; run with -race.
func TestProgramConcurrent(t *testing.T) {
	t.Parallel()
	p := cel.MustCompile(`ns.startsWith("tenant-") && ns.matches("^[a-z0-9-]+$")`, "ns")
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := range 8 {
		wg.Go(func() {
			for i := range 200 {
				ns := "tenant-" + strings.Repeat("a", (g+i)%20)
				want := true
				if i%3 == 0 {
					ns, want = "Kube_"+ns, false
				}
				got, err := p.Eval(context.Background(), map[string]string{"ns": ns})
				if err != nil || got != want {
					errs <- errors.New("Eval(" + ns + ") disagreed")
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestMustCompilePanics(t *testing.T) {
	t.Parallel()
	defer func() {
		if recover() == nil {
			t.Error("MustCompile(invalid) did not panic")
		}
	}()
	cel.MustCompile(`ns`, "ns")
}

func TestVariables(t *testing.T) {
	t.Parallel()
	p := cel.MustCompile(`b == a`, "b", "a")
	got := p.Variables()
	if len(got) != 2 || got[0] != "b" || got[1] != "a" {
		t.Errorf("Variables() = %q, want [b a]", got)
	}
	got[0] = "changed"
	if p.Variables()[0] != "b" {
		t.Error("Variables() returned the program's own slice")
	}
}
