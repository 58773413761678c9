package cel_test

import (
	"context"
	"errors"
	"fmt"

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
	fmt.Println(errors.Is(err, cel.ErrNotBool))
	fmt.Println(err)

	_, err = cel.Compile(`nss == "a"`, "ns")
	fmt.Println(err)
	// Output:
	// true
	// cel: output type must be bool: expression "ns + \"x\"": the output type is string, not bool
	// cel: invalid expression: expression "nss == \"a\"": ERROR: <input>:1:1: undeclared reference to 'nss' (in container '')
	//  | nss == "a"
	//  | ^
}

func ExampleProgram_Eval() {
	p := cel.MustCompile(`value.matches("^(Enabled|Disabled)$")`, "value")

	ok, err := p.Eval(context.Background(), map[string]string{"value": "Enabled"})
	fmt.Println(ok, err)

	// A missing variable is an error, never a silent false.
	_, err = p.Eval(context.Background(), map[string]string{})
	fmt.Println(errors.Is(err, cel.ErrEval))
	// Output:
	// true <nil>
	// true
}

func ExampleProgram_Eval_costLimit() {
	p := cel.MustCompile(`value.replace("", value).replace("", value).replace("", value).size() > 0`, "value")
	_, err := p.Eval(context.Background(), map[string]string{"value": "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcde"})
	fmt.Println(errors.Is(err, cel.ErrCostLimit))
	// Output:
	// true
}

func ExampleNewCache() {
	c := cel.NewCache(128)
	a, _ := c.Compile(`ns.startsWith("tenant-")`, "ns")
	b, _ := c.Compile(`ns.startsWith("tenant-")`, "ns")
	fmt.Println(a == b, c.Len())
	// Output:
	// true 1
}
