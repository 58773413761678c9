package dirfs

import "testing"

// variants are the ways an FS reads a tree on this system: on Linux with
// openat2 (where the kernel has it; otherwise this variant walks too) and
// walking names element by element, as where openat2 is missing.
func variants(t testing.TB) []variant {
	if !haveOpenat2ForTest(t) {
		t.Log("openat2 is not available: both variants walk")
	}
	return []variant{
		{name: "openat2", open: func(dir string) (*FS, error) { return open(dir, false) }},
		{name: "walk", open: func(dir string) (*FS, error) { return open(dir, true) }},
	}
}

func haveOpenat2ForTest(t testing.TB) bool {
	f, err := open(t.TempDir(), false)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	return !f.sys.walk
}

// errIrregularForTest is the error of opening a FIFO elsewhere than on
// Linux; on Linux it opens.
var errIrregularForTest error
