//go:build linux

package generator

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tenantkit/tenantkit/pathpattern"
)

// TestDirViewSameAsRoot checks that a plan's view of a module directory
// (dirCache anchored at the prefix, dirView) answers every operation as the
// os.Root it wraps does,
// errors included, on a real tree with the things a tenant can put there:
// symbolic links to files and directories, inside and outside the module,
// a FIFO, a file where a directory is expected, names that do not exist.
func TestDirViewSameAsRoot(t *testing.T) {
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
	defer root.Close()
	want := root.FS()

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

	// Both orders: answers must not depend on what the view has already
	// seen or opened. With and without a root of the module's parent, as
	// a plan opens for the modules of one tenant.
	// And without openat2, as on a kernel that lacks it.
	for _, tc := range []struct{ reverse, parent, noOpenat2 bool }{
		{false, false, false}, {true, false, false}, {false, true, false}, {true, true, false}, {false, true, true}, {true, true, true},
	} {
		reverse := tc.reverse
		t.Run(fmt.Sprintf("reverse=%t,parent=%t,noOpenat2=%t", tc.reverse, tc.parent, tc.noOpenat2), func(t *testing.T) {
			c := newDirCache(newRootSource(root))
			c.noOpenat2.Store(tc.noOpenat2)
			c.anchor("tenants") // as a plan does, for the pattern's prefix
			defer c.close()
			parent := noDir
			if tc.parent {
				if parent = c.openDir(dirOf(mod)); parent.fd < 0 {
					t.Fatalf("openDir(%q) = -1", dirOf(mod))
				}
				defer closeFD(parent.fd)
			}
			got, done := c.view(mod, parent)
			defer done()
			if _, ok := got.(*dirView); !ok {
				t.Fatalf("view of a rootSource is a %T, want a *dirView", got)
			}
			order := append([]string(nil), names...)
			if reverse {
				for i, j := 0, len(order)-1; i < j; i, j = i+1, j-1 {
					order[i], order[j] = order[j], order[i]
				}
			}
			for _, name := range order {
				if diff := cmp.Diff(describe(want, name), describe(got, name)); diff != "" {
					t.Errorf("%q (-root +view):\n%s", name, diff)
				}
			}
			for _, pattern := range globs {
				w, werr := pathpattern.Glob(t.Context(), want, pattern, "*.md")
				g, gerr := pathpattern.Glob(t.Context(), got, pattern, "*.md")
				if diff := cmp.Diff(fmt.Sprint(w, werr), fmt.Sprint(g, gerr)); diff != "" {
					t.Errorf("Glob(%q) (-root +view):\n%s", pattern, diff)
				}
			}
			// ReadFile opens a module's file in one step when the module's
			// directory was opened without a link, through openat2; never
			// a name through a link.
			v := got.(*dirView)
			f, err := v.OpenNoFollow(mod + "/manifests/config/y.yaml")
			if f != nil {
				f.Close()
			}
			if (err == nil) != !tc.noOpenat2 {
				t.Errorf("OpenNoFollow(manifests/config/y.yaml) = %v; want it opened when openat2 opened the module", err)
			}
			for _, name := range []string{mod + "/manifests/link.yaml", mod + "/manifests/linkdir/y.yaml"} {
				if f, err := v.OpenNoFollow(name); err == nil {
					f.Close()
					t.Errorf("OpenNoFollow(%q) opened it", name)
				}
			}
			opened := 0
			for _, fd := range got.(*dirView).dirs {
				if fd >= 0 {
					opened++
				}
			}
			if opened < 3 { // the module, manifests, manifests/config, ...
				t.Errorf("the view opened %d directories of its own, want 3 or more: it asked the source instead", opened)
			}
		})
	}

	// Without a root, the plan reads through the dirCache alone.
	for _, fsys := range []fs.FS{os.DirFS(dir), root.FS()} {
		t.Run(fmt.Sprintf("%T", fsys), func(t *testing.T) {
			c := newDirCache(fsys)
			if v, _ := c.view(mod, noDir); v != c {
				t.Fatalf("view of a %T is a %T, want the dirCache", fsys, v)
			}
			for _, name := range names {
				if diff := cmp.Diff(describe(fsys, name), describe(c, name)); diff != "" {
					t.Errorf("%q (-fsys +dirCache):\n%s", name, diff)
				}
			}
			for _, pattern := range globs {
				w, werr := pathpattern.Glob(t.Context(), fsys, pattern, "*.md")
				g, gerr := pathpattern.Glob(t.Context(), c, pattern, "*.md")
				if diff := cmp.Diff(fmt.Sprint(w, werr), fmt.Sprint(g, gerr)); diff != "" {
					t.Errorf("Glob(%q) (-fsys +dirCache):\n%s", pattern, diff)
				}
			}
		})
	}
}

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
	// its directory, the plan's caches keep nothing else (see statInfo).
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
	// os.Root opens it for reading, which waits for a writer.
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

// TestRootSourceSamePlan checks that a plan reads the same through DirFS
// (with views of each module) as through root.FS(), on the sample monorepo
// with hostile additions: links in and out of modules, a module whose
// manifests are a link, a linked inputs file, a FIFO, a file over the size
// limit and a missing inputs file.
func TestRootSourceSamePlan(t *testing.T) {
	t.Parallel()
	repo := t.TempDir()
	if err := os.CopyFS(repo, os.DirFS("../examples/plan/sample/monorepo")); err != nil {
		t.Fatal(err)
	}
	api := filepath.Join(repo, "tenants/tenant-payments/modules/api")
	worker := filepath.Join(repo, "tenants/tenant-payments/modules/worker")
	indexer := filepath.Join(repo, "tenants/tenant-search/modules/indexer")
	for name, target := range map[string]string{
		api + "/manifests/link.yaml":        "deployment.yaml",
		api + "/manifests/linkdir":          "config",
		api + "/manifests/escape":           "../../../../../..",
		worker + "/applier-inputs.yaml.bak": "applier-inputs.yaml",
	} {
		if err := os.Symlink(target, name); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Rename(worker+"/applier-inputs.yaml", worker+"/inputs.yaml"); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("inputs.yaml", worker+"/applier-inputs.yaml"); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(indexer+"/manifests/fifo", 0o644); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(repo, "tenants/tenant-sandbox/modules/playground/manifests/big.yaml"), strings.Repeat("#", maxArtifactFileBytes+1))
	writeFile(t, filepath.Join(repo, "tenants/tenant-extra/modules/linked/applier-inputs.yaml"), "replicas: 1\n")
	if err := os.Symlink("../../tenant-search/modules/indexer/manifests", filepath.Join(repo, "tenants/tenant-extra/modules/linked/manifests")); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(repo, "tenants/tenant-extra/modules/plain/manifests/a.yaml"), "kind: A\n")

	spec, opts := sampleSpec(t)
	g := mustCompile(t, spec, opts...)
	root, err := os.OpenRoot(repo)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	plan := func(fsys fs.FS) string {
		t.Helper()
		p, err := g.Plan(t.Context(), map[string]fs.FS{"repo": fsys}, nil, emptyCluster{}.cluster())
		if err != nil {
			t.Fatal(err)
		}
		return fmt.Sprintf("%+v\n%v\n%q\n%v", p.Artifacts, p.Decisions, p.Warnings, p.Errors)
	}
	got := plan(DirFS(root))
	want := plan(root.FS())
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("plan through DirFS differs from the plan through root.FS() (-root.FS +DirFS):\n%s", diff)
	}
	for _, s := range []string{"big.yaml", "applier-inputs.yaml", "tenant-extra"} {
		if !strings.Contains(got, s) {
			t.Errorf("the plan does not mention %q: the tree does not test what it should\n%s", s, got)
		}
	}
}

// TestDirViewManyDirectories checks a module with more directories than a
// view holds open (maxViewDirs): the rest are read through the dirCache,
// with the same results.
func TestDirViewManyDirectories(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	mod := "tenants/a/modules/m"
	for i := range 2 * maxViewDirs {
		writeFile(t, filepath.Join(dir, mod, fmt.Sprintf("d%03d", i), "sub", "f.yaml"), fmt.Sprintf("i: %d\n", i))
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	c := newDirCache(newRootSource(root))
	c.anchor("tenants")
	defer c.close()
	view, done := c.view(mod, noDir)
	defer done()
	want, werr := pathpattern.Glob(t.Context(), root.FS(), mod+"/**")
	got, gerr := pathpattern.Glob(t.Context(), view, mod+"/**")
	if diff := cmp.Diff(fmt.Sprint(want, werr), fmt.Sprint(got, gerr)); diff != "" || len(got) != 2*maxViewDirs {
		t.Fatalf("Glob through a view of %d files (-root +view):\n%s", len(got), diff)
	}
	for _, name := range got {
		if diff := cmp.Diff(describe(root.FS(), name), describe(view, name)); diff != "" {
			t.Errorf("%q (-root +view):\n%s", name, diff)
		}
	}
	if n := len(view.(*dirView).dirs); n != maxViewDirs {
		t.Errorf("the view holds %d directories, want %d", n, maxViewDirs)
	}
}
