package generator

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"testing/fstest"

	"sigs.k8s.io/yaml"

	"github.com/tenantkit/tenantkit/dirfs"
	"github.com/tenantkit/tenantkit/finalizer"
	"github.com/tenantkit/tenantkit/inventory"
)

// A synthetic monorepo for the benchmarks, in the layout of the embedded
// sample:
//
//	generator.yaml                                   the ArtifactGenerator (synthGenerator)
//	monorepo/
//	  platform/group-GG/policy-UUUUU/policy.yaml     unrelated: Unrelated directories
//	  tenants/tenant-TTTTT/
//	    namespace-metadata.yaml                      labels on every MetadataEvery-th tenant
//	    README.md, docs/guide.md                     unrelated to the pattern
//	    modules/module-M/
//	      applier-inputs.yaml
//	      manifests/file-0.yaml ... file-(F-2).yaml  F files in the artifact,
//	      manifests/config/file-(F-1).yaml           one of them nested (for "**")
//	      manifests/README.md                        excluded by the copy's "*.md"
//
// Names are zero-padded so that the path order is the numeric order. The
// files are a few hundred bytes, the size of real manifests; each one's
// content names its tenant and module, so every artifact digest differs.
type synthConfig struct {
	Tenants   int
	Modules   int // per tenant
	Files     int // per module, in the artifact (at least 1)
	Unrelated int // directories outside tenants/, each with one file
	// MetadataEvery: every n-th tenant's namespace-metadata.yaml sets a
	// label and an annotation; 0: none. The other tenants' file, which the
	// spec requires, asks for nothing.
	MetadataEvery int
}

func (c synthConfig) tenant(t int) string { return fmt.Sprintf("tenant-%05d", t) }

// synthGenerator is the ArtifactGenerator of the synthetic monorepo: the
// sample's, with the same pattern, templates, schema and operations.
const synthGenerator = `apiVersion: source.extensions.fluxcd.io/v1beta1
kind: ArtifactGenerator
metadata:
  name: monorepo-tenants
  namespace: flux-system
  uid: 6f1d0c2e-6a4b-4d6e-9d53-0b7f3c1e2a10
spec:
  serviceAccountName: flux-operator
  pathPattern: "@repo/tenants/{namespace}/modules/{module}"
  commonMetadata:
    labels:
      my.org.io/provisioner: monorepo
  sources:
    - alias: repo
      kind: OCIRepository
      name: monorepo
  artifacts:
    - name: "{module}"
      namespace: "{namespace}"
      inputsFrom: "@repo/tenants/{namespace}/modules/{module}/applier-inputs.yaml"
      originRevision: "@repo"
      copy:
        - from: "@repo/tenants/{namespace}/modules/{module}/manifests/**"
          to: "@artifact/"
          exclude:
            - "*.md"
  managedNamespaces:
    allowedNames:
      - ns.startsWith("tenant-")
    prune: true
    metadata:
      fromSource:
        path: "@repo/tenants/{namespace}/namespace-metadata.yaml"
        allowedLabels:
          my.org.io/cost-center: "value.matches('^cc-[0-9]{4}$')"
        allowedAnnotations:
          my.org.io/observability: "value.matches('^(Enabled|Disabled)$')"
      from:
        - strategy: Merge
          namespace: "*"
          labels:
            pod-security.kubernetes.io/enforce: baseline
        - strategy: Override
          namespace: tenant-00000
          labels:
            pod-security.kubernetes.io/enforce: restricted
          annotations:
            my.org.io/pci-scope: "true"
        - strategy: Reset
          namespace: tenant-00001
          labels:
            my.org.io/provisioner: monorepo
            my.org.io/sandbox: "true"
`

const synthManifest = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: %[2]s-%[3]d
  labels:
    app.kubernetes.io/name: %[2]s
    app.kubernetes.io/part-of: %[1]s
spec:
  replicas: 2
  selector:
    matchLabels:
      app.kubernetes.io/name: %[2]s
  template:
    metadata:
      labels:
        app.kubernetes.io/name: %[2]s
    spec:
      containers:
        - name: %[2]s
          image: ghcr.io/example/%[1]s/%[2]s:1.%[3]d.0
          ports:
            - containerPort: 8080
          resources:
            requests:
              cpu: 100m
              memory: 128Mi
`

const synthInputs = `replicas: %[3]d
dependsOn: []
image:
  repository: ghcr.io/example/%[1]s/%[2]s
  tag: "1.%[3]d.0"
`

const synthMetadata = `apiVersion: source.extensions.fluxcd.io/v1beta1
kind: NamespaceMetadata
metadata:
  labels:
    my.org.io/cost-center: cc-%04[1]d
  annotations:
    my.org.io/observability: %[2]s
`

// synthNoMetadata is the namespace-metadata.yaml of a tenant that asks
// for nothing.
const synthNoMetadata = `apiVersion: source.extensions.fluxcd.io/v1beta1
kind: NamespaceMetadata
`

// synthFile is one file of the tree: its path relative to the monorepo, its
// content, and its content after the second round ("" when the second
// round leaves it alone).
type synthFile struct{ path, content, change string }

// synthChanged reports whether the second round changes tenant t: every
// 100th, 1% of the tenants.
func synthChanged(t int) bool { return t%100 == 0 }

// files calls yield for every file of the tree, tenant by tenant. A changed
// tenant (synthChanged) has one manifest of its first module changed, and
// its namespace-metadata.yaml when it sets keys, so that one artifact digest
// and one namespace digest change.
func (c synthConfig) files(yield func(synthFile)) {
	for t := range c.Tenants {
		tn := c.tenant(t)
		dir := "tenants/" + tn
		changed := synthChanged(t)
		if c.MetadataEvery > 0 && t%c.MetadataEvery == 0 {
			f := synthFile{path: dir + "/namespace-metadata.yaml", content: fmt.Sprintf(synthMetadata, t%10000, "Enabled")}
			if changed {
				f.change = fmt.Sprintf(synthMetadata, t%10000, "Disabled")
			}
			yield(f)
		} else {
			yield(synthFile{path: dir + "/namespace-metadata.yaml", content: synthNoMetadata})
		}
		yield(synthFile{path: dir + "/README.md", content: "# " + tn + "\n"})
		yield(synthFile{path: dir + "/docs/guide.md", content: "How " + tn + " deploys.\n"})
		for m := range c.Modules {
			mod := fmt.Sprintf("module-%d", m)
			mdir := dir + "/modules/" + mod
			yield(synthFile{path: mdir + "/applier-inputs.yaml", content: fmt.Sprintf(synthInputs, tn, mod, m+1)})
			yield(synthFile{path: mdir + "/manifests/README.md", content: "# " + mod + "\n"})
			for i := range c.Files {
				f := synthFile{path: fmt.Sprintf("%s/manifests/file-%d.yaml", mdir, i), content: fmt.Sprintf(synthManifest, tn, mod, i)}
				if i == c.Files-1 {
					f.path = fmt.Sprintf("%s/manifests/config/file-%d.yaml", mdir, i)
				}
				if changed && m == 0 && i == 0 {
					f.change = f.content + "# changed\n"
				}
				yield(f)
			}
		}
	}
	for u := range c.Unrelated {
		yield(synthFile{path: fmt.Sprintf("platform/group-%02d/policy-%05d/policy.yaml", u%100, u), content: fmt.Sprintf("# platform policy %d\n", u)})
	}
}

// synthChanges returns how many inventory entries the second round
// changes.
func (c synthConfig) synthChanges() int {
	n := 0
	c.files(func(f synthFile) {
		if f.change != "" {
			n++
		}
	})
	return n
}

// writeSynth writes the tree described by c below dir, with every core
// writing, and returns the generator file and the monorepo directory.
func writeSynth(tb testing.TB, dir string, c synthConfig) (gen, repo string) {
	tb.Helper()
	repo = filepath.Join(dir, "monorepo")
	gen = filepath.Join(dir, "generator.yaml")
	if err := os.MkdirAll(repo, 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(gen, []byte(synthGenerator), 0o644); err != nil {
		tb.Fatal(err)
	}
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		firstErr error
		made     sync.Map // directories known to exist
		work     = make(chan synthFile, 256)
	)
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for f := range work {
				name := filepath.Join(repo, filepath.FromSlash(f.path))
				var err error
				if d := filepath.Dir(name); !synthDirMade(&made, d) {
					if err = os.MkdirAll(d, 0o755); err == nil {
						made.Store(d, true)
					}
				}
				if err == nil {
					err = os.WriteFile(name, []byte(f.content), 0o644)
				}
				if err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr = err
					}
					mu.Unlock()
				}
			}
		})
	}
	c.files(func(f synthFile) { work <- f })
	close(work)
	wg.Wait()
	if firstErr != nil {
		tb.Fatal(firstErr)
	}
	// Write the tree out now, so that the kernel does not write it back
	// while a benchmark reads it.
	syncFS()
	return gen, repo
}

// synthDirMade reports whether m holds key.
func synthDirMade(m *sync.Map, key string) bool {
	_, ok := m.Load(key)
	return ok
}

// changeSynth makes the second round's changes to the tree on disk.
func changeSynth(tb testing.TB, repo string, c synthConfig) {
	tb.Helper()
	c.files(func(f synthFile) {
		if f.change == "" {
			return
		}
		name := filepath.Join(repo, filepath.FromSlash(f.path))
		if err := os.WriteFile(name, []byte(f.change), 0o644); err != nil {
			tb.Fatal(err)
		}
	})
	syncFS()
}

// synthFS returns the tree described by c in memory, after the second
// round's changes when changed is set.
func synthFS(c synthConfig, changed bool) fstest.MapFS {
	fsys := fstest.MapFS{}
	c.files(func(f synthFile) {
		data := f.content
		if changed && f.change != "" {
			data = f.change
		}
		fsys[f.path] = &fstest.MapFile{Data: []byte(data), Mode: 0o644}
	})
	return fsys
}

// synthGenerator compiles the synthetic generator (synthGenerator).
func synthCompile(tb testing.TB, data []byte, opts ...Option) *Generator {
	tb.Helper()
	var m struct {
		Metadata struct {
			Namespace string `json:"namespace"`
			UID       string `json:"uid"`
		} `json:"metadata"`
		Spec Spec `json:"spec"`
	}
	if err := yaml.Unmarshal(data, &m); err != nil {
		tb.Fatal(err)
	}
	g, errs := Compile(m.Spec, append([]Option{WithUID(m.Metadata.UID), WithNamespace(m.Metadata.Namespace)}, opts...)...)
	if len(errs) > 0 {
		tb.Fatal(errs.ToAggregate())
	}
	return g
}

// synthRequest loads the synthetic monorepo on disk the way the tool loads
// -generator and -source: the source through root.FS() of an os.Root.
func synthRequest(tb testing.TB, gen, repo string, opts ...Option) (*Generator, map[string]fs.FS) {
	tb.Helper()
	data, err := os.ReadFile(gen)
	if err != nil {
		tb.Fatal(err)
	}
	root, err := os.OpenRoot(repo)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { root.Close() })
	return synthCompile(tb, data, opts...), map[string]fs.FS{"repo": root.FS()}
}

// synthDirFS returns the sources of synthRequest read through package
// dirfs, closed when tb ends.
func synthDirFS(tb testing.TB, repo string) map[string]fs.FS {
	tb.Helper()
	fsys, err := dirfs.Open(repo)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { fsys.Close() })
	return map[string]fs.FS{"repo": fsys}
}

// synthPlan plans, failing tb on an error: the first round (previous nil)
// against an empty cluster, a later one against the cluster once previous
// was applied.
func synthPlan(tb testing.TB, g *Generator, srcs map[string]fs.FS, previous *Plan) *Plan {
	tb.Helper()
	c, inv := emptyCluster{}.cluster(), []inventory.Entry(nil)
	if previous != nil {
		c.Objects, inv = appliedCluster(previous), previous.Next(nil)
	}
	p, err := g.Plan(context.Background(), srcs, inv, c)
	if err != nil {
		tb.Fatal(err)
	}
	return p
}

// appliedCluster reads the namespaces of an applied plan, as applied.
func appliedCluster(p *Plan) ObjectReader {
	live := make(map[string]Object, len(p.Namespaces))
	for _, ns := range p.Namespaces {
		live[ns.Name] = Object{Labels: ns.Labels, Annotations: ns.Annotations}
	}
	return ObjectReaderFunc(func(_ context.Context, id inventory.ID) (Object, error) {
		if o, ok := live[id.Name]; ok && id.IsNamespace() {
			o.ID = id
			return o, nil
		}
		return Object{}, finalizer.ErrNotFound
	})
}

// emptyCluster is a cluster without objects.
type emptyCluster struct{}

func (emptyCluster) Object(context.Context, inventory.ID) (Object, error) {
	return Object{}, finalizer.ErrNotFound
}
func (emptyCluster) ExternalArtifacts(context.Context, string) ([]Object, error) { return nil, nil }
func (emptyCluster) UID(context.Context, finalizer.Reference) (string, error) {
	return "", finalizer.ErrNotFound
}

func (c emptyCluster) cluster() Cluster { return Cluster{Objects: c, Artifacts: c, Finalizers: c} }

// checkSynth checks that a plan of the synthetic monorepo is what c
// describes: no errors or warnings, every tenant a namespace, every module
// an artifact with c.Files files (listed when the plan lists them) and its
// inputs; and, in a second round
// (changes > 0), exactly changes updates and everything else unchanged.
func checkSynth(tb testing.TB, p *Plan, c synthConfig, changes int) {
	tb.Helper()
	if len(p.Errors) > 0 || len(p.Warnings) > 0 {
		tb.Fatalf("plan has %d errors and %d warnings: %v %q", len(p.Errors), len(p.Warnings), p.Errors.ToAggregate(), p.Warnings)
	}
	if len(p.Namespaces) != c.Tenants || len(p.Artifacts) != c.Tenants*c.Modules {
		tb.Fatalf("plan has %d namespaces and %d artifacts, want %d and %d", len(p.Namespaces), len(p.Artifacts), c.Tenants, c.Tenants*c.Modules)
	}
	for _, a := range p.Artifacts {
		inputs, err := ReadExportedInputs(a.Inputs)
		if err != nil || a.FileCount != c.Files || (a.Files != nil && len(a.Files) != c.Files) || len(inputs) != 3 {
			tb.Fatalf("artifact %s/%s has %d files %v and inputs %s (%v), want %d files and 3 inputs", a.Namespace, a.Name, a.FileCount, a.Files, a.Inputs, err, c.Files)
		}
	}
	counts := map[inventory.Action]int{}
	for _, d := range p.Decisions {
		counts[d.Action]++
	}
	total := c.Tenants * (1 + c.Modules)
	want := map[inventory.Action]int{inventory.Create: total}
	if changes > 0 {
		want = map[inventory.Action]int{inventory.Update: changes, inventory.Unchanged: total - changes}
	}
	if fmt.Sprint(counts) != fmt.Sprint(want) {
		tb.Fatalf("changes %v, want %v", counts, want)
	}
}

// TestSynth plans a small synthetic monorepo in memory, twice, so that
// plain go test checks the generator that the benchmarks write to disk.
func TestSynth(t *testing.T) {
	t.Parallel()
	// fstest.MapFS scans all its files to read a directory: keep it small.
	c := synthConfig{Tenants: 101, Modules: 3, Files: 5, Unrelated: 20, MetadataEvery: 2}
	g := synthCompile(t, []byte(synthGenerator))
	p := synthPlan(t, g, map[string]fs.FS{"repo": synthFS(c, false)}, nil)
	checkSynth(t, p, c, 0)

	p = synthPlan(t, g, map[string]fs.FS{"repo": synthFS(c, true)}, p)
	if want := 2 + 2; c.synthChanges() != want { // tenants 0 and 100, each with metadata
		t.Fatalf("synthChanges() = %d, want %d", c.synthChanges(), want)
	}
	checkSynth(t, p, c, c.synthChanges())
}
