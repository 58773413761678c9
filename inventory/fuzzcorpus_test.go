package inventory

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
	var unmarshal, ids, fast [][]any
	for _, tt := range unmarshalTests {
		unmarshal = append(unmarshal, []any{[]byte(tt.in)})
	}
	for _, tt := range hostileUnmarshalTests {
		unmarshal = append(unmarshal, []any{[]byte(tt.in)})
	}
	fuzzcorpus.Write(t, "FuzzUnmarshal", unmarshal)
	for _, tt := range parseIDTests {
		ids = append(ids, []any{tt.in, "v1"})
	}
	ids = append(ids, []any{"apps_podinfo_apps_Deployment", "v1beta2"}, []any{"_a__Namespace", "V1"}, []any{"ns_a:b__Kind", "v1"})
	fuzzcorpus.Write(t, "FuzzParseID", ids)
	for _, s := range fastCorpus {
		fast = append(fast, []any{s})
	}
	for _, d := range hostileDigests {
		fast = append(fast, []any{string(d)})
	}
	fuzzcorpus.Write(t, "FuzzFastChecks", fast)
}
