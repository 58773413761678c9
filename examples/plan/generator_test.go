package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// kubectlGet is testdata/kubectl-get.yaml: the sample ArtifactGenerator as
// kubectl get artifactgenerator NAME -o yaml prints it, with the metadata
// the API server sets and a status.
func kubectlGet(t testing.TB) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "kubectl-get.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// kubectlList is what kubectl get artifactgenerator -o yaml prints for
// the objects, without a name: a List (the objects' comments left out).
func kubectlList(objects ...string) string {
	if len(objects) == 0 {
		return "apiVersion: v1\nitems: []\nkind: List\nmetadata:\n  resourceVersion: \"\"\n"
	}
	var b strings.Builder
	b.WriteString("apiVersion: v1\nitems:\n")
	for _, o := range objects {
		prefix := "- "
		for l := range strings.Lines(o) {
			if strings.HasPrefix(l, "#") {
				continue
			}
			b.WriteString(prefix + l)
			prefix = "  "
		}
	}
	b.WriteString("kind: List\nmetadata:\n  resourceVersion: \"\"\n")
	return b.String()
}

// TestKubectlExport plans the sample with the generator as kubectl prints
// it, with and without a name: the server-set metadata and the status are
// ignored, and the plan is the embedded sample's. The same file read as
// -inventory gives its status.inventory: nothing changes.
func TestKubectlExport(t *testing.T) {
	t.Parallel()
	_, repo := monorepo(t)
	dir := t.TempDir()
	get := filepath.Join("testdata", "kubectl-get.yaml")
	list := filepath.Join(dir, "list.yaml")
	writeFile(t, list, kubectlList(kubectlGet(t)))
	for _, file := range []string{get, list} {
		t.Run(filepath.Base(file), func(t *testing.T) {
			t.Parallel()
			code, out, stderr := tool(t, "-generator", file, "-source", "repo="+repo)
			if code != 0 || stderr != "" {
				t.Fatalf("exit %d, stderr %q", code, stderr)
			}
			golden(t, "sample.txt", out)
			code, out, stderr = tool(t, "-generator", file, "-source", "repo="+repo, "-o", "json")
			if code != 0 || stderr != "" {
				t.Fatalf("json: exit %d, stderr %q", code, stderr)
			}
			golden(t, "sample.json", out)
		})
	}
	t.Run("as the inventory too", func(t *testing.T) {
		t.Parallel()
		code, out, stderr := tool(t, "-generator", get, "-source", "repo="+repo, "-inventory", get, "-o", "json")
		if code != 0 || stderr != "" {
			t.Fatalf("exit %d, stderr %q", code, stderr)
		}
		if got := changes(decode(t, out)); len(got) != 0 {
			t.Errorf("changes %v, want none: every object unchanged", got)
		}
	})
}

// TestGeneratorInputErrors: a -generator file that is not one
// ArtifactGenerator, or one with a field its types do not have or a value
// of the wrong type, is bad input: exit 2, nothing on stdout, and one line
// on stderr naming the path of each field, what was found and what was
// expected, in the tool's words (no Go type, no JSON decoder).
func TestGeneratorInputErrors(t *testing.T) {
	t.Parallel()
	export := kubectlGet(t)
	other := strings.Replace(export, "  name: monorepo-tenants\n", "  name: other\n", 1)
	tests := []struct {
		name    string
		content string
		want    string // stderr after "plan: -generator FILE: "
	}{
		{
			name:    "unknown field in a copy operation",
			content: strings.Replace(export, "      from: '@repo/", "      frm: '@repo/", 1),
			want:    "spec.artifacts[0].copy[0].frm: unknown field",
		},
		{
			name:    "unknown field in metadata",
			content: strings.Replace(export, "  labels:\n    kustomize", "  lables:\n    kustomize", 1),
			want:    "metadata.lables: unknown field",
		},
		{
			name:    "unknown top-level field",
			content: strings.Replace(export, "\nspec:\n", "\nspce:\n  x: 1\nspec:\n", 1),
			want:    "spce: unknown field",
		},
		{
			name:    "a field in another case",
			content: strings.Replace(export, "  pathPattern: '@repo", "  PathPattern: '@repo", 1),
			want:    "spec.PathPattern: unknown field",
		},
		{
			name:    "the unreleased spec.namespaces",
			content: strings.Replace(export, "  managedNamespaces:\n", "  namespaces:\n    strategy: Managed\n  managedNamespaces:\n", 1),
			want:    "spec.namespaces: unknown field",
		},
		{
			name:    "wrong type",
			content: strings.Replace(export, "    prune: true\n", "    prune: \"true\"\n", 1),
			want:    "spec.managedNamespaces.prune: must be a boolean, found a string",
		},
		{
			name: "several, sorted by path",
			content: strings.Replace(strings.Replace(export, "    prune: true\n", "    prune: [true]\n", 1),
				"  - alias: repo\n", "  - alais: repo\n", 1),
			want: "spec.managedNamespaces.prune: must be a boolean, found a list; spec.sources[0].alais: unknown field",
		},
		{
			name:    "unknown field in a List's item",
			content: kubectlList(strings.Replace(export, "  pathPattern:", "  pathPatern:", 1)),
			want:    "items[0].spec.pathPatern: unknown field",
		},
		{
			name:    "wrong apiVersion",
			content: strings.Replace(export, "apiVersion: source.extensions.fluxcd.io/v1beta1\nkind", "apiVersion: source.extensions.fluxcd.io/v1alpha1\nkind", 1),
			want:    `apiVersion: must be "source.extensions.fluxcd.io/v1beta1", found "source.extensions.fluxcd.io/v1alpha1"`,
		},
		{
			name:    "wrong kind",
			content: strings.Replace(export, "kind: ArtifactGenerator\n", "kind: Kustomization\n", 1),
			want:    `kind: must be "ArtifactGenerator", found "Kustomization"`,
		},
		{
			name:    "no kind",
			content: strings.Replace(export, "kind: ArtifactGenerator\n", "", 1),
			want:    `kind: must be "ArtifactGenerator", found none`,
		},
		{
			name:    "wrong kind in a List",
			content: "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Namespace\n  metadata:\n    name: tenant-search\n",
			want:    `items[0].kind: must be "ArtifactGenerator", found "Namespace"`,
		},
		{
			name:    "an empty List",
			content: kubectlList(),
			want:    "a List must hold exactly one ArtifactGenerator, found 0 items",
		},
		{
			name:    "a List of two",
			content: kubectlList(export, other),
			want: "a List must hold exactly one ArtifactGenerator, found 2 items: " +
				"ArtifactGenerator flux-system/monorepo-tenants, ArtifactGenerator flux-system/other; kubectl get artifactgenerator NAME -o yaml prints one",
		},
		{
			name:    "a NamespaceList",
			content: "apiVersion: v1\nkind: NamespaceList\nitems: []\n",
			want:    `kind: must be "ArtifactGenerator", found "NamespaceList"`,
		},
		{
			name:    "a list",
			content: "- a\n",
			want:    "must be an ArtifactGenerator, a mapping, found a list",
		},
		{
			name:    "empty",
			content: "# nothing\n",
			want:    "the file must hold one YAML document, found 0",
		},
		{
			name:    "repeated key",
			content: export + "kind: ArtifactGenerator\n",
			want:    `must be valid YAML: line 163: key "kind" already set in map`,
		},
	}
	dir := t.TempDir()
	_, repo := monorepo(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			file := filepath.Join(dir, strings.ReplaceAll(tt.name, " ", "-")+".yaml")
			writeFile(t, file, tt.content)
			if tt.content == export {
				t.Fatal("the edit changed nothing")
			}
			code, out, stderr := tool(t, "-generator", file, "-source", "repo="+repo)
			if want := "plan: -generator " + file + ": " + tt.want + "\n"; code != 2 || len(out) != 0 || stderr != want {
				t.Errorf("exit %d, stdout %q, stderr\n%q; want 2, none,\n%q", code, out, stderr, want)
			}
		})
	}
}

// TestGeneratorWithoutUID: a generator without metadata.uid plans, with a
// warning on stderr that says what the missing UID changes; against the
// inventory that the generator with its UID recorded, every namespace is
// an update (its metadata lost the generator label) and every artifact is
// unchanged (its digest does not cover labels).
func TestGeneratorWithoutUID(t *testing.T) {
	t.Parallel()
	_, repo := monorepo(t)
	export := kubectlGet(t)
	noUID := strings.Replace(export, "  uid: 6f1d0c2e-6a4b-4d6e-9d53-0b7f3c1e2a10\n", "", 1)
	if noUID == export {
		t.Fatal("testdata/kubectl-get.yaml has no metadata.uid")
	}
	file := filepath.Join(t.TempDir(), "ag.yaml")
	writeFile(t, file, noUID)
	wantStderr := "plan: warning: -generator " + file + ": metadata.uid is not set: the plan puts no source.extensions.fluxcd.io/generator label " +
		"on the namespaces and artifacts, so against an inventory recorded by a generator with a UID every namespace shows as an update, " +
		"and a live object that carries the label is never deleted (kubectl get artifactgenerator NAME -o yaml prints the UID)\n"

	code, out, stderr := tool(t, "-generator", file, "-source", "repo="+repo, "-inventory", filepath.Join("testdata", "kubectl-get.yaml"), "-o", "json")
	if code != 0 || stderr != wantStderr {
		t.Fatalf("exit %d, stderr\n%q; want 0,\n%q", code, stderr, wantStderr)
	}
	res := decode(t, out)
	// Each update says why, the missing UID included.
	why := func(from, to string) string {
		return "the digest of its labels and annotations changed (sha256:" + from + " -> sha256:" + to + "); the keys that changed are not known without -cluster; " +
			"metadata.uid is not set, so the planned labels lack source.extensions.fluxcd.io/generator, which an inventory recorded with a UID covers"
	}
	want := []line{
		{"update", "Namespace", "", "tenant-payments", why("4c902a77fedd", "c7d18bec3dd4")},
		{"update", "Namespace", "", "tenant-sandbox", why("b872c779445f", "9a9f0ed2276e")},
		{"update", "Namespace", "", "tenant-search", why("af0cfbcb578b", "83e9c60347b2")},
	}
	if diff := cmp.Diff(want, changes(res), cmp.AllowUnexported(line{})); diff != "" {
		t.Errorf("changes (-want +got):\n%s", diff)
	}
	for _, ns := range res.Namespaces {
		if v, ok := ns.Labels["source.extensions.fluxcd.io/generator"]; ok {
			t.Errorf("namespace %s has the generator label %q", ns.Name, v)
		}
	}

	// With the UID, no warning.
	code, _, stderr = tool(t, "-generator", filepath.Join("testdata", "kubectl-get.yaml"), "-source", "repo="+repo)
	if code != 0 || stderr != "" {
		t.Errorf("with the UID: exit %d, stderr %q", code, stderr)
	}
}
