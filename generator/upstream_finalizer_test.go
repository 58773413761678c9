package generator

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tenantkit/tenantkit/finalizer"
	"github.com/tenantkit/tenantkit/inventory"
	"github.com/tenantkit/tenantkit/nsmeta"
)

// This file translates source-watcher v2.3's
// internal/controller/artifactgenerator_externalfinalizer_test.go; the
// list of every translated test is in upstream_namespace_test.go.

// TestUpstreamParseExternalFinalizerRef translates
// TestParseExternalFinalizerRef: the two references it parses, field by
// field, and the six values it rejects, with the segment and the rule that
// tenantkit names (upstream checks only that they fail).
func TestUpstreamParseExternalFinalizerRef(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		value string
		want  finalizer.Reference
		gvk   string // GroupVersionKind().String()
		// A rejected value: the segment and the rule of the *ParseError.
		segment string
		rule    string
	}{
		{name: "cluster-scoped ResourceSet", value: "fluxcd.controlplane.io/v1/ResourceSet//tenants/1234-uid",
			want: finalizer.Reference{Group: "fluxcd.controlplane.io", Version: "v1", Kind: "ResourceSet", Name: "tenants", UID: "1234-uid"},
			gvk:  "fluxcd.controlplane.io/v1, Kind=ResourceSet"},
		{name: "core group, namespaced", value: "/v1/ConfigMap/flux-system/rset/abc",
			want: finalizer.Reference{Version: "v1", Kind: "ConfigMap", Namespace: "flux-system", Name: "rset", UID: "abc"},
			gvk:  "/v1, Kind=ConfigMap"},
		{name: "the placeholder self", value: "self", segment: "", rule: `must be a reference, not the placeholder "self" that the finalizer replaces with one`},
		{name: "five segments", value: "fluxcd.controlplane.io/v1/ResourceSet/tenants/uid", segment: "", rule: sixSegments},
		{name: "no uid segment", value: "fluxcd.controlplane.io/v1/ResourceSet//tenants", segment: "", rule: sixSegments},
		{name: "empty kind", value: "fluxcd.controlplane.io/v1///tenants/uid", segment: "kind", rule: "must not be empty"},
		{name: "empty uid", value: "fluxcd.controlplane.io/v1/ResourceSet//tenants/", segment: "uid", rule: "must not be empty"},
		{name: "empty version", value: "fluxcd.controlplane.io//ResourceSet//tenants/uid", segment: "version", rule: "must not be empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := finalizer.Parse(tt.value)
			if tt.rule != "" {
				var pe *finalizer.ParseError
				if !errors.As(err, &pe) || !errors.Is(err, finalizer.ErrInvalid) {
					t.Fatalf("Parse(%q) = %v, %v; want a *ParseError", tt.value, got, err)
				}
				if pe.Segment != tt.segment || pe.Rule != tt.rule {
					t.Errorf("Parse(%q): segment %q, rule %q; want %q, %q", tt.value, pe.Segment, pe.Rule, tt.segment, tt.rule)
				}
				return
			}
			if err != nil {
				t.Fatalf("Parse(%q) = %v", tt.value, err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Parse(%q) (-want +got):\n%s", tt.value, diff)
			}
			if s := got.GroupVersionKind().String(); s != tt.gvk {
				t.Errorf("GroupVersionKind() = %q, want %q", s, tt.gvk)
			}
			if s := got.String(); s != tt.value {
				t.Errorf("String() = %q, want %q", s, tt.value)
			}
		})
	}
}

// sixSegments is the rule of a value without six segments.
const sixSegments = "must have exactly six segments group/version/kind/namespace/name/uid"

const (
	rsetRef = "/v1/ConfigMap/flux-system/rset/uid-1"
	// staleNote is the second step of a hand-off scenario.
	staleNote = "tenant-a's artifact goes: its namespace is stale, with the external finalizer annotation"
)

// handOffWorld is the world of upstream's TestNamespaceExternallyFinalized
// in a normal plan: ConfigMap flux-system/rset with UID uid-1 stands for the
// ResourceSet.
func handOffWorld(c *fakeCluster) {
	c.uids[inventory.ID{Kind: "ConfigMap", Namespace: "flux-system", Name: "rset"}] = "uid-1"
}

// staleTenantA returns the scenario of a namespace, tenant-a, that a plan
// finds stale after a first plan created it and tenant-b: before the second
// plan, live changes the cluster (the annotation); want is the decision on
// Namespace/tenant-a.
func staleTenantA(name, upstream string, live func(*fakeCluster), want string, next []string) swScenario {
	return swScenario{
		name: name, upstream: upstream,
		spec: func(s *Spec) {
			managed(ptr(true))(s)
			s.Artifacts = []OutputArtifact{artifactIn("test-git", "tenant-a"), artifactIn("test-git", "tenant-b")}
		},
		steps: []swStep{
			{
				want: []string{
					"Namespace/tenant-a created", "Namespace/tenant-b created",
					"ExternalArtifact/tenant-a/test-git created", "ExternalArtifact/tenant-b/test-git created",
				},
				namespaces: map[string]nsWant{"tenant-a": {labels: mine()}, "tenant-b": {labels: mine()}},
			},
			{
				note: staleNote,
				spec: func(s *Spec) { s.Artifacts = s.Artifacts[1:] },
				live: func(c *fakeCluster) { handOffWorld(c); live(c) },
				want: []string{
					"Namespace/tenant-b unchanged", "ExternalArtifact/tenant-b/test-git unchanged",
					"ExternalArtifact/tenant-a/test-git deleted (no longer desired)",
					want,
				},
				namespaces: map[string]nsWant{"tenant-b": {labels: mine()}},
				next:       next,
			},
		},
	}
}

var remaining = []string{"Namespace/tenant-b", "ExternalArtifact/tenant-b/test-git"}

// finalizerScenarios translate artifactgenerator_externalfinalizer_test.go.
var finalizerScenarios = []swScenario{
	{
		name:     "desired metadata: no annotations",
		upstream: "TestValidateNamespaceMetadataExternalFinalizer (nil labels and annotations)",
		spec:     managed(nil),
		steps: []swStep{{
			want:       []string{"Namespace/tenant-a created", "ExternalArtifact/tenant-a/test-git created"},
			namespaces: map[string]nsWant{"tenant-a": {labels: mine()}},
		}},
	},
	{
		name:     "desired metadata: other annotations",
		upstream: "TestValidateNamespaceMetadataExternalFinalizer (owner: platform)",
		spec: func(s *Spec) {
			managed(nil)(s)
			s.CommonMetadata = &nsmeta.Metadata{Annotations: map[string]string{"owner": "platform"}}
		},
		steps: []swStep{{
			want:       []string{"Namespace/tenant-a created", "ExternalArtifact/tenant-a/test-git created"},
			namespaces: map[string]nsWant{"tenant-a": {labels: mine(), annotations: map[string]string{"owner": "platform"}}},
		}},
	},
	{
		name:     "desired metadata: the external finalizer from an operation",
		upstream: "TestValidateNamespaceMetadataExternalFinalizer (the annotation set)",
		// Upstream checks the final metadata when it reconciles; a from
		// operation is part of the spec, so Compile refuses it.
		spec: func(s *Spec) {
			managed(nil)(s)
			s.ManagedNamespaces.Metadata = &NamespaceMetadata{From: []nsmeta.Operation{{Strategy: nsmeta.Override, Namespace: "*",
				Metadata: nsmeta.Metadata{Annotations: map[string]string{finalizer.Annotation: "fluxcd.controlplane.io/v1/ResourceSet//tenants/uid"}}}}}
		},
		compileErrs: []string{"spec.managedNamespaces.metadata.from[0].annotations[" + finalizer.Annotation + "]: the key is reserved for external finalizers"},
	},
	{
		name:     "desired metadata: the external finalizer empty",
		upstream: "TestValidateNamespaceMetadataExternalFinalizer (an empty value is ignored)",
		spec: func(s *Spec) {
			managed(nil)(s)
			s.ManagedNamespaces.Metadata = &NamespaceMetadata{From: []nsmeta.Operation{{Strategy: nsmeta.Override, Namespace: "*",
				Metadata: nsmeta.Metadata{Annotations: map[string]string{finalizer.Annotation: ""}}}}}
		},
		steps: []swStep{{
			want:       []string{"Namespace/tenant-a created", "ExternalArtifact/tenant-a/test-git created"},
			namespaces: map[string]nsWant{"tenant-a": {labels: mine(), annotations: map[string]string{finalizer.Annotation: ""}}},
		}},
	},
	{
		name:     "desired metadata: the external finalizer in commonMetadata",
		upstream: "TestArtifactGeneratorReconciler_ManagedNamespacesExternalFinalizerDesiredState",
		// Upstream's API accepts it and every reconcile fails (Ready
		// False, ReconciliationFailed) with an error naming the
		// annotation, and no namespace is created; here Compile refuses
		// it, so nothing is planned either.
		spec: func(s *Spec) {
			managed(nil)(s)
			s.CommonMetadata = &nsmeta.Metadata{Annotations: map[string]string{finalizer.Annotation: "/v1/ConfigMap/flux-system/rset/uid"}}
		},
		compileErrs: []string{"spec.commonMetadata.annotations[" + finalizer.Annotation + "]: the key is reserved for external finalizers"},
	},

	// TestNamespaceExternallyFinalized, in a normal plan: a stale namespace.
	staleTenantA("stale namespace: no annotation", "TestNamespaceExternallyFinalized (without the annotation)",
		func(*fakeCluster) {},
		"Namespace/tenant-a deleted (no longer desired; no external finalizer)", remaining),
	func() swScenario {
		sc := staleTenantA("stale namespace: a matching reference", "TestNamespaceExternallyFinalized (a matching reference hands over the finalization)",
			annotate("tenant-a", map[string]string{finalizer.Annotation: rsetRef}),
			"Namespace/tenant-a kept (handed off to v1/ConfigMap/flux-system/rset (uid uid-1); kept in the inventory while the hand-off holds)",
			append([]string{"Namespace/tenant-a"}, remaining...))
		sc.differs = "| a handed-off namespace in a normal pass | untracked once its deletion is skipped |"
		sc.steps[1].upstream = []string{"Namespace/tenant-a not deleted, and dropped from the inventory"}
		return sc
	}(),
	staleTenantA("stale namespace: a UID mismatch", "TestNamespaceExternallyFinalized (a UID mismatch keeps the controller accountable)",
		annotate("tenant-a", map[string]string{finalizer.Annotation: "/v1/ConfigMap/flux-system/rset/uid-2"}),
		`Namespace/tenant-a deleted (no longer desired; external finalizer v1/ConfigMap/flux-system/rset has uid "uid-1", not "uid-2": it was recreated and may not track the namespace)`, remaining),
	staleTenantA("stale namespace: a malformed value", "TestNamespaceExternallyFinalized (a malformed value keeps the controller accountable)",
		annotate("tenant-a", map[string]string{finalizer.Annotation: "self"}),
		`Namespace/tenant-a deleted (no longer desired; external finalizer "self" was never stamped with a reference)`, remaining),
	staleTenantA("stale namespace: a missing object", "TestNamespaceExternallyFinalized (a missing object keeps the controller accountable)",
		annotate("tenant-a", map[string]string{finalizer.Annotation: "/v1/ConfigMap/flux-system/missing/uid-1"}),
		"Namespace/tenant-a deleted (no longer desired; external finalizer v1/ConfigMap/flux-system/missing (uid uid-1) not found)", remaining),
	func() swScenario {
		sc := staleTenantA("stale namespace: already gone", "TestNamespaceExternallyFinalized (a missing namespace is treated as already gone)",
			func(c *fakeCluster) {
				for id := range c.objects {
					if id.Name == "tenant-a" || id.Namespace == "tenant-a" {
						delete(c.objects, id)
					}
				}
			},
			"Namespace/tenant-a deleted (no longer desired; not found in the cluster)", remaining)
		// The namespace took its artifact along.
		sc.steps[1].want[2] = "ExternalArtifact/tenant-a/test-git deleted (no longer desired; not found in the cluster)"
		return sc
	}(),

	{
		name:     "generator deleted: the hand-off holds",
		upstream: "TestArtifactGeneratorReconciler_ManagedNamespacesExternalFinalizer",
		spec:     managed(ptr(true)),
		steps: []swStep{
			{want: []string{"Namespace/tenant-a created", "ExternalArtifact/tenant-a/test-git created"},
				namespaces: map[string]nsWant{"tenant-a": {labels: mine()}}},
			{
				note: "the namespace is handed over: the finalizer goes and the namespace is not deleted", finalize: true,
				live: func(c *fakeCluster) {
					c.uids[inventory.ID{Kind: "ConfigMap", Namespace: swNS, Name: "test-finalizer"}] = "fin-uid"
					annotate("tenant-a", map[string]string{finalizer.Annotation: "/v1/ConfigMap/" + swNS + "/test-finalizer/fin-uid"})(c)
				},
				want: []string{gitGone, "Namespace/tenant-a released (handed off to v1/ConfigMap/flux-system/test-finalizer (uid fin-uid); released: the generator is deleted)"},
				next: []string{},
			},
		},
	},
	{
		name:     "generator deleted: the hand-off object does not exist",
		upstream: "TestArtifactGeneratorReconciler_ManagedNamespacesExternalFinalizerNotFound",
		spec:     managed(ptr(true)),
		steps: []swStep{
			{want: []string{"Namespace/tenant-a created", "ExternalArtifact/tenant-a/test-git created"},
				namespaces: map[string]nsWant{"tenant-a": {labels: mine()}}},
			{
				note: "the controller stays accountable and deletes the namespace", finalize: true,
				live: annotate("tenant-a", map[string]string{finalizer.Annotation: "/v1/ConfigMap/flux-system/missing-object/00000000-0000-0000-0000-000000000000"}),
				want: []string{gitGone, "Namespace/tenant-a deleted (the generator is deleted; external finalizer v1/ConfigMap/flux-system/missing-object (uid 00000000-0000-0000-0000-000000000000) not found)"},
				next: []string{},
			},
		},
	},
}

// TestUpstreamExternalFinalizer runs the translated tests of
// source-watcher's artifactgenerator_externalfinalizer_test.go.
func TestUpstreamExternalFinalizer(t *testing.T) {
	t.Parallel()
	runScenarios(t, finalizerScenarios)
}
