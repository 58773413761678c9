package flux_test

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/fluxcd/pkg/artifact/config"
	"github.com/fluxcd/pkg/artifact/storage"
	"github.com/google/go-cmp/cmp"
	"github.com/opencontainers/go-digest"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tenantkit/tenantkit/generator"
	"github.com/tenantkit/tenantkit/inventory"
)

// These tests back generator's TestWithArtifactDigestCopyFS
// (generator/artifactdigest_test.go) with Flux's real storage: its
// archiver there is hand-written and unexported, so it cannot be compared
// here; instead both sides of that test, the artifact's file system
// written out with os.CopyFS and the staging directory laid out by hand,
// are archived by fluxcd/pkg/artifact/storage's Archive with the filter
// source-watcher's builder passes (SourceIgnoreFilter(nil, nil), Flux's
// default ignore patterns).

// archiveTree returns a gzip-compressed tarball of entries, each a path
// and a body, a path ending in "/" a directory, one ending in "*" an
// executable file.
func archiveTree(t *testing.T, entries ...string) []byte {
	t.Helper()
	var buf bytes.Buffer
	gw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gw)
	for _, e := range entries {
		name, body, _ := strings.Cut(e, "=")
		hdr := &tar.Header{Name: name, Typeflag: tar.TypeReg, Mode: 0o644, Size: int64(len(body))}
		switch {
		case strings.HasSuffix(name, "/"):
			hdr.Typeflag, hdr.Mode, hdr.Size = tar.TypeDir, 0o755, 0
		case strings.HasSuffix(name, "*"):
			hdr.Name, hdr.Mode = strings.TrimSuffix(name, "*"), 0o755
		}
		if err := tw.WriteHeader(hdr); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write([]byte(body)); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := gw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

const artifactPattern = "@repo/tenants/{namespace}/modules/{module}"

// artifactSpec generates one artifact per module: its manifests (copied,
// an executable among them, in nested directories), the base values with
// the module's merged over them, and the module's chart extracted.
func artifactSpec() generator.Spec {
	const m = artifactPattern
	return generator.Spec{
		PathPattern: m,
		Sources:     []generator.SourceReference{{Alias: "repo", Kind: "OCIRepository", Name: "monorepo"}},
		Artifacts: []generator.OutputArtifact{{
			Name:      "{module}",
			Namespace: "{namespace}",
			Copy: []generator.CopyOperation{
				{From: m + "/manifests/**", To: "@artifact/"},
				{From: "@repo/base/values.yaml", To: "@artifact/values.yaml"},
				{From: m + "/values.yaml", To: "@artifact/values.yaml", Strategy: "Merge", Optional: true},
				{From: m + "/chart.tgz", To: "@artifact/chart/", Strategy: "Extract", Optional: true},
			},
		}},
	}
}

// artifactTree is a monorepo for artifactSpec: tenant-a/app has every
// kind of file, logo.png among them, which Flux's default ignore patterns
// leave out of the archive; tenant-b's modules have copied files only.
func artifactTree(t *testing.T) fstest.MapFS {
	const a = "tenants/tenant-a/modules/app/"
	return fstest.MapFS{
		"base/values.yaml":                   {Data: []byte("replicas: 1\nimage: app\n")},
		a + "values.yaml":                    {Data: []byte("replicas: 3\n")},
		a + "manifests/deploy.yaml":          {Data: []byte("kind: Deployment\n")},
		a + "manifests/logo.png":             {Data: []byte("\x89PNG\r\n")},
		a + "manifests/bin/run.sh":           {Data: []byte("#!/bin/sh\necho run\n"), Mode: 0o755},
		a + "manifests/overlays/prod/p.yaml": {Data: []byte("kind: Kustomization\n")},
		a + "chart.tgz": {Data: archiveTree(t,
			"Chart.yaml=name: app\n",
			"templates/",
			"templates/cm.yaml=kind: ConfigMap\n",
			"hooks/",
			"tool*=#!/bin/sh\n",
		)},
		"tenants/tenant-b/modules/web/manifests/svc.yaml":    {Data: []byte("kind: Service\n")},
		"tenants/tenant-b/modules/api/manifests/deploy.yaml": {Data: []byte("kind: Deployment\nname: api\n")},
		"tenants/tenant-b/modules/api/manifests/crd/a.yaml":  {Data: []byte("kind: CustomResourceDefinition\n")},
	}
}

// stagedArtifacts are the staging directories that source-watcher's
// builder writes for artifactTree, by namespace/name: path -> content, a
// path ending in "*" an executable file, one ending in "/" an empty
// directory.
func stagedArtifacts() map[string]map[string]string {
	return map[string]map[string]string{
		"tenant-a/app": {
			"deploy.yaml":             "kind: Deployment\n",
			"logo.png":                "\x89PNG\r\n",
			"bin/run.sh*":             "#!/bin/sh\necho run\n",
			"overlays/prod/p.yaml":    "kind: Kustomization\n",
			"values.yaml":             "image: app\nreplicas: 3\n", // merged, as sigs.k8s.io/yaml writes it
			"chart/Chart.yaml":        "name: app\n",
			"chart/templates/cm.yaml": "kind: ConfigMap\n",
			"chart/hooks/":            "",
			"chart/tool*":             "#!/bin/sh\n",
		},
		"tenant-b/web": {
			"svc.yaml":    "kind: Service\n",
			"values.yaml": "replicas: 1\nimage: app\n",
		},
		"tenant-b/api": {
			"deploy.yaml": "kind: Deployment\nname: api\n",
			"crd/a.yaml":  "kind: CustomResourceDefinition\n",
			"values.yaml": "replicas: 1\nimage: app\n",
		},
	}
}

// fluxStorage is the artifact storage of source-watcher, rooted in a
// temporary directory.
func fluxStorage(t *testing.T) *storage.Storage {
	t.Helper()
	s, err := storage.New(&config.Options{StoragePath: t.TempDir(), StorageAdvAddress: "source-watcher.flux-system.svc"})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// fluxArchive archives dir as source-watcher's builder does for the
// ExternalArtifact namespace/name, and returns the digest that Flux's
// storage computes of the tarball.
func fluxArchive(s *storage.Storage, namespace, name, dir string) (digest.Digest, error) {
	a := s.NewArtifactFor("ExternalArtifact", &metav1.ObjectMeta{Namespace: namespace, Name: name}, "", "staging.tar.gz")
	if err := s.MkdirAll(a); err != nil {
		return "", err
	}
	unlock, err := s.Lock(a)
	if err != nil {
		return "", err
	}
	defer unlock()
	if err := s.Archive(&a, dir, storage.SourceIgnoreFilter(nil, nil)); err != nil {
		return "", err
	}
	return digest.Parse(a.Digest)
}

// copyFSDigest is the function an embedder passes to
// generator.WithArtifactDigest: it writes the artifact's file system into
// a staging directory with os.CopyFS and archives it with Flux's storage.
func copyFSDigest(s *storage.Storage) func(context.Context, *generator.Artifact, fs.FS) (digest.Digest, error) {
	return func(_ context.Context, a *generator.Artifact, files fs.FS) (digest.Digest, error) {
		dir, err := os.MkdirTemp("", "stage-")
		if err != nil {
			return "", err
		}
		defer os.RemoveAll(dir)
		stage := filepath.Join(dir, a.Name)
		if err := os.CopyFS(stage, files); err != nil {
			return "", err
		}
		return fluxArchive(s, a.Namespace, a.Name, stage)
	}
}

// stageByHand writes files (as stagedArtifacts holds them) into a new
// directory and archives it with Flux's storage.
func stageByHand(t *testing.T, s *storage.Storage, key string, files map[string]string) digest.Digest {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		perm := os.FileMode(0o644)
		if n, ok := strings.CutSuffix(name, "*"); ok {
			name, perm = n, 0o755
		}
		p := filepath.Join(dir, filepath.FromSlash(name))
		if strings.HasSuffix(name, "/") {
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), perm); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, perm); err != nil { // past the umask
			t.Fatal(err)
		}
	}
	ns, name, _ := strings.Cut(key, "/")
	d, err := fluxArchive(s, ns, name, dir)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// fluxInventory archives each staged artifact by hand and returns Flux's
// digests by namespace/name, and the inventory that source-watcher writes
// of them.
func fluxInventory(t *testing.T, s *storage.Storage, staged map[string]map[string]string) (map[string]digest.Digest, []inventory.Entry) {
	t.Helper()
	digests := map[string]digest.Digest{}
	var entries []inventory.Entry
	for _, key := range slices.Sorted(maps.Keys(staged)) {
		digests[key] = stageByHand(t, s, key, staged[key])
		ns, name, _ := strings.Cut(key, "/")
		entries = append(entries, inventory.Entry{
			APIVersion: inventory.APIVersionExternalArtifact, Kind: inventory.KindExternalArtifact,
			Namespace: ns, Name: name, Digest: digests[key],
		})
	}
	return digests, entries
}

// planFlux plans tree with Flux's archive as the artifact digest, and
// fails the test on any error of the plan.
func planFlux(t *testing.T, s *storage.Storage, tree fstest.MapFS, previous []inventory.Entry, workers int) *generator.Plan {
	t.Helper()
	g, errs := generator.Compile(artifactSpec(),
		generator.WithNamespace("flux-system"),
		generator.WithFileLists(),
		generator.WithConcurrency(workers),
		generator.WithArtifactDigest(copyFSDigest(s)))
	if len(errs) > 0 {
		t.Fatalf("Compile() = %v", errs.ToAggregate())
	}
	plan, err := g.Plan(context.Background(), map[string]fs.FS{"repo": tree}, previous, generator.Cluster{})
	if err != nil || plan.HasErrors() {
		t.Fatalf("Plan() = %v, %v", err, plan.Errors.ToAggregate())
	}
	return plan
}

// decisions returns each decision as "action namespace/name".
func decisions(plan *generator.Plan) []string {
	var out []string
	for _, d := range plan.Decisions {
		out = append(out, d.Action.String()+" "+d.Entry.Namespace+"/"+d.Entry.Name)
	}
	return out
}

// TestArtifactDigestFluxArchive plans artifacts whose digest is Flux's
// storage's, computed from the plan's file system written out with
// os.CopyFS, and compares them, artifact by artifact, with Flux's digest
// of the staging directory that source-watcher's builder lays out for the
// same spec.
func TestArtifactDigestFluxArchive(t *testing.T) {
	t.Parallel()
	s := fluxStorage(t)
	staged := stagedArtifacts()
	want, _ := fluxInventory(t, s, staged)
	// Distinct artifacts must have distinct digests, or equal ones below
	// would prove nothing.
	if got := slices.Compact(slices.Sorted(maps.Values(want))); len(got) != len(want) {
		t.Fatalf("Flux's digests of distinct artifacts are not distinct: %v", want)
	}

	for _, workers := range []int{1, 4} {
		t.Run(fmt.Sprintf("workers=%d", workers), func(t *testing.T) {
			t.Parallel()
			plan := planFlux(t, s, artifactTree(t), nil, workers)
			got := map[string]digest.Digest{}
			files := map[string][]string{}
			for _, a := range plan.Artifacts {
				key := a.Namespace + "/" + a.Name
				got[key] = a.Digest
				for _, f := range a.Files {
					files[key] = append(files[key], f.Path)
				}
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("digests (-staged by hand +planned):\n%s", diff)
			}
			// The plan's files are the staged ones (empty directories
			// aside), so the digests compare the same trees.
			wantFiles := map[string][]string{}
			for key, layout := range staged {
				for name := range layout {
					if !strings.HasSuffix(name, "/") {
						wantFiles[key] = append(wantFiles[key], strings.TrimSuffix(name, "*"))
					}
				}
				slices.Sort(wantFiles[key])
			}
			if diff := cmp.Diff(wantFiles, files); diff != "" {
				t.Errorf("files (-staged +planned):\n%s", diff)
			}
		})
	}
}

// TestArtifactDigestFluxInventory plans against the inventory that
// source-watcher writes, Flux's digests of its staging directories: it
// reads back as unchanged, and a change of one file updates exactly the
// artifact that holds it.
func TestArtifactDigestFluxInventory(t *testing.T) {
	t.Parallel()
	s := fluxStorage(t)
	_, previous := fluxInventory(t, s, stagedArtifacts())
	all := func(action inventory.Action) []string {
		var out []string
		es := slices.Clone(previous)
		inventory.SortApply(es)
		for _, e := range es {
			out = append(out, action.String()+" "+e.Namespace+"/"+e.Name)
		}
		return out
	}

	tests := []struct {
		name string
		// edit changes the monorepo, and staged what source-watcher then
		// stages.
		edit      func(tree fstest.MapFS, staged map[string]map[string]string)
		decisions []string
	}{{
		name:      "unchanged",
		edit:      func(fstest.MapFS, map[string]map[string]string) {},
		decisions: all(inventory.Unchanged),
	}, {
		name: "a copied file of tenant-b/web changed",
		edit: func(tree fstest.MapFS, staged map[string]map[string]string) {
			tree["tenants/tenant-b/modules/web/manifests/svc.yaml"] = &fstest.MapFile{Data: []byte("kind: Service\nport: 80\n")}
			staged["tenant-b/web"]["svc.yaml"] = "kind: Service\nport: 80\n"
		},
		decisions: []string{"unchanged tenant-a/app", "unchanged tenant-b/api", "update tenant-b/web"},
	}, {
		name: "an extracted file of tenant-a/app changed",
		edit: func(tree fstest.MapFS, staged map[string]map[string]string) {
			tree["tenants/tenant-a/modules/app/chart.tgz"] = &fstest.MapFile{Data: archiveTree(t,
				"Chart.yaml=name: app\nversion: 2\n", "templates/", "templates/cm.yaml=kind: ConfigMap\n", "hooks/", "tool*=#!/bin/sh\n")}
			staged["tenant-a/app"]["chart/Chart.yaml"] = "name: app\nversion: 2\n"
		},
		decisions: []string{"update tenant-a/app", "unchanged tenant-b/api", "unchanged tenant-b/web"},
	}, {
		name: "a file of tenant-b/api became executable",
		edit: func(tree fstest.MapFS, staged map[string]map[string]string) {
			tree["tenants/tenant-b/modules/api/manifests/crd/a.yaml"].Mode = 0o755
			delete(staged["tenant-b/api"], "crd/a.yaml")
			staged["tenant-b/api"]["crd/a.yaml*"] = "kind: CustomResourceDefinition\n"
		},
		decisions: []string{"unchanged tenant-a/app", "update tenant-b/api", "unchanged tenant-b/web"},
	}, {
		name: "the base values changed",
		edit: func(tree fstest.MapFS, staged map[string]map[string]string) {
			tree["base/values.yaml"] = &fstest.MapFile{Data: []byte("replicas: 2\nimage: app\n")}
			staged["tenant-a/app"]["values.yaml"] = "image: app\nreplicas: 3\n" // tenant-a/app's own replicas win
			staged["tenant-b/web"]["values.yaml"] = "replicas: 2\nimage: app\n"
			staged["tenant-b/api"]["values.yaml"] = "replicas: 2\nimage: app\n"
		},
		decisions: []string{"unchanged tenant-a/app", "update tenant-b/api", "update tenant-b/web"},
	}, {
		// Flux's default ignore patterns leave *.png out of the archive:
		// a change to one is no change of the artifact.
		name: "an ignored file of tenant-a/app changed",
		edit: func(tree fstest.MapFS, staged map[string]map[string]string) {
			tree["tenants/tenant-a/modules/app/manifests/logo.png"] = &fstest.MapFile{Data: []byte("\x89PNG\r\n\x1a\n")}
			staged["tenant-a/app"]["logo.png"] = "\x89PNG\r\n\x1a\n"
		},
		decisions: all(inventory.Unchanged),
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tree, staged := artifactTree(t), stagedArtifacts()
			tc.edit(tree, staged)
			want, _ := fluxInventory(t, s, staged)
			plan := planFlux(t, s, tree, previous, 2)
			if diff := cmp.Diff(tc.decisions, decisions(plan)); diff != "" {
				t.Errorf("decisions (-want +got):\n%s", diff)
			}
			got := map[string]digest.Digest{}
			for _, a := range plan.Artifacts {
				got[a.Namespace+"/"+a.Name] = a.Digest
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("digests (-staged by hand +planned):\n%s", diff)
			}
		})
	}
}
