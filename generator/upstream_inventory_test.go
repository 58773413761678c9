package generator

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/opencontainers/go-digest"

	"github.com/tenantkit/tenantkit/inventory"
)

// This file translates source-watcher v2.3's
// internal/controller/artifactgenerator_inventory_test.go and
// artifactgenerator_finalize_test.go (and its older copy,
// artifactgenerator_controller_finalize_test.go); the list of every
// translated test is in upstream_namespace_test.go.

// TestUpstreamFindOrphanedReferences translates TestFindOrphanedReferences
// with inventory.Diff: entries written before the kind field are
// ExternalArtifacts, matched by identity with the desired ones; the
// tracked ones no longer desired are stale. Upstream's digests
// ("sha256:abc") are not digests, which tenantkit refuses (a previous
// inventory that does not validate); the first case has them, the second
// the same entries with valid digests. TestOrphans (collect_test.go) runs
// the same inventory through a plan.
func TestUpstreamFindOrphanedReferences(t *testing.T) {
	t.Parallel()
	abc, def := digest.FromString("abc"), digest.FromString("def")
	tests := []struct {
		name         string
		old, desired []inventory.Entry
		errors       []string // "field: detail"
		// upstreamOrphans is what findOrphanedReferences returns; without
		// errors, the stale entries are these.
		upstreamOrphans []string
	}{
		{
			name: "upstream's digests",
			old: []inventory.Entry{
				{Name: "app", Namespace: "tenant", Digest: "sha256:abc", Filename: "app.tar.gz"},
				{Name: "stale", Namespace: "tenant", Digest: "sha256:def", Filename: "stale.tar.gz"},
				{Kind: "Namespace", Name: "old-ns"},
			},
			desired: []inventory.Entry{
				{Kind: "ExternalArtifact", Name: "app", Namespace: "tenant", Digest: "sha256:abc", Filename: "app.tar.gz"},
				{Kind: "Namespace", Name: "new-ns"},
			},
			errors: []string{
				`old[0].digest: must be "sha256:" followed by 64 lower-case hex characters`,
				`old[1].digest: must be "sha256:" followed by 64 lower-case hex characters`,
				`desired[0].digest: must be "sha256:" followed by 64 lower-case hex characters`,
			},
			upstreamOrphans: []string{"ExternalArtifact/tenant/stale", "Namespace/old-ns"},
		},
		{
			name: "valid digests",
			old: []inventory.Entry{
				{Name: "app", Namespace: "tenant", Digest: abc, Filename: "app.tar.gz"},
				{Name: "stale", Namespace: "tenant", Digest: def, Filename: "stale.tar.gz"},
				{Kind: "Namespace", Name: "old-ns", Digest: abc},
			},
			desired: []inventory.Entry{
				{Kind: "ExternalArtifact", Name: "app", Namespace: "tenant", Digest: abc, Filename: "app.tar.gz"},
				{Kind: "Namespace", Name: "new-ns", Digest: abc},
			},
			upstreamOrphans: []string{"ExternalArtifact/tenant/stale", "Namespace/old-ns"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ch, errs := inventory.Diff(tt.old, tt.desired)
			var fields []string
			for _, e := range errs {
				fields = append(fields, e.Field+": "+e.Detail)
			}
			if diff := cmp.Diff(tt.errors, fields); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
			if tt.errors != nil {
				return
			}
			if diff := cmp.Diff(tt.upstreamOrphans, ids(ch.Stale)); diff != "" {
				t.Errorf("stale (-want +got):\n%s", diff)
			}
		})
	}
}

// inventoryScenarios translate artifactgenerator_inventory_test.go and
// artifactgenerator_finalize_test.go as plans.
var inventoryScenarios = []swScenario{
	{
		name:     "an inventory source-watcher wrote with kind-less entries and short digests",
		upstream: "TestFindOrphanedReferences (its inventory, as a plan's previous inventory)",
		differs:  "| an invalid previous inventory (malformed digest, identity twice) | not validated |",
		spec:     managed(ptr(true)),
		previous: []inventory.Entry{
			{Name: "test-git", Namespace: "tenant-a", Digest: "sha256:abc", Filename: "app.tar.gz"},
			{Name: "stale", Namespace: "tenant-a", Digest: "sha256:def", Filename: "stale.tar.gz"},
			{Kind: "Namespace", Name: "old-ns"},
		},
		steps: []swStep{
			{
				note: "the desired objects are decided and recorded (test-git's malformed entry replaced by the desired one); " +
					"the stale ones are kept, the malformed one as it is",
				want: []string{
					"Namespace/tenant-a created",
					"ExternalArtifact/tenant-a/test-git created",
					"ExternalArtifact/tenant-a/stale kept (the previous inventory has errors; this entry does not validate and is kept as it is)",
					"Namespace/old-ns kept (the previous inventory has errors; nothing is deleted)",
				},
				namespaces: map[string]nsWant{"tenant-a": {labels: mine()}},
				errors: []string{
					`old[0].digest: must be "sha256:" followed by 64 lower-case hex characters`,
					`old[1].digest: must be "sha256:" followed by 64 lower-case hex characters`,
				},
				next:     []string{"Namespace/old-ns", "Namespace/tenant-a", "ExternalArtifact/tenant-a/stale", "ExternalArtifact/tenant-a/test-git"},
				upstream: []string{"Namespace/tenant-a created", "ExternalArtifact/tenant-a/test-git configured", "ExternalArtifact/tenant-a/stale deleted", "Namespace/old-ns deleted"},
			},
			{
				note: "what the plan applied is tracked: unchanged; the malformed stale entry still keeps the plan from deleting",
				want: []string{
					"Namespace/tenant-a unchanged",
					"ExternalArtifact/tenant-a/test-git unchanged",
					"ExternalArtifact/tenant-a/stale kept (the previous inventory has errors; this entry does not validate and is kept as it is)",
					"Namespace/old-ns kept (the previous inventory has errors; nothing is deleted)",
				},
				namespaces: map[string]nsWant{"tenant-a": {labels: mine()}},
				errors:     []string{`old[2].digest: must be "sha256:" followed by 64 lower-case hex characters`},
				next:       []string{"Namespace/old-ns", "Namespace/tenant-a", "ExternalArtifact/tenant-a/stale", "ExternalArtifact/tenant-a/test-git"},
			},
			{
				note:          "once the malformed entry is gone (removed by hand), the stale namespace is pruned",
				dropInventory: []string{"ExternalArtifact/tenant-a/stale"},
				want: []string{
					"Namespace/tenant-a unchanged",
					"ExternalArtifact/tenant-a/test-git unchanged",
					"Namespace/old-ns deleted (no longer desired; not found in the cluster)",
				},
				namespaces: map[string]nsWant{"tenant-a": {labels: mine()}},
				next:       []string{"Namespace/tenant-a", "ExternalArtifact/tenant-a/test-git"},
			},
		},
	},
	{
		name:     "generator deleted before it built anything",
		upstream: "TestResourceSetReconciler_Finalize and TestResourceSetReconciler_Finalize_Disabled",
		// The first reconcile only adds the finalizer; the generator is
		// deleted with an empty inventory, and the finalizer goes. Whether
		// the generator's own reconcile: disabled stops reconciling is the
		// embedder's: it stops planning, and Finalize still runs.
		spec: managed(ptr(true)),
		steps: []swStep{{
			finalize: true,
			next:     []string{},
		}},
	},
}

// TestUpstreamInventory runs inventoryScenarios.
func TestUpstreamInventory(t *testing.T) {
	t.Parallel()
	runScenarios(t, inventoryScenarios)
}
