package finalizer

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
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

// resourceSet is flux-operator's ResourceSet, the kind an allow-list names.
var resourceSet = schema.GroupKind{Group: "fluxcd.controlplane.io", Kind: "ResourceSet"}

// The regression input of issue 18: tenant-a's finalizer pointed at an object
// inside tenant-a, which exists as long as tenant-a does.
const (
	rootCAUID   = "6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f"
	rootCAValue = "/v1/ConfigMap/tenant-a/kube-root-ca.crt/" + rootCAUID
)

var rootCA = Reference{Version: "v1", Kind: "ConfigMap", Namespace: "tenant-a", Name: "kube-root-ca.crt", UID: rootCAUID}

func TestDecide(t *testing.T) {
	t.Parallel()
	const ownerObject = "fluxcd.controlplane.io/v1/ResourceSet/flux-system/tenants"
	tests := []struct {
		name      string
		allowed   []schema.GroupKind // NewDecider's kinds; nil: every kind
		namespace string             // "tenant-a" when empty
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
				` ": uid: ` + ruleUID},
		},
		{
			name: "self with whitespace",
			live: map[string]string{Annotation: "self\n"},
			want: Verdict{Outcome: Malformed, Reason: `malformed external finalizer "self\n": ` + ruleSegments},
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

		// Issue 18, item 3: a reference into the namespace being decided is
		// not a hand-off, whatever the lookup would say.
		{
			name: "issue 18: kube-root-ca.crt inside the namespace",
			live: map[string]string{Annotation: rootCAValue},
			uid:  rootCAUID,
			want: Verdict{Outcome: InsideNamespace, Reference: rootCA,
				Reason: "external finalizer v1/ConfigMap/tenant-a/kube-root-ca.crt (uid " + rootCAUID +
					") is not a hand-off: it is inside namespace tenant-a itself and cannot outlive it"},
		},
		{
			name:    "issue 18: kube-root-ca.crt inside the namespace, allowed kind",
			allowed: []schema.GroupKind{{Kind: "ConfigMap"}},
			live:    map[string]string{Annotation: rootCAValue},
			uid:     rootCAUID,
			want: Verdict{Outcome: InsideNamespace, Reference: rootCA,
				Reason: "external finalizer v1/ConfigMap/tenant-a/kube-root-ca.crt (uid " + rootCAUID +
					") is not a hand-off: it is inside namespace tenant-a itself and cannot outlive it"},
		},
		{
			name:      "issue 18: the same object seen from another namespace is a hand-off",
			namespace: "tenant-b",
			live:      map[string]string{Annotation: rootCAValue},
			uid:       rootCAUID,
			want: Verdict{Outcome: HandedOff, Reference: rootCA,
				Reason: "handed off to v1/ConfigMap/tenant-a/kube-root-ca.crt (uid " + rootCAUID + ")"},
			wantAsks: []Reference{rootCA},
		},
		{
			name: "the namespace itself",
			live: map[string]string{Annotation: "/v1/Namespace//tenant-a/u-1"},
			uid:  "u-1",
			want: Verdict{Outcome: InsideNamespace, Reference: Reference{Version: "v1", Kind: "Namespace", Name: "tenant-a", UID: "u-1"},
				Reason: "external finalizer v1/Namespace/tenant-a (uid u-1) is not a hand-off: it is namespace tenant-a itself"},
		},
		{
			name: "a cluster-scoped object named like the namespace, in a group",
			live: map[string]string{Annotation: "example.com/v1/Namespace//tenant-a/u-1"},
			uid:  "u-1",
			want: Verdict{Outcome: HandedOff, Reference: Reference{Group: "example.com", Version: "v1", Kind: "Namespace", Name: "tenant-a", UID: "u-1"},
				Reason: "handed off to example.com/v1/Namespace/tenant-a (uid u-1)"},
			wantAsks: []Reference{{Group: "example.com", Version: "v1", Kind: "Namespace", Name: "tenant-a", UID: "u-1"}},
		},

		// The allow-list.
		{
			name:    "allowed kind",
			allowed: []schema.GroupKind{resourceSet},
			live:    map[string]string{Annotation: ownerValue},
			uid:     owner.UID,
			want: Verdict{Outcome: HandedOff, Reference: owner,
				Reason: "handed off to " + ownerObject + " (uid " + owner.UID + ")"},
			wantAsks: []Reference{owner},
		},
		{
			name:    "core kind not allowed",
			allowed: []schema.GroupKind{resourceSet},
			live:    map[string]string{Annotation: "/v1/ConfigMap/flux-system/keeper/u-1"},
			uid:     "u-1",
			want: Verdict{Outcome: KindNotAllowed, Reference: Reference{Version: "v1", Kind: "ConfigMap", Namespace: "flux-system", Name: "keeper", UID: "u-1"},
				Reason: "external finalizer v1/ConfigMap/flux-system/keeper (uid u-1) is not a hand-off: kind ConfigMap is not allowed" +
					" (allowed: fluxcd.controlplane.io/ResourceSet)"},
		},
		{
			name:    "same kind in another group not allowed",
			allowed: []schema.GroupKind{resourceSet, {Group: "example.com", Kind: "Keeper"}},
			live:    map[string]string{Annotation: "evil.example.com/v1/ResourceSet/flux-system/tenants/u-1"},
			uid:     "u-1",
			want: Verdict{Outcome: KindNotAllowed,
				Reference: Reference{Group: "evil.example.com", Version: "v1", Kind: "ResourceSet", Namespace: "flux-system", Name: "tenants", UID: "u-1"},
				Reason: "external finalizer evil.example.com/v1/ResourceSet/flux-system/tenants (uid u-1) is not a hand-off:" +
					" kind evil.example.com/ResourceSet is not allowed (allowed: example.com/Keeper, fluxcd.controlplane.io/ResourceSet)"},
		},
		{
			name:    "allowed kind, any version",
			allowed: []schema.GroupKind{resourceSet},
			live:    map[string]string{Annotation: "fluxcd.controlplane.io/v1alpha/ResourceSet/flux-system/tenants/u-1"},
			uid:     "u-1",
			want: Verdict{Outcome: HandedOff,
				Reference: Reference{Group: "fluxcd.controlplane.io", Version: "v1alpha", Kind: "ResourceSet", Namespace: "flux-system", Name: "tenants", UID: "u-1"},
				Reason:    "handed off to fluxcd.controlplane.io/v1alpha/ResourceSet/flux-system/tenants (uid u-1)"},
			wantAsks: []Reference{{Group: "fluxcd.controlplane.io", Version: "v1alpha", Kind: "ResourceSet", Namespace: "flux-system", Name: "tenants", UID: "u-1"}},
		},

		// Issue 18, item 4: a kind the controller may not read. With the
		// allow-list, no lookup is made and the generator stays accountable.
		{
			name:      "issue 18: unreadable kind, not allowed",
			allowed:   []schema.GroupKind{resourceSet},
			live:      map[string]string{Annotation: "/v1/Secret/kube-system/bootstrap-token-abcdef/u-1"},
			lookupErr: fmt.Errorf("%w: secrets %q is forbidden", ErrForbidden, "bootstrap-token-abcdef"),
			want: Verdict{Outcome: KindNotAllowed,
				Reference: Reference{Version: "v1", Kind: "Secret", Namespace: "kube-system", Name: "bootstrap-token-abcdef", UID: "u-1"},
				Reason: "external finalizer v1/Secret/kube-system/bootstrap-token-abcdef (uid u-1) is not a hand-off:" +
					" kind Secret is not allowed (allowed: fluxcd.controlplane.io/ResourceSet)"},
		},
		{
			name:      "issue 18: forbidden on an allowed kind",
			allowed:   []schema.GroupKind{resourceSet},
			live:      map[string]string{Annotation: ownerValue},
			lookupErr: fmt.Errorf("%w: resourcesets.fluxcd.controlplane.io %q is forbidden", ErrForbidden, "tenants"),
			want: Verdict{Outcome: Forbidden, Reference: owner,
				Reason: "cannot look up external finalizer " + ownerObject + " (uid " + owner.UID +
					"): RBAC: get fluxcd.controlplane.io/ResourceSet in namespace flux-system is forbidden"},
			wantAsks: []Reference{owner},
			wantErr:  ErrForbidden,
		},
		{
			name:      "forbidden, cluster-scoped core kind",
			live:      map[string]string{Annotation: "/v1/Namespace//keeper/u-1"},
			lookupErr: ErrForbidden,
			want: Verdict{Outcome: Forbidden, Reference: Reference{Version: "v1", Kind: "Namespace", Name: "keeper", UID: "u-1"},
				Reason: "cannot look up external finalizer v1/Namespace/keeper (uid u-1): RBAC: get Namespace at cluster scope is forbidden"},
			wantAsks: []Reference{{Version: "v1", Kind: "Namespace", Name: "keeper", UID: "u-1"}},
			wantErr:  ErrForbidden,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			d, errs := NewDecider(field.NewPath("allowedKinds"), tt.allowed...)
			if errs != nil {
				t.Fatal(errs)
			}
			namespace := tt.namespace
			if namespace == "" {
				namespace = "tenant-a"
			}
			lookup := &fakeLookup{uid: tt.uid, err: tt.lookupErr}
			got, err := d.Decide(t.Context(), namespace, tt.live, lookup)
			if !errors.Is(err, tt.wantErr) || (err == nil) != (tt.wantErr == nil) {
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

func TestDecideErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		namespace string
		live      map[string]string
		lookup    Lookup
		want      Outcome
		wantErr   error // nil: any error
	}{
		{name: "absent needs no lookup", namespace: "tenant-a", live: nil, want: Absent},
		{name: "malformed needs no lookup", namespace: "tenant-a", live: map[string]string{Annotation: "x"}, want: Malformed},
		{name: "inside needs no lookup", namespace: "tenant-a", live: map[string]string{Annotation: rootCAValue}, want: InsideNamespace},
		{name: "a reference does", namespace: "tenant-a", live: map[string]string{Annotation: ownerValue}, want: Undecided, wantErr: errNilLookup},
		{name: "empty namespace", namespace: "", live: map[string]string{Annotation: ownerValue}, want: Undecided},
		{name: "not a namespace name", namespace: "Tenant-A", live: nil, want: Undecided},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var d Decider // the zero Decider allows every kind
			got, err := d.Decide(t.Context(), tt.namespace, tt.live, tt.lookup)
			wantErr := tt.wantErr != nil || tt.want == Undecided
			if (err != nil) != wantErr || (tt.wantErr != nil && !errors.Is(err, tt.wantErr)) {
				t.Fatalf("Decide() error = %v, want %v", err, tt.wantErr)
			}
			if got.Outcome != tt.want || got.HandedOff() || got.Reason == "" {
				t.Errorf("Decide() = %+v, want outcome %v with a reason", got, tt.want)
			}
		})
	}
}

func TestNewDecider(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		fldPath *field.Path // nil: allowedKinds
		kinds   []schema.GroupKind
		fields  []string // the fields of the errors, in order; nil: no error
	}{
		{name: "no kind: every kind"},
		{name: "one kind", kinds: []schema.GroupKind{resourceSet}},
		{name: "core kind", kinds: []schema.GroupKind{{Kind: "ConfigMap"}}},
		{name: "a kind twice", kinds: []schema.GroupKind{resourceSet, resourceSet}},
		{
			name:   "every bad entry",
			kinds:  []schema.GroupKind{resourceSet, {Group: "Flux.io", Kind: "My_Kind"}, {Group: "a.io"}},
			fields: []string{"allowedKinds[1].group", "allowedKinds[1].kind", "allowedKinds[2].kind"},
		},
		{
			name:    "errors at the caller's path",
			fldPath: field.NewPath("spec", "finalizer", "kinds"),
			kinds:   []schema.GroupKind{{Group: "a.io"}},
			fields:  []string{"spec.finalizer.kinds[0].kind"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			fldPath := tt.fldPath
			if fldPath == nil {
				fldPath = field.NewPath("allowedKinds")
			}
			d, errs := NewDecider(fldPath, tt.kinds...)
			if tt.fields == nil {
				if errs != nil || d == nil {
					t.Fatalf("NewDecider() = %v, %v", d, errs)
				}
				return
			}
			if d != nil || errs == nil {
				t.Fatalf("NewDecider() = %v, %v; want errors", d, errs)
			}
			var got []string
			for _, e := range errs {
				got = append(got, e.Field)
			}
			if diff := cmp.Diff(tt.fields, got); diff != "" {
				t.Errorf("error fields mismatch (-want +got):\n%s\n%v", diff, errs)
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
		InsideNamespace: "inside the namespace", KindNotAllowed: "kind not allowed", NotFound: "not found",
		Recreated: "recreated", Forbidden: "forbidden", HandedOff: "handed off", Outcome(42): "outcome(42)",
	}
	for o, name := range want {
		if got := o.String(); got != name {
			t.Errorf("Outcome(%d).String() = %q, want %q", int(o), got, name)
		}
	}
}

func BenchmarkDecide(b *testing.B) {
	d, errs := NewDecider(nil, resourceSet)
	if errs != nil {
		b.Fatal(errs)
	}
	live := map[string]string{Annotation: ownerValue}
	lookup := LookupFunc(func(context.Context, Reference) (string, error) { return owner.UID, nil })
	b.ReportAllocs()
	for b.Loop() {
		if v, err := d.Decide(b.Context(), "tenant-a", live, lookup); err != nil || !v.HandedOff() {
			b.Fatal(v, err)
		}
	}
}
