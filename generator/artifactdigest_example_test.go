package generator_test

import (
	"context"
	"fmt"
	"io/fs"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing/fstest"

	"github.com/opencontainers/go-digest"

	"github.com/tenantkit/tenantkit/generator"
	"github.com/tenantkit/tenantkit/inventory"
)

// An embedder whose inventory holds the digests of the archives it writes
// computes each artifact's digest itself, from the artifact's file system.
// A controller writes the files into a staging directory with os.CopyFS and
// archives it as its storage does; this digest function hashes a listing,
// to show what the file system holds.
func ExampleWithArtifactDigest() {
	var (
		mu       sync.Mutex // the function runs on the plan's goroutines
		listings = map[string]string{}
	)
	archive := func(ctx context.Context, a *generator.Artifact, files fs.FS) (digest.Digest, error) {
		var lines []string
		err := fs.WalkDir(files, ".", func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			data, err := fs.ReadFile(files, path)
			lines = append(lines, fmt.Sprintf("%s %q", path, data))
			return err
		})
		if err != nil {
			return "", err
		}
		listing := strings.Join(lines, "\n")
		mu.Lock()
		defer mu.Unlock()
		listings[a.Namespace+"/"+a.Name] = listing
		return digest.FromString(listing), nil
	}
	spec := generator.Spec{
		PathPattern: "@repo/tenants/{tenant}",
		Sources:     []generator.SourceReference{{Alias: "repo", Kind: "GitRepository", Name: "monorepo"}},
		Artifacts: []generator.OutputArtifact{{
			Name:      "apps",
			Namespace: "{tenant}",
			Copy: []generator.CopyOperation{
				{From: "@repo/tenants/{tenant}/**", To: "@artifact/"},
				{From: "@repo/values/prod.yaml", To: "@artifact/config/values.yaml", Strategy: "Merge"},
			},
		}},
	}
	g, errs := generator.Compile(spec, generator.WithNamespace("flux-system"), generator.WithArtifactDigest(archive))
	if len(errs) > 0 {
		panic(errs.ToAggregate())
	}
	repo := fstest.MapFS{
		"tenants/tenant-a/app.yaml":           {Data: []byte("kind: Deployment\n")},
		"tenants/tenant-a/config/values.yaml": {Data: []byte("replicas: 1\n")},
		"values/prod.yaml":                    {Data: []byte("replicas: 3\n")},
	}
	// The inventory that the embedder recorded, with its own digest and
	// the name of the artifact's file in its storage.
	previous := []inventory.Entry{{Kind: "ExternalArtifact", Namespace: "tenant-a", Name: "apps",
		Digest:   digest.FromString("app.yaml \"kind: Deployment\\n\"\nconfig/values.yaml \"replicas: 3\\n\""),
		Filename: "4153672094.tar.gz"}}
	plan, err := g.Plan(context.Background(), map[string]fs.FS{"repo": repo}, previous, generator.Cluster{})
	if err != nil {
		panic(err)
	}
	for _, key := range slices.Sorted(maps.Keys(listings)) {
		fmt.Printf("%s:\n%s\n", key, listings[key])
	}
	for _, d := range plan.Decisions {
		fmt.Println(d.Action, d.Entry.Namespace, d.Entry.Name)
	}
	// The function names no file: the unchanged artifact keeps its own.
	for _, e := range plan.Next(nil) {
		fmt.Println("next:", e.Namespace, e.Name, e.Filename)
	}
	// Output:
	// tenant-a/apps:
	// app.yaml "kind: Deployment\n"
	// config/values.yaml "replicas: 3\n"
	// unchanged tenant-a apps
	// next: tenant-a apps 4153672094.tar.gz
}
