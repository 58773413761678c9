package generator

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/opencontainers/go-digest"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/tenantkit/tenantkit/inventory"
)

// archiveDir archives dir as source-watcher's storage does
// (fluxcd/pkg/artifact/storage Archive), and returns the digest of the
// tarball: every directory and regular file in filepath.Walk's order,
// named relative to dir, the root "." included, without owner or times,
// and with the modes reduced to a directory's (0750), an executable file's
// (0700) or another file's (0600). Flux's default ignore patterns are left
// out: the trees here hold no file they match. interop/flux's
// artifact_test.go runs Flux's own Archive on the same kind of trees.
func archiveDir(dir string) (digest.Digest, error) {
	h := sha256.New()
	gw := gzip.NewWriter(h)
	tw := tar.NewWriter(gw)
	err := filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		if m := fi.Mode(); !m.IsRegular() && !m.IsDir() {
			return nil
		}
		hdr, err := tar.FileInfoHeader(fi, p)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		hdr.Name = filepath.ToSlash(rel)
		hdr.Uid, hdr.Gid, hdr.Uname, hdr.Gname = 0, 0, "", ""
		hdr.ModTime, hdr.AccessTime, hdr.ChangeTime = time.Time{}, time.Time{}, time.Time{}
		switch {
		case fi.IsDir():
			hdr.Mode = 0o750
		case fi.Mode()&0o111 != 0:
			hdr.Mode = 0o700
		default:
			hdr.Mode = 0o600
		}
		if err := tw.WriteHeader(hdr); err != nil {
			return err
		}
		if fi.IsDir() {
			return nil
		}
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		_, err = io.Copy(tw, f)
		return err
	})
	if err != nil {
		return "", err
	}
	if err := tw.Close(); err != nil {
		return "", err
	}
	if err := gw.Close(); err != nil {
		return "", err
	}
	return digest.NewDigest(digest.SHA256, h), nil
}

// copyFSDigest is a digest function as an embedder writes one: it writes the
// artifact's files into a staging directory with os.CopyFS and archives it.
func copyFSDigest(_ context.Context, _ *Artifact, files fs.FS) (digest.Digest, error) {
	dir, err := os.MkdirTemp("", "artifact-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(dir)
	stage := filepath.Join(dir, "stage")
	if err := os.CopyFS(stage, files); err != nil {
		return "", err
	}
	return archiveDir(stage)
}

// handDigest writes files (path -> content, a path ending in "*" an
// executable, one ending in "/" an empty directory) into a directory by
// hand and archives it.
func handDigest(t *testing.T, files map[string]string) digest.Digest {
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
	d, err := archiveDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// digestSpec is a generator without managed namespaces whose artifacts
// hold copied, merged and extracted files.
func digestSpec() Spec {
	const m = "@repo/tenants/{namespace}/modules/{module}"
	return Spec{
		PathPattern: m,
		Sources:     []SourceReference{{Alias: "repo", Kind: "OCIRepository", Name: "monorepo"}},
		Artifacts: []OutputArtifact{{
			Name:       "{module}",
			Namespace:  "{namespace}",
			InputsFrom: m + "/inputs.yaml",
			Copy: []CopyOperation{
				{From: m + "/manifests/**", To: "@artifact/"},
				{From: "@repo/base/values.yaml", To: "@artifact/values.yaml"},
				{From: m + "/values.yaml", To: "@artifact/values.yaml", Strategy: "Merge", Optional: true},
				{From: m + "/chart.tgz", To: "@artifact/chart/", Strategy: "Extract", Optional: true},
			},
		}},
	}
}

// digestTree is a monorepo for digestSpec: tenant-a/app has every kind of
// file, tenant-b/web copied ones only.
func digestTree(t testing.TB) fstest.MapFS {
	return fstest.MapFS{
		"base/values.yaml":                                  {Data: []byte("replicas: 1\nimage: app\n")},
		"tenants/tenant-a/modules/app/inputs.yaml":          {Data: []byte("team: a\n")},
		"tenants/tenant-a/modules/app/values.yaml":          {Data: []byte("replicas: 3\n")},
		"tenants/tenant-a/modules/app/manifests/a.yaml":     {Data: []byte("kind: Deployment\n")},
		"tenants/tenant-a/modules/app/manifests/bin/run.sh": {Data: []byte("#!/bin/sh\n"), Mode: 0o755},
		"tenants/tenant-a/modules/app/chart.tgz": {Data: tgz(t,
			tarEntry{name: "Chart.yaml", body: "name: app\n"},
			tarEntry{name: "templates/", typ: tar.TypeDir, mode: 0o755},
			tarEntry{name: "templates/cm.yaml", body: "kind: ConfigMap\n"},
			tarEntry{name: "hooks/", typ: tar.TypeDir, mode: 0o755},
			tarEntry{name: "tool", body: "#!/bin/sh\n", mode: 0o755},
		)},
		"tenants/tenant-b/modules/web/manifests/w.yaml": {Data: []byte("kind: Service\n")},
	}
}

// handArtifacts are digestTree's artifacts, written by hand.
var handArtifacts = map[string]map[string]string{
	"tenant-a/app": {
		"a.yaml":                  "kind: Deployment\n",
		"bin/run.sh*":             "#!/bin/sh\n",
		"values.yaml":             "image: app\nreplicas: 3\n", // merged, as sigs.k8s.io/yaml writes it
		"chart/Chart.yaml":        "name: app\n",
		"chart/templates/cm.yaml": "kind: ConfigMap\n",
		"chart/hooks/":            "",
		"chart/tool*":             "#!/bin/sh\n",
	},
	"tenant-b/web": {
		"w.yaml":      "kind: Service\n",
		"values.yaml": "replicas: 1\nimage: app\n",
	},
}

func TestWithArtifactDigestCopyFS(t *testing.T) {
	t.Parallel()
	want := map[string]digest.Digest{}
	var previous []inventory.Entry
	for key, files := range handArtifacts {
		want[key] = handDigest(t, files)
		ns, name, _ := strings.Cut(key, "/")
		previous = append(previous, inventory.Entry{APIVersion: artifactAPIVersion, Kind: artifactKind, Namespace: ns, Name: name, Digest: want[key]})
	}
	for _, workers := range []int{1, 4} {
		t.Run(fmt.Sprintf("workers=%d", workers), func(t *testing.T) {
			t.Parallel()
			g := mustCompile(t, digestSpec(), WithArtifactDigest(copyFSDigest), WithConcurrency(workers))
			plan, err := g.Plan(context.Background(), sources(digestTree(t)), previous, Cluster{})
			if err != nil || plan.HasErrors() {
				t.Fatalf("Plan() = %v, %v", err, plan.Errors.ToAggregate())
			}
			got := map[string]digest.Digest{}
			for _, a := range plan.Artifacts {
				got[a.Namespace+"/"+a.Name] = a.Digest
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("digests (-archived by hand +planned):\n%s", diff)
			}
			// The inventory that holds those digests reads back unchanged.
			for _, d := range plan.Decisions {
				if d.Action != inventory.Unchanged {
					t.Errorf("decision %s = %s (%s), want unchanged", d.Entry.ID(), d.Action, d.Reason)
				}
			}
			if len(plan.Decisions) != len(previous) {
				t.Errorf("%d decisions, want %d", len(plan.Decisions), len(previous))
			}
			next := slices.Clone(previous)
			inventory.SortApply(next)
			if diff := cmp.Diff(asStatus(next...), plan.Next(nil)); diff != "" {
				t.Errorf("Next (-want +got):\n%s", diff)
			}
		})
	}
	t.Run("without the option", func(t *testing.T) {
		t.Parallel()
		// tenantkit's own digest is another: the same inventory is two
		// updates, which is what the option is for.
		plan, err := mustCompile(t, digestSpec()).Plan(context.Background(), sources(digestTree(t)), previous, Cluster{})
		if err != nil || plan.HasErrors() {
			t.Fatalf("Plan() = %v, %v", err, plan.Errors.ToAggregate())
		}
		for _, d := range plan.Decisions {
			if d.Action != inventory.Update {
				t.Errorf("decision %s = %s, want update", d.Entry.ID(), d.Action)
			}
		}
	})
}

func TestWithArtifactDigestArguments(t *testing.T) {
	t.Parallel()
	var (
		mu  sync.Mutex
		got = map[string]string{}
	)
	f := func(ctx context.Context, a *Artifact, files fs.FS) (digest.Digest, error) {
		if ctx == nil || a.Digest != "" {
			return "", errors.New("no context, or a digest already set")
		}
		mu.Lock()
		defer mu.Unlock()
		got[a.Namespace+"/"+a.Name] = fmt.Sprintf("%d files, inputs %s", a.FileCount, a.Inputs)
		return digest.FromString(a.Name), nil
	}
	plan, err := mustCompile(t, digestSpec(), WithArtifactDigest(f)).Plan(context.Background(), sources(digestTree(t)), nil, Cluster{})
	if err != nil || plan.HasErrors() {
		t.Fatalf("Plan() = %v, %v", err, plan.Errors.ToAggregate())
	}
	want := map[string]string{"tenant-a/app": `6 files, inputs {"team":"a"}`, "tenant-b/web": "2 files, inputs "}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("arguments (-want +got):\n%s", diff)
	}
	for _, a := range plan.Artifacts {
		if a.Digest != digest.FromString(a.Name) {
			t.Errorf("%s: Digest = %s, want the function's", a.Name, a.Digest)
		}
	}
}

func TestWithArtifactDigestFailure(t *testing.T) {
	t.Parallel()
	errBoom := errors.New("boom")
	big := digestTree(t)
	big["tenants/tenant-b/modules/web/manifests/big.yaml"] = &fstest.MapFile{Data: make([]byte, maxArtifactFileBytes+1)}
	tests := []struct {
		name   string
		tree   fstest.MapFS
		f      func(context.Context, *Artifact, fs.FS) (digest.Digest, error)
		reason string
		err    string // field | type | detail
	}{{
		name: "the function fails",
		tree: digestTree(t),
		f: func(_ context.Context, a *Artifact, _ fs.FS) (digest.Digest, error) {
			if a.Name == "web" {
				return "", errBoom
			}
			return digest.FromString(a.Name), nil
		},
		reason: "its digest cannot be computed; kept in the inventory",
		err:    "spec.artifacts[0] | Internal error | " + `artifact tenant-b/web (directory "tenants/tenant-b/modules/web"): digest: boom`,
	}, {
		name: "an invalid digest",
		tree: digestTree(t),
		f: func(_ context.Context, a *Artifact, _ fs.FS) (digest.Digest, error) {
			if a.Name == "web" {
				return "sha256:web", nil
			}
			return digest.FromString(a.Name), nil
		},
		reason: "its digest cannot be computed; kept in the inventory",
		err:    "spec.artifacts[0] | Internal error | " + `artifact tenant-b/web (directory "tenants/tenant-b/modules/web"): digest: the digest function returned "sha256:web": invalid checksum digest length`,
	}, {
		// A file that cannot be read fails the artifact, even when the
		// function goes on without it.
		name: "a file cannot be read",
		tree: big,
		f: func(_ context.Context, a *Artifact, files fs.FS) (digest.Digest, error) {
			_ = fs.WalkDir(files, ".", func(p string, d fs.DirEntry, err error) error {
				if err == nil && !d.IsDir() {
					_, _ = fs.ReadFile(files, p)
				}
				return nil
			})
			return digest.FromString(a.Name), nil
		},
		reason: "its digest cannot be computed; kept in the inventory",
		err:    fmt.Sprintf("spec.artifacts[0].copy | Invalid value | read tenants/tenant-b/modules/web/manifests/big.yaml: pathpattern: must be no more than %d bytes", maxArtifactFileBytes),
	}, {
		name: "a Filename that is not the name of one file",
		tree: digestTree(t),
		f: func(_ context.Context, a *Artifact, _ fs.FS) (digest.Digest, error) {
			if a.Name == "web" {
				a.Filename = "../app/1.tar.gz"
			}
			return digest.FromString(a.Name), nil
		},
		reason: "its digest cannot be computed; kept in the inventory",
		err: "spec.artifacts[0] | Internal error | " + `artifact tenant-b/web (directory "tenants/tenant-b/modules/web"): digest: ` +
			`the digest function set Filename "../app/1.tar.gz": must be the name of one file: 1 to 255 bytes, not "." or "..", without "/", "\" or NUL`,
	}, {
		name: "the function panics",
		tree: digestTree(t),
		f: func(_ context.Context, a *Artifact, _ fs.FS) (digest.Digest, error) {
			if a.Name == "web" {
				panic("boom")
			}
			return digest.FromString(a.Name), nil
		},
		reason: reasonPanic + "; kept in the inventory",
		err:    "spec.artifacts[0] | Internal error | " + `artifact tenant-b/web (directory "tenants/tenant-b/modules/web"): panic: boom`,
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tracked := inventory.Entry{APIVersion: artifactAPIVersion, Kind: artifactKind, Namespace: "tenant-b", Name: "web", Digest: digest.FromString("old")}
			app := inventory.Entry{APIVersion: artifactAPIVersion, Kind: artifactKind, Namespace: "tenant-a", Name: "app", Digest: digest.FromString("app")}
			plan, err := mustCompile(t, digestSpec(), WithArtifactDigest(tc.f)).Plan(context.Background(), sources(tc.tree), []inventory.Entry{app, tracked}, Cluster{})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff([]string{tc.err}, errorTriples(plan.Errors)); diff != "" {
				t.Errorf("Errors (-want +got):\n%s", diff)
			}
			want := []inventory.Decision{
				{Entry: app, Action: inventory.Unchanged},
				{Entry: inventory.Entry{APIVersion: artifactAPIVersion, Kind: artifactKind, Namespace: "tenant-b", Name: "web", Digest: tracked.Digest}, Action: inventory.Skip, Reason: tc.reason},
			}
			if diff := cmp.Diff(want, plan.Decisions); diff != "" {
				t.Errorf("Decisions (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(asStatus(app, tracked), plan.Next(nil)); diff != "" {
				t.Errorf("Next (-want +got):\n%s", diff)
			}
		})
	}
}

// TestArtifactFS runs fstest.TestFS on the file system of an artifact with
// copied, merged and extracted files, and checks what it holds.
func TestArtifactFS(t *testing.T) {
	t.Parallel()
	var (
		mu     sync.Mutex
		failed = map[string]error{}
		seen   = map[string][]string{}
	)
	f := func(_ context.Context, a *Artifact, files fs.FS) (digest.Digest, error) {
		want := []string{"a.yaml", "bin/run.sh", "values.yaml", "chart/Chart.yaml", "chart/templates/cm.yaml", "chart/tool", "chart/hooks"}
		if a.Name == "web" {
			want = []string{"w.yaml", "values.yaml"}
		}
		err := fstest.TestFS(files, want...)
		var listing []string
		_ = fs.WalkDir(files, ".", func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				listing = append(listing, "error "+err.Error())
				return nil
			}
			info, err := d.Info()
			if err != nil {
				listing = append(listing, "error "+err.Error())
				return nil
			}
			listing = append(listing, fmt.Sprintf("%s %v %d", p, info.Mode(), info.Size()))
			return nil
		})
		mu.Lock()
		defer mu.Unlock()
		failed[a.Name], seen[a.Name] = err, listing
		return digest.FromString(a.Name), nil
	}
	plan, err := mustCompile(t, digestSpec(), WithArtifactDigest(f)).Plan(context.Background(), sources(digestTree(t)), nil, Cluster{})
	if err != nil || plan.HasErrors() {
		t.Fatalf("Plan() = %v, %v", err, plan.Errors.ToAggregate())
	}
	for name, err := range failed {
		if err != nil {
			t.Errorf("%s: fstest.TestFS: %v", name, err)
		}
	}
	want := map[string][]string{
		"app": {
			". drwxr-xr-x 0",
			"a.yaml -rw-r--r-- 17",
			"bin drwxr-xr-x 0",
			"bin/run.sh -rwxr-xr-x 10",
			"chart drwxr-xr-x 0",
			"chart/Chart.yaml -rw-r--r-- 10",
			"chart/hooks drwxr-xr-x 0",
			"chart/templates drwxr-xr-x 0",
			"chart/templates/cm.yaml -rw-r--r-- 16",
			"chart/tool -rwxr-xr-x 10",
			"values.yaml -rw-r--r-- 23",
		},
		"web": {
			". drwxr-xr-x 0",
			"values.yaml -rw-r--r-- 23",
			"w.yaml -rw-r--r-- 14",
		},
	}
	if diff := cmp.Diff(want, seen); diff != "" {
		t.Errorf("listings (-want +got):\n%s", diff)
	}
}

func TestWithArtifactDigestNil(t *testing.T) {
	t.Parallel()
	_, errs := Compile(digestSpec(), WithNamespace("flux-system"), WithArtifactDigest(nil))
	want := field.ErrorList{field.Required(field.NewPath("WithArtifactDigest"), "a digest function, not nil")}
	if diff := cmp.Diff(want, errs); diff != "" {
		t.Errorf("Compile() errors (-want +got):\n%s", diff)
	}
}

// errorTriples returns each error's field, type and detail.
func errorTriples(errs field.ErrorList) []string {
	var out []string
	for _, e := range errs {
		out = append(out, fmt.Sprintf("%s | %s | %s", e.Field, e.Type, e.Detail))
	}
	return out
}
