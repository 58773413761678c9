package main

import (
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestNamePolicy plans the sample with one more tenant and checks which
// namespaces its spec.managedNamespaces manages: allowedNames
// (ns.startsWith('tenant-')) accepts a tenant-* name and refuses any other,
// and a protected name (kube-system, and flux-system, which is also the
// generator's own namespace) is refused whatever the rules say. A refused
// tenant is an error at the artifact's namespace field, and none of its
// objects is planned.
func TestNamePolicy(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		tenant  string
		changes []line // the plan's changes for the tenant, when it is accepted
		err     string // else the detail of the one error
	}{
		{name: "accepted by allowedNames", tenant: "tenant-x", changes: []line{
			{"create", "Namespace", "", "tenant-x", "no previous inventory"}, {"create", "ExternalArtifact", "tenant-x", "app", "no previous inventory"},
		}},
		{name: "refused by allowedNames", tenant: "team-x", err: "must be accepted by an allowedNames rule"},
		{name: "the generator's own namespace", tenant: "flux-system", err: "must not be protected"},
		{name: "a protected namespace", tenant: "kube-system", err: "must not be protected"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			gen, repo := monorepo(t)
			writeFile(t, filepath.Join(repo, "tenants", tt.tenant, "modules/app/manifests/deployment.yaml"), "kind: Deployment\n")
			writeFile(t, filepath.Join(repo, "tenants", tt.tenant, "namespace-metadata.yaml"), "apiVersion: source.extensions.fluxcd.io/v1beta1\nkind: NamespaceMetadata\n")
			code, out, stderr := tool(t, "-generator", gen, "-source", "repo="+repo, "-o", "json")
			res := decode(t, out)
			var got []line
			for _, c := range res.Changes {
				if c.Namespace == tt.tenant || c.Name == tt.tenant {
					got = append(got, line{c.Action, c.Kind, c.Namespace, c.Name, c.Reason})
				}
			}
			if tt.err != "" {
				if code != 1 || len(res.Errors) != 1 || !errorsContain(res, "spec.artifacts[0].namespace", tt.err) {
					t.Errorf("exit %d, errors %+v; want 1 and one error saying %q (stderr %q)", code, res.Errors, tt.err, stderr)
				}
				for _, l := range got {
					if l.action != "skip" {
						t.Errorf("a refused tenant's object is planned: %v", l)
					}
				}
				return
			}
			if code != 0 || stderr != "" {
				t.Fatalf("exit %d, errors %+v, stderr %q", code, res.Errors, stderr)
			}
			if diff := cmp.Diff(tt.changes, got, cmp.AllowUnexported(line{})); diff != "" {
				t.Errorf("changes of %s (-want +got):\n%s", tt.tenant, diff)
			}
		})
	}
}
