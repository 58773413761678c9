package generatortest_test

import (
	"context"
	"fmt"

	"github.com/tenantkit/tenantkit/generator/generatortest"
)

func ExampleSuite_Run() {
	s, err := generatortest.LoadSuite("../../examples/plan/sample/tests/removal.yaml")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, c := range s.Run(context.Background(), generatortest.Options{}).Cases {
		fmt.Println(c.Passed(), c.Case)
	}
	// Output:
	// true removed tenant handed off
	// true removed tenant whose finalizer object is gone
	// true removed tenant whose finalizer object was recreated
	// true delete-all refused
	// true delete-all allowed
}

func ExampleLoadSuite() {
	_, err := generatortest.LoadSuite("testdata/bad-unknown-key.yaml")
	fmt.Println(err)
	// Output:
	// generatortest: bad suite: testdata/bad-unknown-key.yaml: error unmarshaling JSON: while decoding JSON: json: unknown field "expected"
}
