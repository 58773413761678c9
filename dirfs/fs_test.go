package dirfs

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
)

type variant struct {
	name string
	open func(dir string) (*FS, error)
}

// openTB opens dir with v, closing the FS when the test ends.
func (v variant) openTB(t testing.TB, dir string) *FS {
	t.Helper()
	fsys, err := v.open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { fsys.Close() })
	return fsys
}

// writeTree writes files (name: content, slash-separated names) below dir.
func writeTree(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

var plainTree = map[string]string{
	"tenants/team-a/namespace-metadata.yaml":                   "kind: NamespaceMetadata\n",
	"tenants/team-a/modules/app/applier-inputs.yaml":           "replicas: 3\n",
	"tenants/team-a/modules/app/manifests/deployment.yaml":     "kind: Deployment\n",
	"tenants/team-a/modules/app/manifests/config/cm.yaml":      "kind: ConfigMap\n",
	"tenants/team-b/modules/db/manifests/statefulset.yaml":     "kind: StatefulSet\n",
	"tenants/team-b/modules/db/manifests/.hidden":              "",
	"platform/policy.yaml":                                     "allowed: true\n",
	"README.md":                                                "# monorepo\n",
	"tenants/team-b/modules/db/manifests/deep/er/and/deeper.x": "x",
}

// TestFS checks the file system against testing/fstest on a tree without
// links: every file and directory opens, reads and lists as fs.FS says.
func TestFS(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeTree(t, dir, plainTree)
	var want []string
	for name := range plainTree {
		want = append(want, name)
	}
	for _, v := range variants(t) {
		t.Run(v.name, func(t *testing.T) {
			t.Parallel()
			if err := fstest.TestFS(v.openTB(t, dir), want...); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestClose checks that an FS refuses every operation once closed, that
// closing it twice is no error, and that a file opened before stays open.
func TestClose(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"a/b.txt": "b"})
	for _, v := range variants(t) {
		t.Run(v.name, func(t *testing.T) {
			t.Parallel()
			fsys := v.openTB(t, dir)
			f, err := fsys.Open("a/b.txt")
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if err := fsys.Close(); err != nil {
				t.Fatal(err)
			}
			if err := fsys.Close(); err != nil {
				t.Errorf("second Close: %v", err)
			}
			for op, call := range map[string]func(name string) error{
				"Open":     func(name string) error { _, err := fsys.Open(name); return err },
				"ReadDir":  func(name string) error { _, err := fsys.ReadDir(name); return err },
				"Stat":     func(name string) error { _, err := fsys.Stat(name); return err },
				"Lstat":    func(name string) error { _, err := fsys.Lstat(name); return err },
				"ReadLink": func(name string) error { _, err := fsys.ReadLink(name); return err },
			} {
				for _, name := range []string{"a", "a/b.txt"} {
					if err := call(name); !errors.Is(err, fs.ErrClosed) {
						t.Errorf("%s(%q) after Close: %v, want fs.ErrClosed", op, name, err)
					}
				}
			}
			data, err := io.ReadAll(f)
			if err != nil || string(data) != "b" {
				t.Errorf("reading a file opened before Close: %q, %v", data, err)
			}
		})
	}
}

// TestInvalidNames checks that every name fs.ValidPath refuses, and a NUL
// byte, is an *fs.PathError wrapping fs.ErrInvalid for every operation,
// before the tree is looked at.
func TestInvalidNames(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"a/b.txt": "b"})
	for _, v := range variants(t) {
		t.Run(v.name, func(t *testing.T) {
			t.Parallel()
			fsys := v.openTB(t, dir)
			for _, name := range []string{"", "/", "/a", "a/", "a//b.txt", "./a", "a/.", "a/..", "..", "../a", "a/../a/b.txt", "a\x00", "a/b.txt\x00"} {
				for op, call := range map[string]func(name string) error{
					"open":     func(name string) error { _, err := fsys.Open(name); return err },
					"readdir":  func(name string) error { _, err := fsys.ReadDir(name); return err },
					"stat":     func(name string) error { _, err := fsys.Stat(name); return err },
					"lstat":    func(name string) error { _, err := fsys.Lstat(name); return err },
					"readlink": func(name string) error { _, err := fsys.ReadLink(name); return err },
				} {
					err := call(name)
					want := &fs.PathError{Op: op, Path: name, Err: fs.ErrInvalid}
					if diff := cmp.Diff(want, err, cmpPathError); diff != "" {
						t.Errorf("%s(%q) (-want +got):\n%s", op, name, diff)
					}
				}
			}
		})
	}
}

// cmpPathError compares errors by their text and their *fs.PathError
// fields.
var cmpPathError = cmp.Comparer(func(a, b error) bool {
	var pa, pb *fs.PathError
	if !errors.As(a, &pa) || !errors.As(b, &pb) {
		return errors.Is(a, b) || a != nil && b != nil && a.Error() == b.Error()
	}
	return pa.Op == pb.Op && pa.Path == pb.Path && errors.Is(pa.Err, pb.Err)
})
