package pathpattern

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/api/validate/content"
)

// dir and file build fstest.MapFS entries.
func dir() *fstest.MapFile { return &fstest.MapFile{Mode: fs.ModeDir | 0o755} }

func file(data string) *fstest.MapFile { return &fstest.MapFile{Data: []byte(data), Mode: 0o644} }

func symlink(target string) *fstest.MapFile {
	return &fstest.MapFile{Data: []byte(target), Mode: fs.ModeSymlink | 0o777}
}

// tenantTree is a monorepo with the cases discovery must handle.
func tenantTree() fstest.MapFS {
	return fstest.MapFS{
		"tenants/team-a/modules/app/manifests/deploy.yaml": file("kind: Deployment"),
		"tenants/team-a/modules/db":                        dir(),
		"tenants/team-a/namespace-metadata.yaml":           file("kind: NamespaceMetadata"),
		"tenants/Team-B/modules/App":                       dir(),
		"tenants/.hidden/modules/x":                        dir(),
		"tenants/team-c/modules/file.txt":                  file("not a directory"),
		"tenants/team-c/modules/link":                      symlink("../../team-a/modules/app"),
		"tenants/team-d":                                   symlink("team-a"),
		"tenants/team-e/modules":                           symlink("../team-a/modules"),
		"tenants/bad name/modules/ok":                      dir(),
		"tenants/team-f/modules/Bad_":                      dir(),
		"tenants/team-g":                                   dir(),
		"tenants/file.yaml":                                file(""),
		"other/tenants/x/modules/y":                        dir(),
	}
}

func match(path string, raw ...string) Match {
	m := Match{Path: path, Raw: Captures{}, Normalized: Captures{}}
	for i := 0; i < len(raw); i += 2 {
		m.Raw[raw[i]] = raw[i+1]
		m.Normalized[raw[i]] = normalize(raw[i+1])
	}
	return m
}

func TestDiscover(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		pattern string
		want    []Match
		errs    []*DirError // compared on Path, Capture, Value and Terminal
	}{
		{
			name:    "tenants",
			pattern: "@repo/tenants/{namespace}/modules/{module}",
			want: []Match{
				match("tenants/Team-B/modules/App", "namespace", "Team-B", "module", "App"),
				match("tenants/team-a/modules/app", "namespace", "team-a", "module", "app"),
				match("tenants/team-a/modules/db", "namespace", "team-a", "module", "db"),
			},
			errs: []*DirError{
				{Path: "tenants/bad name/modules/ok", Capture: "namespace", Value: "bad name", Err: ErrInvalidValue},
				{Path: "tenants/team-f/modules/Bad_", Capture: "module", Value: "Bad_", Err: ErrInvalidValue},
			},
		},
		{
			name:    "literal leaf",
			pattern: "@repo/tenants/{namespace}/modules/app/manifests",
			want:    []Match{match("tenants/team-a/modules/app/manifests", "namespace", "team-a")},
		},
		{
			name:    "files never match",
			pattern: "@repo/tenants/{namespace}/namespace-metadata.yaml",
		},
		{
			name:    "literal pattern",
			pattern: "@repo/tenants/team-a",
			want:    []Match{match("tenants/team-a")},
		},
		{
			name:    "literal symlink",
			pattern: "@repo/tenants/team-d",
		},
		{
			name:    "dot captures",
			pattern: "@repo/tenants/.{x}/modules/{module}",
			want:    []Match{match("tenants/.hidden/modules/x", "x", "hidden", "module", "x")},
		},
		{
			name:    "nothing there",
			pattern: "@repo/missing/{a}",
		},
		{
			name:    "several captures per segment",
			pattern: "@repo/tenants/{team}-{letter}/modules/{module}",
			want: []Match{
				match("tenants/Team-B/modules/App", "team", "Team", "letter", "B", "module", "App"),
				match("tenants/team-a/modules/app", "team", "team", "letter", "a", "module", "app"),
				match("tenants/team-a/modules/db", "team", "team", "letter", "a", "module", "db"),
			},
			errs: []*DirError{
				{Path: "tenants/team-f/modules/Bad_", Capture: "module", Value: "Bad_", Err: ErrInvalidValue},
			},
		},
	}
	fsys := tenantTree()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := MustParse(tt.pattern).Discover(fsys)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Discover (-want +got):\n%s", diff)
			}
			checkDirErrors(t, err, tt.errs)
		})
	}
}

// checkDirErrors checks that err is a *DiscoverError with the directory
// errors want, or nil when want is empty.
func checkDirErrors(t *testing.T, err error, want []*DirError) {
	t.Helper()
	if len(want) == 0 {
		if err != nil {
			t.Fatalf("Discover error = %v, want nil", err)
		}
		return
	}
	var de *DiscoverError
	if !errors.As(err, &de) {
		t.Fatalf("Discover error = %v, want a *DiscoverError", err)
	}
	type dirErr struct {
		Path, Capture, Value string
		Terminal             bool
	}
	var gotErrs, wantErrs []dirErr
	for _, d := range de.Dirs {
		gotErrs = append(gotErrs, dirErr{d.Path, d.Capture, d.Value, d.Terminal()})
	}
	for _, d := range want {
		wantErrs = append(wantErrs, dirErr{d.Path, d.Capture, d.Value, errors.Is(d.Err, ErrInvalidValue)})
		if !errors.Is(err, d.Err) {
			t.Errorf("errors.Is(%v, %v) = false", err, d.Err)
		}
	}
	if diff := cmp.Diff(wantErrs, gotErrs); diff != "" {
		t.Errorf("directory errors (-want +got):\n%s", diff)
	}
	terminal := true
	for _, d := range wantErrs {
		terminal = terminal && d.Terminal
	}
	if de.Terminal() != terminal {
		t.Errorf("Terminal() = %v, want %v", de.Terminal(), terminal)
	}
	for _, d := range de.Dirs {
		if !strings.Contains(err.Error(), d.Path) {
			t.Errorf("error %q does not name directory %q", err, d.Path)
		}
	}
}

func TestDiscoverOrder(t *testing.T) {
	t.Parallel()
	// Depth-first order would put "a/x" before "a-c/y"; byte order does not.
	fsys := fstest.MapFS{"a/x": dir(), "a-c/y": dir(), "a.b/z": dir()}
	got, err := MustParse("@r/{p}/{q}").Discover(fsys)
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, m := range got {
		paths = append(paths, m.Path)
	}
	if diff := cmp.Diff([]string{"a-c/y", "a.b/z", "a/x"}, paths); diff != "" {
		t.Errorf("paths (-want +got):\n%s", diff)
	}
}

// recordFS records the operations made on a MapFS, and fails ReadDir and
// Lstat with fail[name] when set.
type recordFS struct {
	fstest.MapFS
	fail map[string]error
	mu   sync.Mutex
	ops  []string
}

func (r *recordFS) record(op, name string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.ops = append(r.ops, op+" "+name)
	return r.fail[name]
}

func (r *recordFS) Open(name string) (fs.File, error) {
	if err := r.record("open", name); err != nil {
		return nil, err
	}
	return r.MapFS.Open(name)
}

func (r *recordFS) ReadDir(name string) ([]fs.DirEntry, error) {
	if err := r.record("readdir", name); err != nil {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: err}
	}
	return r.MapFS.ReadDir(name)
}

func (r *recordFS) Lstat(name string) (fs.FileInfo, error) {
	if err := r.record("lstat", name); err != nil {
		return nil, &fs.PathError{Op: "lstat", Path: name, Err: err}
	}
	return r.MapFS.Lstat(name)
}

func (r *recordFS) ReadLink(name string) (string, error) {
	r.record("readlink", name)
	return r.MapFS.ReadLink(name)
}

func (r *recordFS) Stat(name string) (fs.FileInfo, error) {
	r.record("stat", name)
	return r.MapFS.Stat(name)
}

func TestDiscoverReadsOnlyWhatCanMatch(t *testing.T) {
	t.Parallel()
	fsys := &recordFS{MapFS: fstest.MapFS{
		"tenants/a/modules/m1/manifests/x.yaml": file(""),
		"tenants/a/modules/m2":                  dir(),
		"tenants/a/docs/deep/er/and/deeper":     dir(),
		"tenants/b/other":                       dir(),
		"tenants/c":                             symlink("a"),
		"unrelated/1/2/3":                       dir(),
		"unrelated/4/5/6":                       dir(),
	}}
	got, err := MustParse("@repo/tenants/{namespace}/modules/{module}").Discover(fsys)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 {
		t.Errorf("Discover found %d matches, want 2", len(got))
	}
	want := []string{
		"lstat tenants",
		"readdir tenants",
		"lstat tenants/a/modules",
		"readdir tenants/a/modules",
		"lstat tenants/b/modules",
	}
	if diff := cmp.Diff(want, fsys.ops); diff != "" {
		t.Errorf("operations (-want +got):\n%s", diff)
	}
}

func TestDiscoverIOErrors(t *testing.T) {
	t.Parallel()
	fsys := &recordFS{
		MapFS: fstest.MapFS{
			"tenants/a/modules/m": dir(),
			"tenants/b/modules/m": dir(),
			"tenants/c/modules/m": dir(),
			"tenants/D/modules/m": dir(),
			"tenants/E F/modules": dir(),
		},
		fail: map[string]error{
			"tenants/a/modules": fs.ErrPermission, // readdir fails
			"tenants/b/modules": fs.ErrNotExist,   // vanished: not an error
			"tenants/c/modules": errors.New("i/o error"),
		},
	}
	got, err := MustParse("@repo/tenants/{namespace}/modules/{module}").Discover(fsys)
	if diff := cmp.Diff([]Match{match("tenants/D/modules/m", "namespace", "D", "module", "m")}, got); diff != "" {
		t.Errorf("Discover (-want +got):\n%s", diff)
	}
	checkDirErrors(t, err, []*DirError{
		{Path: "tenants/a/modules", Err: fs.ErrPermission},
		{Path: "tenants/c/modules", Err: fsys.fail["tenants/c/modules"]},
	})
}

func TestDiscoverOnDisk(t *testing.T) {
	t.Parallel()
	outside := t.TempDir()
	mkdirs(t, outside, "modules/stolen", "secret/modules/stolen")
	root := t.TempDir()
	mkdirs(t, root, "tenants/team-a/modules/app", "tenants/team-b", "tenants/team-c/modules")
	for link, target := range map[string]string{
		"tenants/evil":                  filepath.Join(outside, "secret"), // capture segment
		"tenants/team-b/modules":        filepath.Join(outside, "modules"),
		"tenants/team-c/modules/inside": filepath.Join(root, "tenants/team-a/modules/app"),
		"tenants/team-a/modules/file":   filepath.Join(outside, "missing"),
	} {
		if err := os.Symlink(target, filepath.Join(root, link)); err != nil {
			t.Fatal(err)
		}
	}
	for _, tt := range []struct {
		name string
		fsys fs.FS
	}{
		{name: "DirFS", fsys: os.DirFS(root)},
		{name: "Sub", fsys: mustSub(t, os.DirFS(filepath.Dir(root)), filepath.Base(root))},
		{name: "Root.FS", fsys: mustRoot(t, root)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := MustParse("@repo/tenants/{namespace}/modules/{module}").Discover(tt.fsys)
			if err != nil {
				t.Fatal(err)
			}
			want := []Match{match("tenants/team-a/modules/app", "namespace", "team-a", "module", "app")}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("Discover (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDiscoverOnDiskPermissions(t *testing.T) {
	t.Parallel()
	if os.Geteuid() == 0 {
		t.Skip("permissions do not apply to root")
	}
	root := t.TempDir()
	mkdirs(t, root, "tenants/a/modules/m", "tenants/b/modules/m")
	locked := filepath.Join(root, "tenants/a/modules")
	if err := os.Chmod(locked, 0); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(locked, 0o755) })
	got, err := MustParse("@repo/tenants/{namespace}/modules/{module}").Discover(os.DirFS(root))
	if diff := cmp.Diff([]Match{match("tenants/b/modules/m", "namespace", "b", "module", "m")}, got); diff != "" {
		t.Errorf("Discover (-want +got):\n%s", diff)
	}
	checkDirErrors(t, err, []*DirError{{Path: "tenants/a/modules", Err: fs.ErrPermission}})
}

func mkdirs(t testing.TB, root string, dirs ...string) {
	t.Helper()
	for _, d := range dirs {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

func mustSub(t *testing.T, fsys fs.FS, dir string) fs.FS {
	t.Helper()
	sub, err := fs.Sub(fsys, dir)
	if err != nil {
		t.Fatal(err)
	}
	return sub
}

func mustRoot(t *testing.T, dir string) fs.FS {
	t.Helper()
	r, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r.FS()
}

func TestNormalize(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, in, want string
	}{
		{name: "lower", in: "team-a", want: "team-a"},
		{name: "upper", in: "Team-A_1", want: "team-a_1"},
		{name: "kelvin sign stays", in: "\u212aB", want: "\u212ab"},
		{name: "non-ascii upper stays", in: "ÉQUIPE", want: "Équipe"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := normalize(tt.in); got != tt.want {
				t.Errorf("normalize(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

// fstestTree returns a MapFS with the given directories.
func fstestTree(dirs ...string) fstest.MapFS {
	fsys := fstest.MapFS{}
	for _, d := range dirs {
		fsys[d] = dir()
	}
	return fsys
}

func TestLabelValueErrors(t *testing.T) {
	t.Parallel()
	for _, v := range []string{
		"", "a", "A", "0", "a-b", "a_b", "a.b", "a--b", "-a", "a-", "_a", "a_", ".a", "a.",
		"a b", "é", "aé", "a/b", "a:b", strings.Repeat("a", 63), strings.Repeat("a", 64),
		strings.Repeat("a", 62) + "-", "Team-A", "x\x00y",
	} {
		t.Run(v, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(content.IsLabelValue(v), labelValueErrors(v)); diff != "" {
				t.Errorf("labelValueErrors(%q) (-IsLabelValue +got):\n%s", v, diff)
			}
		})
	}
}
