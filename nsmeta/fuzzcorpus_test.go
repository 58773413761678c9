package nsmeta

import (
	"encoding/json"
	"testing"

	"github.com/tenantkit/tenantkit/internal/fuzzcorpus"
)

// TestFuzzCorpus writes the seed corpora of the package's fuzz targets,
// which live in testdata/fuzz/<target>, from the table tests. It is skipped
// unless TENANTKIT_WRITE_FUZZ_CORPUS is set; package internal/fuzzcorpus
// describes the corpora and how to regenerate them.
func TestFuzzCorpus(t *testing.T) {
	fuzzcorpus.SkipUnlessWriting(t)
	var files, resolve, schema, names [][]any
	for _, tc := range parseFileTests {
		files = append(files, []any{[]byte(tc.data)})
	}
	for _, tc := range hostileFileTests {
		files = append(files, []any{[]byte(tc.data)})
	}
	fuzzcorpus.Write(t, "FuzzParseFile", files)
	for _, tc := range resolveTests {
		p, err := json.Marshal(tc.pipeline)
		if err != nil {
			t.Fatal(err)
		}
		s, err := json.Marshal(tc.source)
		if err != nil {
			t.Fatal(err)
		}
		resolve = append(resolve, []any{tc.namespace, p, s})
	}
	fuzzcorpus.Write(t, "FuzzResolve", resolve)
	for _, s := range schemaSeeds {
		schema = append(schema, []any{s[0], s[1], s[2]})
	}
	fuzzcorpus.Write(t, "FuzzCompileSchema", schema)
	for _, s := range namePolicySeeds {
		names = append(names, []any{s[0], s[1]})
	}
	fuzzcorpus.Write(t, "FuzzNamePolicy", names)
}
