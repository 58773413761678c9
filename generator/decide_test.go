package generator

import (
	"context"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tenantkit/tenantkit/finalizer"
	"github.com/tenantkit/tenantkit/inventory"
)

// rowCase is one object that a row of the decision table decides.
type rowCase struct {
	id       inventory.ID
	prune    *bool    // managedNamespaces.prune; nil: true
	live     []Object // the live objects
	cluster  func(*fakeCluster, *Cluster)
	skips    map[inventory.ID]skippedObject
	stale    []string // the stale namespaces of the pass
	deleting []inventory.ID
	finalize bool // only with finalize (false: the row holds in a plan and in Finalize)
	plan     bool // only in a plan
	// desired objects
	action inventory.Action
	ns     *Namespace
	// want is the decision: its action, and its reason; failed is a reason
	// that the guard returns as its error ("guard failed: ").
	want   inventory.Action
	reason string
	failed bool
}

// TestDecisionRows: each row of the decision table has its case, named
// after it, and decides it: the row that matches is the case's, with its
// action and reason. A row of stale objects decides the same in a plan
// and in Finalize (Finalize's deletions say "the generator is deleted"),
// unless the case is one's alone.
func TestDecisionRows(t *testing.T) {
	t.Parallel()
	const (
		rsRef = "fluxcd.controlplane.io/v1/ResourceSet/flux-system/tenants/rs-uid"
		rsIn  = "fluxcd.controlplane.io/v1/ResourceSet/tenant-c/rs/rs-uid"
		sw    = "source.extensions.fluxcd.io/"
		kc    = "kustomize.toolkit.fluxcd.io/"
	)
	rs := inventory.ID{Group: "fluxcd.controlplane.io", Kind: "ResourceSet", Namespace: "flux-system", Name: "tenants"}
	ns, art := nsEntry("tenant-a").ID(), artEntry("tenant-a", "app").ID()
	owned := map[string]string{GeneratorLabel: testUID}
	other := map[string]string{GeneratorLabel: "uid-b"}
	obj := func(id inventory.ID, labels, annotations map[string]string) Object {
		return Object{ID: id, Labels: labels, Annotations: annotations}
	}
	off := false
	handOff := []Object{obj(ns, owned, map[string]string{finalizer.Annotation: rsRef})}
	withRS := func(c *fakeCluster, _ *Cluster) { c.uids = map[inventory.ID]string{rs: "rs-uid"} }
	desired := &Namespace{Name: "tenant-a", Labels: map[string]string{"team": "a"}}
	cases := map[string]rowCase{
		// Stale objects.
		"namespace pruning is off": {id: ns, prune: &off, live: []Object{obj(ns, owned, nil)},
			want: inventory.Release, reason: "namespace pruning is off"},
		"skipped": {id: art, skips: map[inventory.ID]skippedObject{art: {reason: `directory "tenants/tenant-a" cannot be read`}},
			want: inventory.Keep, reason: `skipped: directory "tenants/tenant-a" cannot be read`},
		"protected namespace": {id: nsEntry("flux-system").ID(), live: []Object{obj(nsEntry("flux-system").ID(), owned, nil)},
			want: inventory.Release, reason: "protected namespace: never deleted"},
		"no ObjectReader": {id: art, cluster: func(_ *fakeCluster, c *Cluster) { c.Objects = nil },
			want: inventory.Keep, reason: "the live object cannot be read (no ObjectReader)"},
		"the live object cannot be read": {id: art, cluster: func(c *fakeCluster, _ *Cluster) { c.failing = map[inventory.ID]error{art: errBoom} },
			want: inventory.Keep, reason: "reading the live object: boom", failed: true},
		"not found": {id: art, want: inventory.Delete, reason: "no longer desired; not found in the cluster"},
		"prune: disabled": {id: art, live: []Object{obj(art, owned, map[string]string{sw + "prune": "Disabled"})},
			want: inventory.Release, reason: "pruning is disabled on the live object (annotation " + sw + "prune: Disabled)"},
		"reconcile: disabled": {id: ns, live: []Object{obj(ns, map[string]string{GeneratorLabel: testUID, kc + "reconcile": "disabled"}, nil)},
			want: inventory.Release, reason: "reconciliation is disabled on the live object (label " + kc + "reconcile: disabled)"},
		"ssa: Ignore": {id: art, live: []Object{obj(art, owned, map[string]string{sw + "ssa": "ignore"})},
			want: inventory.Release, reason: "server-side apply ignores it on the live object (annotation " + sw + "ssa: ignore)"},
		"another generator's label": {id: art, live: []Object{obj(art, other, nil)},
			want: inventory.Release, reason: "applied by another generator (label " + GeneratorLabel + ": uid-b)"},
		"an artifact, otherwise": {id: art, live: []Object{obj(art, owned, nil)}, want: inventory.Delete, reason: "no longer desired"},
		"no ArtifactLister": {id: ns, live: []Object{obj(ns, owned, nil)}, cluster: func(_ *fakeCluster, c *Cluster) { c.Artifacts = nil },
			want: inventory.Keep, reason: "the namespace's ExternalArtifacts cannot be listed (no ArtifactLister)"},
		"the ExternalArtifacts cannot be listed": {id: ns, live: []Object{obj(ns, owned, nil)}, cluster: func(c *fakeCluster, _ *Cluster) { c.listErr = errBoom },
			want: inventory.Keep, reason: "listing the namespace's ExternalArtifacts: boom", failed: true},
		"an ExternalArtifact lives in it": {id: ns, live: []Object{obj(ns, owned, nil), obj(art, owned, nil), obj(artEntry("tenant-a", "web").ID(), other, nil)},
			deleting: []inventory.ID{art}, // deleted before the namespace: it does not keep it
			want:     inventory.Keep, reason: "ExternalArtifact tenant-a/web (generator uid-b's) still lives in it"},
		"the finalizer's namespace cannot be read": {id: ns, stale: []string{"tenant-a", "tenant-c"},
			live: []Object{obj(ns, owned, map[string]string{finalizer.Annotation: rsIn})},
			cluster: func(c *fakeCluster, _ *Cluster) {
				c.failing = map[inventory.ID]error{nsEntry("tenant-c").ID(): errBoom}
			},
			want: inventory.Keep, reason: "reading namespace tenant-c, where the external finalizer lives: boom", failed: true},
		"the finalizer's namespace is removed too": {id: ns, stale: []string{"tenant-a", "tenant-c"},
			live: []Object{obj(ns, owned, map[string]string{finalizer.Annotation: rsIn}), obj(nsEntry("tenant-c").ID(), owned, nil)},
			want: inventory.Delete, reason: "no longer desired; external finalizer fluxcd.controlplane.io/v1/ResourceSet/tenant-c/rs (uid rs-uid) is not a hand-off: " +
				"it lives in namespace tenant-c, which this generator removes too (no longer desired)"},
		"the finalizer cannot be looked up": {id: ns, live: handOff, cluster: func(c *fakeCluster, _ *Cluster) { c.lookupErr = errBoom },
			want: inventory.Keep, failed: true, reason: "cannot look up external finalizer fluxcd.controlplane.io/v1/ResourceSet/flux-system/tenants (uid rs-uid): boom: " +
				"finalizer: look up fluxcd.controlplane.io/v1/ResourceSet/flux-system/tenants (uid rs-uid): boom"},
		"handed off, the generator is deleted": {id: ns, live: handOff, cluster: withRS, finalize: true,
			want: inventory.Release, reason: "handed off to fluxcd.controlplane.io/v1/ResourceSet/flux-system/tenants (uid rs-uid); released: the generator is deleted"},
		"handed off": {id: ns, live: handOff, cluster: withRS, plan: true,
			want: inventory.Keep, reason: "handed off to fluxcd.controlplane.io/v1/ResourceSet/flux-system/tenants (uid rs-uid); kept in the inventory while the hand-off holds"},
		"a namespace, otherwise": {id: ns, live: []Object{obj(ns, owned, nil), obj(art, owned, nil)}, deleting: []inventory.ID{art},
			want: inventory.Delete, reason: "no longer desired; no external finalizer"},

		// Desired namespaces.
		"not reconciled, desired metadata": {id: ns, action: inventory.Create,
			ns:   &Namespace{Name: "tenant-a", Annotations: map[string]string{sw + "reconcile": "disabled"}},
			want: inventory.Unchanged, reason: "reconciliation is disabled in the desired metadata (annotation " + sw + "reconcile: disabled); not applied, still tracked"},
		"not reconciled, live namespace": {id: ns, action: inventory.Update, ns: desired, live: []Object{obj(ns, owned, map[string]string{kc + "ssa": "Ignore"})},
			want: inventory.Unchanged, reason: "server-side apply ignores it on the live namespace (annotation " + kc + "ssa: Ignore); not applied, still tracked"},
		"applied only if absent, live namespace": {id: ns, action: inventory.Update, ns: desired, live: []Object{obj(ns, owned, map[string]string{sw + "ssa": "IfNotPresent"})},
			want: inventory.Unchanged, reason: "the namespace exists and is applied only if absent (annotation " + sw + "ssa: IfNotPresent on the live namespace); not applied, still tracked"},
		"applied only if absent, desired metadata": {id: ns, action: inventory.Create, live: []Object{obj(ns, nil, nil)},
			ns:   &Namespace{Name: "tenant-a", Labels: map[string]string{sw + "ssa": "ifnotpresent"}},
			want: inventory.Unchanged, reason: "the namespace exists and is applied only if absent (label " + sw + "ssa: ifnotpresent in the desired metadata); not applied, still tracked"},
		"tracked, does not exist": {id: ns, action: inventory.Unchanged, ns: desired,
			want: inventory.Update, reason: "drift: the namespace does not exist"},
		"live metadata drifted": {id: ns, action: inventory.Unchanged, ns: desired, live: []Object{obj(ns, other, nil)},
			want: inventory.Update, reason: "taken over from generator uid-b (label " + GeneratorLabel + "); drift: live metadata lacks label team"},
		"adopted or taken over": {id: ns, action: inventory.Create, ns: desired, live: []Object{obj(ns, map[string]string{"team": "a"}, nil)},
			want: inventory.Create, reason: "adopted: the namespace exists and no generator manages it"},
		"namespace as the inventory says": {id: ns, action: inventory.Update, ns: desired, live: []Object{obj(ns, map[string]string{GeneratorLabel: testUID, "team": "b"}, nil)},
			want: inventory.Update},

		// Desired ExternalArtifacts.
		"artifact taken over, unchanged": {id: art, action: inventory.Unchanged, live: []Object{obj(art, other, nil)},
			want: inventory.Update, reason: "taken over from generator uid-b (label " + GeneratorLabel + ")"},
		"artifact taken over": {id: art, action: inventory.Create, live: []Object{obj(art, other, nil)},
			want: inventory.Create, reason: "taken over from generator uid-b (label " + GeneratorLabel + ")"},
		"artifact as the inventory says": {id: art, action: inventory.Unchanged, live: []Object{obj(art, owned, nil)},
			want: inventory.Unchanged},
	}
	for _, r := range rules {
		if _, ok := cases[r.name]; !ok {
			t.Errorf("row %q has no case", r.name)
		}
	}
	for name, tc := range cases {
		modes := []bool{false, true} // finalize
		switch {
		case tc.finalize:
			modes = []bool{true}
		case tc.plan || tc.action != 0:
			modes = []bool{false}
		}
		for _, finalize := range modes {
			t.Run(name+map[bool]string{true: ", Finalize"}[finalize], func(t *testing.T) {
				t.Parallel()
				spec := testSpec()
				if tc.prune != nil {
					spec.ManagedNamespaces.Prune = tc.prune
				}
				g := mustCompile(t, spec)
				fc := &fakeCluster{objects: map[inventory.ID]Object{}}
				for _, o := range tc.live {
					fc.objects[o.ID] = o
				}
				cl := fc.cluster()
				if tc.cluster != nil {
					tc.cluster(fc, &cl)
				}
				var stale []inventory.Entry
				for _, n := range tc.stale {
					stale = append(stale, nsEntry(n))
				}
				d := newDecider(g, newSnapshot(context.Background(), cl), tc.skips, stale, finalize)
				for _, id := range tc.deleting {
					d.deleting[id] = true
				}
				sc := scopeOf(tc)
				row, _, _ := decide(sc, &subject{d: d, id: tc.id, action: tc.action, ns: tc.ns})
				if row == nil || row.name != name {
					t.Fatalf("row %v decides, want %q", row, name)
				}
				var action inventory.Action
				var reason string
				if sc == staleObject {
					var err error
					action, reason, err = d.guard(context.Background(), entryOf(tc.id))
					if (err != nil) != tc.failed {
						t.Fatalf("guard error %v, want one: %v", err, tc.failed)
					}
					if err != nil {
						reason = err.Error()
					}
				} else {
					dec := inventory.Decision{Entry: entryOf(tc.id), Action: tc.action}
					d.desired(&dec, tc.ns)
					action, reason = dec.Action, dec.Reason
				}
				want := tc.reason
				if finalize && !tc.finalize {
					want = strings.Replace(want, "no longer desired", reasonFinalize, 1)
				}
				if action != tc.want || reason != want {
					t.Errorf("decision %s (%s)\nwant     %s (%s)", action, reason, tc.want, want)
				}
			})
		}
	}
}

// entryOf returns the entry of a Namespace or an ExternalArtifact.
func entryOf(id inventory.ID) inventory.Entry {
	if id.IsNamespace() {
		return nsEntry(id.Name)
	}
	return artEntry(id.Namespace, id.Name)
}

// scopeOf is the scope of a case: a desired object has Diff's action.
func scopeOf(tc rowCase) scope {
	switch {
	case tc.action == 0:
		return staleObject
	case tc.id.IsNamespace():
		return desiredNamespace
	}
	return desiredArtifact
}

// TestDecisionRowsDocumented: the package documentation's table of the
// decision rows ("# Decisions") lists every row of the table, in order,
// with its decision, and nothing else.
func TestDecisionRowsDocumented(t *testing.T) {
	t.Parallel()
	src, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(src), "\n// # Decisions\n")
	if !ok {
		t.Fatal(`doc.go has no "# Decisions" section`)
	}
	section, _, _ = strings.Cut(section, "\n// #")
	line := regexp.MustCompile(`^//\t(\S.*?)(?:\s{2,}(\S+))?$`)
	var got []string
	for l := range strings.SplitSeq(section, "\n") {
		m := line.FindStringSubmatch(l)
		if m == nil || strings.HasSuffix(m[1], ":") || m[1] == "row" {
			continue // prose, a group's title or the header
		}
		got = append(got, m[1]+" | "+m[2])
	}
	var want []string
	for _, r := range rules {
		action := "diff"
		if r.action != 0 {
			action = r.action.String()
		}
		want = append(want, r.name+" | "+action)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("doc.go's decision rows (-rules +doc):\n%s", diff)
	}
}
