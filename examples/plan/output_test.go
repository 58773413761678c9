package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/tenantkit/tenantkit/generator"
	"github.com/tenantkit/tenantkit/internal/agmanifest"
	"github.com/tenantkit/tenantkit/inventory"
	"github.com/tenantkit/tenantkit/nsmeta"
)

// planJSON is the plan in the shape of the JSON output, as one value: what
// writeJSONWhole encodes and what tests decode the output into. Struct
// fields are declared in the order of their JSON names, and encoding/json
// sorts map keys, so every object's keys come sorted.
type planJSON struct {
	Artifacts   []planArtifact   `json:"artifacts"`
	Assumptions []string         `json:"assumptions"`
	Changes     []planChange     `json:"changes"`
	Errors      []planFieldError `json:"errors"`
	Inventory   []inventoryItem  `json:"inventory"`
	Namespaces  []planNamespace  `json:"namespaces"`
	Warnings    []string         `json:"warnings"`
}

// writeJSONWhole is the JSON writer that writeJSON replaced: it converts
// the whole plan, then encodes it at once, which marshals it into one
// buffer and indents that into another. writeJSON must print the same
// bytes.
func writeJSONWhole(w io.Writer, res *planResult) error {
	return encodeWhole(w, planJSON{
		Artifacts:   convert(res.artifacts, toArtifact),
		Assumptions: res.assumptions,
		Changes:     convert(res.decisions, toChange),
		Errors:      res.errors,
		Inventory:   convert(res.inventory, toInventoryItem),
		Namespaces:  convert(res.namespaces, toNamespace),
		Warnings:    res.warnings,
	})
}

// encodeWhole encodes the plan as one value, with empty lists as [].
func encodeWhole(w io.Writer, out planJSON) error {
	nonNil(&out.Namespaces)
	nonNil(&out.Artifacts)
	nonNil(&out.Inventory)
	nonNil(&out.Changes)
	nonNil(&out.Assumptions)
	nonNil(&out.Warnings)
	nonNil(&out.Errors)
	for i := range out.Artifacts {
		nonNil(&out.Artifacts[i].Files)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(out)
}

func convert[T, U any](items []T, conv func(T) U) []U {
	out := make([]U, 0, len(items))
	for _, it := range items {
		out = append(out, conv(it))
	}
	return out
}

func nonNil[T any](s *[]T) {
	if *s == nil {
		*s = []T{}
	}
}

// checkStream fails t unless writeJSON prints res byte for byte as
// writeJSONWhole does.
func checkStream(t testing.TB, res *planResult) {
	t.Helper()
	var whole, stream bytes.Buffer
	if err := writeJSONWhole(&whole, res); err != nil {
		t.Fatalf("writeJSONWhole() = %v", err)
	}
	if err := writeJSON(&stream, res, false); err != nil {
		t.Fatalf("writeJSON() = %v", err)
	}
	if !bytes.Equal(whole.Bytes(), stream.Bytes()) {
		t.Errorf("writeJSON differs from writeJSONWhole (-whole +stream):\n%s", cmp.Diff(whole.String(), stream.String()))
	}
}

// checkCanonical fails t unless out, the tool's JSON output, is what
// writeJSONWhole prints for the plan that out holds: decoded (numbers as
// written) and encoded at once again, it must come back byte for byte.
// decode calls it on every output a test decodes, for the plans that tests
// make only through run.
func checkCanonical(t testing.TB, out []byte) {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(out))
	dec.UseNumber()
	var res planJSON
	if err := dec.Decode(&res); err != nil {
		t.Fatalf("decoding the JSON plan: %v", err)
	}
	var again bytes.Buffer
	if err := encodeWhole(&again, res); err != nil {
		t.Fatalf("encoding the decoded plan: %v", err)
	}
	if !bytes.Equal(again.Bytes(), out) {
		t.Errorf("the output is not what the whole-plan encoder prints for it (-whole +output):\n%s", cmp.Diff(again.String(), string(out)))
	}
}

// synthTree is a monorepo in the layout of the embedded sample, for the
// embedded sample generator: n tenants of two modules with three files
// each (one nested, plus a README the copy excludes), a
// namespace-metadata.yaml for every other tenant, and inputs with HTML
// characters and unicode.
func synthTree(n int) fstest.MapFS {
	file := func(format string, args ...any) *fstest.MapFile {
		return &fstest.MapFile{Data: fmt.Appendf(nil, format, args...)}
	}
	fsys := fstest.MapFS{}
	for i := range n {
		dir := fmt.Sprintf("tenants/tenant-%05d", i)
		// Every tenant has the file the spec requires; every other one's
		// asks for nothing.
		fsys[dir+"/namespace-metadata.yaml"] = file("apiVersion: source.extensions.fluxcd.io/v1beta1\nkind: NamespaceMetadata\n")
		if i%2 == 0 {
			fsys[dir+"/namespace-metadata.yaml"] = file("apiVersion: source.extensions.fluxcd.io/v1beta1\nkind: NamespaceMetadata\n"+
				"metadata:\n  labels:\n    my.org.io/cost-center: cc-%04d\n  annotations:\n    my.org.io/observability: Enabled\n", i%10000)
		}
		for _, m := range []string{"api", "worker"} {
			mod := dir + "/modules/" + m
			fsys[mod+"/applier-inputs.yaml"] = file("replicas: %d\ntitle: \"<b>%s</b> & co, ünïcode ☃\"\nports: [8080, 9090]\n", i%5, m)
			fsys[mod+"/manifests/deployment.yaml"] = file("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: %s-%d\n", m, i)
			fsys[mod+"/manifests/service.yaml"] = file("apiVersion: v1\nkind: Service\nmetadata:\n  name: %s-%d\n", m, i)
			fsys[mod+"/manifests/config/configmap.yaml"] = file("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: %s-%d\n", m, i)
			fsys[mod+"/manifests/README.md"] = file("# %s\n", m)
		}
	}
	return fsys
}

// planOf plans src with the sample generator (its text changed by edit, if
// not nil) and previous, listing the artifacts' files as -o json does.
func planOf(t testing.TB, src fs.FS, previous []inventory.Entry, edit func(string) string) *planResult {
	t.Helper()
	data := sampleGenerator(t)
	if edit != nil {
		data = edit(data)
	}
	g, err := agmanifest.Decode[generator.Spec]([]byte(data))
	if err != nil {
		t.Fatal(err)
	}
	res, err := makePlan(context.Background(), request{manifest: g, sources: map[string]fs.FS{"repo": src}, previous: previous,
		opts: []generator.Option{generator.WithFileLists()}})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestWriteJSONStreams(t *testing.T) {
	t.Parallel()
	sampleSrc, samplePrevious := samplePlan()
	synthPrevious := planOf(t, synthTree(25), nil, nil).inventory
	stale := append(samplePrevious[:len(samplePrevious):len(samplePrevious)],
		inventory.Entry{Kind: "Namespace", Name: "tenant-gone"},
		inventory.Entry{APIVersion: "source.extensions.fluxcd.io/v1beta1", Kind: "ExternalArtifact", Namespace: "tenant-gone", Name: "<app>&"})
	badMetadata := synthTree(2)
	badMetadata["tenants/tenant-00000/namespace-metadata.yaml"] = &fstest.MapFile{Data: []byte(
		"apiVersion: source.extensions.fluxcd.io/v1beta1\nkind: NamespaceMetadata\nmetadata:\n  labels:\n    my.org.io/cost-center: \"<cc&9>\"\n  annotations:\n    my.org.io/observability: \"Ünknown\"\n")}
	noCompile := breakSchema
	tests := []struct {
		name string
		res  func(t *testing.T) *planResult
	}{
		{name: "nothing", res: func(*testing.T) *planResult { return &planResult{} }},
		{name: "empty lists", res: func(*testing.T) *planResult {
			return &planResult{namespaces: []generator.Namespace{}, artifacts: []generator.Artifact{}, decisions: []inventory.Decision{},
				inventory: []inventory.Entry{}, warnings: []string{}, errors: []planFieldError{}}
		}},
		{name: "nil maps and lists in items", res: func(*testing.T) *planResult {
			return &planResult{
				namespaces: []generator.Namespace{{Name: "a"}},
				artifacts:  []generator.Artifact{{Name: "app", Namespace: "a"}},
				decisions:  []inventory.Decision{{Entry: inventory.Entry{Kind: "Namespace", Name: "a"}, Action: inventory.Create}},
				inventory:  []inventory.Entry{{Kind: "Namespace", Name: "a"}},
				errors:     []planFieldError{{Field: "spec", Type: "FieldValueRequired"}},
			}
		}},
		{name: "HTML characters, unicode and values of every JSON type", res: func(*testing.T) *planResult {
			html := "<b>Tom & Jerry</b> > all, ünïcode ☃ \u2028 \u2029 \x00 \t \"q\" \\ \xff"
			return &planResult{
				namespaces: []generator.Namespace{{Name: "a", Labels: map[string]string{"k<": html, "a": ""},
					Annotations: map[string]string{"x": html}, Origin: nsmeta.Metadata{Labels: map[string]string{"k<": "final"}}, Digest: "sha256:0"}},
				artifacts: []generator.Artifact{{Name: "app", Namespace: "a", Path: "tenants/<a>", Captures: map[string]string{"namespace": html},
					Inputs: json.RawMessage(`{"o": {"z": [1, 2.5e300, null, true, {}], "a": []}, "s": "<&>"}`),
					Files:  []generator.File{{Path: "b<.yaml"}, {Path: "a&.yaml"}}, FileCount: 2}},
				decisions: []inventory.Decision{{Entry: inventory.Entry{Kind: "ExternalArtifact", Namespace: "a", Name: "app"}, Action: inventory.Keep, Reason: html}},
				warnings:  []string{html, ""},
				errors: []planFieldError{
					{Field: "spec.x", Type: "FieldValueInvalid", Value: html, Detail: html},
					{Field: "spec.y", Type: "FieldValueInvalid", Value: 42},
					{Field: "spec.z", Type: "FieldValueInvalid", Value: []any{1.5, "<", nil, map[string]any{"&": false}}},
				},
			}
		}},
		{name: "sample", res: func(t *testing.T) *planResult { return planOf(t, sampleSrc, nil, nil) }},
		{name: "sample against its own inventory", res: func(t *testing.T) *planResult { return planOf(t, sampleSrc, samplePrevious, nil) }},
		{name: "sample against stale entries", res: func(t *testing.T) *planResult { return planOf(t, sampleSrc, stale, nil) }},
		{name: "spec does not compile", res: func(t *testing.T) *planResult { return planOf(t, sampleSrc, nil, noCompile) }},
		{name: "spec does not compile, previous kept", res: func(t *testing.T) *planResult { return planOf(t, sampleSrc, stale, noCompile) }},
		{name: "no tenants", res: func(t *testing.T) *planResult { return planOf(t, fstest.MapFS{"tenants/README.md": {}}, nil, nil) }},
		{name: "no tenants, everything stale", res: func(t *testing.T) *planResult { return planOf(t, fstest.MapFS{}, samplePrevious, nil) }},
		{name: "synthetic", res: func(t *testing.T) *planResult { return planOf(t, synthTree(25), nil, nil) }},
		{name: "synthetic with tenants removed", res: func(t *testing.T) *planResult { return planOf(t, synthTree(20), synthPrevious, nil) }},
		{name: "synthetic with invalid metadata", res: func(t *testing.T) *planResult { return planOf(t, badMetadata, synthPrevious, nil) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			checkStream(t, tt.res(t))
		})
	}
}

// TestWriteJSONStreamsPlans checks that the plans of the table above are
// the ones meant: errors, deletions and empty lists where expected.
func TestWriteJSONStreamsPlans(t *testing.T) {
	t.Parallel()
	src, previous := samplePlan()
	if res := planOf(t, src, previous[:2], breakSchema); !res.hasErrors() ||
		len(res.decisions) != 2 || len(res.inventory) != 2 || len(res.artifacts) != 0 {
		t.Errorf("spec does not compile: %d errors, %d decisions, %d entries, %d artifacts", len(res.errors), len(res.decisions), len(res.inventory), len(res.artifacts))
	}
	res := planOf(t, synthTree(20), planOf(t, synthTree(25), nil, nil).inventory, nil)
	deletes := 0
	for _, d := range res.decisions {
		if d.Action == inventory.Delete {
			deletes++
		}
	}
	if res.hasErrors() || deletes != 5*3 || len(res.artifacts) != 40 || len(res.artifacts[0].Files) != 3 {
		t.Errorf("synthetic with tenants removed: errors %v, %d deletions, %d artifacts", res.errors, deletes, len(res.artifacts))
	}
	if res := planOf(t, fstest.MapFS{"tenants/README.md": {}}, nil, nil); res.hasErrors() || len(res.namespaces)+len(res.artifacts)+len(res.decisions)+len(res.inventory) != 0 {
		t.Errorf("no tenants: %+v", res)
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

// TestWriteJSONErrors checks that both writers fail alike: on a value
// that JSON cannot hold, and on a writer that fails.
func TestWriteJSONErrors(t *testing.T) {
	t.Parallel()
	unencodable := &planResult{errors: []planFieldError{{Field: "spec", Type: string(field.ErrorTypeInvalid), Value: math.NaN()}}}
	tests := []struct {
		name string
		w    io.Writer
		res  *planResult
	}{
		{name: "value JSON cannot hold", w: io.Discard, res: unencodable},
		{name: "writer fails", w: failWriter{}, res: planOf(t, synthTree(3), nil, nil)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			errWhole, errStream := writeJSONWhole(tt.w, tt.res), writeJSON(tt.w, tt.res, false)
			if errWhole == nil || errStream == nil || errWhole.Error() != errStream.Error() {
				t.Errorf("writeJSONWhole() = %v, writeJSON() = %v, want the same error", errWhole, errStream)
			}
		})
	}
}

// BenchmarkWriteJSON writes the JSON plan of a synthetic monorepo (planned
// once, in memory) to io.Discard with the whole-plan writer that the tool
// used before and with the streaming one it uses now; B/op against the
// output's size (SetBytes) shows what each holds.
func BenchmarkWriteJSON(b *testing.B) {
	for _, n := range []int{100, 1000} {
		res := planOf(b, synthTree(n), nil, nil)
		checkStream(b, res)
		var out bytes.Buffer
		if err := writeJSON(&out, res, false); err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("tenants=%d", n), func(b *testing.B) {
			for _, w := range []struct {
				name  string
				write func(io.Writer, *planResult) error
			}{
				{"whole", writeJSONWhole},
				{"stream", func(w io.Writer, res *planResult) error { return writeJSON(w, res, false) }},
			} {
				b.Run("writer="+w.name, func(b *testing.B) {
					b.ReportAllocs()
					b.SetBytes(int64(out.Len()))
					for b.Loop() {
						if err := w.write(io.Discard, res); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		})
	}
}
