package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

var cmpEmpty = cmpopts.EquateEmpty()

// TestInventoryRefused: an -inventory file that is none of the documented
// shapes is bad input, exit 2, never an empty inventory: nothing on
// stdout, and one line on stderr that says what the file holds and what
// -inventory takes (issue 38, item 1: a List holding the generator, a
// NamespaceList or unrelated JSON planned as if nothing were tracked,
// hiding the deletions).
func TestInventoryRefused(t *testing.T) {
	t.Parallel()
	gen, repo := monorepo(t)
	export := kubectlGet(t)
	other := strings.Replace(export, "  name: monorepo-tenants\n", "  name: other\n", 1)
	const takes = "; -inventory takes an ArtifactGenerator (its status.inventory), a List holding exactly one, " +
		"this tool's -o json output (its inventory), a list of inventory entries, a Flux ResourceInventory (entries of id and v), " +
		"or an object whose status.inventory is one (a Kustomization, a ResourceSet)"
	tests := []struct {
		name, content string
		want          string // stderr after "plan: -inventory FILE: "
	}{
		{
			name:    "a NamespaceList",
			content: "apiVersion: v1\nkind: NamespaceList\nitems:\n- apiVersion: v1\n  kind: Namespace\n  metadata: {name: tenant-search}\n",
			want:    "found a NamespaceList (v1) without an inventory of Flux entries at status.inventory" + takes,
		},
		{
			name:    "a List of two generators",
			content: kubectlList(export, other),
			want: "a List must hold exactly one ArtifactGenerator, found 2 items: ArtifactGenerator flux-system/monorepo-tenants, " +
				"ArtifactGenerator flux-system/other; kubectl get artifactgenerator NAME -o yaml prints one" + takes,
		},
		{
			name:    "an empty List",
			content: kubectlList(),
			want:    "a List must hold exactly one ArtifactGenerator, found 0 items" + takes,
		},
		{
			name:    "a List of namespaces",
			content: "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Namespace\n  metadata: {name: tenant-search}\n",
			want:    `items[0].kind: must be "ArtifactGenerator", found "Namespace"` + takes,
		},
		{
			name:    "unrelated JSON",
			content: `{"hello": "world", "items": [1, 2]}`,
			want:    "found a mapping with keys hello, items and no kind" + takes,
		},
		{name: "an empty mapping", content: "{}\n", want: "found an empty mapping" + takes},
		{name: "a string", content: "inventory\n", want: "found a string" + takes},
		{name: "an empty file", content: "", want: "the file must hold one YAML document, found 0"},
		{name: "comments only", content: "# status:\n#   inventory: []\n", want: "the file must hold one YAML document, found 0"},
		{
			name:    "a Kustomization without an inventory",
			content: "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {name: tenants, namespace: flux-system}\nstatus: {}\n",
			want:    "found a Kustomization (kustomize.toolkit.fluxcd.io/v1) without an inventory of Flux entries at status.inventory" + takes,
		},
		{
			name:    "a Deployment",
			content: "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec: {replicas: 1}\n",
			want:    "found a Deployment (apps/v1) without an inventory of Flux entries at status.inventory" + takes,
		},
		{
			name:    "a generator of another version",
			content: strings.Replace(export, "apiVersion: source.extensions.fluxcd.io/v1beta1\nkind", "apiVersion: source.extensions.fluxcd.io/v1alpha1\nkind", 1),
			want:    `apiVersion: must be "source.extensions.fluxcd.io/v1beta1", found "source.extensions.fluxcd.io/v1alpha1"` + takes,
		},
		{
			name:    "a generator whose status is a list",
			content: "apiVersion: source.extensions.fluxcd.io/v1beta1\nkind: ArtifactGenerator\nmetadata: {name: g}\nstatus: []\n",
			want:    "status: must be a mapping, found a list",
		},
		{
			name:    "an unknown field of an entry",
			content: "[{kind: Namespace, nmae: tenant-search}]\n",
			want:    "[0].nmae: unknown field",
		},
		{
			name:    "an unknown field of a generator's entry, in a List",
			content: kubectlList(strings.Replace(export, "    kind: Namespace\n    name: tenant-sandbox\n", "    kind: Namespace\n    nmae: tenant-sandbox\n", 1)),
			want:    "items[0].status.inventory[1].nmae: unknown field",
		},
		{
			name:    "Flux's entries in an ArtifactGenerator",
			content: "apiVersion: source.extensions.fluxcd.io/v1beta1\nkind: ArtifactGenerator\nmetadata: {name: g}\nstatus:\n  inventory:\n    entries: []\n",
			want:    "status.inventory: must be a list, found a mapping",
		},
		{
			name:    "an entry without a name",
			content: `{"inventory": [{"kind": "Namespace"}], "changes": []}`,
			want:    "inventory[0].name: Required value",
		},
		{
			name:    "a bad Flux id",
			content: `{"entries": [{"id": "bad", "v": "v1"}]}`,
			want:    `entries[0].id: Invalid value: "bad": must be "<namespace>_<name>_<group>_<kind>"`,
		},
		{
			name:    "a bad Flux id in a Kustomization",
			content: "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {name: tenants}\nstatus:\n  inventory:\n    entries:\n    - {id: bad, v: v1}\n",
			want:    `status.inventory.entries[0].id: Invalid value: "bad": must be "<namespace>_<name>_<group>_<kind>"`,
		},
		{
			name:    "an entry listed twice",
			content: "[{kind: Namespace, name: a}, {kind: Namespace, name: a}]\n",
			want:    "[1]: Duplicate value: \"Namespace/a\"",
		},
	}
	dir := t.TempDir()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			file := filepath.Join(dir, strings.ReplaceAll(tt.name, " ", "-")+".yaml")
			writeFile(t, file, tt.content)
			code, out, stderr := tool(t, "-generator", gen, "-source", "repo="+repo, "-inventory", file)
			if want := "plan: -inventory " + file + ": " + tt.want + "\n"; code != 2 || len(out) != 0 || stderr != want {
				t.Errorf("exit %d, stdout %q, stderr\n%q; want 2, none,\n%q", code, out, stderr, want)
			}
		})
	}
}

// TestInventoryShapes: each documented shape of -inventory reads as the
// inventory it holds, and an empty one is stated in the output, text and
// JSON, every time: "every object is a create" is never silent.
func TestInventoryShapes(t *testing.T) {
	t.Parallel()
	gen, repo := monorepo(t)
	code, out, stderr := tool(t, "-generator", gen, "-source", "repo="+repo, "-o", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var plan struct {
		Inventory json.RawMessage `json:"inventory"`
	}
	if err := json.Unmarshal(out, &plan); err != nil {
		t.Fatal(err)
	}
	export := kubectlGet(t)
	var fluxEntries []string
	for _, c := range decode(t, out).Changes {
		group := ""
		if c.Kind == "ExternalArtifact" {
			group = "source.toolkit.fluxcd.io"
		}
		fluxEntries = append(fluxEntries, `{"id": "`+c.Namespace+"_"+c.Name+"_"+group+"_"+c.Kind+`", "v": "v1"}`)
	}
	flux := `{"entries": [` + strings.Join(fluxEntries, ", ") + `]}`
	noStatus := "apiVersion: source.extensions.fluxcd.io/v1beta1\nkind: ArtifactGenerator\nmetadata: {name: tenants, namespace: flux-system}\nspec: {}\n"
	dir := t.TempDir()
	tests := []struct {
		name, content string
		unchanged     int    // unchanged objects in the plan
		empty         string // the assumption stated for an empty inventory
	}{
		{name: "this tool's own JSON output", content: string(out), unchanged: 7},
		{name: "a bare list", content: string(plan.Inventory), unchanged: 7},
		{name: "a generator as kubectl prints it", content: export, unchanged: 7},
		{name: "a generator in a List", content: kubectlList(export), unchanged: 7},
		{name: "a Flux ResourceInventory", content: flux, unchanged: 0}, // no digests: every object an update
		{name: "a Kustomization", content: "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {name: t}\nstatus:\n  inventory: " + flux + "\n"},
		{
			name: "a generator without status.inventory", content: noStatus,
			empty: "ArtifactGenerator flux-system/tenants, which has no status.inventory (it has applied nothing yet)",
		},
		{
			name: "a generator with an empty status", content: strings.Replace(noStatus, "spec: {}", "status: {}", 1),
			empty: "ArtifactGenerator flux-system/tenants, which has no status.inventory (it has applied nothing yet)",
		},
		{
			name: "a generator whose status.inventory is empty", content: strings.Replace(noStatus, "spec: {}", "status: {inventory: []}", 1),
			empty: "ArtifactGenerator flux-system/tenants, status.inventory",
		},
		{name: "an empty list", content: "[]\n", empty: "a list of entries"},
		{name: "an empty plan", content: `{"changes": [], "inventory": []}`, empty: "a plan of this tool (-o json)"},
		{name: "an empty ResourceInventory", content: `{"entries": []}`, empty: "a Flux ResourceInventory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			file := filepath.Join(dir, strings.ReplaceAll(tt.name, " ", "-"))
			writeFile(t, file, tt.content)
			code, out, stderr := tool(t, "-generator", gen, "-source", "repo="+repo, "-inventory", file, "-o", "json")
			if code != 0 || stderr != "" {
				t.Fatalf("exit %d, stderr %q", code, stderr)
			}
			res := decode(t, out)
			counts := map[string]int{}
			for _, c := range res.Changes {
				counts[c.Action]++
			}
			if counts["unchanged"] != tt.unchanged {
				t.Errorf("%d unchanged, want %d (changes %v)", counts["unchanged"], tt.unchanged, counts)
			}
			var want []string
			if tt.empty != "" {
				want = []string{"the previous inventory is empty (-inventory " + file + ": " + tt.empty + "): every object is a create"}
				if counts["create"] != 7 {
					t.Errorf("%d created, want 7", counts["create"])
				}
			}
			if diff := cmp.Diff(want, res.Assumptions[:len(res.Assumptions)-1], cmpEmpty); diff != "" {
				t.Errorf("assumptions (-want +got):\n%s", diff)
			}
			_, text, _ := tool(t, "-generator", gen, "-source", "repo="+repo, "-inventory", file)
			for _, a := range want {
				if !strings.Contains(string(text), "\nAssumptions (2)\n  "+a+"\n") {
					t.Errorf("the text output does not state %q:\n%s", a, text)
				}
			}
		})
	}
}
