package inventory

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

var (
	propertySeed  = flag.Uint64("inventory.seed", 1, "seed of TestPassProperty")
	propertySteps = flag.Int("inventory.steps", 4000, "passes checked by TestPassProperty (a tenth of them with -short)")
)

// TestPassProperty runs random sequences of passes (Diff, apply, Collect,
// delete, Next) against a model cluster, with random desired states,
// options, guard outcomes and deletion failures, and checks after every
// pass that:
//
//   - no entry is deleted while a desired entry lives in it, while a guard
//     kept or released it, or against an option (keep-all, namespace
//     pruning off, the deletion guard);
//   - deleting a Namespace takes down no entry that is desired, kept or
//     released in the same pass;
//   - nothing leaks: every live object is tracked by the inventory or was
//     released, and the inventory is sorted and holds each ID once.
//
// The run is reproducible from -inventory.seed.
func TestPassProperty(t *testing.T) {
	t.Parallel()
	steps := *propertySteps
	if testing.Short() {
		steps /= 10
	}
	const stepsPerSequence = 20
	rng := rand.New(rand.NewPCG(*propertySeed, 0x1217))
	checked := 0
	for seq := 0; checked < steps; seq++ {
		m := newModel()
		for range stepsPerSequence {
			m.pass(t, rng)
			checked++
			if t.Failed() {
				t.Fatalf("failed at pass %d of sequence %d (seed %d)", m.step, seq, *propertySeed)
			}
		}
	}
	t.Logf("checked %d passes (seed %d)", checked, *propertySeed)
}

type model struct {
	inventory []Entry
	live      map[ID]Entry
	released  map[ID]bool
	step      int
}

func newModel() *model {
	return &model{live: make(map[ID]Entry), released: make(map[ID]bool)}
}

var guardOutcomes = []Action{Delete, Delete, Delete, Delete, Delete, Delete, Release, Keep, 0 /* error */}

func (m *model) pass(t *testing.T, rng *rand.Rand) {
	t.Helper()
	m.step++
	desired := randomDesired(rng)

	var opts []Option
	keepAll := rng.IntN(10) == 0
	if keepAll {
		opts = append(opts, WithKeepAll("desired state has errors"))
	}
	nsPrune := rng.IntN(5) != 0
	if nsPrune {
		opts = append(opts, WithNamespacePrune())
	}
	maxDeletes := -1
	if rng.IntN(5) == 0 {
		maxDeletes = rng.IntN(4)
		opts = append(opts, WithMaxDeletions(maxDeletes))
	}
	deleteAll := rng.IntN(3) != 0
	if deleteAll {
		opts = append(opts, WithAllowDeleteAll())
	}
	said := make(map[ID]Action) // what the guard answered; 0 for an error
	opts = append(opts, WithGuard(func(_ context.Context, e Entry) (Action, string, error) {
		a := guardOutcomes[rng.IntN(len(guardOutcomes))]
		said[e.ID()] = a
		if a == 0 {
			return 0, "", errors.New("lookup failed")
		}
		return a, "", nil
	}))

	changes, errs := Diff(m.inventory, desired)
	if errs != nil {
		t.Fatalf("Diff: %v", errs)
	}
	for _, e := range desired {
		m.live[e.ID()] = e
		delete(m.released, e.ID())
	}

	decisions, err := Collect(context.Background(), changes, opts...)
	if err != nil && !errors.Is(err, ErrDeletionRefused) {
		t.Fatalf("Collect: %v", err)
	}
	if len(decisions) != len(changes.Stale) {
		t.Fatalf("%d decisions for %d stale entries", len(decisions), len(changes.Stale))
	}

	usedBy := make(map[string]bool) // namespaces of desired entries
	for _, e := range desired {
		usedBy[e.Namespace] = true
	}
	held := make(map[string]bool) // namespaces of stale entries kept or released
	deletes := 0
	for i, d := range decisions {
		id := d.Entry.ID()
		if d.Entry != changes.Stale[i] {
			t.Errorf("decision %d is for %v, want %v", i, d.Entry, changes.Stale[i])
		}
		if d.Action != Delete {
			held[id.Namespace] = true
			continue
		}
		deletes++
		switch {
		case keepAll:
			t.Errorf("%v deleted with keep-all on", id)
		case id.IsNamespace() && usedBy[id.Name]:
			t.Errorf("%v deleted while a desired entry lives in it", id)
		case id.IsNamespace() && !nsPrune:
			t.Errorf("%v deleted with namespace pruning off", id)
		case said[id] != Delete:
			t.Errorf("%v deleted though the guard answered %v", id, said[id])
		}
	}
	for _, d := range decisions {
		if id := d.Entry.ID(); d.Action == Delete && id.IsNamespace() && held[id.Name] {
			t.Errorf("%v deleted while it holds a kept or released entry", id)
		}
	}
	if maxDeletes >= 0 && deletes > maxDeletes {
		t.Errorf("%d deletions with WithMaxDeletions(%d)", deletes, maxDeletes)
	}
	if !deleteAll && deletes > 0 && deletes == len(m.inventory) {
		t.Errorf("%d deletions, every tracked entry, without WithAllowDeleteAll", deletes)
	}
	if errors.Is(err, ErrDeletionRefused) {
		// A refusal must be one of the two rules, and keep every deletion.
		refused := 0
		for _, d := range decisions {
			if d.Action == Keep && strings.HasPrefix(d.Reason, "deletion refused: ") {
				refused++
			}
		}
		overMax := maxDeletes >= 0 && refused > maxDeletes
		all := !deleteAll && refused == len(m.inventory)
		if deletes > 0 || refused == 0 || !overMax && !all {
			t.Errorf("refused pass (%v) with %d deletions and %d refused of %d tracked", err, deletes, refused, len(m.inventory))
		}
	}

	// Delete, failing a fifth of the time; a deleted Namespace takes its
	// objects with it.
	confirmed := make(map[ID]bool)
	for _, d := range decisions {
		if d.Action != Delete || rng.IntN(5) == 0 {
			continue
		}
		id := d.Entry.ID()
		confirmed[id] = true
		delete(m.live, id)
		if !id.IsNamespace() {
			continue
		}
		for lid := range m.live {
			if lid.Namespace == id.Name {
				if usedBy[lid.Namespace] {
					t.Errorf("deleting %v took down desired %v", id, lid)
				}
				delete(m.live, lid)
			}
		}
	}
	for _, d := range decisions {
		if d.Action != Delete && !d.Entry.ID().IsNamespace() && confirmed[ID{Kind: KindNamespace, Name: d.Entry.Namespace}] {
			t.Errorf("deleting Namespace/%s took down %v, which is %s", d.Entry.Namespace, d.Entry.ID(), d.Action.Verb())
		}
	}

	next := Next(desired, decisions, func(e Entry) bool { return confirmed[e.ID()] })
	tracked := make(map[ID]bool)
	for _, e := range next {
		tracked[e.ID()] = true
	}
	for i := 1; i < len(next); i++ {
		if compareApply(next[i-1].ID(), next[i].ID()) >= 0 {
			t.Errorf("next inventory not sorted or not unique at %d: %v", i, next)
		}
	}
	for _, d := range decisions {
		id := d.Entry.ID()
		if d.Action == Release {
			m.released[id] = true
		}
		if want := d.Action == Keep || d.Action == Delete && !confirmed[id]; tracked[id] != want {
			t.Errorf("%v %s (confirmed %v): tracked %v, want %v", id, d.Action, confirmed[id], tracked[id], want)
		}
	}
	for _, e := range desired {
		if !tracked[e.ID()] {
			t.Errorf("desired %v not tracked", e.ID())
		}
	}
	for id := range m.live {
		if !tracked[id] && !m.released[id] {
			t.Errorf("leak: %v is live, neither tracked nor released", id)
		}
	}
	m.inventory = next
}

// randomDesired returns the desired state of a generator over 4 tenants of
// 3 modules each: each module is desired half the time, a tenant's
// Namespace most of the time when one of its modules is, and nothing at all
// one time in ten.
func randomDesired(rng *rand.Rand) []Entry {
	if rng.IntN(10) == 0 {
		return nil
	}
	var desired []Entry
	for tenant := range 4 {
		ns := fmt.Sprintf("tenant-%d", tenant)
		any := false
		for module := range 3 {
			if rng.IntN(2) == 0 {
				desired = append(desired, ea(ns, fmt.Sprintf("app-%d", module), dg(fmt.Sprint(rng.IntN(2)))))
				any = true
			}
		}
		if any && rng.IntN(7) != 0 {
			desired = append(desired, nsEntry(ns, dg(fmt.Sprint(rng.IntN(2)))))
		}
	}
	rng.Shuffle(len(desired), func(i, j int) { desired[i], desired[j] = desired[j], desired[i] })
	return desired
}
