package generatortest_test

import (
	"context"
	"errors"
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
	if se, ok := errors.AsType[*generatortest.SuiteError](err); ok {
		fmt.Println(se.Msg)
	}
	// Output:
	// generatortest: bad suite: testdata/bad-unknown-key.yaml: cases[0].expected: unknown field
	// testdata/bad-unknown-key.yaml: cases[0].expected: unknown field
}
