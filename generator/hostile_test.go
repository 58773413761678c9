package generator

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	"github.com/tenantkit/tenantkit/internal/hostile"
	"github.com/tenantkit/tenantkit/inventory"
)

// billionLaughs is the classic exponential alias document, nine levels of
// nine, under the given mapping key.
func billionLaughs(key string) string {
	return "a: &a [x,x,x,x,x,x,x,x,x]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\n" +
		"d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]\nf: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]\n" +
		"g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]\nh: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]\ni: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h]\n" +
		key + ": *i\n"
}

func deepFlow(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }

// knownIssue skips a case that documents a finding not fixed yet.
func knownIssue(t *testing.T, finding string) {
	t.Helper()
	t.Skip("known issue: " + finding)
}

func TestHostileParseInputs(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name  string
		data  string
		errs  string
		want  int // inputs, when there is no error
		known string
	}{
		{name: "a list", data: "- a\n- b\n", errs: "must be a YAML mapping of input names to values, not a list"},
		{name: "a string", data: "hello\n", errs: "not a string"},
		{name: "a number", data: "42\n", errs: "not a number"},
		{name: "null", data: "null\n", errs: "not null"},
		{name: "billion laughs", data: billionLaughs("x"), errs: "YAML aliases must expand"},
		{name: "nested 10,001 deep", data: "x: " + deepFlow(10001), errs: "exceeded max depth"},
		{name: "nested 5,000 deep", data: "x: " + deepFlow(5000), want: 1},
		{name: "duplicate key", data: "replicas: 1\nreplicas: 2\n", errs: `"replicas" already set`},
		{name: "duplicate key after a separator", data: "# inputs\n---\nreplicas: 1\nreplicas: 2\n", errs: `line 4: key "replicas" already set`},
		{name: "two documents", data: "a: 1\n---\nb: 2\n", errs: "must hold one YAML document"},
		{name: "two documents, the second a list", data: "a: 1\n---\n- b\n", errs: "must hold one YAML document"},
		{name: "two documents split by an end marker", data: "a: 1\n...\nb: 2\n", errs: `must not hold a second YAML document after a "..." end marker`},
		{name: "invalid document separator", data: "a: 1\n--- b: 2\n", errs: "invalid Yaml document separator"},
		{name: "comments only", data: "# nothing\n\n# still nothing\n", want: 0},
		{name: "separators and comments only", data: "---\n# nothing\n---\n", want: 0},
		{name: "empty", data: "", want: 0},
		{name: "raw NUL byte", data: "a: \"x\x00\"\n", errs: "control characters are not allowed"},
		{name: "invalid UTF-8", data: "a: x\xff\n", errs: "invalid"},
		{name: "Kelvin sign key next to k", data: "k: 1\n\u212a: 2\n", want: 2},
		{name: "number too large for JSON", data: "a: 1e400\n", errs: ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			hostile.NoPanic(t, func() {
				got, _, err := parseInputs([]byte(tt.data))
				if tt.known != "" && err == nil {
					knownIssue(t, tt.known)
				}
				if tt.name == "number too large for JSON" {
					// Either refused or kept as valid JSON; never invalid JSON.
					for _, v := range got {
						if !json.Valid(v) {
							t.Errorf("input %s is not valid JSON", v)
						}
					}
					return
				}
				if tt.known != "" && err != nil && tt.errs == "" {
					knownIssue(t, tt.known)
				}
				if tt.errs == "" {
					if err != nil || got == nil || len(got) != tt.want {
						t.Fatalf("parseInputs() = %v, %v; want %d inputs", got, err, tt.want)
					}
					return
				}
				if got != nil || err == nil || !strings.Contains(err.Error(), tt.errs) {
					t.Fatalf("parseInputs() = %v, %.300v; want an error containing %q", got, err, tt.errs)
				}
			})
		})
	}
}

// TestParseInputsLongJSONLine checks the case as a tenant meets it: a JSON
// inputs file of exactly 4,096 bytes on one line, without a final newline.
func TestParseInputsLongJSONLine(t *testing.T) {
	prefix, suffix := `{"image":"`, `"}`
	value := strings.Repeat("v", 4096-len(prefix)-len(suffix))
	data := prefix + value + suffix
	if len(data) != 4096 {
		t.Fatalf("test data is %d bytes", len(data))
	}
	got, _, err := parseInputs([]byte(data))
	if err != nil {
		t.Fatal(err)
	}
	want, _ := json.Marshal(value)
	if len(got) != 1 || !bytes.Equal(got["image"], want) {
		t.Fatalf("got %d inputs, want image=%d-byte string", len(got), len(value))
	}
}

// TestUnreadableDirectory: a symbolic link or a file where the pattern
// needs a directory is an error naming it, never a tenant that went away:
// the plan deletes nothing, every stale object kept for that reason, and
// the valid tenants are applied.
func TestUnreadableDirectory(t *testing.T) {
	t.Parallel()
	link := &fstest.MapFile{Data: []byte("tenant-a"), Mode: fs.ModeSymlink | 0o777}
	kept := func(subjects ...string) []string {
		var out []string
		for _, s := range subjects {
			out = append(out, s+" kept (desired state has errors)")
		}
		return out
	}
	previous := []inventory.Entry{
		nsEntry("tenant-a"), artEntry("tenant-a", "app"),
		nsEntry("tenant-b"), artEntry("tenant-b", "app"), artEntry("tenant-b", "web"),
		nsEntry("tenant-c"), artEntry("tenant-c", "app"),
	}
	for _, tt := range []struct {
		name    string
		pattern string
		files   []string
		change  func(fstest.MapFS)
		err     string   // the error's value, the path
		want    []string // the decisions but those of desired objects
	}{
		{name: "tenant directory", change: func(f fstest.MapFS) {
			for name := range f {
				if strings.HasPrefix(name, "tenants/tenant-b/") {
					delete(f, name)
				}
			}
			f["tenants/tenant-b"] = link
		}, err: "tenants/tenant-b", want: kept("ExternalArtifact/tenant-c/app", "ExternalArtifact/tenant-b/web",
			"ExternalArtifact/tenant-b/app", "Namespace/tenant-c", "Namespace/tenant-b")},
		{name: "module directory", change: func(f fstest.MapFS) {
			delete(f, "tenants/tenant-b/modules/web/manifests/deploy.yaml")
			f["tenants/tenant-b/modules/web"] = link
		}, err: "tenants/tenant-b/modules/web", want: kept("ExternalArtifact/tenant-c/app", "ExternalArtifact/tenant-b/web",
			"Namespace/tenant-c")},
		{name: "modules directory a file", change: func(f fstest.MapFS) {
			delete(f, "tenants/tenant-b/modules/app/manifests/deploy.yaml")
			delete(f, "tenants/tenant-b/modules/web/manifests/deploy.yaml")
			f["tenants/tenant-b/modules"] = &fstest.MapFile{Data: []byte("x")}
		}, err: "tenants/tenant-b/modules", want: kept("ExternalArtifact/tenant-c/app", "ExternalArtifact/tenant-b/web",
			"ExternalArtifact/tenant-b/app", "Namespace/tenant-c", "Namespace/tenant-b")},
		{
			name:    "namespace captured below the link",
			pattern: "@repo/modules/{module}/tenants/{namespace}",
			change:  func(f fstest.MapFS) { f["modules/web"] = link },
			err:     "modules/web", want: kept("ExternalArtifact/tenant-c/app", "ExternalArtifact/tenant-b/web",
				"ExternalArtifact/tenant-b/app", "Namespace/tenant-c", "Namespace/tenant-b"),
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			spec := testSpec()
			fsys := tree("tenants/tenant-a/modules/app", "tenants/tenant-b/modules/app", "tenants/tenant-b/modules/web")
			if tt.pattern != "" {
				spec.PathPattern = tt.pattern
				spec.Artifacts[0].InputsFrom = ""
				spec.Artifacts[0].Copy = []CopyOperation{{From: "@repo/modules/{module}/tenants/{namespace}/**", To: "@artifact/"}}
				spec.ManagedNamespaces.Metadata = nil
				fsys = tree("modules/app/tenants/tenant-a/deploy.yaml=kind: A\n")
			}
			tt.change(fsys)
			c := (&fakeCluster{}).live(previous, map[string]string{GeneratorLabel: testUID}, nil)
			p := mustPlan(t, mustCompile(t, spec), sources(fsys), previous, c.cluster())
			var got []string
			for _, d := range p.Decisions {
				if d.Action != inventory.Create && d.Action != inventory.Update && d.Action != inventory.Unchanged {
					got = append(got, d.String())
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("decisions (-want +got):\n%s", diff)
			}
			if !slices.ContainsFunc(p.Artifacts, func(a Artifact) bool { return a.Namespace == "tenant-a" && a.Name == "app" }) {
				t.Errorf("the valid tenant's artifact is not applied: %v", p.Artifacts)
			}
			if len(p.Errors) != 1 || p.Errors[0].Field != "spec.pathPattern" || p.Errors[0].BadValue != tt.err || !strings.HasPrefix(p.Errors[0].Detail, "must be a directory") {
				t.Errorf("errors %v, want one at spec.pathPattern naming %s", p.Errors.ToAggregate(), tt.err)
			}
		})
	}
}
