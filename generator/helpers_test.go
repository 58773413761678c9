package generator

import (
	"context"
	"errors"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/opencontainers/go-digest"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"

	"github.com/tenantkit/tenantkit/finalizer"
	"github.com/tenantkit/tenantkit/inventory"
	"github.com/tenantkit/tenantkit/nsmeta"
)

const testUID = "uid-a"

// testSpec is a small tenant generator: one artifact per module, managed
// namespaces named tenant-*, a metadata file whose "team" label must be
// short.
func testSpec() Spec {
	prune := true
	return Spec{
		ServiceAccountName: "flux-operator",
		PathPattern:        "@repo/tenants/{namespace}/modules/{module}",
		CommonMetadata:     &nsmeta.Metadata{Labels: map[string]string{"my.org.io/provisioner": "monorepo"}},
		Sources:            []SourceReference{{Alias: "repo", Kind: "OCIRepository", Name: "monorepo"}},
		Artifacts: []OutputArtifact{{
			Name:       "{module}",
			Namespace:  "{namespace}",
			InputsFrom: "@repo/tenants/{namespace}/modules/{module}/inputs.yaml",
			Copy:       []CopyOperation{{From: "@repo/tenants/{namespace}/modules/{module}/manifests/**", To: "@artifact/", Exclude: []string{"*.md"}}},
		}},
		ManagedNamespaces: &ManagedNamespaces{
			AllowedNames: []string{`ns.startsWith("tenant-")`},
			Prune:        &prune,
			Metadata: &NamespaceMetadata{FromSource: &MetadataFromSource{
				Path:          "@repo/tenants/{namespace}/namespace-metadata.yaml",
				AllowedLabels: map[string]string{"team": "value.size() <= 10"},
			}},
		},
	}
}

// mustCompile compiles spec with the test UID and namespace, and with file
// lists (TestFileLists checks plans without them).
func mustCompile(t testing.TB, spec Spec, opts ...Option) *Generator {
	t.Helper()
	opts = append([]Option{WithUID(testUID), WithNamespace("flux-system"), WithFileLists()}, opts...)
	g, errs := Compile(spec, opts...)
	if len(errs) > 0 {
		t.Fatalf("Compile() = %v", errs.ToAggregate())
	}
	return g
}

// tree builds a monorepo from "path" or "path=content" arguments; a module
// directory "tenants/<t>/modules/<m>" alone gets one manifest, and its
// tenant the NamespaceMetadata file that testSpec requires
// ("tenants/<t>/namespace-metadata.yaml", asking for nothing), unless an
// argument gives that file.
func tree(paths ...string) fstest.MapFS {
	fsys := fstest.MapFS{}
	var tenants []string
	for _, p := range paths {
		name, content, ok := strings.Cut(p, "=")
		if !ok && strings.Count(name, "/") == 3 && strings.Contains(name, "/modules/") {
			fsys[name+"/manifests/deploy.yaml"] = &fstest.MapFile{Data: []byte("kind: Deployment\n")}
			tenant, _, _ := strings.Cut(name, "/modules/")
			tenants = append(tenants, tenant)
			continue
		}
		fsys[name] = &fstest.MapFile{Data: []byte(content)}
	}
	for _, t := range tenants {
		if _, ok := fsys[t+"/namespace-metadata.yaml"]; !ok {
			fsys[t+"/namespace-metadata.yaml"] = &fstest.MapFile{Data: []byte(emptyMetadataFile)}
		}
	}
	return fsys
}

// emptyMetadataFile is a NamespaceMetadata file that asks for nothing.
const emptyMetadataFile = "apiVersion: source.extensions.fluxcd.io/v1beta1\nkind: NamespaceMetadata\n"

func sources(fsys fstest.MapFS) map[string]fs.FS { return map[string]fs.FS{"repo": fsys} }

// fakeCluster is an in-memory cluster. A nil map reads as empty.
type fakeCluster struct {
	objects   map[inventory.ID]Object
	uids      map[inventory.ID]string // finalizer objects, by identity
	objectErr error                   // every Object call fails with it
	failing   map[inventory.ID]error  // Object calls for these fail
	listErr   error
	lookupErr error
}

func (c *fakeCluster) Object(_ context.Context, id inventory.ID) (Object, error) {
	if c.objectErr != nil {
		return Object{}, c.objectErr
	}
	if err := c.failing[id]; err != nil {
		return Object{}, err
	}
	o, ok := c.objects[id]
	if !ok {
		return Object{}, finalizer.ErrNotFound
	}
	return o, nil
}

func (c *fakeCluster) ExternalArtifacts(_ context.Context, ns string) ([]Object, error) {
	if c.listErr != nil {
		return nil, c.listErr
	}
	var out []Object
	for id, o := range c.objects {
		if id.Kind == artifactKind && id.Namespace == ns {
			out = append(out, o)
		}
	}
	return out, nil
}

func (c *fakeCluster) UID(_ context.Context, r finalizer.Reference) (string, error) {
	if c.lookupErr != nil {
		return "", c.lookupErr
	}
	uid, ok := c.uids[inventory.ID{Group: r.Group, Kind: r.Kind, Namespace: r.Namespace, Name: r.Name}]
	if !ok {
		return "", finalizer.ErrNotFound
	}
	return uid, nil
}

func (c *fakeCluster) cluster() Cluster { return Cluster{Objects: c, Artifacts: c, Finalizers: c} }

// live adds live objects for entries, with the given labels and annotations.
func (c *fakeCluster) live(entries []inventory.Entry, labels, annotations map[string]string) *fakeCluster {
	if c.objects == nil {
		c.objects = map[inventory.ID]Object{}
	}
	for _, e := range entries {
		c.objects[e.ID()] = Object{ID: e.ID(), Labels: labels, Annotations: annotations}
	}
	return c
}

func nsEntry(name string) inventory.Entry {
	return inventory.Entry{APIVersion: "v1", Kind: "Namespace", Name: name, Digest: digest.Digest("sha256:" + strings.Repeat("0", 64))}
}

// asStatus returns entries as Plan.Next writes them: a Namespace or an
// ExternalArtifact without apiVersion, as source-watcher's status.inventory.
func asStatus(entries ...inventory.Entry) []inventory.Entry {
	out := slices.Clone(entries)
	for i := range out {
		out[i].APIVersion = ""
	}
	return out
}

func artEntry(ns, name string) inventory.Entry {
	return inventory.Entry{APIVersion: artifactAPIVersion, Kind: artifactKind, Namespace: ns, Name: name, Digest: digest.Digest("sha256:" + strings.Repeat("0", 64))}
}

// decisions returns the plan's decisions as "action Subject (reason)"
// strings, by subject.
func decisions(p *Plan) map[string]inventory.Decision {
	out := map[string]inventory.Decision{}
	for _, d := range p.Decisions {
		out[d.Entry.ID().String()] = d
	}
	return out
}

func mustPlan(t testing.TB, g *Generator, fsys map[string]fs.FS, previous []inventory.Entry, c Cluster) *Plan {
	t.Helper()
	p, err := g.Plan(context.Background(), fsys, previous, c)
	if err != nil {
		t.Fatalf("Plan() = %v", err)
	}
	for _, d := range p.Decisions {
		if d.Action == inventory.Delete && p.HasErrors() {
			t.Fatalf("a plan with errors deletes %s: %v", d, p.Errors.ToAggregate())
		}
		if d.Action != inventory.Create && d.Action != inventory.Update && d.Action != inventory.Unchanged && d.Reason == "" {
			t.Fatalf("decision without a reason: %s", d)
		}
	}
	return p
}

// hasError reports whether errs holds an error at fieldPath whose detail
// contains detail.
func hasError(errs field.ErrorList, fieldPath, detail string) bool {
	for _, e := range errs {
		if e.Field == fieldPath && strings.Contains(e.Detail, detail) {
			return true
		}
	}
	return false
}

// sampleSpec reads the spec of the sample ArtifactGenerator of examples/plan.
func sampleSpec(t testing.TB) (Spec, []Option) {
	t.Helper()
	data, err := os.ReadFile("../examples/plan/sample/generator.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		Metadata struct {
			Namespace string `json:"namespace"`
			UID       string `json:"uid"`
		} `json:"metadata"`
		Spec Spec `json:"spec"`
	}
	if err := yaml.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	return m.Spec, []Option{WithUID(m.Metadata.UID), WithNamespace(m.Metadata.Namespace)}
}

var errBoom = errors.New("boom")

func mustSub(fsys fs.FS, dir string) fs.FS {
	sub, err := fs.Sub(fsys, dir)
	if err != nil {
		panic(err)
	}
	return sub
}

func sortedKeys[V any](m map[string]V) []string {
	return slices.Sorted(maps.Keys(m))
}

func itoa(n int) string { return strconv.Itoa(n) }

// writeFile writes content to path, making its directories.
func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
