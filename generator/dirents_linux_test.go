package generator

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
)

// TestReadEntries checks readDir's own reading of directory records against
// os.ReadDir: every name and type, on a directory whose records take many
// reads (600 names of 200 bytes, some 130 KB against an 8 KiB buffer), with
// a name of 255 bytes, a directory, a link, a dangling link and a FIFO; and
// that an entry's Info is its Lstat through the root.
func TestReadEntries(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	sub := filepath.Join(dir, "d")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	for i := range 600 {
		name := fmt.Sprintf("%03d-%s", i, strings.Repeat("x", 196))
		if err := os.WriteFile(filepath.Join(sub, name), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for name, err := range map[string]error{
		strings.Repeat("n", 255): os.WriteFile(filepath.Join(sub, strings.Repeat("n", 255)), nil, 0o600),
		"dir":                    os.Mkdir(filepath.Join(sub, "dir"), 0o700),
		"link":                   os.Symlink("dir", filepath.Join(sub, "link")),
		"dangling":               os.Symlink("nowhere", filepath.Join(sub, "dangling")),
		"fifo":                   syscall.Mkfifo(filepath.Join(sub, "fifo"), 0o600),
	} {
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	want, err := os.ReadDir(sub)
	if err != nil {
		t.Fatal(err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	got, err := readDir(root, "d")
	if err != nil {
		t.Fatal(err)
	}
	describe := func(es []fs.DirEntry) []string {
		var out []string
		for _, e := range es {
			out = append(out, fmt.Sprintf("%s %v %v", e.Name(), e.Type(), e.IsDir()))
		}
		return out
	}
	if w, g := describe(want), describe(got); !slices.Equal(w, g) {
		t.Fatalf("readDir gave %d entries, os.ReadDir %d; first difference at %d", len(g), len(w),
			slices.IndexFunc(w, func(s string) bool { return !slices.Contains(g, s) }))
	}
	for _, e := range got {
		if e.Name() != "dir" && e.Name() != "link" && e.Name() != "fifo" {
			continue
		}
		info, err := e.Info()
		wantInfo, werr := root.Lstat("d/" + e.Name())
		if err != nil || werr != nil || info.Mode() != wantInfo.Mode() || info.Name() != wantInfo.Name() {
			t.Errorf("%s: Info() = %v, %v; want %v, %v", e.Name(), info, err, wantInfo, werr)
		}
	}
}
