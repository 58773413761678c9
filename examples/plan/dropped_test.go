//go:build unix

package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tenantkit/tenantkit/internal/hostile"
)

// TestNothingDroppedSilently: a symbolic link or a named pipe inside a
// copied directory is left out of the artifact, and a warning names it
// (issue 38, item 8: they were dropped without a word). An empty
// NamespaceMetadata file's error says what it found.
func TestNothingDroppedSilently(t *testing.T) {
	t.Parallel()
	t.Run("a link and a pipe in manifests/", func(t *testing.T) {
		t.Parallel()
		gen, repo := monorepo(t)
		manifests := filepath.Join(repo, "tenants/tenant-search/modules/indexer/manifests")
		if err := os.Symlink("deployment.yaml", filepath.Join(manifests, "link.yaml")); err != nil {
			t.Fatal(err)
		}
		hostile.Mkfifo(t, filepath.Join(manifests, "pipe.yaml"))
		code, out, stderr := tool(t, "-generator", gen, "-source", "repo="+repo, "-o", "json")
		if code != 0 || stderr != "" {
			t.Fatalf("exit %d, stderr %q", code, stderr)
		}
		res := decode(t, out)
		for _, a := range res.Artifacts {
			if a.Name == "indexer" && !slices.Equal(a.Files, []string{"deployment.yaml", "service.yaml"}) {
				t.Errorf("indexer's files %v, want deployment.yaml and service.yaml", a.Files)
			}
		}
		const dir = "@repo/tenants/tenant-search/modules/indexer/manifests/"
		want := []string{
			dir + "link.yaml: left out of artifact tenant-search/indexer: a symbolic link",
			dir + "pipe.yaml: left out of artifact tenant-search/indexer: not a regular file",
		}
		var got []string
		for _, w := range res.Warnings {
			if strings.Contains(w, "left out") {
				got = append(got, w)
			}
		}
		if !slices.Equal(got, want) {
			t.Errorf("warnings of what was left out %q, want %q; all warnings %q", got, want, res.Warnings)
		}
		// The text output says the same, in its Warnings section.
		code, text, stderr := tool(t, "-generator", gen, "-source", "repo="+repo)
		if code != 0 || stderr != "" {
			t.Fatalf("-o text: exit %d, stderr %q", code, stderr)
		}
		for _, w := range want {
			if !strings.Contains(string(text), "\n  "+w+"\n") {
				t.Errorf("the text output does not say %q:\n%s", w, text)
			}
		}
	})
	t.Run("an empty NamespaceMetadata file", func(t *testing.T) {
		t.Parallel()
		gen, repo := monorepo(t)
		writeFile(t, filepath.Join(repo, "tenants/tenant-search/namespace-metadata.yaml"), "# nothing yet\n")
		code, out, _ := tool(t, "-generator", gen, "-source", "repo="+repo)
		if code != 1 {
			t.Fatalf("exit %d, want 1", code)
		}
		var errs []string
		for l := range strings.Lines(string(out)) {
			if strings.HasPrefix(l, "  @repo/tenants/tenant-search/namespace-metadata.yaml") {
				errs = append(errs, strings.TrimSpace(l))
			}
		}
		want := []string{`@repo/tenants/tenant-search/namespace-metadata.yaml:apiVersion: Required value: ` +
			`the file is empty or holds only comments and separators; ` +
			`a NamespaceMetadata file needs apiVersion "source.extensions.fluxcd.io/v1beta1" and kind "NamespaceMetadata"`}
		if !slices.Equal(errs, want) {
			t.Errorf("the empty file's errors %q, want %q:\n%s", errs, want, out)
		}
	})
}
