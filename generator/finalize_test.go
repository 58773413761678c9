package generator

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/tenantkit/tenantkit/finalizer"
	"github.com/tenantkit/tenantkit/inventory"
)

// finalizeLines returns the decisions of a plan as change lines, in order.
func finalizeLines(p *Plan) []string {
	out := []string{}
	for _, d := range p.Decisions {
		out = append(out, d.String())
	}
	return out
}

// ids returns the identities of entries, for people, in order.
func ids(entries []inventory.Entry) []string {
	out := []string{}
	for _, e := range entries {
		out = append(out, e.ID().String())
	}
	return out
}

// TestFinalize: what deleting the generator does with each entry of its
// inventory. The cases translate source-watcher v2.3's finalize tests
// (internal/controller/artifactgenerator_finalize.go, finalizeReferences
// and deleteNamespace; artifactgenerator_namespace_test.go,
// artifactgenerator_externalfinalizer_test.go,
// artifactgenerator_finalize_test.go,
// artifactgenerator_controller_finalize_test.go), named in each case; where
// tenantkit differs on purpose, the case says how.
func TestFinalize(t *testing.T) {
	t.Parallel()
	const (
		otherUID = "uid-b"
		cmRef    = "/v1/ConfigMap/flux-system/test-finalizer/cm-uid"
		rsRef    = "fluxcd.controlplane.io/v1/ResourceSet/flux-system/tenants/rs-uid"
		gone     = "ExternalArtifact/tenant-a/app deleted (the generator is deleted)"
	)
	cm := inventory.ID{Kind: "ConfigMap", Namespace: "flux-system", Name: "test-finalizer"}
	owned := map[string]string{GeneratorLabel: testUID}
	annotated := func(annotations map[string]string) func(*fakeCluster) {
		return func(c *fakeCluster) {
			o := c.objects[nsEntry("tenant-a").ID()]
			o.Annotations = annotations
			c.objects[nsEntry("tenant-a").ID()] = o
		}
	}
	handOff := func(ref string) func(*fakeCluster) {
		return func(c *fakeCluster) {
			annotated(map[string]string{finalizer.Annotation: ref})(c)
			c.uids = map[inventory.ID]string{cm: "cm-uid"}
		}
	}
	tests := []struct {
		name     string
		spec     func(*Spec)
		opts     []Option
		previous []inventory.Entry // default: Namespace/tenant-a and ExternalArtifact/tenant-a/app
		cluster  func(*fakeCluster)
		parts    func(*Cluster)
		want     []string // the decisions, as change lines, in order
		next     []string // the inventory once every deletion is confirmed
	}{
		// TestArtifactGeneratorReconciler_ManagedNamespaces: "Deleting the
		// ArtifactGenerator prunes the managed namespace"; _CrossNamespace:
		// the ExternalArtifact is removed.
		{name: "prune on: everything deleted, namespaces last",
			want: []string{gone, "Namespace/tenant-a deleted (the generator is deleted; no external finalizer)"}},
		// _ManagedNamespacesNoPrune: the namespace is left in place.
		{name: "prune off: namespace released", spec: func(s *Spec) { s.ManagedNamespaces.Prune = new(bool) },
			want: []string{gone, "Namespace/tenant-a released (namespace pruning is off)"}},
		// finalizeReferences: !ManagesNamespaces() skips the namespace.
		{name: "namespaces not managed: released", spec: func(s *Spec) { s.ManagedNamespaces = nil },
			want: []string{gone, "Namespace/tenant-a released (namespace pruning is off)"}},
		// _ManagedNamespacesPruneDisabled.
		{name: "prune disabled on the live namespace", cluster: annotated(map[string]string{"source.extensions.fluxcd.io/prune": "Disabled"}),
			want: []string{gone, "Namespace/tenant-a released (pruning is disabled on the live object (annotation source.extensions.fluxcd.io/prune: Disabled))"}},
		// _ManagedNamespacesReconcileDisabled and _ManagedNamespacesIgnore
		// run with pruning off; deleteNamespace's exclusions release such a
		// namespace with pruning on too.
		{name: "reconcile disabled on the live namespace", cluster: annotated(map[string]string{"source.extensions.fluxcd.io/reconcile": "disabled"}),
			want: []string{gone, "Namespace/tenant-a released (reconciliation is disabled on the live object (annotation source.extensions.fluxcd.io/reconcile: disabled))"}},
		{name: "ssa Ignore on the live namespace, kustomize-controller's prefix", cluster: annotated(map[string]string{"kustomize.toolkit.fluxcd.io/ssa": "ignore"}),
			want: []string{gone, "Namespace/tenant-a released (server-side apply ignores it on the live object (annotation kustomize.toolkit.fluxcd.io/ssa: ignore))"}},
		// Difference: deleteNamespace deletes a namespace that another
		// generator took over; tenantkit releases it.
		{name: "another generator's namespace", cluster: func(c *fakeCluster) {
			c.live([]inventory.Entry{nsEntry("tenant-a")}, map[string]string{GeneratorLabel: otherUID}, nil)
		}, want: []string{gone, "Namespace/tenant-a released (applied by another generator (label " + GeneratorLabel + ": " + otherUID + "))"}},
		// _ManagedNamespacesExternalFinalizer and TestNamespaceExternallyFinalized
		// ("a matching reference hands over the finalization"): released,
		// so the finalizer goes. Difference from a normal pass, where a
		// handed-off namespace stays tracked (TestRule4LiveObject).
		{name: "hand-off holds: released", cluster: handOff(cmRef),
			want: []string{gone, "Namespace/tenant-a released (handed off to v1/ConfigMap/flux-system/test-finalizer (uid cm-uid); released: the generator is deleted)"}},
		// _ManagedNamespacesExternalFinalizerNotFound.
		{name: "hand-off object missing: deleted", cluster: handOff("/v1/ConfigMap/flux-system/missing-object/00000000-0000-0000-0000-000000000000"),
			want: []string{gone, "Namespace/tenant-a deleted (the generator is deleted; external finalizer v1/ConfigMap/flux-system/missing-object (uid 00000000-0000-0000-0000-000000000000) not found)"}},
		// TestNamespaceExternallyFinalized: "A UID mismatch (recreated
		// incarnation) keeps the controller accountable".
		{name: "hand-off UID mismatch: deleted", cluster: handOff("/v1/ConfigMap/flux-system/test-finalizer/uid-2"),
			want: []string{gone, `Namespace/tenant-a deleted (the generator is deleted; external finalizer v1/ConfigMap/flux-system/test-finalizer has uid "cm-uid", not "uid-2": it was recreated and may not track the namespace)`}},
		// TestNamespaceExternallyFinalized: "A malformed value keeps the
		// controller accountable" ("self"), and TestParseExternalFinalizerRef's
		// rejected values.
		{name: "hand-off unstamped: deleted", cluster: handOff("self"),
			want: []string{gone, `Namespace/tenant-a deleted (the generator is deleted; external finalizer "self" was never stamped with a reference)`}},
		{name: "hand-off malformed: deleted", cluster: handOff("fluxcd.controlplane.io/v1/ResourceSet/tenants/uid"),
			want: []string{gone, `Namespace/tenant-a deleted (the generator is deleted; malformed external finalizer "fluxcd.controlplane.io/v1/ResourceSet/tenants/uid": must have exactly six segments group/version/kind/namespace/name/uid)`}},
		// Difference: a reference to an object in the namespace itself
		// would hold for as long as the namespace lives; upstream hands off.
		{name: "hand-off into the namespace itself: deleted", cluster: func(c *fakeCluster) {
			handOff("/v1/ConfigMap/tenant-a/kube-root-ca.crt/ca-uid")(c)
			c.uids[inventory.ID{Kind: "ConfigMap", Namespace: "tenant-a", Name: "kube-root-ca.crt"}] = "ca-uid"
		}, want: []string{gone, "Namespace/tenant-a deleted (the generator is deleted; external finalizer v1/ConfigMap/tenant-a/kube-root-ca.crt (uid ca-uid) is not a hand-off: it is inside namespace tenant-a itself and cannot outlive it)"}},
		// Difference: WithFinalizerKinds; upstream takes any kind.
		{name: "hand-off to a kind not allowed: deleted", cluster: handOff(cmRef),
			opts: []Option{WithFinalizerKinds(schema.GroupKind{Group: "fluxcd.controlplane.io", Kind: "ResourceSet"})},
			want: []string{gone, "Namespace/tenant-a deleted (the generator is deleted; external finalizer v1/ConfigMap/flux-system/test-finalizer (uid cm-uid) is not a hand-off: kind ConfigMap is not allowed (allowed: fluxcd.controlplane.io/ResourceSet))"}},
		// namespaceExternallyFinalized returns a lookup error: the
		// namespace survives and the finalizer stays; so here.
		{name: "hand-off lookup forbidden: kept", cluster: func(c *fakeCluster) {
			handOff(rsRef)(c)
			c.lookupErr = fmt.Errorf("%w: resourcesets is forbidden", finalizer.ErrForbidden)
		}, want: []string{gone, "Namespace/tenant-a kept (guard failed: cannot look up external finalizer fluxcd.controlplane.io/v1/ResourceSet/flux-system/tenants (uid rs-uid): RBAC: get fluxcd.controlplane.io/ResourceSet in namespace flux-system is forbidden: finalizer: forbidden: resourcesets is forbidden)"},
			next: []string{"Namespace/tenant-a"}},
		{name: "hand-off lookup fails: kept", cluster: func(c *fakeCluster) {
			handOff(rsRef)(c)
			c.lookupErr = errBoom
		}, want: []string{gone, "Namespace/tenant-a kept (guard failed: cannot look up external finalizer fluxcd.controlplane.io/v1/ResourceSet/flux-system/tenants (uid rs-uid): boom: finalizer: look up fluxcd.controlplane.io/v1/ResourceSet/flux-system/tenants (uid rs-uid): boom)"},
			next: []string{"Namespace/tenant-a"}},
		// TestNamespaceExternallyFinalized: "A missing namespace is treated
		// as already gone".
		{name: "namespace already gone", cluster: func(c *fakeCluster) { delete(c.objects, nsEntry("tenant-a").ID()) },
			want: []string{gone, "Namespace/tenant-a deleted (the generator is deleted; not found in the cluster)"}},
		// Never delete when unsure.
		{name: "reading the namespace fails: kept", cluster: func(c *fakeCluster) {
			c.failing = map[inventory.ID]error{nsEntry("tenant-a").ID(): errBoom}
		}, want: []string{gone, "Namespace/tenant-a kept (guard failed: reading the live object: boom)"},
			next: []string{"Namespace/tenant-a"}},
		{name: "listing its ExternalArtifacts fails: kept", cluster: func(c *fakeCluster) { c.listErr = errBoom },
			want: []string{gone, "Namespace/tenant-a kept (guard failed: listing the namespace's ExternalArtifacts: boom)"},
			next: []string{"Namespace/tenant-a"}},
		{name: "no ObjectReader: everything kept", parts: func(c *Cluster) { c.Objects = nil },
			want: []string{"ExternalArtifact/tenant-a/app kept (the live object cannot be read (no ObjectReader))",
				"Namespace/tenant-a kept (the live object cannot be read (no ObjectReader))"},
			next: []string{"Namespace/tenant-a", "ExternalArtifact/tenant-a/app"}},
		{name: "no ArtifactLister: namespace kept", parts: func(c *Cluster) { c.Artifacts = nil },
			want: []string{gone, "Namespace/tenant-a kept (the namespace's ExternalArtifacts cannot be listed (no ArtifactLister))"},
			next: []string{"Namespace/tenant-a"}},
		// Difference: no namespace is deleted while an ExternalArtifact that
		// this finalize does not delete lives in it; upstream deletes it,
		// and another generator's artifact with it.
		{name: "another generator's ExternalArtifact lives in it: kept", cluster: func(c *fakeCluster) {
			c.live([]inventory.Entry{artEntry("tenant-a", "other")}, map[string]string{GeneratorLabel: otherUID}, nil)
		}, want: []string{gone, "Namespace/tenant-a kept (ExternalArtifact tenant-a/other (generator uid-b's) still lives in it)"},
			next: []string{"Namespace/tenant-a"}},
		{name: "an untracked ExternalArtifact lives in it: kept", cluster: func(c *fakeCluster) {
			c.live([]inventory.Entry{artEntry("tenant-a", "other")}, owned, nil)
		}, want: []string{gone, "Namespace/tenant-a kept (ExternalArtifact tenant-a/other (not tracked by this generator) still lives in it)"},
			next: []string{"Namespace/tenant-a"}},
		// Difference: source-watcher's finalizeExternalArtifact deletes an
		// ExternalArtifact without looking at it; here, as in any plan,
		// one whose live copy disables pruning or carries another
		// generator's label is released, and one that cannot be read is
		// kept (the README's safety guarantees).
		{name: "ExternalArtifact with prune disabled released", cluster: func(c *fakeCluster) {
			c.live([]inventory.Entry{artEntry("tenant-a", "app")}, owned, map[string]string{"source.extensions.fluxcd.io/prune": "disabled"})
		}, previous: []inventory.Entry{artEntry("tenant-a", "app")},
			want: []string{"ExternalArtifact/tenant-a/app released (pruning is disabled on the live object (annotation source.extensions.fluxcd.io/prune: disabled))"}},
		{name: "another generator's ExternalArtifact released", cluster: func(c *fakeCluster) {
			c.live([]inventory.Entry{artEntry("tenant-a", "app")}, map[string]string{GeneratorLabel: otherUID}, nil)
		}, previous: []inventory.Entry{artEntry("tenant-a", "app")},
			want: []string{"ExternalArtifact/tenant-a/app released (applied by another generator (label " + GeneratorLabel + ": " + otherUID + "))"}},
		{name: "ExternalArtifact that cannot be read kept", cluster: func(c *fakeCluster) {
			c.live([]inventory.Entry{artEntry("tenant-a", "app")}, owned, nil)
			c.objectErr = errBoom
		}, previous: []inventory.Entry{artEntry("tenant-a", "app")},
			want: []string{"ExternalArtifact/tenant-a/app kept (guard failed: reading the live object: boom)"},
			next: []string{"ExternalArtifact/tenant-a/app"}},
		// Difference: a protected name (Kubernetes' own namespaces and the
		// generator's) is never deleted; source-watcher skips only its own
		// namespace.
		{name: "protected names released", spec: func(s *Spec) { s.ManagedNamespaces.AllowedNames = []string{"true"} },
			previous: []inventory.Entry{nsEntry("default"), nsEntry("flux-system"), nsEntry("kube-system")},
			want: []string{
				"Namespace/kube-system released (protected namespace: never deleted)",
				"Namespace/flux-system released (protected namespace: never deleted)",
				"Namespace/default released (protected namespace: never deleted)",
			}},
		// Deleting the generator is the permission: neither the delete-all
		// refusal nor WithMaxDeletions applies.
		{name: "deletion guards do not apply", opts: []Option{WithMaxDeletions(0)},
			want: []string{gone, "Namespace/tenant-a deleted (the generator is deleted; no external finalizer)"}},
		// TestFindOrphanedReferences: entries written before the kind field
		// are ExternalArtifacts.
		{name: "an entry without kind is an ExternalArtifact",
			previous: []inventory.Entry{{Namespace: "tenant-a", Name: "app", Digest: artEntry("", "").Digest}},
			want:     []string{gone}},
		// Prune order: every ExternalArtifact before the namespaces, as
		// prune order (inventory.SortApply reversed) has them.
		{name: "several tenants", cluster: func(c *fakeCluster) {
			c.live([]inventory.Entry{nsEntry("tenant-b")}, owned, nil)
		}, previous: []inventory.Entry{nsEntry("tenant-a"), nsEntry("tenant-b"), artEntry("tenant-a", "app"), artEntry("tenant-b", "web")},
			want: []string{
				"ExternalArtifact/tenant-b/web deleted (the generator is deleted; not found in the cluster)",
				gone,
				"Namespace/tenant-b deleted (the generator is deleted; no external finalizer)",
				"Namespace/tenant-a deleted (the generator is deleted; no external finalizer)",
			}},
		// TestResourceSetReconciler_Finalize and _Finalize_Disabled: an
		// empty inventory; the finalizer goes at once.
		{name: "empty inventory", previous: []inventory.Entry{}, want: []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			spec := testSpec()
			if tt.spec != nil {
				tt.spec(&spec)
			}
			g := mustCompile(t, spec, tt.opts...)
			previous := tt.previous
			if previous == nil {
				previous = []inventory.Entry{nsEntry("tenant-a"), artEntry("tenant-a", "app")}
			}
			c := (&fakeCluster{}).live([]inventory.Entry{nsEntry("tenant-a"), artEntry("tenant-a", "app")}, owned, nil)
			if tt.cluster != nil {
				tt.cluster(c)
			}
			cl := c.cluster()
			if tt.parts != nil {
				tt.parts(&cl)
			}
			p, err := g.Finalize(context.Background(), previous, cl)
			if err != nil {
				t.Fatal(err)
			}
			if p.HasErrors() || len(p.Namespaces) > 0 || len(p.Artifacts) > 0 {
				t.Errorf("errors %v, %d namespaces and %d artifacts to apply", p.Errors, len(p.Namespaces), len(p.Artifacts))
			}
			if diff := cmp.Diff(tt.want, finalizeLines(p)); diff != "" {
				t.Errorf("decisions (-want +got):\n%s", diff)
			}
			next := tt.next
			if next == nil {
				next = []string{}
			}
			got := ids(p.Next(func(inventory.Entry) bool { return true }))
			if diff := cmp.Diff(next, got); diff != "" {
				t.Errorf("survivors (-want +got):\n%s", diff)
			}
		})
	}
}

// TestFinalizeSurvivors translates
// TestArtifactGeneratorReconciler_ManagedNamespacesPruneRetry: a deletion
// that is not confirmed survives in the inventory, so the finalizer stays;
// the next Finalize deletes it again, and once it is confirmed nothing
// survives.
func TestFinalizeSurvivors(t *testing.T) {
	t.Parallel()
	g := mustCompile(t, testSpec())
	c := (&fakeCluster{}).live([]inventory.Entry{nsEntry("tenant-a")}, map[string]string{GeneratorLabel: testUID}, nil)
	previous := []inventory.Entry{nsEntry("tenant-a"), artEntry("tenant-a", "app")}
	p, err := g.Finalize(context.Background(), previous, c.cluster())
	if err != nil {
		t.Fatal(err)
	}
	// The ExternalArtifact is deleted; deleting the namespace is refused.
	next := p.Next(func(e inventory.Entry) bool { return !e.ID().IsNamespace() })
	if diff := cmp.Diff(asStatus(nsEntry("tenant-a")), next); diff != "" {
		t.Fatalf("survivors (-want +got):\n%s", diff)
	}
	p, err = g.Finalize(context.Background(), next, c.cluster())
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"Namespace/tenant-a deleted (the generator is deleted; no external finalizer)"}
	if diff := cmp.Diff(want, finalizeLines(p)); diff != "" {
		t.Errorf("retry (-want +got):\n%s", diff)
	}
	if next := p.Next(nil); len(next) != 1 {
		t.Errorf("nothing confirmed: survivors %v, want the namespace", ids(next))
	}
	if next := p.Next(func(inventory.Entry) bool { return true }); len(next) != 0 {
		t.Errorf("survivors %v, want none", ids(next))
	}
}

// TestFinalizeInvalidInventory: an inventory that cannot be read keeps
// everything, with the error.
func TestFinalizeInvalidInventory(t *testing.T) {
	t.Parallel()
	g := mustCompile(t, testSpec())
	bad := artEntry("tenant-a", "app")
	bad.Digest = "sha256:abc"
	previous := []inventory.Entry{nsEntry("tenant-a"), bad}
	p, err := g.Finalize(context.Background(), previous, (&fakeCluster{}).cluster())
	if err != nil {
		t.Fatal(err)
	}
	if !hasError(p.Errors, "old[1].digest", "") {
		t.Errorf("errors %v, want one at old[1].digest", p.Errors)
	}
	want := []string{
		"Namespace/tenant-a kept (the inventory has errors)",
		"ExternalArtifact/tenant-a/app kept (the inventory has errors)",
	}
	if diff := cmp.Diff(want, finalizeLines(p)); diff != "" {
		t.Errorf("decisions (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(asStatus(previous...), p.Next(func(inventory.Entry) bool { return true })); diff != "" {
		t.Errorf("survivors (-want +got):\n%s", diff)
	}
}

// TestFinalizeContext: a context that ends is Finalize's error.
func TestFinalizeContext(t *testing.T) {
	t.Parallel()
	g := mustCompile(t, testSpec())
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	c := (&fakeCluster{}).live([]inventory.Entry{nsEntry("tenant-a")}, nil, nil)
	if p, err := g.Finalize(ctx, []inventory.Entry{nsEntry("tenant-a")}, c.cluster()); err == nil || p != nil {
		t.Errorf("Finalize() = %v, %v; want the context's error", p, err)
	}
}

// cancellingCluster wraps a cluster and cancels the context at its n-th
// call (counting every read: objects, artifact lists, finalizer lookups),
// then answers that call as the cluster does, or with the context's error
// when ctxErr is set. calls counts the calls.
type cancellingCluster struct {
	c      Cluster
	n      int
	ctxErr bool
	cancel context.CancelFunc
	calls  int
}

func (w *cancellingCluster) call(ctx context.Context) error {
	w.calls++
	if w.calls == w.n {
		w.cancel()
		if w.ctxErr {
			return ctx.Err()
		}
	}
	return nil
}

func (w *cancellingCluster) cluster() Cluster {
	return Cluster{
		Objects: ObjectReaderFunc(func(ctx context.Context, id inventory.ID) (Object, error) {
			if err := w.call(ctx); err != nil {
				return Object{}, err
			}
			return w.c.Objects.Object(ctx, id)
		}),
		Artifacts: ArtifactListerFunc(func(ctx context.Context, ns string) ([]Object, error) {
			if err := w.call(ctx); err != nil {
				return nil, err
			}
			return w.c.Artifacts.ExternalArtifacts(ctx, ns)
		}),
		Finalizers: finalizer.LookupFunc(func(ctx context.Context, r finalizer.Reference) (string, error) {
			if err := w.call(ctx); err != nil {
				return "", err
			}
			return w.c.Finalizers.UID(ctx, r)
		}),
	}
}

// TestContextEndsWhileReadingTheCluster: when the context ends while a
// plan or Finalize reads the cluster, at whichever read, the result is
// the context's error and no plan, as their documentation says, never a
// plan that keeps what it could not decide with a nil error (nor one that
// deletes what it decided before). Each read of a plan and of Finalize
// over live namespaces, artifacts and a hand-off cancels the context in
// turn, answering as the cluster would or with the context's error.
func TestContextEndsWhileReadingTheCluster(t *testing.T) {
	t.Parallel()
	const rs = "fluxcd.controlplane.io/v1/ResourceSet/flux-system/tenants/rs-uid"
	previous := []inventory.Entry{
		nsEntry("tenant-ok"), artEntry("tenant-ok", "app"),
		nsEntry("tenant-a"), artEntry("tenant-a", "app"),
		nsEntry("tenant-b"), artEntry("tenant-b", "app"),
	}
	live := func() *fakeCluster {
		c := (&fakeCluster{uids: map[inventory.ID]string{{Group: "fluxcd.controlplane.io", Kind: "ResourceSet", Namespace: "flux-system", Name: "tenants"}: "rs-uid"}}).
			live(previous, map[string]string{GeneratorLabel: testUID}, nil)
		c.live([]inventory.Entry{nsEntry("tenant-b")}, map[string]string{GeneratorLabel: testUID}, map[string]string{finalizer.Annotation: rs})
		return c
	}
	g := mustCompile(t, testSpec())
	run := map[string]func(ctx context.Context, c Cluster) (*Plan, error){
		"Plan": func(ctx context.Context, c Cluster) (*Plan, error) {
			return g.Plan(ctx, sources(tree(okTenant)), previous, c)
		},
		"Finalize": func(ctx context.Context, c Cluster) (*Plan, error) {
			return g.Finalize(ctx, previous, c)
		},
	}
	for _, name := range sortedKeys(run) {
		// Count the reads of an uncancelled pass.
		w := &cancellingCluster{c: live().cluster(), cancel: func() {}}
		if p, err := run[name](context.Background(), w.cluster()); err != nil || p.HasErrors() {
			t.Fatalf("%s: %v %v", name, err, p.Errors.ToAggregate())
		}
		if w.calls < 5 {
			t.Fatalf("%s reads the cluster %d times; the test needs more", name, w.calls)
		}
		for n := 1; n <= w.calls; n++ {
			for _, ctxErr := range []bool{false, true} {
				t.Run(fmt.Sprintf("%s/read %d of %d/context error %v", name, n, w.calls, ctxErr), func(t *testing.T) {
					t.Parallel()
					ctx, cancel := context.WithCancel(context.Background())
					defer cancel()
					w := &cancellingCluster{c: live().cluster(), n: n, ctxErr: ctxErr, cancel: cancel}
					p, err := run[name](ctx, w.cluster())
					if p != nil || !errors.Is(err, context.Canceled) {
						var ds []string
						if p != nil {
							for _, d := range p.Decisions {
								ds = append(ds, d.String())
							}
						}
						t.Errorf("%s = %q, %v; want no plan and context.Canceled", name, ds, err)
					}
				})
			}
		}
	}
}
