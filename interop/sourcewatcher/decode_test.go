package sourcewatcher_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/fluxcd/source-watcher/api/v2/v1beta1"
	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/yaml"

	"github.com/tenantkit/tenantkit/generator"
)

// manifestTests are released-shape ArtifactGenerator manifests in testdata/,
// each with a summary of what it exercises, checked before the comparison
// so that a manifest that stops holding what its name says fails.
var manifestTests = []struct {
	name  string
	file  string
	check func(t *testing.T, s v1beta1.ArtifactGeneratorSpec)
}{
	{
		name: "static artifacts",
		file: "static-artifacts.yaml",
		check: func(t *testing.T, s v1beta1.ArtifactGeneratorSpec) {
			if s.PathPattern != "" || len(s.OutputArtifacts) != 2 || s.OutputArtifacts[1].Namespace != "staging" || s.Sources[1].Namespace != "flux-system" {
				t.Errorf("not two static artifacts, one in another namespace, with a source in another namespace: %+v", s)
			}
		},
	},
	{
		name: "pathPattern with managedNamespaces, fromSource and every from strategy",
		file: "tenants-managed-namespaces.yaml",
		check: func(t *testing.T, s v1beta1.ArtifactGeneratorSpec) {
			m := s.ManagedNamespaces
			if s.PathPattern == "" || m == nil || !m.Prune || len(m.AllowedNames) != 2 || m.Metadata == nil || m.Metadata.FromSource == nil ||
				len(m.Metadata.FromSource.AllowedLabels) != 2 || len(m.Metadata.FromSource.AllowedAnnotations) != 1 {
				t.Fatalf("not a pattern with pruned managed namespaces and a fromSource schema: %+v", s)
			}
			var got []string
			for _, op := range m.Metadata.From {
				got = append(got, op.Strategy)
			}
			want := []string{v1beta1.NamespaceMetadataResetStrategy, v1beta1.OverrideStrategy, v1beta1.MergeStrategy}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("from strategies (-want +got):\n%s", diff)
			}
		},
	},
	{
		name: "copy strategies with exclude and optional",
		file: "copy-strategies.yaml",
		check: func(t *testing.T, s v1beta1.ArtifactGeneratorSpec) {
			var strategies []string
			excludes, optionals := 0, 0
			for _, c := range s.OutputArtifacts[0].Copy {
				strategies = append(strategies, c.Strategy)
				excludes += len(c.Exclude)
				if c.Optional {
					optionals++
				}
			}
			want := []string{v1beta1.OverwriteStrategy, v1beta1.MergeStrategy, v1beta1.MergeStrategy, v1beta1.ExtractStrategy}
			if diff := cmp.Diff(want, strategies); diff != "" {
				t.Errorf("copy strategies (-want +got):\n%s", diff)
			}
			if excludes != 4 || optionals != 2 {
				t.Errorf("got %d excludes and %d optional copies, want 4 and 2", excludes, optionals)
			}
		},
	},
	{
		name: "inputsFrom the artifact, revisions, service account, common metadata",
		file: "artifact-inputs-revisions.yaml",
		check: func(t *testing.T, s v1beta1.ArtifactGeneratorSpec) {
			a := s.OutputArtifacts[0]
			if !strings.HasPrefix(a.InputsFrom, "@"+v1beta1.ArtifactAlias+"/") || a.Revision != "@apps" || a.OriginRevision != "@base_config" ||
				s.ServiceAccountName == "" || s.CommonMetadata == nil || len(s.CommonMetadata.Labels) != 2 || len(s.CommonMetadata.Annotations) != 1 ||
				s.ManagedNamespaces == nil || s.ManagedNamespaces.Prune || s.ManagedNamespaces.Metadata.FromSource != nil {
				t.Errorf("not the artifact inputs, revisions, service account, common metadata and unpruned from-only namespaces: %+v", s)
			}
		},
	},
	{
		name: "exported from a cluster",
		file: "exported-from-cluster.yaml",
		check: func(t *testing.T, s v1beta1.ArtifactGeneratorSpec) {
			if s.ManagedNamespaces == nil || s.ManagedNamespaces.Metadata.FromSource == nil {
				t.Errorf("not a spec with managed namespaces from a source: %+v", s)
			}
		},
	},
}

// TestDecodeReleasedManifests decodes each manifest strictly into the
// released ArtifactGenerator and its spec strictly into generator.Spec, and
// compares the two specs as JSON values, field by field, and both with the
// manifest's own spec, so that neither drops or adds anything; the spec
// then compiles in the manifest's namespace.
//
// Nothing is normalized: every manifest sets managedNamespaces.prune, as the
// released CRD requires, so the released bool and tenantkit's *bool marshal
// alike; an absent prune is a validation case (TestValidationMarkers).
func TestDecodeReleasedManifests(t *testing.T) {
	t.Parallel()
	for _, tt := range manifestTests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			data, err := os.ReadFile(filepath.Join("testdata", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			var released v1beta1.ArtifactGenerator
			if err := yaml.UnmarshalStrict(data, &released); err != nil {
				t.Fatalf("released v1beta1.ArtifactGenerator refuses the manifest: %v", err)
			}
			if released.Kind != v1beta1.ArtifactGeneratorKind || released.APIVersion != v1beta1.GroupVersion.String() {
				t.Fatalf("manifest is %s %s, want %s %s", released.APIVersion, released.Kind, v1beta1.GroupVersion, v1beta1.ArtifactGeneratorKind)
			}
			tt.check(t, released.Spec)

			rawSpec := manifestSpec(t, data)
			spec, err := decodeSpec(rawSpec)
			if err != nil {
				t.Fatalf("generator.Spec refuses the manifest's spec: %v", err)
			}

			want := jsonValue(t, released.Spec)
			if diff := cmp.Diff(want, jsonValue(t, spec)); diff != "" {
				t.Errorf("generator.Spec differs from the released spec (-released +tenantkit):\n%s", diff)
			}
			var manifest any
			if err := json.Unmarshal(rawSpec, &manifest); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(manifest, want); diff != "" {
				t.Errorf("the released spec differs from the manifest's (-manifest +released):\n%s", diff)
			}

			uid := string(released.UID)
			if uid == "" {
				uid = testUID
			}
			if _, errs := generator.Compile(spec, generator.WithNamespace(released.Namespace), generator.WithUID(uid)); len(errs) > 0 {
				t.Errorf("the released manifest does not compile: %v", errs)
			}
		})
	}
}

// manifestSpec returns the spec of a YAML manifest as JSON.
func manifestSpec(t *testing.T, data []byte) json.RawMessage {
	t.Helper()
	j, err := yaml.YAMLToJSON(data)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(j, &doc); err != nil {
		t.Fatal(err)
	}
	if doc["spec"] == nil {
		t.Fatal("manifest has no spec")
	}
	return doc["spec"]
}

// decodeSpec decodes a JSON spec into generator.Spec, refusing unknown
// fields and anything after the spec.
func decodeSpec(data []byte) (generator.Spec, error) {
	var spec generator.Spec
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&spec); err != nil {
		return generator.Spec{}, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return generator.Spec{}, errors.New("data after the spec")
	}
	return spec, nil
}

// jsonValue marshals v and decodes it as a generic JSON value.
func jsonValue(t *testing.T, v any) any {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestReleasedFieldsInSpec walks the released spec types' JSON fields
// recursively and checks that generator.Spec's types have each path with a
// compatible JSON kind: a field that a later release adds fails here by its
// path.
func TestReleasedFieldsInSpec(t *testing.T) {
	t.Parallel()
	released := jsonPaths(reflect.TypeFor[v1beta1.ArtifactGeneratorSpec](), "spec")
	tenantkit := jsonPaths(reflect.TypeFor[generator.Spec](), "spec")
	if len(released) < 30 {
		t.Fatalf("walked only %d released paths: %v", len(released), released)
	}
	missing := ""
	for _, p := range sortedKeys(released) {
		got, ok := tenantkit[p]
		switch {
		case missing != "" && isBelow(p, missing):
			// reported with its parent
		case !ok:
			missing = p
			t.Errorf("%s (%s): released field missing from generator.Spec", p, released[p])
		case got != released[p]:
			t.Errorf("%s: released JSON kind %s, generator.Spec's %s", p, released[p], got)
		}
	}
}

// TestSpecFieldsReleased is the other direction: every JSON path of
// generator.Spec is a released field, so that tenantkit accepts no field
// that the released CRD refuses ("unknown field").
func TestSpecFieldsReleased(t *testing.T) {
	t.Parallel()
	released := jsonPaths(reflect.TypeFor[v1beta1.ArtifactGeneratorSpec](), "spec")
	tenantkit := jsonPaths(reflect.TypeFor[generator.Spec](), "spec")
	extra := ""
	for _, p := range sortedKeys(tenantkit) {
		if extra != "" && isBelow(p, extra) {
			continue // reported with its parent
		}
		if _, ok := released[p]; !ok {
			extra = p
			t.Errorf("%s (%s): generator.Spec field that the released spec does not have", p, tenantkit[p])
		}
	}
}

// jsonPaths returns every JSON path below t, "spec.sources[].alias", with
// the JSON kind of its value: string, boolean, number, array, map or object.
// Array elements are "[]", map values "{}".
func jsonPaths(t reflect.Type, path string) map[string]string {
	out := map[string]string{}
	var walk func(t reflect.Type, path string, depth int)
	walk = func(t reflect.Type, path string, depth int) {
		if depth > 16 {
			panic("jsonPaths: too deep at " + path)
		}
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		out[path] = jsonKind(t)
		switch t.Kind() {
		case reflect.Slice, reflect.Array:
			walk(t.Elem(), path+"[]", depth+1)
		case reflect.Map:
			walk(t.Elem(), path+"{}", depth+1)
		case reflect.Struct:
			for name, f := range jsonFields(t) {
				walk(f.Type, path+"."+name, depth+1)
			}
		}
	}
	walk(t, path, 0)
	return out
}

// jsonFields returns the fields encoding/json writes for struct t, by JSON
// name, with untagged or ",inline" embedded structs flattened.
func jsonFields(t reflect.Type) map[string]reflect.StructField {
	out := map[string]reflect.StructField{}
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		name, _, _ := strings.Cut(tag, ",")
		if name == "-" && !strings.Contains(tag, ",") {
			continue
		}
		ft := f.Type
		for ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		if f.Anonymous && name == "" && ft.Kind() == reflect.Struct {
			for n, sf := range jsonFields(ft) {
				out[n] = sf
			}
			continue
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out[name] = f
	}
	return out
}

func jsonKind(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64:
		return "number"
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 {
			return "string"
		}
		return "array"
	case reflect.Map:
		return "map"
	case reflect.Struct:
		return "object"
	}
	return t.Kind().String()
}

// isBelow reports whether JSON path p is below path parent.
func isBelow(p, parent string) bool {
	rest, ok := strings.CutPrefix(p, parent)
	return ok && rest != "" && strings.ContainsRune(".[{", rune(rest[0]))
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
