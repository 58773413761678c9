package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestInventoryForms: -inventory reads the tool's own JSON output, an
// ArtifactGenerator with or without status.inventory, and a bare list.
func TestInventoryForms(t *testing.T) {
	t.Parallel()
	gen, repo := monorepo(t)
	code, out, stderr := tool(t, "-generator", gen, "-source", "repo="+repo, "-o", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var list struct {
		Inventory json.RawMessage `json:"inventory"`
	}
	if err := json.Unmarshal(out, &list); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	tests := []struct {
		name, content string
		unchanged     int // unchanged objects in the plan
	}{
		{name: "own JSON output", content: string(out), unchanged: 7},
		{name: "bare list", content: string(list.Inventory), unchanged: 7},
		{name: "generator with status.inventory", content: "apiVersion: source.extensions.fluxcd.io/v1beta1\nkind: ArtifactGenerator\nmetadata: {name: g}\nstatus:\n  inventory: " + string(list.Inventory) + "\n", unchanged: 7},
		{name: "generator without status.inventory", content: "apiVersion: source.extensions.fluxcd.io/v1beta1\nkind: ArtifactGenerator\nmetadata: {name: g}\nspec: {}\n", unchanged: 0},
		{name: "generator with an empty status", content: "apiVersion: source.extensions.fluxcd.io/v1beta1\nkind: ArtifactGenerator\nmetadata: {name: g}\nstatus: {}\n", unchanged: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			file := filepath.Join(dir, strings.ReplaceAll(tt.name, " ", "-"))
			writeFile(t, file, tt.content)
			code, out, stderr := tool(t, "-generator", gen, "-source", "repo="+repo, "-inventory", file, "-o", "json")
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			n := 0
			for _, c := range decode(t, out).Changes {
				if c.Action == "unchanged" {
					n++
				}
			}
			if n != tt.unchanged {
				t.Errorf("%d unchanged, want %d", n, tt.unchanged)
			}
		})
	}
}

// TestFlags covers -strict, -max-deletions and -allow-delete-all
// (TestChangesOnly covers -changes-only).
func TestFlags(t *testing.T) {
	t.Parallel()
	gen, repo := monorepo(t)
	prev := firstRound(t, gen, repo)

	t.Run("strict", func(t *testing.T) {
		code, out, _ := tool(t, "-generator", gen, "-source", "repo="+repo, "-strict", "-o", "json")
		if code != 1 || !errorsContain(decode(t, out), "@repo/tenants/tenant-payments/namespace-metadata.yaml:metadata.labels[my.org.io/team]", "") {
			t.Errorf("exit %d, errors %+v", code, decode(t, out).Errors)
		}
	})

	empty := t.TempDir()
	if err := os.MkdirAll(filepath.Join(empty, "tenants"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Run("delete all refused", func(t *testing.T) {
		code, out, _ := tool(t, "-generator", gen, "-source", "repo="+empty, "-inventory", prev, "-o", "json")
		res := decode(t, out)
		if code != 1 || !errorsContain(res, "spec", "would delete every one of the 7 objects") || len(changes(res)) != 7 || changes(res)[0].action != "keep" {
			t.Errorf("exit %d, errors %+v, changes %v", code, res.Errors, changes(res))
		}
	})
	t.Run("delete all allowed", func(t *testing.T) {
		code, out, _ := tool(t, "-generator", gen, "-source", "repo="+empty, "-inventory", prev, "-allow-delete-all", "-o", "json")
		res := decode(t, out)
		if code != 0 || len(res.Inventory) != 0 {
			t.Errorf("exit %d, errors %+v, inventory %v", code, res.Errors, res.Inventory)
		}
	})
	t.Run("max deletions", func(t *testing.T) {
		code, out, _ := tool(t, "-generator", gen, "-source", "repo="+empty, "-inventory", prev, "-allow-delete-all", "-max-deletions", "3", "-o", "json")
		if res := decode(t, out); code != 1 || !errorsContain(res, "spec", "more than the maximum of 3") {
			t.Errorf("exit %d, errors %+v", code, res.Errors)
		}
	})
}

// TestIssue13 replays the findings of issue 13 with their exact inputs.
func TestIssue13(t *testing.T) {
	t.Parallel()
	t.Run("a module in kube-system", func(t *testing.T) {
		t.Parallel()
		gen, repo := monorepo(t)
		writeFile(t, filepath.Join(repo, "tenants/kube-system/modules/x/manifests/crb.yaml"), "kind: ClusterRoleBinding\n")
		code, out, _ := tool(t, "-generator", gen, "-source", "repo="+repo, "-o", "json")
		res := decode(t, out)
		if code != 1 {
			t.Fatalf("exit %d, want 1", code)
		}
		for _, c := range res.Changes {
			if c.Namespace == "kube-system" || c.Name == "kube-system" {
				if c.Action != "skip" {
					t.Errorf("%s %s/%s/%s, want skip", c.Action, c.Kind, c.Namespace, c.Name)
				}
			}
		}
		for _, e := range res.Inventory {
			if e.Namespace == "kube-system" || e.Name == "kube-system" {
				t.Errorf("the next inventory holds %+v", e)
			}
		}
	})
	t.Run("source one level too deep", func(t *testing.T) {
		t.Parallel()
		gen, repo := monorepo(t)
		prev := firstRound(t, gen, repo)
		code, out, _ := tool(t, "-generator", gen, "-source", "repo="+filepath.Join(repo, "tenants"), "-inventory", prev, "-o", "json")
		res := decode(t, out)
		if code != 1 || len(res.Inventory) != 7 || !errorsContain(res, "spec.pathPattern", "must exist") {
			t.Errorf("exit %d, %d entries kept, errors %+v", code, len(res.Inventory), res.Errors)
		}
	})
	t.Run("tenants moved behind a symbolic link", func(t *testing.T) {
		t.Parallel()
		gen, repo := monorepo(t)
		prev := firstRound(t, gen, repo)
		if err := os.Rename(filepath.Join(repo, "tenants"), filepath.Join(repo, "tenants-v2")); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink("tenants-v2", filepath.Join(repo, "tenants")); err != nil {
			t.Fatal(err)
		}
		code, out, _ := tool(t, "-generator", gen, "-source", "repo="+repo, "-inventory", prev, "-o", "json")
		res := decode(t, out)
		if code != 1 || len(res.Inventory) != 7 || !errorsContain(res, "spec.pathPattern", "must not be a symbolic link") {
			t.Errorf("exit %d, %d entries kept, errors %+v", code, len(res.Inventory), res.Errors)
		}
	})
	t.Run("image tag bumped in applier-inputs.yaml", func(t *testing.T) {
		t.Parallel()
		gen, repo := monorepo(t)
		prev := firstRound(t, gen, repo)
		file := filepath.Join(repo, "tenants/tenant-payments/modules/api/applier-inputs.yaml")
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, file, strings.Replace(string(data), "1.8.2", "1.8.3", 1))
		_, out, _ := tool(t, "-generator", gen, "-source", "repo="+repo, "-inventory", prev, "-o", "json")
		got := changes(decode(t, out))
		if len(got) != 1 || got[0].action != "update" || got[0].name != "api" {
			t.Errorf("changes %v, want ExternalArtifact/tenant-payments/api updated", got)
		}
	})
	t.Run("prune annotation in another case, as a label", func(t *testing.T) {
		t.Parallel()
		gen, repo := monorepo(t)
		prev := firstRound(t, gen, repo)
		if err := os.RemoveAll(filepath.Join(repo, "tenants/tenant-payments")); err != nil {
			t.Fatal(err)
		}
		live := filepath.Join(t.TempDir(), "live.yaml")
		writeFile(t, live, "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: tenant-payments\n  labels:\n    kustomize.toolkit.fluxcd.io/prune: Disabled\n")
		_, out, _ := tool(t, "-generator", gen, "-source", "repo="+repo, "-inventory", prev, "-cluster", live, "-o", "json")
		got := staleChanges(decode(t, out))
		if len(got) != 3 || got[2].action != "release" {
			t.Errorf("changes %v, want the namespace released", got)
		}
	})
}
