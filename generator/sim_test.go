package generator

import (
	"context"
	"crypto/sha256"
	"errors"
	"flag"
	"fmt"
	"hash"
	"io/fs"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/tenantkit/tenantkit/finalizer"
	"github.com/tenantkit/tenantkit/inventory"
)

var (
	simRounds = flag.Int("sim.rounds", 400, "rounds of the reconcile simulation (the last tenth without faults)")
	simSeed   = flag.Uint64("sim.seed", 1, "seed of the reconcile simulation")
)

// The simulation reconciles two generators round after round against an
// in-memory cluster, while their monorepos evolve at random:
//
//   - generator A manages namespaces (tenants/<ns>/modules/<m>) and one
//     ExternalArtifact per module; generator B (teams/<ns>/apps/<a>)
//     places ExternalArtifacts in the same namespaces without managing them;
//   - tenants and modules come, go and get renamed; some names are refused
//     or collide in case; metadata files break, go missing and get fixed;
//   - other actors disable pruning on live objects (label or annotation,
//     either Flux prefix, any case), stamp and recreate external
//     finalizers, some pointing into the namespace itself;
//   - faults: A's source goes missing, one level too deep, or behind a
//     symbolic link, or a tenant's directory does; reading objects, listing artifacts and looking up
//     finalizers fail; deletions fail.
//
// The last tenth of the rounds has no faults. After every plan it checks:
//
//   - a plan with errors deletes nothing, and an injected error is reported;
//   - nothing desired is deleted, by either generator; a namespace is
//     deleted only when no ExternalArtifact lives in it but those the same
//     plan deletes, never when pruning is disabled on it, it belongs to
//     another generator, or a live finalizer outside it took the hand-off;
//   - every object a generator created is tracked, released with a reason,
//     or gone (no leaks), and once the faults stop, nothing tracked is kept
//     for a fault's sake.
//
// Two runs with the same seed give the same plans, byte for byte.

type simObject struct {
	labels, annotations map[string]string
	uid                 string
}

type simGenerator struct {
	name     string
	uid      string
	g        *Generator
	tree     map[string]map[string]bool // namespace directory -> module directories
	tracked  []inventory.Entry
	created  map[inventory.ID]bool
	released map[inventory.ID]string
}

type simulation struct {
	t        *testing.T
	rng      *rand.Rand
	a, b     *simGenerator
	metadata map[string]string // A's namespace directory -> metadata variant; none: the file asks for nothing
	live     map[inventory.ID]*simObject
	uids     int
	faults   bool // this round
	plans    hash.Hash
	stats    map[string]int
}

var (
	simNamespaces = []string{"tenant-a", "tenant-b", "tenant-c", "tenant-d", "Tenant-A", "team-x", "kube-system"}
	simModules    = []string{"api", "web", "worker", "Api"}
	simVariants   = map[string]string{
		"":          emptyMetadataFile,
		"valid":     metadataFile("team", "payments"),
		"other":     metadataFile("team", "search"),
		"typo":      "apiVersion: source.extensions.fluxcd.io/v1beta1\nkind: NamespaceMetdata\nmetadata:\n  labels:\n    team: x\n",
		"schema":    metadataFile("team", "far-too-long-for-the-rule"),
		"finalizer": "apiVersion: source.extensions.fluxcd.io/v1beta1\nkind: NamespaceMetadata\nmetadata:\n  annotations:\n    source.extensions.fluxcd.io/externalFinalizer: fluxcd.controlplane.io/v1/ResourceSet/flux-system/tenants/uid-0\n",
	}
	simRS         = inventory.ID{Group: "fluxcd.controlplane.io", Kind: "ResourceSet", Namespace: "flux-system", Name: "tenants"}
	simExclusions = []string{"source.extensions.fluxcd.io/prune=disabled", "kustomize.toolkit.fluxcd.io/prune=Disabled", "source.extensions.fluxcd.io/reconcile=disabled", "kustomize.toolkit.fluxcd.io/ssa=IGNORE"}
)

func newSimulation(t *testing.T, seed uint64) *simulation {
	specB := testSpec()
	specB.PathPattern = "@repo/teams/{namespace}/apps/{app}"
	specB.Artifacts = []OutputArtifact{{Name: "b-{app}", Namespace: "{namespace}", Copy: []CopyOperation{{From: "@repo/teams/{namespace}/apps/{app}/**", To: "@artifact/"}}}}
	specB.ManagedNamespaces = nil
	newGen := func(name, uid string, spec Spec) *simGenerator {
		g, errs := Compile(spec, WithUID(uid), WithNamespace("flux-system"))
		if len(errs) > 0 {
			t.Fatal(errs.ToAggregate())
		}
		return &simGenerator{name: name, uid: uid, g: g, tree: map[string]map[string]bool{}, created: map[inventory.ID]bool{}, released: map[inventory.ID]string{}}
	}
	return &simulation{
		t: t, rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)),
		a: newGen("A", "uid-a", testSpec()), b: newGen("B", "uid-b", specB),
		metadata: map[string]string{}, live: map[inventory.ID]*simObject{}, plans: sha256.New(), stats: map[string]int{},
	}
}

func (s *simulation) pick(list []string) string { return list[s.rng.IntN(len(list))] }

func (s *simulation) pickKey(m map[string]map[string]bool) (string, bool) {
	if len(m) == 0 {
		return "", false
	}
	return s.pick(sortedKeys(m)), true
}

// evolve changes a generator's monorepo.
func (s *simulation) evolve(sg *simGenerator, quiet bool) {
	names, mods := simNamespaces[:4], simModules[:3]
	if !quiet && s.rng.IntN(8) == 0 {
		names, mods = simNamespaces, simModules
	}
	for range 1 + s.rng.IntN(2) {
		switch s.rng.IntN(7) {
		case 0, 1, 2:
			ns, m := s.pick(names), s.pick(mods)
			if sg.tree[ns] == nil {
				sg.tree[ns] = map[string]bool{}
			}
			sg.tree[ns][m] = true
		case 3:
			if ns, ok := s.pickKey(sg.tree); ok {
				delete(sg.tree[ns], s.pick(sortedKeys(sg.tree[ns])))
				if len(sg.tree[ns]) == 0 {
					delete(sg.tree, ns)
				}
			}
		case 4:
			if ns, ok := s.pickKey(sg.tree); ok {
				delete(sg.tree, ns)
			}
		case 5:
			if ns, ok := s.pickKey(sg.tree); ok && sg == s.a {
				variants := []string{"", "valid", "other", "finalizer"}
				if !quiet {
					variants = append(variants, "typo", "schema", "missing")
				}
				s.metadata[ns] = s.pick(variants)
			}
		case 6:
			if ns, ok := s.pickKey(sg.tree); ok {
				to := s.pick(names)
				if sg.tree[to] == nil {
					sg.tree[to] = sg.tree[ns]
					delete(sg.tree, ns)
				}
			}
		}
	}
	if quiet { // the faults stop: bad names and files are fixed
		for ns := range sg.tree {
			if !slices.Contains(simNamespaces[:4], ns) {
				delete(sg.tree, ns)
			}
			for m := range sg.tree[ns] {
				if !slices.Contains(simModules[:3], m) {
					delete(sg.tree[ns], m)
				}
			}
			if len(sg.tree[ns]) == 0 {
				delete(sg.tree, ns) // as case 3 does: no namespace without modules
			}
		}
		for ns, v := range s.metadata {
			if v == "typo" || v == "schema" || v == "missing" {
				s.metadata[ns] = "valid"
			}
		}
	}
}

// expectErrors says whether A's monorepo has a problem its plan must report.
func (s *simulation) expectErrors() bool {
	lower := map[string]string{}
	for ns, mods := range s.a.tree {
		if len(mods) == 0 {
			continue
		}
		l := strings.ToLower(ns)
		if !strings.HasPrefix(l, "tenant-") {
			return true
		}
		if other, dup := lower[l]; dup && other != ns {
			return true
		}
		lower[l] = ns
		if v := s.metadata[ns]; v == "typo" || v == "schema" || v == "missing" {
			return true
		}
		seen := map[string]bool{}
		for m := range mods {
			if seen[strings.ToLower(m)] {
				return true
			}
			seen[strings.ToLower(m)] = true
		}
	}
	return false
}

func (s *simulation) files(sg *simGenerator) fstest.MapFS {
	fsys := fstest.MapFS{"README.md": {Data: []byte("monorepo\n")}, "tenants/.keep": {}, "teams/.keep": {}}
	for _, ns := range sortedKeys(sg.tree) {
		for _, m := range sortedKeys(sg.tree[ns]) {
			if sg == s.a {
				dir := "tenants/" + ns + "/modules/" + m
				fsys[dir+"/manifests/deploy.yaml"] = &fstest.MapFile{Data: []byte("name: " + m + "\n")}
				if s.rng.IntN(2) == 0 {
					fsys[dir+"/inputs.yaml"] = &fstest.MapFile{Data: fmt.Appendf(nil, "replicas: %d\n", 1+s.rng.IntN(2))}
				}
			} else {
				fsys["teams/"+ns+"/apps/"+m+"/app.yaml"] = &fstest.MapFile{Data: []byte("name: " + m + "\n")}
			}
		}
		if v := s.metadata[ns]; v != "missing" && sg == s.a {
			fsys["tenants/"+ns+"/namespace-metadata.yaml"] = &fstest.MapFile{Data: []byte(simVariants[v])}
		}
	}
	return fsys
}

// source returns A's source, broken now and then; broken says whether it
// is.
func (s *simulation) source(sg *simGenerator) (map[string]fs.FS, bool) {
	fsys := s.files(sg)
	if !s.faults || sg != s.a {
		return map[string]fs.FS{"repo": fsys}, false
	}
	switch s.rng.IntN(20) {
	case 0:
		s.stats["source missing"]++
		return map[string]fs.FS{}, true
	case 1:
		s.stats["source one level too deep"]++
		return map[string]fs.FS{"repo": mustSub(fsys, "tenants")}, true
	case 2:
		s.stats["prefix behind a symbolic link"]++
		moved := fstest.MapFS{"tenants": {Data: []byte("tenants-v2"), Mode: fs.ModeSymlink | 0o777}}
		for name, f := range fsys {
			moved[strings.Replace(name, "tenants/", "tenants-v2/", 1)] = f
		}
		return map[string]fs.FS{"repo": moved}, true
	case 3:
		// A tenant's directory, or its modules directory, becomes a link
		// to a copy of itself.
		if ns, ok := s.pickKey(sg.tree); ok {
			dir := "tenants/" + ns
			if s.rng.IntN(2) == 0 {
				dir += "/modules"
			}
			s.stats["tenant directory behind a symbolic link"]++
			moved := fstest.MapFS{dir: {Data: []byte("/elsewhere"), Mode: fs.ModeSymlink | 0o777}}
			for name, f := range fsys {
				if !strings.HasPrefix(name, dir+"/") {
					moved[name] = f
				}
			}
			return map[string]fs.FS{"repo": moved}, true
		}
	}
	return map[string]fs.FS{"repo": fsys}, false
}

// disturb plays the other actors.
func (s *simulation) disturb() {
	switch s.rng.IntN(12) {
	case 0: // the finalizer appears, or is recreated with a new UID
		s.uids++
		s.live[simRS] = &simObject{uid: fmt.Sprintf("uid-%d", s.uids)}
	case 1:
		delete(s.live, simRS)
	case 2, 3: // a namespace is stamped, with the live UID or a stale one, or pointed into itself
		if id, o, ok := s.anyLive(namespaceKind); ok {
			ref := "fluxcd.controlplane.io/v1/ResourceSet/flux-system/tenants/uid-0"
			if rs, ok := s.live[simRS]; ok && s.rng.IntN(3) > 0 {
				ref = "fluxcd.controlplane.io/v1/ResourceSet/flux-system/tenants/" + rs.uid
			}
			if s.rng.IntN(5) == 0 {
				ref = "/v1/ConfigMap/" + id.Name + "/kube-root-ca.crt/" + o.uid
			}
			o.annotations[finalizer.Annotation] = ref
		}
	case 4: // someone disables pruning on a live object, as a label or an annotation
		kind := namespaceKind
		if s.rng.IntN(2) == 0 {
			kind = artifactKind
		}
		if _, o, ok := s.anyLive(kind); ok {
			k, v, _ := strings.Cut(s.pick(simExclusions), "=")
			if s.rng.IntN(2) == 0 {
				o.labels[k] = v
			} else {
				o.annotations[k] = v
			}
		}
	case 5, 6: // and enables it again
		for _, kind := range []string{namespaceKind, artifactKind} {
			if _, o, ok := s.anyLive(kind); ok {
				for _, x := range simExclusions {
					k, _, _ := strings.Cut(x, "=")
					delete(o.labels, k)
					delete(o.annotations, k)
				}
			}
		}
	}
}

func (s *simulation) anyLive(kind string) (inventory.ID, *simObject, bool) {
	var ids []inventory.ID
	for id := range s.live {
		if id.Kind == kind {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return inventory.ID{}, nil, false
	}
	slices.SortFunc(ids, func(a, b inventory.ID) int { return strings.Compare(a.Namespace+"/"+a.Name, b.Namespace+"/"+b.Name) })
	id := ids[s.rng.IntN(len(ids))]
	return id, s.live[id], true
}

// cluster is the live state as a plan reads it, failing now and then
// while faults are on.
func (s *simulation) cluster() Cluster {
	fail := func() bool { return s.faults && s.rng.IntN(25) == 0 }
	return Cluster{
		Objects: ObjectReaderFunc(func(_ context.Context, id inventory.ID) (Object, error) {
			if fail() {
				return Object{}, errors.New("injected: read failed")
			}
			o, ok := s.live[id]
			if !ok {
				return Object{}, finalizer.ErrNotFound
			}
			return Object{ID: id, Labels: o.labels, Annotations: o.annotations}, nil
		}),
		Artifacts: ArtifactListerFunc(func(_ context.Context, ns string) ([]Object, error) {
			if fail() {
				return nil, errors.New("injected: list failed")
			}
			var out []Object
			for id, o := range s.live {
				if id.Kind == artifactKind && id.Namespace == ns {
					out = append(out, Object{ID: id, Labels: o.labels, Annotations: o.annotations})
				}
			}
			return out, nil
		}),
		Finalizers: finalizer.LookupFunc(func(_ context.Context, r finalizer.Reference) (string, error) {
			if fail() {
				return "", errors.New("injected: lookup failed")
			}
			if o, ok := s.live[inventory.ID{Group: r.Group, Kind: r.Kind, Namespace: r.Namespace, Name: r.Name}]; ok {
				return o.uid, nil
			}
			return "", finalizer.ErrNotFound
		}),
	}
}

// protected says why deleting a live namespace would break a rule, or "".
func (s *simulation) protected(sg *simGenerator, id inventory.ID, deleting map[inventory.ID]bool) string {
	o := s.live[id]
	if o == nil {
		return ""
	}
	for _, x := range simExclusions {
		k, v, _ := strings.Cut(x, "=")
		if strings.EqualFold(o.labels[k], v) || strings.EqualFold(o.annotations[k], v) {
			return "excluded by " + k
		}
	}
	if owner := o.labels[GeneratorLabel]; owner != "" && owner != sg.uid {
		return "applied by " + owner
	}
	if id.Kind != namespaceKind {
		return ""
	}
	for aid := range s.live {
		if aid.Kind == artifactKind && aid.Namespace == id.Name && !deleting[aid] {
			return "ExternalArtifact " + aid.Name + " lives in it"
		}
	}
	if rs, ok := s.live[simRS]; ok && o.annotations[finalizer.Annotation] == "fluxcd.controlplane.io/v1/ResourceSet/flux-system/tenants/"+rs.uid {
		return "handed off"
	}
	return ""
}

// reconcile plans one generator, checks the plan, and applies it.
func (s *simulation) reconcile(n int, sg *simGenerator) {
	t := s.t
	srcs, broken := s.source(sg)
	p, err := sg.g.Plan(context.Background(), srcs, sg.tracked, s.cluster())
	if err != nil {
		t.Fatalf("round %d, %s: %v", n, sg.name, err)
	}
	fmt.Fprintf(s.plans, "%d %s %v %v %q %v\n", n, sg.name, p.Decisions, p.Errors, p.Warnings, p.Artifacts)
	if p.HasErrors() {
		s.stats["plans with errors"]++
	}
	if (broken || (sg == s.a && s.expectErrors())) && !p.HasErrors() {
		t.Fatalf("round %d, %s: an injected error is not reported; decisions %v", n, sg.name, p.Decisions)
	}

	desired := map[inventory.ID]bool{}
	for _, ns := range p.Namespaces {
		desired[inventory.ID{Kind: namespaceKind, Name: ns.Name}] = true
	}
	for _, a := range p.Artifacts {
		desired[inventory.ID{Group: artifactGroup, Kind: artifactKind, Namespace: a.Namespace, Name: a.Name}] = true
	}
	deleting := map[inventory.ID]bool{}
	for _, d := range p.Decisions {
		if d.Action == inventory.Delete {
			deleting[d.Entry.ID()] = true
		}
		if d.Action != inventory.Create && d.Action != inventory.Update && d.Action != inventory.Unchanged && d.Reason == "" {
			t.Fatalf("round %d, %s: %s without a reason", n, sg.name, d)
		}
	}

	// Apply: namespaces, then artifacts.
	for _, ns := range p.Namespaces {
		s.apply(sg, inventory.ID{Kind: namespaceKind, Name: ns.Name}, ns.Labels)
	}
	for _, a := range p.Artifacts {
		if _, ok := s.live[inventory.ID{Kind: namespaceKind, Name: a.Namespace}]; !ok {
			continue // the API server refuses an object in a namespace that does not exist
		}
		s.apply(sg, inventory.ID{Group: artifactGroup, Kind: artifactKind, Namespace: a.Namespace, Name: a.Name}, a.Labels)
	}
	// Delete, in prune order, failing now and then; check each deletion.
	confirmed := map[inventory.ID]bool{}
	for _, d := range p.Decisions {
		id := d.Entry.ID()
		switch d.Action {
		case inventory.Delete:
			s.stats["deletions"]++
			if p.HasErrors() {
				t.Fatalf("round %d, %s: deletes %s in a plan with errors %v", n, sg.name, id.String(), p.Errors.ToAggregate())
			}
			if desired[id] || s.desiredByOther(sg, id) {
				t.Fatalf("round %d, %s: deletes %s, which is desired", n, sg.name, id.String())
			}
			if why := s.protected(sg, id, deleting); why != "" {
				t.Fatalf("round %d, %s: deletes %s: %s", n, sg.name, id.String(), why)
			}
			if s.faults && s.rng.IntN(5) == 0 {
				s.stats["failed deletions"]++
				continue
			}
			s.remove(id)
			confirmed[id] = true
		case inventory.Release:
			sg.released[id] = d.Reason
		}
	}
	sg.tracked = p.Next(func(e inventory.Entry) bool { return confirmed[e.ID()] })

	// No leaks: what the generator created is tracked, released or gone.
	tracked := map[inventory.ID]bool{}
	for _, e := range sg.tracked {
		tracked[e.ID()] = true
	}
	for id := range sg.created {
		if _, live := s.live[id]; live && !tracked[id] && sg.released[id] == "" {
			t.Fatalf("round %d, %s: %s was created, then lost: live, neither tracked nor released", n, sg.name, id.String())
		}
	}
	if !s.faults {
		for _, d := range p.Decisions {
			if d.Action == inventory.Keep && strings.Contains(d.Reason, "injected") {
				t.Fatalf("round %d, %s: %s kept for an injected fault without faults", n, sg.name, d)
			}
		}
	}
}

func (s *simulation) desiredByOther(sg *simGenerator, id inventory.ID) bool {
	other := s.b
	if sg == s.b {
		other = s.a
	}
	return other.created[id] && slices.ContainsFunc(other.tracked, func(e inventory.Entry) bool { return e.ID() == id }) && s.live[id] != nil && s.live[id].labels[GeneratorLabel] == other.uid
}

func (s *simulation) apply(sg *simGenerator, id inventory.ID, labels map[string]string) {
	o, ok := s.live[id]
	if !ok {
		s.uids++
		o = &simObject{uid: fmt.Sprintf("uid-%d", s.uids), labels: map[string]string{}, annotations: map[string]string{}}
		s.live[id] = o
	}
	for k, v := range labels {
		o.labels[k] = v
	}
	sg.created[id] = true
	delete(sg.released, id)
}

// remove deletes an object; a namespace takes its objects with it.
func (s *simulation) remove(id inventory.ID) {
	delete(s.live, id)
	if id.Kind == namespaceKind {
		for other := range s.live {
			if other.Namespace == id.Name {
				delete(s.live, other)
			}
		}
	}
}

func runSimulation(t *testing.T, seed uint64, rounds int) (*simulation, [32]byte) {
	s := newSimulation(t, seed)
	quietFrom := rounds - max(rounds/10, 1)
	for n := range rounds {
		quiet := n >= quietFrom
		s.faults = !quiet
		s.evolve(s.a, quiet)
		s.evolve(s.b, quiet)
		if !quiet {
			s.disturb()
		}
		s.reconcile(n, s.a)
		s.reconcile(n, s.b)
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
	t.Logf("seed %d: %d rounds; %v", *simSeed, rounds, s.stats)

	// Determinism: the same seed gives the same plans.
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
