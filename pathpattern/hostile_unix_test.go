//go:build unix

package pathpattern

import (
	"errors"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/tenantkit/tenantkit/internal/hostile"
)

// hostileDiskTree builds, on the real file system, a tenant tree holding
// everything a tenant can commit or a checkout can contain that must not
// be matched, followed, opened or read: symlink loops, symlinks leaving
// the root, FIFOs (opening one blocks until a writer comes), unix sockets,
// files at and over the size limit, directory names with newlines and
// Unicode that lowercases onto ASCII. It returns the root.
func hostileDiskTree(t *testing.T) string {
	t.Helper()
	root, outside := t.TempDir(), t.TempDir()
	writeFiles(t, outside, "secret/modules/stolen/deploy.yaml")
	mkdirs(t, root,
		"tenants/team-a/modules/app/manifests",
		"tenants/Team-A/modules/app",
		"tenants/team\nb/modules/app",
		"tenants/team-\u212a/modules/app",
		"tenants/\u0130stanbul/modules/app",
		"tenants/team-c/modules",
		"tenants/team-h",
	)
	writeFiles(t, root, "tenants/team-a/modules/app/manifests/deploy.yaml")
	exact := strings.Repeat("x", defaultMaxFileSize)
	for name, data := range map[string]string{"tenants/team-a/exact.yaml": exact, "tenants/team-a/over.yaml": exact + "x"} {
		if err := os.WriteFile(filepath.Join(root, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	rel, err := filepath.Rel(filepath.Join(root, "tenants"), filepath.Join(outside, "secret"))
	if err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{
		"tenants/loop":                "loop",
		"tenants/cycle":               "..",
		"tenants/escape":              filepath.Join(outside, "secret"),
		"tenants/escape-rel":          rel,
		"tenants/team-c/modules/link": "../../team-a/modules/app",
		"tenants/team-g":              "team-a",
		"tenants/team-a/modules/app/manifests/passwd":  "/etc/passwd",
		"tenants/team-a/modules/app/manifests/cycle":   "../manifests",
		"tenants/team-a/modules/app/manifests/dangles": "missing",
		"tenants/team-a/link.yaml":                     "exact.yaml",
	} {
		if err := os.Symlink(target, filepath.Join(root, link)); err != nil {
			t.Fatal(err)
		}
	}
	for _, fifo := range []string{
		"tenants/fifo",
		"tenants/team-h/modules", // a literal segment
		"tenants/team-a/modules/app/manifests/pipe.yaml",
		"tenants/team-a/fifo.yaml",
	} {
		if err := syscall.Mkfifo(filepath.Join(root, fifo), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, sock := range []string{"tenants/sock", "tenants/team-a/modules/app/manifests/s.yaml"} {
		path := filepath.Join(root, sock)
		if len(path) >= 104 { // sun_path is 104 bytes on the BSDs, 108 on Linux
			t.Logf("skipping socket %s: path too long", sock)
			continue
		}
		l, err := net.Listen("unix", path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { l.Close() })
	}
	return root
}

// within runs f and fails the test if it does not return in time: a call
// that opens a FIFO blocks for ever.
func within(t *testing.T, d time.Duration, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		hostile.NoPanic(t, f)
	}()
	select {
	case <-done:
	case <-time.After(d):
		t.Fatalf("still running after %v: blocked on a FIFO or a loop?", d)
	}
}

func TestHostileOnDisk(t *testing.T) {
	t.Parallel()
	root := hostileDiskTree(t)
	for _, fsys := range []struct {
		name string
		fsys fs.FS
	}{
		{name: "DirFS", fsys: os.DirFS(root)},
		{name: "Root.FS", fsys: mustRoot(t, root)},
	} {
		t.Run(fsys.name, func(t *testing.T) {
			t.Parallel()
			t.Run("Discover", func(t *testing.T) {
				t.Parallel()
				within(t, 30*time.Second, func() { checkHostileDiscover(t, fsys.fsys) })
			})
			t.Run("Glob", func(t *testing.T) {
				t.Parallel()
				within(t, 30*time.Second, func() { checkHostileGlob(t, fsys.fsys) })
			})
			t.Run("ReadFile", func(t *testing.T) {
				t.Parallel()
				within(t, 30*time.Second, func() { checkHostileReadFile(t, fsys.fsys) })
			})
		})
	}
}

func checkHostileDiscover(t *testing.T, fsys fs.FS) {
	ms, errs, err := MustParse("@repo/tenants/{namespace}/modules/{module}").Discover(fsys, field.NewPath("spec", "pathPattern"))
	if err != nil {
		t.Fatalf("Discover error = %v, want none", err)
	}
	var paths []string
	for _, m := range ms {
		paths = append(paths, m.Path)
	}
	// Every link and the FIFO where the pattern needs a directory is a
	// problem, never read or followed; the FIFO and the socket among the
	// tenants are no match.
	want := []string{
		"tenants/Team-A/modules/app",
		"tenants/cycle",
		"tenants/escape",
		"tenants/escape-rel",
		"tenants/loop",
		"tenants/team-a/modules/app",
		"tenants/team-c/modules/link",
		"tenants/team-g",
		"tenants/team-h/modules",
		"tenants/team-\u212a/modules/app",
		"tenants/\u0130stanbul/modules/app",
	}
	if diff := cmp.Diff(want, paths); diff != "" {
		t.Errorf("Discover (-want +got):\n%s", diff)
	}
	checkBad(t, errs, "spec.pathPattern", []wantBad{
		problemErr("tenants/cycle", ruleLink, "{namespace}"),
		problemErr("tenants/escape", ruleLink, "{namespace}"),
		problemErr("tenants/escape-rel", ruleLink, "{namespace}"),
		problemErr("tenants/loop", ruleLink, "{namespace}"),
		{Value: "team\nb", Dir: "tenants/team\nb/modules/app"},
		problemErr("tenants/team-c/modules/link", ruleLink, "{module}"),
		problemErr("tenants/team-g", ruleLink, "{namespace}"),
		problemErr("tenants/team-h/modules", rulePipe, "modules"),
	})
	// A fixed prefix through a symlink or a FIFO is not the shape the
	// pattern needs.
	for pattern, dir := range map[string]string{
		"@r/tenants/team-g/modules/{m}": "tenants/team-g",
		"@r/tenants/team-h/modules/{m}": "tenants/team-h/modules",
		"@r/tenants/escape/modules/{m}": "tenants/escape",
		"@r/tenants/cycle/tenants/{t}":  "tenants/cycle",
		"@r/tenants/fifo":               "tenants/fifo",
	} {
		ms, errs, err := MustParse(pattern).Discover(fsys, nil)
		var pe *fs.PathError
		if len(ms) != 0 || errs != nil || !errors.Is(err, ErrSourceShape) || !errors.As(err, &pe) || pe.Path != dir {
			t.Errorf("Discover(%q) = %v, %v, %v, want an error for %q wrapping ErrSourceShape", pattern, ms, errs, err, dir)
		}
	}
}

func checkHostileGlob(t *testing.T, fsys fs.FS) {
	const m = "tenants/team-a/modules/app/manifests/"
	// A socket exists only where its path was short enough to make.
	socketAt := func(p string) []Skipped {
		if _, err := fs.Lstat(fsys, p); err != nil {
			return nil
		}
		return []Skipped{{Path: p, Mode: fs.ModeSocket}}
	}
	want := []string{"tenants/team-a/exact.yaml", "tenants/team-a/modules/app/manifests/deploy.yaml", "tenants/team-a/over.yaml"}
	// Every link, FIFO and socket of the tree is left out, and listed.
	wantSkipped := slices.Concat(
		[]Skipped{linkAt("tenants/cycle"), linkAt("tenants/escape"), linkAt("tenants/escape-rel"), pipeAt("tenants/fifo"), linkAt("tenants/loop")},
		socketAt("tenants/sock"),
		[]Skipped{pipeAt("tenants/team-a/fifo.yaml"), linkAt("tenants/team-a/link.yaml"),
			linkAt(m + "cycle"), linkAt(m + "dangles"), linkAt(m + "passwd"), pipeAt(m + "pipe.yaml")},
		socketAt(m+"s.yaml"),
		[]Skipped{linkAt("tenants/team-c/modules/link"), linkAt("tenants/team-g"), pipeAt("tenants/team-h/modules")},
	)
	// "tenants/*/**" takes nothing from "tenants" itself: a file there is
	// no more taken than listed; a link there may be a directory.
	notInTenants := slices.DeleteFunc(slices.Clone(wantSkipped), func(s Skipped) bool {
		return s.Path == "tenants/fifo" || s.Path == "tenants/sock"
	})
	for pattern, wantSkipped := range map[string][]Skipped{
		"tenants/**": wantSkipped, "tenants": wantSkipped, "**": wantSkipped, "{tenants,tenants/team-a}/**": wantSkipped,
		"tenants/*/**": notInTenants,
	} {
		got, skipped, err := Glob(t.Context(), fsys, pattern)
		if err != nil {
			t.Errorf("Glob(%q): %v", pattern, err)
			continue
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("Glob(%q) files (-want +got):\n%s", pattern, diff)
		}
		if diff := cmp.Diff(wantSkipped, skipped); diff != "" {
			t.Errorf("Glob(%q) skipped (-want +got):\n%s", pattern, diff)
		}
	}
	for pattern, wantSkipped := range map[string][]Skipped{
		m + "pipe.yaml":                  {pipeAt(m + "pipe.yaml")},
		m + "s.yaml":                     socketAt(m + "s.yaml"),
		m + "passwd":                     {linkAt(m + "passwd")},
		m + "cycle/**":                   {linkAt(m + "cycle")},
		m + "p*":                         {linkAt(m + "passwd"), pipeAt(m + "pipe.yaml")},
		"tenants/escape/**":              {linkAt("tenants/escape")},
		"tenants/escape-rel/modules/*/*": {linkAt("tenants/escape-rel")},
		"tenants/loop/**":                {linkAt("tenants/loop")},
		"tenants/cycle/**":               {linkAt("tenants/cycle")},
		"tenants/team-h/modules/**":      nil, // a FIFO where a directory should be: no file there
		"tenants/fifo":                   {pipeAt("tenants/fifo")},
	} {
		if got, skipped, err := Glob(t.Context(), fsys, pattern); got != nil || err != nil || !slices.Equal(skipped, wantSkipped) {
			t.Errorf("Glob(%q) = %q, %v, %v, want nothing but %v skipped", pattern, got, skipped, err, wantSkipped)
		}
	}
	// A NUL byte cannot reach the operating system: the error says so.
	if got, _, err := Glob(t.Context(), fsys, "tenants/a\x00b/*"); got != nil || err == nil {
		t.Errorf("Glob(NUL) = %q, %v, want an error", got, err)
	}
}

func checkHostileReadFile(t *testing.T, fsys fs.FS) {
	for _, tt := range []struct {
		file string
		want int
		err  error
		path string
	}{
		{file: "tenants/team-a/exact.yaml", want: defaultMaxFileSize},
		{file: "tenants/team-a/over.yaml", err: ErrTooLarge, path: "tenants/team-a/over.yaml"},
		{file: "tenants/team-a/fifo.yaml", err: ErrNotRegular, path: "tenants/team-a/fifo.yaml"},
		{file: "tenants/team-a/modules/app/manifests/pipe.yaml", err: ErrNotRegular, path: "tenants/team-a/modules/app/manifests/pipe.yaml"},
		{file: "tenants/team-h/modules", err: ErrNotRegular, path: "tenants/team-h/modules"},
		{file: "tenants/team-h/modules/x", err: fs.ErrNotExist, path: "tenants/team-h/modules"},
		{file: "tenants/sock", err: ErrNotRegular, path: "tenants/sock"},
		{file: "tenants/team-a/link.yaml", err: ErrNotRegular, path: "tenants/team-a/link.yaml"},
		{file: "tenants/team-a/modules/app/manifests/passwd", err: ErrNotRegular, path: "tenants/team-a/modules/app/manifests/passwd"},
		{file: "tenants/team-a/modules/app/manifests/cycle/deploy.yaml", err: ErrNotRegular, path: "tenants/team-a/modules/app/manifests/cycle"},
		{file: "tenants/team-a/modules/app/manifests/dangles", err: ErrNotRegular, path: "tenants/team-a/modules/app/manifests/dangles"},
		{file: "tenants/escape/modules/stolen/deploy.yaml", err: ErrNotRegular, path: "tenants/escape"},
		{file: "tenants/escape-rel/modules/stolen/deploy.yaml", err: ErrNotRegular, path: "tenants/escape-rel"},
		{file: "tenants/loop/x", err: ErrNotRegular, path: "tenants/loop"},
		{file: "tenants/cycle/tenants/team-a/exact.yaml", err: ErrNotRegular, path: "tenants/cycle"},
		{file: "tenants/team-g/exact.yaml", err: ErrNotRegular, path: "tenants/team-g"},
		{file: "tenants/team-a", err: ErrNotRegular, path: "tenants/team-a"},
	} {
		got, err := ReadFile(fsys, tt.file, 0)
		if tt.err == nil {
			if err != nil || len(got) != tt.want {
				t.Errorf("ReadFile(%q) = %d bytes, %v, want %d bytes", tt.file, len(got), err, tt.want)
			}
			continue
		}
		var pe *fs.PathError
		if got != nil || !errors.Is(err, tt.err) || !errors.As(err, &pe) || pe.Path != tt.path {
			t.Errorf("ReadFile(%q) = %d bytes, %v, want a *fs.PathError for %q wrapping %v", tt.file, len(got), err, tt.path, tt.err)
		}
	}
	if got, err := ReadFile(fsys, "tenants/a\x00b", 0); got != nil || err == nil {
		t.Errorf("ReadFile(NUL) = %q, %v, want an error", got, err)
	}
}
