package fuzzcorpus

import (
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// MaxSeeds is the largest number of seeds [Write] and [WriteDir] write for
// one target; with [MaxSeedBytes] it keeps the corpora small: tens of
// seeds of at most a few KiB each.
const MaxSeeds = 100

// MaxSeedBytes is the largest total size, in bytes, of the arguments of a
// seed that [Write] and [WriteDir] write; larger seeds are skipped.
const MaxSeedBytes = 4 << 10

// envVar is the environment variable that, set to a non-empty value, makes
// SkipUnlessWriting let its test run.
const envVar = "TENANTKIT_WRITE_FUZZ_CORPUS"

// SkipUnlessWriting skips t unless the environment variable
// TENANTKIT_WRITE_FUZZ_CORPUS is set to a non-empty value.
func SkipUnlessWriting(t testing.TB) {
	t.Helper()
	if os.Getenv(envVar) == "" {
		t.Skip("set " + envVar + "=1 to write testdata/fuzz")
	}
}

// Write writes seeds, each the arguments of one call of the target's fuzz
// function, to testdata/fuzz/<target> in the current directory, which for
// a test is its package's directory. It is [WriteDir] with dir "testdata".
func Write(t testing.TB, target string, seeds [][]any) {
	t.Helper()
	WriteDir(t, "testdata", target, seeds)
}

// WriteDir writes seeds, each the arguments of one call of the target's
// fuzz function, to <dir>/fuzz/<target>, creating the directory if needed.
// Each seed becomes one file in the "go test fuzz v1" format, named as the
// go command names them: the first 16 hex digits of the file's sha256.
// Arguments must be of type string or []byte; any other type fails t.
// WriteDir skips seeds whose arguments total more than [MaxSeedBytes]
// bytes and stops after [MaxSeeds] files, then logs how many it wrote.
func WriteDir(t testing.TB, dir, target string, seeds [][]any) {
	t.Helper()
	dir = filepath.Join(dir, "fuzz", target)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	written := 0
	for _, args := range seeds {
		if written == MaxSeeds {
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
		if size > MaxSeedBytes {
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
