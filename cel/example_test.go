package cel_test

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/tenantkit/tenantkit/cel"
)

func ExampleCompile() {
	p, err := cel.Compile(`ns.startsWith("tenant-")`, "ns")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, ns := range []string{"tenant-a", "kube-system"} {
		ok, err := p.Eval(context.Background(), map[string]string{"ns": ns})
		fmt.Println(ns, ok, err)
	}
	// Output:
	// tenant-a true <nil>
	// kube-system false <nil>
}

func ExampleCompile_error() {
	_, err := cel.Compile(`ns + "x"`, "ns")
	fmt.Println(errors.Is(err, cel.ErrInvalid))
	fmt.Println(err)

	_, err = cel.Compile(`nss == "a"`, "ns")
	var ce *cel.CompileError
	if errors.As(err, &ce) {
		fmt.Println(ce.Line, ce.Column)
	}
	fmt.Println(err)

	// The pattern of matches must be a string literal, never a value's.
	_, err = cel.Compile(`'x'.matches(value)`, "value")
	fmt.Println(err)

	_, err = cel.Compile(`true`, "my-var")
	fmt.Println(errors.Is(err, cel.ErrInvalidVariable))
	fmt.Println(err)
	// Output:
	// true
	// cel: invalid expression "ns + \"x\"": output type must be bool, not string
	// 1 1
	// cel: invalid expression "nss == \"a\"": <input>:1:1: undeclared reference to 'nss' (in container '')
	//  | nss == "a"
	//  | ^
	// cel: invalid expression "'x'.matches(value)": <input>:1:13: the pattern of matches must be a string literal
	//  | 'x'.matches(value)
	//  | ............^
	// true
	// cel: invalid variable "my-var": must match ^[A-Za-z_][A-Za-z0-9_]*$
}

func ExampleProgram_Eval() {
	p := cel.MustCompile(`value.matches("^(Enabled|Disabled)$")`, "value")

	ok, err := p.Eval(context.Background(), map[string]string{"value": "Enabled"})
	fmt.Println(ok, err)

	// A missing variable is an error, never a silent false.
	_, err = p.Eval(context.Background(), map[string]string{})
	fmt.Println(errors.Is(err, cel.ErrEval))
	fmt.Println(err)
	// Output:
	// true <nil>
	// true
	// cel: evaluating "value.matches(\"^(Enabled|Disabled)$\")": runtime error: no such attribute(s): value
}

func ExampleProgram_Eval_costLimit() {
	p := cel.MustCompile(`value.replace("", value).replace("", value).replace("", value).size() > 0`, "value")
	_, err := p.Eval(context.Background(), map[string]string{"value": "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcde"})
	fmt.Println(errors.Is(err, cel.ErrCostLimit))
	fmt.Println(err)

	// distinct compares every pair of elements: a call whose charge alone
	// is over the limit is refused before it runs.
	p = cel.MustCompile(`value.split(',').distinct().size() == value.split(',').size()`, "value")
	_, err = p.Eval(context.Background(), map[string]string{"value": strings.Repeat("a,", 1000) + "a"})
	fmt.Println(err)
	// Output:
	// true
	// cel: evaluating "value.replace(\"\", value).replace(\"\", value).replace(\"\", value).size() > 0": cost limit exceeded: replace: string result must be no more than 1048576 bytes
	// cel: evaluating "value.split(',').distinct().size() == value.split(',').size()": cost limit exceeded: distinct: cost of one call must be no more than 500000, half the cost limit 1000000, got 2104213 (a list of 1001 elements)
}

func ExampleProgram_EvalLimited() {
	// Two evaluations share a budget of 1,000 units: each gets what the
	// ones before it left.
	p := cel.MustCompile(`value.split(',').all(x, x.matches('^[a-z]+$'))`, "value")
	var left uint64 = 1000
	for _, value := range []string{"a,b,c,d,e,f,g,h", strings.Repeat("a,", 200) + "a"} {
		ok, cost, err := p.EvalLimited(context.Background(), map[string]string{"value": value}, left)
		left -= min(cost, left)
		fmt.Println(ok, cost, left, err)
	}
	// Output:
	// true 63 937 <nil>
	// false 939 0 cel: evaluating "value.split(',').all(x, x.matches('^[a-z]+$'))": cost limit exceeded: runtime cost must be no more than 937
}

func ExampleNewCache() {
	c := cel.NewCache(128)
	a, _ := c.Compile(`ns.startsWith("tenant-")`, "ns")
	b, _ := c.Compile(`ns.startsWith("tenant-")`, "ns")
	fmt.Println(a == b, c.Len())
	// Output:
	// true 1
}
