package inventory

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestNext(t *testing.T) {
	t.Parallel()
	a2 := ea("tenant-a", "app", dg("2"))
	del1, del2 := ea("tenant-a", "d1", ""), ea("tenant-a", "d2", "")
	kept, released := ea("tenant-b", "kept", ""), ea("tenant-b", "released", "")
	confirmed := func(e Entry) bool { return e == del1 }
	tests := []struct {
		name      string
		desired   []Entry
		decisions []Decision
		deleted   func(Entry) bool
		want      []Entry
	}{
		{name: "empty", want: []Entry{}},
		{name: "desired sorted", desired: []Entry{appA, nsA}, want: []Entry{nsA, appA}},
		{name: "keep, release, delete", desired: []Entry{appA},
			decisions: []Decision{
				{Entry: del1, Action: Delete}, {Entry: del2, Action: Delete},
				{Entry: kept, Action: Keep, Reason: "r"}, {Entry: released, Action: Release, Reason: "r"},
				{Entry: nsB, Action: Keep},
			},
			deleted: confirmed,
			want:    []Entry{nsB, appA, del2, kept}},
		{name: "nil deleted confirms nothing", decisions: []Decision{{Entry: del1, Action: Delete}},
			want: []Entry{del1}},
		{name: "desired wins over a decision for the same ID", desired: []Entry{a2},
			decisions: []Decision{{Entry: appA, Action: Keep}},
			want:      []Entry{a2}},
		{name: "first of duplicate desired wins", desired: []Entry{a2, appA}, want: []Entry{a2}},
		{name: "results decide without deleted", desired: []Entry{appA},
			decisions: []Decision{
				{Entry: del1, Action: Delete, Result: DeletionFailed},
				{Entry: del2, Action: Delete, Result: Deleted},
				{Entry: kept, Action: Delete, Result: PruningDisabled},
				{Entry: released, Action: Delete},
			},
			deleted: func(e Entry) bool { return e != released },
			want:    []Entry{appA, del1, released}},
		{name: "a result on another action changes nothing", desired: nil,
			decisions: []Decision{{Entry: kept, Action: Keep, Result: Deleted}, {Entry: released, Action: Release, Result: DeletionFailed}},
			want:      []Entry{kept}},
		{name: "an invalid result: deleted decides", decisions: []Decision{{Entry: del1, Action: Delete, Result: 7}},
			deleted: confirmed, want: []Entry{}},
		{name: "apply-side and invalid actions stay tracked", desired: nil,
			decisions: []Decision{{Entry: appA, Action: Create}, {Entry: appB, Action: 0}},
			want:      []Entry{appA, appB}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := Next(tt.desired, tt.decisions, tt.deleted)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Next mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestNextCallsDeletedOncePerDelete(t *testing.T) {
	t.Parallel()
	var calls []Entry
	decisions := []Decision{
		{Entry: appA, Action: Delete}, {Entry: appB, Action: Keep}, {Entry: nsA, Action: Delete}, {Entry: nsB, Action: Release},
	}
	Next(nil, decisions, func(e Entry) bool {
		calls = append(calls, e)
		return false
	})
	if diff := cmp.Diff([]Entry{appA, nsA}, calls); diff != "" {
		t.Errorf("deleted calls mismatch (-want +got):\n%s", diff)
	}
}

func TestNextSkipsDeletedForResults(t *testing.T) {
	t.Parallel()
	var calls []Entry
	Next(nil, []Decision{
		{Entry: appA, Action: Delete, Result: Deleted}, {Entry: appB, Action: Delete}, {Entry: nsA, Action: Delete, Result: DeletionFailed},
	}, func(e Entry) bool {
		calls = append(calls, e)
		return true
	})
	if diff := cmp.Diff([]Entry{appB}, calls); diff != "" {
		t.Errorf("deleted calls (-want +got):\n%s", diff)
	}
}
