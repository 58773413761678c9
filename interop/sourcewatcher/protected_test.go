package sourcewatcher_test

import (
	"testing"
	"testing/fstest"

	"github.com/tenantkit/tenantkit/generator"
	"github.com/tenantkit/tenantkit/inventory"
)

// TestProtectedNamespaces plans, for a generator in namespace platform
// whose allowedNames accept every name ("true"), a tenant directory named
// after each namespace that the released API always refuses ("The
// 'default', 'kube-system', 'kube-public' and 'flux-system' namespaces are
// always rejected, regardless of the expressions"): the namespace is not
// applied or created, and its artifact is skipped. A tenant beside it,
// tenant-a, is created, so that the plan can tell the two apart.
//
// tenantkit refuses two names more, kube-node-lease and the generator's own
// namespace (here platform), which the released controller would manage:
// documented differences, checked as such.
func TestProtectedNamespaces(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		// released says that the released API refuses the name too.
		released bool
	}{
		{name: "default", released: true},
		{name: "kube-system", released: true},
		{name: "kube-public", released: true},
		{name: "flux-system", released: true},
		{name: "kube-node-lease"},
		{name: "platform"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := tenantsSpec("true")
			g := mustCompile(t, s, generator.WithNamespace("platform"), generator.WithUID(testUID))
			tree := fstest.MapFS{
				"tenants/" + tt.name + "/modules/app/manifests/deploy.yaml": {Data: []byte("kind: Deployment\n")},
				"tenants/tenant-a/modules/app/manifests/deploy.yaml":        {Data: []byte("kind: Deployment\n")},
			}
			plan := mustPlan(t, g, tree, nil, generator.Cluster{})
			ns := planned(plan)
			if _, ok := ns[tt.name]; ok {
				t.Errorf("namespace %s is applied", tt.name)
			}
			if _, ok := ns["tenant-a"]; !ok {
				t.Errorf("namespace tenant-a is not applied")
			}
			d := decisions(plan)
			if got := d[namespaceID(tt.name)]; got.Action != inventory.Skip {
				t.Errorf("namespace %s: %v, want skip", tt.name, got)
			}
			if got := d[artifactID(tt.name, "app")]; got.Action != inventory.Skip {
				t.Errorf("artifact %s/app: %v, want skip", tt.name, got)
			}
			if got := d[namespaceID("tenant-a")]; got.Action != inventory.Create {
				t.Errorf("namespace tenant-a: %v, want create", got)
			}
			if !plan.HasErrors() {
				t.Errorf("no plan error for namespace %s", tt.name)
			}
		})
	}
}
