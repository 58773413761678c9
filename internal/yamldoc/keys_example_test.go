package yamldoc_test

import (
	"errors"
	"fmt"

	"github.com/tenantkit/tenantkit/internal/yamldoc"
)

func ExampleCheckKeys() {
	fmt.Println(yamldoc.CheckKeys([]byte("on: push\n\"1\": a\n")))

	err := yamldoc.CheckKeys([]byte("labels:\n  yes: a\n  \"true\": b\n"))
	fmt.Println(err)
	fmt.Println(errors.Is(err, yamldoc.ErrKeys))
	// Output:
	// <nil>
	// YAML mapping keys must stay distinct as JSON keys: line 3: key "true" and key true (a boolean) of line 2 both become the JSON key "true"
	// true
}
