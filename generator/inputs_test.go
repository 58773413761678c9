package generator

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// parseInputsTests are inputs files with the JSON object of their inputs,
// as sigs.k8s.io/yaml reads them (YAML 1.1: yes is true).
var parseInputsTests = []struct {
	name string
	data string
	want string
}{
	{
		name: "the sample's inputs",
		data: "replicas: 3\ndependsOn: []\nimage:\n  repository: ghcr.io/example/payments-api\n  tag: \"1.8.2\"\n",
		want: `{"dependsOn":[],"image":{"repository":"ghcr.io/example/payments-api","tag":"1.8.2"},"replicas":3}`,
	},
	{name: "a block sequence", data: "replicas: 2\ndependsOn:\n  - api\n", want: `{"dependsOn":["api"],"replicas":2}`},
	{
		name: "comments, YAML 1.1 booleans and null",
		data: "schedule: \"*/15 * * * *\" # every quarter\nenabled: yes\nowner: null\n",
		want: `{"enabled":true,"owner":null,"schedule":"*/15 * * * *"}`,
	},
	{name: "a float", data: "a: 1.5\n", want: `{"a":1.5}`},
	{name: "an alias", data: "a: &x b\nc: *x\n", want: `{"a":"b","c":"b"}`},
	{name: "a leading separator", data: "---\na: 1\n", want: `{"a":1}`},
	{name: "JSON", data: `{"a": [1, "b"]}`, want: `{"a":[1,"b"]}`},
	{name: "an empty mapping", data: "{}", want: `{}`},
	{name: "empty", data: "", want: `{}`},
	{name: "a comment only", data: "# only a comment\n", want: `{}`},
}

func TestParseInputs(t *testing.T) {
	t.Parallel()
	for _, tt := range parseInputsTests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, _, err := parseInputs([]byte(tt.data))
			if err != nil {
				t.Fatalf("parseInputs() error = %v", err)
			}
			if js, _ := json.Marshal(got); string(js) != tt.want {
				t.Errorf("parseInputs() = %s, want %s", js, tt.want)
			}
		})
	}
}

func BenchmarkParseInputs(b *testing.B) {
	for _, n := range []int{3, 30} {
		var doc strings.Builder
		for i := range n {
			fmt.Fprintf(&doc, "input%d: value-%d\n", i, i)
		}
		data := []byte(doc.String())
		b.Run(fmt.Sprintf("keys=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, _, err := parseInputs(data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestArtifactInputs: an inputsFrom of "@artifact/path" reads the
// artifact's own file once its copy operations are done. The first case
// translates source-watcher's TestArtifactGeneratorReconciler_ExportedInputs
// (internal/controller/artifactgenerator_inputs_test.go) with the inputs
// file read from the artifact, which TestResolveLocalSourcePath resolves
// "@artifact/inputs.yaml" to.
func TestArtifactInputs(t *testing.T) {
	t.Parallel()
	text := func(s string) *fstest.MapFile { return &fstest.MapFile{Data: []byte(s)} }
	inputsYAML := "replicas: 3\nname: test\nnested:\n  foo: bar\n"
	app := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: test-config"
	tests := []copyCase{
		{
			name:       "exported inputs from the artifact",
			sources:    map[string]fstest.MapFS{"git": {"app.yaml": text(app), "inputs.yaml": text(inputsYAML)}},
			copies:     []CopyOperation{{From: "@git/**", To: "@artifact/"}},
			inputsFrom: "@artifact/inputs.yaml",
			want:       map[string]string{"app.yaml": app, "inputs.yaml": inputsYAML},
			wantInputs: `{"name":"test","nested":{"foo":"bar"},"replicas":3}`,
		},
		{
			name: "inputs merged from two files",
			sources: map[string]fstest.MapFS{"git": {
				"defaults.yaml": text("replicas: 1\nimage: {tag: \"1.0\"}\n"),
				"prod.yaml":     text("image: {tag: \"2.0\"}\n"),
			}},
			copies: []CopyOperation{
				{From: "@git/defaults.yaml", To: "@artifact/inputs.yaml"},
				{From: "@git/prod.yaml", To: "@artifact/inputs.yaml", Strategy: "Merge"},
			},
			inputsFrom: "@artifact/inputs.yaml",
			want:       map[string]string{"inputs.yaml": "image:\n  tag: \"2.0\"\nreplicas: 1\n"},
			wantInputs: `{"image":{"tag":"2.0"},"replicas":1}`,
		},
		{
			name:       "inputs extracted from an archive",
			sources:    map[string]fstest.MapFS{"git": {"bundle.tgz": {Data: tgz(t, tarEntry{name: "cfg/inputs.yaml", body: "tag: v1\n"})}}},
			copies:     []CopyOperation{{From: "@git/bundle.tgz", To: "@artifact/", Strategy: "Extract"}},
			inputsFrom: "@artifact/cfg/inputs.yaml",
			want:       map[string]string{"cfg/inputs.yaml": "tag: v1\n"},
			wantInputs: `{"tag":"v1"}`,
		},
		{
			name:       "a file the artifact lacks",
			sources:    map[string]fstest.MapFS{"git": {"app.yaml": text(app)}},
			copies:     []CopyOperation{{From: "@git/**", To: "@artifact/"}},
			inputsFrom: "@artifact/inputs.yaml",
			want:       map[string]string{"app.yaml": app},
			wantWarn:   []string{"@artifact/inputs.yaml: inputs file not found in the artifact; artifact flux-system/app has no inputs"},
		},
		{
			name:       "a directory of the artifact",
			sources:    map[string]fstest.MapFS{"git": {"cfg/app.yaml": text(app)}},
			copies:     []CopyOperation{{From: "@git/**", To: "@artifact/"}},
			inputsFrom: "@artifact/cfg",
			wantErrs:   []copyErr{{Field: "spec.artifacts[0].inputsFrom", Type: field.ErrorTypeInvalid, Value: "@artifact/cfg", Detail: "must be a file of the artifact, not a directory"}},
		},
		{
			name:       "a list",
			sources:    map[string]fstest.MapFS{"git": {"inputs.yaml": text("- a\n")}},
			copies:     []CopyOperation{{From: "@git/**", To: "@artifact/"}},
			inputsFrom: "@artifact/inputs.yaml",
			wantErrs:   []copyErr{{Field: "spec.artifacts[0].inputsFrom", Type: field.ErrorTypeInvalid, Value: "@artifact/inputs.yaml", Detail: "must be a YAML mapping"}},
		},
		{
			name:       "larger than an inputs file may be",
			sources:    map[string]fstest.MapFS{"git": {"inputs.yaml": text("a: " + strings.Repeat("x", maxInputsBytes) + "\n")}},
			copies:     []CopyOperation{{From: "@git/**", To: "@artifact/"}},
			inputsFrom: "@artifact/inputs.yaml",
			wantErrs:   []copyErr{{Field: "spec.artifacts[0].inputsFrom", Type: field.ErrorTypeInvalid, Value: "@artifact/inputs.yaml", Detail: "must be no more than 1048576 bytes"}},
		},
		{
			name:       "an extracted file larger than an inputs file may be",
			sources:    map[string]fstest.MapFS{"git": {"b.tgz": {Data: tgz(t, tarEntry{name: "inputs.yaml", body: "a: " + strings.Repeat("x", maxInputsBytes) + "\n"})}}},
			copies:     []CopyOperation{{From: "@git/b.tgz", To: "@artifact/", Strategy: "Extract"}},
			inputsFrom: "@artifact/inputs.yaml",
			wantErrs:   []copyErr{{Field: "spec.artifacts[0].inputsFrom", Type: field.ErrorTypeInvalid, Value: "@artifact/inputs.yaml", Detail: "must be no more than 1048576 bytes"}},
		},
		{
			name:       "copy errors leave the inputs unread",
			sources:    map[string]fstest.MapFS{"git": {"inputs.yaml": text("a: 1\n")}},
			copies:     []CopyOperation{{From: "@git/missing/**", To: "@artifact/"}},
			inputsFrom: "@artifact/inputs.yaml",
			wantErrs:   []copyErr{{Field: "spec.artifacts[0].copy[0].from", Type: field.ErrorTypeInvalid, Value: "@git/missing/**", Detail: "selects no file"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			runCopyCase(t, tt, copySpec(tt))
		})
	}
}

// TestArtifactInputsCaptures: "@artifact/..." with captures, rendered
// from each match's raw captures.
func TestArtifactInputsCaptures(t *testing.T) {
	t.Parallel()
	spec := testSpec()
	spec.ManagedNamespaces = nil
	spec.Artifacts[0].InputsFrom = "@artifact/{module}/inputs.yaml"
	spec.Artifacts[0].Copy = []CopyOperation{{From: "@repo/tenants/{namespace}/modules/{module}/**", To: "@artifact/{module}/"}}
	g := mustCompile(t, spec)
	p := mustPlan(t, g, sources(tree(
		"tenants/tenant-a/modules/App/inputs.yaml=tag: a\n",
		"tenants/tenant-b/modules/web/inputs.yaml=tag: b\n",
	)), nil, (&fakeCluster{}).cluster())
	if p.HasErrors() {
		t.Fatal(p.Errors.ToAggregate())
	}
	got := map[string]string{}
	for _, a := range p.Artifacts {
		got[a.Namespace+"/"+a.Name] = string(a.Inputs)
	}
	want := map[string]string{"tenant-a/app": `{"tag":"a"}`, "tenant-b/web": `{"tag":"b"}`}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("inputs (-want +got):\n%s", diff)
	}
}
