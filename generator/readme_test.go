package generator_test

import (
	"context"
	"io/fs"
	"os"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/tenantkit/tenantkit/generator"
	"github.com/tenantkit/tenantkit/inventory"
)

// The README's "Embedding" section shows the body of reconcile, between
// the BEGIN and END lines, verbatim: TestReadmeEmbedding keeps the two
// equal, and the compiler keeps the snippet compiling.

// resourceSet is flux-operator's ResourceSet.
var resourceSet = schema.GroupKind{Group: "fluxcd.controlplane.io", Kind: "ResourceSet"}

// applyNamespace, applyArtifact and deleteObject stand for the controller's
// server-side apply and delete calls.
func applyNamespace(context.Context, generator.Namespace) error { return nil }
func applyArtifact(context.Context, generator.Artifact) error   { return nil }
func deleteObject(context.Context, inventory.Entry) error       { return nil }

func reconcile(ctx context.Context, spec generator.Spec, uid string, checkouts map[string]string,
	status *[]inventory.Entry, cluster generator.Cluster) error {
	// BEGIN
	// Once per spec change (cache the result by generation):
	g, errs := generator.Compile(spec,
		generator.WithUID(uid),                 // the source.extensions.fluxcd.io/generator label
		generator.WithNamespace("flux-system"), // the generator's own namespace: protected
		generator.WithDefaultServiceAccount("flux-operator"),
		// Allow-list the external finalizers: any existing object could otherwise keep a namespace.
		generator.WithFinalizerKinds(resourceSet),
	)
	if len(errs) > 0 {
		return errs.ToAggregate() // Ready=False with every spec. problem
	}

	// Every reconcile: each fetched source artifact, opened as an os.Root.
	sources := map[string]fs.FS{}
	for alias, dir := range checkouts {
		root, err := os.OpenRoot(dir)
		if err != nil {
			return err
		}
		defer root.Close()
		sources[alias] = root.FS()
	}
	plan, err := g.Plan(ctx, sources, *status, cluster)
	if err != nil {
		return err // ctx ended
	}
	for _, ns := range plan.Namespaces { // namespaces first, then artifacts
		if err := applyNamespace(ctx, ns); err != nil {
			return err // nothing deleted, status unchanged: retry
		}
	}
	for _, a := range plan.Artifacts {
		if err := applyArtifact(ctx, a); err != nil {
			return err
		}
	}
	// Delete the Delete decisions in their (prune) order; note what was confirmed.
	confirmed := map[inventory.ID]bool{}
	for _, d := range plan.Decisions {
		if d.Action == inventory.Delete && deleteObject(ctx, d.Entry) == nil {
			confirmed[d.Entry.ID()] = true
		}
	}
	*status = plan.Next(func(e inventory.Entry) bool { return confirmed[e.ID()] })
	if plan.HasErrors() {
		return plan.Errors.ToAggregate() // nothing was deleted; the valid tenants were applied
	}
	// END
	return nil
}

func TestReadmeEmbedding(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile("readme_test.go")
	if err != nil {
		t.Fatal(err)
	}
	_, body, _ := strings.Cut(string(src), "\t// BEGIN\n")
	body, _, _ = strings.Cut(body, "\t// END\n")
	var snippet []string
	for l := range strings.Lines(body) {
		snippet = append(snippet, strings.TrimPrefix(l, "\t"))
	}
	if !strings.Contains(string(readme), "```go\n"+strings.Join(snippet, "")+"```\n") {
		t.Errorf("README.md's Embedding section does not show reconcile's body between BEGIN and END verbatim:\n%s", strings.Join(snippet, ""))
	}
}
