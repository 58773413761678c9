package finalizer

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// fakeLookup answers every lookup with uid and err, and records the references
// it was asked about.
type fakeLookup struct {
	uid string
	err error

	mu   sync.Mutex
	asks []Reference
}

func (f *fakeLookup) UID(_ context.Context, r Reference) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.asks = append(f.asks, r)
	return f.uid, f.err
}

var errBoom = errors.New("the API server is unreachable")

func TestDecide(t *testing.T) {
	t.Parallel()
	const ownerObject = "fluxcd.controlplane.io/v1/ResourceSet/flux-system/tenants"
	tests := []struct {
		name      string
		live      map[string]string
		uid       string
		lookupErr error
		want      Verdict
		wantAsks  []Reference
		wantErr   error
	}{
		{
			name: "nil annotations",
			live: nil,
			want: Verdict{Outcome: Absent, Reason: "no external finalizer"},
		},
		{
			name: "absent",
			live: map[string]string{"note": "x"},
			want: Verdict{Outcome: Absent, Reason: "no external finalizer"},
		},
		{
			name: "empty",
			live: map[string]string{Annotation: ""},
			want: Verdict{Outcome: Absent, Reason: "no external finalizer"},
		},
		{
			name: "self",
			live: map[string]string{Annotation: Self},
			want: Verdict{Outcome: Unstamped, Reason: `external finalizer "self" was never stamped with a reference`},
		},
		{
			name: "five segments",
			live: map[string]string{Annotation: ownerObject},
			want: Verdict{Outcome: Malformed, Reason: `malformed external finalizer "` + ownerObject +
				`": must have exactly six segments group/version/kind/namespace/name/uid`},
		},
		{
			name: "trailing whitespace",
			live: map[string]string{Annotation: ownerValue + " "},
			want: Verdict{Outcome: Malformed, Reason: `malformed external finalizer "` + ownerValue +
				` ": uid: ` + errUID.Error()},
		},
		{
			name: "self with whitespace",
			live: map[string]string{Annotation: "self\n"},
			want: Verdict{Outcome: Malformed, Reason: `malformed external finalizer "self\n": ` + errSegments.Error()},
		},
		{
			name:      "not found",
			live:      map[string]string{Annotation: ownerValue},
			lookupErr: ErrNotFound,
			want: Verdict{Outcome: NotFound, Reference: owner,
				Reason: "external finalizer " + ownerObject + " (uid " + owner.UID + ") not found"},
			wantAsks: []Reference{owner},
		},
		{
			name:      "not found, wrapped",
			live:      map[string]string{Annotation: ownerValue},
			lookupErr: fmt.Errorf("%w: no matches for kind ResourceSet", ErrNotFound),
			want: Verdict{Outcome: NotFound, Reference: owner,
				Reason: "external finalizer " + ownerObject + " (uid " + owner.UID + ") not found"},
			wantAsks: []Reference{owner},
		},
		{
			name: "another uid",
			live: map[string]string{Annotation: ownerValue},
			uid:  "11111111-2222-3333-4444-555555555555",
			want: Verdict{Outcome: Recreated, Reference: owner,
				Reason: "external finalizer " + ownerObject + ` has uid "11111111-2222-3333-4444-555555555555", not "` +
					owner.UID + `": it was recreated and may not track the namespace`},
			wantAsks: []Reference{owner},
		},
		{
			name: "empty uid",
			live: map[string]string{Annotation: ownerValue},
			uid:  "",
			want: Verdict{Outcome: Recreated, Reference: owner,
				Reason: "external finalizer " + ownerObject + ` has uid "", not "` +
					owner.UID + `": it was recreated and may not track the namespace`},
			wantAsks: []Reference{owner},
		},
		{
			name: "same uid",
			live: map[string]string{Annotation: ownerValue, "note": "x"},
			uid:  owner.UID,
			want: Verdict{Outcome: HandedOff, Reference: owner,
				Reason: "handed off to " + ownerObject + " (uid " + owner.UID + ")"},
			wantAsks: []Reference{owner},
		},
		{
			name: "core group, cluster-scoped",
			live: map[string]string{Annotation: "/v1/Namespace//keeper/u-1"},
			uid:  "u-1",
			want: Verdict{Outcome: HandedOff, Reference: Reference{Version: "v1", Kind: "Namespace", Name: "keeper", UID: "u-1"},
				Reason: "handed off to v1/Namespace/keeper (uid u-1)"},
			wantAsks: []Reference{{Version: "v1", Kind: "Namespace", Name: "keeper", UID: "u-1"}},
		},
		{
			name:      "lookup fails",
			live:      map[string]string{Annotation: ownerValue},
			uid:       owner.UID,
			lookupErr: errBoom,
			want: Verdict{Outcome: Undecided, Reference: owner,
				Reason: "cannot look up external finalizer " + ownerObject + " (uid " + owner.UID + "): " + errBoom.Error()},
			wantAsks: []Reference{owner},
			wantErr:  errBoom,
		},
		{
			name:      "context canceled",
			live:      map[string]string{Annotation: ownerValue},
			lookupErr: context.Canceled,
			want: Verdict{Outcome: Undecided, Reference: owner,
				Reason: "cannot look up external finalizer " + ownerObject + " (uid " + owner.UID + "): " + context.Canceled.Error()},
			wantAsks: []Reference{owner},
			wantErr:  context.Canceled,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			lookup := &fakeLookup{uid: tt.uid, err: tt.lookupErr}
			got, err := Decide(t.Context(), tt.live, lookup)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("Decide() error = %v, want %v", err, tt.wantErr)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Decide() mismatch (-want +got):\n%s", diff)
			}
			if got.HandedOff() != (tt.want.Outcome == HandedOff) {
				t.Errorf("HandedOff() = %v for %v", got.HandedOff(), got.Outcome)
			}
			if diff := cmp.Diff(tt.wantAsks, lookup.asks); diff != "" {
				t.Errorf("lookups mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDecideNilLookup(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		live    map[string]string
		want    Outcome
		wantErr error
	}{
		{name: "absent needs no lookup", live: nil, want: Absent},
		{name: "malformed needs no lookup", live: map[string]string{Annotation: "x"}, want: Malformed},
		{name: "a reference does", live: map[string]string{Annotation: ownerValue}, want: Undecided, wantErr: errNilLookup},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := Decide(t.Context(), tt.live, nil)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("Decide() error = %v, want %v", err, tt.wantErr)
			}
			if got.Outcome != tt.want || got.HandedOff() {
				t.Errorf("Decide() = %+v, want outcome %v", got, tt.want)
			}
		})
	}
}

func TestLookupFunc(t *testing.T) {
	t.Parallel()
	var got Reference
	f := LookupFunc(func(_ context.Context, r Reference) (string, error) {
		got = r
		return "u", errBoom
	})
	uid, err := f.UID(t.Context(), owner)
	if uid != "u" || !errors.Is(err, errBoom) || got != owner {
		t.Errorf("LookupFunc.UID() = %q, %v after seeing %+v", uid, err, got)
	}
}

func TestOutcomeString(t *testing.T) {
	t.Parallel()
	want := map[Outcome]string{
		Undecided: "undecided", Absent: "absent", Unstamped: "unstamped", Malformed: "malformed",
		NotFound: "not found", Recreated: "recreated", HandedOff: "handed off", Outcome(9): "outcome(9)",
	}
	for o, name := range want {
		if got := o.String(); got != name {
			t.Errorf("Outcome(%d).String() = %q, want %q", int(o), got, name)
		}
	}
}

func BenchmarkDecide(b *testing.B) {
	live := map[string]string{Annotation: ownerValue}
	lookup := LookupFunc(func(context.Context, Reference) (string, error) { return owner.UID, nil })
	b.ReportAllocs()
	for b.Loop() {
		if v, err := Decide(b.Context(), live, lookup); err != nil || !v.HandedOff() {
			b.Fatal(v, err)
		}
	}
}
