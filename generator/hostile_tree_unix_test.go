//go:build unix

package generator

import (
	"context"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/tenantkit/tenantkit/dirfs"
	"github.com/tenantkit/tenantkit/internal/hostile"
	"github.com/tenantkit/tenantkit/inventory"
)

// sampleRepo copies the sample monorepo of examples/plan to a temporary
// directory.
func sampleRepo(t *testing.T) string {
	t.Helper()
	repo := t.TempDir()
	if err := os.CopyFS(repo, os.DirFS("../examples/plan/sample/monorepo")); err != nil {
		t.Fatal(err)
	}
	return repo
}

// hostileSources are the file systems TestHostileTree reads a tree
// through: root.FS() of an os.Root, and package dirfs, which refuses every
// link in the file system itself.
var hostileSources = []hostileSource{
	{name: "os.Root", open: func(dir string) (fs.FS, func() error, error) {
		root, err := os.OpenRoot(dir)
		if err != nil {
			return nil, nil, err
		}
		return root.FS(), root.Close, nil
	}},
	{name: "dirfs", open: func(dir string) (fs.FS, func() error, error) {
		fsys, err := dirfs.Open(dir)
		if err != nil {
			return nil, nil, err
		}
		return fsys, fsys.Close, nil
	}},
}

type hostileSource struct {
	name string
	open func(dir string) (fs.FS, func() error, error)
}

// hostilePlan plans repo, read through src, with the sample generator,
// and checks that a plan with errors deletes nothing.
func hostilePlan(t *testing.T, src hostileSource, repo string, previous []inventory.Entry) *Plan {
	t.Helper()
	spec, opts := sampleSpec(t)
	g := mustCompile(t, spec, opts...)
	fsys, closeFS, err := src.open(repo)
	if err != nil {
		t.Fatal(err)
	}
	defer closeFS()
	p, err := g.Plan(context.Background(), map[string]fs.FS{"repo": fsys}, previous, emptyCluster{}.cluster())
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range p.Decisions {
		if d.Action == inventory.Delete && p.HasErrors() {
			t.Errorf("a plan with errors deletes %s", d)
		}
	}
	return p
}

// errorsContain reports whether an error of p has a field and a detail
// containing the given strings.
func errorsContain(p *Plan, field, detail string) bool {
	for _, e := range p.Errors {
		if strings.Contains(e.Field, field) && strings.Contains(e.Detail, detail) {
			return true
		}
	}
	return false
}

// mksocket creates a listening unix socket at path. It binds the socket in
// a short directory and renames it into place: a socket's path must fit in
// sun_path (104 bytes on the BSDs, 108 on Linux), and a test's temporary
// directory may not.
func mksocket(t *testing.T, path string) {
	t.Helper()
	short, err := os.MkdirTemp("", "sock")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(short) })
	l, err := net.Listen("unix", filepath.Join(short, "s"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	os.Remove(path)
	if err := os.Rename(filepath.Join(short, "s"), path); err != nil {
		t.Fatal(err)
	}
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	os.Remove(link)
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

// TestHostileTree plans the sample after a tenant commits something
// hostile, or the checkout holds something no commit can (FIFOs,
// sockets), on the real file system, through root.FS() and through
// package dirfs: each case expects the same outcome from both.
func TestHostileTree(t *testing.T) {
	t.Parallel()
	const (
		payments = "tenants/tenant-payments"
		api      = payments + "/modules/api"
		metadata = payments + "/namespace-metadata.yaml"
		inputs   = api + "/applier-inputs.yaml"
	)
	exact := func(n int) string { // a valid YAML mapping of exactly n bytes
		head := "replicas: 3\n#"
		return head + strings.Repeat("x", n-len(head)-1) + "\n"
	}
	exactMetadata := func(n int) string {
		head := "apiVersion: source.extensions.fluxcd.io/v1beta1\nkind: NamespaceMetadata\n#"
		return head + strings.Repeat("x", n-len(head)-1) + "\n"
	}
	for _, tt := range []struct {
		name   string
		change func(t *testing.T, repo string)
		code   int    // 1: the plan has errors
		field  string // of an expected error
		detail string
		left   []string // the paths a warning says a copy left out, and why
		check  func(t *testing.T, p *Plan)
	}{
		{name: "FIFO as the namespace metadata file", change: func(t *testing.T, repo string) { hostile.Mkfifo(t, filepath.Join(repo, metadata)) },
			code: 1, field: "spec.managedNamespaces.metadata.fromSource.path", detail: "must be a regular file"},
		{name: "FIFO as the inputs file", change: func(t *testing.T, repo string) { hostile.Mkfifo(t, filepath.Join(repo, inputs)) },
			code: 1, field: "spec.artifacts[0].inputsFrom", detail: "must be a regular file"},
		{name: "FIFO among the manifests", change: func(t *testing.T, repo string) { hostile.Mkfifo(t, filepath.Join(repo, api, "manifests/pipe.yaml")) },
			code: 0, left: []string{api + "/manifests/pipe.yaml: not a regular file"},
			check: filesOf("tenant-payments", "api", "config/configmap.yaml", "deployment.yaml", "service.yaml")},
		{name: "FIFO as the manifests directory", change: func(t *testing.T, repo string) {
			os.RemoveAll(filepath.Join(repo, api, "manifests"))
			hostile.Mkfifo(t, filepath.Join(repo, api, "manifests"))
		}, code: 1, field: "spec.artifacts[0].copy[0].from", detail: "selects no file"},
		{name: "FIFO as a tenant directory", change: func(t *testing.T, repo string) { hostile.Mkfifo(t, filepath.Join(repo, "tenants/tenant-fifo")) }, code: 0},
		{name: "FIFO as a modules directory", change: func(t *testing.T, repo string) {
			os.RemoveAll(filepath.Join(repo, "tenants/tenant-sandbox/modules"))
			hostile.Mkfifo(t, filepath.Join(repo, "tenants/tenant-sandbox/modules"))
		}, code: 1, field: "spec.pathPattern", detail: "must be a directory, not a named pipe",
			check: kept("tenants/tenant-sandbox/modules", "Namespace/tenant-sandbox", "ExternalArtifact/tenant-sandbox/playground")},
		{name: "socket as the inputs file", change: func(t *testing.T, repo string) { mksocket(t, filepath.Join(repo, inputs)) },
			code: 1, field: "spec.artifacts[0].inputsFrom", detail: "must be a regular file"},
		{name: "socket among the manifests", change: func(t *testing.T, repo string) { mksocket(t, filepath.Join(repo, api, "manifests/s.yaml")) },
			code: 0, left: []string{api + "/manifests/s.yaml: not a regular file"},
			check: filesOf("tenant-payments", "api", "config/configmap.yaml", "deployment.yaml", "service.yaml")},
		{name: "metadata file linked to /etc/passwd", change: func(t *testing.T, repo string) { symlink(t, "/etc/passwd", filepath.Join(repo, metadata)) },
			code: 1, field: "spec.managedNamespaces.metadata.fromSource.path", detail: "must not be a symbolic link"},
		{name: "inputs file linked to another tenant's", change: func(t *testing.T, repo string) {
			symlink(t, "../../../tenant-search/modules/indexer/applier-inputs.yaml", filepath.Join(repo, inputs))
		}, code: 1, field: "spec.artifacts[0].inputsFrom", detail: "must not be a symbolic link"},
		{name: "manifests linked to another tenant's", change: func(t *testing.T, repo string) {
			os.RemoveAll(filepath.Join(repo, api, "manifests"))
			symlink(t, "../../../tenant-search/modules/indexer/manifests", filepath.Join(repo, api, "manifests"))
		}, code: 1, field: "spec.artifacts[0].copy[0].from", detail: "selects no file", left: []string{api + "/manifests: a symbolic link"}},
		{name: "manifest linked out of the root", change: func(t *testing.T, repo string) {
			symlink(t, "/etc/passwd", filepath.Join(repo, api, "manifests/passwd.yaml"))
			symlink(t, "../../../../../..", filepath.Join(repo, api, "manifests/up"))
			symlink(t, "loop", filepath.Join(repo, api, "manifests/loop"))
		}, code: 0, left: []string{api + "/manifests/loop: a symbolic link", api + "/manifests/passwd.yaml: a symbolic link", api + "/manifests/up: a symbolic link"},
			check: filesOf("tenant-payments", "api", "config/configmap.yaml", "deployment.yaml", "service.yaml")},
		{name: "tenant directory linked to another tenant", change: func(t *testing.T, repo string) {
			symlink(t, "tenant-search", filepath.Join(repo, "tenants/tenant-stolen"))
		}, code: 1, field: "spec.pathPattern", detail: "must be a directory, not a symbolic link", check: noArtifactIn("tenant-stolen")},
		// A tracked directory replaced by a link (to a copy of itself, so
		// that nothing else changes) or by a file: an error naming it, and
		// every tracked object it could have rendered kept, never deleted.
		{name: "module directory replaced by a link to a copy of itself", change: func(t *testing.T, repo string) {
			replaceByLink(t, repo, "tenants/tenant-sandbox/modules/playground")
		}, code: 1, field: "spec.pathPattern", detail: "must be a directory, not a symbolic link",
			check: kept("tenants/tenant-sandbox/modules/playground", "Namespace/tenant-sandbox", "ExternalArtifact/tenant-sandbox/playground")},
		{name: "one module of two replaced by a link", change: func(t *testing.T, repo string) {
			replaceByLink(t, repo, "tenants/tenant-payments/modules/worker")
		}, code: 1, field: "spec.pathPattern", detail: "must be a directory, not a symbolic link", check: func(t *testing.T, p *Plan) {
			kept("tenants/tenant-payments/modules/worker", "ExternalArtifact/tenant-payments/worker")(t, p)
			// The namespace that its other module renders is applied.
			if !slices.ContainsFunc(p.Namespaces, func(ns Namespace) bool { return ns.Name == "tenant-payments" }) {
				t.Errorf("namespace tenant-payments is not applied: %s", decisions(p)["Namespace/tenant-payments"])
			}
		}},
		{name: "modules directory replaced by a link", change: func(t *testing.T, repo string) {
			replaceByLink(t, repo, "tenants/tenant-sandbox/modules")
		}, code: 1, field: "spec.pathPattern", detail: "must be a directory, not a symbolic link",
			check: kept("tenants/tenant-sandbox/modules", "Namespace/tenant-sandbox", "ExternalArtifact/tenant-sandbox/playground")},
		{name: "tenant directory replaced by a link", change: func(t *testing.T, repo string) {
			replaceByLink(t, repo, "tenants/tenant-payments")
		}, code: 1, field: "spec.pathPattern", detail: "must be a directory, not a symbolic link",
			check: kept("tenants/tenant-payments", "Namespace/tenant-payments", "ExternalArtifact/tenant-payments/api", "ExternalArtifact/tenant-payments/worker")},
		{name: "modules directory replaced by a file", change: func(t *testing.T, repo string) {
			os.RemoveAll(filepath.Join(repo, "tenants/tenant-sandbox/modules"))
			writeFile(t, filepath.Join(repo, "tenants/tenant-sandbox/modules"), "not a directory\n")
		}, code: 1, field: "spec.pathPattern", detail: "must be a directory, not a file",
			check: kept("tenants/tenant-sandbox/modules", "Namespace/tenant-sandbox", "ExternalArtifact/tenant-sandbox/playground")},
		{name: "tenants directory linked out of the root", change: func(t *testing.T, repo string) {
			outside := t.TempDir()
			if err := os.Rename(filepath.Join(repo, "tenants"), filepath.Join(outside, "tenants")); err != nil {
				t.Fatal(err)
			}
			symlink(t, filepath.Join(outside, "tenants"), filepath.Join(repo, "tenants"))
		}, code: 1, field: "spec.pathPattern", detail: "must not be a symbolic link", check: func(t *testing.T, p *Plan) {
			if len(p.Artifacts) != 0 {
				t.Errorf("artifacts %v discovered through a symlink", p.Artifacts)
			}
		}},
		{name: "inputs one byte over 1 MiB", change: func(t *testing.T, repo string) { writeFile(t, filepath.Join(repo, inputs), exact(1<<20+1)) },
			code: 1, field: "spec.artifacts[0].inputsFrom", detail: "must be no more than 1048576 bytes"},
		{name: "metadata one byte over 1 MiB", change: func(t *testing.T, repo string) {
			writeFile(t, filepath.Join(repo, metadata), exactMetadata(1<<20+1))
		}, code: 1, field: "spec.managedNamespaces.metadata.fromSource.path", detail: "must be no more than 1048576 bytes"},
		{name: "inputs alias bomb", change: func(t *testing.T, repo string) { writeFile(t, filepath.Join(repo, inputs), billionLaughs("x")) },
			code: 1, field: "spec.artifacts[0].inputsFrom", detail: "YAML aliases must expand"},
		{name: "inputs of two documents", change: func(t *testing.T, repo string) { writeFile(t, filepath.Join(repo, inputs), "a: 1\n---\nb: 2\n") },
			code: 1, field: "spec.artifacts[0].inputsFrom", detail: "must hold one YAML document"},
		{name: "inputs that are a list", change: func(t *testing.T, repo string) { writeFile(t, filepath.Join(repo, inputs), "- a\n") },
			code: 1, field: "spec.artifacts[0].inputsFrom", detail: "must be a YAML mapping"},
		{name: "metadata alias bomb", change: func(t *testing.T, repo string) {
			writeFile(t, filepath.Join(repo, metadata), "apiVersion: source.extensions.fluxcd.io/v1beta1\nkind: NamespaceMetadata\n"+billionLaughs("x"))
		}, code: 1, field: "namespace-metadata.yaml", detail: "YAML aliases must expand"},
		{name: "metadata of two documents", change: func(t *testing.T, repo string) {
			writeFile(t, filepath.Join(repo, metadata), "apiVersion: source.extensions.fluxcd.io/v1beta1\nkind: NamespaceMetadata\n---\n{}\n")
		}, code: 1, field: "namespace-metadata.yaml", detail: "exactly one YAML document"},
		{name: "metadata setting the external finalizer", change: func(t *testing.T, repo string) {
			writeFile(t, filepath.Join(repo, metadata), "apiVersion: source.extensions.fluxcd.io/v1beta1\nkind: NamespaceMetadata\nmetadata:\n  annotations:\n    source.extensions.fluxcd.io/externalFinalizer: self\n")
		}, code: 0, check: func(t *testing.T, p *Plan) {
			for _, ns := range p.Namespaces {
				if _, ok := ns.Annotations["source.extensions.fluxcd.io/externalFinalizer"]; ok {
					t.Errorf("namespace %s carries the external finalizer annotation from its file", ns.Name)
				}
			}
			if len(p.Warnings) == 0 {
				t.Error("the dropped annotation is not reported")
			}
		}},
		{name: "tenant directory with a newline", change: func(t *testing.T, repo string) {
			writeFile(t, filepath.Join(repo, "tenants/tenant-x\nforged/modules/app/manifests/a.yaml"), "a: 1\n")
		}, code: 1, field: "spec.pathPattern", detail: `"tenants/tenant-x\nforged/modules/app"`},
		{name: "tenant directory with the Kelvin sign", change: func(t *testing.T, repo string) {
			writeFile(t, filepath.Join(repo, "tenants/tenant-\u212a/modules/app/manifests/a.yaml"), "a: 1\n")
			writeFile(t, filepath.Join(repo, "tenants/tenant-\u212a/namespace-metadata.yaml"), emptyMetadataFile)
		}, code: 0, check: filesOf("tenant-k", "app", "a.yaml")}, // strings.ToLower, as source-watcher
		{name: "tenant directories colliding in case", change: func(t *testing.T, repo string) {
			writeFile(t, filepath.Join(repo, "tenants/Tenant-Search/modules/indexer/manifests/a.yaml"), "a: 1\n")
		}, code: 1, field: "spec.artifacts[0].name", detail: `"tenants/Tenant-Search/modules/indexer" and "tenants/tenant-search/modules/indexer" render the same`},
		{name: "tenant refused by the name policy", change: func(t *testing.T, repo string) {
			writeFile(t, filepath.Join(repo, "tenants/kube-system/modules/app/manifests/a.yaml"), "a: 1\n")
		}, code: 1, field: "spec.artifacts[0].namespace", detail: "namespace name must not be protected"},
		{name: "generator's own namespace", change: func(t *testing.T, repo string) {
			// flux-system, the sample generator's own namespace, which
			// upstream refuses too.
			writeFile(t, filepath.Join(repo, "tenants/flux-system/modules/app/manifests/a.yaml"), "a: 1\n")
		}, code: 1, field: "spec.artifacts[0].namespace", detail: "namespace name must not be protected"},
	} {
		for _, src := range hostileSources {
			t.Run(tt.name+"/"+src.name, func(t *testing.T) {
				t.Parallel()
				repo := sampleRepo(t)
				prev := hostilePlan(t, src, repo, nil).Next(nil)
				tt.change(t, repo)
				var p *Plan
				hostile.NoPanic(t, func() { p = hostilePlan(t, src, repo, prev) })
				if code := map[bool]int{false: 0, true: 1}[p.HasErrors()]; code != tt.code {
					t.Fatalf("errors %v, want them: %v", p.Errors.ToAggregate(), tt.code == 1)
				}
				if tt.detail != "" && !errorsContain(p, tt.field, tt.detail) {
					t.Errorf("errors %v, want one at %s containing %q", p.Errors.ToAggregate(), tt.field, tt.detail)
				}
				// Nothing is left out of an artifact without a warning
				// (issue 38, item 8), and nothing else is said to be.
				var left []string
				for _, w := range p.Warnings {
					if path, why, ok := strings.Cut(w, ": left out of artifact tenant-payments/api: "); ok {
						left = append(left, strings.TrimPrefix(path, "@repo/")+": "+why)
					} else if strings.Contains(w, "left out of artifact") {
						left = append(left, w)
					}
				}
				if !slices.Equal(left, tt.left) {
					t.Errorf("left out %q, want %q; warnings %q", left, tt.left, p.Warnings)
				}
				if tt.check != nil {
					tt.check(t, p)
				}
			})
		}
	}
}

// filesOf checks the files of an artifact.
func filesOf(namespace, name string, files ...string) func(t *testing.T, p *Plan) {
	return func(t *testing.T, p *Plan) {
		t.Helper()
		for _, a := range p.Artifacts {
			if a.Namespace == namespace && a.Name == name {
				var got []string
				for _, f := range a.Files {
					got = append(got, f.Path)
				}
				if strings.Join(got, ",") != strings.Join(files, ",") {
					t.Errorf("files of %s/%s = %q, want %q", namespace, name, got, files)
				}
				return
			}
		}
		t.Errorf("no artifact %s/%s", namespace, name)
	}
}

// replaceByLink moves the directory dir of repo out of the tree and puts a
// symbolic link to it in its place.
func replaceByLink(t *testing.T, repo, dir string) {
	t.Helper()
	moved := filepath.Join(t.TempDir(), "copy")
	if err := os.Rename(filepath.Join(repo, dir), moved); err != nil {
		t.Fatal(err)
	}
	symlink(t, moved, filepath.Join(repo, dir))
}

// kept checks that the plan has an error naming the directory dir that
// discovery could not read, keeps each of subjects for it, and deletes
// nothing.
func kept(dir string, subjects ...string) func(t *testing.T, p *Plan) {
	return func(t *testing.T, p *Plan) {
		t.Helper()
		if !slices.ContainsFunc(p.Errors, func(e *field.Error) bool { return e.BadValue == dir }) {
			t.Errorf("no error names %s: %v", dir, p.Errors.ToAggregate())
		}
		ds := decisions(p)
		for _, s := range subjects {
			if d := ds[s]; d.Action != inventory.Keep || d.Reason != reasonDesiredErrors {
				t.Errorf("%s: %s, want kept because the desired state has errors", s, d)
			}
		}
		for _, d := range p.Decisions {
			if d.Action == inventory.Delete {
				t.Errorf("deletes %s", d)
			}
		}
		next := map[string]bool{}
		for _, e := range p.Next(func(inventory.Entry) bool { return true }) {
			next[e.ID().String()] = true
		}
		for _, s := range subjects {
			if !next[s] {
				t.Errorf("%s is not in the next inventory", s)
			}
		}
	}
}

// noArtifactIn checks that no artifact was generated in namespace.
func noArtifactIn(namespace string) func(t *testing.T, p *Plan) {
	return func(t *testing.T, p *Plan) {
		t.Helper()
		for _, a := range p.Artifacts {
			if a.Namespace == namespace {
				t.Errorf("artifact %s/%s generated", a.Namespace, a.Name)
			}
		}
	}
}
