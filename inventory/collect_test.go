package inventory

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// guardFor returns a guard that answers per subject, and Delete otherwise.
func guardFor(answers map[string]Decision, errs map[string]error) Guard {
	return func(_ context.Context, e Entry) (Action, string, error) {
		s := e.ID().String()
		if err := errs[s]; err != nil {
			return 0, "", err
		}
		if d, ok := answers[s]; ok {
			return d.Action, d.Reason, nil
		}
		return Delete, "", nil
	}
}

func TestCollect(t *testing.T) {
	t.Parallel()
	old1 := ea("tenant-a", "old", "")
	old2 := ea("tenant-b", "gone", "")
	webB := ea("tenant-b", "web", "")
	tests := []struct {
		name  string
		stale []Entry
		// desired entries were tracked (Unchanged); created ones were not.
		desired, created []Entry
		opts             []Option
		// noPrune leaves out WithNamespacePrune and WithAllowDeleteAll,
		// which every other case gets first.
		noPrune bool
		want    []Decision
		refused string // the error's text after "inventory: deletion refused: "
	}{
		{name: "nothing stale", desired: []Entry{appA}, want: []Decision{}},
		{name: "delete in prune order", stale: []Entry{nsB, old2, nsA, old1}, desired: []Entry{nsEntry("tenant-c", "")},
			want: []Decision{
				{Entry: old2, Action: Delete}, {Entry: old1, Action: Delete},
				{Entry: nsB, Action: Delete}, {Entry: nsA, Action: Delete},
			}},
		{name: "namespace in use by a desired entry", stale: []Entry{nsA, nsB}, desired: []Entry{ea("tenant-b", "z", ""), webB},
			want: []Decision{
				{Entry: nsB, Action: Keep, Reason: "in use by ExternalArtifact/tenant-b/web"},
				{Entry: nsA, Action: Delete},
			}},
		{name: "in use names the first user in apply order", stale: []Entry{nsA}, desired: []Entry{appA, cm, deploy},
			want: []Decision{{Entry: nsA, Action: Keep, Reason: "in use by ConfigMap/tenant-a/c"}}},
		{name: "a custom Namespace kind is never in use", stale: []Entry{{APIVersion: "example.com/v1", Kind: "Namespace", Name: "tenant-a"}}, desired: []Entry{appA},
			want: []Decision{{Entry: Entry{APIVersion: "example.com/v1", Kind: "Namespace", Name: "tenant-a"}, Action: Delete}}},
		{name: "namespace pruning off", stale: []Entry{nsA, nsB, old1}, desired: []Entry{webB}, noPrune: true,
			want: []Decision{
				{Entry: old1, Action: Delete},
				{Entry: nsB, Action: Keep, Reason: "in use by ExternalArtifact/tenant-b/web"},
				{Entry: nsA, Action: Release, Reason: "namespace pruning is off"},
			}},
		{name: "namespace pruning on", stale: []Entry{nsA}, desired: []Entry{webB}, opts: []Option{WithNamespacePrune()},
			want: []Decision{{Entry: nsA, Action: Delete}}},
		{name: "guard release and keep", stale: []Entry{old1, old2, nsA, nsB}, desired: []Entry{appA},
			opts: []Option{WithGuard(guardFor(map[string]Decision{
				"ExternalArtifact/tenant-b/gone": {Action: Release, Reason: "prune disabled"},
				"Namespace/tenant-b":             {Action: Keep},
			}, nil))},
			want: []Decision{
				{Entry: old2, Action: Release, Reason: "prune disabled"},
				{Entry: old1, Action: Delete},
				{Entry: nsB, Action: Keep, Reason: "kept by a guard"},
				{Entry: nsA, Action: Keep, Reason: "in use by ExternalArtifact/tenant-a/app"},
			}},
		{name: "guard release without reason", stale: []Entry{old1}, desired: []Entry{appA},
			opts: []Option{WithGuard(guardFor(map[string]Decision{"ExternalArtifact/tenant-a/old": {Action: Release}}, nil))},
			want: []Decision{{Entry: old1, Action: Release, Reason: "released by a guard"}}},
		{name: "guard error keeps", stale: []Entry{old1, nsA}, desired: []Entry{webB},
			opts: []Option{WithGuard(guardFor(nil, map[string]error{"Namespace/tenant-a": errors.New("lookup failed")}))},
			want: []Decision{
				{Entry: old1, Action: Delete},
				{Entry: nsA, Action: Keep, Reason: "guard failed: lookup failed"},
			}},
		{name: "guard invalid action keeps", stale: []Entry{old1}, desired: []Entry{appA},
			opts: []Option{WithGuard(guardFor(map[string]Decision{"ExternalArtifact/tenant-a/old": {Action: Create}}, nil))},
			want: []Decision{{Entry: old1, Action: Keep, Reason: "guard failed: returned action create, want delete, release or keep"}}},
		{name: "first guard that objects decides", stale: []Entry{old1}, desired: []Entry{appA},
			opts: []Option{
				WithGuard(guardFor(nil, nil)),
				WithGuard(guardFor(map[string]Decision{"ExternalArtifact/tenant-a/old": {Action: Release, Reason: "second"}}, nil)),
				WithGuard(guardFor(map[string]Decision{"ExternalArtifact/tenant-a/old": {Action: Keep, Reason: "third"}}, nil)),
			},
			want: []Decision{{Entry: old1, Action: Release, Reason: "second"}}},
		{name: "a guard's delete reason is the deletion's, the first one given", stale: []Entry{old1}, desired: []Entry{appA},
			opts: []Option{
				WithGuard(guardFor(nil, nil)),
				WithGuard(guardFor(map[string]Decision{"ExternalArtifact/tenant-a/old": {Action: Delete, Reason: "no longer desired"}}, nil)),
				WithGuard(guardFor(map[string]Decision{"ExternalArtifact/tenant-a/old": {Action: Delete, Reason: "third"}}, nil)),
			},
			want: []Decision{{Entry: old1, Action: Delete, Reason: "no longer desired"}}},
		{name: "a later guard's keep wins over a delete reason", stale: []Entry{old1}, desired: []Entry{appA},
			opts: []Option{
				WithGuard(guardFor(map[string]Decision{"ExternalArtifact/tenant-a/old": {Action: Delete, Reason: "no longer desired"}}, nil)),
				WithGuard(guardFor(map[string]Decision{"ExternalArtifact/tenant-a/old": {Action: Keep, Reason: "busy"}}, nil)),
			},
			want: []Decision{{Entry: old1, Action: Keep, Reason: "busy"}}},
		{name: "a refused deletion's reason is the refusal", stale: []Entry{old1}, desired: []Entry{appA},
			opts:    []Option{WithMaxDeletions(0), WithGuard(guardFor(map[string]Decision{"ExternalArtifact/tenant-a/old": {Action: Delete, Reason: "no longer desired"}}, nil))},
			want:    []Decision{{Entry: old1, Action: Keep, Reason: "deletion refused: the pass would delete 1 object, more than the maximum of 0"}},
			refused: "the pass would delete 1 object, more than the maximum of 0"},
		{name: "namespace holding a kept entry is kept", stale: []Entry{nsA, old1, ea("tenant-a", "old2", "")}, desired: []Entry{webB},
			opts: []Option{WithGuard(guardFor(map[string]Decision{"ExternalArtifact/tenant-a/old2": {Action: Keep, Reason: "busy"}}, nil))},
			want: []Decision{
				{Entry: ea("tenant-a", "old2", ""), Action: Keep, Reason: "busy"},
				{Entry: old1, Action: Delete},
				{Entry: nsA, Action: Keep, Reason: "in use by ExternalArtifact/tenant-a/old2, which is kept"},
			}},
		{name: "namespace holding a released entry is kept", stale: []Entry{nsA, old1}, desired: []Entry{webB},
			opts: []Option{WithGuard(guardFor(map[string]Decision{"ExternalArtifact/tenant-a/old": {Action: Release, Reason: "prune disabled"}}, nil))},
			want: []Decision{
				{Entry: old1, Action: Release, Reason: "prune disabled"},
				{Entry: nsA, Action: Keep, Reason: "in use by ExternalArtifact/tenant-a/old, which is released"},
			}},
		{name: "guard release of the namespace wins over its kept entries", stale: []Entry{nsA, old1}, desired: []Entry{webB},
			opts: []Option{WithGuard(guardFor(map[string]Decision{
				"ExternalArtifact/tenant-a/old": {Action: Keep, Reason: "busy"},
				"Namespace/tenant-a":            {Action: Release, Reason: "handed off"},
			}, nil))},
			want: []Decision{
				{Entry: old1, Action: Keep, Reason: "busy"},
				{Entry: nsA, Action: Release, Reason: "handed off"},
			}},
		{name: "keep all", stale: []Entry{old1, nsA}, desired: []Entry{webB},
			opts: []Option{WithKeepAll("desired state has errors"), WithGuard(func(context.Context, Entry) (Action, string, error) {
				panic("guard must not run")
			})},
			want: []Decision{
				{Entry: old1, Action: Keep, Reason: "desired state has errors"},
				{Entry: nsA, Action: Keep, Reason: "desired state has errors"},
			}},
		{name: "max deletions not exceeded", stale: []Entry{old1, old2}, desired: []Entry{webB}, opts: []Option{WithMaxDeletions(2)},
			want: []Decision{{Entry: old2, Action: Delete}, {Entry: old1, Action: Delete}}},
		{name: "max deletions exceeded keeps every deletion", stale: []Entry{old1, old2, nsB, ea("tenant-a", "old3", "")}, desired: []Entry{appA},
			opts: []Option{WithMaxDeletions(1), WithGuard(guardFor(map[string]Decision{"ExternalArtifact/tenant-b/gone": {Action: Release, Reason: "r"}}, nil))},
			want: []Decision{
				{Entry: old2, Action: Release, Reason: "r"},
				{Entry: ea("tenant-a", "old3", ""), Action: Keep, Reason: "deletion refused: the pass would delete 2 objects, more than the maximum of 1"},
				{Entry: old1, Action: Keep, Reason: "deletion refused: the pass would delete 2 objects, more than the maximum of 1"},
				{Entry: nsB, Action: Keep, Reason: "in use by ExternalArtifact/tenant-b/gone, which is released"},
			},
			refused: "the pass would delete 2 objects, more than the maximum of 1"},
		{name: "max deletions zero", stale: []Entry{old1}, desired: []Entry{webB}, opts: []Option{WithMaxDeletions(0)},
			want:    []Decision{{Entry: old1, Action: Keep, Reason: "deletion refused: the pass would delete 1 object, more than the maximum of 0"}},
			refused: "the pass would delete 1 object, more than the maximum of 0"},
		{name: "delete all allowed", stale: []Entry{old1, nsA},
			want: []Decision{{Entry: old1, Action: Delete}, {Entry: nsA, Action: Delete}}},
		{name: "delete all refused by default", stale: []Entry{old1, nsA}, noPrune: true, opts: []Option{WithNamespacePrune()},
			want: []Decision{
				{Entry: old1, Action: Keep, Reason: "deletion refused: the pass would delete every one of the 2 objects of the inventory, which a wrong source or pattern looks like"},
				{Entry: nsA, Action: Keep, Reason: "deletion refused: the pass would delete every one of the 2 objects of the inventory, which a wrong source or pattern looks like"},
			},
			refused: "the pass would delete every one of the 2 objects of the inventory, which a wrong source or pattern looks like"},
		{name: "delete all refused when everything desired is new", stale: []Entry{old1}, created: []Entry{webB}, noPrune: true,
			want:    []Decision{{Entry: old1, Action: Keep, Reason: "deletion refused: the pass would delete the one object of the inventory, which a wrong source or pattern looks like"}},
			refused: "the pass would delete the one object of the inventory, which a wrong source or pattern looks like"},
		{name: "delete all refusal needs a deletion", stale: []Entry{nsA}, noPrune: true,
			want: []Decision{{Entry: nsA, Action: Release, Reason: "namespace pruning is off"}}},
		{name: "delete all refusal needs every tracked entry deleted", stale: []Entry{old1}, desired: []Entry{webB}, noPrune: true,
			want: []Decision{{Entry: old1, Action: Delete}}},
		{name: "delete all refusal counts a released entry as surviving", stale: []Entry{old1, nsB}, noPrune: true,
			want: []Decision{{Entry: old1, Action: Delete}, {Entry: nsB, Action: Release, Reason: "namespace pruning is off"}}},
		{name: "max deletions before delete all", stale: []Entry{old1, old2}, noPrune: true, opts: []Option{WithMaxDeletions(1)},
			want: []Decision{
				{Entry: old2, Action: Keep, Reason: "deletion refused: the pass would delete 2 objects, more than the maximum of 1"},
				{Entry: old1, Action: Keep, Reason: "deletion refused: the pass would delete 2 objects, more than the maximum of 1"},
			},
			refused: "the pass would delete 2 objects, more than the maximum of 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			opts := tt.opts
			if !tt.noPrune {
				opts = append([]Option{WithNamespacePrune(), WithAllowDeleteAll()}, opts...)
			}
			got, err := Collect(context.Background(), Changes{Create: tt.created, Unchanged: tt.desired, Stale: tt.stale}, opts...)
			switch {
			case tt.refused == "" && err != nil:
				t.Fatal(err)
			case tt.refused != "" && (!errors.Is(err, ErrDeletionRefused) || err.Error() != "inventory: deletion refused: "+tt.refused):
				t.Errorf("Collect() error = %v, want ErrDeletionRefused: %s", err, tt.refused)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Collect mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCollectErrorsKeepEverything(t *testing.T) {
	t.Parallel()
	old1 := ea("tenant-a", "old", "")
	tests := []struct {
		name    string
		stale   []Entry
		desired []Entry
		opts    []Option
		is      error           // for an option
		want    field.ErrorType // for an entry
	}{
		{name: "negative max deletions", stale: []Entry{old1, nsA}, opts: []Option{WithMaxDeletions(-1)}, is: ErrInvalidOption},
		{name: "empty keep-all reason", stale: []Entry{old1, nsA}, opts: []Option{WithKeepAll("")}, is: ErrInvalidOption},
		{name: "nil guard", stale: []Entry{old1, nsA}, opts: []Option{WithGuard(nil)}, is: ErrInvalidOption},
		{name: "nil option", stale: []Entry{old1, nsA}, opts: []Option{nil}, is: ErrInvalidOption},
		{name: "invalid stale entry", stale: []Entry{old1, nsA, ea("tenant-a", "x", "sha256:bad")}, want: field.ErrorTypeInvalid},
		{name: "duplicate stale entry", stale: []Entry{old1, nsA, old1}, want: field.ErrorTypeDuplicate},
		{name: "invalid desired entry", stale: []Entry{old1, nsA}, desired: []Entry{{Kind: "Deployment", Name: "x"}}, want: field.ErrorTypeRequired},
		{name: "stale entry also desired", stale: []Entry{old1, nsA}, desired: []Entry{appA, nsA}, want: field.ErrorTypeDuplicate},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := Collect(context.Background(), Changes{Unchanged: tt.desired, Stale: tt.stale}, tt.opts...)
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Fatalf("Collect() error = %v, want %v", err, tt.is)
			}
			if tt.is == nil {
				if errs := fieldErrors(t, err); len(errs) != 1 || errs[0].Type != tt.want {
					t.Fatalf("Collect() error = %v, want one %v", err, tt.want)
				}
			}
			if len(got) != len(tt.stale) {
				t.Fatalf("got %d decisions, want one per stale entry (%d)", len(got), len(tt.stale))
			}
			for _, d := range got {
				if d.Action != Keep || d.Reason != err.Error() {
					t.Errorf("decision %v, want Keep with the error as reason", d)
				}
			}
			if got[len(got)-1].Entry != nsA {
				t.Errorf("decisions not in prune order: %v", got)
			}
		})
	}
}

// TestCollectIDInTwoLists checks that an ID in two lists of the changes (a
// stale entry that is also desired) is a Duplicate error at the later one.
func TestCollectIDInTwoLists(t *testing.T) {
	t.Parallel()
	_, err := Collect(context.Background(), Changes{Create: []Entry{appA}, Unchanged: []Entry{nsA}, Stale: []Entry{appB, nsA}})
	want := []fieldErr{{"stale[1]", field.ErrorTypeDuplicate}}
	if diff := cmp.Diff(want, reduce(fieldErrors(t, err))); diff != "" {
		t.Errorf("mismatch (-want +got):\n%s", diff)
	}
}

func TestCollectContextDone(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	calls := 0
	guard := func(context.Context, Entry) (Action, string, error) {
		calls++
		cancel()
		return Delete, "", nil
	}
	stale := []Entry{ea("tenant-a", "a", ""), ea("tenant-a", "b", "")}
	got, err := Collect(ctx, Changes{Stale: stale}, WithGuard(guard), WithAllowDeleteAll())
	if err != nil {
		t.Fatal(err)
	}
	if calls != 1 {
		t.Errorf("guard called %d times, want 1", calls)
	}
	if got[0].Action != Delete || got[1].Action != Keep || !strings.Contains(got[1].Reason, context.Canceled.Error()) {
		t.Errorf("decisions = %v, want Delete then Keep naming the cancellation", got)
	}
}

func TestCollectDoesNotModifyArguments(t *testing.T) {
	t.Parallel()
	stale := []Entry{nsA, appA}
	if _, err := Collect(context.Background(), Changes{Stale: stale}, WithAllowDeleteAll()); err != nil {
		t.Fatal(err)
	}
	if stale[0] != nsA || stale[1] != appA {
		t.Errorf("Collect reordered its argument: %v", stale)
	}
}
