package generator

import (
	"testing"

	"github.com/tenantkit/tenantkit/inventory"
	"github.com/tenantkit/tenantkit/nsmeta"
)

// The upstream tests translated here and in upstream_finalizer_test.go,
// upstream_inputs_test.go and upstream_inventory_test.go, on the harness of
// upstream_harness_test.go: source-watcher v2.3's tests (commit 8b7daa57;
// the inputs tests at f0855577) of namespaces, external finalizers, the
// inventory, finalizing and NamespaceMetadata inputs, every test function,
// and the tenantkit test that translates it. A scenario of
// TestUpstreamNamespace (N), TestUpstreamExternalFinalizer (F),
// TestUpstreamInputs (I) or TestUpstreamInventory (V) is named in quotes;
// SKIP marks a known failure kept as data; "differs" a difference that
// docs/differences.md lists, where the case states upstream's outcome too.
//
// artifactgenerator_namespace_test.go
//
//	 1 TestNamespaceApplyOptions                          N "apply options: exclusions, IfNotPresent, Merge"; TestLiveState
//	                                                     (the field managers the apply cleans up are the embedder's: not translated)
//	 2 TestNamespaceMetadata                              N "metadata pipeline: common, from in order, final labels", "... Reset"
//	 3 _CrossNamespace                                    N "cross namespace"
//	 4 _CrossNamespacePathPattern                         N "cross namespace, path pattern"
//	 5 _DefaultServiceAccount                             N "default service account" (the impersonation is the embedder's)
//	 6 _ServiceAccountSameNamespace                       N "service account, artifacts in the generator's namespace"
//	 7 _ServiceAccountSameNamespaceDenied                 not translated: RBAC refusing the embedder's apply
//	 8 _DefaultServiceAccountSameNamespace                not translated: which account the embedder impersonates
//	 9 _OwnershipConflict                                 N "ownership conflict on ExternalArtifacts: created with this generator's label",
//	                                                     "... reported" (the events are the embedder's: examples/controller's TestConflictEvents)
//	10 _CrossNamespaceAccessDenied                        not translated: RBAC refusing the embedder's apply
//	11 _ManagedNamespaces                                 N "managed namespaces: create, drift, update, prune on deletion"; TestLiveState, TestFinalize
//	12 _ManagedNamespacesMetadata                         N "managed namespaces: from operations"
//	13 _ManagedNamespacesAdopt                            N "managed namespaces: adopt"
//	14 _ManagedNamespacesTakeover                         N "managed namespaces: take over"
//	15 _ManagedNamespacesNoPrune                          N "managed namespaces: prune false"
//	16 _ManagedNamespacesReconcileDisabled                N "managed namespaces: reconcile disabled on the live namespace"
//	17 _ManagedNamespacesIgnore                           N "managed namespaces: ssa Ignore on the live namespace"
//	18 _ManagedNamespacesPruneDisabled                    N "managed namespaces: prune disabled on the live namespace"
//	19 _ManagedNamespacesIfNotPresent                     N "managed namespaces: IfNotPresent"
//	20 _ManagedNamespacesMerge                            N "managed namespaces: ssa Merge"
//	21 _ManagedNamespacesPathPattern                      N "managed namespaces: path pattern, a directory removed"
//	22 _ManagedNamespacesImpersonation                    N "managed namespaces: impersonation" (the ClusterRole is the embedder's)
//	23 _ManagedNamespacesPruneRetry                       N "managed namespaces: a namespace deletion that fails is retried"
//
// artifactgenerator_externalfinalizer_test.go
//
//	24 TestParseExternalFinalizerRef                      TestUpstreamParseExternalFinalizerRef; package finalizer's TestParse
//	25 TestValidateNamespaceMetadataExternalFinalizer     F "desired metadata: no annotations", "... other annotations",
//	                                                     "... the external finalizer from an operation", "... the external finalizer empty"
//	26 TestNamespaceExternallyFinalized                   F "stale namespace: ..." (six, in a plan; "a matching reference" differs);
//	                                                     TestFinalize (the same values when the generator is deleted)
//	27 _ManagedNamespacesExternalFinalizer                F "generator deleted: the hand-off holds"
//	28 _ManagedNamespacesExternalFinalizerNotFound        F "generator deleted: the hand-off object does not exist"
//	29 _ManagedNamespacesExternalFinalizerDesiredState    F "desired metadata: the external finalizer in commonMetadata"
//
// artifactgenerator_inventory_test.go
//
//	30 TestFindOrphanedReferences                         TestUpstreamFindOrphanedReferences (upstream's digests differ); TestOrphans;
//	                                                     V "an inventory source-watcher wrote with kind-less entries and short digests" (differs)
//
// artifactgenerator_inputs_test.go
//
//	31 TestResolveLocalSourcePath                         I "resolve: ..." (six)
//	32 TestLoadExportedInputs                             I "load: exports inputs", "load: missing file" (differs)
//	33 TestFilterNamespaceMetadata                        TestUpstreamSchema (spec_test.go); package nsmeta's TestUpstreamCases
//	34 TestNamespaceMetadataFromSource                    TestUpstreamNamespaceMetadataFromSource (spec_test.go); package nsmeta's TestUpstreamCases
//	35 _ExportedInputs                                    I "exported inputs on the ExternalArtifact"; TestArtifactInputs (from the artifact)
//
// artifactgenerator_finalize_test.go (and its older copy, artifactgenerator_controller_finalize_test.go)
//
//	36 TestResourceSetReconciler_Finalize                 V "generator deleted before it built anything"
//	37 TestResourceSetReconciler_Finalize_Disabled        V "generator deleted before it built anything" (the generator's own
//	                                                     reconcile: disabled is the embedder's)
//
// 37 upstream tests: 34 translated, 3 not (they test RBAC and impersonation,
// which are the embedder's). All 34 hold in full; none is skipped. Three
// cases assert a documented difference and upstream's outcome (26, 30, 32). No
// test in these files uses a fromSource.path of "@artifact/...".

const (
	reconcileKey = "source.extensions.fluxcd.io/reconcile"
	ssaKey       = "source.extensions.fluxcd.io/ssa"
	pruneKey     = "source.extensions.fluxcd.io/prune"
	// existing is what Kubernetes puts on every namespace it creates.
	existingLabel = "kubernetes.io/metadata.name"
	notApplied    = "not applied, still tracked"
	gitGone       = "ExternalArtifact/tenant-a/test-git deleted (the generator is deleted)"
)

// liveNS returns a live change that makes namespace name exist with the
// given labels and annotations, as testEnv.CreateNamespace and an Update
// leave it.
func liveNS(name string, labels, annotations map[string]string) func(*fakeCluster) {
	return func(c *fakeCluster) {
		id := inventory.ID{Kind: "Namespace", Name: name}
		c.objects[id] = Object{ID: id, Labels: with(labels, existingLabel, name), Annotations: annotations}
	}
}

// annotate replaces the annotations of the live namespace name, as
// upstream's ns.SetAnnotations and Update do.
func annotate(name string, annotations map[string]string) func(*fakeCluster) {
	return func(c *fakeCluster) {
		id := inventory.ID{Kind: "Namespace", Name: name}
		o := c.objects[id]
		o.Annotations = annotations
		c.objects[id] = o
	}
}

// artifactIn returns an artifact like swSpec's, named name, in namespace ns.
func artifactIn(name, ns string) OutputArtifact {
	return OutputArtifact{Name: name, Namespace: ns, Copy: []CopyOperation{{From: "@git/**", To: "@artifact/"}}}
}

// metadataOps is the spec of upstream's TestNamespaceMetadata: common
// metadata, then four from operations, over two tenants.
func metadataOps(s *Spec) {
	s.CommonMetadata = &nsmeta.Metadata{
		Labels:      map[string]string{"common": "base", "team": "platform"},
		Annotations: map[string]string{"owner": "platform", "preserved": "common"},
	}
	managed(nil)(s)
	s.ManagedNamespaces.Metadata = &NamespaceMetadata{From: []nsmeta.Operation{
		{Strategy: nsmeta.Override, Namespace: "*", Metadata: nsmeta.Metadata{
			Labels: map[string]string{"scope": "global", "team": "all"}, Annotations: map[string]string{"scope": "global"}}},
		{Strategy: nsmeta.Merge, Namespace: "tenant-a", Metadata: nsmeta.Metadata{
			Labels: map[string]string{"scope": "ignored", "tier": "gold"}, Annotations: map[string]string{"owner": "ignored"}}},
		{Strategy: nsmeta.Override, Namespace: "tenant-a", Metadata: nsmeta.Metadata{Labels: map[string]string{"tier": "silver"}}},
		{Strategy: nsmeta.Override, Namespace: "tenant-a", Metadata: nsmeta.Metadata{Labels: map[string]string{GeneratorLabel: "spoofed"}}},
	}}
	s.Artifacts = []OutputArtifact{artifactIn("test-git", "tenant-a"), artifactIn("test-git", "tenant-b")}
}

// namespaceScenarios translate artifactgenerator_namespace_test.go.
var namespaceScenarios = []swScenario{
	{
		name:     "apply options: exclusions, IfNotPresent, Merge",
		upstream: "TestNamespaceApplyOptions",
		// The selectors of the apply options, each on one live namespace:
		// ExclusionSelector (reconcile: disabled, ssa: Ignore) and
		// IfNotPresentSelector leave the namespace alone; ssa: Merge (the
		// Cleanup exclusion) is applied. The field managers that the apply
		// cleans up are the embedder's server-side apply: not translated.
		spec: func(s *Spec) {
			managed(nil)(s)
			s.Artifacts = []OutputArtifact{artifactIn("a", "ns-disabled"), artifactIn("a", "ns-ignore"), artifactIn("a", "ns-ifnotpresent"), artifactIn("a", "ns-merge")}
		},
		steps: []swStep{{
			live: func(c *fakeCluster) {
				liveNS("ns-disabled", nil, map[string]string{reconcileKey: "disabled"})(c)
				liveNS("ns-ignore", nil, map[string]string{ssaKey: "Ignore"})(c)
				liveNS("ns-ifnotpresent", nil, map[string]string{ssaKey: "IfNotPresent"})(c)
				liveNS("ns-merge", nil, map[string]string{ssaKey: "Merge"})(c)
			},
			want: []string{
				"Namespace/ns-disabled unchanged (reconciliation is disabled on the live namespace (annotation " + reconcileKey + ": disabled); " + notApplied + ")",
				"Namespace/ns-ifnotpresent unchanged (the namespace exists and is applied only if absent (annotation " + ssaKey + ": IfNotPresent on the live namespace); " + notApplied + ")",
				"Namespace/ns-ignore unchanged (server-side apply ignores it on the live namespace (annotation " + ssaKey + ": Ignore); " + notApplied + ")",
				"Namespace/ns-merge created (adopted: the namespace exists and no generator manages it)",
				"ExternalArtifact/ns-disabled/a created",
				"ExternalArtifact/ns-ifnotpresent/a created",
				"ExternalArtifact/ns-ignore/a created",
				"ExternalArtifact/ns-merge/a created",
			},
			namespaces: map[string]nsWant{"ns-merge": {labels: mine(), conflict: "Adopted"}},
			warnings:   []string{"Adopted: namespace ns-merge is not managed by any generator and is adopted"},
		}},
	},
	{
		name:     "metadata pipeline: common, from in order, final labels",
		upstream: "TestNamespaceMetadata (Override, Merge, Override, spoofed generator label)",
		spec:     metadataOps,
		steps: []swStep{{
			note: "tenant-b gets the '*' operation only; tenant-a every matching one, in order; the generator label is not overridden",
			want: []string{
				"Namespace/tenant-a created", "Namespace/tenant-b created",
				"ExternalArtifact/tenant-a/test-git created", "ExternalArtifact/tenant-b/test-git created",
			},
			namespaces: map[string]nsWant{
				"tenant-a": {
					labels:      mine("common", "base", "team", "all", "scope", "global", "tier", "silver"),
					annotations: map[string]string{"owner": "platform", "preserved": "common", "scope": "global"},
				},
				"tenant-b": {
					labels:      mine("common", "base", "team", "all", "scope", "global"),
					annotations: map[string]string{"owner": "platform", "preserved": "common", "scope": "global"},
				},
			},
		}},
	},
	{
		name:     "metadata pipeline: Reset",
		upstream: "TestNamespaceMetadata (Reset clears the metadata built so far)",
		spec: func(s *Spec) {
			metadataOps(s)
			s.ManagedNamespaces.Metadata.From = []nsmeta.Operation{{Strategy: nsmeta.Reset, Namespace: "*", Metadata: nsmeta.Metadata{
				Labels: map[string]string{"reset": "true"}, Annotations: map[string]string{"reset": "true"}}}}
		},
		steps: []swStep{{
			want: []string{
				"Namespace/tenant-a created", "Namespace/tenant-b created",
				"ExternalArtifact/tenant-a/test-git created", "ExternalArtifact/tenant-b/test-git created",
			},
			namespaces: map[string]nsWant{
				"tenant-a": {labels: mine("reset", "true"), annotations: map[string]string{"reset": "true"}},
				"tenant-b": {labels: mine("reset", "true"), annotations: map[string]string{"reset": "true"}},
			},
		}},
	},
	{
		name:     "cross namespace",
		upstream: "TestArtifactGeneratorReconciler_CrossNamespace",
		// The impersonated service account and its RoleBinding are the
		// embedder's; the plan places the artifact in the target namespace
		// and Finalize deletes it there.
		spec: func(s *Spec) { s.ServiceAccountName = "artifact-generator" },
		steps: []swStep{
			{want: []string{"ExternalArtifact/tenant-a/test-git created"}, next: []string{"ExternalArtifact/tenant-a/test-git"}},
			{note: "deleting the generator removes the artifact from the target namespace", finalize: true,
				want: []string{gitGone}, next: []string{}},
		},
	},
	{
		name:     "cross namespace, path pattern",
		upstream: "TestArtifactGeneratorReconciler_CrossNamespacePathPattern",
		spec: func(s *Spec) {
			s.ServiceAccountName = "artifact-generator-pp"
			s.PathPattern = "@git/apps/{tenant}"
			s.Artifacts = []OutputArtifact{{Name: "{tenant}", Namespace: "{tenant}", Copy: []CopyOperation{{From: "@git/apps/{tenant}/**", To: "@artifact/"}}}}
		},
		files: map[string]string{"apps/tenant-a/app.yaml": swConfigMap, "apps/tenant-b/app.yaml": swConfigMap},
		steps: []swStep{
			{
				note: "the captured directory names are the target namespaces",
				want: []string{"ExternalArtifact/tenant-a/tenant-a created", "ExternalArtifact/tenant-b/tenant-b created"},
				next: []string{"ExternalArtifact/tenant-a/tenant-a", "ExternalArtifact/tenant-b/tenant-b"},
			},
			{note: "deletion in prune order, the reverse of apply order", finalize: true, want: []string{
				"ExternalArtifact/tenant-b/tenant-b deleted (the generator is deleted)",
				"ExternalArtifact/tenant-a/tenant-a deleted (the generator is deleted)",
			}, next: []string{}},
		},
	},
	{
		name:     "default service account",
		upstream: "TestArtifactGeneratorReconciler_DefaultServiceAccount",
		// Which account the embedder impersonates is its own; the
		// spec.namespaces shape needs none, so the spec compiles with the
		// controller's default and plans the artifact.
		opts: []Option{WithDefaultServiceAccount("artifact-generator-default")},
		steps: []swStep{{
			want: []string{"ExternalArtifact/tenant-a/test-git created"},
		}},
	},
	{
		name:     "service account, artifacts in the generator's namespace",
		upstream: "TestArtifactGeneratorReconciler_ServiceAccountSameNamespace",
		// An artifact without a namespace, and one that names the
		// generator's namespace, both land there.
		spec: func(s *Spec) {
			s.ServiceAccountName = "test-agns-same-sa"
			s.Artifacts = []OutputArtifact{artifactIn("test-git", ""), artifactIn("test-git-same-ns", swNS)}
		},
		steps: []swStep{{
			want: []string{"ExternalArtifact/flux-system/test-git created", "ExternalArtifact/flux-system/test-git-same-ns created"},
			next: []string{"ExternalArtifact/flux-system/test-git", "ExternalArtifact/flux-system/test-git-same-ns"},
		}},
	},
	{
		name:     "ownership conflict on ExternalArtifacts: created with this generator's label",
		upstream: "TestArtifactGeneratorReconciler_OwnershipConflict (the artifacts are taken over)",
		spec: func(s *Spec) {
			s.ServiceAccountName = "artifact-generator-owner"
			s.Artifacts = []OutputArtifact{artifactIn("test-git", "tenant-a"), artifactIn("test-git-second", "tenant-a")}
		},
		steps: []swStep{{
			live: liveArtifacts(map[string]string{GeneratorLabel: otherGen}, "test-git", "test-git-second"),
			want: []string{
				"ExternalArtifact/tenant-a/test-git created (taken over from generator " + otherGen + " (label " + GeneratorLabel + "))",
				"ExternalArtifact/tenant-a/test-git-second created (taken over from generator " + otherGen + " (label " + GeneratorLabel + "))",
			},
			warnings: []string{
				"OwnershipConflict: ExternalArtifact tenant-a/test-git is managed by generator " + otherGen + " and is taken over",
				"OwnershipConflict: ExternalArtifact tenant-a/test-git-second is managed by generator " + otherGen + " and is taken over",
			},
			artifacts: map[string]map[string]string{
				"ExternalArtifact/tenant-a/test-git":        {GeneratorLabel: swUID, managedBy: "source-watcher"},
				"ExternalArtifact/tenant-a/test-git-second": {GeneratorLabel: swUID, managedBy: "source-watcher"},
			},
		}},
	},
	{
		name:     "ownership conflict on ExternalArtifacts: reported",
		upstream: "TestArtifactGeneratorReconciler_OwnershipConflict (one OwnershipConflict warning per artifact, one summary)",
		spec: func(s *Spec) {
			s.Artifacts = []OutputArtifact{artifactIn("test-git", "tenant-a"), artifactIn("test-git-second", "tenant-a")}
		},
		steps: []swStep{
			{
				note: "each artifact is taken over: Conflict says OwnershipConflict (the embedder's Warning event on it), " +
					"a warning each (the embedder counts them for the summary event on the generator)",
				live: liveArtifacts(map[string]string{GeneratorLabel: otherGen}, "test-git", "test-git-second"),
				want: []string{
					"ExternalArtifact/tenant-a/test-git created (taken over from generator " + otherGen + " (label " + GeneratorLabel + "))",
					"ExternalArtifact/tenant-a/test-git-second created (taken over from generator " + otherGen + " (label " + GeneratorLabel + "))",
				},
				warnings: []string{
					"OwnershipConflict: ExternalArtifact tenant-a/test-git is managed by generator " + otherGen + " and is taken over",
					"OwnershipConflict: ExternalArtifact tenant-a/test-git-second is managed by generator " + otherGen + " and is taken over",
				},
				conflicts: map[string]string{
					"ExternalArtifact/tenant-a/test-git":        "OwnershipConflict",
					"ExternalArtifact/tenant-a/test-git-second": "OwnershipConflict",
				},
				next: []string{"ExternalArtifact/tenant-a/test-git", "ExternalArtifact/tenant-a/test-git-second"},
			},
			{
				note:      "now this generator's: no conflict, no warning",
				want:      []string{"ExternalArtifact/tenant-a/test-git unchanged", "ExternalArtifact/tenant-a/test-git-second unchanged"},
				conflicts: map[string]string{},
			},
			{
				note: "the other generator relabels one it rendered too: taken back, an update (its label changes), warned again, " +
					"as source-watcher warns on every apply that takes an artifact over",
				live: liveArtifacts(map[string]string{GeneratorLabel: otherGen}, "test-git"),
				want: []string{
					"ExternalArtifact/tenant-a/test-git configured (taken over from generator " + otherGen + " (label " + GeneratorLabel + "))",
					"ExternalArtifact/tenant-a/test-git-second unchanged",
				},
				warnings:  []string{"OwnershipConflict: ExternalArtifact tenant-a/test-git is managed by generator " + otherGen + " and is taken over"},
				conflicts: map[string]string{"ExternalArtifact/tenant-a/test-git": "OwnershipConflict"},
			},
		},
	},
	{
		name:     "managed namespaces: create, drift, update, prune on deletion",
		upstream: "TestArtifactGeneratorReconciler_ManagedNamespaces",
		spec: func(s *Spec) {
			managed(ptr(true))(s)
			s.CommonMetadata = &nsmeta.Metadata{Labels: map[string]string{"team": "platform"}, Annotations: map[string]string{"owner": "platform"}}
		},
		steps: []swStep{
			{
				note:       "the namespace is created with the common metadata and the controller's labels; the inventory tracks it and the artifact",
				want:       []string{"Namespace/tenant-a created", "ExternalArtifact/tenant-a/test-git created"},
				namespaces: map[string]nsWant{"tenant-a": {labels: mine("team", "platform"), annotations: map[string]string{"owner": "platform"}}},
				next:       []string{"Namespace/tenant-a", "ExternalArtifact/tenant-a/test-git"},
			},
			{
				note: "metadata drift on a managed namespace is corrected",
				live: func(c *fakeCluster) {
					id := inventory.ID{Kind: "Namespace", Name: "tenant-a"}
					o := c.objects[id]
					o.Labels = with(o.Labels, "team", "changed")
					c.objects[id] = o
				},
				want: []string{
					"Namespace/tenant-a configured (drift: live metadata has another value for label team)",
					"ExternalArtifact/tenant-a/test-git unchanged",
				},
				namespaces: map[string]nsWant{"tenant-a": {labels: mine("team", "platform"), annotations: map[string]string{"owner": "platform"}}},
			},
			{
				note: "changing the desired metadata is a namespace update",
				spec: func(s *Spec) { s.CommonMetadata.Labels["tier"] = "gold" },
				want: []string{"Namespace/tenant-a configured", "ExternalArtifact/tenant-a/test-git unchanged"},
				namespaces: map[string]nsWant{"tenant-a": {
					labels: mine("team", "platform", "tier", "gold"), annotations: map[string]string{"owner": "platform"}}},
			},
			{
				note: "deleting the generator prunes the managed namespace", finalize: true,
				want: []string{gitGone, "Namespace/tenant-a deleted (the generator is deleted; no external finalizer)"},
				next: []string{},
			},
		},
	},
	{
		name:     "managed namespaces: from operations",
		upstream: "TestArtifactGeneratorReconciler_ManagedNamespacesMetadata",
		spec: func(s *Spec) {
			s.CommonMetadata = &nsmeta.Metadata{Labels: map[string]string{"common": "base", "team": "platform"}, Annotations: map[string]string{"owner": "platform"}}
			managed(nil)(s)
			s.ManagedNamespaces.Metadata = &NamespaceMetadata{From: []nsmeta.Operation{
				{Strategy: nsmeta.Override, Namespace: "*", Metadata: nsmeta.Metadata{Labels: map[string]string{"managed": "true"}, Annotations: map[string]string{"scope": "all"}}},
				{Strategy: nsmeta.Override, Namespace: "tenant-a", Metadata: nsmeta.Metadata{Labels: map[string]string{"team": "tenant"}, Annotations: map[string]string{"owner": "tenant"}}},
			}}
		},
		steps: []swStep{{
			want: []string{"Namespace/tenant-a created", "ExternalArtifact/tenant-a/test-git created"},
			namespaces: map[string]nsWant{"tenant-a": {
				labels:      mine("common", "base", "team", "tenant", "managed", "true"),
				annotations: map[string]string{"owner": "tenant", "scope": "all"},
			}},
		}},
	},
	{
		name:     "managed namespaces: adopt",
		upstream: "TestArtifactGeneratorReconciler_ManagedNamespacesAdopt",
		spec: func(s *Spec) {
			managed(nil)(s)
			s.CommonMetadata = &nsmeta.Metadata{Labels: map[string]string{"team": "platform"}}
		},
		steps: []swStep{{
			note: "the existing namespace is adopted and labelled, tracked with its digest, and the adoption is a warning",
			live: liveNS("tenant-a", nil, nil),
			want: []string{
				"Namespace/tenant-a created (adopted: the namespace exists and no generator manages it)",
				"ExternalArtifact/tenant-a/test-git created",
			},
			namespaces: map[string]nsWant{"tenant-a": {labels: mine("team", "platform"), conflict: "Adopted"}},
			warnings:   []string{"Adopted: namespace tenant-a is not managed by any generator and is adopted"},
			next:       []string{"Namespace/tenant-a", "ExternalArtifact/tenant-a/test-git"},
		}},
	},
	{
		name:     "managed namespaces: take over",
		upstream: "TestArtifactGeneratorReconciler_ManagedNamespacesTakeover",
		spec:     managed(nil),
		steps: []swStep{{
			live: liveNS("tenant-a", map[string]string{GeneratorLabel: otherGen}, nil),
			want: []string{
				"Namespace/tenant-a created (taken over from generator " + otherGen + " (label " + GeneratorLabel + "))",
				"ExternalArtifact/tenant-a/test-git created",
			},
			namespaces: map[string]nsWant{"tenant-a": {labels: mine(), conflict: "OwnershipConflict"}},
			warnings:   []string{"OwnershipConflict: namespace tenant-a is managed by generator " + otherGen + " and is taken over"},
		}},
	},
	{
		name:     "managed namespaces: prune false",
		upstream: "TestArtifactGeneratorReconciler_ManagedNamespacesNoPrune",
		spec:     managed(ptr(false)),
		steps: []swStep{
			{want: []string{"Namespace/tenant-a created", "ExternalArtifact/tenant-a/test-git created"},
				namespaces: map[string]nsWant{"tenant-a": {labels: mine()}}},
			{note: "deleting the generator leaves the namespace in place", finalize: true,
				want: []string{gitGone, "Namespace/tenant-a released (namespace pruning is off)"}, next: []string{}},
		},
	},
	{
		name:     "managed namespaces: reconcile disabled on the live namespace",
		upstream: "TestArtifactGeneratorReconciler_ManagedNamespacesReconcileDisabled",
		spec: func(s *Spec) {
			managed(nil)(s)
			s.CommonMetadata = &nsmeta.Metadata{Labels: map[string]string{"team": "platform"}}
		},
		steps: []swStep{
			{
				note: "tracked but not modified, and not reported as adopted",
				live: liveNS("tenant-a", nil, map[string]string{reconcileKey: "disabled"}),
				want: []string{
					"Namespace/tenant-a unchanged (reconciliation is disabled on the live namespace (annotation " + reconcileKey + ": disabled); " + notApplied + ")",
					"ExternalArtifact/tenant-a/test-git created",
				},
				next: []string{"Namespace/tenant-a", "ExternalArtifact/tenant-a/test-git"},
			},
			{note: "deleting the generator leaves the namespace in place", finalize: true,
				want: []string{gitGone, "Namespace/tenant-a released (namespace pruning is off)"}, next: []string{}},
		},
	},
	{
		name:     "managed namespaces: ssa Ignore on the live namespace",
		upstream: "TestArtifactGeneratorReconciler_ManagedNamespacesIgnore",
		spec: func(s *Spec) {
			managed(nil)(s)
			s.CommonMetadata = &nsmeta.Metadata{Labels: map[string]string{"team": "platform"}}
		},
		steps: []swStep{
			{
				note: "neither labelled nor deleted",
				live: liveNS("tenant-a", nil, map[string]string{ssaKey: "Ignore"}),
				want: []string{
					"Namespace/tenant-a unchanged (server-side apply ignores it on the live namespace (annotation " + ssaKey + ": Ignore); " + notApplied + ")",
					"ExternalArtifact/tenant-a/test-git created",
				},
			},
			{finalize: true, want: []string{gitGone, "Namespace/tenant-a released (namespace pruning is off)"}, next: []string{}},
		},
	},
	{
		name:     "managed namespaces: prune disabled on the live namespace",
		upstream: "TestArtifactGeneratorReconciler_ManagedNamespacesPruneDisabled",
		spec:     managed(ptr(true)),
		steps: []swStep{
			{want: []string{"Namespace/tenant-a created", "ExternalArtifact/tenant-a/test-git created"},
				namespaces: map[string]nsWant{"tenant-a": {labels: mine()}}},
			{
				note: "protected from deletion in the cluster; deleting the generator leaves it in place", finalize: true,
				live: annotate("tenant-a", map[string]string{pruneKey: "disabled"}),
				want: []string{gitGone, "Namespace/tenant-a released (pruning is disabled on the live object (annotation " + pruneKey + ": disabled))"},
				next: []string{},
			},
		},
	},
	{
		name:     "managed namespaces: IfNotPresent",
		upstream: "TestArtifactGeneratorReconciler_ManagedNamespacesIfNotPresent",
		spec: func(s *Spec) {
			managed(nil)(s)
			s.CommonMetadata = &nsmeta.Metadata{Labels: map[string]string{"team": "platform"}}
			s.Artifacts = []OutputArtifact{artifactIn("test-git", "tenant-a"), artifactIn("test-git-new", "tenant-b")}
		},
		steps: []swStep{{
			note: "the existing namespace is not modified; the missing one is created with the common metadata",
			live: liveNS("tenant-a", nil, map[string]string{ssaKey: "IfNotPresent"}),
			want: []string{
				"Namespace/tenant-a unchanged (the namespace exists and is applied only if absent (annotation " + ssaKey + ": IfNotPresent on the live namespace); " + notApplied + ")",
				"Namespace/tenant-b created",
				"ExternalArtifact/tenant-a/test-git created",
				"ExternalArtifact/tenant-b/test-git-new created",
			},
			namespaces: map[string]nsWant{"tenant-b": {labels: mine("team", "platform")}},
		}},
	},
	{
		name:     "managed namespaces: ssa Merge",
		upstream: "TestArtifactGeneratorReconciler_ManagedNamespacesMerge",
		// Merge changes what the apply cleans up (the embedder's), not
		// whether it applies: the common metadata is applied. The live
		// namespace has no generator label, so it is adopted.
		spec: func(s *Spec) {
			managed(nil)(s)
			s.CommonMetadata = &nsmeta.Metadata{Labels: map[string]string{"team": "platform"}}
		},
		steps: []swStep{{
			live: liveNS("tenant-a", nil, map[string]string{"kubectl.kubernetes.io/last-applied-configuration": "{}", ssaKey: "Merge"}),
			want: []string{
				"Namespace/tenant-a created (adopted: the namespace exists and no generator manages it)",
				"ExternalArtifact/tenant-a/test-git created",
			},
			namespaces: map[string]nsWant{"tenant-a": {labels: mine("team", "platform"), conflict: "Adopted"}},
			warnings:   []string{"Adopted: namespace tenant-a is not managed by any generator and is adopted"},
		}},
	},
	{
		name:     "managed namespaces: path pattern, a directory removed",
		upstream: "TestArtifactGeneratorReconciler_ManagedNamespacesPathPattern",
		spec: func(s *Spec) {
			managed(ptr(true))(s)
			s.PathPattern = "@git/apps/{tenant}"
			s.Artifacts = []OutputArtifact{{Name: "{tenant}", Namespace: "{tenant}", Copy: []CopyOperation{{From: "@git/apps/{tenant}/**", To: "@artifact/"}}}}
		},
		files: map[string]string{"apps/tenant-a/app.yaml": swConfigMap, "apps/tenant-b/app.yaml": swConfigMap},
		steps: []swStep{
			{
				want: []string{
					"Namespace/tenant-a created", "Namespace/tenant-b created",
					"ExternalArtifact/tenant-a/tenant-a created", "ExternalArtifact/tenant-b/tenant-b created",
				},
				namespaces: map[string]nsWant{"tenant-a": {labels: mine()}, "tenant-b": {labels: mine()}},
			},
			{
				note:  "removing a directory prunes its managed namespace",
				files: map[string]string{"apps/tenant-a/app.yaml": swConfigMap},
				want: []string{
					"Namespace/tenant-a unchanged", "ExternalArtifact/tenant-a/tenant-a unchanged",
					"ExternalArtifact/tenant-b/tenant-b deleted (no longer desired)",
					"Namespace/tenant-b deleted (no longer desired; no external finalizer)",
				},
				namespaces: map[string]nsWant{"tenant-a": {labels: mine()}},
				next:       []string{"Namespace/tenant-a", "ExternalArtifact/tenant-a/tenant-a"},
			},
		},
	},
	{
		name:     "managed namespaces: impersonation",
		upstream: "TestArtifactGeneratorReconciler_ManagedNamespacesImpersonation",
		// The ClusterRole that lets the account manage namespaces is the
		// embedder's; the plan is the same with a service account.
		spec: func(s *Spec) {
			managed(nil)(s)
			s.ServiceAccountName = "test-mns-imp-sa"
		},
		steps: []swStep{{
			want:       []string{"Namespace/tenant-a created", "ExternalArtifact/tenant-a/test-git created"},
			namespaces: map[string]nsWant{"tenant-a": {labels: mine()}},
		}},
	},
	{
		name:     "managed namespaces: a namespace deletion that fails is retried",
		upstream: "TestArtifactGeneratorReconciler_ManagedNamespacesPruneRetry",
		// Upstream's DefaultToPruneNamespaces made its unset prune true.
		spec: func(s *Spec) {
			managed(ptr(true))(s)
			s.ServiceAccountName = "test-mns-retry-sa"
		},
		steps: []swStep{
			{want: []string{"Namespace/tenant-a created", "ExternalArtifact/tenant-a/test-git created"},
				namespaces: map[string]nsWant{"tenant-a": {labels: mine()}}},
			{
				note: "the namespace delete is forbidden: the artifact goes, the namespace stays tracked, the finalizer stays", finalize: true,
				failDeletes: map[string]bool{"Namespace/tenant-a": true},
				want:        []string{gitGone, "Namespace/tenant-a deleted (the generator is deleted; no external finalizer)"},
				next:        []string{"Namespace/tenant-a"},
			},
			{
				note: "delete granted: the retry deletes the namespace and the inventory empties", finalize: true,
				want: []string{"Namespace/tenant-a deleted (the generator is deleted; no external finalizer)"},
				next: []string{},
			},
		},
	},
}

// liveArtifacts returns a live change that creates ExternalArtifacts in
// tenant-a with the given labels.
func liveArtifacts(labels map[string]string, names ...string) func(*fakeCluster) {
	return func(c *fakeCluster) {
		for _, name := range names {
			id := artEntry("tenant-a", name).ID()
			c.objects[id] = Object{ID: id, Labels: labels}
		}
	}
}

// TestUpstreamNamespace runs the translated tests of source-watcher's
// artifactgenerator_namespace_test.go.
func TestUpstreamNamespace(t *testing.T) {
	t.Parallel()
	runScenarios(t, namespaceScenarios)
}
