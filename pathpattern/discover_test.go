package pathpattern

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/util/validation/field"
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
		"tenants/\u212Aube/modules/app":                    dir(), // Kelvin sign: lowercases to "kube"
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

// match returns the Match of path with the raw captures name, value, ...
func match(path string, raw ...string) Match {
	m := Match{Path: path, Raw: map[string]string{}, Normalized: map[string]string{}}
	for i := 0; i < len(raw); i += 2 {
		m.Raw[raw[i]] = raw[i+1]
		m.Normalized[raw[i]] = strings.ToLower(raw[i+1])
	}
	return m
}

// problemAt returns the Match of an entry at path that the pattern needs
// to be a directory and is not, with the raw captures on the way to it.
func problemAt(path, rule string, raw ...string) Match {
	m := match(path, raw...)
	m.Problem = rule
	return m
}

// The rules of problem entries.
const (
	ruleLink = "must be a directory, not a symbolic link"
	ruleFile = "must be a directory, not a file"
	rulePipe = "must be a directory, not a named pipe"
)

// wantBad is what a test expects of a field error of Discover: for a bad
// value, the normalized value and the directory; for a problem entry, its
// path (the value), the rule it breaks and the pattern's segment.
type wantBad struct{ Value, Dir, Rule, Segment string }

// problemErr is the wantBad of a problem entry.
func problemErr(path, rule, segment string) wantBad {
	return wantBad{Value: path, Rule: rule, Segment: segment}
}

func TestDiscover(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", 256)
	tests := []struct {
		name    string
		pattern string
		want    []Match
		bad     []wantBad
		shape   string // the directory of an error wrapping ErrSourceShape
	}{
		{
			name:    "tenants",
			pattern: "@repo/tenants/{namespace}/modules/{module}",
			want: []Match{
				match("tenants/Team-B/modules/App", "namespace", "Team-B", "module", "App"),
				match("tenants/team-a/modules/app", "namespace", "team-a", "module", "app"),
				match("tenants/team-a/modules/db", "namespace", "team-a", "module", "db"),
				// Links where the pattern needs a directory, at a capture
				// segment or a literal one, and a file among the
				// directories that a capture segment reads: the links are
				// problems, the file is no match.
				problemAt("tenants/team-c/modules/link", ruleLink, "namespace", "team-c", "module", "link"),
				problemAt("tenants/team-d", ruleLink, "namespace", "team-d"),
				problemAt("tenants/team-e/modules", ruleLink, "namespace", "team-e"),
				match("tenants/\u212Aube/modules/app", "namespace", "\u212Aube", "module", "app"),
			},
			bad: []wantBad{
				{Value: "bad name", Dir: "tenants/bad name/modules/ok"},
				problemErr("tenants/team-c/modules/link", ruleLink, "{module}"),
				problemErr("tenants/team-d", ruleLink, "{namespace}"),
				problemErr("tenants/team-e/modules", ruleLink, "modules"),
				{Value: "bad_", Dir: "tenants/team-f/modules/Bad_"},
			},
		},
		{
			name:    "literal leaf",
			pattern: "@repo/tenants/{namespace}/modules/app/manifests",
			want: []Match{
				match("tenants/team-a/modules/app/manifests", "namespace", "team-a"),
				problemAt("tenants/team-d", ruleLink, "namespace", "team-d"),
				problemAt("tenants/team-e/modules", ruleLink, "namespace", "team-e"),
			},
			bad: []wantBad{
				problemErr("tenants/team-d", ruleLink, "{namespace}"),
				problemErr("tenants/team-e/modules", ruleLink, "modules"),
			},
		},
		{
			name:    "files never match",
			pattern: "@repo/tenants/{namespace}/namespace-metadata.yaml",
			want: []Match{
				problemAt("tenants/team-a/namespace-metadata.yaml", ruleFile, "namespace", "team-a"),
				problemAt("tenants/team-d", ruleLink, "namespace", "team-d"),
			},
			bad: []wantBad{
				problemErr("tenants/team-a/namespace-metadata.yaml", ruleFile, "namespace-metadata.yaml"),
				problemErr("tenants/team-d", ruleLink, "{namespace}"),
			},
		},
		{
			name:    "literal below a capture missing in every tenant",
			pattern: "@repo/tenants/{namespace}/docs/{x}",
			want:    []Match{problemAt("tenants/team-d", ruleLink, "namespace", "team-d")},
			bad:     []wantBad{problemErr("tenants/team-d", ruleLink, "{namespace}")},
		},
		{
			name:    "capture over an empty directory",
			pattern: "@repo/tenants/team-g/{x}",
		},
		{
			name:    "literal pattern",
			pattern: "@repo/tenants/team-a",
			want:    []Match{match("tenants/team-a")},
		},
		{
			name:    "dot captures",
			pattern: "@repo/tenants/.{x}/modules/{module}",
			want:    []Match{match("tenants/.hidden/modules/x", "x", "hidden", "module", "x")},
		},
		{
			name:    "several captures per segment",
			pattern: "@repo/tenants/{team}-{letter}/modules/{module}",
			want: []Match{
				match("tenants/Team-B/modules/App", "team", "Team", "letter", "B", "module", "App"),
				match("tenants/team-a/modules/app", "team", "team", "letter", "a", "module", "app"),
				match("tenants/team-a/modules/db", "team", "team", "letter", "a", "module", "db"),
				problemAt("tenants/team-c/modules/link", ruleLink, "team", "team", "letter", "c", "module", "link"),
				problemAt("tenants/team-d", ruleLink, "team", "team", "letter", "d"),
				problemAt("tenants/team-e/modules", ruleLink, "team", "team", "letter", "e"),
			},
			bad: []wantBad{
				problemErr("tenants/team-c/modules/link", ruleLink, "{module}"),
				problemErr("tenants/team-d", ruleLink, "{team}-{letter}"),
				problemErr("tenants/team-e/modules", ruleLink, "modules"),
				{Value: "bad_", Dir: "tenants/team-f/modules/Bad_"},
			},
		},
		{
			name:    "literal over 255 bytes below a capture",
			pattern: "@repo/tenants/{namespace}/" + long,
			want:    []Match{problemAt("tenants/team-d", ruleLink, "namespace", "team-d")},
			bad:     []wantBad{problemErr("tenants/team-d", ruleLink, "{namespace}")},
		},
		{
			name:    "missing fixed prefix",
			pattern: "@repo/missing/{a}",
			shape:   "missing",
		},
		{
			name:    "missing second segment of the fixed prefix",
			pattern: "@repo/tenants/team-z/modules/{m}",
			shape:   "tenants/team-z",
		},
		{
			name:    "fixed prefix is a file",
			pattern: "@repo/tenants/file.yaml/{a}",
			shape:   "tenants/file.yaml",
		},
		{
			name:    "fixed prefix is a symbolic link",
			pattern: "@repo/tenants/team-d/modules/{m}",
			shape:   "tenants/team-d",
		},
		{
			name:    "literal pattern through a symbolic link",
			pattern: "@repo/tenants/team-d",
			shape:   "tenants/team-d",
		},
		{
			name:    "literal pattern missing",
			pattern: "@repo/tenants/team-z",
			shape:   "tenants/team-z",
		},
		{
			name:    "fixed prefix over 255 bytes",
			pattern: "@repo/" + long + "/{a}",
			shape:   long,
		},
	}
	fsys := tenantTree()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, errs, err := MustParse(tt.pattern).Discover(fsys, field.NewPath("spec", "pathPattern"))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Discover (-want +got):\n%s", diff)
			}
			checkShape(t, err, tt.shape)
			checkBad(t, errs, "spec.pathPattern", tt.bad)
		})
	}
}

// checkShape checks that err is nil when dir is empty, and otherwise an
// *fs.PathError for dir wrapping ErrSourceShape.
func checkShape(t *testing.T, err error, dir string) {
	t.Helper()
	if dir == "" {
		if err != nil {
			t.Fatalf("Discover error = %v, want nil", err)
		}
		return
	}
	var pe *fs.PathError
	if !errors.Is(err, ErrSourceShape) || !errors.As(err, &pe) || pe.Path != dir {
		t.Fatalf("Discover error = %v, want an *fs.PathError for %q wrapping ErrSourceShape", err, dir)
	}
}

// checkBad checks that errs holds, in order, one field.Invalid error on
// fldPath for each of want, naming its directory.
func checkBad(t *testing.T, errs field.ErrorList, fldPath string, want []wantBad) {
	t.Helper()
	var got []wantBad
	for _, e := range errs {
		if e.Type != field.ErrorTypeInvalid || e.Field != fldPath {
			t.Errorf("error %v: want an Invalid error on %s", e, fldPath)
		}
		v, _ := e.BadValue.(string)
		if rule, segment, ok := problemOf(e.Detail); ok {
			got = append(got, wantBad{Value: v, Rule: rule, Segment: segment})
			continue
		}
		got = append(got, wantBad{Value: v, Dir: dirOf(e.Detail)})
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("field errors (-want +got):\n%s\nall: %v", diff, errs)
	}
}

// problemOf returns the rule and the segment that the detail of a problem
// entry's error names.
func problemOf(detail string) (rule, segment string, ok bool) {
	rule, rest, ok := strings.Cut(detail, ", as the pattern's segment ")
	if !ok {
		return "", "", false
	}
	if _, err := fmt.Sscanf(rest, "%q", &segment); err != nil {
		return "", "", false
	}
	return rule, segment, true
}

// dirOf returns the directory that a detail of Discover names.
func dirOf(detail string) string {
	var dir string
	if _, err := fmt.Sscanf(detail, "directory %q", &dir); err != nil {
		return "unparsed: " + detail
	}
	return dir
}

func TestDiscoverRoot(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	mkdirs(t, tmp, "repo/tenants/a/modules/m")
	writeFiles(t, tmp, "file")
	if err := os.Symlink("repo", filepath.Join(tmp, "link")); err != nil {
		t.Fatal(err)
	}
	p := MustParse("@repo/tenants/{namespace}/modules/{module}")
	for _, tt := range []struct {
		name  string
		fsys  fs.FS
		want  []Match
		shape string
	}{
		{name: "directory", fsys: os.DirFS(filepath.Join(tmp, "repo")), want: []Match{match("tenants/a/modules/m", "namespace", "a", "module", "m")}},
		{name: "symbolic link to a directory", fsys: os.DirFS(filepath.Join(tmp, "link")), want: []Match{match("tenants/a/modules/m", "namespace", "a", "module", "m")}},
		{name: "missing", fsys: os.DirFS(filepath.Join(tmp, "missing")), shape: "."},
		{name: "file", fsys: os.DirFS(filepath.Join(tmp, "file")), shape: "."},
		{name: "empty", fsys: fstest.MapFS{}, shape: "tenants"},
		{name: "one level too deep", fsys: os.DirFS(filepath.Join(tmp, "repo", "tenants")), shape: "tenants"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, errs, err := p.Discover(tt.fsys, field.NewPath("spec", "pathPattern"))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Discover (-want +got):\n%s", diff)
			}
			checkShape(t, err, tt.shape)
			if errs != nil {
				t.Errorf("Discover field errors = %v, want none", errs)
			}
		})
	}
}

// TestDiscoverMovedPrefix is the repro of the generator issue: a source
// whose fixed prefix was moved and replaced by a symbolic link, on a real
// file system: "mv repo/tenants repo/tenants-v2; ln -s tenants-v2
// repo/tenants". Discover must fail, not find no tenant.
func TestDiscoverMovedPrefix(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	mkdirs(t, root, "tenants/team-a/modules/app")
	p := MustParse("@repo/tenants/{namespace}/modules/{module}")
	if got, _, err := p.Discover(os.DirFS(root), nil); err != nil || len(got) != 1 {
		t.Fatalf("Discover before the move = %v, %v, want one match", got, err)
	}
	if err := os.Rename(filepath.Join(root, "tenants"), filepath.Join(root, "tenants-v2")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("tenants-v2", filepath.Join(root, "tenants")); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		fsys fs.FS
	}{
		{name: "DirFS", fsys: os.DirFS(root)},
		{name: "Root.FS", fsys: mustRoot(t, root)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, errs, err := p.Discover(tt.fsys, nil)
			if got != nil || errs != nil {
				t.Errorf("Discover = %v, %v, want no result", got, errs)
			}
			checkShape(t, err, "tenants")
		})
	}
}

func TestDiscoverOrder(t *testing.T) {
	t.Parallel()
	// Depth-first order would put "a/x" before "a-c/y"; byte order does not.
	fsys := fstest.MapFS{"a/x": dir(), "a-c/y": dir(), "a.b/z": dir()}
	got, _, err := MustParse("@r/{p}/{q}").Discover(fsys, nil)
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
// Lstat with fail[name] when set (only the operation failOnly, when set).
type recordFS struct {
	fstest.MapFS
	fail     map[string]error
	failOnly string
	mu       sync.Mutex
	ops      []string
}

func (r *recordFS) record(op, name string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.ops = append(r.ops, op+" "+name)
	if r.failOnly != "" && op != r.failOnly {
		return nil
	}
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
	got, _, err := MustParse("@repo/tenants/{namespace}/modules/{module}").Discover(fsys, nil)
	if err != nil {
		t.Fatal(err)
	}
	// The link is a problem, neither read nor followed.
	if len(got) != 3 || got[2].Problem == "" {
		t.Errorf("Discover found %v, want 2 matches and a problem", got)
	}
	want := []string{
		"stat .",
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
	tree := fstest.MapFS{
		"tenants/a/modules/m": dir(),
		"tenants/b/modules/m": dir(),
		"tenants/c/modules/m": dir(),
	}
	eio := errors.New("i/o error")
	for _, tt := range []struct {
		name string
		fail map[string]error
		want []Match
		err  error  // the error Discover must wrap; nil for none
		path string // the path of its *fs.PathError
	}{
		{
			name: "directory below a capture unreadable",
			fail: map[string]error{"tenants/a/modules": fs.ErrPermission},
			err:  fs.ErrPermission, path: "tenants/a/modules",
		},
		{
			name: "fixed prefix unreadable",
			fail: map[string]error{"tenants": eio},
			err:  eio, path: "tenants",
		},
		{
			name: "fixed prefix vanished between its lookup and its read",
			fail: map[string]error{"tenants": fs.ErrNotExist},
			err:  fs.ErrNotExist, path: "tenants",
		},
		{
			name: "directory below a capture vanished",
			fail: map[string]error{"tenants/b/modules": fs.ErrNotExist},
			want: []Match{
				match("tenants/a/modules/m", "namespace", "a", "module", "m"),
				match("tenants/c/modules/m", "namespace", "c", "module", "m"),
			},
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			// The lookups of the prefix succeed; its read fails.
			fsys := &recordFS{MapFS: tree, fail: tt.fail, failOnly: "readdir"}
			got, errs, err := MustParse("@repo/tenants/{namespace}/modules/{module}").Discover(fsys, nil)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Discover (-want +got):\n%s", diff)
			}
			if errs != nil {
				t.Errorf("field errors = %v, want none", errs)
			}
			if tt.err == nil {
				if err != nil {
					t.Fatalf("Discover error = %v, want nil", err)
				}
				return
			}
			var pe *fs.PathError
			if !errors.Is(err, tt.err) || !errors.As(err, &pe) || pe.Path != tt.path || errors.Is(err, ErrSourceShape) {
				t.Fatalf("Discover error = %v, want an *fs.PathError for %q wrapping %v", err, tt.path, tt.err)
			}
		})
	}
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
	// A literal segment longer than a file name can be: the file system
	// refuses the lookup (ENAMETOOLONG), Discover does not ask.
	long := strings.Repeat("x", 256)
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
			got, errs, err := MustParse("@repo/tenants/{namespace}/modules/{module}").Discover(tt.fsys, field.NewPath("p"))
			if err != nil {
				t.Fatal(err)
			}
			// Every link is a problem, whether it points in, out or nowhere.
			want := []Match{
				problemAt("tenants/evil", ruleLink, "namespace", "evil"),
				match("tenants/team-a/modules/app", "namespace", "team-a", "module", "app"),
				problemAt("tenants/team-a/modules/file", ruleLink, "namespace", "team-a", "module", "file"),
				problemAt("tenants/team-b/modules", ruleLink, "namespace", "team-b"),
				problemAt("tenants/team-c/modules/inside", ruleLink, "namespace", "team-c", "module", "inside"),
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("Discover (-want +got):\n%s", diff)
			}
			checkBad(t, errs, "p", []wantBad{
				problemErr("tenants/evil", ruleLink, "{namespace}"),
				problemErr("tenants/team-a/modules/file", ruleLink, "{module}"),
				problemErr("tenants/team-b/modules", ruleLink, "modules"),
				problemErr("tenants/team-c/modules/inside", ruleLink, "{module}"),
			})
			got, errs, err = MustParse("@repo/tenants/{namespace}/"+long).Discover(tt.fsys, nil)
			if len(got) != 1 || got[0].Path != "tenants/evil" || len(errs) != 1 || err != nil {
				t.Errorf("Discover of a 256-byte literal = %v, %v, %v, want no match and the link tenants/evil", got, errs, err)
			}
			_, _, err = MustParse("@repo/"+long+"/{a}").Discover(tt.fsys, nil)
			checkShape(t, err, long)
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
	got, errs, err := MustParse("@repo/tenants/{namespace}/modules/{module}").Discover(os.DirFS(root), nil)
	var pe *fs.PathError
	if got != nil || errs != nil || !errors.Is(err, fs.ErrPermission) || !errors.As(err, &pe) || pe.Path != "tenants/a/modules" {
		t.Errorf("Discover = %v, %v, %v, want an error for tenants/a/modules wrapping fs.ErrPermission", got, errs, err)
	}
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
