package main

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
	for target, seeds := range map[string][][]byte{
		"FuzzParseGenerator": generatorSeeds(t),
		"FuzzParseInputs":    inputsSeeds(t),
		"FuzzParseCluster":   clusterSeeds(t),
	} {
		var args [][]any
		for _, s := range seeds {
			args = append(args, []any{s})
		}
		fuzzcorpus.Write(t, target, args)
	}
	var plans [][]any
	for _, s := range planSeeds {
		plans = append(plans, []any{s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7], s[8]})
	}
	fuzzcorpus.Write(t, "FuzzPlan", plans)
}
