package sourcewatcher_test

import (
	"encoding/json"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/fluxcd/source-watcher/api/v2/v1beta1"
	"github.com/opencontainers/go-digest"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/tenantkit/tenantkit/finalizer"
	"github.com/tenantkit/tenantkit/generator"
	"github.com/tenantkit/tenantkit/inventory"
	"github.com/tenantkit/tenantkit/nsmeta"
)

// TestConstants compares the released constants with tenantkit's exported
// ones.
func TestConstants(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name                string
		released, tenantkit string
	}{
		{name: "ArtifactGeneratorLabel", released: v1beta1.ArtifactGeneratorLabel, tenantkit: generator.GeneratorLabel},
		{name: "ExternalFinalizerAnnotation", released: v1beta1.ExternalFinalizerAnnotation, tenantkit: finalizer.Annotation},
		{name: "NamespaceKind", released: v1beta1.NamespaceKind, tenantkit: inventory.KindNamespace},
		{name: "NamespaceMetadataResetStrategy", released: v1beta1.NamespaceMetadataResetStrategy, tenantkit: string(nsmeta.Reset)},
		{name: "OverrideStrategy", released: v1beta1.OverrideStrategy, tenantkit: string(nsmeta.Override)},
		{name: "MergeStrategy", released: v1beta1.MergeStrategy, tenantkit: string(nsmeta.Merge)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if tt.released != tt.tenantkit {
				t.Errorf("released %q, tenantkit %q", tt.released, tt.tenantkit)
			}
		})
	}
}

// TestCopyStrategies compiles a copy of each released strategy constant.
func TestCopyStrategies(t *testing.T) {
	t.Parallel()
	for _, strategy := range []string{v1beta1.OverwriteStrategy, v1beta1.MergeStrategy, v1beta1.ExtractStrategy} {
		t.Run(strategy, func(t *testing.T) {
			t.Parallel()
			s := patterned()
			s.OutputArtifacts[0].Copy[0].Strategy = strategy
			if errs := compile(toSpec(t, s, nil)); len(errs) > 0 {
				t.Errorf("strategy %s: %v", strategy, errs)
			}
		})
	}
}

// TestArtifactAlias compiles an inputsFrom of the released ArtifactAlias.
func TestArtifactAlias(t *testing.T) {
	t.Parallel()
	s := patterned()
	s.OutputArtifacts[0].InputsFrom = "@" + v1beta1.ArtifactAlias + "/inputs.yaml"
	if errs := compile(toSpec(t, s, nil)); len(errs) > 0 {
		t.Errorf("inputsFrom %s: %v", s.OutputArtifacts[0].InputsFrom, errs)
	}
}

// TestConflictReasons plans namespaces and an artifact that live objects
// make an adoption and a takeover: their Conflict is the released reason.
// tenantkit exports no constant for either.
func TestConflictReasons(t *testing.T) {
	t.Parallel()
	g := mustCompile(t, tenantsSpec(`ns.startsWith("tenant-")`), generator.WithNamespace(testNamespace), generator.WithUID(testUID))
	other := map[string]string{v1beta1.ArtifactGeneratorLabel: "another-generator"}
	plan := mustPlan(t, g, tenantsTree(), nil, liveCluster(map[inventory.ID]generator.Object{
		namespaceID("tenant-a"):       {},              // exists, no generator's label
		namespaceID("tenant-b"):       {Labels: other}, // another generator's
		artifactID("tenant-b", "web"): {Labels: other}, // another generator's
		artifactID("tenant-a", "app"): {Labels: map[string]string{v1beta1.ArtifactGeneratorLabel: testUID}},
	}))
	if plan.HasErrors() {
		t.Fatalf("plan errors: %v", plan.Errors)
	}
	ns := planned(plan)
	for _, tt := range []struct {
		name, got, want string
	}{
		{name: "adopted namespace", got: ns["tenant-a"].Conflict, want: v1beta1.AdoptedReason},
		{name: "namespace of another generator", got: ns["tenant-b"].Conflict, want: v1beta1.OwnershipConflictReason},
		{name: "artifact of another generator", got: artifactConflict(plan, "tenant-b", "web"), want: v1beta1.OwnershipConflictReason},
		{name: "own artifact", got: artifactConflict(plan, "tenant-a", "app"), want: ""},
	} {
		if tt.got != tt.want {
			t.Errorf("%s: Conflict %q, want %q", tt.name, tt.got, tt.want)
		}
	}
}

func artifactConflict(plan *generator.Plan, namespace, name string) string {
	for _, a := range plan.Artifacts {
		if a.Namespace == namespace && a.Name == name {
			return a.Conflict
		}
	}
	return "(not planned)"
}

// TestAnnotations plans against live objects that carry the released
// annotations with the released values, and checks what tenantkit does
// with each: what source-watcher v2.3 documents for its namespaces and
// artifacts, and what Flux's delete options (fluxcd/pkg/ssa) say of prune.
func TestAnnotations(t *testing.T) {
	t.Parallel()
	owned := map[string]string{v1beta1.ArtifactGeneratorLabel: testUID}
	with := func(key, value string) map[string]string { return map[string]string{key: value} }
	for _, tt := range []struct {
		name string
		// tenant-a's live namespace and tenant-c's (stale: tracked, no
		// longer in the source), and tenant-c's stale artifact.
		liveA, liveC, liveCArtifact map[string]string
		// What the plan does: tenant-a applied or not, and the actions on
		// tenant-c and its artifact.
		appliedA          bool
		actionA           inventory.Action
		actionC, actionCA inventory.Action
	}{
		{
			name:     "none",
			appliedA: true, actionA: inventory.Update, actionC: inventory.Delete, actionCA: inventory.Delete,
		},
		{
			name:  "reconcile Disabled",
			liveA: with(v1beta1.ReconcileAnnotation, v1beta1.DisabledValue), liveC: with(v1beta1.ReconcileAnnotation, v1beta1.DisabledValue),
			liveCArtifact: with(v1beta1.ReconcileAnnotation, v1beta1.DisabledValue),
			appliedA:      false, actionA: inventory.Unchanged, actionC: inventory.Release, actionCA: inventory.Release,
		},
		{
			name:  "reconcile Enabled",
			liveA: with(v1beta1.ReconcileAnnotation, v1beta1.EnabledValue), liveC: with(v1beta1.ReconcileAnnotation, v1beta1.EnabledValue),
			appliedA: true, actionA: inventory.Update, actionC: inventory.Delete, actionCA: inventory.Delete,
		},
		{
			name:  "prune Disabled",
			liveA: with(v1beta1.PruneAnnotation, v1beta1.DisabledValue), liveC: with(v1beta1.PruneAnnotation, v1beta1.DisabledValue),
			liveCArtifact: with(v1beta1.PruneAnnotation, v1beta1.DisabledValue),
			appliedA:      true, actionA: inventory.Update, actionC: inventory.Release, actionCA: inventory.Release,
		},
		{
			name:  "ssa Ignore",
			liveA: with(v1beta1.SSAAnnotation, v1beta1.IgnoreValue), liveC: with(v1beta1.SSAAnnotation, v1beta1.IgnoreValue),
			liveCArtifact: with(v1beta1.SSAAnnotation, v1beta1.IgnoreValue),
			appliedA:      false, actionA: inventory.Unchanged, actionC: inventory.Release, actionCA: inventory.Release,
		},
		{
			name:     "ssa IfNotPresent",
			liveA:    with(v1beta1.SSAAnnotation, v1beta1.IfNotPresentValue),
			appliedA: false, actionA: inventory.Unchanged, actionC: inventory.Delete, actionCA: inventory.Delete,
		},
		{
			name:  "ssa Merge",
			liveA: with(v1beta1.SSAAnnotation, v1beta1.MergeValue), liveC: with(v1beta1.SSAAnnotation, v1beta1.MergeValue),
			appliedA: true, actionA: inventory.Update, actionC: inventory.Delete, actionCA: inventory.Delete,
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			g := mustCompile(t, tenantsSpec(`ns.startsWith("tenant-")`), generator.WithNamespace(testNamespace), generator.WithUID(testUID))
			// tenant-a tracked with another digest: an update when applied.
			stale := digest.Digest("sha256:" + strings.Repeat("0", 64))
			previous := []inventory.Entry{
				{Kind: inventory.KindNamespace, Name: "tenant-a", Digest: stale},
				{Kind: inventory.KindNamespace, Name: "tenant-c", Digest: stale},
				{Kind: inventory.KindExternalArtifact, Namespace: "tenant-c", Name: "old", Digest: stale},
			}
			plan := mustPlan(t, g, tenantsTree(), previous, liveCluster(map[inventory.ID]generator.Object{
				namespaceID("tenant-a"):       {Labels: owned, Annotations: tt.liveA},
				namespaceID("tenant-b"):       {Labels: owned},
				namespaceID("tenant-c"):       {Labels: owned, Annotations: tt.liveC},
				artifactID("tenant-c", "old"): {Labels: owned, Annotations: tt.liveCArtifact},
			}))
			if plan.HasErrors() {
				t.Fatalf("plan errors: %v", plan.Errors)
			}
			if _, ok := planned(plan)["tenant-a"]; ok != tt.appliedA {
				t.Errorf("tenant-a applied: %v, want %v", ok, tt.appliedA)
			}
			d := decisions(plan)
			for _, c := range []struct {
				id   inventory.ID
				want inventory.Action
			}{
				{namespaceID("tenant-a"), tt.actionA},
				{namespaceID("tenant-c"), tt.actionC},
				{artifactID("tenant-c", "old"), tt.actionCA},
			} {
				if got := d[c.id]; got.Action != c.want {
					t.Errorf("%s: %v, want %v", c.id, got, c.want)
				}
			}
		})
	}
}

// TestNamespaceMetadataType reads a tenant's NamespaceMetadata file,
// marshalled from the released NamespaceMetadata type with the released
// kind and API version, under WithStrict (type fields required and exact):
// its labels are the namespace's. A file of another kind fails the
// namespace.
func TestNamespaceMetadataType(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name     string
		typeMeta metav1.TypeMeta
		ok       bool
	}{
		{name: "released kind and apiVersion", typeMeta: metav1.TypeMeta{Kind: v1beta1.NamespaceMetadataKind, APIVersion: v1beta1.GroupVersion.String()}, ok: true},
		{name: "another kind", typeMeta: metav1.TypeMeta{Kind: v1beta1.NamespaceKind, APIVersion: v1beta1.GroupVersion.String()}},
		{name: "another version", typeMeta: metav1.TypeMeta{Kind: v1beta1.NamespaceMetadataKind, APIVersion: v1beta1.GroupVersion.Group + "/v1"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			file, err := json.Marshal(v1beta1.NamespaceMetadata{
				TypeMeta: tt.typeMeta,
				Metadata: v1beta1.NamespaceMetadataMetadata{Labels: map[string]string{"my.org.io/cost-center": "cc-1234"}},
			})
			if err != nil {
				t.Fatal(err)
			}
			s := tenantsSpec(`ns.startsWith("tenant-")`)
			s.ManagedNamespaces.Metadata.FromSource = &v1beta1.NamespaceMetadataFromSource{
				Path:          "@repo/tenants/{namespace}/namespace-metadata.yaml",
				AllowedLabels: map[string]string{"my.org.io/cost-center": `value.startsWith("cc-")`},
			}
			g := mustCompile(t, s, generator.WithNamespace(testNamespace), generator.WithUID(testUID), generator.WithStrict())
			tree := fstest.MapFS{
				"tenants/tenant-a/modules/app/manifests/deploy.yaml": {Data: []byte("kind: Deployment\n")},
				"tenants/tenant-a/namespace-metadata.yaml":           {Data: file},
			}
			plan := mustPlan(t, g, tree, nil, generator.Cluster{})
			ns, applied := planned(plan)["tenant-a"]
			if tt.ok {
				if plan.HasErrors() || !applied || ns.Labels["my.org.io/cost-center"] != "cc-1234" {
					t.Errorf("want tenant-a labelled from its file, got %+v, errors %v", ns, plan.Errors)
				}
				return
			}
			if !plan.HasErrors() || applied {
				t.Errorf("want tenant-a refused with an error, got %+v, errors %v", ns, plan.Errors)
			}
		})
	}
}
