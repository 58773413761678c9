package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// golden compares got with testdata/name, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s differs (-want +got):\n%s", name, diff)
	}
}

// tool runs the plan command with args and returns its exit status and
// outputs.
func tool(t *testing.T, args ...string) (int, []byte, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), args, &stdout, &stderr)
	return code, stdout.Bytes(), stderr.String()
}

// monorepo copies the embedded sample to a temporary directory and returns
// the generator file and the monorepo directory.
func monorepo(t *testing.T) (gen, repo string) {
	t.Helper()
	dir := t.TempDir()
	err := fs.WalkDir(sample, "sample", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		dst := filepath.Join(dir, filepath.FromSlash(strings.TrimPrefix(p, "sample")))
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		data, err := fs.ReadFile(sample, p)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, "generator.yaml"), filepath.Join(dir, "monorepo")
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// decode parses the tool's JSON output, after checking that it is what
// the whole-plan writer prints (checkCanonical).
func decode(t *testing.T, out []byte) planJSON {
	t.Helper()
	checkCanonical(t, out)
	var res planJSON
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("decoding the JSON plan: %v\n%s", err, out)
	}
	return res
}

// firstRound plans the copied sample and returns the previous-inventory file
// that a second round reads.
func firstRound(t *testing.T, gen, repo string) string {
	t.Helper()
	code, out, stderr := tool(t, "-generator", gen, "-source", "repo="+repo, "-o", "json")
	if code != 0 {
		t.Fatalf("first round: exit %d: %s\n%s", code, stderr, out)
	}
	res := decode(t, out)
	inv, err := json.Marshal(res.Inventory)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "inventory.json")
	writeFile(t, file, string(inv))
	return file
}

type line struct{ action, kind, namespace, name, reason string }

// changes returns the plan's changes other than unchanged and create.
func changes(res planJSON) []line {
	var out []line
	for _, c := range res.Changes {
		if c.Action != "unchanged" {
			out = append(out, line{c.Action, c.Kind, c.Namespace, c.Name, c.Reason})
		}
	}
	return out
}

// staleChanges returns the changes but the namespaces updated because
// they are missing from a -cluster file that holds only a stale tenant:
// a tracked namespace that does not exist is drift.
func staleChanges(res planJSON) []line {
	var out []line
	for _, l := range changes(res) {
		if l.action != "update" || l.reason != "drift: the namespace does not exist" {
			out = append(out, l)
		}
	}
	return out
}

func TestSampleText(t *testing.T) {
	t.Parallel()
	code, out, stderr := tool(t)
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	golden(t, "sample.txt", out)
}

func TestSampleJSON(t *testing.T) {
	t.Parallel()
	code, out, stderr := tool(t, "-o", "json")
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	golden(t, "sample.json", out)
}

// TestSampleFromDisk checks that the flags give the same plan as the
// embedded sample.
func TestSampleFromDisk(t *testing.T) {
	t.Parallel()
	gen, repo := monorepo(t)
	_, embedded, _ := tool(t, "-o", "json")
	code, out, stderr := tool(t, "-generator", gen, "-source", "repo="+repo, "-o", "json")
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	if diff := cmp.Diff(string(embedded), string(out)); diff != "" {
		t.Errorf("plan from disk differs from the embedded plan (-embedded +disk):\n%s", diff)
	}
}

func TestModuleRemoved(t *testing.T) {
	t.Parallel()
	gen, repo := monorepo(t)
	prev := firstRound(t, gen, repo)
	if err := os.RemoveAll(filepath.Join(repo, "tenants/tenant-payments/modules/worker")); err != nil {
		t.Fatal(err)
	}
	code, out, stderr := tool(t, "-generator", gen, "-source", "repo="+repo, "-inventory", prev, "-o", "json")
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	want := []line{{"delete", "ExternalArtifact", "tenant-payments", "worker", "no longer desired"}}
	if diff := cmp.Diff(want, changes(decode(t, out)), cmp.AllowUnexported(line{})); diff != "" {
		t.Errorf("changes (-want +got):\n%s", diff)
	}
	golden(t, "module-removed.json", out)
}

func TestTenantRemoved(t *testing.T) {
	t.Parallel()
	gen, repo := monorepo(t)
	prev := firstRound(t, gen, repo)
	if err := os.RemoveAll(filepath.Join(repo, "tenants/tenant-payments")); err != nil {
		t.Fatal(err)
	}
	code, out, stderr := tool(t, "-generator", gen, "-source", "repo="+repo, "-inventory", prev)
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	golden(t, "tenant-removed.txt", out)

	_, out, _ = tool(t, "-generator", gen, "-source", "repo="+repo, "-inventory", prev, "-o", "json")
	want := []line{ // artifacts first, the namespace last: prune order
		{"delete", "ExternalArtifact", "tenant-payments", "worker", "no longer desired"},
		{"delete", "ExternalArtifact", "tenant-payments", "api", "no longer desired"},
		{"delete", "Namespace", "", "tenant-payments", "no longer desired; no external finalizer"},
	}
	if diff := cmp.Diff(want, changes(decode(t, out)), cmp.AllowUnexported(line{})); diff != "" {
		t.Errorf("changes (-want +got):\n%s", diff)
	}
}

const liveTenant = `apiVersion: v1
kind: Namespace
metadata:
  name: tenant-payments
  annotations:
    %s
---
apiVersion: fluxcd.controlplane.io/v1
kind: ResourceSet
metadata:
  name: tenants
  namespace: flux-system
  uid: 0d1e3c4a-5b6c-4d7e-8f90-a1b2c3d4e5f6
`

func TestTenantHandedOff(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		annotation string
		want       line
	}{
		{
			name:       "finalizer exists with the UID",
			annotation: "source.extensions.fluxcd.io/externalFinalizer: fluxcd.controlplane.io/v1/ResourceSet/flux-system/tenants/0d1e3c4a-5b6c-4d7e-8f90-a1b2c3d4e5f6",
			want:       line{"keep", "Namespace", "", "tenant-payments", "handed off to fluxcd.controlplane.io/v1/ResourceSet/flux-system/tenants (uid 0d1e3c4a-5b6c-4d7e-8f90-a1b2c3d4e5f6); kept in the inventory while the hand-off holds"},
		},
		{
			name:       "finalizer recreated",
			annotation: "source.extensions.fluxcd.io/externalFinalizer: fluxcd.controlplane.io/v1/ResourceSet/flux-system/tenants/another-uid",
			want:       line{"delete", "Namespace", "", "tenant-payments", `no longer desired; external finalizer fluxcd.controlplane.io/v1/ResourceSet/flux-system/tenants has uid "0d1e3c4a-5b6c-4d7e-8f90-a1b2c3d4e5f6", not "another-uid": it was recreated and may not track the namespace`},
		},
		{
			name:       "finalizer gone",
			annotation: "source.extensions.fluxcd.io/externalFinalizer: fluxcd.controlplane.io/v1/ResourceSet/flux-system/other/0d1e3c4a-5b6c-4d7e-8f90-a1b2c3d4e5f6",
			want:       line{"delete", "Namespace", "", "tenant-payments", "no longer desired; external finalizer fluxcd.controlplane.io/v1/ResourceSet/flux-system/other (uid 0d1e3c4a-5b6c-4d7e-8f90-a1b2c3d4e5f6) not found"},
		},
		{
			name:       "prune disabled",
			annotation: "source.extensions.fluxcd.io/prune: disabled",
			want:       line{"release", "Namespace", "", "tenant-payments", "pruning is disabled on the live object (annotation source.extensions.fluxcd.io/prune: disabled)"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			gen, repo := monorepo(t)
			prev := firstRound(t, gen, repo)
			if err := os.RemoveAll(filepath.Join(repo, "tenants/tenant-payments")); err != nil {
				t.Fatal(err)
			}
			live := filepath.Join(t.TempDir(), "live.yaml")
			writeFile(t, live, strings.Replace(liveTenant, "%s", tt.annotation, 1))
			code, out, stderr := tool(t, "-generator", gen, "-source", "repo="+repo, "-inventory", prev, "-cluster", live, "-o", "json")
			if code != 0 {
				t.Fatalf("exit %d, stderr %q", code, stderr)
			}
			got := staleChanges(decode(t, out))
			if len(got) != 3 {
				t.Fatalf("changes = %v, want the two artifacts deleted, then the namespace", got)
			}
			if diff := cmp.Diff(tt.want, got[2], cmp.AllowUnexported(line{})); diff != "" {
				t.Errorf("namespace change (-want +got):\n%s", diff)
			}
		})
	}
}

func TestInvalidMetadataDeletesNothing(t *testing.T) {
	t.Parallel()
	gen, repo := monorepo(t)
	prev := firstRound(t, gen, repo)
	if err := os.RemoveAll(filepath.Join(repo, "tenants/tenant-payments/modules/worker")); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(repo, "tenants/tenant-search/namespace-metadata.yaml"), `apiVersion: source.extensions.fluxcd.io/v1beta1
kind: NamespaceMetadata
metadata:
  labels:
    my.org.io/cost-center: [cc-2001]
`)
	code, out, _ := tool(t, "-generator", gen, "-source", "repo="+repo, "-inventory", prev)
	if code != 1 {
		t.Fatalf("exit %d, want 1", code)
	}
	golden(t, "invalid-metadata.txt", out)

	_, out, _ = tool(t, "-generator", gen, "-source", "repo="+repo, "-inventory", prev, "-o", "json")
	res := decode(t, out)
	for _, c := range res.Changes {
		if c.Action == "delete" {
			t.Errorf("a plan with errors deletes %s/%s/%s", c.Kind, c.Namespace, c.Name)
		}
	}
	if len(res.Errors) == 0 || !strings.Contains(res.Errors[0].Field, "namespace-metadata.yaml:metadata.labels[my.org.io/cost-center]") {
		t.Errorf("errors = %+v, want one naming the file and metadata.labels[my.org.io/cost-center]", res.Errors)
	}
	// Everything tracked stays tracked.
	var tracked []string
	for _, e := range res.Inventory {
		tracked = append(tracked, e.Kind+"/"+e.Namespace+"/"+e.Name)
	}
	if !slices.Contains(tracked, "ExternalArtifact/tenant-payments/worker") {
		t.Errorf("inventory %v lost the artifact it did not delete", tracked)
	}
}

func TestCaseCollision(t *testing.T) {
	t.Parallel()
	gen, repo := monorepo(t)
	writeFile(t, filepath.Join(repo, "tenants/tenant-search/modules/Indexer/manifests/deployment.yaml"), "kind: Deployment\n")
	code, out, _ := tool(t, "-generator", gen, "-source", "repo="+repo, "-o", "json")
	if code != 1 {
		t.Fatalf("exit %d, want 1", code)
	}
	res := decode(t, out)
	want := planFieldError{
		Field:  "spec.artifacts[0].name",
		Type:   "FieldValueDuplicate",
		Value:  "indexer",
		Detail: `directories "tenants/tenant-search/modules/Indexer" and "tenants/tenant-search/modules/indexer" render the same namespace "tenant-search" and name "indexer"`,
	}
	if diff := cmp.Diff([]planFieldError{want}, res.Errors); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
}

// TestReadmeQuickStart runs the command of the tool's README (the tool's
// run function with no flags, as go run ./examples/plan does) and checks
// that the output the README shows is what it prints.
func TestReadmeQuickStart(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	const start = "```\ngo run ./examples/plan\n```\n\n```\n"
	_, rest, ok := strings.Cut(string(readme), start)
	if !ok {
		t.Fatalf("examples/plan/README.md has no block %q", start)
	}
	shown, _, ok := strings.Cut(rest, "```\n")
	if !ok {
		t.Fatal("examples/plan/README.md: the output block is not closed")
	}
	code, out, stderr := tool(t)
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	if diff := cmp.Diff(shown, string(out)); diff != "" {
		t.Errorf("examples/plan/README.md shows another output than go run ./examples/plan prints (-readme +tool):\n%s", diff)
	}
}

func TestUsageErrors(t *testing.T) {
	t.Parallel()
	gen, repo := monorepo(t)
	notYAML := filepath.Join(t.TempDir(), "bad.yaml")
	writeFile(t, notYAML, "spec: [unclosed\n")
	tests := []struct {
		name string
		args []string
		want string // the flag or file the message must name
	}{
		{name: "unknown flag", args: []string{"-nope"}, want: "-nope"},
		{name: "bad output", args: []string{"-o", "yaml"}, want: "-o"},
		{name: "source without generator", args: []string{"-source", "repo=" + repo}, want: "-source"},
		{name: "bad source flag", args: []string{"-generator", gen, "-source", "repo"}, want: "-source"},
		{name: "missing source", args: []string{"-generator", gen}, want: "-source: missing repo=DIR"},
		{name: "undeclared alias", args: []string{"-generator", gen, "-source", "repo=" + repo, "-source", "other=" + repo}, want: `alias "other"`},
		{name: "source not a directory", args: []string{"-generator", gen, "-source", "repo=" + gen}, want: "not a directory"},
		{name: "source missing", args: []string{"-generator", gen, "-source", "repo=/nonexistent"}, want: "/nonexistent"},
		{name: "generator missing", args: []string{"-generator", "/nonexistent.yaml", "-source", "repo=" + repo}, want: "-generator"},
		{name: "generator not YAML", args: []string{"-generator", notYAML, "-source", "repo=" + repo}, want: notYAML},
		{name: "inventory missing", args: []string{"-generator", gen, "-source", "repo=" + repo, "-inventory", "/nonexistent"}, want: "-inventory"},
		{name: "inventory not an inventory", args: []string{"-generator", gen, "-source", "repo=" + repo, "-inventory", notYAML}, want: notYAML},
		{name: "cluster not YAML", args: []string{"-generator", gen, "-source", "repo=" + repo, "-cluster", notYAML}, want: notYAML},
		{name: "argument", args: []string{"extra"}, want: `"extra"`},
		{name: "negative max deletions", args: []string{"-max-deletions", "-2"}, want: "-max-deletions"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			code, out, stderr := tool(t, tt.args...)
			if code != 2 {
				t.Fatalf("exit %d, want 2; stdout %s", code, out)
			}
			if !strings.Contains(stderr, tt.want) {
				t.Errorf("stderr %q does not name %q", stderr, tt.want)
			}
			if lines := strings.Count(strings.TrimSpace(stderr), "\n"); lines > 0 {
				t.Errorf("stderr has %d lines, want one: %q", lines+1, stderr)
			}
		})
	}
}

// TestBrokenSchemaReadsNoFile checks that a schema that does not compile
// lets no tenant file through unfiltered: its namespaces are left out, the
// plan has errors and deletes nothing.
func TestBrokenSchemaReadsNoFile(t *testing.T) {
	t.Parallel()
	gen, repo := monorepo(t)
	data, err := os.ReadFile(gen)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, gen, breakSchema(string(data)))
	code, out, _ := tool(t, "-generator", gen, "-source", "repo="+repo, "-o", "json")
	if code != 1 {
		t.Fatalf("exit %d, want 1", code)
	}
	res := decode(t, out)
	for _, ns := range res.Namespaces {
		if _, leaked := ns.Labels["my.org.io/team"]; leaked {
			t.Errorf("namespace %s carries a label the schema never checked: %v", ns.Name, ns.Labels)
		}
		if _, fromFile := ns.Labels["my.org.io/cost-center"]; fromFile {
			t.Errorf("namespace %s carries its file's metadata though the schema failed: %v", ns.Name, ns.Labels)
		}
	}
	if len(res.Errors) != 1 || res.Errors[0].Field != "spec.managedNamespaces.metadata.fromSource.allowedLabels[my.org.io/cost-center]" {
		t.Errorf("errors = %+v, want one at the rule", res.Errors)
	}
}

// liveConflicts is a -cluster file for the sample: tenant-search exists
// without the generator label (another team created it), and
// tenant-payments/api is an ExternalArtifact that another generator's
// label names.
const liveConflicts = `apiVersion: v1
kind: Namespace
metadata:
  name: tenant-search
  labels:
    team: search
---
apiVersion: source.toolkit.fluxcd.io/v1
kind: ExternalArtifact
metadata:
  name: api
  namespace: tenant-payments
  labels:
    source.extensions.fluxcd.io/generator: 0b5e9a4c-1d2e-4f3a-8b7c-6d5e4f3a2b1c
`

// TestLiveConflicts plans the sample against live objects that the
// generator does not own: the text marks the adopted namespace and the
// artifact taken over, with the reason of the controller's Warning event,
// and the JSON carries it as "conflict"; every other object has none.
func TestLiveConflicts(t *testing.T) {
	t.Parallel()
	gen, repo := monorepo(t)
	live := filepath.Join(t.TempDir(), "live.yaml")
	writeFile(t, live, liveConflicts)

	code, out, stderr := tool(t, "-generator", gen, "-source", "repo="+repo, "-cluster", live)
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	var marked []string
	for l := range strings.Lines(string(out)) {
		if strings.Contains(strings.ToLower(l), "conflict") || strings.Contains(l, "adopted") || strings.Contains(l, "taken over") {
			marked = append(marked, strings.TrimSuffix(l, "\n"))
		}
	}
	want := []string{
		"  tenant-search  sha256:af0cfbcb578bdc345b30c1188a3d32f19e05cacc83b99742e3a43fdc379d590f  [conflict: Adopted]",
		"  tenant-payments/api  from tenants/tenant-payments/modules/api  3 files  sha256:699c370a06b7cf3f18928d4e01a07aa34f46179f3a9776fbd76927593af9695f  [conflict: OwnershipConflict]",
		"  Namespace/tenant-search created (adopted: the namespace exists and no generator manages it)",
		"  ExternalArtifact/tenant-payments/api created (taken over from generator 0b5e9a4c-1d2e-4f3a-8b7c-6d5e4f3a2b1c (label source.extensions.fluxcd.io/generator))",
		"  Adopted: namespace tenant-search is not managed by any generator and is adopted",
		"  OwnershipConflict: ExternalArtifact tenant-payments/api is managed by generator 0b5e9a4c-1d2e-4f3a-8b7c-6d5e4f3a2b1c and is taken over",
	}
	if diff := cmp.Diff(want, marked); diff != "" {
		t.Errorf("lines naming a conflict (-want +got):\n%s\nfull output:\n%s", diff, out)
	}
	// The README's "Outputs" shows these lines.
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range want {
		if !strings.Contains(string(readme), "\n"+l+"\n") {
			t.Errorf("examples/plan/README.md does not show the line %q", l)
		}
	}

	code, out, stderr = tool(t, "-generator", gen, "-source", "repo="+repo, "-cluster", live, "-o", "json")
	if code != 0 {
		t.Fatalf("json: exit %d, stderr %q", code, stderr)
	}
	res := decode(t, out)
	got := map[string]string{}
	for _, ns := range res.Namespaces {
		got["Namespace/"+ns.Name] = ns.Conflict
	}
	for _, a := range res.Artifacts {
		got["ExternalArtifact/"+a.Namespace+"/"+a.Name] = a.Conflict
	}
	wantJSON := map[string]string{
		"Namespace/tenant-payments":                  "",
		"Namespace/tenant-sandbox":                   "",
		"Namespace/tenant-search":                    "Adopted",
		"ExternalArtifact/tenant-payments/api":       "OwnershipConflict",
		"ExternalArtifact/tenant-payments/worker":    "",
		"ExternalArtifact/tenant-sandbox/playground": "",
		"ExternalArtifact/tenant-search/indexer":     "",
	}
	if diff := cmp.Diff(wantJSON, got); diff != "" {
		t.Errorf("conflicts in the JSON output (-want +got):\n%s", diff)
	}
	// An empty conflict is left out, not written as "".
	if n := strings.Count(string(out), `"conflict"`); n != 2 {
		t.Errorf("the JSON output has %d \"conflict\" keys, want 2 (empty ones left out)", n)
	}
}
