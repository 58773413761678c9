package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// goWords are what a message of the tool must not hold: a Go option or
// type, a decoder's or a package's name (issue 38, item 4).
var goWords = regexp.MustCompile(`\bWith[A-Z][A-Za-z]+|\bGo (struct|value)\b|unmarshal|json: |(?:^|\s)yaml: |converting YAML to JSON|\b(nsmeta|pathpattern|inventory|generatortest|agmanifest): |ObjectReader|ArtifactLister|main\.`)

// libraryWords are the known messages of the library that name its Go
// options, with the change the tool waits for (see knownIssue): the test
// that meets one skips, and passes once the library gives the tool what
// it needs to say it in its own words. There is none now.
var libraryWords = map[string]string{}

// checkWords fails t when out, a message or an output of the tool, holds
// Go words, or skips it when they are a known message of the library.
func checkWords(t *testing.T, out string) {
	t.Helper()
	for msg, issue := range libraryWords {
		if strings.Contains(out, msg) {
			knownIssue(t, issue)
		}
	}
	if m := goWords.FindString(out); m != "" {
		t.Errorf("the output holds %q, Go's words, not the tool's:\n%s", m, out)
	}
}

// TestToolWords: what the tool prints names its flags, the fields of its
// files and the keys of a suite, never a Go option, type, decoder or
// package (issue 38, item 4).
func TestToolWords(t *testing.T) {
	t.Parallel()
	gen, repo := monorepo(t)
	prev := firstRound(t, gen, repo)
	export := kubectlGet(t)
	dir := t.TempDir()
	file := func(name, content string) string {
		p := filepath.Join(dir, name)
		writeFile(t, p, content)
		return p
	}
	emptyRepo := filepath.Join(dir, "empty")
	if err := os.MkdirAll(filepath.Join(emptyRepo, "tenants"), 0o755); err != nil {
		t.Fatal(err)
	}
	noTenants := filepath.Join(dir, "no-tenants")
	if err := os.MkdirAll(noTenants, 0o755); err != nil {
		t.Fatal(err)
	}
	badMeta := filepath.Join(dir, "bad-meta")
	if err := os.CopyFS(badMeta, os.DirFS(repo)); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(badMeta, "tenants/tenant-search/namespace-metadata.yaml"), "metadata: [\n")

	tests := []struct {
		name  string
		args  []string
		code  int
		want  string // a line the output or stderr must hold, "" for none
		first string // the exact first line of stderr, "" for any
	}{
		{
			name: "a bad metadata.uid and metadata.namespace",
			args: []string{"-generator", file("bad-uid.yaml", strings.NewReplacer("  uid: 6f1d0c2e-6a4b-4d6e-9d53-0b7f3c1e2a10\n", "  uid: \"not a uid!\"\n",
				"  namespace: flux-system\n", "  namespace: Flux_System\n").Replace(export)), "-source", "repo=" + repo},
			code: 1,
			want: `  metadata.uid: Invalid value: "not a uid!": `,
		},
		{
			name: "a label of the wrong type in -cluster",
			args: []string{"-generator", gen, "-source", "repo=" + repo, "-cluster", file("live.yaml", "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: a\n  labels: {x: [1]}\n")},
			code: 2,
			want: "plan: -cluster " + filepath.Join(dir, "live.yaml") + ": document 1: metadata.labels[x]: must be a string, found a list",
		},
		{
			name: "a field of the wrong type in -generator",
			args: []string{"-generator", file("prune.yaml", strings.Replace(export, "    prune: true\n", "    prune: \"true\"\n", 1)), "-source", "repo=" + repo},
			code: 2,
			want: "spec.managedNamespaces.prune: must be a boolean, found a string",
		},
		{
			name: "an entry of the wrong type in -inventory",
			args: []string{"-generator", gen, "-source", "repo=" + repo, "-inventory", file("inv.yaml", "[{kind: Namespace, name: [a]}]\n")},
			code: 2,
			want: "[0].name: must be a string, found a list",
		},
		{
			name: "every object deleted",
			args: []string{"-generator", gen, "-source", "repo=" + emptyRepo, "-inventory", prev},
			code: 1,
			want: "  spec: Forbidden: the pass would delete every one of the 7 objects of the inventory, which a wrong source or pattern looks like\n" +
				"\nThe desired state has errors: nothing will be deleted.\nThe deletions are refused: -allow-delete-all allows them.\n",
		},
		{
			name: "more deletions than -max-deletions",
			args: []string{"-generator", gen, "-source", "repo=" + emptyRepo, "-inventory", prev, "-allow-delete-all", "-max-deletions", "2"},
			code: 1,
			want: "  spec: Forbidden: the pass would delete 7 objects, more than the maximum of 2\n" +
				"\nThe desired state has errors: nothing will be deleted.\nThe deletions are refused: a larger -max-deletions allows them.\n",
		},
		{
			name: "no tenants directory",
			args: []string{"-generator", gen, "-source", "repo=" + noTenants, "-inventory", prev},
			code: 1,
		},
		{
			name:  "a -cluster file with an alias that is not YAML",
			args:  []string{"-generator", gen, "-source", "repo=" + repo, "-cluster", file("broken-live.yaml", "a: &x [1]\nb: *x\nc: [\n")},
			code:  2,
			first: "plan: -cluster " + filepath.Join(dir, "broken-live.yaml") + ": must be valid YAML: line 3: did not find expected node content",
		},
		{
			name: "a -generator file that is not YAML",
			args: []string{"-generator", file("broken-gen.yaml", "apiVersion: source.extensions.fluxcd.io/v1beta1\nkind: ArtifactGenerator\nmetadata:\n  name: x\n  labels: [a\n"),
				"-source", "repo=" + repo},
			code:  2,
			first: "plan: -generator " + filepath.Join(dir, "broken-gen.yaml") + ": must be valid YAML: line 5: did not find expected ',' or ']'",
		},
		{
			name:  "a -generator file with a repeated key",
			args:  []string{"-generator", file("repeated-gen.yaml", strings.Replace(export, "kind: ArtifactGenerator\n", "kind: ArtifactGenerator\nkind: ArtifactGenerator\n", 1)), "-source", "repo=" + repo},
			code:  2,
			first: "plan: -generator " + filepath.Join(dir, "repeated-gen.yaml") + `: must be valid YAML: line 11: key "kind" already set in map`,
		},
		{
			name:  "an -inventory file that is not YAML",
			args:  []string{"-generator", gen, "-source", "repo=" + repo, "-inventory", file("broken-inv.yaml", "- kind: Namespace\n  name: a\n- kind: Namespace\n  name: [b\n")},
			code:  2,
			first: "plan: -inventory " + filepath.Join(dir, "broken-inv.yaml") + ": must be valid YAML: line 4: did not find expected ',' or ']'",
		},
		{
			name: "a NamespaceMetadata file that is not YAML",
			args: []string{"-generator", gen, "-source", "repo=" + badMeta},
			code: 1,
			want: "  @repo/tenants/tenant-search/namespace-metadata.yaml: Invalid value: must be valid YAML: line 1: did not find expected node content\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			for _, o := range []string{"text", "json"} {
				code, out, stderr := tool(t, append(tt.args, "-o", o)...)
				if code != tt.code {
					t.Errorf("-o %s: exit %d, want %d; stderr %q", o, code, tt.code, stderr)
				}
				checkWords(t, string(out)+stderr)
				if o == "text" && tt.want != "" && !strings.Contains(string(out)+stderr, tt.want) {
					t.Errorf("the output does not say %q:\n%s%s", tt.want, out, stderr)
				}
				if first, _, _ := strings.Cut(stderr, "\n"); tt.first != "" && first != tt.first {
					t.Errorf("-o %s: stderr's first line\n%q, want\n%q", o, first, tt.first)
				}
			}
		})
	}
}

// TestPlanTestWords: what plan test prints names the keys of a suite,
// never a Go option (issue 38, item 4): the delete-all refusal names
// allowDeleteAll.
func TestPlanTestWords(t *testing.T) {
	t.Parallel()
	gen, err := filepath.Abs("sample/generator.yaml")
	if err != nil {
		t.Fatal(err)
	}
	repo, err := filepath.Abs("sample/monorepo")
	if err != nil {
		t.Fatal(err)
	}
	suite := filepath.Join(t.TempDir(), "suite.yaml")
	writeFile(t, suite, "apiVersion: tenantkit.dev/v1alpha1\nkind: PlanTest\ngenerator: "+gen+"\nsource: "+repo+"\ncases:\n"+
		"  - name: refused\n    remove: [tenants]\n    files: {tenants/.keep: \"\"}\n    inventory: [{kind: Namespace, name: tenant-old}]\n"+
		"    expect: {noErrors: true}\n")
	code, out, stderr := tool(t, "test", suite)
	if code != 1 || stderr != "" {
		t.Fatalf("exit %d, stderr %q; want 1, none", code, stderr)
	}
	checkWords(t, string(out))
	if want := "options.allowDeleteAll: true allows the deletions"; !strings.Contains(string(out), want) {
		t.Errorf("the output does not say %q:\n%s", want, out)
	}
}
