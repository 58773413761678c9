package inventory

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/opencontainers/go-digest"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

func TestDiff(t *testing.T) {
	t.Parallel()
	a1, a2 := ea("tenant-a", "app", dg("1")), ea("tenant-a", "app", dg("2"))
	b1 := ea("tenant-b", "web", dg("1"))
	c1 := ea("tenant-a", "zz", dg("1"))
	nsA1 := nsEntry("tenant-a", dg("ns"))
	nsB1 := nsEntry("tenant-b", dg("ns"))
	tests := []struct {
		name    string
		old     []Entry
		desired []Entry
		want    Changes
	}{
		{name: "both empty", want: Changes{Create: []Entry{}, Update: []Entry{}, Unchanged: []Entry{}, Stale: []Entry{}}},
		{name: "all new, in apply order", desired: []Entry{a1, nsA1},
			want: Changes{Create: []Entry{nsA1, a1}, Update: []Entry{}, Unchanged: []Entry{}, Stale: []Entry{}}},
		{name: "all stale, in prune order", old: []Entry{nsA1, a1, nsB1, b1},
			want: Changes{Create: []Entry{}, Update: []Entry{}, Unchanged: []Entry{}, Stale: []Entry{b1, a1, nsB1, nsA1}}},
		{name: "update on digest", old: []Entry{nsA1, a1}, desired: []Entry{nsA1, a2},
			want: Changes{Create: []Entry{}, Update: []Entry{a2}, Unchanged: []Entry{nsA1}, Stale: []Entry{}}},
		{name: "empty digest against a digest is an update", old: []Entry{ea("tenant-a", "app", "")}, desired: []Entry{a1},
			want: Changes{Create: []Entry{}, Update: []Entry{a1}, Unchanged: []Entry{}, Stale: []Entry{}}},
		{name: "version is not compared", old: []Entry{{APIVersion: "source.toolkit.fluxcd.io/v1beta1", Kind: "ExternalArtifact", Namespace: "tenant-a", Name: "app", Digest: dg("1")}},
			desired: []Entry{a1},
			want:    Changes{Create: []Entry{}, Update: []Entry{}, Unchanged: []Entry{a1}, Stale: []Entry{}}},
		{name: "empty kind equals ExternalArtifact", old: []Entry{{Namespace: "tenant-a", Name: "app", Digest: dg("1")}}, desired: []Entry{a1},
			want: Changes{Create: []Entry{}, Update: []Entry{}, Unchanged: []Entry{a1}, Stale: []Entry{}}},
		{name: "a custom Namespace kind is another object", old: []Entry{{APIVersion: "example.com/v1", Kind: "Namespace", Name: "tenant-a"}},
			desired: []Entry{nsA1},
			want: Changes{Create: []Entry{nsA1}, Update: []Entry{}, Unchanged: []Entry{},
				Stale: []Entry{{APIVersion: "example.com/v1", Kind: "Namespace", Name: "tenant-a"}}}},
		{name: "mixed, unsorted input", old: []Entry{c1, a1, nsA1, b1}, desired: []Entry{b1, a2, nsB1, nsA1},
			want: Changes{Create: []Entry{nsB1}, Update: []Entry{a2}, Unchanged: []Entry{nsA1, b1}, Stale: []Entry{c1}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := Diff(tt.old, tt.desired)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Diff mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDiffErrors(t *testing.T) {
	t.Parallel()
	a1 := ea("tenant-a", "app", dg("1"))
	tests := []struct {
		name    string
		old     []Entry
		desired []Entry
		want    []fieldErr
	}{
		{name: "duplicate in old", old: []Entry{a1, nsA, a1, a1},
			want: []fieldErr{{"old[2]", field.ErrorTypeDuplicate}, {"old[3]", field.ErrorTypeDuplicate}}},
		{name: "duplicate in unsorted desired, reported in index order", desired: []Entry{a1, nsA, nsB, ea("tenant-a", "app", dg("2")), nsEntry("tenant-b", dg("x"))},
			want: []fieldErr{{"desired[3]", field.ErrorTypeDuplicate}, {"desired[4]", field.ErrorTypeDuplicate}}},
		{name: "same object in two versions is a duplicate", desired: []Entry{a1, {APIVersion: "source.toolkit.fluxcd.io/v2", Kind: "ExternalArtifact", Namespace: "tenant-a", Name: "app"}},
			want: []fieldErr{{"desired[1]", field.ErrorTypeDuplicate}}},
		{name: "malformed digest", old: []Entry{ea("tenant-a", "app", "sha256:abc")}, desired: []Entry{a1, ea("tenant-a", "b", "sha256:xyz")},
			want: []fieldErr{{"old[0].digest", field.ErrorTypeInvalid}, {"desired[1].digest", field.ErrorTypeInvalid}}},
		{name: "everything, in index order, old before desired",
			old:     []Entry{a1, a1, ea("tenant-a", "", "")},
			desired: []Entry{nsA, nsA, {Kind: "Deployment", Name: "x"}},
			want: []fieldErr{
				{"old[1]", field.ErrorTypeDuplicate}, {"old[2].name", field.ErrorTypeRequired},
				{"desired[1]", field.ErrorTypeDuplicate}, {"desired[2].apiVersion", field.ErrorTypeRequired},
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, errs := Diff(tt.old, tt.desired)
			if diff := cmp.Diff(tt.want, reduce(errs)); diff != "" {
				t.Errorf("errors mismatch (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(Changes{}, got); diff != "" {
				t.Errorf("Changes on error not zero:\n%s", diff)
			}
		})
	}
}

func TestDiffErrorNamesEntry(t *testing.T) {
	t.Parallel()
	_, errs := Diff(nil, []Entry{ea("tenant-a", "app", "sha256:abc")})
	err := errs.ToAggregate()
	for _, part := range []string{"desired[0].digest", `"sha256:abc"`} {
		if !strings.Contains(err.Error(), part) {
			t.Errorf("error %q does not contain %q", err, part)
		}
	}
	// Issue 15: a duplicate is named for people, not as a Flux id.
	_, errs = Diff([]Entry{nsA, nsA}, nil)
	if got, want := errs.ToAggregate().Error(), `old[1]: Duplicate value: "Namespace/tenant-a"`; got != want {
		t.Errorf("error %q, want %q", got, want)
	}
}

var a1dup = ea("tenant-a", "app", "")

func TestChangesDecisions(t *testing.T) {
	t.Parallel()
	ch := Changes{
		Create:    []Entry{nsB, appB},
		Update:    []Entry{nsA},
		Unchanged: []Entry{appA},
		Stale:     []Entry{cm},
	}
	want := []Decision{
		{Entry: nsA, Action: Update},
		{Entry: nsB, Action: Create},
		{Entry: appA, Action: Unchanged},
		{Entry: appB, Action: Create},
	}
	if diff := cmp.Diff(want, ch.Decisions()); diff != "" {
		t.Errorf("Decisions mismatch (-want +got):\n%s", diff)
	}
	if got := (Changes{Stale: []Entry{cm}}).Decisions(); got != nil {
		t.Errorf("Decisions of no desired entries = %v, want nil", got)
	}
}

// benchLists returns an inventory and a desired state of n entries each, as
// an ArtifactGenerator would hold them: a Namespace and 9 ExternalArtifacts
// per tenant. A tenth of desired is new, a tenth changed, and a tenth of the
// inventory is stale. Both lists are in apply order, as Next writes an
// inventory and as discovery in path order yields a desired state; with
// order "nearly", desired then has 1% of its entries swapped with a random
// other; with "shuffled", both are in random order, the worst case.
func benchLists(n int, order string) (old, desired []Entry) {
	rng := rand.New(rand.NewPCG(uint64(n), 1))
	dg := func(i, gen int) digest.Digest { return digest.FromString(fmt.Sprintf("%d/%d", i, gen)) }
	entry := func(i int) Entry {
		ns := fmt.Sprintf("tenant-%d", i/10)
		if i%10 == 0 {
			return Entry{Kind: "Namespace", Name: ns, Digest: dg(i, 0)}
		}
		return Entry{Kind: "ExternalArtifact", Namespace: ns, Name: fmt.Sprintf("module-%d", i), Digest: dg(i, 0)}
	}
	for i := range n {
		e := entry(i)
		switch i % 10 {
		case 3: // stale
			old = append(old, e)
			e = entry(n + i)
			desired = append(desired, e) // created
		case 5: // updated
			old = append(old, e)
			e.Digest = dg(i, 1)
			desired = append(desired, e)
		default:
			old = append(old, e)
			desired = append(desired, e)
		}
	}
	SortApply(old)
	SortApply(desired)
	switch order {
	case "nearly":
		for range n / 100 {
			i, j := rng.IntN(n), rng.IntN(n)
			desired[i], desired[j] = desired[j], desired[i]
		}
	case "shuffled":
		rng.Shuffle(len(old), func(i, j int) { old[i], old[j] = old[j], old[i] })
		rng.Shuffle(len(desired), func(i, j int) { desired[i], desired[j] = desired[j], desired[i] })
	}
	return relocate(old), relocate(desired)
}

// relocate copies the strings of entries in list order, as a decoder
// reading the list would lay them out in memory.
func relocate(entries []Entry) []Entry {
	for i, e := range entries {
		entries[i] = Entry{
			APIVersion: strings.Clone(e.APIVersion),
			Kind:       strings.Clone(e.Kind),
			Namespace:  strings.Clone(e.Namespace),
			Name:       strings.Clone(e.Name),
			Filename:   strings.Clone(e.Filename),
			Digest:     digest.Digest(strings.Clone(string(e.Digest))),
		}
	}
	return entries
}

// BenchmarkDiff reports ns/entry, the time per entry of each list, which
// must stay flat (within 2x) from 1,000 to 100,000 entries.
func BenchmarkDiff(b *testing.B) {
	for _, order := range []string{"sorted", "nearly", "shuffled"} {
		for _, n := range []int{1_000, 10_000, 100_000} {
			benchmarkDiff(b, order, n)
		}
	}
}

func benchmarkDiff(b *testing.B, order string, n int) {
	b.Run(fmt.Sprintf("order=%s/entries=%d", order, n), func(b *testing.B) {
		old, desired := benchLists(n, order)
		b.ReportAllocs()
		for b.Loop() {
			if _, err := Diff(old, desired); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/entry")
	})
}
