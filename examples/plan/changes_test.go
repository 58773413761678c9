package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// searchLabel changes the cost-center label of tenant-search's
// NamespaceMetadata file in repo from cc-2001 to cc-2002.
func searchLabel(t *testing.T, repo string) {
	t.Helper()
	file := filepath.Join(repo, "tenants/tenant-search/namespace-metadata.yaml")
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), "cc-2001") {
		t.Fatal("tenant-search's file does not set cc-2001")
	}
	writeFile(t, file, strings.Replace(string(data), "cc-2001", "cc-2002", 1))
}

// digestOf returns the digest the plan res gives the object, short as a
// change line prints it: the algorithm and 12 hex characters.
func digestOf(t *testing.T, res planJSON, kind, namespace, name string) string {
	t.Helper()
	for _, e := range res.Inventory {
		if e.Kind == kind && e.Namespace == namespace && e.Name == name {
			return string(e.Digest)[:len("sha256:")+12]
		}
	}
	t.Fatalf("%s %s/%s is not in the inventory", kind, namespace, name)
	return ""
}

// liveNamespaces returns a -cluster file holding the namespaces of res as
// it plans them.
func liveNamespaces(t *testing.T, res planJSON) string {
	t.Helper()
	var items []any
	for _, ns := range res.Namespaces {
		items = append(items, map[string]any{"apiVersion": "v1", "kind": "Namespace",
			"metadata": map[string]any{"name": ns.Name, "labels": ns.Labels, "annotations": ns.Annotations}})
	}
	data, err := json.Marshal(map[string]any{"apiVersion": "v1", "kind": "List", "items": items})
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// TestChangesOnly: -changes-only leaves the unchanged namespaces,
// artifacts and changes out of every section, as its help says, and each
// title says how many it left out; the counts count everything, and the
// JSON inventory stays whole (issue 38, item 6: the Namespaces and
// Artifacts sections printed every object).
func TestChangesOnly(t *testing.T) {
	t.Parallel()
	gen, repo := monorepo(t)
	prev := firstRound(t, gen, repo)
	_, first, _ := tool(t, "-generator", gen, "-source", "repo="+repo, "-o", "json")
	searchLabel(t, repo)

	code, out, stderr := tool(t, "-generator", gen, "-source", "repo="+repo, "-inventory", prev, "-changes-only")
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	_, js, _ := tool(t, "-generator", gen, "-source", "repo="+repo, "-inventory", prev, "-o", "json")
	res := decode(t, js)
	from, to := digestOf(t, decode(t, first), "Namespace", "", "tenant-search"), digestOf(t, res, "Namespace", "", "tenant-search")
	want := `Namespaces (1 of 3; unchanged left out)
  tenant-search  ` + string(res.Namespaces[2].Digest) + `
      label      my.org.io/cost-center=cc-2002                                               [source]
      label      my.org.io/provisioner=monorepo                                              [common]
      label      pod-security.kubernetes.io/enforce=baseline                                 [from[0]]
      label      source.extensions.fluxcd.io/generator=6f1d0c2e-6a4b-4d6e-9d53-0b7f3c1e2a10  [final]

Artifacts (0 of 4; unchanged left out)

Assumptions (1)
  no live cluster given (-cluster): assuming every desired namespace exists as planned and every other object without labels or annotations, with no external finalizer and no other generator's ExternalArtifact: deletions are planned as if every object were deletable

Changes (1 of 7; unchanged left out)
  Namespace/tenant-search configured (the digest of its labels and annotations changed (` + from + ` -> ` + to + `); the keys that changed are not known without -cluster)
  0 created, 1 configured, 6 unchanged, 0 deleted, 0 released, 0 kept

Warnings (2)
  @repo/tenants/tenant-payments/namespace-metadata.yaml: metadata.labels[my.org.io/team]: label "my.org.io/team" is not in allowedLabels; dropped
  @repo/tenants/tenant-sandbox/modules/playground/applier-inputs.yaml: inputs file not found; artifact tenant-sandbox/playground has no inputs
`
	if diff := cmp.Diff(want, string(out)); diff != "" {
		t.Errorf("-changes-only text (-want +got):\n%s", diff)
	}

	code, out, _ = tool(t, "-generator", gen, "-source", "repo="+repo, "-inventory", prev, "-changes-only", "-o", "json")
	only := decode(t, out)
	if code != 0 || len(only.Namespaces) != 1 || only.Namespaces[0].Name != "tenant-search" || len(only.Artifacts) != 0 ||
		len(only.Changes) != 1 || only.Changes[0].Action != "update" {
		t.Errorf("-changes-only JSON: exit %d, namespaces %v, artifacts %v, changes %v; want tenant-search alone, updated", code, only.Namespaces, only.Artifacts, only.Changes)
	}
	if diff := cmp.Diff(res.Inventory, only.Inventory); diff != "" {
		t.Errorf("-changes-only changed the JSON inventory (-whole +changes-only):\n%s", diff)
	}
}

// TestChangeReasons: every create and update says why, in text and JSON,
// in the words the counts use (Flux's: created, configured, unchanged,
// deleted); what the tool cannot know it says it does not know (issue 38,
// item 3: "Namespace/alpha configured" said nothing, and the counts said
// "update").
func TestChangeReasons(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		edit func(t *testing.T, repo string)
		live bool // a -cluster file holding the namespaces of the first plan

		drop  string // an object left out of the previous inventory, or none
		lines func(from, to func(kind, ns, name string) string) []string
	}{
		{
			name: "a label in a NamespaceMetadata file",
			edit: searchLabel,
			lines: func(from, to func(kind, ns, name string) string) []string {
				return []string{"  Namespace/tenant-search configured (the digest of its labels and annotations changed (" +
					from("Namespace", "", "tenant-search") + " -> " + to("Namespace", "", "tenant-search") + "); the keys that changed are not known without -cluster)"}
			},
		},
		{
			name: "a label in a NamespaceMetadata file, with the live namespace",
			edit: searchLabel,
			live: true,
			lines: func(from, to func(kind, ns, name string) string) []string {
				return []string{"  Namespace/tenant-search configured (the digest of its labels and annotations changed (" +
					from("Namespace", "", "tenant-search") + " -> " + to("Namespace", "", "tenant-search") +
					`); the live namespace has another value for label my.org.io/cost-center (live "cc-2001", planned "cc-2002"))`}
			},
		},
		{
			name: "a value in an inputs file",
			edit: func(t *testing.T, repo string) {
				file := filepath.Join(repo, "tenants/tenant-search/modules/indexer/applier-inputs.yaml")
				data, err := os.ReadFile(file)
				if err != nil {
					t.Fatal(err)
				}
				writeFile(t, file, strings.Replace(string(data), "replicas: 1", "replicas: 3", 1))
			},
			lines: func(from, to func(kind, ns, name string) string) []string {
				return []string{"  ExternalArtifact/tenant-search/indexer configured (the digest of its files and inputs changed (" +
					from("ExternalArtifact", "tenant-search", "indexer") + " -> " + to("ExternalArtifact", "tenant-search", "indexer") + "))"}
			},
		},
		{
			name: "an object the previous inventory lacks",
			drop: "playground",
			lines: func(from, to func(kind, ns, name string) string) []string {
				return []string{"  ExternalArtifact/tenant-sandbox/playground created (not in the previous inventory)"}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			gen, repo := monorepo(t)
			_, first, _ := tool(t, "-generator", gen, "-source", "repo="+repo, "-o", "json")
			prev := firstRound(t, gen, repo)
			if tt.drop != "" {
				data, err := os.ReadFile(prev)
				if err != nil {
					t.Fatal(err)
				}
				var kept []string
				for _, e := range strings.SplitAfter(string(data), "},") {
					if !strings.Contains(e, `"name":"`+tt.drop+`"`) {
						kept = append(kept, e)
					}
				}
				writeFile(t, prev, strings.Join(kept, ""))
			}
			if tt.edit != nil {
				tt.edit(t, repo)
			}
			args := []string{"-generator", gen, "-source", "repo=" + repo, "-inventory", prev}
			if tt.live {
				live := filepath.Join(t.TempDir(), "live.yaml")
				writeFile(t, live, liveNamespaces(t, decode(t, first)))
				args = append(args, "-cluster", live)
			}
			code, js, stderr := tool(t, append(args, "-o", "json")...)
			if code != 0 || stderr != "" {
				t.Fatalf("exit %d, stderr %q", code, stderr)
			}
			res := decode(t, js)
			firstRes := decode(t, first)
			from := func(kind, ns, name string) string { return digestOf(t, firstRes, kind, ns, name) }
			to := func(kind, ns, name string) string { return digestOf(t, res, kind, ns, name) }
			want := tt.lines(from, to)

			_, out, _ := tool(t, append(args, "-changes-only")...)
			var got []string
			for l := range strings.Lines(string(out)) {
				if strings.HasPrefix(l, "  Namespace/") || strings.HasPrefix(l, "  ExternalArtifact/") {
					got = append(got, strings.TrimSuffix(l, "\n"))
				}
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("change lines (-want +got):\n%s\n%s", diff, out)
			}
			// The JSON reason is the text's.
			for _, c := range res.Changes {
				if c.Action == "unchanged" {
					continue
				}
				if c.Reason == "" || !strings.Contains(want[0], " ("+c.Reason+")") {
					t.Errorf("JSON change %+v: its reason is not the text's %q", c, want[0])
				}
			}
			counts := "  0 created, 1 configured, 6 unchanged, 0 deleted, 0 released, 0 kept\n"
			if tt.drop != "" {
				counts = "  1 created, 0 configured, 6 unchanged, 0 deleted, 0 released, 0 kept\n"
			}
			if !strings.Contains(string(out), "\n"+counts) {
				t.Errorf("the counts are not %q:\n%s", counts, out)
			}
		})
	}
}

// TestAssumptions: what the plan assumes for want of an input is stated,
// in text and JSON, every time it assumes it, and only then (issue 38,
// item 5).
func TestAssumptions(t *testing.T) {
	t.Parallel()
	gen, repo := monorepo(t)
	prev := firstRound(t, gen, repo)
	live := filepath.Join(t.TempDir(), "live.yaml")
	writeFile(t, live, "apiVersion: v1\nkind: List\nitems: []\n")
	const (
		noInventory = "no previous inventory given (-inventory): every object is a create"
		noCluster   = "no live cluster given (-cluster): assuming every desired namespace exists as planned and every other object without labels or annotations, " +
			"with no external finalizer and no other generator's ExternalArtifact: deletions are planned as if every object were deletable"
	)
	tests := []struct {
		name string
		args []string
		want []string
	}{
		{name: "the embedded sample", want: []string{noInventory, noCluster}},
		{name: "no inventory, no cluster", args: []string{"-generator", gen, "-source", "repo=" + repo}, want: []string{noInventory, noCluster}},
		{name: "an inventory", args: []string{"-generator", gen, "-source", "repo=" + repo, "-inventory", prev}, want: []string{noCluster}},
		{name: "a cluster", args: []string{"-generator", gen, "-source", "repo=" + repo, "-cluster", live}, want: []string{noInventory}},
		{name: "both", args: []string{"-generator", gen, "-source", "repo=" + repo, "-inventory", prev, "-cluster", live}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			code, out, _ := tool(t, append(tt.args, "-o", "json")...)
			if code != 0 {
				t.Fatalf("exit %d", code)
			}
			if diff := cmp.Diff(tt.want, decode(t, out).Assumptions, cmpEmpty); diff != "" {
				t.Errorf("JSON assumptions (-want +got):\n%s", diff)
			}
			_, out, _ = tool(t, tt.args...)
			section := ""
			if len(tt.want) > 0 {
				section = "\nAssumptions (" + string(rune('0'+len(tt.want))) + ")\n  " + strings.Join(tt.want, "\n  ") + "\n\nChanges ("
			}
			if got := strings.Contains(string(out), "\nAssumptions ("); section == "" && got || section != "" && !strings.Contains(string(out), section) {
				t.Errorf("the text does not state %q just before the changes:\n%s", tt.want, out)
			}
		})
	}
}
