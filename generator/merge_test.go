package generator

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"

	"github.com/tenantkit/tenantkit/internal/yamldoc"
)

// mergeYAMLTests are merges with the exact bytes that source-watcher's
// Merge writes for them: sigs.k8s.io/yaml's encoding of the merged maps.
var mergeYAMLTests = []struct {
	name          string
	base, overlay string
	want          string
	wantErr       string // "base" or "overlay": the side that is not a mapping
}{
	// source-watcher's TestBuild_YAMLMergeStrategy, "merge YAML files
	// successfully": maps merged, lists replaced, keys added.
	{
		name:    "values override",
		base:    "\nname: app\nports: [80, 443]\nlabels:\n  env: dev\n  keep: me\nversion: 1.0.0\nreplicas: 3\n",
		overlay: "\nreplicas: 5 # This should overwrite the replicas\nports: [8080] # This should overwrite the ports array\nlabels:\n  env: prod # This should overwrite the env label\nenv: production # This should add a new top-level field\n",
		want:    "env: production\nlabels:\n  env: prod\n  keep: me\nname: app\nports:\n- 8080\nreplicas: 5\nversion: 1.0.0\n",
	},
	// ... "merge JSON with YAML successfully".
	{name: "JSON over YAML", base: "a: b", overlay: `{"c": {"d": "e"}, "a": "override"}`, want: "a: override\nc:\n  d: e\n"},
	// ... "fails with destination not YAML" and "fails with source not YAML".
	{name: "base not a mapping", base: "A=B", overlay: "a: b", wantErr: "base"},
	{name: "overlay not a mapping", base: "a: b", overlay: "A=B", wantErr: "overlay"},

	{name: "a map replaces a scalar", base: "a: 1\n", overlay: "a: {b: 2}\n", want: "a:\n  b: 2\n"},
	{name: "a scalar replaces a map", base: "a: {b: 2}\n", overlay: "a: 1\n", want: "a: 1\n"},
	{name: "a list replaces a map", base: "a: {b: 2}\n", overlay: "a: [1]\n", want: "a:\n- 1\n"},
	{name: "null overrides, and stays", base: "a: {b: 2}\nc: 3\n", overlay: "a: null\n", want: "a: null\nc: 3\n"},
	{name: "deep merge", base: "a: {b: {c: 1, d: 2}}\n", overlay: "a: {b: {d: 3, e: 4}}\n", want: "a:\n  b:\n    c: 1\n    d: 3\n    e: 4\n"},
	{name: "documents merge in order", base: "a: 1\nb: 1\n---\nb: 2\n", overlay: "---\nc: 3\n---\na: 4\n", want: "a: 4\nb: 2\nc: 3\n"},
	{name: "empty and null documents add nothing", base: "a: 1\n---\n# comment\n---\nnull\n", overlay: "~\n", want: "a: 1\n"},
	{name: "both empty", base: "", overlay: "", want: "{}\n"},
	{name: "YAML 1.1 scalars, as sigs.k8s.io/yaml decodes them", base: "a: yes\nb: 0x10\nc: 1e3\nd: '007'\n", overlay: "e: 12345678901234567890\n",
		want: "a: true\nb: 16\nc: 1000\nd: \"007\"\ne: 12345678901234567000\n"},
	{name: "a duplicate key takes its last value", base: "a: 1\na: 2\n", overlay: "b: 3\n", want: "a: 2\nb: 3\n"},
	{name: "aliases", base: "p: &v {k: 1}\nq: *v\n", overlay: "q: {l: 2}\n", want: "p:\n  k: 1\nq:\n  k: 1\n  l: 2\n"},
	{name: "y is a YAML 1.1 boolean, as a key too", base: "x: 1\n", overlay: "y: 2\n", want: "\"true\": 2\nx: 1\n"},
	{name: "a multi-line string", base: "a: 1\n", overlay: "a: \"x\\ny\"\n", want: "a: |-\n  x\n  y\n"},
	{name: "a list document", base: "- a\n", overlay: "a: 1\n", wantErr: "base"},
	{name: "a list in a later document", base: "a: 1\n---\n- b\n", overlay: "a: 1\n", wantErr: "base"},
	{name: "not YAML", base: "a: 1\n", overlay: "a: [\n", wantErr: "overlay"},
	{name: "binary", base: "a: 1\n", overlay: "\x00\x01\x02", wantErr: "overlay"},
	{name: "NaN, which JSON cannot hold", base: "a: .nan\n", overlay: "", wantErr: "base"},
	{name: "a document hidden after an end marker", base: "a: 1\n...\nb: 2\n", overlay: "c: 3\n", wantErr: "base"},
	{name: "an end marker before a separator hides nothing", base: "a: 1\n...\n--- \nb: 2\n", overlay: "c: 3\n", want: "a: 1\nb: 2\nc: 3\n"},
}

func TestMergeYAML(t *testing.T) {
	t.Parallel()
	for _, tt := range mergeYAMLTests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := mergeYAML(context.Background(), []byte(tt.base), []byte(tt.overlay))
			if tt.wantErr != "" {
				var me *mergeError
				if !errors.As(err, &me) || me.overlay != (tt.wantErr == "overlay") {
					t.Fatalf("mergeYAML() = %q, %v; want an error of the %s", got, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("mergeYAML() error = %v", err)
			}
			if diff := cmp.Diff(tt.want, string(got)); diff != "" {
				t.Errorf("mergeYAML() (-want +got):\n%s", diff)
			}
		})
	}
}

// TestMergeYAMLHostile: what a tenant's file can do to a merge is bounded.
func TestMergeYAMLHostile(t *testing.T) {
	t.Parallel()
	deep := strings.Repeat("[", 10_001) + strings.Repeat("]", 10_001)
	laughs := "a: &a [\"" + strings.Repeat("x", 1000) + "\"]\n"
	for i := 'b'; i <= 'k'; i++ {
		laughs += string(i) + ": &" + string(i) + " [*" + string(i-1) + ", *" + string(i-1) + ", *" + string(i-1) + ", *" + string(i-1) + "]\n"
	}
	tests := []struct {
		name    string
		overlay string
		is      error // the error wraps it, when set
	}{
		{name: "nesting deeper than the decoders allow", overlay: "a: " + deep + "\n"},
		{name: "aliases that expand past the bound", overlay: laughs, is: yamldoc.ErrExpansion},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := mergeYAML(context.Background(), []byte("a: 1\n"), []byte(tt.overlay))
			var me *mergeError
			if !errors.As(err, &me) || !me.overlay {
				t.Fatalf("mergeYAML() = %d bytes, %v; want an error of the overlay", len(got), err)
			}
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Errorf("mergeYAML() error = %v, want one wrapping %v", err, tt.is)
			}
		})
	}
}

// TestUpstreamMergeStrategy translates source-watcher's
// TestBuild_YAMLMergeStrategy (internal/builder/merge_test.go) into plans:
// the same sources and copy operations, the exact files they produce.
func TestUpstreamMergeStrategy(t *testing.T) {
	t.Parallel()
	file := func(s string) *fstest.MapFile { return &fstest.MapFile{Data: []byte(s)} }
	merged := "env: production\nlabels:\n  env: prod\n  keep: me\nname: app\nports:\n- 8080\nreplicas: 5\nversion: 1.0.0\n"
	tests := []copyCase{
		{
			name: "merge YAML files successfully",
			sources: map[string]fstest.MapFS{
				"source1": {"config.yaml": file(mergeYAMLTests[0].base)},
				"source2": {"config.yaml": file(mergeYAMLTests[0].overlay)},
			},
			copies: []CopyOperation{
				{From: "@source1/config.yaml", To: "@artifact/config.yaml", Strategy: "Overwrite"},
				{From: "@source2/config.yaml", To: "@artifact/config.yaml", Strategy: "Merge"},
			},
			want:       map[string]string{"config.yaml": merged},
			wantSource: map[string]string{"config.yaml": "@source2/config.yaml"},
		},
		{
			name: "merge JSON with YAML successfully",
			sources: map[string]fstest.MapFS{
				"source1": {"config.yaml": file("a: b")},
				"source2": {"config.json": file(`{"c": {"d": "e"}, "a": "override"}`)},
			},
			copies: []CopyOperation{
				{From: "@source1/config.yaml", To: "@artifact/config.yaml"},
				{From: "@source2/config.json", To: "@artifact/config.yaml", Strategy: "Merge"},
			},
			want: map[string]string{"config.yaml": "a: override\nc:\n  d: e\n"},
		},
		{
			name: "merge YAML in dirs successfully",
			sources: map[string]fstest.MapFS{
				"source1": {
					"config1.yaml":        file("\nenv: dev\nregion: us-west-1\n"),
					"config2.yaml":        file("\nversion: 1.0.0\nimage: my-app:latest\n"),
					"config/config3.yaml": file("\nversion: 1.0.0\nimage: my-app:latest\n"),
				},
				"source2": {
					"config1.yaml":        file("env: prod"),
					"config2.yaml":        file("replicas: 5"),
					"config/config3.yaml": file("replicas: 10"),
					"config/config4.yaml": file("content: hello-world"),
				},
			},
			copies: []CopyOperation{
				{From: "@source1/**", To: "@artifact/", Strategy: "Overwrite"},
				{From: "@source2/**", To: "@artifact/", Strategy: "Merge"},
			},
			want: map[string]string{
				"config1.yaml":        "env: prod\nregion: us-west-1\n",
				"config2.yaml":        "image: my-app:latest\nreplicas: 5\nversion: 1.0.0\n",
				"config/config3.yaml": "image: my-app:latest\nreplicas: 10\nversion: 1.0.0\n",
				"config/config4.yaml": "content: hello-world", // nothing to merge into: copied as it is
			},
			wantSource: map[string]string{
				"config1.yaml":        "@source2/config1.yaml",
				"config2.yaml":        "@source2/config2.yaml",
				"config/config3.yaml": "@source2/config/config3.yaml",
				"config/config4.yaml": "@source2/config/config4.yaml",
			},
		},
		{
			name: "merge YAML in dirs with exclude",
			sources: map[string]fstest.MapFS{
				"source1": {"config.yaml": file("\nenv: dev\nregion: us-west-1\n"), "secret.yaml": file("token: base")},
				"source2": {"config.yaml": file("env: prod"), "secret.yaml": file("token: leak")},
			},
			copies: []CopyOperation{
				{From: "@source1/**", To: "@artifact/", Strategy: "Overwrite"},
				{From: "@source2/**", To: "@artifact/", Strategy: "Merge", Exclude: []string{"secret.yaml"}},
			},
			want: map[string]string{"config.yaml": "env: prod\nregion: us-west-1\n", "secret.yaml": "token: base"},
		},
		{
			name:    "merge with non existing destination file",
			sources: map[string]fstest.MapFS{"source": {"config.yaml": file("a: b")}},
			copies:  []CopyOperation{{From: "@source/config.yaml", To: "@artifact/config.yaml", Strategy: "Merge"}},
			want:    map[string]string{"config.yaml": "a: b"},
		},
		{
			name: "fails with destination not YAML",
			sources: map[string]fstest.MapFS{
				"source1": {"config.env": file("A=B")},
				"source2": {"config.yaml": file("a: b")},
			},
			copies: []CopyOperation{
				{From: "@source1/config.env", To: "@artifact/config.env"},
				{From: "@source2/config.yaml", To: "@artifact/config.env", Strategy: "Merge"},
			},
			wantErrs: []copyErr{{Field: "spec.artifacts[0].copy[1].from", Type: field.ErrorTypeInvalid, Value: "@source2/config.yaml",
				Detail: `merging into "config.env": the file there must be YAML whose documents are mappings`}},
		},
		{
			name: "fails with source not YAML",
			sources: map[string]fstest.MapFS{
				"source1": {"config.yaml": file("a: b")},
				"source2": {"config.env": file("A=B")},
			},
			copies: []CopyOperation{
				{From: "@source1/config.yaml", To: "@artifact/config.yaml"},
				{From: "@source2/config.env", To: "@artifact/config.yaml", Strategy: "Merge"},
			},
			wantErrs: []copyErr{{Field: "spec.artifacts[0].copy[1].from", Type: field.ErrorTypeInvalid, Value: "@source2/config.env",
				Detail: `merging into "config.yaml": the file merged must be YAML whose documents are mappings`}},
		},

		// Beyond upstream's tests.
		{
			name: "a merge into a merged file",
			sources: map[string]fstest.MapFS{
				"repo": {"a.yaml": file("a: 1\n"), "b.yaml": file("b: 2\n"), "c.yaml": file("a: 3\n")},
			},
			copies: []CopyOperation{
				{From: "@repo/a.yaml", To: "@artifact/v.yaml"},
				{From: "@repo/b.yaml", To: "@artifact/v.yaml", Strategy: "Merge"},
				{From: "@repo/c.yaml", To: "@artifact/v.yaml", Strategy: "Merge"},
			},
			want:       map[string]string{"v.yaml": "a: 3\nb: 2\n"},
			wantSource: map[string]string{"v.yaml": "@repo/c.yaml"},
		},
		{
			name: "an Overwrite after a merge replaces it",
			sources: map[string]fstest.MapFS{
				"repo": {"a.yaml": file("a: 1\n"), "b.yaml": file("b: 2\n"), "c.yaml": file("c: 3")},
			},
			copies: []CopyOperation{
				{From: "@repo/a.yaml", To: "@artifact/v.yaml"},
				{From: "@repo/b.yaml", To: "@artifact/v.yaml", Strategy: "Merge"},
				{From: "@repo/c.yaml", To: "@artifact/v.yaml"},
			},
			want: map[string]string{"v.yaml": "c: 3"},
		},
		{
			name:    "a file larger than the merge bound",
			sources: map[string]fstest.MapFS{"repo": {"a.yaml": file("a: 1\n"), "big.yaml": file("b: " + strings.Repeat("x", maxMergeBytes) + "\n")}},
			copies: []CopyOperation{
				{From: "@repo/a.yaml", To: "@artifact/v.yaml"},
				{From: "@repo/big.yaml", To: "@artifact/v.yaml", Strategy: "Merge"},
			},
			wantErrs: []copyErr{{Field: "spec.artifacts[0].copy[1].from", Type: field.ErrorTypeInvalid, Value: "@repo/big.yaml", Detail: "must be no more than 1048576 bytes"}},
		},
		{
			name:    "a merge onto a directory",
			sources: map[string]fstest.MapFS{"repo": {"d/a.yaml": file("a: 1\n"), "x/d": file("b: 2\n")}},
			copies: []CopyOperation{
				{From: "@repo/d/a.yaml", To: "@artifact/d/"},
				{From: "@repo/x/**", To: "@artifact/", Strategy: "Merge"},
			},
			wantErrs: []copyErr{{Field: "spec.artifacts[0].copy[1].from", Type: field.ErrorTypeInvalid, Value: "@repo/x/d",
				Detail: `landing at "d": "d" is a directory of the artifact`}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			runCopyCase(t, tt, copySpec(tt))
		})
	}
}

// FuzzMergeYAML merges fuzzed files: nothing panics, an error says which
// side failed, and a merged file merges again into itself unchanged (the
// encoding is stable), within the merge's size bound.
func FuzzMergeYAML(f *testing.F) {
	for _, tt := range mergeYAMLTests {
		f.Add(tt.base, tt.overlay)
	}
	for _, s := range countSeeds {
		f.Add(s, "a: {b: [1, {c: 2}]}\n")
		f.Add("a: {b: [1, {c: 2}]}\n", s)
	}
	f.Fuzz(func(t *testing.T, base, overlay string) {
		if len(base) > maxMergeBytes || len(overlay) > maxMergeBytes {
			return
		}
		out, err := mergeYAML(context.Background(), []byte(base), []byte(overlay))
		if err != nil {
			var me *mergeError
			if !errors.As(err, &me) {
				if len(out) != 0 || !strings.Contains(err.Error(), "marshal") {
					t.Fatalf("mergeYAML() error %T: %v", err, err)
				}
			}
			return
		}
		again, err := mergeYAML(context.Background(), out, nil)
		if err != nil || string(again) != string(out) {
			t.Fatalf("merging %q again gives %q, %v", out, again, err)
		}
		// Upstream's bytes wherever upstream's are the same on every run.
		bm, berr := decodeMergeFile(context.Background(), []byte(base))
		om, oerr := decodeMergeFile(context.Background(), []byte(overlay))
		if berr != nil || oerr != nil {
			t.Fatalf("mergeYAML succeeded, decodeMergeFile failed: %v, %v", berr, oerr)
		}
		mergeInto(bm, om)
		merged := bm
		if n := encodedSizeAtLeast(merged, math.MaxInt64/2); n > int64(len(out)) {
			t.Fatalf("encodedSizeAtLeast = %d for %q, %d bytes", n, out, len(out))
		}
		want, err := yaml.Marshal(merged)
		stable := err == nil
		for i := 0; stable && i < 8; i++ {
			w, err := yaml.Marshal(merged)
			stable = err == nil && string(w) == string(want)
		}
		if stable && string(out) != string(want) {
			t.Fatalf("mergeYAML(%q, %q) = %q, sigs.k8s.io/yaml writes %q", base, overlay, out, want)
		}
	})
}
