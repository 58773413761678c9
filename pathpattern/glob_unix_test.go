//go:build unix

package pathpattern

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
)

// TestGlobDirectoryTree checks that a "dir/**" pattern, which Glob walks
// on its own (see globber.glob), selects and skips what doublestar's walk
// selects and skips: for
// every name of a tree with links, dot files, a FIFO and escaped meta
// characters, on disk and in memory, with excludes of each kind.
func TestGlobDirectoryTree(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	writeFiles(t, root, "m/a.yaml", "m/.hidden.yaml", "m/.dot/x.yaml", "m/sub/b.yaml", "m/sub/deep/c.md",
		"m/skip/d.yaml", "m/a*b/e.yaml", "other/f.yaml")
	for link, target := range map[string]string{"m/link.yaml": "a.yaml", "m/linkdir": "sub", "m/out": "../other", "lm": "m"} {
		if err := os.Symlink(target, filepath.Join(root, link)); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(filepath.Join(root, "m", "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	trees := map[string]fs.FS{"disk": os.DirFS(root), "memory": globTree()}
	excludes := [][]string{nil, {"*.md"}, {"skip"}, {"sub/**"}, {"m/sub"}, {".*"}, {"**/c.md", "a.yaml"}, {"m"}, {manifests}, {"sub"}}
	for treeName, fsys := range trees {
		var dirs []string
		err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
			dirs = append(dirs, p)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		dirs = append(dirs, "missing", "m/missing", `m/a\*b`, `weird/a\*b`)
		for _, dir := range dirs {
			if dir == "." {
				continue
			}
			pattern := dir + "/**"
			for _, ex := range excludes {
				got, skipped, err := glob(t.Context(), fsys, pattern, ex, maxGlobWork, false)
				want, wskipped, werr := glob(t.Context(), fsys, pattern, ex, maxGlobWork, true)
				if !slices.Equal(got, want) || !slices.Equal(skipped, wskipped) || fmt.Sprint(err) != fmt.Sprint(werr) {
					t.Errorf("%s: Glob(%q, %q) = %q, %v, %v; with doublestar, %q, %v, %v", treeName, pattern, ex, got, skipped, err, want, wskipped, werr)
				}
			}
		}
	}
}
