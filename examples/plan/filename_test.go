package main

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestInventoryFilename: the file names that source-watcher records in
// its inventory (status.inventory[].filename) go through a plan to the
// next inventory the tool prints, for every artifact whose digest did not
// change, so that a run that starts from this run's inventory loses
// nothing; a changed artifact has none.
func TestInventoryFilename(t *testing.T) {
	t.Parallel()
	gen, repo := monorepo(t)
	_, out, _ := tool(t, "-generator", gen, "-source", "repo="+repo, "-o", "json")
	first := decode(t, out)
	want := map[string]string{}
	for i, e := range first.Inventory {
		if e.Kind != "ExternalArtifact" {
			continue
		}
		first.Inventory[i].Filename = e.Name + ".tar.gz"
		want[e.Namespace+"/"+e.Name] = e.Name + ".tar.gz"
	}
	if len(want) == 0 {
		t.Fatal("the sample's first inventory has no ExternalArtifact")
	}
	// One artifact changes: its entry must come back without a name.
	changed := first.Inventory[0]
	for _, e := range first.Inventory {
		if e.Kind == "ExternalArtifact" {
			changed = e
			break
		}
	}
	writeFile(t, filepath.Join(repo, "tenants", changed.Namespace, "modules", changed.Name, "manifests", "changed.yaml"), "kind: ConfigMap\n")
	delete(want, changed.Namespace+"/"+changed.Name)

	inv, err := json.Marshal(first.Inventory)
	if err != nil {
		t.Fatal(err)
	}
	prev := filepath.Join(t.TempDir(), "inventory.json")
	writeFile(t, prev, string(inv))
	code, out, stderr := tool(t, "-generator", gen, "-source", "repo="+repo, "-inventory", prev, "-o", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s\n%s", code, stderr, out)
	}
	got := map[string]string{}
	for _, e := range decode(t, out).Inventory {
		if e.Filename != "" {
			got[e.Namespace+"/"+e.Name] = e.Filename
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("file names in the next inventory (-want +got):\n%s", diff)
	}
}
