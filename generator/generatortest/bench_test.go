package generatortest

import (
	"fmt"
	"strings"
	"testing"
)

// BenchmarkRunSample runs 100 cases over the sample monorepo: each reads
// the source into memory, compiles the generator and plans.
func BenchmarkRunSample(b *testing.B) {
	var suite strings.Builder
	suite.WriteString(header + "cases:\n")
	for i := range 100 {
		fmt.Fprintf(&suite, "- name: case-%d\n  expect:\n    objects: [{object: Namespace/tenant-search, action: create}]\n", i)
	}
	s, err := LoadSuite(writeSuite(b, suite.String()))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if res := s.Run(b.Context(), Options{}); !res.Passed() || len(res.Cases) != 100 {
			b.Fatalf("run: %+v", res)
		}
	}
}
