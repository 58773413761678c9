package yamldoc

import (
	"testing"

	"github.com/tenantkit/tenantkit/internal/fuzzcorpus"
)

// TestFuzzCorpus writes the seed corpus of FuzzSingle, which lives in
// testdata/fuzz/FuzzSingle, from the table tests. It is skipped unless
// TENANTKIT_WRITE_FUZZ_CORPUS is set; package internal/fuzzcorpus
// describes the corpora and how to regenerate them.
func TestFuzzCorpus(t *testing.T) {
	fuzzcorpus.SkipUnlessWriting(t)
	var seeds [][]any
	for _, tt := range singleTests {
		seeds = append(seeds, []any{[]byte(tt.data)})
	}
	fuzzcorpus.Write(t, "FuzzSingle", seeds)
}
