package generator

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/tenantkit/tenantkit/inventory"
)

// TestMissingMetadataFile: a spec whose fromSource.path names a file per
// namespace requires it, as source-watcher's loadNamespaceMetadataFromSource
// does ("failed to read namespace metadata file"). A tenant without it is an
// error at the fromSource.path field naming the file; its namespace and
// artifacts are skipped, kept when tracked, never deleted; the other
// tenants proceed. With the file, the namespace is built from it.
func TestMissingMetadataFile(t *testing.T) {
	t.Parallel()
	const file = "tenants/tenant-b/namespace-metadata.yaml"
	shapes := map[string]func() Spec{"managedNamespaces": testSpec}
	for _, shape := range sortedKeys(shapes) {
		for _, tt := range []struct {
			name    string
			file    bool // tenant-b has its file
			tracked bool // tenant-b's namespace and artifact are in the previous inventory, and live
			want    []string
		}{
			{name: "missing", want: []string{
				"Namespace/tenant-ok created",
				"ExternalArtifact/tenant-ok/app created",
				`Namespace/tenant-b skipped (its metadata has errors)`,
				`ExternalArtifact/tenant-b/x skipped (namespace "tenant-b": its metadata has errors)`,
			}},
			{name: "missing, tracked", tracked: true, want: []string{
				"Namespace/tenant-ok created",
				"ExternalArtifact/tenant-ok/app created",
				`Namespace/tenant-b skipped (its metadata has errors; kept in the inventory)`,
				`ExternalArtifact/tenant-b/x skipped (namespace "tenant-b": its metadata has errors; kept in the inventory)`,
			}},
			{name: "present", file: true, want: []string{
				"Namespace/tenant-b created",
				"Namespace/tenant-ok created",
				"ExternalArtifact/tenant-b/x created",
				"ExternalArtifact/tenant-ok/app created",
			}},
			{name: "present, tracked", file: true, tracked: true, want: []string{
				"Namespace/tenant-b configured",
				"Namespace/tenant-ok created",
				"ExternalArtifact/tenant-b/x configured",
				"ExternalArtifact/tenant-ok/app created",
			}},
		} {
			t.Run(shape+"/"+tt.name, func(t *testing.T) {
				t.Parallel()
				fsys := tree(okTenant, "tenants/tenant-b/modules/x/manifests/a.yaml=kind: A\n")
				if tt.file {
					fsys[file] = &fstest.MapFile{Data: []byte(metadataFile("team", "payments"))}
				}
				var previous []inventory.Entry
				c := &fakeCluster{}
				if tt.tracked {
					previous = []inventory.Entry{nsEntry("tenant-b"), artEntry("tenant-b", "x")}
					c.live(previous, map[string]string{GeneratorLabel: testUID}, nil)
				}
				p := mustPlan(t, mustCompile(t, shapes[shape]()), sources(fsys), previous, c.cluster())
				var got []string
				for _, d := range p.Decisions {
					got = append(got, d.String())
				}
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("decisions (-want +got):\n%s", diff)
				}
				next := map[string]bool{}
				for _, e := range p.Next(func(inventory.Entry) bool { return true }) {
					next[e.ID().String()] = true
				}
				if tt.tracked && (!next["Namespace/tenant-b"] || !next["ExternalArtifact/tenant-b/x"]) {
					t.Errorf("next inventory %v lacks tenant-b's objects", sortedKeys(next))
				}
				if tt.file {
					if p.HasErrors() {
						t.Fatalf("errors %v", p.Errors.ToAggregate())
					}
					if got := p.Namespaces[0]; got.Name != "tenant-b" || got.Labels["team"] != "payments" {
						t.Errorf("namespace %s has labels %v, want team=payments from its file", got.Name, got.Labels)
					}
					return
				}
				fp := "spec." + shape + ".metadata.fromSource.path"
				if len(p.Errors) != 1 {
					t.Fatalf("errors %v, want one", p.Errors.ToAggregate())
				}
				e := p.Errors[0]
				if e.Field != fp || e.Type != field.ErrorTypeInvalid || e.BadValue != "@repo/"+file ||
					!strings.HasPrefix(e.Detail, `must exist: the NamespaceMetadata file of namespace "tenant-b", rendered from directory "tenants/tenant-b/modules/x": `) {
					t.Errorf("error %v, want one at %s naming @repo/%s that must exist", e, fp, file)
				}
			})
		}
	}
}

// TestMetadataFileErrors: a tenant's NamespaceMetadata file that is not one
// at all is an error at the file itself, and one with a bad field an error
// at the field in the file, each saying what is wrong in the file's words,
// without nsmeta's name or the YAML decoder's (issue 38, item 4); the
// namespace and its artifact are skipped, and the other tenant proceeds.
func TestMetadataFileErrors(t *testing.T) {
	t.Parallel()
	const file = "@repo/tenants/tenant-b/namespace-metadata.yaml"
	for _, tt := range []struct {
		name string
		data string
		want string
	}{
		{name: "not YAML", data: "metadata: [\n",
			want: file + ": Invalid value: must be valid YAML: line 1: did not find expected node content"},
		{name: "a repeated key", data: emptyMetadataFile + "kind: NamespaceMetadata\n",
			want: file + `: Invalid value: must be valid YAML: line 3: key "kind" already set in map`},
		{name: "two documents", data: emptyMetadataFile + "---\n" + emptyMetadataFile,
			want: file + ": Invalid value: must hold exactly one YAML document"},
		{name: "a number for a label", data: metadataFile("tier", "1"),
			want: file + ":metadata.labels[tier]: Invalid value: 1: must be a string; quote it"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			fsys := tree(okTenant, "tenants/tenant-b/modules/x", "tenants/tenant-b/namespace-metadata.yaml="+tt.data)
			p := mustPlan(t, mustCompile(t, testSpec()), sources(fsys), nil, (&fakeCluster{}).cluster())
			var got []string
			for _, e := range p.Errors {
				got = append(got, e.Error())
			}
			if diff := cmp.Diff([]string{tt.want}, got); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
			var decisions []string
			for _, d := range p.Decisions {
				decisions = append(decisions, d.String())
			}
			want := []string{
				"Namespace/tenant-ok created",
				"ExternalArtifact/tenant-ok/app created",
				"Namespace/tenant-b skipped (its metadata has errors)",
				`ExternalArtifact/tenant-b/x skipped (namespace "tenant-b": its metadata has errors)`,
			}
			if diff := cmp.Diff(want, decisions); diff != "" {
				t.Errorf("decisions (-want +got):\n%s", diff)
			}
		})
	}
}
