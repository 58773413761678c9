package finalizer

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
	seeds := [][]any{{Self}}
	for _, tt := range validTests {
		seeds = append(seeds, []any{tt.value})
	}
	for _, tt := range invalidTests {
		seeds = append(seeds, []any{tt.value})
	}
	for _, tt := range hostileValues {
		seeds = append(seeds, []any{tt.value})
	}
	fuzzcorpus.Write(t, "FuzzParse", seeds)
}
