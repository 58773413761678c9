package main

import (
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The seed corpora of the package's fuzz targets also live in
// testdata/fuzz/<target>, in the "go test fuzz v1" format, so that the
// seeds are files that fuzzing starts from and that crashers join. They
// are generated from the table tests:
//
//	TENANTKIT_WRITE_FUZZ_CORPUS=1 go test -run '^TestFuzzCorpus$' ./PKG
//
// Without the variable, TestFuzzCorpus checks nothing: plain go test runs
// the files as seeds of their targets anyway.

// maxSeeds and maxSeedBytes keep the corpora small: tens of seeds of at
// most a few KiB each.
const (
	maxSeeds     = 100
	maxSeedBytes = 4 << 10
)

// writeCorpus writes seeds, each the arguments of one call of the target's
// fuzz function, to testdata/fuzz/<target>, named as the go command names
// them (the first 16 hex digits of the file's sha256). It skips seeds
// larger than maxSeedBytes and stops at maxSeeds.
func writeCorpus(t *testing.T, target string, seeds [][]any) {
	t.Helper()
	dir := filepath.Join("testdata", "fuzz", target)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	written := 0
	for _, args := range seeds {
		if written == maxSeeds {
			break
		}
		var b strings.Builder
		b.WriteString("go test fuzz v1\n")
		size := 0
		for _, a := range args {
			switch a := a.(type) {
			case string:
				size += len(a)
				fmt.Fprintf(&b, "string(%q)\n", a)
			case []byte:
				size += len(a)
				fmt.Fprintf(&b, "[]byte(%q)\n", a)
			default:
				t.Fatalf("%s: seed argument of type %T", target, a)
			}
		}
		if size > maxSeedBytes {
			continue
		}
		data := []byte(b.String())
		name := fmt.Sprintf("%x", sha256.Sum256(data))[:16]
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
		written++
	}
	t.Logf("%s: %d seeds", target, written)
}

// writingCorpus skips t unless TENANTKIT_WRITE_FUZZ_CORPUS is set.
func writingCorpus(t *testing.T) {
	t.Helper()
	if os.Getenv("TENANTKIT_WRITE_FUZZ_CORPUS") == "" {
		t.Skip("set TENANTKIT_WRITE_FUZZ_CORPUS=1 to write testdata/fuzz")
	}
}

func TestFuzzCorpus(t *testing.T) {
	writingCorpus(t)
	for target, seeds := range map[string][][]byte{
		"FuzzParseGenerator": generatorSeeds(t),
		"FuzzParseInputs":    inputsSeeds(t),
		"FuzzParseCluster":   clusterSeeds(t),
	} {
		var args [][]any
		for _, s := range seeds {
			args = append(args, []any{s})
		}
		writeCorpus(t, target, args)
	}
	var plans [][]any
	for _, s := range planSeeds {
		plans = append(plans, []any{s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7], s[8]})
	}
	writeCorpus(t, "FuzzPlan", plans)
}
