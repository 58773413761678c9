package generator

import (
	"context"
	iofs "io/fs"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/tenantkit/tenantkit/inventory"
)

// This file is the harness of the translated source-watcher tests
// (upstream_namespace_test.go, upstream_finalizer_test.go,
// upstream_inputs_test.go): a scenario is an upstream test's world and its
// reconciles, step by step, against an in-memory cluster that each plan is
// applied to, as source-watcher applies it. The list of every upstream test
// and the tenantkit test that translates it is in upstream_namespace_test.go.

const (
	// swUID is the UID of the ArtifactGenerator under test.
	swUID = "ag-uid"
	// swNS is the ArtifactGenerator's own namespace (upstream's srcNS).
	swNS = "flux-system"
	// otherGen is the UID of another ArtifactGenerator, as upstream's tests
	// write it.
	otherGen = "11111111-1111-1111-1111-111111111111"
	// swConfigMap is the file of upstream's test GitRepository.
	swConfigMap = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: test-config"
	// managedBy is the label source-watcher sets on every namespace it
	// manages (its controller name); tenantkit's WithFinalMetadata.
	managedBy = "app.kubernetes.io/managed-by"
)

// swSpec is upstream's getArtifactGenerator with one source: one artifact,
// test-git, that copies the whole GitRepository into namespace tenant-a.
// Upstream's names are shortened (test-mns-tgt-xxxxx is tenant-a); the
// source's alias is "git".
func swSpec() Spec {
	return Spec{
		Sources: []SourceReference{{Alias: "git", Kind: "GitRepository", Name: "test"}},
		Artifacts: []OutputArtifact{{
			Name:      "test-git",
			Namespace: "tenant-a",
			Copy:      []CopyOperation{{From: "@git/**", To: "@artifact/"}},
		}},
	}
}

// managed sets spec.managedNamespaces, every name allowed, with prune as
// given (nil: false, upstream's unset), and a service account, which
// namespace management requires (upstream's tests run the controller with
// a default one).
func managed(prune *bool) func(*Spec) {
	return func(s *Spec) {
		if prune == nil {
			prune = ptr(false)
		}
		s.ManagedNamespaces = &ManagedNamespaces{AllowedNames: []string{"true"}, Prune: prune}
		if s.ServiceAccountName == "" {
			s.ServiceAccountName = "test-sa"
		}
	}
}

// ptr returns a pointer to v.
func ptr[T any](v T) *T { return &v }

// nsWant is what a step expects of one namespace in Plan.Namespaces.
type nsWant struct {
	labels, annotations map[string]string
	conflict            string
}

// mine returns labels with those every namespace of swUID carries
// (GeneratorLabel and source-watcher's managed-by label) added.
func mine(kv ...string) map[string]string {
	return with(map[string]string{GeneratorLabel: swUID, managedBy: "source-watcher"}, kv...)
}

// swStep is one reconcile of a scenario: what changes in the world before
// it, what runs (Plan, or Finalize once the generator is deleted), and the
// exact outcome.
type swStep struct {
	// note says what the upstream test does or checks at this point.
	note string

	// The world, changed before the step: the spec (recompiled), the git
	// source's files (replaced), the live cluster (another actor).
	spec  func(*Spec)
	files map[string]string
	live  func(*fakeCluster)

	// dropInventory removes these identities from the inventory before
	// the step ("ExternalArtifact/tenant-a/stale"), as an edit by hand.
	dropInventory []string

	finalize    bool            // Generator.Finalize instead of Plan
	failDeletes map[string]bool // deletions that fail, by identity ("Namespace/tenant-a")

	// The outcome.
	want       []string                     // every decision, as a change line, in order
	namespaces map[string]nsWant            // Plan.Namespaces, exactly, by name
	warnings   []string                     // Plan.Warnings, exactly
	errors     []string                     // Plan.Errors, each "field: a substring of the detail", exactly as many
	inputs     map[string]string            // an artifact's Inputs, byte for byte, by identity ("": none)
	artifacts  map[string]map[string]string // an artifact's labels, by identity
	conflicts  map[string]string            // when set: every artifact's non-empty Conflict, by identity, exactly
	next       []string                     // the inventory recorded after the step, identities in order

	// upstream is source-watcher's outcome of this step where it differs
	// from tenantkit's (the scenario's differs names the difference).
	upstream []string
}

// swScenario is one upstream test, or one of its subtests, translated.
type swScenario struct {
	name string
	// upstream names the upstream test function, and the subtest or the
	// part of the function, that the scenario translates.
	upstream string
	// differs quotes the row of docs/differences.md that explains where the outcome differs; the steps'
	// upstream fields say what source-watcher does.
	differs string
	// skip marks a known failure or a case that waits for a feature, with
	// the reason; the case is kept as data.
	skip string

	opts     []Option
	spec     func(*Spec)
	files    map[string]string // the git source; default: app.yaml alone
	previous []inventory.Entry // the inventory before the first step

	// compileErrs expects Compile to fail with these errors ("field: a
	// substring of the detail"), exactly as many; the scenario has no steps.
	compileErrs []string

	steps []swStep
}

// differences returns the text of docs/differences.md, whose rows the
// scenarios' differs quote.
func differences(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile("../docs/differences.md")
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// runScenarios runs each scenario as a subtest.
func runScenarios(t *testing.T, scenarios []swScenario) {
	t.Helper()
	diffs := differences(t)
	names := map[string]bool{}
	for _, sc := range scenarios {
		if names[sc.name] {
			t.Fatalf("scenario %q twice", sc.name)
		}
		names[sc.name] = true
		t.Run(sc.name, func(t *testing.T) {
			t.Parallel()
			// The table's own consistency: every case names its upstream
			// test; a stated difference is a row of docs/differences.md, and says what
			// upstream does.
			if sc.upstream == "" {
				t.Fatal("no upstream test named")
			}
			if sc.differs != "" {
				if !strings.Contains(diffs, sc.differs) {
					t.Fatalf("differs %q is not a row of docs/differences.md", sc.differs)
				}
				if !slices.ContainsFunc(sc.steps, func(s swStep) bool { return len(s.upstream) > 0 }) {
					t.Fatal("a difference without upstream's outcome")
				}
			}
			if sc.skip != "" {
				t.Skip(sc.skip)
			}
			runScenario(t, sc)
		})
	}
}

func runScenario(t *testing.T, sc swScenario) {
	spec := swSpec()
	if sc.spec != nil {
		sc.spec(&spec)
	}
	opts := append([]Option{
		WithUID(swUID), WithNamespace(swNS),
		WithFinalMetadata(map[string]string{managedBy: "source-watcher"}, nil),
	}, sc.opts...)
	compile := func() *Generator {
		g, errs := Compile(spec, opts...)
		if diff := cmp.Diff(sc.compileErrs, errStrings(errs, sc.compileErrs)); diff != "" {
			t.Fatalf("Compile errors (-want +got):\n%s\n%v", diff, errs.ToAggregate())
		}
		return g
	}
	g := compile()
	if sc.compileErrs != nil {
		if len(sc.steps) > 0 {
			t.Fatal("a scenario that does not compile has no steps")
		}
		return
	}
	files := sc.files
	if files == nil {
		files = map[string]string{"app.yaml": swConfigMap}
	}
	c := &fakeCluster{objects: map[inventory.ID]Object{}, uids: map[inventory.ID]string{}}
	inv := sc.previous
	for i, st := range sc.steps {
		if st.spec != nil {
			st.spec(&spec)
			g = compile()
		}
		if st.files != nil {
			files = st.files
		}
		if st.live != nil {
			st.live(c)
		}
		if st.dropInventory != nil {
			inv = slices.DeleteFunc(slices.Clone(inv), func(e inventory.Entry) bool { return slices.Contains(st.dropInventory, e.ID().String()) })
		}
		fsys := fstest.MapFS{}
		for name, data := range files {
			fsys[name] = &fstest.MapFile{Data: []byte(data)}
		}
		var (
			p   *Plan
			err error
		)
		if st.finalize {
			p, err = g.Finalize(context.Background(), inv, c.cluster())
		} else {
			p, err = g.Plan(context.Background(), map[string]iofs.FS{"git": fsys}, inv, c.cluster())
		}
		if err != nil {
			t.Fatalf("step %d (%s): %v", i, st.note, err)
		}
		confirmed := apply(c, p, st.failDeletes)
		inv = p.Next(func(e inventory.Entry) bool { return confirmed[e.ID()] })
		checkStep(t, i, st, p, inv)
	}
}

// apply does to the cluster what a controller does with a plan: applies
// the namespaces (their labels and annotations set over the live ones, as
// server-side apply sets the fields it owns) and the artifacts, and
// deletes the deletions, in order, but those that fail; a deleted
// namespace takes the objects in it along. It returns the confirmed
// deletions.
func apply(c *fakeCluster, p *Plan, fail map[string]bool) map[inventory.ID]bool {
	for _, ns := range p.Namespaces {
		id := inventory.ID{Kind: "Namespace", Name: ns.Name}
		o := c.objects[id]
		o.ID = id
		o.Labels = merged(o.Labels, ns.Labels)
		o.Annotations = merged(o.Annotations, ns.Annotations)
		c.objects[id] = o
	}
	for _, a := range p.Artifacts {
		id := inventory.Entry{APIVersion: artifactAPIVersion, Kind: artifactKind, Namespace: a.Namespace, Name: a.Name}.ID()
		c.objects[id] = Object{ID: id, Labels: maps.Clone(a.Labels)}
	}
	confirmed := map[inventory.ID]bool{}
	for _, d := range p.Decisions {
		id := d.Entry.ID()
		if d.Action != inventory.Delete || fail[id.String()] {
			continue
		}
		delete(c.objects, id)
		if id.Kind == "Namespace" {
			for other := range c.objects {
				if other.Namespace == id.Name {
					delete(c.objects, other)
				}
			}
		}
		confirmed[id] = true
	}
	return confirmed
}

func merged(live, desired map[string]string) map[string]string {
	out := maps.Clone(live)
	if out == nil {
		out = map[string]string{}
	}
	maps.Copy(out, desired)
	return out
}

// errStrings renders errs as "field: detail", each cut to the wanted
// substring when its field and substring match a wanted entry, so that a
// cmp.Diff against want shows what differs.
func errStrings(errs field.ErrorList, want []string) []string {
	var out []string
	for _, e := range errs {
		s := e.Field + ": " + e.Detail
		for _, w := range want {
			f, detail, _ := strings.Cut(w, ": ")
			if f == e.Field && strings.Contains(e.Detail, detail) {
				s = w
				break
			}
		}
		out = append(out, s)
	}
	return out
}

func checkStep(t *testing.T, i int, st swStep, p *Plan, next []inventory.Entry) {
	t.Helper()
	var got []string
	for _, d := range p.Decisions {
		got = append(got, d.String())
	}
	if diff := cmp.Diff(st.want, got); diff != "" {
		t.Errorf("step %d (%s): decisions (-want +got):\n%s", i, st.note, diff)
	}
	gotNS := map[string]nsWant{}
	for _, ns := range p.Namespaces {
		gotNS[ns.Name] = nsWant{labels: ns.Labels, annotations: ns.Annotations, conflict: ns.Conflict}
	}
	if st.namespaces == nil {
		st.namespaces = map[string]nsWant{}
	}
	if diff := cmp.Diff(st.namespaces, gotNS, cmp.AllowUnexported(nsWant{}), cmp.Comparer(sameMap)); diff != "" {
		t.Errorf("step %d (%s): namespaces (-want +got):\n%s", i, st.note, diff)
	}
	if diff := cmp.Diff(st.warnings, p.Warnings); diff != "" {
		t.Errorf("step %d (%s): warnings (-want +got):\n%s", i, st.note, diff)
	}
	if diff := cmp.Diff(st.errors, errStrings(p.Errors, st.errors)); diff != "" {
		t.Errorf("step %d (%s): errors (-want +got):\n%s", i, st.note, diff)
	}
	for id, want := range st.inputs {
		j := slices.IndexFunc(p.Artifacts, func(a Artifact) bool {
			return "ExternalArtifact/"+a.Namespace+"/"+a.Name == id
		})
		if j < 0 {
			t.Errorf("step %d (%s): no artifact %s", i, st.note, id)
			continue
		}
		if gotInputs := string(p.Artifacts[j].Inputs); gotInputs != want {
			t.Errorf("step %d (%s): %s inputs %s, want %s", i, st.note, id, gotInputs, want)
		}
	}
	for id, want := range st.artifacts {
		j := slices.IndexFunc(p.Artifacts, func(a Artifact) bool {
			return "ExternalArtifact/"+a.Namespace+"/"+a.Name == id
		})
		if j < 0 {
			t.Errorf("step %d (%s): no artifact %s", i, st.note, id)
		} else if diff := cmp.Diff(want, p.Artifacts[j].Labels); diff != "" {
			t.Errorf("step %d (%s): %s labels (-want +got):\n%s", i, st.note, id, diff)
		}
	}
	if st.conflicts != nil {
		got := map[string]string{}
		for _, a := range p.Artifacts {
			if a.Conflict != "" {
				got["ExternalArtifact/"+a.Namespace+"/"+a.Name] = a.Conflict
			}
		}
		if diff := cmp.Diff(st.conflicts, got); diff != "" {
			t.Errorf("step %d (%s): artifact conflicts (-want +got):\n%s", i, st.note, diff)
		}
	}
	if st.next != nil {
		if diff := cmp.Diff(st.next, ids(next)); diff != "" {
			t.Errorf("step %d (%s): next inventory (-want +got):\n%s", i, st.note, diff)
		}
	}
}

// sameMap compares maps, nil and empty alike.
func sameMap(a, b map[string]string) bool { return maps.Equal(a, b) }
