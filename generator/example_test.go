package generator_test

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"testing/fstest"

	"github.com/tenantkit/tenantkit/finalizer"
	"github.com/tenantkit/tenantkit/generator"
	"github.com/tenantkit/tenantkit/inventory"
)

func exampleSpec() generator.Spec {
	prune := true
	return generator.Spec{
		ServiceAccountName: "flux-operator",
		PathPattern:        "@repo/tenants/{namespace}/modules/{module}",
		Sources:            []generator.SourceReference{{Alias: "repo", Kind: "OCIRepository", Name: "monorepo"}},
		Artifacts: []generator.OutputArtifact{{
			Name:       "{module}",
			Namespace:  "{namespace}",
			InputsFrom: "@repo/tenants/{namespace}/modules/{module}/applier-inputs.yaml",
			Copy:       []generator.CopyOperation{{From: "@repo/tenants/{namespace}/modules/{module}/manifests/**", To: "@artifact/"}},
		}},
		ManagedNamespaces: &generator.ManagedNamespaces{AllowedNames: []string{`ns.startsWith("tenant-")`}, Prune: &prune},
	}
}

func ExampleCompile() {
	spec := exampleSpec()
	spec.ServiceAccountName = ""
	spec.ManagedNamespaces.Prune = nil
	spec.Artifacts[0].Copy[0].To = "@repo/"
	_, errs := generator.Compile(spec, generator.WithNamespace("flux-system"))
	for _, e := range errs {
		fmt.Println(e)
	}
	// Output:
	// spec.artifacts[0].copy[0].to: Invalid value: "@repo/": must start with "@artifact/"
	// spec.managedNamespaces.prune: Required value: whether to delete managed namespaces that no artifact uses
	// spec.serviceAccountName: Required value: managing namespaces requires spec.serviceAccountName or a default service account
}

// Compile refuses what released source-watcher v2.3's CRD refuses, so that
// an embedder without the CRD in front of it (a preview, a test) says what
// the API server would.
func ExampleCompile_releasedRules() {
	spec := exampleSpec()
	spec.Sources[0].Kind = "GitRepo"
	spec.Artifacts[0].Copy[0].Strategy = "extract"
	spec.ManagedNamespaces.Metadata = &generator.NamespaceMetadata{
		FromSource: &generator.MetadataFromSource{Path: "@repo/tenants/{namespace}/modules/{module}/ns.yaml"},
	}
	_, errs := generator.Compile(spec, generator.WithNamespace("flux-system"))
	for _, e := range errs {
		fmt.Println(e)
	}
	// Output:
	// spec.artifacts[0].copy[0].strategy: Unsupported value: "extract": supported values: "Overwrite", "Merge", "Extract"
	// spec.managedNamespaces.metadata.fromSource: Required value: at least one annotation or label must be set in allowedLabels or allowedAnnotations
	// spec.managedNamespaces.metadata.fromSource.path: Invalid value: "@repo/tenants/{namespace}/modules/{module}/ns.yaml": must name only captures of the artifacts' namespace: {module} is not named by spec.artifacts[0].namespace "{namespace}"; only namespace-level captures are allowed
	// spec.sources[0].kind: Unsupported value: "GitRepo": supported values: "Bucket", "ExternalArtifact", "GitRepository", "HelmChart", "OCIRepository"
}

// A reconcile of an ArtifactGenerator, as a controller runs it: compile the
// spec once, plan, apply, delete, record the next inventory.
func ExampleGenerator_Plan() {
	ctx := context.Background()
	g, errs := generator.Compile(exampleSpec(),
		generator.WithUID("6f1d0c2e"), generator.WithNamespace("flux-system"))
	if len(errs) > 0 {
		panic(errs.ToAggregate()) // a controller sets a Ready=False condition with errs
	}

	// The source artifacts, one fs.FS per alias (a controller uses
	// root.FS() of an os.Root of each extracted artifact).
	repo := fstest.MapFS{
		"tenants/tenant-a/modules/app/manifests/deploy.yaml":  {Data: []byte("kind: Deployment\n")},
		"tenants/tenant-a/modules/app/applier-inputs.yaml":    {Data: []byte("tag: 1.0\n")},
		"tenants/tenant-b/modules/web/manifests/service.yaml": {Data: []byte("kind: Service\n")},
	}
	// status.inventory of the last reconcile: tenant-c is gone from the repo.
	previous := []inventory.Entry{
		{Kind: "Namespace", Name: "tenant-a"},
		{Kind: "Namespace", Name: "tenant-c"},
		{Kind: "ExternalArtifact", Namespace: "tenant-c", Name: "old"},
	}
	// What the controller reads of the cluster, through its client: here,
	// what the last reconcile applied (tenant-b is new).
	owned := map[string]string{generator.GeneratorLabel: "6f1d0c2e"}
	live := map[inventory.ID]generator.Object{
		{Kind: "Namespace", Name: "tenant-a"}:                                                        {Labels: owned},
		{Kind: "Namespace", Name: "tenant-c"}:                                                        {Labels: owned},
		{Group: inventory.GroupSource, Kind: "ExternalArtifact", Namespace: "tenant-c", Name: "old"}: {Labels: owned},
	}
	cluster := generator.Cluster{
		Objects: generator.ObjectReaderFunc(func(ctx context.Context, id inventory.ID) (generator.Object, error) {
			o, ok := live[id] // Get PartialObjectMetadata; NotFound -> finalizer.ErrNotFound
			if !ok {
				return generator.Object{}, finalizer.ErrNotFound
			}
			return o, nil
		}),
		Artifacts: generator.ArtifactListerFunc(func(ctx context.Context, namespace string) ([]generator.Object, error) {
			return nil, nil // List ExternalArtifacts in namespace
		}),
		Finalizers: finalizer.LookupFunc(func(ctx context.Context, r finalizer.Reference) (string, error) {
			return "", finalizer.ErrNotFound // Get r; NotFound or NoKindMatch -> finalizer.ErrNotFound
		}),
	}

	plan, err := g.Plan(ctx, map[string]fs.FS{"repo": repo}, previous, cluster)
	if err != nil {
		panic(err) // ctx ended
	}
	for _, ns := range plan.Namespaces {
		fmt.Println("apply Namespace", ns.Name) // server-side apply ns.Labels, ns.Annotations
	}
	for _, a := range plan.Artifacts {
		fmt.Println("apply ExternalArtifact", a.Namespace+"/"+a.Name, a.FileCount, "files") // build the archive from a.Files (WithFileLists)
	}
	confirmed := map[inventory.ID]bool{}
	for _, d := range plan.Decisions {
		fmt.Println(d)
		if d.Action == inventory.Delete {
			confirmed[d.Entry.ID()] = true // delete, in this order; record what the API server confirmed
		}
	}
	next := plan.Next(func(e inventory.Entry) bool { return confirmed[e.ID()] })
	fmt.Println("next inventory:", len(next), "entries")
	// Output:
	// apply Namespace tenant-a
	// apply Namespace tenant-b
	// apply ExternalArtifact tenant-a/app 1 files
	// apply ExternalArtifact tenant-b/web 1 files
	// Namespace/tenant-a configured
	// Namespace/tenant-b created
	// ExternalArtifact/tenant-a/app created
	// ExternalArtifact/tenant-b/web created
	// ExternalArtifact/tenant-c/old deleted (no longer desired)
	// Namespace/tenant-c deleted (no longer desired; no external finalizer)
	// next inventory: 4 entries
}

// The ArtifactGenerator is being deleted: its ExternalArtifacts go, and so
// do the namespaces it manages and prunes, unless something keeps them.
// The object drops its finalizer once nothing survives.
func ExampleGenerator_Finalize() {
	ctx := context.Background()
	g, errs := generator.Compile(exampleSpec(),
		generator.WithUID("6f1d0c2e"), generator.WithNamespace("flux-system"))
	if len(errs) > 0 {
		panic(errs.ToAggregate())
	}
	// status.inventory: tenant-b took a hand-off to a ResourceSet, and
	// someone disabled pruning on tenant-c.
	previous := []inventory.Entry{
		{Kind: "Namespace", Name: "tenant-a"},
		{Kind: "Namespace", Name: "tenant-b"},
		{Kind: "Namespace", Name: "tenant-c"},
		{Kind: "ExternalArtifact", Namespace: "tenant-a", Name: "app"},
		{Kind: "ExternalArtifact", Namespace: "tenant-b", Name: "web"},
	}
	owned := map[string]string{generator.GeneratorLabel: "6f1d0c2e"}
	live := map[inventory.ID]generator.Object{
		{Kind: "Namespace", Name: "tenant-a"}: {Labels: owned},
		{Kind: "Namespace", Name: "tenant-b"}: {Labels: owned, Annotations: map[string]string{
			finalizer.Annotation: "fluxcd.controlplane.io/v1/ResourceSet/flux-system/tenants/0d1e3c4a"}},
		{Kind: "Namespace", Name: "tenant-c"}: {Labels: owned, Annotations: map[string]string{
			"source.extensions.fluxcd.io/prune": "disabled"}},
	}
	cluster := generator.Cluster{
		Objects: generator.ObjectReaderFunc(func(ctx context.Context, id inventory.ID) (generator.Object, error) {
			o, ok := live[id]
			if !ok {
				return generator.Object{}, finalizer.ErrNotFound
			}
			return o, nil
		}),
		Artifacts: generator.ArtifactListerFunc(func(ctx context.Context, namespace string) ([]generator.Object, error) {
			return nil, nil // the artifacts are deleted before their namespaces
		}),
		Finalizers: finalizer.LookupFunc(func(ctx context.Context, r finalizer.Reference) (string, error) {
			return "0d1e3c4a", nil // the ResourceSet exists with the stamped UID
		}),
	}

	plan, err := g.Finalize(ctx, previous, cluster)
	if err != nil {
		panic(err) // ctx ended
	}
	for _, d := range plan.Decisions {
		fmt.Println(d) // delete the Delete decisions, in this order
	}
	// Deleting tenant-a fails this time: it survives, and the finalizer stays.
	next := plan.Next(func(e inventory.Entry) bool { return e.Name != "tenant-a" })
	fmt.Println("survivors:", len(next))
	// Output:
	// ExternalArtifact/tenant-b/web deleted (the generator is deleted; not found in the cluster)
	// ExternalArtifact/tenant-a/app deleted (the generator is deleted; not found in the cluster)
	// Namespace/tenant-c released (pruning is disabled on the live object (annotation source.extensions.fluxcd.io/prune: disabled))
	// Namespace/tenant-b released (handed off to fluxcd.controlplane.io/v1/ResourceSet/flux-system/tenants (uid 0d1e3c4a); released: the generator is deleted)
	// Namespace/tenant-a deleted (the generator is deleted; no external finalizer)
	// survivors: 1
}

// A controller plans a checkout through the FS of an os.Root, which keeps
// every read, links included, inside the directory.
func ExampleGenerator_Plan_root() {
	dir, err := os.MkdirTemp("", "checkout")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	for name, content := range map[string]string{
		"tenants/tenant-a/modules/app/manifests/deploy.yaml":        "kind: Deployment\n",
		"tenants/tenant-a/modules/app/manifests/config/config.yaml": "kind: ConfigMap\n",
	} {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			panic(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			panic(err)
		}
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		panic(err)
	}
	defer root.Close()

	g, errs := generator.Compile(exampleSpec(), generator.WithNamespace("flux-system"), generator.WithFileLists())
	if len(errs) > 0 {
		panic(errs.ToAggregate())
	}
	plan, err := g.Plan(context.Background(), map[string]fs.FS{"repo": root.FS()}, nil, generator.Cluster{})
	if err != nil {
		panic(err)
	}
	for _, f := range plan.Artifacts[0].Files {
		fmt.Println(f.Path, "<-", f.Source)
	}
	fmt.Println(plan.Warnings)
	// Output:
	// config/config.yaml <- @repo/tenants/tenant-a/modules/app/manifests/config/config.yaml
	// deploy.yaml <- @repo/tenants/tenant-a/modules/app/manifests/deploy.yaml
	// [@repo/tenants/tenant-a/modules/app/applier-inputs.yaml: inputs file not found; artifact tenant-a/app has no inputs]
}
