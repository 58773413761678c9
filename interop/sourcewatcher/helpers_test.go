package sourcewatcher_test

import (
	"context"
	"io/fs"
	"testing"
	"testing/fstest"

	"github.com/fluxcd/source-watcher/api/v2/v1beta1"

	"github.com/tenantkit/tenantkit/finalizer"
	"github.com/tenantkit/tenantkit/generator"
	"github.com/tenantkit/tenantkit/inventory"
)

// tenantsSpec is a released spec over tenants/{namespace}/modules/{module}
// of the alias repo, its namespaces managed and pruned, allowed by names,
// labelled by one from operation.
func tenantsSpec(allowedNames ...string) v1beta1.ArtifactGeneratorSpec {
	return v1beta1.ArtifactGeneratorSpec{
		ServiceAccountName: "tenant-provisioner",
		Sources:            []v1beta1.SourceReference{{Alias: "repo", Kind: "OCIRepository", Name: "monorepo"}},
		PathPattern:        "@repo/tenants/{namespace}/modules/{module}",
		ManagedNamespaces: &v1beta1.ManagedNamespaces{
			AllowedNames: allowedNames,
			Prune:        true,
			Metadata: &v1beta1.ManagedNamespacesMetadata{
				From: []v1beta1.NamespaceMetadataFrom{{Strategy: v1beta1.MergeStrategy, Namespace: "*", Labels: map[string]string{"tier": "bronze"}}},
			},
		},
		OutputArtifacts: []v1beta1.OutputArtifact{{
			Name:      "{module}",
			Namespace: "{namespace}",
			Copy:      []v1beta1.CopyOperation{{From: "@repo/tenants/{namespace}/modules/{module}/manifests/**", To: "@artifact/"}},
		}},
	}
}

// tenantsTree is a source of two tenants, tenant-a with one module and
// tenant-b with two.
func tenantsTree() fstest.MapFS {
	return fstest.MapFS{
		"tenants/tenant-a/modules/app/manifests/deploy.yaml":  {Data: []byte("kind: Deployment\n")},
		"tenants/tenant-b/modules/web/manifests/service.yaml": {Data: []byte("kind: Service\n")},
		"tenants/tenant-b/modules/db/manifests/sts.yaml":      {Data: []byte("kind: StatefulSet\n")},
	}
}

// mustCompile compiles a released spec, read through its JSON, and fails
// the test on any error.
func mustCompile(t *testing.T, s v1beta1.ArtifactGeneratorSpec, opts ...generator.Option) *generator.Generator {
	t.Helper()
	g, errs := generator.Compile(toSpec(t, s, nil), opts...)
	if len(errs) > 0 {
		t.Fatalf("compile: %v", errs)
	}
	return g
}

// mustPlan plans g over repo and fails the test when Plan returns an error.
func mustPlan(t *testing.T, g *generator.Generator, repo fs.FS, previous []inventory.Entry, cluster generator.Cluster) *generator.Plan {
	t.Helper()
	plan, err := g.Plan(context.Background(), map[string]fs.FS{"repo": repo}, previous, cluster)
	if err != nil {
		t.Fatalf("plan: %v", err)
	}
	return plan
}

// liveCluster reads live objects from a map: an object that it does not
// hold does not exist. No ExternalArtifact lives in any namespace, and no
// external finalizer exists.
func liveCluster(live map[inventory.ID]generator.Object) generator.Cluster {
	return generator.Cluster{
		Objects: generator.ObjectReaderFunc(func(_ context.Context, id inventory.ID) (generator.Object, error) {
			o, ok := live[id]
			if !ok {
				return generator.Object{}, finalizer.ErrNotFound
			}
			o.ID = id
			return o, nil
		}),
		Artifacts: generator.ArtifactListerFunc(func(context.Context, string) ([]generator.Object, error) {
			return nil, nil
		}),
		Finalizers: finalizer.LookupFunc(func(context.Context, finalizer.Reference) (string, error) {
			return "", finalizer.ErrNotFound
		}),
	}
}

func namespaceID(name string) inventory.ID {
	return inventory.ID{Kind: inventory.KindNamespace, Name: name}
}

func artifactID(namespace, name string) inventory.ID {
	return inventory.ID{Group: inventory.GroupSource, Kind: inventory.KindExternalArtifact, Namespace: namespace, Name: name}
}

// decisions returns the plan's decisions by ID.
func decisions(plan *generator.Plan) map[inventory.ID]inventory.Decision {
	out := map[inventory.ID]inventory.Decision{}
	for _, d := range plan.Decisions {
		out[d.Entry.ID()] = d
	}
	return out
}

// planned returns the names of the namespaces the plan applies.
func planned(plan *generator.Plan) map[string]generator.Namespace {
	out := map[string]generator.Namespace{}
	for _, ns := range plan.Namespaces {
		out[ns.Name] = ns
	}
	return out
}

func all(inventory.Entry) bool { return true }
