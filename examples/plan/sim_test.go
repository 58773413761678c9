package main

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"flag"
	"fmt"
	"hash"
	"io/fs"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/tenantkit/tenantkit/inventory"
)

var (
	simRounds = flag.Int("sim.rounds", 300, "rounds of the reconcile simulation")
	simSeed   = flag.Uint64("sim.seed", 1, "seed of the reconcile simulation")
)

// The simulation runs the plan round after round against an in-memory
// cluster while the monorepo evolves at random, deletions fail at random,
// external finalizers come and go, and live namespaces get prune disabled.
// After every round it checks the invariants of DESIGN.md:
//
//   - no namespace is deleted while a desired artifact uses it, while it is
//     handed off to a live finalizer with the matching UID, or while it is
//     prune-disabled;
//   - no deletion happens in a round whose desired state had an error, and
//     a round with an injected error reports it;
//   - every object the generator ever created is still tracked, released
//     with a reason, or confirmed deleted (no leaks).
//
// Two runs with the same seed must produce identical plans.

const simFinalizerUID0 = "uid-0"

// simObject is a live object of the in-memory cluster.
type simObject struct {
	kind, namespace, name, uid string
	annotations                map[string]string
}

func (o simObject) key() string { return o.kind + "/" + o.namespace + "/" + o.name }

// simulation is one seeded run.
type simulation struct {
	t   *testing.T
	rng *rand.Rand
	gen *generator

	// the monorepo: tenant directory -> module directories, and the
	// metadata file variant of each tenant directory
	tenants  map[string]map[string]bool
	metadata map[string]string

	live     map[string]simObject // the cluster, by simObject.key
	uids     int
	tracked  map[string]inventoryItem // the generator's inventory
	created  map[string]bool          // every object the generator ever created
	released map[string]string        // released objects, with the reason
	deleted  map[string]bool          // confirmed deletions

	plans   hash.Hash // of every plan, for the determinism check
	checks  int       // invariant checks made
	errored int       // rounds whose desired state had errors
}

var (
	simTenantNames = []string{"tenant-a", "tenant-b", "tenant-c", "tenant-d", "tenant-e", "Tenant-A", "team-x", "kube-system"}
	simModuleNames = []string{"api", "web", "worker", "Api"}
	simMetadata    = map[string]string{
		"valid": `apiVersion: source.extensions.fluxcd.io/v1beta1
kind: NamespaceMetadata
metadata:
  labels:
    my.org.io/cost-center: cc-1042
  annotations:
    my.org.io/observability: Enabled
`,
		"other": `apiVersion: source.extensions.fluxcd.io/v1beta1
kind: NamespaceMetadata
metadata:
  labels:
    my.org.io/cost-center: cc-2002
`,
		"typo": `apiVersion: source.extensions.fluxcd.io/v1beta1
kind: NamespaceMetadata
metadata:
  lables:
    my.org.io/cost-center: cc-1042
`,
		"schema": `apiVersion: source.extensions.fluxcd.io/v1beta1
kind: NamespaceMetadata
metadata:
  labels:
    my.org.io/cost-center: not-a-cost-center
`,
		"finalizer": `apiVersion: source.extensions.fluxcd.io/v1beta1
kind: NamespaceMetadata
metadata:
  annotations:
    source.extensions.fluxcd.io/externalFinalizer: fluxcd.controlplane.io/v1/ResourceSet/flux-system/tenants/uid-0
`,
	}
)

func newSimulation(t *testing.T, seed uint64) *simulation {
	data, err := fs.ReadFile(sample, "sample/generator.yaml")
	if err != nil {
		t.Fatal(err)
	}
	gen, err := parseGenerator(data)
	if err != nil {
		t.Fatal(err)
	}
	return &simulation{
		t: t, rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), gen: gen,
		tenants: map[string]map[string]bool{}, metadata: map[string]string{},
		live: map[string]simObject{}, tracked: map[string]inventoryItem{},
		created: map[string]bool{}, released: map[string]string{}, deleted: map[string]bool{},
		plans: sha256.New(),
	}
}

func (s *simulation) pick(list []string) string { return list[s.rng.IntN(len(list))] }

// evolve changes the monorepo: tenants and modules added, renamed and
// removed, metadata files edited, some invalid.
func (s *simulation) evolve() {
	for range 1 + s.rng.IntN(3) {
		switch s.rng.IntN(8) {
		case 0, 1: // add a module (and its tenant); now and then a bad one
			tenant, module := s.pick(simTenantNames[:5]), s.pick(simModuleNames[:3])
			if s.rng.IntN(10) == 0 {
				tenant, module = s.pick(simTenantNames), s.pick(simModuleNames)
			}
			if s.tenants[tenant] == nil {
				s.tenants[tenant] = map[string]bool{}
			}
			s.tenants[tenant][module] = true
		case 2: // remove a module
			if tenant, ok := s.anyTenant(); ok {
				mods := sortedKeys(s.tenants[tenant])
				delete(s.tenants[tenant], s.pick(mods))
				if len(s.tenants[tenant]) == 0 {
					delete(s.tenants, tenant)
					delete(s.metadata, tenant)
				}
			}
		case 3: // remove a tenant
			if tenant, ok := s.anyTenant(); ok {
				delete(s.tenants, tenant)
				delete(s.metadata, tenant)
			}
			for _, bad := range simTenantNames[5:] { // and, now and then, every bad one
				if s.rng.IntN(2) == 0 {
					delete(s.tenants, bad)
					delete(s.metadata, bad)
				}
			}
		case 4: // rename a tenant
			if tenant, ok := s.anyTenant(); ok {
				to := s.pick(simTenantNames)
				if s.tenants[to] == nil {
					s.tenants[to], s.metadata[to] = s.tenants[tenant], s.metadata[tenant]
					delete(s.tenants, tenant)
					delete(s.metadata, tenant)
				}
			}
		case 5, 6: // edit a metadata file: mostly valid, sometimes not
			if tenant, ok := s.anyTenant(); ok {
				variants := []string{"", "valid", "valid", "other", "other", "typo", "schema", "finalizer"}
				s.metadata[tenant] = s.pick(variants)
			}
		case 7: // fix every invalid file, so that rounds without errors happen
			for tenant, v := range s.metadata {
				if v == "typo" || v == "schema" || v == "finalizer" {
					s.metadata[tenant] = "valid"
				}
			}
		}
	}
}

func (s *simulation) anyTenant() (string, bool) {
	if len(s.tenants) == 0 {
		return "", false
	}
	return s.pick(sortedKeys(s.tenants)), true
}

// expectErrors says whether the monorepo has a problem the plan must
// report: a name the policy refuses, two directories that collide after
// lowercasing, or an invalid metadata file.
func (s *simulation) expectErrors() bool {
	ns := map[string]bool{}
	for tenant, mods := range s.tenants {
		lower := strings.ToLower(tenant)
		if !strings.HasPrefix(lower, "tenant-") {
			return true
		}
		// "finalizer" is not an error: the schema does not list the
		// annotation, so it is dropped with a warning.
		switch s.metadata[tenant] {
		case "typo", "schema":
			return true
		}
		seen := map[string]bool{}
		for m := range mods {
			if seen[strings.ToLower(m)] {
				return true
			}
			seen[strings.ToLower(m)] = true
			if ns[lower+"/"+strings.ToLower(m)] {
				return true
			}
		}
		for m := range seen {
			ns[lower+"/"+m] = true
		}
	}
	return false
}

// tree renders the monorepo.
func (s *simulation) tree() fstest.MapFS {
	fsys := fstest.MapFS{"README.md": {Data: []byte("monorepo\n")}}
	for _, tenant := range sortedKeys(s.tenants) {
		for _, m := range sortedKeys(s.tenants[tenant]) {
			dir := "tenants/" + tenant + "/modules/" + m
			fsys[dir+"/manifests/deployment.yaml"] = &fstest.MapFile{Data: []byte("kind: Deployment\nname: " + m + "\n")}
			if s.rng.IntN(2) == 0 {
				fsys[dir+"/applier-inputs.yaml"] = &fstest.MapFile{Data: []byte("replicas: 2\n")}
			}
		}
		if v := s.metadata[tenant]; v != "" {
			fsys["tenants/"+tenant+"/namespace-metadata.yaml"] = &fstest.MapFile{Data: []byte(simMetadata[v])}
		}
	}
	return fsys
}

// disturb plays the other actors: external finalizers appear, are
// recreated with a new UID, and vanish; live namespaces get prune disabled.
func (s *simulation) disturb() {
	rs := simObject{kind: "ResourceSet", namespace: "flux-system", name: "tenants"}
	switch s.rng.IntN(10) {
	case 0: // the finalizer appears, or is recreated with a new UID
		s.uids++
		rs.uid = fmt.Sprintf("uid-%d", s.uids)
		s.live[rs.key()] = rs
	case 1: // the finalizer vanishes
		delete(s.live, rs.key())
	case 2, 3: // the finalizer stamps a live namespace (possibly with a stale UID)
		if ns, ok := s.anyLive("Namespace"); ok {
			uid := simFinalizerUID0
			if cur, ok := s.live[rs.key()]; ok && s.rng.IntN(4) > 0 {
				uid = cur.uid
			}
			ns.annotations["source.extensions.fluxcd.io/externalFinalizer"] = "fluxcd.controlplane.io/v1/ResourceSet/flux-system/tenants/" + uid
		}
	case 4: // someone disables pruning of a live namespace
		if ns, ok := s.anyLive("Namespace"); ok {
			ns.annotations[pruneAnnotation] = pruneDisabled
		}
	case 5: // and enables it again
		if ns, ok := s.anyLive("Namespace"); ok {
			delete(ns.annotations, pruneAnnotation)
		}
	}
}

func (s *simulation) anyLive(kind string) (simObject, bool) {
	var keys []string
	for k, o := range s.live {
		if o.kind == kind {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return simObject{}, false
	}
	slices.Sort(keys)
	return s.live[s.pick(keys)], true
}

// cluster is the live state as the plan sees it.
func (s *simulation) cluster() *cluster {
	c := &cluster{objects: map[objectKey]liveObject{}}
	for _, o := range s.live {
		group := ""
		switch o.kind {
		case "ResourceSet":
			group = "fluxcd.controlplane.io"
		case artifactKind:
			group = "source.toolkit.fluxcd.io"
		}
		c.objects[objectKey{group: group, kind: o.kind, namespace: o.namespace, name: o.name}] = liveObject{
			Kind: o.kind, Metadata: objectMeta{Name: o.name, Namespace: o.namespace, UID: o.uid, Annotations: o.annotations},
		}
	}
	return c
}

// handedOff says whether a live namespace is handed off to a finalizer that
// exists with the referenced UID: computed from the model, independently of
// package finalizer.
func (s *simulation) handedOff(ns simObject) bool {
	v, ok := ns.annotations["source.extensions.fluxcd.io/externalFinalizer"]
	if !ok {
		return false
	}
	rs, ok := s.live["ResourceSet/flux-system/tenants"]
	return ok && v == "fluxcd.controlplane.io/v1/ResourceSet/flux-system/tenants/"+rs.uid
}

// round runs one reconcile and checks the invariants.
func (s *simulation) round(n int) {
	t := s.t
	s.evolve()
	s.disturb()
	wantErrors := s.expectErrors()

	previous := make([]inventoryItem, 0, len(s.tracked))
	for _, k := range sortedKeys(s.tracked) {
		previous = append(previous, s.tracked[k])
	}
	prev, err := toEntries(previous)
	if err != nil {
		t.Fatalf("round %d: the tracked inventory does not read back: %v", n, err)
	}
	res, err := makePlan(context.Background(), request{
		generator: s.gen, sources: map[string]fs.FS{"repo": s.tree()}, previous: prev, cluster: s.cluster(),
	})
	if err != nil {
		t.Fatalf("round %d: %v", n, err)
	}
	data, _ := json.Marshal(res)
	s.plans.Write(data)
	if res.hasErrors() {
		s.errored++
	}

	// No deletion in a round with errors, and an injected error is reported.
	if wantErrors && !res.hasErrors() {
		t.Fatalf("round %d: the monorepo has an error the plan did not report:\n%s", n, data)
	}
	used := map[string]bool{}
	for _, a := range res.Artifacts {
		used[a.Namespace] = true
	}
	for _, c := range res.Changes {
		key := c.Kind + "/" + c.Namespace + "/" + c.Name
		s.checks++
		if c.Action == "delete" {
			if res.hasErrors() {
				t.Fatalf("round %d: deletes %s in a round with errors %v", n, key, res.Errors)
			}
			if c.Kind == "Namespace" {
				live := s.live[key]
				switch {
				case used[c.Name]:
					t.Fatalf("round %d: deletes namespace %s, used by a desired artifact", n, c.Name)
				case live.annotations[pruneAnnotation] == pruneDisabled:
					t.Fatalf("round %d: deletes namespace %s, prune-disabled", n, c.Name)
				case s.handedOff(live):
					t.Fatalf("round %d: deletes namespace %s, handed off to a live finalizer", n, c.Name)
				}
			}
		}
		if c.Action == "release" && c.Reason == "" {
			t.Fatalf("round %d: releases %s without a reason", n, key)
		}
	}

	// Apply the plan: create and update, delete (failing at random),
	// release.
	for _, ns := range res.Namespaces {
		s.apply(simObject{kind: "Namespace", name: ns.Name})
	}
	for _, a := range res.Artifacts {
		s.apply(simObject{kind: artifactKind, namespace: a.Namespace, name: a.Name})
	}
	next := map[string]inventoryItem{}
	for _, e := range res.Inventory {
		next[e.Kind+"/"+e.Namespace+"/"+e.Name] = e
	}
	for _, c := range res.Changes {
		key := c.Kind + "/" + c.Namespace + "/" + c.Name
		switch c.Action {
		case "delete":
			if s.rng.IntN(4) == 0 { // the API server refuses: keep tracking, retry next round
				next[key] = s.tracked[key]
				continue
			}
			s.remove(key)
			s.deleted[key] = true
		case "release":
			s.released[key] = c.Reason
		}
	}
	s.tracked = next

	// No leaks: everything ever created is tracked, released or deleted.
	for key := range s.created {
		s.checks++
		_, tracked := s.tracked[key]
		if !tracked && s.released[key] == "" && !s.deleted[key] {
			t.Fatalf("round %d: %s was created, then lost: neither tracked, released nor deleted", n, key)
		}
	}
}

// apply creates or updates an object the generator manages. A desired
// object is tracked again, even if it was released or deleted before.
func (s *simulation) apply(o simObject) {
	key := o.key()
	if cur, ok := s.live[key]; ok {
		o.annotations, o.uid = cur.annotations, cur.uid
	} else {
		s.uids++
		o.uid, o.annotations = fmt.Sprintf("uid-%d", s.uids), map[string]string{}
	}
	s.live[key] = o
	s.created[key] = true
	delete(s.released, key)
	delete(s.deleted, key)
}

// remove deletes an object; a namespace takes its objects with it.
func (s *simulation) remove(key string) {
	o := s.live[key]
	delete(s.live, key)
	if o.kind == "Namespace" {
		for k, in := range s.live {
			if in.namespace == o.name {
				delete(s.live, k)
			}
		}
	}
}

// toEntries reads the tracked inventory back the way -inventory does.
func toEntries(items []inventoryItem) ([]inventory.Entry, error) {
	data, err := json.Marshal(items)
	if err != nil {
		return nil, err
	}
	return inventory.Unmarshal(data)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func runSimulation(t *testing.T, seed uint64, rounds int) (*simulation, [32]byte) {
	s := newSimulation(t, seed)
	for n := range rounds {
		s.round(n)
	}
	return s, [32]byte(s.plans.Sum(nil))
}

func TestReconcileSimulation(t *testing.T) {
	t.Parallel()
	rounds := *simRounds
	if testing.Short() {
		rounds /= 10
	}
	s, sum := runSimulation(t, *simSeed, rounds)
	t.Logf("seed %d: %d rounds (%d with errors), %d invariant checks; %d objects created, %d deleted, %d released, %d tracked at the end",
		*simSeed, rounds, s.errored, s.checks, len(s.created), len(s.deleted), len(s.released), len(s.tracked))

	// Determinism: the same seed gives the same plans, byte for byte.
	again := min(rounds, 100)
	_, a := runSimulation(t, *simSeed+1, again)
	_, b := runSimulation(t, *simSeed+1, again)
	if a != b {
		t.Errorf("two runs with seed %d produced different plans", *simSeed+1)
	}
	if again == rounds {
		if _, c := runSimulation(t, *simSeed, rounds); c != sum {
			t.Errorf("two runs with seed %d produced different plans", *simSeed)
		}
	}
}
