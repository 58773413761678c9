package inventory

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var (
	crdA    = Entry{APIVersion: "apiextensions.k8s.io/v1", Kind: "CustomResourceDefinition", Name: "a.example.com"}
	crdB    = Entry{APIVersion: "apiextensions.k8s.io/v1", Kind: "CustomResourceDefinition", Name: "b.example.com"}
	nsA     = nsEntry("tenant-a", "")
	nsB     = nsEntry("tenant-b", "")
	fakeNS  = Entry{APIVersion: "example.com/v1", Kind: "Namespace", Name: "aaa"} // not a Namespace
	deploy  = Entry{APIVersion: "apps/v1", Kind: "Deployment", Namespace: "tenant-a", Name: "web"}
	cm      = Entry{APIVersion: "v1", Kind: "ConfigMap", Namespace: "tenant-a", Name: "c"}
	appA    = ea("tenant-a", "app", "")
	appB    = ea("tenant-b", "app", "")
	inApply = []Entry{crdA, crdB, nsA, nsB, cm, deploy, fakeNS, appA, appB}
)

func TestSortApply(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   []Entry
		want []Entry
	}{
		{name: "empty"},
		{name: "sorted stays", in: inApply, want: inApply},
		{name: "reversed", in: reversed(inApply), want: inApply},
		{name: "equal IDs keep their order", in: []Entry{appA, ea("tenant-a", "app", dg("2")), nsA},
			want: []Entry{nsA, appA, ea("tenant-a", "app", dg("2"))}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := slices.Clone(tt.in)
			SortApply(got)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("SortApply mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSortPrune(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   []Entry
		want []Entry
	}{
		{name: "empty"},
		{name: "reverse of apply", in: inApply, want: reversed(inApply)},
		{name: "equal IDs keep their order", in: []Entry{appA, nsA, ea("tenant-a", "app", dg("2"))},
			want: []Entry{appA, ea("tenant-a", "app", dg("2")), nsA}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := slices.Clone(tt.in)
			SortPrune(got)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("SortPrune mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

// TestSortShuffled checks both sorts, and both paths of applyOrder (the
// sorted check and the full sort), on random permutations.
func TestSortShuffled(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	for range 50 {
		in := slices.Clone(inApply)
		rng.Shuffle(len(in), func(i, j int) { in[i], in[j] = in[j], in[i] })
		got := slices.Clone(in)
		SortApply(got)
		if diff := cmp.Diff(inApply, got); diff != "" {
			t.Fatalf("SortApply(%v) mismatch (-want +got):\n%s", in, diff)
		}
		SortPrune(in)
		if diff := cmp.Diff(reversed(inApply), in); diff != "" {
			t.Fatalf("SortPrune mismatch (-want +got):\n%s", diff)
		}
	}
}

func reversed(es []Entry) []Entry {
	out := slices.Clone(es)
	slices.Reverse(out)
	return out
}
