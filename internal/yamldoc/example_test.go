package yamldoc_test

import (
	"errors"
	"fmt"
	"strings"

	"github.com/tenantkit/tenantkit/internal/yamldoc"
)

func ExampleCheckExpansion() {
	fmt.Println(yamldoc.CheckExpansion([]byte("base: &b {team: payments}\ncopy: *b\n")))

	// One long string, reused a hundred times.
	doc := "a: &a " + strings.Repeat("x", 10000) + "\nb: [" + strings.TrimSuffix(strings.Repeat("*a, ", 100), ", ") + "]\n"
	err := yamldoc.CheckExpansion([]byte(doc))
	fmt.Println(err)
	fmt.Println(errors.Is(err, yamldoc.ErrExpansion))
	// Output:
	// <nil>
	// YAML aliases must expand a document to no more than 10 times its size (64 KiB at least): 10411 bytes expand to more than 104110
	// true
}

func ExampleSingle() {
	fmt.Println(yamldoc.Single([]byte("a: 1\n---\n")))
	fmt.Println(yamldoc.Single([]byte("a: 1\n...\nb: 2\n")))
	// Output:
	// <nil>
	// a non-empty YAML document follows the first one
}

func ExampleDetail() {
	_, err := yamldoc.Documents([]byte("a: &x [\nb: *x\n"))
	fmt.Println(err)
	fmt.Println("tenants/a/ns.yaml: " + yamldoc.Detail(err))
	// Output:
	// yaml: line 2: did not find expected ',' or ']'
	// tenants/a/ns.yaml: must be valid YAML: line 2: did not find expected ',' or ']'
}
