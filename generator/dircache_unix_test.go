//go:build unix

package generator

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tenantkit/tenantkit/dirfs"
	"github.com/tenantkit/tenantkit/internal/readfile"
	"github.com/tenantkit/tenantkit/pathpattern"
)

// TestDirCacheSameAsSource checks that a plan's dirCache answers every
// operation as the file system it wraps does, errors included, on a real
// tree with the things a tenant can put there: symbolic links to files and
// directories, inside and outside a module and the tree, a FIFO, a file
// where a directory is expected, names that do not exist.
func TestDirCacheSameAsSource(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	mod := "tenants/a/modules/m"
	files := map[string]string{
		mod + "/applier-inputs.yaml":           "replicas: 1\n",
		mod + "/manifests/x.yaml":              "kind: X\n",
		mod + "/manifests/README.md":           "# m\n",
		mod + "/manifests/config/y.yaml":       "kind: Y\n",
		mod + "/manifests/config/deep/z.yaml":  "kind: Z\n",
		"tenants/a/modules/n/manifests/w.yaml": "kind: W\n",
		"tenants/a/namespace-metadata.yaml":    "kind: NamespaceMetadata\n",
		"platform/p.yaml":                      "kind: P\n",
	}
	for name, content := range files {
		writeFile(t, filepath.Join(dir, filepath.FromSlash(name)), content)
	}
	links := map[string]string{
		mod + "/manifests/link.yaml":  "x.yaml",                      // to a file beside it
		mod + "/manifests/linkdir":    "config",                      // to a directory beside it
		mod + "/manifests/up":         "../applier-inputs.yaml",      // out of manifests, inside the module
		mod + "/manifests/other":      "../../n/manifests",           // out of the module, inside the root
		mod + "/manifests/escape":     "../../../../../../etc",       // out of the root
		mod + "/manifests/abs":        "/etc/hostname",               // absolute
		mod + "/manifests/dangling":   "nowhere.yaml",                // to nothing
		"tenants/a/modules/linkedmod": "m",                           // a module directory that is a link
		mod + "/manifests/config/ln":  "../../manifests/config/deep", // a loop back through the module
		mod + "/manifests/plat":       "../../../../../platform",     // out of the prefix, inside the root
		"tenants/a/outside":           "../../platform/missing",      // to nothing, out of the prefix
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(dir, filepath.FromSlash(name))); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(filepath.Join(dir, mod, "manifests", "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { root.Close() }) // after the parallel subtests
	linkFree, err := dirfs.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { linkFree.Close() })

	var names []string
	for _, rel := range []string{
		"", "applier-inputs.yaml", "manifests", "manifests/x.yaml", "manifests/README.md",
		"manifests/config", "manifests/config/y.yaml", "manifests/config/deep/z.yaml",
		"manifests/link.yaml", "manifests/linkdir", "manifests/linkdir/y.yaml", "manifests/linkdir/deep/z.yaml",
		"manifests/up", "manifests/other", "manifests/other/w.yaml", "manifests/escape", "manifests/escape/hostname",
		"manifests/abs", "manifests/dangling", "manifests/fifo", "manifests/config/ln", "manifests/config/ln/z.yaml",
		"manifests/missing", "manifests/missing/x.yaml", "manifests/x.yaml/below", "missing/deeper/x",
	} {
		names = append(names, strings.TrimSuffix(mod+"/"+rel, "/"))
	}
	names = append(names, "tenants/a/modules/mx", "tenants/a/modules/linkedmod", "tenants/a/modules/linkedmod/manifests/x.yaml",
		"tenants/a/namespace-metadata.yaml", "tenants/a/modules/n/manifests/w.yaml", ".", "tenants",
		"tenants/a/missing.yaml", "tenants/missing/namespace-metadata.yaml", "tenants/a/namespace-metadata.yaml/x",
		mod+"/manifests/plat", mod+"/manifests/plat/p.yaml", mod+"/manifests/plat/missing", "tenants/a/outside", "tenants/a/outside/x",
		mod+"//manifests", mod+"/./manifests", mod+"/../m/manifests", "/"+mod+"/manifests", mod+"/manifests/")
	globs := []string{mod + "/manifests/**", mod + "/manifests/*.yaml", mod + "/**/*.yaml", mod + "/manifests/config", "tenants/*/modules/*/manifests/**"}

	for _, src := range []struct {
		name string
		fsys fs.FS
	}{
		{name: "root.FS", fsys: root.FS()},
		{name: "os.DirFS", fsys: os.DirFS(dir)},
		// Its Stat refuses a link: the cache must not answer one.
		{name: "dirfs", fsys: linkFree},
		// Without fs.ReadLinkFS, fs.Lstat is Stat: the cache must not
		// answer from the entries' types, which would disagree.
		{name: "no ReadLinkFS", fsys: noReadLink{root.FS()}},
	} {
		// Both orders: answers must not depend on what the cache has
		// already seen; and after the globs have read the directories.
		for _, order := range []string{"forward", "reverse", "after globs"} {
			t.Run(src.name+"/"+order, func(t *testing.T) {
				t.Parallel()
				c := newDirCache(src.fsys)
				names := slices.Clone(names)
				switch order {
				case "reverse":
					slices.Reverse(names)
				case "after globs":
					for _, pattern := range globs {
						pathpattern.Glob(t.Context(), c, pattern, "*.md")
					}
				}
				for _, name := range names {
					if diff := cmp.Diff(describe(src.fsys, name), describe(c, name)); diff != "" {
						t.Errorf("%q (-source +dirCache):\n%s", name, diff)
					}
				}
				for _, pattern := range globs {
					w, _, werr := pathpattern.Glob(t.Context(), src.fsys, pattern, "*.md")
					g, _, gerr := pathpattern.Glob(t.Context(), c, pattern, "*.md")
					if diff := cmp.Diff(fmt.Sprint(w, werr), fmt.Sprint(g, gerr)); diff != "" {
						t.Errorf("Glob(%q) (-source +dirCache):\n%s", pattern, diff)
					}
				}
			})
		}
	}
}

// TestDirCacheLinkRefusal checks that a plan's dirCache says that its Open
// refuses links (readfile.OpenRefusesLinks) exactly when the file system it
// wraps does, as package dirfs's FS does: pathpattern.ReadFile then reads a
// file without the Lstat of each element of its name first.
func TestDirCacheLinkRefusal(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	linkFree, err := dirfs.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer linkFree.Close()
	for _, tt := range []struct {
		name string
		fsys fs.FS
		want bool
	}{
		{name: "dirfs", fsys: linkFree, want: true},
		{name: "root.FS", fsys: root.FS()},
		{name: "os.DirFS", fsys: os.DirFS(dir)},
		{name: "dirfs without its methods", fsys: noReadLink{linkFree}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := readfile.OpenRefusesLinks(newDirCache(tt.fsys)); got != tt.want {
				t.Errorf("readfile.OpenRefusesLinks(newDirCache(%s)) = %t, want %t", tt.name, got, tt.want)
			}
		})
	}
}

// noReadLink hides every method of a file system but Open and Stat (which,
// unlike Open, does not wait for a FIFO's writer).
type noReadLink struct{ fsys fs.FS }

func (f noReadLink) Open(name string) (fs.File, error)     { return f.fsys.Open(name) }
func (f noReadLink) Stat(name string) (fs.FileInfo, error) { return fs.Stat(f.fsys, name) }

// describe returns what each file system operation, and pathpattern's
// ReadFile, make of name in fsys.
func describe(fsys fs.FS, name string) []string {
	info := func(fi fs.FileInfo, err error) string {
		if err != nil {
			return "error " + err.Error()
		}
		return fmt.Sprintf("%s %v %d", fi.Name(), fi.Mode(), sizeOf(fi))
	}
	// Lstat and Stat must agree in name and type: of an entry known from
	// its directory, the cache keeps nothing else (see statInfo).
	kind := func(fi fs.FileInfo, err error) string {
		if err != nil {
			return "error " + err.Error()
		}
		return fmt.Sprintf("%s %v", fi.Name(), fi.Mode().Type())
	}
	var out []string
	out = append(out, "lstat: "+kind(fs.Lstat(fsys, name)))
	out = append(out, "stat: "+kind(fs.Stat(fsys, name)))
	target, err := fs.ReadLink(fsys, name)
	out = append(out, fmt.Sprintf("readlink: %q %v", target, err))
	data, err := pathpattern.ReadFile(fsys, name, 0)
	out = append(out, fmt.Sprintf("ReadFile: %q %v", data, err))
	// Open and read a FIFO only through ReadFile, which refuses it first:
	// opening it for reading waits for a writer.
	if fi, err := fs.Lstat(fsys, name); err == nil && fi.Mode()&fs.ModeNamedPipe != 0 {
		return out
	}
	entries, err := fs.ReadDir(fsys, name)
	var listed []string
	for _, e := range entries {
		listed = append(listed, e.Name()+" "+e.Type().String()+" "+info(e.Info()))
	}
	out = append(out, fmt.Sprintf("readdir: %q %v", listed, err))
	f, err := fsys.Open(name)
	if err != nil {
		out = append(out, "open: error "+err.Error())
	} else {
		data, rerr := io.ReadAll(f)
		out = append(out, fmt.Sprintf("open: %s read %q %v", info(f.Stat()), data, rerr))
		f.Close()
	}
	return out
}

// sizeOf is a file's size, and 0 for a directory, whose size depends on
// how it was read.
func sizeOf(fi fs.FileInfo) int64 {
	if fi.IsDir() {
		return 0
	}
	return fi.Size()
}
