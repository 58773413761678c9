package pathpattern

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/google/go-cmp/cmp"
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

func TestGlob(t *testing.T) {
	t.Parallel()
	all := []string{
		manifests + "/README.md",
		manifests + "/deploy.yaml",
		manifests + "/sub/cm.yaml",
		manifests + "/sub/notes.md",
		manifests + "/svc.yaml",
		manifests + "/testdata/x.yaml",
	}
	tests := []struct {
		name    string
		pattern string
		exclude []string
		want    []string
	}{
		{name: "double star is recursive", pattern: manifests + "/**", want: all},
		{name: "star takes directories whole", pattern: manifests + "/*", want: all},
		{name: "literal directory", pattern: manifests, want: all},
		{name: "literal file", pattern: "tenants/a/modules/app/inputs", want: []string{"tenants/a/modules/app/inputs"}},
		{name: "extension", pattern: manifests + "/*.yaml", want: []string{manifests + "/deploy.yaml", manifests + "/svc.yaml"}},
		{name: "double star in the middle", pattern: "tenants/**/deploy.yaml", want: []string{manifests + "/deploy.yaml", "tenants/b/modules/app/manifests/deploy.yaml"}},
		{name: "star segments", pattern: "tenants/*/modules/*/manifests/*.yaml", want: []string{manifests + "/deploy.yaml", manifests + "/svc.yaml", "tenants/b/modules/app/manifests/deploy.yaml"}},
		{name: "alternatives", pattern: manifests + "/{deploy,svc}.yaml", want: []string{manifests + "/deploy.yaml", manifests + "/svc.yaml"}},
		{name: "overlapping alternatives", pattern: manifests + "/{*,deploy.yaml}", want: all},
		{name: "alternatives with slashes", pattern: "tenants/{a/modules/app/inputs,b/**}", want: []string{"tenants/a/modules/app/inputs", "tenants/b/modules/app/manifests/deploy.yaml"}},
		{name: "escaped meta", pattern: `weird/a\*b/file`, want: []string{"weird/a*b/file"}},
		{name: "escaped meta with glob", pattern: `weird/a\*b/*`, want: []string{"weird/a*b/file"}},
		{name: "no match", pattern: "missing/**"},
		{name: "empty directory", pattern: "tenants/a/modules/db/manifests/**"},
		{name: "symlinked file", pattern: manifests + "/link.yaml"},
		{name: "symlinked directory", pattern: manifests + "/linkdir/**"},
		{name: "symlinked directory in a wildcard", pattern: "tenants/*/modules/app/inputs", want: []string{"tenants/a/modules/app/inputs"}},
		{name: "symlinked prefix", pattern: "tenants/c/modules/**"},
		{name: "symlinked prefix in alternatives", pattern: "tenants/{c,x}/modules/**"},
		{name: "file as a directory", pattern: "tenants/a/modules/app/inputs/*"},

		{name: "exclude base name at any depth", pattern: manifests + "/**", exclude: []string{"*.md"},
			want: []string{manifests + "/deploy.yaml", manifests + "/sub/cm.yaml", manifests + "/svc.yaml", manifests + "/testdata/x.yaml"}},
		{name: "exclude directory whole", pattern: manifests + "/**", exclude: []string{"testdata"},
			want: []string{manifests + "/README.md", manifests + "/deploy.yaml", manifests + "/sub/cm.yaml", manifests + "/sub/notes.md", manifests + "/svc.yaml"}},
		{name: "exclude directory whole with star", pattern: manifests + "/*", exclude: []string{"sub"},
			want: []string{manifests + "/README.md", manifests + "/deploy.yaml", manifests + "/svc.yaml", manifests + "/testdata/x.yaml"}},
		{name: "exclude relative to prefix", pattern: manifests + "/**", exclude: []string{"sub/*.yaml", "testdata/**"},
			want: []string{manifests + "/README.md", manifests + "/deploy.yaml", manifests + "/sub/notes.md", manifests + "/svc.yaml"}},
		{name: "exclude relative to root", pattern: "tenants/*/modules/app/manifests/*.yaml", exclude: []string{"tenants/b/**"},
			want: []string{manifests + "/deploy.yaml", manifests + "/svc.yaml"}},
		{name: "exclude inside a taken directory", pattern: manifests, exclude: []string{"notes.md", "sub/cm.yaml"},
			want: []string{manifests + "/README.md", manifests + "/deploy.yaml", manifests + "/svc.yaml", manifests + "/testdata/x.yaml"}},
		{name: "exclude a literal file", pattern: "tenants/a/modules/app/inputs", exclude: []string{"inputs"}},
		{name: "exclude with alternatives", pattern: manifests + "/*", exclude: []string{"{sub,testdata}"},
			want: []string{manifests + "/README.md", manifests + "/deploy.yaml", manifests + "/svc.yaml"}},
	}
	fsys := globTree()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := Glob(fsys, tt.pattern, tt.exclude...)
			if err != nil {
				t.Fatalf("Glob(%q): %v", tt.pattern, err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Glob(%q, %q) (-want +got):\n%s", tt.pattern, tt.exclude, diff)
			}
		})
	}
}

func TestGlobBadPattern(t *testing.T) {
	t.Parallel()
	tests := []struct {
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
		{name: "too long", pattern: strings.Repeat("a", MaxLength+1)},
		{name: "bad exclude", pattern: "a/**", exclude: []string{"ok", "["}},
		{name: "exclude with too many alternatives", pattern: "a/**", exclude: []string{"{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := Glob(globTree(), tt.pattern, tt.exclude...)
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
	got, err := Glob(fsys, "{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}")
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
			got, ok := expandBraces(tt.pattern, MaxAlternatives)
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
	fsys := os.DirFS(root)
	for _, tt := range []struct {
		name    string
		pattern string
		want    []string
	}{
		{name: "double star", pattern: "**", want: []string{"manifests/deploy.yaml", "manifests/sub/cm.yaml"}},
		{name: "directory", pattern: "manifests", want: []string{"manifests/deploy.yaml", "manifests/sub/cm.yaml"}},
		{name: "star", pattern: "manifests/*", want: []string{"manifests/deploy.yaml", "manifests/sub/cm.yaml"}},
		{name: "through a link", pattern: "escape/**"},
		{name: "through a link in alternatives", pattern: "{escape,x}/**"},
		{name: "through a link after a star", pattern: "*/escape/**"},
		{name: "link to a file", pattern: "manifests/secret.yaml"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := Glob(fsys, tt.pattern)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Glob(%q) (-want +got):\n%s", tt.pattern, diff)
			}
		})
	}
}

func TestGlobIOError(t *testing.T) {
	t.Parallel()
	fsys := &recordFS{
		MapFS: fstest.MapFS{"a/b/c": file(""), "a/d/e": file("")},
		fail:  map[string]error{"a/b": fs.ErrPermission},
	}
	got, err := Glob(fsys, "a/**")
	if !errors.Is(err, fs.ErrPermission) || got != nil {
		t.Errorf("Glob = %q, %v, want an error wrapping fs.ErrPermission", got, err)
	}
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
	f.Add(manifests+"/**", "*.md")
	f.Add("tenants/{a,c}/modules/*/manifests/*", "sub")
	f.Add("{a,b}{a,b}{a,b}", "[")
	f.Add(`weird/a\*b/*`, "")
	f.Add("tenants/c/**", "")
	fsys := globTree()
	f.Fuzz(func(t *testing.T, pattern, exclude string) {
		got, err := Glob(fsys, pattern, exclude)
		if err != nil {
			if !errors.Is(err, doublestar.ErrBadPattern) {
				t.Fatalf("Glob(%q, %q) error %v does not wrap ErrBadPattern", pattern, exclude, err)
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
	})
}
