package main

import (
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestSeedShape plans the sample monorepo with testdata/seed-generator.yaml,
// the sample in the seed proposal's shape (spec.managedNamespaces, CEL
// rules): the text and the JSON are the sample's golden files, which the
// embedded sample, in source-watcher v2.3's shape, prints too.
func TestSeedShape(t *testing.T) {
	t.Parallel()
	_, repo := monorepo(t)
	seed := filepath.Join("testdata", "seed-generator.yaml")
	code, out, stderr := tool(t, "-generator", seed, "-source", "repo="+repo)
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	golden(t, "sample.txt", out)
	code, out, stderr = tool(t, "-generator", seed, "-source", "repo="+repo, "-o", "json")
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	golden(t, "sample.json", out)
}

// TestShapesDiffer: where the two shapes of the sample plan differently.
// The seed shape's name policy refuses a tenant outside tenant-*, and it
// refuses the generator's own namespace; source-watcher v2.3's shape has
// no name policy, and leaves its own namespace unmanaged while it
// generates the artifact there. Both refuse kube-system.
func TestShapesDiffer(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		tenant   string
		upstream []line // the changes of the upstream shape's plan but the sample's
		seedErr  string // the seed shape's error detail
		both     string // an error detail of both shapes
	}{
		{name: "outside the seed's policy", tenant: "team-x", upstream: []line{
			{"create", "Namespace", "", "team-x", ""}, {"create", "ExternalArtifact", "team-x", "app", ""},
		}, seedErr: "must be accepted by an allowedNames rule"},
		{name: "the generator's own namespace", tenant: "flux-system", upstream: []line{
			{"create", "ExternalArtifact", "flux-system", "app", ""},
		}, seedErr: "must not be protected"},
		{name: "a protected namespace", tenant: "kube-system", both: "must not be protected"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			gen, repo := monorepo(t)
			writeFile(t, filepath.Join(repo, "tenants", tt.tenant, "modules/app/manifests/deployment.yaml"), "kind: Deployment\n")
			writeFile(t, filepath.Join(repo, "tenants", tt.tenant, "namespace-metadata.yaml"), "apiVersion: source.extensions.fluxcd.io/v1beta1\nkind: NamespaceMetadata\n")
			for _, shape := range []string{"upstream", "seed"} {
				file := gen
				if shape == "seed" {
					file = filepath.Join("testdata", "seed-generator.yaml")
				}
				code, out, stderr := tool(t, "-generator", file, "-source", "repo="+repo, "-o", "json")
				res := decode(t, out)
				detail := tt.both
				if shape == "seed" && tt.seedErr != "" {
					detail = tt.seedErr
				}
				if detail != "" {
					if code != 1 || len(res.Errors) != 1 || !errorsContain(res, "spec.artifacts[0].namespace", detail) {
						t.Errorf("%s: exit %d, errors %+v; want one saying %q (stderr %q)", shape, code, res.Errors, detail, stderr)
					}
					continue
				}
				if code != 0 {
					t.Fatalf("%s: exit %d, errors %+v, stderr %q", shape, code, res.Errors, stderr)
				}
				var got []line
				for _, c := range res.Changes {
					if c.Namespace == tt.tenant || c.Name == tt.tenant {
						got = append(got, line{c.Action, c.Kind, c.Namespace, c.Name, c.Reason})
					}
				}
				if diff := cmp.Diff(tt.upstream, got, cmp.AllowUnexported(line{})); diff != "" {
					t.Errorf("%s: changes of %s (-want +got):\n%s", shape, tt.tenant, diff)
				}
			}
		})
	}
}
