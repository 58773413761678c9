package nsmeta

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/tenantkit/tenantkit/cel"
)

func TestNewNamePolicy(t *testing.T) {
	t.Parallel()
	managed := field.NewPath("spec", "managedNamespaces")
	tests := []struct {
		name       string
		allowed    []string
		path       *field.Path
		opts       []Option
		wantFields []fieldErr
	}{
		{name: "one rule", allowed: []string{"true"}},
		{
			name:    "every option",
			allowed: []string{`ns.startsWith("tenant-")`, `ns in ["shared"]`},
			path:    managed,
			opts:    []Option{WithProtectedNames("flux-system"), WithCache(cel.NewCache(4))},
		},
		{
			name:       "no rules",
			wantFields: []fieldErr{{field.ErrorTypeRequired, "allowedNames", ""}},
		},
		{
			name:    "bad rules and protected names, under the caller's path",
			allowed: []string{"true", "ns ==", "", "ns", "value == 'a'"},
			path:    managed,
			opts:    []Option{WithProtectedNames("flux-system", "Flux_System")},
			wantFields: []fieldErr{
				{field.ErrorTypeInvalid, "protectedNames[1]", "Flux_System"},
				{field.ErrorTypeInvalid, "spec.managedNamespaces.allowedNames[1]", "ns =="},
				{field.ErrorTypeRequired, "spec.managedNamespaces.allowedNames[2]", ""},
				{field.ErrorTypeInvalid, "spec.managedNamespaces.allowedNames[3]", "ns"},
				{field.ErrorTypeInvalid, "spec.managedNamespaces.allowedNames[4]", "value == 'a'"},
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p, errs := NewNamePolicy(tc.allowed, tc.path, tc.opts...)
			if (p == nil) == (errs == nil) {
				t.Errorf("NewNamePolicy() = %v, %v: want exactly one of them", p, errs)
			}
			if diff := cmp.Diff(tc.wantFields, project(errs)); diff != "" {
				t.Errorf("NewNamePolicy() field errors (-want +got):\n%s", diff)
			}
		})
	}
}

func TestNamePolicyCheck(t *testing.T) {
	t.Parallel()
	mustPolicy := func(allowed []string, opts ...Option) *NamePolicy {
		p, err := NewNamePolicy(allowed, nil, opts...)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	tenants := mustPolicy([]string{`ns.startsWith("tenant-")`, `ns == "shared"`}, WithProtectedNames("flux-system"))
	anything := mustPolicy([]string{"true"}, WithProtectedNames("platform"))
	byDefault := mustPolicy([]string{"true"})
	// int(ns) fails for every valid name: a rule error is a refusal, not a pass.
	failing := mustPolicy([]string{`int(ns) > 0`})
	failingThenTrue := mustPolicy([]string{`int(ns) > 0`, `true`})
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()

	tests := []struct {
		name        string
		policy      *NamePolicy
		ctx         context.Context
		ns          string
		wantErr     error
		wantReasons int
	}{
		{name: "first rule", policy: tenants, ns: "tenant-a"},
		{name: "second rule", policy: tenants, ns: "shared"},
		{name: "no rule", policy: tenants, ns: "payments", wantErr: ErrNameNotAllowed, wantReasons: 2},
		{name: "default protected name", policy: anything, ns: "kube-system", wantErr: ErrProtectedName, wantReasons: 1},
		{name: "each default protected name", policy: anything, ns: "default", wantErr: ErrProtectedName, wantReasons: 1},
		{name: "added protected name", policy: anything, ns: "platform", wantErr: ErrProtectedName, wantReasons: 1},
		{name: "flux-system without options", policy: byDefault, ns: "flux-system", wantErr: ErrProtectedName, wantReasons: 1},
		{name: "kube-node-lease without options", policy: byDefault, ns: "kube-node-lease", wantErr: ErrProtectedName, wantReasons: 1},
		{name: "the caller's name is not protected without the option", policy: byDefault, ns: "platform"},
		{name: "protected whatever the rules say", policy: tenants, ns: "kube-public", wantErr: ErrProtectedName, wantReasons: 1},
		{name: "an added name keeps the defaults", policy: anything, ns: "kube-node-lease", wantErr: ErrProtectedName, wantReasons: 1},
		{name: "an added name keeps flux-system", policy: anything, ns: "flux-system", wantErr: ErrProtectedName, wantReasons: 1},
		{name: "an added name that is a default", policy: tenants, ns: "flux-system", wantErr: ErrProtectedName, wantReasons: 1},
		{name: "not a DNS-1123 label", policy: anything, ns: "Tenant_A", wantErr: ErrInvalidName, wantReasons: 1},
		{name: "invalid before protected", policy: anything, ns: "KUBE-SYSTEM", wantErr: ErrInvalidName, wantReasons: 1},
		{name: "too long", policy: anything, ns: strings.Repeat("a", 64), wantErr: ErrInvalidName, wantReasons: 1},
		{name: "empty", policy: anything, ns: "", wantErr: ErrInvalidName, wantReasons: 1},
		{name: "a rule that fails is a refusal", policy: failing, ns: "tenant-a", wantErr: ErrNameNotAllowed, wantReasons: 1},
		{name: "any rule that returns true allows", policy: failingThenTrue, ns: "tenant-a"},
		{name: "cancelled context", policy: anything, ctx: cancelled, ns: "tenant-a", wantErr: context.Canceled},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx := tc.ctx
			if ctx == nil {
				ctx = context.Background()
			}
			err := tc.policy.Check(ctx, tc.ns)
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("Check(%q) error = %v, want %v", tc.ns, err, tc.wantErr)
			}
			if ne, ok := errors.AsType[*nameError](err); ok {
				if ne.Name != tc.ns || len(ne.Reasons) != tc.wantReasons {
					t.Errorf("Check(%q) = %#v, want name %q and %d reasons", tc.ns, ne, tc.ns, tc.wantReasons)
				}
			} else if tc.wantReasons > 0 {
				t.Errorf("Check(%q) error = %v, want a *nameError", tc.ns, err)
			}
		})
	}
}

func TestDefaultProtectedNamesCopy(t *testing.T) {
	t.Parallel()
	want := []string{"default", "flux-system", "kube-node-lease", "kube-public", "kube-system"}
	got := defaultProtectedNames()
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("defaultProtectedNames() (-want +got):\n%s", diff)
	}
	got[0] = "changed"
	if defaultProtectedNames()[0] != "default" {
		t.Error("defaultProtectedNames() returns shared storage")
	}
}

// upstreamProtectedNames are the namespaces that released source-watcher
// v2.3 always refuses, "regardless of the expressions"
// (ManagedNamespaces.AllowedNames' doc comment in its API module).
var upstreamProtectedNames = []string{"default", "flux-system", "kube-public", "kube-system"}

// TestProtectedNamesAsUpstream checks the default protected names against
// released source-watcher's, name by name, with a policy that allows
// every name: each name source-watcher refuses is refused, and tenantkit
// refuses one more, kube-node-lease, which source-watcher would manage.
func TestProtectedNamesAsUpstream(t *testing.T) {
	t.Parallel()
	p, errs := NewNamePolicy([]string{"true"}, nil)
	if errs != nil {
		t.Fatal(errs)
	}
	tests := []struct {
		name            string
		upstreamManages bool // what released source-watcher does
		protected       bool // what Check does
	}{
		{name: "default", protected: true},
		{name: "flux-system", protected: true},
		{name: "kube-public", protected: true},
		{name: "kube-system", protected: true},
		{name: "kube-node-lease", upstreamManages: true, protected: true}, // stricter
		{name: "tenant-a", upstreamManages: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := !slices.Contains(upstreamProtectedNames, tc.name); got != tc.upstreamManages {
				t.Fatalf("source-watcher manages %s: %v, the case says %v", tc.name, got, tc.upstreamManages)
			}
			err := p.Check(context.Background(), tc.name)
			if protected := errors.Is(err, ErrProtectedName); protected != tc.protected || (!protected && err != nil) {
				t.Errorf("Check(%q) = %v; want refused as protected: %v", tc.name, err, tc.protected)
			}
		})
	}
	// Every name source-watcher protects is a default; the one extra is
	// kube-node-lease.
	var extra []string
	for _, name := range defaultProtectedNames() {
		if !slices.Contains(upstreamProtectedNames, name) {
			extra = append(extra, name)
		}
	}
	for _, name := range upstreamProtectedNames {
		if !slices.Contains(defaultProtectedNames(), name) {
			t.Errorf("source-watcher protects %q, tenantkit does not by default", name)
		}
	}
	if diff := cmp.Diff([]string{"kube-node-lease"}, extra); diff != "" {
		t.Errorf("tenantkit's extra protected names (-want +got):\n%s", diff)
	}
}

func BenchmarkNamePolicyCheck(b *testing.B) {
	for _, n := range []int{1, 10} {
		rules := make([]string, n)
		for i := range rules {
			rules[i] = fmt.Sprintf(`ns.startsWith("team-%d-")`, i)
		}
		rules[n-1] = `ns.startsWith("tenant-")`
		p, err := NewNamePolicy(rules, nil, WithProtectedNames("flux-system"))
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("rules=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			ctx := context.Background()
			for b.Loop() {
				if err := p.Check(ctx, "tenant-a"); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
