package cel_test

import (
	"testing"

	"github.com/tenantkit/tenantkit/internal/fuzzcorpus"
)

// TestFuzzCorpus writes the seed corpora of the package's fuzz targets,
// which live in testdata/fuzz/<target>, from the table tests. It is skipped
// unless TENANTKIT_WRITE_FUZZ_CORPUS is set; package internal/fuzzcorpus
// describes the corpora and how to regenerate them.
func TestFuzzCorpus(t *testing.T) {
	fuzzcorpus.SkipUnlessWriting(t)
	var seeds [][]any
	for _, tt := range compileTests {
		seeds = append(seeds, []any{tt.expr, "tenant-a"})
	}
	for _, tt := range hostileCompileTests {
		seeds = append(seeds, []any{tt.expr, "tenant-a"})
	}
	for _, tt := range hostileEvalTests {
		seeds = append(seeds, []any{tt.expr, tt.value})
	}
	fuzzcorpus.Write(t, "FuzzCompile", seeds)
}
