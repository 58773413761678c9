package apiname

import (
	"strings"
	"testing"
)

func TestIsGroup(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		group string
		valid bool
	}{
		{name: "core", group: "", valid: true},
		{name: "built-in without a dot", group: "apps", valid: true},
		{name: "CRD group", group: "fluxcd.controlplane.io", valid: true},
		{name: "253 bytes", group: strings.Repeat("a.", 126) + "a", valid: true},
		{name: "254 bytes", group: strings.Repeat("a.", 126) + "ab"},
		{name: "upper case", group: "Fluxcd.io"},
		{name: "slash", group: "a/b"},
		{name: "leading dot", group: ".io"},
		{name: "Kelvin sign", group: "fluxcd.\u212a.io"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if msgs := IsGroup(tt.group); (len(msgs) == 0) != tt.valid {
				t.Errorf("IsGroup(%q) = %q, want valid %v", tt.group, msgs, tt.valid)
			}
		})
	}
}

func TestIsVersion(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		version string
		valid   bool
	}{
		{name: "v1", version: "v1", valid: true},
		{name: "v1beta2", version: "v1beta2", valid: true},
		{name: "v2alpha1", version: "v2alpha1", valid: true},
		// Issue 14: a CRD may serve v1alpha; the API server accepts it.
		{name: "v1alpha", version: "v1alpha", valid: true},
		{name: "not kube-like", version: "stable", valid: true},
		{name: "63 bytes", version: "v" + strings.Repeat("1", 62), valid: true},
		{name: "64 bytes", version: "v" + strings.Repeat("1", 63)},
		{name: "empty", version: ""},
		{name: "upper case", version: "V1"},
		{name: "leading digit", version: "1"},
		{name: "dot", version: "v1.2"},
		{name: "trailing dash", version: "v1-"},
		{name: "space", version: "v1 "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if msgs := IsVersion(tt.version); (len(msgs) == 0) != tt.valid {
				t.Errorf("IsVersion(%q) = %q, want valid %v", tt.version, msgs, tt.valid)
			}
		})
	}
}

func TestIsKind(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		kind  string
		valid bool
		msg   string // a message IsKind must return, when not valid
	}{
		{name: "CamelCase", kind: "ResourceSet", valid: true},
		{name: "digit", kind: "K8sThing", valid: true},
		{name: "one letter", kind: "K", valid: true},
		// Issue 14: kinds that the API server serves.
		{name: "myKind", kind: "myKind", valid: true},
		{name: "My-Kind", kind: "My-Kind", valid: true},
		{name: "63 bytes", kind: "K" + strings.Repeat("k", 62), valid: true},
		{name: "64 bytes", kind: "K" + strings.Repeat("k", 63), msg: "lower-cased, must be no more than 63 characters"},
		{name: "empty", kind: "", msg: "lower-cased, a DNS-1035 label must consist of"},
		{name: "underscore", kind: "My_Kind", msg: "lower-cased, a DNS-1035 label must consist of"},
		{name: "dot", kind: "ConfigMap.v1", msg: "lower-cased, a DNS-1035 label"},
		{name: "leading digit", kind: "8Thing", msg: "lower-cased, a DNS-1035 label"},
		{name: "trailing dash", kind: "Kind-", msg: "lower-cased, a DNS-1035 label"},
		{name: "Kelvin sign", kind: "\u212aind", msg: "must be ASCII"},
		{name: "non-ASCII", kind: "Ünit", msg: "lower-cased, a DNS-1035 label"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			msgs := IsKind(tt.kind)
			if (len(msgs) == 0) != tt.valid {
				t.Fatalf("IsKind(%q) = %q, want valid %v", tt.kind, msgs, tt.valid)
			}
			if !tt.valid && !strings.HasPrefix(msgs[0], tt.msg) {
				t.Errorf("IsKind(%q) = %q, want a message starting %q", tt.kind, msgs, tt.msg)
			}
		})
	}
}

func FuzzIsKind(f *testing.F) {
	for _, s := range []string{"ResourceSet", "myKind", "My-Kind", "My_Kind", "\u212aind", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		valid := len(IsKind(s)) == 0
		ascii := true
		for i := range len(s) {
			ascii = ascii && s[i] < 0x80
		}
		// The API server's rule, and ASCII.
		want := ascii && len(IsVersion(strings.ToLower(s))) == 0
		if valid != want {
			t.Fatalf("IsKind(%q) valid = %v, want %v", s, valid, want)
		}
	})
}
