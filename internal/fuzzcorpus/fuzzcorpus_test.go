package fuzzcorpus_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/tenantkit/tenantkit/internal/fuzzcorpus"
)

// readCorpus returns the files of dir by name.
func readCorpus(t *testing.T, dir string) map[string]string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	files := make(map[string]string, len(entries))
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		files[e.Name()] = string(data)
	}
	return files
}

func TestWriteDir(t *testing.T) {
	root := t.TempDir()
	big := strings.Repeat("a", fuzzcorpus.MaxSeedBytes/2+1)
	fuzzcorpus.WriteDir(t, root, "FuzzTarget", [][]any{
		{"tenant-a"},
		{[]byte("a\x00\xffb\n")},
		{"x", []byte("y")},
		{strings.Repeat("a", fuzzcorpus.MaxSeedBytes+1)}, // oversized: skipped
		{big, []byte(big)}, // oversized in total: skipped
	})
	got := readCorpus(t, filepath.Join(root, "fuzz", "FuzzTarget"))
	// The names are the first 16 hex digits of the sha256 of the contents,
	// as computed by, for example,
	//	printf 'go test fuzz v1\nstring("tenant-a")\n' | sha256sum
	want := map[string]string{
		"b453edfa6fe7861a": "go test fuzz v1\nstring(\"tenant-a\")\n",
		"bf0203323bc60acd": "go test fuzz v1\n[]byte(\"a\\x00\\xffb\\n\")\n",
		"b327291c881e63c8": "go test fuzz v1\nstring(\"x\")\n[]byte(\"y\")\n",
	}
	if len(got) != len(want) {
		t.Errorf("wrote %d files, want %d: %q", len(got), len(want), got)
	}
	for name, data := range want {
		if got[name] != data {
			t.Errorf("file %s = %q, want %q", name, got[name], data)
		}
	}
}

func TestWriteDirMaxSeedBytes(t *testing.T) {
	root := t.TempDir()
	fuzzcorpus.WriteDir(t, root, "FuzzTarget", [][]any{
		{strings.Repeat("a", fuzzcorpus.MaxSeedBytes)}, // at the limit: written
	})
	if got := readCorpus(t, filepath.Join(root, "fuzz", "FuzzTarget")); len(got) != 1 {
		t.Errorf("wrote %d files, want 1", len(got))
	}
}

func TestWriteDirMaxSeeds(t *testing.T) {
	root := t.TempDir()
	var seeds [][]any
	for i := range fuzzcorpus.MaxSeeds + 50 {
		seeds = append(seeds, []any{fmt.Sprint(i)})
	}
	fuzzcorpus.WriteDir(t, root, "FuzzTarget", seeds)
	got := readCorpus(t, filepath.Join(root, "fuzz", "FuzzTarget"))
	if len(got) != fuzzcorpus.MaxSeeds {
		t.Fatalf("wrote %d files, want %d", len(got), fuzzcorpus.MaxSeeds)
	}
	// The first MaxSeeds seeds are the ones written.
	for name, data := range got {
		i, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(data, "go test fuzz v1\nstring(\""), "\")\n"))
		if err != nil || i < 0 || i >= fuzzcorpus.MaxSeeds {
			t.Errorf("file %s = %q, want one of the first %d seeds", name, data, fuzzcorpus.MaxSeeds)
		}
	}
}

func TestSkipUnlessWriting(t *testing.T) {
	for _, tt := range []struct {
		value string
		ran   bool
	}{
		{"", false},
		{"1", true},
	} {
		t.Run(fmt.Sprintf("%q", tt.value), func(t *testing.T) {
			t.Setenv("TENANTKIT_WRITE_FUZZ_CORPUS", tt.value)
			ran := false
			t.Run("inner", func(t *testing.T) {
				fuzzcorpus.SkipUnlessWriting(t)
				ran = true
			})
			if ran != tt.ran {
				t.Errorf("with TENANTKIT_WRITE_FUZZ_CORPUS=%q, test ran = %v, want %v", tt.value, ran, tt.ran)
			}
		})
	}
}
