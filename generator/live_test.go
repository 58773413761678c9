package generator

import (
	"context"
	"errors"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/opencontainers/go-digest"

	"github.com/tenantkit/tenantkit/finalizer"
	"github.com/tenantkit/tenantkit/inventory"
	"github.com/tenantkit/tenantkit/nsmeta"
)

// with returns a copy of m with the given key-value pairs set; a value
// "-" removes the key.
func with(m map[string]string, kv ...string) map[string]string {
	out := maps.Clone(m)
	if out == nil {
		out = map[string]string{}
	}
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i+1] == "-" {
			delete(out, kv[i])
		} else {
			out[kv[i]] = kv[i+1]
		}
	}
	return out
}

// desiredOp adds a from operation that sets labels and annotations on
// tenant-a.
func desiredOp(labels, annotations map[string]string) func(*Spec) {
	return func(s *Spec) {
		if s.ManagedNamespaces.Metadata == nil {
			s.ManagedNamespaces.Metadata = &NamespaceMetadata{}
		}
		s.ManagedNamespaces.Metadata.From = append(s.ManagedNamespaces.Metadata.From, nsmeta.Operation{
			Strategy: nsmeta.Override, Namespace: "tenant-a", Metadata: nsmeta.Metadata{Labels: labels, Annotations: annotations}})
	}
}

// TestLiveState: what a plan does with a desired namespace, given its live
// copy and the inventory. The cases translate the namespace tests of
// source-watcher v2.3 (internal/controller/artifactgenerator_namespace_test.go
// and reconcileNamespace, detectNamespacesDrift), named in each case.
func TestLiveState(t *testing.T) {
	t.Parallel()
	const (
		common    = "my.org.io/provisioner"
		otherUID  = "11111111-1111-1111-1111-111111111111"
		notHere   = "not applied, still tracked"
		reconcile = "source.extensions.fluxcd.io/reconcile"
		ssa       = "source.extensions.fluxcd.io/ssa"
	)
	type liveFunc func(desired Namespace) *Object // nil: the namespace does not exist
	same := func(d Namespace) *Object { return &Object{Labels: d.Labels, Annotations: d.Annotations} }
	tests := []struct {
		name    string
		spec    func(*Spec)
		opts    []Option
		noUID   bool   // compiled without WithUID
		tracked string // "": untracked; "same": with the desired digest; "old": with another digest
		live    liveFunc
		noRead  bool  // no ObjectReader
		readErr error // reading the namespace fails

		action   inventory.Action
		reason   string
		applied  bool   // in Plan.Namespaces
		conflict string // Namespace.Conflict
		warning  string
		skipped  bool // skipped with its artifact, an error at cluster[tenant-a]
	}{
		// TestArtifactGeneratorReconciler_ManagedNamespaces: the namespace
		// is created.
		{name: "absent: created", action: inventory.Create, applied: true},
		{name: "absent, tracked: drift", tracked: "same",
			action: inventory.Update, reason: "drift: the namespace does not exist", applied: true},
		{name: "absent, tracked with another digest", tracked: "old",
			action: inventory.Update, reason: "drift: the namespace does not exist", applied: true},
		{name: "live as desired, tracked: unchanged", tracked: "same", live: same,
			action: inventory.Unchanged, applied: true},
		{name: "keys that only the live namespace has are not drift", tracked: "same", live: func(d Namespace) *Object {
			return &Object{Labels: with(d.Labels, "kubernetes.io/metadata.name", "tenant-a"), Annotations: map[string]string{"x": "y"}}
		}, action: inventory.Unchanged, applied: true},
		// ManagedNamespaces: "Metadata drift on a managed namespace is
		// corrected" (team changed in the cluster).
		{name: "drift: a label has another value", tracked: "same", live: func(d Namespace) *Object {
			return &Object{Labels: with(d.Labels, common, "changed")}
		}, action: inventory.Update, reason: "drift: live metadata has another value for label " + common, applied: true},
		// detectNamespacesDrift: namespaceMetadataMatches fails when a key
		// is missing.
		{name: "drift: a label is missing", tracked: "same", live: func(d Namespace) *Object {
			return &Object{Labels: with(d.Labels, common, "-")}
		}, action: inventory.Update, reason: "drift: live metadata lacks label " + common, applied: true},
		{name: "drift: the first three keys of each kind, sorted", tracked: "same",
			spec: desiredOp(map[string]string{"a": "1", "b": "2", "c": "3", "d": "4"}, map[string]string{"e": "5", "f": "6"}),
			live: func(d Namespace) *Object {
				return &Object{Labels: with(d.Labels, "a", "-", "b", "-", "c", "-", "d", "-", common, "x"), Annotations: map[string]string{"f": "x"}}
			}, action: inventory.Update, applied: true,
			reason: "drift: live metadata lacks label a, label b, label c and 2 more and has another value for label " + common + ", annotation f"},
		// ManagedNamespaces: "Changing the desired metadata is reported as
		// a namespace update"; the live namespace matches the old metadata.
		{name: "desired metadata changed: update", tracked: "old", live: same,
			action: inventory.Update, applied: true},
		// TestArtifactGeneratorReconciler_ManagedNamespacesMerge: ssa: Merge
		// changes how the apply cleans up, not whether it applies.
		{name: "ssa Merge on the live namespace: applied", tracked: "same", live: func(d Namespace) *Object {
			return &Object{Labels: d.Labels, Annotations: map[string]string{ssa: "Merge"}}
		}, action: inventory.Unchanged, applied: true},
		// TestArtifactGeneratorReconciler_ManagedNamespacesAdopt.
		{name: "adopted", live: func(d Namespace) *Object { return &Object{Labels: map[string]string{"team": "x"}} },
			action: inventory.Create, reason: "adopted: the namespace exists and no generator manages it", applied: true,
			conflict: "Adopted", warning: "Adopted: namespace tenant-a is not managed by any generator and is adopted"},
		{name: "adopted while tracked: drift too", tracked: "same", live: func(d Namespace) *Object {
			return &Object{Labels: with(d.Labels, GeneratorLabel, "-")}
		}, action: inventory.Update, applied: true, conflict: "Adopted",
			reason:  "adopted: the namespace exists and no generator manages it; drift: live metadata lacks label " + GeneratorLabel,
			warning: "Adopted: namespace tenant-a is not managed by any generator and is adopted"},
		// TestArtifactGeneratorReconciler_ManagedNamespacesTakeover.
		{name: "taken over", live: func(d Namespace) *Object { return &Object{Labels: map[string]string{GeneratorLabel: otherUID}} },
			action: inventory.Create, reason: "taken over from generator " + otherUID + " (label " + GeneratorLabel + ")", applied: true,
			conflict: "OwnershipConflict", warning: "OwnershipConflict: namespace tenant-a is managed by generator " + otherUID + " and is taken over"},
		// Without a UID of its own, a generator cannot tell who manages a
		// namespace (source-watcher always has one).
		{name: "no UID: no adoption", noUID: true, live: func(d Namespace) *Object { return &Object{} },
			action: inventory.Create, applied: true},
		// TestArtifactGeneratorReconciler_ManagedNamespacesReconcileDisabled:
		// tracked, not modified, not reported as adopted.
		{name: "reconcile disabled on the live namespace", live: func(d Namespace) *Object {
			return &Object{Annotations: map[string]string{reconcile: "Disabled"}}
		}, action: inventory.Unchanged, reason: "reconciliation is disabled on the live namespace (annotation " + reconcile + ": Disabled); " + notHere},
		{name: "reconcile disabled, tracked with another digest", tracked: "old", live: func(d Namespace) *Object {
			return &Object{Labels: with(d.Labels, reconcile, "disabled")}
		}, action: inventory.Unchanged, reason: "reconciliation is disabled on the live namespace (label " + reconcile + ": disabled); " + notHere},
		// TestArtifactGeneratorReconciler_ManagedNamespacesIgnore.
		{name: "ssa Ignore on the live namespace", live: func(d Namespace) *Object {
			return &Object{Annotations: map[string]string{ssa: "Ignore"}}
		}, action: inventory.Unchanged, reason: "server-side apply ignores it on the live namespace (annotation " + ssa + ": Ignore); " + notHere},
		// Difference: source-watcher reads only its own prefix when it
		// applies; tenantkit reads kustomize-controller's too, as it does
		// before deleting.
		{name: "kustomize-controller's ssa ignore, any case", live: func(d Namespace) *Object {
			return &Object{Labels: map[string]string{"kustomize.toolkit.fluxcd.io/ssa": "IGNORE"}}
		}, action: inventory.Unchanged, reason: "server-side apply ignores it on the live namespace (label kustomize.toolkit.fluxcd.io/ssa: IGNORE); " + notHere},
		// TestArtifactGeneratorReconciler_ManagedNamespacesIfNotPresent: the
		// existing namespace is not modified...
		{name: "IfNotPresent on the live namespace", live: func(d Namespace) *Object {
			return &Object{Annotations: map[string]string{ssa: "ifnotpresent"}}
		}, action: inventory.Unchanged, reason: "the namespace exists and is applied only if absent (annotation " + ssa + ": ifnotpresent on the live namespace); " + notHere},
		// ... and the missing one is created.
		{name: "IfNotPresent desired, absent: created", spec: desiredOp(nil, map[string]string{ssa: "IfNotPresent"}),
			action: inventory.Create, applied: true},
		{name: "IfNotPresent desired, existing", spec: desiredOp(nil, map[string]string{ssa: "IfNotPresent"}),
			live:   func(d Namespace) *Object { return &Object{Labels: d.Labels} },
			action: inventory.Unchanged, reason: "the namespace exists and is applied only if absent (annotation " + ssa + ": IfNotPresent in the desired metadata); " + notHere},
		// namespaceApplyExcluded looks at the expected metadata too, and
		// ssa's Apply skips a desired object that matches the exclusion.
		{name: "reconcile disabled in the desired metadata, absent", spec: desiredOp(map[string]string{reconcile: "disabled"}, nil),
			action: inventory.Unchanged, reason: "reconciliation is disabled in the desired metadata (label " + reconcile + ": disabled); " + notHere},
		{name: "reconcile disabled in the desired metadata, no ObjectReader", spec: desiredOp(map[string]string{reconcile: "disabled"}, nil), noRead: true,
			action: inventory.Unchanged, reason: "reconciliation is disabled in the desired metadata (label " + reconcile + ": disabled); " + notHere},
		// Without an ObjectReader, nothing is read: as before live state.
		{name: "no ObjectReader: created", noRead: true, action: inventory.Create, applied: true},
		{name: "no ObjectReader, tracked: unchanged", noRead: true, tracked: "same", action: inventory.Unchanged, applied: true},
		// Difference: reconcileNamespace returns the error and the whole
		// reconcile fails; tenantkit skips this namespace and its
		// artifacts, and the other tenants proceed.
		{name: "reading the namespace fails", readErr: errBoom, action: inventory.Skip,
			reason: "the live namespace cannot be read", skipped: true},
		{name: "reading the namespace fails, tracked", readErr: errBoom, tracked: "same", action: inventory.Skip,
			reason: "the live namespace cannot be read; kept in the inventory", skipped: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			spec := testSpec()
			spec.ManagedNamespaces.Metadata = nil
			if tt.spec != nil {
				tt.spec(&spec)
			}
			opts := []Option{WithUID(testUID), WithNamespace("flux-system")}
			if tt.noUID {
				opts = opts[1:]
			}
			g, errs := Compile(spec, append(opts, tt.opts...)...)
			if len(errs) > 0 {
				t.Fatal(errs.ToAggregate())
			}
			src := sources(tree(okTenant, "tenants/tenant-a/modules/app"))
			// The desired namespace, as a plan that reads nothing builds it.
			ref := mustPlan(t, g, src, nil, Cluster{})
			// (A namespace that the desired metadata keeps from being
			// applied is only in the inventory.)
			var desired Namespace
			if i := slices.IndexFunc(ref.Namespaces, func(ns Namespace) bool { return ns.Name == "tenant-a" }); i >= 0 {
				desired = ref.Namespaces[i]
			} else {
				next := ref.Next(nil)
				desired.Digest = next[slices.IndexFunc(next, func(e inventory.Entry) bool { return e.Name == "tenant-a" })].Digest
			}

			entry := inventory.Entry{APIVersion: "v1", Kind: "Namespace", Name: "tenant-a", Digest: desired.Digest}
			var previous []inventory.Entry
			switch tt.tracked {
			case "same":
				previous = []inventory.Entry{entry}
			case "old":
				previous = []inventory.Entry{nsEntry("tenant-a")}
			}
			c := &fakeCluster{failing: map[inventory.ID]error{}}
			if tt.live != nil {
				o := tt.live(desired)
				o.ID = entry.ID()
				c.objects = map[inventory.ID]Object{entry.ID(): *o}
			}
			if tt.readErr != nil {
				c.failing[entry.ID()] = tt.readErr
			}
			cl := c.cluster()
			if tt.noRead {
				cl.Objects = nil
			}
			p := mustPlan(t, g, src, previous, cl)

			d := decisions(p)["Namespace/tenant-a"]
			if d.Action != tt.action || d.Reason != tt.reason {
				t.Errorf("decision %q, want %s (%s)", d, tt.action, tt.reason)
			}
			i := slices.IndexFunc(p.Namespaces, func(ns Namespace) bool { return ns.Name == "tenant-a" })
			if applied := i >= 0; applied != tt.applied {
				t.Errorf("in Plan.Namespaces: %v, want %v", applied, tt.applied)
			} else if applied && p.Namespaces[i].Conflict != tt.conflict {
				t.Errorf("Conflict %q, want %q", p.Namespaces[i].Conflict, tt.conflict)
			}
			var warnings []string
			for _, w := range p.Warnings {
				if strings.HasPrefix(w, "Adopted:") || strings.HasPrefix(w, "OwnershipConflict:") {
					warnings = append(warnings, w)
				}
			}
			var want []string
			if tt.warning != "" {
				want = []string{tt.warning}
			}
			if diff := cmp.Diff(want, warnings); diff != "" {
				t.Errorf("warnings (-want +got):\n%s", diff)
			}
			// The valid tenant proceeds whatever happens to tenant-a.
			if d := decisions(p)["Namespace/tenant-ok"]; d.Action != inventory.Create {
				t.Errorf("tenant-ok: %s, want created", d)
			}
			art := decisions(p)["ExternalArtifact/tenant-a/app"]
			if tt.skipped {
				if !hasError(p.Errors, "cluster[tenant-a]", "reading the live namespace: boom") || len(p.Errors) != 1 {
					t.Errorf("errors %v, want one at cluster[tenant-a]", p.Errors)
				}
				if art.Action != inventory.Skip {
					t.Errorf("artifact %s, want skipped with its namespace", art)
				}
			} else {
				if p.HasErrors() {
					t.Errorf("errors %v", p.Errors.ToAggregate())
				}
				// A namespace that is not applied still has its artifacts
				// applied (the namespace exists, or ssa would create none).
				if art.Action != inventory.Create {
					t.Errorf("artifact %s, want created", art)
				}
			}

			// Tracked with the desired digest (upstream returns the entry
			// of a skipped namespace with the digest), or, when the read
			// failed, as it was.
			next := map[inventory.ID]digest.Digest{}
			for _, e := range p.Next(nil) {
				next[e.ID()] = e.Digest
			}
			got, ok := next[entry.ID()]
			switch {
			case tt.skipped && tt.tracked == "":
				if ok {
					t.Errorf("untracked skipped namespace in the next inventory")
				}
			case tt.skipped:
				if got != previous[0].Digest {
					t.Errorf("next digest %q, want the tracked %q", got, previous[0].Digest)
				}
			case got != desired.Digest:
				t.Errorf("next digest %q (tracked: %v), want the desired %q", got, ok, desired.Digest)
			}
		})
	}
}

// TestLiveStateReads: a plan reads each desired namespace once, and no
// other desired object; stale objects are read by garbage collection.
func TestLiveStateReads(t *testing.T) {
	t.Parallel()
	g := mustCompile(t, testSpec())
	reads := map[inventory.ID]int{}
	c := &fakeCluster{}
	cl := c.cluster()
	cl.Objects = ObjectReaderFunc(func(ctx context.Context, id inventory.ID) (Object, error) {
		reads[id]++
		return c.Object(ctx, id)
	})
	files := []string{"tenants/tenant-a/modules/app", "tenants/tenant-a/modules/web", "tenants/tenant-b/modules/app"}
	// tenant-a/web is tracked: it is read too (an artifact this generator
	// created can be relabelled by another).
	mustPlan(t, g, sources(tree(files...)), []inventory.Entry{nsEntry("tenant-z"), artEntry("tenant-a", "web")}, cl)
	want := map[inventory.ID]int{
		nsEntry("tenant-a").ID():         1,
		nsEntry("tenant-b").ID():         1,
		artEntry("tenant-a", "app").ID(): 1,
		artEntry("tenant-a", "web").ID(): 1,
		artEntry("tenant-b", "app").ID(): 1,
		nsEntry("tenant-z").ID():         1, // stale
	}
	if diff := cmp.Diff(want, reads); diff != "" {
		t.Errorf("reads (-want +got):\n%s", diff)
	}
	// In a fixed order: the namespaces by name, then the artifacts by
	// namespace and name, then the stale objects in prune order.
	var order []string
	cl.Objects = ObjectReaderFunc(func(ctx context.Context, id inventory.ID) (Object, error) {
		order = append(order, id.String())
		return c.Object(ctx, id)
	})
	mustPlan(t, g, sources(tree(files...)), []inventory.Entry{nsEntry("tenant-z"), artEntry("tenant-a", "web")}, cl)
	wantOrder := []string{"Namespace/tenant-a", "Namespace/tenant-b",
		"ExternalArtifact/tenant-a/app", "ExternalArtifact/tenant-a/web", "ExternalArtifact/tenant-b/app", "Namespace/tenant-z"}
	if diff := cmp.Diff(wantOrder, order); diff != "" {
		t.Errorf("read order (-want +got):\n%s", diff)
	}
}

// TestLiveArtifacts: what a plan does with a desired ExternalArtifact,
// given its live copy and the inventory, after source-watcher's
// TestArtifactGeneratorReconciler_OwnershipConflict: one labelled by
// another generator is taken over, with a warning and Conflict
// "OwnershipConflict"; a read that fails skips it.
func TestLiveArtifacts(t *testing.T) {
	t.Parallel()
	const otherUID = "11111111-1111-1111-1111-111111111111"
	takenOver := "taken over from generator " + otherUID + " (label " + GeneratorLabel + ")"
	warning := "OwnershipConflict: ExternalArtifact tenant-a/app is managed by generator " + otherUID + " and is taken over"
	tests := []struct {
		name    string
		live    map[string]string // the live artifact's labels; nil: it does not exist
		readErr error
		tracked string // "": not tracked; "same": the desired digest; "old": another digest
		noRead  bool   // no ObjectReader
		noUID   bool   // compiled without WithUID

		action   inventory.Action
		reason   string
		conflict string
		warning  string
		skipped  bool // skipped for a read error: not in Plan.Artifacts, an error at cluster[tenant-a/app]
	}{
		{name: "absent", action: inventory.Create},
		{name: "absent, tracked", tracked: "same", action: inventory.Unchanged},
		{name: "this generator's", live: map[string]string{GeneratorLabel: testUID}, tracked: "same", action: inventory.Unchanged},
		// Upstream's test covers only another generator's label; its
		// namespace code adopts an unlabelled namespace with its own
		// reason, and none exists for artifacts.
		{name: "no generator's label", live: map[string]string{"team": "a"}, action: inventory.Create},
		{name: "another generator's", live: map[string]string{GeneratorLabel: otherUID},
			action: inventory.Create, reason: takenOver, conflict: "OwnershipConflict", warning: warning},
		{name: "another generator's, tracked, unchanged", live: map[string]string{GeneratorLabel: otherUID}, tracked: "same",
			action: inventory.Update, reason: takenOver, conflict: "OwnershipConflict", warning: warning},
		{name: "another generator's, tracked, changed", live: map[string]string{GeneratorLabel: otherUID}, tracked: "old",
			action: inventory.Update, reason: takenOver, conflict: "OwnershipConflict", warning: warning},
		{name: "another generator's, no ObjectReader", live: map[string]string{GeneratorLabel: otherUID}, noRead: true,
			action: inventory.Create},
		{name: "another generator's, no UID", live: map[string]string{GeneratorLabel: otherUID}, noUID: true,
			action: inventory.Create},
		{name: "read fails", readErr: errors.New("boom"), skipped: true,
			action: inventory.Skip, reason: "the live ExternalArtifact cannot be read"},
		{name: "read fails, tracked", readErr: errors.New("boom"), tracked: "old", skipped: true,
			action: inventory.Skip, reason: "the live ExternalArtifact cannot be read; kept in the inventory"},
		{name: "read fails, no UID", readErr: errors.New("boom"), noUID: true, action: inventory.Create},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			opts := []Option{WithUID(testUID), WithNamespace("flux-system")}
			if tt.noUID {
				opts = opts[1:]
			}
			g, errs := Compile(testSpec(), opts...)
			if len(errs) > 0 {
				t.Fatal(errs.ToAggregate())
			}
			src := sources(tree("tenants/tenant-a/modules/app", "tenants/tenant-b/modules/app"))
			ref := mustPlan(t, g, src, nil, Cluster{})
			entry := artEntry("tenant-a", "app")
			entry.Digest = ref.Artifacts[slices.IndexFunc(ref.Artifacts, func(a Artifact) bool { return a.Namespace == "tenant-a" })].Digest
			var previous []inventory.Entry
			switch tt.tracked {
			case "same":
				previous = []inventory.Entry{entry}
			case "old":
				previous = []inventory.Entry{artEntry("tenant-a", "app")}
			}
			c := &fakeCluster{objects: map[inventory.ID]Object{}, failing: map[inventory.ID]error{}}
			if tt.live != nil {
				c.objects[entry.ID()] = Object{ID: entry.ID(), Labels: tt.live}
			}
			if tt.readErr != nil {
				c.failing[entry.ID()] = tt.readErr
			}
			cl := c.cluster()
			if tt.noRead {
				cl.Objects = nil
			}
			p := mustPlan(t, g, src, previous, cl)

			if d := decisions(p)["ExternalArtifact/tenant-a/app"]; d.Action != tt.action || d.Reason != tt.reason {
				t.Errorf("decision %q, want %s (%s)", d, tt.action, tt.reason)
			}
			conflicts := map[string]string{}
			for _, a := range p.Artifacts {
				conflicts[a.Namespace+"/"+a.Name] = a.Conflict
			}
			want := map[string]string{"tenant-a/app": tt.conflict, "tenant-b/app": ""}
			if tt.skipped {
				delete(want, "tenant-a/app")
			}
			if diff := cmp.Diff(want, conflicts); diff != "" {
				t.Errorf("Plan.Artifacts' conflicts (-want +got):\n%s", diff)
			}
			var warnings []string
			for _, w := range p.Warnings {
				if strings.HasPrefix(w, "OwnershipConflict:") {
					warnings = append(warnings, w)
				}
			}
			var wantWarnings []string
			if tt.warning != "" {
				wantWarnings = []string{tt.warning}
			}
			if diff := cmp.Diff(wantWarnings, warnings); diff != "" {
				t.Errorf("warnings (-want +got):\n%s", diff)
			}
			if tt.skipped {
				if !hasError(p.Errors, "cluster[tenant-a/app]", "reading the live ExternalArtifact: boom") || len(p.Errors) != 1 {
					t.Errorf("errors %v, want one at cluster[tenant-a/app]", p.Errors)
				}
			} else if p.HasErrors() {
				t.Errorf("errors %v", p.Errors.ToAggregate())
			}
			// The other tenant proceeds whatever happens to tenant-a/app.
			if d := decisions(p)["ExternalArtifact/tenant-b/app"]; d.Action != inventory.Create {
				t.Errorf("tenant-b/app: %s, want created", d)
			}
			next := map[inventory.ID]digest.Digest{}
			for _, e := range p.Next(nil) {
				next[e.ID()] = e.Digest
			}
			got, ok := next[entry.ID()]
			switch {
			case tt.skipped && tt.tracked == "":
				if ok {
					t.Error("untracked skipped artifact in the next inventory")
				}
			case tt.skipped:
				if got != previous[0].Digest {
					t.Errorf("next digest %q, want the tracked %q", got, previous[0].Digest)
				}
			case got != entry.Digest:
				t.Errorf("next digest %q (tracked: %v), want the desired %q", got, ok, entry.Digest)
			}
		})
	}
}

// TestLiveArtifactsContext: a context that ends while the plan reads the
// live ExternalArtifacts gives no plan and the context's error.
func TestLiveArtifactsContext(t *testing.T) {
	t.Parallel()
	g := mustCompile(t, testSpec())
	c := &fakeCluster{}
	for _, stop := range []string{"ExternalArtifact/tenant-a/app", "ExternalArtifact/tenant-b/app"} {
		t.Run(stop, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			cl := c.cluster()
			cl.Objects = ObjectReaderFunc(func(ctx context.Context, id inventory.ID) (Object, error) {
				if id.String() == stop {
					cancel()
					return Object{}, ctx.Err()
				}
				return c.Object(ctx, id)
			})
			p, err := g.Plan(ctx, sources(tree("tenants/tenant-a/modules/app", "tenants/tenant-b/modules/app")), nil, cl)
			if !errors.Is(err, context.Canceled) || p != nil {
				t.Errorf("Plan() = %v, %v; want no plan and context.Canceled", p, err)
			}
		})
	}
}

// TestErrAsApplied: a plan whose ObjectReader answers ErrAsApplied is the
// plan that a reader answering each desired namespace with its planned
// metadata, and every other object as existing bare, gives; that reader
// needs a first plan to learn the namespaces, ErrAsApplied does not.
func TestErrAsApplied(t *testing.T) {
	t.Parallel()
	fsys := sources(tree(
		"tenants/tenant-a/modules/app",
		"tenants/tenant-a/namespace-metadata.yaml="+emptyMetadataFile+"metadata:\n  labels:\n    team: a\n",
		"tenants/tenant-b/modules/web",
	))
	asApplied := Cluster{
		Objects:   ObjectReaderFunc(func(context.Context, inventory.ID) (Object, error) { return Object{}, ErrAsApplied }),
		Artifacts: ArtifactListerFunc(func(context.Context, string) ([]Object, error) { return nil, nil }),
		Finalizers: finalizer.LookupFunc(func(context.Context, finalizer.Reference) (string, error) {
			return "", finalizer.ErrNotFound
		}),
	}
	for _, uid := range []string{testUID, ""} {
		t.Run("uid "+uid, func(t *testing.T) {
			t.Parallel()
			g, errs := Compile(testSpec(), WithUID(uid), WithNamespace("flux-system"), WithFileLists())
			if len(errs) > 0 {
				t.Fatal(errs.ToAggregate())
			}
			// tenant-a tracked as planned, tenant-old stale, tenant-b new.
			first := mustPlan(t, g, fsys, nil, Cluster{})
			var previous []inventory.Entry
			for _, e := range first.Next(nil) {
				if e.Namespace == "tenant-a" || e.Name == "tenant-a" {
					previous = append(previous, e)
				}
			}
			previous = append(previous, asStatus(nsEntry("tenant-old"), artEntry("tenant-old", "app"))...)

			applied := map[string]Namespace{}
			for _, ns := range mustPlan(t, g, fsys, previous, Cluster{}).Namespaces {
				applied[ns.Name] = ns
			}
			explicit := asApplied
			explicit.Objects = ObjectReaderFunc(func(_ context.Context, id inventory.ID) (Object, error) {
				if ns, ok := applied[id.Name]; ok && id.IsNamespace() {
					return Object{ID: id, Labels: ns.Labels, Annotations: ns.Annotations}, nil
				}
				return Object{ID: id}, nil
			})
			got := mustPlan(t, g, fsys, previous, asApplied)
			want := mustPlan(t, g, fsys, previous, explicit)
			if diff := cmp.Diff(want, got, cmp.AllowUnexported(Plan{})); diff != "" {
				t.Errorf("plan with ErrAsApplied (-two plans +one):\n%s", diff)
			}
			var lines []string
			for _, d := range got.Decisions {
				lines = append(lines, d.String())
			}
			wantLines := []string{
				"ExternalArtifact/tenant-a/app unchanged",
				"ExternalArtifact/tenant-b/web created",
				"ExternalArtifact/tenant-old/app deleted (no longer desired)",
				"Namespace/tenant-a unchanged",
				"Namespace/tenant-b created",
				"Namespace/tenant-old deleted (no longer desired; no external finalizer)",
			}
			slices.Sort(lines)
			if diff := cmp.Diff(wantLines, lines); diff != "" {
				t.Errorf("decisions (-want +got):\n%s", diff)
			}
			for _, w := range got.Warnings {
				if !strings.Contains(w, "inputs file not found") {
					t.Errorf("warning %q, want none but the inputs files' (nothing adopted or taken over)", w)
				}
			}
		})
	}
}
