package generator

import (
	"context"
	"errors"
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
	"github.com/opencontainers/go-digest"

	"github.com/tenantkit/tenantkit/inventory"
)

// namedDigest is copyFSDigest that also names the artifact's file as
// source-watcher does, after its content: the same content, the same name.
func namedDigest(ctx context.Context, a *Artifact, files fs.FS) (digest.Digest, error) {
	d, err := copyFSDigest(ctx, a, files)
	if err == nil {
		a.Filename = contentName(d)
	}
	return d, err
}

func contentName(d digest.Digest) string { return d.Encoded()[:10] + ".tar.gz" }

// TestArtifactFilename plans against an inventory that source-watcher
// wrote, whose ExternalArtifact entries name their files in its storage:
// the next inventory keeps each name that still names the artifact's
// content, records the name the digest function gives, and keeps every
// entry that it does not rebuild as it was.
func TestArtifactFilename(t *testing.T) {
	t.Parallel()
	appDigest := handDigest(t, handArtifacts["tenant-a/app"])
	webDigest := handDigest(t, handArtifacts["tenant-b/web"])
	edited := map[string]string{"w.yaml": "kind: Service\nport: 80\n", "values.yaml": "replicas: 1\nimage: app\n"}
	editedDigest := handDigest(t, edited)
	editWeb := func(tree fstest.MapFS) {
		tree["tenants/tenant-b/modules/web/manifests/w.yaml"] = &fstest.MapFile{Data: []byte(edited["w.yaml"])}
	}
	// tenantkit's own digests of digestTree's artifacts.
	own := map[string]digest.Digest{}
	for _, a := range mustPlan(t, mustCompile(t, digestSpec()), sources(digestTree(t)), nil, Cluster{}).Artifacts {
		own[a.Name] = a.Digest
	}

	// upstream is an ExternalArtifact entry as source-watcher v2.3 writes
	// it: kind, namespace, name, digest and filename, no apiVersion.
	upstream := func(ns, name string, d digest.Digest, filename string) inventory.Entry {
		return inventory.Entry{Kind: artifactKind, Namespace: ns, Name: name, Digest: d, Filename: filename}
	}
	// planned is the entry a plan records for a built artifact.
	planned := func(ns, name string, d digest.Digest, filename string) inventory.Entry {
		return inventory.Entry{APIVersion: artifactAPIVersion, Kind: artifactKind, Namespace: ns, Name: name, Digest: d, Filename: filename}
	}
	// gone is not in the cluster (deleted, not confirmed); stuck cannot be
	// read (kept).
	gone := upstream("tenant-c", "gone", digest.FromString("gone"), "1122334455.tar.gz")
	stuck := upstream("tenant-c", "stuck", digest.FromString("stuck"), "5544332211.tar.gz")
	cluster := func() Cluster {
		c := &fakeCluster{failing: map[inventory.ID]error{stuck.ID(): errors.New("connection refused")}}
		return c.cluster()
	}
	failWeb := func(ctx context.Context, a *Artifact, files fs.FS) (digest.Digest, error) {
		if a.Name == "web" {
			return "", errors.New("storage full")
		}
		return namedDigest(ctx, a, files)
	}

	tests := []struct {
		name      string
		opts      []Option
		edit      func(fstest.MapFS)
		previous  []inventory.Entry
		filenames map[string]string // Plan.Artifacts, by name
		stale     []string          // the decisions of gone and stuck
		next      []inventory.Entry
	}{{
		name: "unchanged, the function names no file",
		opts: []Option{WithArtifactDigest(copyFSDigest)},
		previous: []inventory.Entry{
			upstream("tenant-a", "app", appDigest, "3101889545.tar.gz"),
			upstream("tenant-b", "web", webDigest, "2006451.tar.gz"),
			gone, stuck,
		},
		stale: []string{
			"ExternalArtifact/tenant-c/stuck kept (guard failed: reading the live object: connection refused)",
			"ExternalArtifact/tenant-c/gone deleted (no longer desired; not found in the cluster)",
		},
		filenames: map[string]string{"app": "3101889545.tar.gz", "web": "2006451.tar.gz"},
		next: []inventory.Entry{
			planned("tenant-a", "app", appDigest, "3101889545.tar.gz"),
			planned("tenant-b", "web", webDigest, "2006451.tar.gz"),
			gone, stuck,
		},
	}, {
		name: "unchanged, the function names the same file",
		opts: []Option{WithArtifactDigest(namedDigest)},
		previous: []inventory.Entry{
			upstream("tenant-a", "app", appDigest, contentName(appDigest)),
			upstream("tenant-b", "web", webDigest, contentName(webDigest)),
			gone, stuck,
		},
		stale: []string{
			"ExternalArtifact/tenant-c/stuck kept (guard failed: reading the live object: connection refused)",
			"ExternalArtifact/tenant-c/gone deleted (no longer desired; not found in the cluster)",
		},
		filenames: map[string]string{"app": contentName(appDigest), "web": contentName(webDigest)},
		next: []inventory.Entry{
			planned("tenant-a", "app", appDigest, contentName(appDigest)),
			planned("tenant-b", "web", webDigest, contentName(webDigest)),
			gone, stuck,
		},
	}, {
		name: "unchanged, the function names another file",
		opts: []Option{WithArtifactDigest(namedDigest)},
		previous: []inventory.Entry{
			upstream("tenant-a", "app", appDigest, "3101889545.tar.gz"),
			upstream("tenant-b", "web", webDigest, "2006451.tar.gz"),
		},
		filenames: map[string]string{"app": contentName(appDigest), "web": contentName(webDigest)},
		next: []inventory.Entry{
			planned("tenant-a", "app", appDigest, contentName(appDigest)),
			planned("tenant-b", "web", webDigest, contentName(webDigest)),
		},
	}, {
		name: "changed, the function names the new file",
		opts: []Option{WithArtifactDigest(namedDigest)},
		edit: editWeb,
		previous: []inventory.Entry{
			upstream("tenant-a", "app", appDigest, contentName(appDigest)),
			upstream("tenant-b", "web", webDigest, contentName(webDigest)),
			gone, stuck,
		},
		stale: []string{
			"ExternalArtifact/tenant-c/stuck kept (guard failed: reading the live object: connection refused)",
			"ExternalArtifact/tenant-c/gone deleted (no longer desired; not found in the cluster)",
		},
		filenames: map[string]string{"app": contentName(appDigest), "web": contentName(editedDigest)},
		next: []inventory.Entry{
			planned("tenant-a", "app", appDigest, contentName(appDigest)),
			planned("tenant-b", "web", editedDigest, contentName(editedDigest)),
			gone, stuck,
		},
	}, {
		// The previous file holds the previous content: its name is not
		// the changed artifact's.
		name: "changed, the function names no file",
		opts: []Option{WithArtifactDigest(copyFSDigest)},
		edit: editWeb,
		previous: []inventory.Entry{
			upstream("tenant-a", "app", appDigest, "3101889545.tar.gz"),
			upstream("tenant-b", "web", webDigest, "2006451.tar.gz"),
		},
		filenames: map[string]string{"app": "3101889545.tar.gz", "web": ""},
		next: []inventory.Entry{
			planned("tenant-a", "app", appDigest, "3101889545.tar.gz"),
			planned("tenant-b", "web", editedDigest, ""),
		},
	}, {
		name: "a skipped artifact keeps its entry",
		opts: []Option{WithArtifactDigest(failWeb)},
		edit: editWeb,
		previous: []inventory.Entry{
			upstream("tenant-a", "app", appDigest, contentName(appDigest)),
			upstream("tenant-b", "web", webDigest, contentName(webDigest)),
			gone, stuck,
		},
		stale: []string{
			"ExternalArtifact/tenant-c/stuck kept (desired state has errors)",
			"ExternalArtifact/tenant-c/gone kept (desired state has errors)",
		},
		filenames: map[string]string{"app": contentName(appDigest)},
		next: []inventory.Entry{
			planned("tenant-a", "app", appDigest, contentName(appDigest)),
			upstream("tenant-b", "web", webDigest, contentName(webDigest)),
			gone, stuck,
		},
	}, {
		name: "tenantkit's own digest",
		previous: []inventory.Entry{
			planned("tenant-a", "app", own["app"], "app.tar.gz"),
			planned("tenant-b", "web", own["web"], "web.tar.gz"),
		},
		filenames: map[string]string{"app": "app.tar.gz", "web": "web.tar.gz"},
		next: []inventory.Entry{
			planned("tenant-a", "app", own["app"], "app.tar.gz"),
			planned("tenant-b", "web", own["web"], "web.tar.gz"),
		},
	}, {
		// The first entry of an identity is the tracked one: the second,
		// with its name, does not count, and the desired entry replaces
		// it.
		name: "an identity twice",
		opts: []Option{WithArtifactDigest(copyFSDigest)},
		previous: []inventory.Entry{
			upstream("tenant-a", "app", appDigest, ""),
			upstream("tenant-a", "app", appDigest, "3101889545.tar.gz"),
			upstream("tenant-b", "web", webDigest, "2006451.tar.gz"),
			upstream("tenant-b", "web", webDigest, "other.tar.gz"),
		},
		filenames: map[string]string{"app": "", "web": "2006451.tar.gz"},
		next: []inventory.Entry{
			planned("tenant-a", "app", appDigest, ""),
			planned("tenant-b", "web", webDigest, "2006451.tar.gz"),
		},
	}, {
		name: "a previous name that is not the name of one file",
		opts: []Option{WithArtifactDigest(copyFSDigest)},
		previous: []inventory.Entry{
			upstream("tenant-a", "app", appDigest, "../tenant-b/web/2006451.tar.gz"),
			upstream("tenant-b", "web", webDigest, ".."),
		},
		filenames: map[string]string{"app": "", "web": ""},
		next: []inventory.Entry{
			planned("tenant-a", "app", appDigest, ""),
			planned("tenant-b", "web", webDigest, ""),
		},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tree := digestTree(t)
			if tc.edit != nil {
				tc.edit(tree)
			}
			plan := mustPlan(t, mustCompile(t, digestSpec(), tc.opts...), sources(tree), tc.previous, cluster())
			got := map[string]string{}
			for _, a := range plan.Artifacts {
				got[a.Name] = a.Filename
			}
			if diff := cmp.Diff(tc.filenames, got); diff != "" {
				t.Errorf("Artifacts' Filename (-want +got):\n%s", diff)
			}
			var stale []string
			for _, d := range plan.Decisions {
				if d.Entry.Namespace == "tenant-c" {
					stale = append(stale, d.String())
				}
			}
			if diff := cmp.Diff(tc.stale, stale); diff != "" {
				t.Errorf("decisions of the stale entries (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(asStatus(tc.next...), plan.Next(nil)); diff != "" {
				t.Errorf("Next (-want +got):\n%s", diff)
			}
		})
	}
}

func TestValidFilename(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		name string
		want bool
	}{
		"upstream's":       {"3101889545.tar.gz", true},
		"dot first":        {".tar.gz", true},
		"three dots":       {"...", true},
		"255 bytes":        {strings.Repeat("a", 255), true},
		"empty":            {"", false},
		"dot":              {".", false},
		"dot dot":          {"..", false},
		"a path":           {"a/b.tar.gz", false},
		"a parent":         {"../b.tar.gz", false},
		"absolute":         {"/b.tar.gz", false},
		"a backslash":      {`a\b.tar.gz`, false},
		"a NUL byte":       {"a\x00.tar.gz", false},
		"256 bytes":        {strings.Repeat("a", 256), false},
		"a trailing slash": {"a/", false},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if got := validFilename(tc.name); got != tc.want {
				t.Errorf("validFilename(%q) = %v, want %v", tc.name, got, tc.want)
			}
		})
	}
}
