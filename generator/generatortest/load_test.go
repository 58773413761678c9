package generatortest

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// header is a valid suite's start; the tests add cases to it.
const header = `apiVersion: tenantkit.dev/v1alpha1
kind: PlanTest
generator: ` + "../../../examples/plan/sample/generator.yaml" + `
source: ../../../examples/plan/sample/monorepo
`

// writeSuite writes a suite into a directory that stands where testdata
// does, so that its relative paths reach the sample.
func writeSuite(t testing.TB, content string) string {
	t.Helper()
	dir, err := os.MkdirTemp("testdata", "suite-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	// testdata/suite-x/../../../ is not the module root: go one level up.
	content = strings.ReplaceAll(content, "../../../examples", "../../../../examples")
	file := filepath.Join(dir, "suite.yaml")
	if err := os.WriteFile(file, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return file
}

func TestLoadSuiteBad(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		suite string
		want  string // in the error
	}{
		{name: "unknown key", suite: header + "cases:\n- name: a\n  expect: {noErrors: true}\n  extra: 1\n", want: `: cases[0].extra: unknown field`},
		{name: "unknown expectation", suite: header + "cases:\n- name: a\n  expect: {noError: true}\n", want: `: cases[0].expect.noError: unknown field`},
		{name: "unknown key of an entry", suite: header + "cases:\n- name: a\n  inventory: [{kind: Namespace, nmae: a}]\n  expect: {noErrors: true}\n", want: `: cases[0].inventory[0].nmae: unknown field`},
		{name: "unknown key in the cluster", suite: header + "cases:\n- name: a\n  cluster: {namespaces: [{name: a, label: {x: y}}]}\n  expect: {noErrors: true}\n", want: `: cases[0].cluster.namespaces[0].label: unknown field`},
		{name: "a key in another case", suite: header + "cases:\n- name: a\n  expect: {NoErrors: true}\n", want: `: cases[0].expect.NoErrors: unknown field`},
		{name: "wrong type", suite: header + "cases:\n- name: a\n  expect: {noErrors: \"yes\"}\n", want: `: cases[0].expect.noErrors: must be a boolean, found a string`},
		{name: "several, sorted", suite: header + "cases:\n- name: a\n  expect: {noErrors: 1, objcts: []}\n  option: {}\n", want: `: cases[0].expect.noErrors: must be a boolean, found a number; cases[0].expect.objcts: unknown field; cases[0].option: unknown field`},
		{name: "duplicate key", suite: header + "cases:\n- name: a\n  name: b\n  expect: {noErrors: true}\n", want: `"name" already set`},
		{name: "wrong kind", suite: strings.Replace(header, "PlanTest", "Test", 1) + "cases:\n- name: a\n  expect: {noErrors: true}\n", want: `apiVersion and kind must be`},
		{name: "no cases", suite: header, want: "cases: must hold at least one case"},
		{name: "unnamed case", suite: header + "cases:\n- expect: {noErrors: true}\n", want: "cases[0].name: must not be empty"},
		{name: "case twice", suite: header + "cases:\n- name: a\n  expect: {noErrors: true}\n- name: a\n  expect: {noErrors: true}\n", want: `cases[1].name: "a" appears twice`},
		{name: "bad object", suite: header + "cases:\n- name: a\n  expect: {objects: [{object: tenant-a}]}\n", want: "cases[0].expect.objects[0].object"},
		{name: "bad action", suite: header + "cases:\n- name: a\n  expect: {objects: [{object: Namespace/a, action: remove}]}\n", want: `: cases[0].expect.objects[0].action: "remove": must be one of create, update, unchanged, delete, release, keep, skip`},
		{name: "bad inventory", suite: header + "cases:\n- name: a\n  inventory: [{kind: Namespace}]\n  expect: {noErrors: true}\n", want: "cases[0].inventory[0]"},
		{name: "no generator", suite: strings.Replace(header, "generator: ", "# ", 1) + "cases:\n- name: a\n  expect: {noErrors: true}\n", want: "generator: must name"},
		{name: "missing generator", suite: strings.Replace(header, "generator.yaml", "nothing.yaml", 1) + "cases:\n- name: a\n  expect: {noErrors: true}\n", want: "nothing.yaml"},
		{name: "not YAML", suite: "[", want: ": must be valid YAML: line 1: did not find expected node content"},
		{name: "two documents", suite: header + "cases:\n- name: a\n  expect: {noErrors: true}\n---\n" + header, want: "the file must hold one YAML document, found 2"},
		{name: "misspelt namespace conflict", suite: header + "cases:\n- name: a\n  expect: {namespaces: [{name: a, conflict: NamespaceAdopted}]}\n", want: `cases[0].expect.namespaces[0].conflict: "NamespaceAdopted": must be Adopted, OwnershipConflict or "" (none)`},
		{name: "artifact adopted", suite: header + "cases:\n- name: a\n  expect: {artifacts: [{artifact: a/b, conflict: Adopted}]}\n", want: `cases[0].expect.artifacts[0].conflict: "Adopted": must be OwnershipConflict or "" (none)`},
		{name: "conflict not a string", suite: header + "cases:\n- name: a\n  expect: {namespaces: [{name: a, conflict: [x]}]}\n", want: "conflict"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := LoadSuite(writeSuite(t, tt.suite))
			if !errors.Is(err, ErrBadSuite) {
				t.Fatalf("LoadSuite = %v, want ErrBadSuite", err)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("LoadSuite = %v, want it to contain %q", err, tt.want)
			}
		})
	}
}

func TestLoadSuiteMissingFile(t *testing.T) {
	t.Parallel()
	if _, err := LoadSuite("testdata/none.yaml"); !errors.Is(err, ErrBadSuite) || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("LoadSuite = %v, want ErrBadSuite and ErrNotExist", err)
	}
}

// FuzzLoadSuite: no suite, however hostile, panics the loader or the run.
func FuzzLoadSuite(f *testing.F) {
	f.Add(header + "cases:\n- name: a\n  expect: {noErrors: true}\n")
	f.Add(header + "cases:\n- name: a\n  files: {x: y}\n  remove: [tenants]\n  expect: {objects: [{object: Namespace/a}]}\n")
	f.Add(header + "cases:\n- name: a\n  files: {../x: y}\n  expect: {noErrors: true}\n")
	f.Add(header + "cases:\n- name: a\n  cluster: {namespaces: [{name: tenant-search}]}\n  expect: {namespaces: [{name: tenant-search, conflict: Adopted}], artifacts: [{artifact: tenant-search/indexer, conflict: \"\"}]}\n")
	f.Add(header + "cases:\n- name: a\n  expect: {namespaces: [{name: a, conflict: Adopted}]}\n")
	f.Add("[")
	f.Fuzz(func(t *testing.T, suite string) {
		s, err := LoadSuite(writeSuite(t, suite))
		if err != nil {
			return
		}
		s.Run(t.Context(), Options{})
	})
}

func TestSourceLinkFails(t *testing.T) {
	t.Parallel()
	repo := t.TempDir()
	gen, err := filepath.Abs("../../examples/plan/sample/generator.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(repo, "tenants"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/etc", filepath.Join(repo, "tenants", "tenant-a")); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	suite := filepath.Join(t.TempDir(), "suite.yaml")
	content := "apiVersion: tenantkit.dev/v1alpha1\nkind: PlanTest\ngenerator: " + gen + "\nsource: " + repo +
		"\ncases:\n- name: link\n  expect: {noErrors: true}\n"
	if err := os.WriteFile(suite, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := LoadSuite(suite)
	if err != nil {
		t.Fatal(err)
	}
	got := s.Run(t.Context(), Options{}).Cases[0].Failures
	want := []Failure{{Where: "cases[0].source", Expected: "a readable source", Got: "source " + repo + ": tenants/tenant-a: must be a regular file or a directory"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("failures (-want +got):\n%s", diff)
	}
}

func TestOverlay(t *testing.T) {
	t.Parallel()
	base := map[string]string{"a/x": "1", "a/y": "2", "ab/z": "3", "b": "4"}
	tests := []struct {
		name   string
		remove []string
		files  map[string]string
		want   []string // path=content
		err    bool
	}{
		{name: "nothing", want: []string{"a/x=1", "a/y=2", "ab/z=3", "b=4"}},
		{name: "a directory, not its namesake prefix", remove: []string{"a/"}, want: []string{"ab/z=3", "b=4"}},
		{name: "a file, then one laid over", remove: []string{"b"}, files: map[string]string{"a/x": "9", "c/d": "5"}, want: []string{"a/x=9", "a/y=2", "ab/z=3", "c/d=5"}},
		{name: "a path out of the source", files: map[string]string{"../x": "1"}, err: true},
		{name: "an absolute path", files: map[string]string{"/x": "1"}, err: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			fsys, err := overlay(base, tt.remove, tt.files)
			if (err != nil) != tt.err {
				t.Fatalf("overlay: %v, want error %v", err, tt.err)
			}
			if err != nil {
				return
			}
			var got []string
			walkErr := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
				if err != nil || d.IsDir() {
					return err
				}
				data, err := fs.ReadFile(fsys, p)
				got = append(got, p+"="+string(data))
				return err
			})
			if walkErr != nil {
				t.Fatal(walkErr)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("files (-want +got):\n%s", diff)
			}
			if len(base) != 4 || base["a/x"] != "1" {
				t.Errorf("base modified: %v", base)
			}
		})
	}
}

// TestLoadSuiteKubectlExport: a suite's generator may be the
// ArtifactGenerator as kubectl prints it, alone or in a List, as the
// preview tool's -generator (issue 38, item 2): the server-set metadata and
// the status are ignored, and the cases plan as with the file as written.
func TestLoadSuiteKubectlExport(t *testing.T) {
	t.Parallel()
	export, err := os.ReadFile("../../examples/plan/testdata/kubectl-get.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var list strings.Builder
	list.WriteString("apiVersion: v1\nkind: List\nitems:\n")
	prefix := "- "
	for l := range strings.Lines(string(export)) {
		if !strings.HasPrefix(l, "#") {
			list.WriteString(prefix + l)
			prefix = "  "
		}
	}
	const cases = "cases:\n- name: a\n  expect:\n    noErrors: true\n    namespaces: [{name: tenant-search, labels: {source.extensions.fluxcd.io/generator: 6f1d0c2e-6a4b-4d6e-9d53-0b7f3c1e2a10}}]\n"
	for _, tt := range []struct{ name, generator string }{
		{"as kubectl prints it", string(export)},
		{"in a List", list.String()},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			file := writeSuite(t, strings.Replace(header, "../../../examples/plan/sample/generator.yaml", "generator.yaml", 1)+cases)
			if err := os.WriteFile(filepath.Join(filepath.Dir(file), "generator.yaml"), []byte(tt.generator), 0o644); err != nil {
				t.Fatal(err)
			}
			s, err := LoadSuite(file)
			if err != nil {
				t.Fatalf("LoadSuite = %v", err)
			}
			for _, c := range s.Run(context.Background(), Options{}).Cases {
				for _, f := range c.Failures {
					t.Errorf("%s: expected %s, got %s", f.Where, f.Expected, f.Got)
				}
			}
		})
	}
	t.Run("a bad generator names its field", func(t *testing.T) {
		t.Parallel()
		file := writeSuite(t, strings.Replace(header, "../../../examples/plan/sample/generator.yaml", "generator.yaml", 1)+cases)
		gen := filepath.Join(filepath.Dir(file), "generator.yaml")
		bad := strings.Replace(string(export), "    prune: true\n", "    prune: \"true\"\n", 1)
		if err := os.WriteFile(gen, []byte(bad), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := LoadSuite(file)
		want := file + ": generator " + gen + ": spec.managedNamespaces.prune: must be a boolean, found a string"
		if se, ok := errors.AsType[*SuiteError](err); !ok || se.Msg != want || !errors.Is(err, ErrBadSuite) {
			t.Errorf("LoadSuite = %v, want a *SuiteError wrapping ErrBadSuite with %q", err, want)
		}
	})
}
