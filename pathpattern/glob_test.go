package pathpattern

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"testing/fstest"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/google/go-cmp/cmp"

	"github.com/tenantkit/tenantkit/dirfs"
)

const manifests = "tenants/a/modules/app/manifests"

func globTree() fstest.MapFS {
	return fstest.MapFS{
		manifests + "/deploy.yaml":                    file("deploy"),
		manifests + "/svc.yaml":                       file("svc"),
		manifests + "/README.md":                      file("readme"),
		manifests + "/sub/cm.yaml":                    file("cm"),
		manifests + "/sub/notes.md":                   file("notes"),
		manifests + "/testdata/x.yaml":                file("x"),
		manifests + "/link.yaml":                      symlink("deploy.yaml"),
		manifests + "/linkdir":                        symlink("sub"),
		manifests + "/pipe":                           &fstest.MapFile{Mode: fs.ModeNamedPipe},
		"tenants/a/modules/app/inputs":                file("inputs"),
		"tenants/a/modules/db/manifests":              dir(),
		"tenants/b/modules/app/manifests/deploy.yaml": file("b"),
		"tenants/c":                                   symlink("a"),
		"weird/a*b/file":                              file("star"),
	}
}

// all is every regular file below manifests in globTree.
var all = []string{
	manifests + "/README.md",
	manifests + "/deploy.yaml",
	manifests + "/sub/cm.yaml",
	manifests + "/sub/notes.md",
	manifests + "/svc.yaml",
	manifests + "/testdata/x.yaml",
}

// linkAt and pipeAt are what Glob reports for a symbolic link and a
// named pipe at p.
func linkAt(p string) Skipped { return Skipped{Path: p, Mode: fs.ModeSymlink} }
func pipeAt(p string) Skipped { return Skipped{Path: p, Mode: fs.ModeNamedPipe} }

// inManifests is what a copy of the whole of manifests in globTree leaves
// out: two links and a pipe.
var inManifests = []Skipped{linkAt(manifests + "/link.yaml"), linkAt(manifests + "/linkdir"), pipeAt(manifests + "/pipe")}

var globTests = []struct {
	name    string
	pattern string
	exclude []string
	want    []string
	skipped []Skipped // what Glob leaves out
}{
	{name: "double star is recursive", pattern: manifests + "/**", want: all, skipped: inManifests},
	{name: "star takes directories whole", pattern: manifests + "/*", want: all, skipped: inManifests},
	{name: "literal directory", pattern: manifests, want: all, skipped: inManifests},
	{name: "literal file", pattern: "tenants/a/modules/app/inputs", want: []string{"tenants/a/modules/app/inputs"}},
	{name: "extension", pattern: manifests + "/*.yaml", want: []string{manifests + "/deploy.yaml", manifests + "/svc.yaml"},
		skipped: []Skipped{linkAt(manifests + "/link.yaml")}},
	// Any link below "tenants" may be a directory that holds a deploy.yaml.
	{name: "double star in the middle", pattern: "tenants/**/deploy.yaml", want: []string{manifests + "/deploy.yaml", "tenants/b/modules/app/manifests/deploy.yaml"},
		skipped: []Skipped{linkAt(manifests + "/link.yaml"), linkAt(manifests + "/linkdir"), linkAt("tenants/c")}},
	// tenants/c may be a directory that holds modules/*/manifests/*.yaml,
	// manifests/linkdir no *.yaml.
	{name: "star segments", pattern: "tenants/*/modules/*/manifests/*.yaml", want: []string{manifests + "/deploy.yaml", manifests + "/svc.yaml", "tenants/b/modules/app/manifests/deploy.yaml"},
		skipped: []Skipped{linkAt(manifests + "/link.yaml"), linkAt("tenants/c")}},
	{name: "alternatives", pattern: manifests + "/{deploy,svc}.yaml", want: []string{manifests + "/deploy.yaml", manifests + "/svc.yaml"}},
	{name: "overlapping alternatives", pattern: manifests + "/{*,deploy.yaml}", want: all, skipped: inManifests},
	{name: "alternatives with slashes", pattern: "tenants/{a/modules/app/inputs,b/**}", want: []string{"tenants/a/modules/app/inputs", "tenants/b/modules/app/manifests/deploy.yaml"}},
	{name: "escaped meta", pattern: `weird/a\*b/file`, want: []string{"weird/a*b/file"}},
	{name: "escaped meta with glob", pattern: `weird/a\*b/*`, want: []string{"weird/a*b/file"}},
	{name: "no match", pattern: "missing/**"},
	{name: "empty directory", pattern: "tenants/a/modules/db/manifests/**"},
	{name: "symlinked file", pattern: manifests + "/link.yaml", skipped: []Skipped{linkAt(manifests + "/link.yaml")}},
	{name: "named pipe", pattern: manifests + "/pipe", skipped: []Skipped{pipeAt(manifests + "/pipe")}},
	{name: "below a symlinked file", pattern: manifests + "/link.yaml/x", skipped: []Skipped{linkAt(manifests + "/link.yaml")}},
	{name: "below a named pipe", pattern: manifests + "/pipe/x"},
	{name: "symlinked directory", pattern: manifests + "/linkdir/**", skipped: []Skipped{linkAt(manifests + "/linkdir")}},
	{name: "symlinked directory in a wildcard", pattern: "tenants/*/modules/app/inputs", want: []string{"tenants/a/modules/app/inputs"},
		skipped: []Skipped{linkAt("tenants/c")}},
	{name: "symlinked prefix", pattern: "tenants/c/modules/**", skipped: []Skipped{linkAt("tenants/c")}},
	{name: "symlinked prefix in alternatives", pattern: "tenants/{c,x}/modules/**", skipped: []Skipped{linkAt("tenants/c")}},
	{name: "symlinked prefix before a glob", pattern: "tenants/c/modules/*/inputs", skipped: []Skipped{linkAt("tenants/c")}},
	{name: "file as a directory", pattern: "tenants/a/modules/app/inputs/*"},

	{name: "exclude base name at any depth", pattern: manifests + "/**", exclude: []string{"*.md"},
		want: []string{manifests + "/deploy.yaml", manifests + "/sub/cm.yaml", manifests + "/svc.yaml", manifests + "/testdata/x.yaml"}, skipped: inManifests},
	{name: "exclude directory whole", pattern: manifests + "/**", exclude: []string{"testdata"},
		want: []string{manifests + "/README.md", manifests + "/deploy.yaml", manifests + "/sub/cm.yaml", manifests + "/sub/notes.md", manifests + "/svc.yaml"}, skipped: inManifests},
	{name: "exclude directory whole with star", pattern: manifests + "/*", exclude: []string{"sub"},
		want: []string{manifests + "/README.md", manifests + "/deploy.yaml", manifests + "/svc.yaml", manifests + "/testdata/x.yaml"}, skipped: inManifests},
	{name: "exclude relative to prefix", pattern: manifests + "/**", exclude: []string{"sub/*.yaml", "testdata/**"},
		want: []string{manifests + "/README.md", manifests + "/deploy.yaml", manifests + "/sub/notes.md", manifests + "/svc.yaml"}, skipped: inManifests},
	{name: "exclude relative to root", pattern: "tenants/*/modules/app/manifests/*.yaml", exclude: []string{"tenants/b/**"},
		want: []string{manifests + "/deploy.yaml", manifests + "/svc.yaml"}, skipped: []Skipped{linkAt(manifests + "/link.yaml"), linkAt("tenants/c")}},
	{name: "exclude inside a taken directory", pattern: manifests, exclude: []string{"notes.md", "sub/cm.yaml"},
		want: []string{manifests + "/README.md", manifests + "/deploy.yaml", manifests + "/svc.yaml", manifests + "/testdata/x.yaml"}, skipped: inManifests},
	{name: "exclude a literal file", pattern: "tenants/a/modules/app/inputs", exclude: []string{"inputs"}},
	{name: "exclude with alternatives", pattern: manifests + "/*", exclude: []string{"{sub,testdata}"},
		want: []string{manifests + "/README.md", manifests + "/deploy.yaml", manifests + "/svc.yaml"}, skipped: inManifests},
	// An alternative's directory below the prefix, "tenants", is a
	// directory of the copy that an exclude pattern may remove whole.
	{name: "exclude a directory an alternative takes whole", pattern: "tenants/{a/modules/app/inputs,b/**}", exclude: []string{"b"},
		want: []string{"tenants/a/modules/app/inputs"}},
	// What an exclude pattern removes is excluded, not skipped.
	{name: "exclude links and pipes", pattern: manifests + "/**", exclude: []string{"link*", "pipe"}, want: all},
	{name: "exclude a link in a star", pattern: "tenants/*/modules/app/inputs", exclude: []string{"c"}, want: []string{"tenants/a/modules/app/inputs"}},
	{name: "exclude a symlinked file", pattern: manifests + "/link.yaml", exclude: []string{"*.yaml"}},
}

func TestGlob(t *testing.T) {
	t.Parallel()
	fsys := globTree()
	for _, tt := range globTests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, skipped, err := Glob(t.Context(), fsys, tt.pattern, tt.exclude...)
			if err != nil {
				t.Fatalf("Glob(%q): %v", tt.pattern, err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Glob(%q, %q) files (-want +got):\n%s", tt.pattern, tt.exclude, diff)
			}
			if diff := cmp.Diff(tt.skipped, skipped); diff != "" {
				t.Errorf("Glob(%q, %q) skipped (-want +got):\n%s", tt.pattern, tt.exclude, diff)
			}
			// Glob takes the same files.
			if files, _, err := Glob(t.Context(), fsys, tt.pattern, tt.exclude...); err != nil || !slices.Equal(files, got) {
				t.Errorf("Glob(%q, %q) = %q, %v; want %q", tt.pattern, tt.exclude, files, err, got)
			}
		})
	}
}

var badGlobTests = []struct {
	name    string
	pattern string
	exclude []string
}{
	{name: "unclosed class", pattern: "a/["},
	{name: "unclosed brace", pattern: "a/{b"},
	{name: "stray brace", pattern: "a/b}"},
	{name: "absolute", pattern: "/etc/*"},
	{name: "dot dot", pattern: "a/../b/*"},
	{name: "dot dot in alternative", pattern: "a/{b,..}/c"},
	{name: "dot", pattern: "./a"},
	{name: "empty element", pattern: "a//b"},
	{name: "trailing slash", pattern: "a/"},
	{name: "empty", pattern: ""},
	{name: "too many alternatives", pattern: "{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}"},
	{name: "too long", pattern: strings.Repeat("a", maxGlobLength+1)},
	{name: "bad exclude", pattern: "a/**", exclude: []string{"ok", "["}},
	{name: "exclude with too many alternatives", pattern: "a/**", exclude: []string{"{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}"}},
}

func TestGlobBadPattern(t *testing.T) {
	t.Parallel()
	for _, tt := range badGlobTests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, _, err := Glob(t.Context(), globTree(), tt.pattern, tt.exclude...)
			if !errors.Is(err, doublestar.ErrBadPattern) || got != nil {
				t.Errorf("Glob(%q, %q) = %q, %v, want an error wrapping doublestar.ErrBadPattern", tt.pattern, tt.exclude, got, err)
			}
		})
	}
}

func TestGlobMaxAlternatives(t *testing.T) {
	t.Parallel()
	// 2^6 = 64 alternatives is the limit.
	fsys := fstest.MapFS{"aaaaaa": file("")}
	got, _, err := Glob(t.Context(), fsys, "{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}")
	if err != nil || len(got) != 1 {
		t.Errorf("Glob = %q, %v, want one file", got, err)
	}
}

func TestExpandBraces(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name    string
		pattern string
		want    []string
	}{
		{name: "none", pattern: "a/b", want: []string{"a/b"}},
		{name: "simple", pattern: "{a,b}/c", want: []string{"a/c", "b/c"}},
		{name: "nested", pattern: "x{a,b{c,d}}y", want: []string{"xay", "xbcy", "xbdy"}},
		{name: "several", pattern: "{a,b}{c,d}", want: []string{"ac", "ad", "bc", "bd"}},
		{name: "empty alternative", pattern: "a{,.md}", want: []string{"a", "a.md"}},
		{name: "empty group", pattern: "a{}b", want: []string{"ab"}},
		{name: "escaped", pattern: `\{a,b\}{c,d}`, want: []string{`\{a,b\}c`, `\{a,b\}d`}},
		{name: "brace in class", pattern: "[{]{a,b}", want: []string{"[{]a", "[{]b"}},
		{name: "comma in class", pattern: "{[,]a,b}", want: []string{"[,]a", "b"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, ok := expandBraces(tt.pattern, maxAlternatives)
			if !ok {
				t.Fatal("too many alternatives")
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("expandBraces(%q) (-want +got):\n%s", tt.pattern, diff)
			}
		})
	}
}

func TestGlobOnDisk(t *testing.T) {
	t.Parallel()
	outside := t.TempDir()
	writeFiles(t, outside, "secret.yaml", "dir/stolen.yaml")
	root := t.TempDir()
	writeFiles(t, root, "manifests/deploy.yaml", "manifests/sub/cm.yaml")
	for link, target := range map[string]string{
		"manifests/secret.yaml": filepath.Join(outside, "secret.yaml"),
		"manifests/escape":      filepath.Join(outside, "dir"),
		"escape":                outside,
	} {
		if err := os.Symlink(target, filepath.Join(root, link)); err != nil {
			t.Fatal(err)
		}
	}
	// Through package dirfs, whose Open refuses links itself, the results
	// must be those of os.DirFS, which follows links.
	linkFree, err := dirfs.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { linkFree.Close() })
	links := []Skipped{linkAt("escape"), linkAt("manifests/escape"), linkAt("manifests/secret.yaml")}
	for _, tt := range []struct {
		name    string
		pattern string
		want    []string
		skipped []Skipped
	}{
		{name: "double star", pattern: "**", want: []string{"manifests/deploy.yaml", "manifests/sub/cm.yaml"}, skipped: links},
		{name: "directory", pattern: "manifests", want: []string{"manifests/deploy.yaml", "manifests/sub/cm.yaml"}, skipped: links[1:]},
		{name: "star", pattern: "manifests/*", want: []string{"manifests/deploy.yaml", "manifests/sub/cm.yaml"}, skipped: links[1:]},
		{name: "through a link", pattern: "escape/**", skipped: links[:1]},
		{name: "through a link in alternatives", pattern: "{escape,x}/**", skipped: links[:1]},
		{name: "through a link after a star", pattern: "*/escape/**", skipped: links[:2]},
		{name: "link to a file", pattern: "manifests/secret.yaml", skipped: links[2:]},
		{name: "a directory whole", pattern: "manifests/**", want: []string{"manifests/deploy.yaml", "manifests/sub/cm.yaml"}, skipped: links[1:]},
		{name: "a directory whole, below", pattern: "manifests/sub/**", want: []string{"manifests/sub/cm.yaml"}},
		{name: "a link taken whole", pattern: "manifests/escape/**", skipped: links[1:2]},
		{name: "a missing directory whole", pattern: "missing/**"},
		{name: "a file taken whole", pattern: "manifests/deploy.yaml/**"},
	} {
		for _, src := range []struct {
			name string
			fsys fs.FS
		}{{"os.DirFS", os.DirFS(root)}, {"dirfs", linkFree}} {
			t.Run(tt.name+"/"+src.name, func(t *testing.T) {
				t.Parallel()
				got, skipped, err := Glob(t.Context(), src.fsys, tt.pattern)
				if err != nil {
					t.Fatal(err)
				}
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("Glob(%q) files (-want +got):\n%s", tt.pattern, diff)
				}
				if diff := cmp.Diff(tt.skipped, skipped); diff != "" {
					t.Errorf("Glob(%q) skipped (-want +got):\n%s", tt.pattern, diff)
				}
			})
		}
	}
}

func TestGlobIOError(t *testing.T) {
	t.Parallel()
	fsys := &recordFS{
		MapFS: fstest.MapFS{"a/b/c": file(""), "a/d/e": file("")},
		fail:  map[string]error{"a/b": fs.ErrPermission},
	}
	got, _, err := Glob(t.Context(), fsys, "a/**")
	if !errors.Is(err, fs.ErrPermission) || got != nil {
		t.Errorf("Glob = %q, %v, want an error wrapping fs.ErrPermission", got, err)
	}
}

// chain returns a tree of directories "d", "d/d", ... depth levels deep,
// each holding a file f.yaml.
func chain(depth int) fstest.MapFS {
	fsys := fstest.MapFS{}
	p := "d"
	for range depth {
		fsys[p+"/f.yaml"] = file("x")
		p += "/d"
	}
	return fsys
}

// TestGlobBounds is the regression test for several "**" over a deep
// tree, which made Glob run for hours: each "**" walks the tree again for
// every way of splitting a path between them.
func TestGlobBounds(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name    string
		fsys    fs.FS
		pattern string
		max     int    // the bound of entries, maxGlobWork when 0
		rule    string // what the error says; empty for none
		files   int    // how many files a glob without error finds
	}{
		{name: "several ** over a tree deeper than maxGlobDepth", fsys: chain(maxGlobDepth + 50), pattern: "**/**/**/*.yaml",
			rule: "must look no deeper than 256 directories"},
		{name: "one ** over a tree deeper than maxGlobDepth", fsys: chain(maxGlobDepth + 1), pattern: "**",
			rule: "must look no deeper than 256 directories"},
		{name: "a literal path deeper than maxGlobDepth", fsys: chain(maxGlobDepth + 1), pattern: strings.Repeat("d/", maxGlobDepth) + "f.yaml",
			rule: "must look no deeper than 256 directories"},
		{name: "one ** at maxGlobDepth", fsys: chain(maxGlobDepth - 1), pattern: "**", files: maxGlobDepth - 1},
		{name: "several ** in a row over a deep tree", fsys: chain(40), pattern: "**/**/**/**/**/*.yaml", files: 40},
		{name: "several ** apart over a deep tree", fsys: chain(40), pattern: "**/d/**/d/**/d/**/*.yaml", max: 100_000,
			rule: "must do no more than 100000 units of work"},
		{name: "two ** apart over the same tree", fsys: chain(40), pattern: "**/d/**/*.yaml", max: 100_000, files: 40},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var got []string
			var err error
			if tt.max == 0 {
				got, _, err = Glob(t.Context(), tt.fsys, tt.pattern)
			} else {
				got, _, err = glob(t.Context(), tt.fsys, tt.pattern, nil, tt.max, false)
			}
			if tt.rule == "" {
				if err != nil || len(got) != tt.files {
					t.Fatalf("Glob = %d files, %v, want %d files", len(got), err, tt.files)
				}
				return
			}
			if got != nil || !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), tt.rule) {
				t.Fatalf("Glob = %d files, %v, want an error wrapping ErrTooLarge that says %q", len(got), err, tt.rule)
			}
		})
	}
}

// cancelFS cancels its context at the n-th directory it reads.
type cancelFS struct {
	fstest.MapFS
	cancel context.CancelFunc
	n      atomic.Int32
}

func (c *cancelFS) ReadDir(name string) ([]fs.DirEntry, error) {
	if c.n.Add(-1) == 0 {
		c.cancel()
	}
	return c.MapFS.ReadDir(name)
}

func TestGlobCancel(t *testing.T) {
	t.Parallel()
	t.Run("before", func(t *testing.T) {
		t.Parallel()
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		got, _, err := Glob(ctx, globTree(), manifests+"/deploy.yaml")
		if got != nil || !errors.Is(err, context.Canceled) {
			t.Errorf("Glob = %q, %v, want an error wrapping context.Canceled", got, err)
		}
	})
	t.Run("while walking", func(t *testing.T) {
		t.Parallel()
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		fsys := &cancelFS{MapFS: chain(40), cancel: cancel}
		fsys.n.Store(5)
		got, _, err := Glob(ctx, fsys, "**/**/**/**/**/*.yaml")
		if got != nil || !errors.Is(err, context.Canceled) {
			t.Errorf("Glob = %q, %v, want an error wrapping context.Canceled", got, err)
		}
		if n := fsys.n.Load(); n < -2 {
			t.Errorf("Glob read %d directories after its context was canceled", -n)
		}
	})
}

func writeFiles(t testing.TB, root string, names ...string) {
	t.Helper()
	for _, name := range names {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(name), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func FuzzGlob(f *testing.F) {
	first := func(exclude []string) string {
		if len(exclude) == 0 {
			return ""
		}
		return exclude[0]
	}
	for _, tt := range globTests {
		f.Add(tt.pattern, first(tt.exclude))
	}
	for _, tt := range badGlobTests {
		f.Add(tt.pattern, first(tt.exclude))
	}
	for _, tt := range hostileGlobTests {
		f.Add(tt.pattern, first(tt.exclude))
	}
	f.Add("**/**/**/**/*.yaml", "")
	fsys := globTree()
	f.Fuzz(func(t *testing.T, pattern, exclude string) {
		got, skipped, err := Glob(t.Context(), fsys, pattern, exclude)
		// A "dir/**" pattern takes a walk of its own: doublestar's must
		// select the same files and skip the same entries.
		slow, sskipped, serr := glob(t.Context(), fsys, pattern, []string{exclude}, maxGlobWork, true)
		if !slices.Equal(got, slow) || !slices.Equal(skipped, sskipped) || fmt.Sprint(err) != fmt.Sprint(serr) {
			t.Fatalf("Glob(%q, %q) = %q, %v, %v; with doublestar, %q, %v, %v", pattern, exclude, got, skipped, err, slow, sskipped, serr)
		}
		if err != nil {
			if !errors.Is(err, doublestar.ErrBadPattern) && !errors.Is(err, ErrTooLarge) {
				t.Fatalf("Glob(%q, %q) error %v wraps neither ErrBadPattern nor ErrTooLarge", pattern, exclude, err)
			}
			if got != nil || skipped != nil {
				t.Fatalf("Glob(%q, %q) = %q, %v with error %v", pattern, exclude, got, skipped, err)
			}
			return
		}
		for i, name := range got {
			if i > 0 && got[i-1] >= name {
				t.Fatalf("Glob(%q, %q) = %q is not sorted and unique", pattern, exclude, got)
			}
			// Every result is a regular file reached without symlinks.
			for q := name; q != "."; q = path.Dir(q) {
				info, err := fs.Lstat(fsys, q)
				if err != nil || info.Mode()&fs.ModeSymlink != 0 || q != name && !info.IsDir() || q == name && !info.Mode().IsRegular() {
					t.Fatalf("Glob(%q, %q) returned %q through %q", pattern, exclude, name, q)
				}
			}
		}
		for i, s := range skipped {
			if i > 0 && skipped[i-1].Path >= s.Path {
				t.Fatalf("Glob(%q, %q) skipped %v, not sorted and unique", pattern, exclude, skipped)
			}
			// Every entry skipped is a link or an irregular file, of the
			// type reported, reached without symlinks.
			for q := s.Path; q != "."; q = path.Dir(q) {
				info, err := fs.Lstat(fsys, q)
				if err != nil || q != s.Path && (info.Mode()&fs.ModeSymlink != 0 || !info.IsDir()) ||
					q == s.Path && (info.Mode().Type() != s.Mode || s.Mode == 0 || s.Mode == fs.ModeDir) {
					t.Fatalf("Glob(%q, %q) skipped %v through %q", pattern, exclude, s, q)
				}
			}
		}
	})
}
