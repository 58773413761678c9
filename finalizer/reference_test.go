package finalizer

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// A 253-byte DNS-1123 subdomain: the longest group and name.
var longSubdomain = strings.Repeat("a", 63) + "." + strings.Repeat("b", 63) + "." +
	strings.Repeat("c", 63) + "." + strings.Repeat("d", 61)

// The longest valid reference: every segment at its bound.
var longest = Reference{
	Group:     longSubdomain,
	Version:   "v1beta" + strings.Repeat("1", 57),
	Kind:      "K" + strings.Repeat("k", 62),
	Namespace: strings.Repeat("n", 63),
	Name:      longSubdomain,
	UID:       strings.Repeat("u", 128),
}

var validTests = []struct {
	name  string
	value string
	want  Reference
}{
	{
		name:  "resourceset",
		value: "fluxcd.controlplane.io/v1/ResourceSet/flux-system/tenants/0d1e3c4a-5b6c-4d7e-8f90-a1b2c3d4e5f6",
		want: Reference{Group: "fluxcd.controlplane.io", Version: "v1", Kind: "ResourceSet",
			Namespace: "flux-system", Name: "tenants", UID: "0d1e3c4a-5b6c-4d7e-8f90-a1b2c3d4e5f6"},
	},
	{
		name:  "core group",
		value: "/v1/ConfigMap/flux-system/rset/abc",
		want:  Reference{Version: "v1", Kind: "ConfigMap", Namespace: "flux-system", Name: "rset", UID: "abc"},
	},
	{
		name:  "cluster-scoped",
		value: "fluxcd.controlplane.io/v1/ResourceSet//tenants/1234-uid",
		want:  Reference{Group: "fluxcd.controlplane.io", Version: "v1", Kind: "ResourceSet", Name: "tenants", UID: "1234-uid"},
	},
	{
		name:  "core group cluster-scoped",
		value: "/v1/Namespace//tenant-a/u",
		want:  Reference{Version: "v1", Kind: "Namespace", Name: "tenant-a", UID: "u"},
	},
	{
		name:  "beta version, dotted name",
		value: "apps/v1beta2/Deployment/default/web.v2/u-1",
		want:  Reference{Group: "apps", Version: "v1beta2", Kind: "Deployment", Namespace: "default", Name: "web.v2", UID: "u-1"},
	},
	{
		name:  "alpha version, digits in kind",
		value: "x.example.com/v2alpha1/K8sThing/ns/n/u",
		want:  Reference{Group: "x.example.com", Version: "v2alpha1", Kind: "K8sThing", Namespace: "ns", Name: "n", UID: "u"},
	},
	// Issue 14: kinds and versions that the API server serves and inventory
	// accepts.
	{
		name:  "kind myKind",
		value: "example.com/v1/myKind/ns/n/u",
		want:  Reference{Group: "example.com", Version: "v1", Kind: "myKind", Namespace: "ns", Name: "n", UID: "u"},
	},
	{
		name:  "kind My-Kind",
		value: "example.com/v1/My-Kind/ns/n/u",
		want:  Reference{Group: "example.com", Version: "v1", Kind: "My-Kind", Namespace: "ns", Name: "n", UID: "u"},
	},
	{
		name:  "version v1alpha",
		value: "example.com/v1alpha/ResourceSet/ns/n/u",
		want:  Reference{Group: "example.com", Version: "v1alpha", Kind: "ResourceSet", Namespace: "ns", Name: "n", UID: "u"},
	},
	{
		name:  "any DNS-1035 version, lower-case kind",
		value: "example.com/stable/thing/ns/n/u",
		want:  Reference{Group: "example.com", Version: "stable", Kind: "thing", Namespace: "ns", Name: "n", UID: "u"},
	},
	{
		name:  "group named self",
		value: "self/v1/K/ns/n/u",
		want:  Reference{Group: "self", Version: "v1", Kind: "K", Namespace: "ns", Name: "n", UID: "u"},
	},
	{
		name:  "uid of every printable character but slash",
		value: "/v1/K/ns/n/!\"#$%&'()*+,-.0123456789:;<=>?@AZ[\\]^_`az{|}~",
		want:  Reference{Version: "v1", Kind: "K", Namespace: "ns", Name: "n", UID: "!\"#$%&'()*+,-.0123456789:;<=>?@AZ[\\]^_`az{|}~"},
	},
	{
		name:  "every segment at its bound",
		value: longest.String(),
		want:  longest,
	},
}

func TestMaxLength(t *testing.T) {
	t.Parallel()
	sum := maxGroupLength + maxVersionLength + maxKindLength + maxNamespaceLength + maxNameLength + maxUIDLength + 5
	if maxLength != sum {
		t.Errorf("maxLength = %d, the segment bounds add up to %d", maxLength, sum)
	}
	if got := len(longest.String()); got != maxLength {
		t.Errorf("the longest reference is %d bytes, maxLength is %d", got, maxLength)
	}
}

func TestParse(t *testing.T) {
	t.Parallel()
	for _, tt := range validTests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := Parse(tt.value)
			if err != nil {
				t.Fatalf("Parse(%q): %v", tt.value, err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Parse(%q) mismatch (-want +got):\n%s", tt.value, diff)
			}
			if s := got.String(); s != tt.value {
				t.Errorf("String() = %q, want %q", s, tt.value)
			}
			if err := got.Validate(); err != nil {
				t.Errorf("Validate(): %v", err)
			}
		})
	}
}

// A rule is the Rule of a *ParseError. Rules that come from apimachinery
// (DNS names, versions, kinds) are checked by a part of their text.
var invalidTests = []struct {
	name    string
	value   string
	segment string
	rule    string // the whole rule
	part    string // or a part of it
}{
	{name: "empty", value: "", rule: ruleSegments},
	{name: "self", value: Self, rule: ruleSelf},
	{name: "five segments", value: "fluxcd.controlplane.io/v1/ResourceSet/flux-system/tenants", rule: ruleSegments},
	{name: "seven segments", value: "fluxcd.controlplane.io/v1/ResourceSet/flux-system/tenants/uid/x", rule: ruleSegments},
	{name: "self with a space", value: " self", rule: ruleSegments},
	{name: "Self capitalized", value: "Self", rule: ruleSegments},
	{name: "too long", value: longest.String() + "u", rule: ruleTooLong},
	{name: "far too long", value: strings.Repeat("/", 1<<18), rule: ruleTooLong},

	{name: "leading whitespace", value: " fluxcd.controlplane.io/v1/ResourceSet/flux-system/tenants/uid", segment: "group", part: "RFC 1123"},
	{name: "leading whitespace, core group", value: " /v1/ConfigMap/flux-system/rset/abc", segment: "group", part: "RFC 1123"},
	{name: "upper-case group", value: "Fluxcd.io/v1/ResourceSet/ns/n/u", segment: "group", part: "RFC 1123"},
	{name: "group too long", value: longSubdomain + "e/v1/K/ns/n/u", segment: "group", part: "must be no more than 253 characters"},

	{name: "empty version", value: "fluxcd.controlplane.io//ResourceSet/flux-system/tenants/uid", segment: "version", rule: ruleEmpty},
	{name: "version without v", value: "/1/K/ns/n/u", segment: "version", part: "DNS-1035 label"},
	{name: "version V1", value: "/V1/K/ns/n/u", segment: "version", part: "DNS-1035 label"},
	{name: "version v1.2", value: "/v1.2/K/ns/n/u", segment: "version", part: "DNS-1035 label"},
	{name: "version v1-", value: "/v1-/K/ns/n/u", segment: "version", part: "DNS-1035 label"},
	{name: "version too long", value: "/v1beta" + strings.Repeat("1", 58) + "/K/ns/n/u", segment: "version", part: "must be no more than 63 characters"},

	{name: "empty kind", value: "fluxcd.controlplane.io/v1//flux-system/tenants/uid", segment: "kind", rule: ruleEmpty},
	{name: "kind with an underscore", value: "/v1/My_Kind/ns/n/u", segment: "kind", part: "lower-cased, a DNS-1035 label"},
	{name: "kind with a trailing dash", value: "/v1/Kind-/ns/n/u", segment: "kind", part: "lower-cased, a DNS-1035 label"},
	{name: "kind with a dot", value: "/v1/ConfigMap.v1/ns/n/u", segment: "kind", part: "lower-cased, a DNS-1035 label"},
	{name: "kind with a leading digit", value: "/v1/8Thing/ns/n/u", segment: "kind", part: "lower-cased, a DNS-1035 label"},
	{name: "non-ASCII kind", value: "/v1/Ünit/ns/n/u", segment: "kind", part: "lower-cased, a DNS-1035 label"},
	{name: "Kelvin sign in the kind", value: "/v1/\u212aind/ns/n/u", segment: "kind", rule: "must be ASCII"},
	{name: "kind too long", value: "/v1/K" + strings.Repeat("k", 63) + "/ns/n/u", segment: "kind", part: "must be no more than 63 characters"},

	{name: "upper-case namespace", value: "/v1/K/Flux-System/n/u", segment: "namespace", part: "RFC 1123"},
	{name: "dotted namespace", value: "/v1/K/flux.system/n/u", segment: "namespace", part: "must not contain dots"},
	{name: "namespace too long", value: "/v1/K/" + strings.Repeat("n", 64) + "/n/u", segment: "namespace", part: "must be no more than 63 characters"},

	{name: "empty name", value: "/v1/K/ns//u", segment: "name", rule: ruleEmpty},
	{name: "upper-case name", value: "/v1/K/ns/Tenants/u", segment: "name", part: "RFC 1123"},
	{name: "name with leading dash", value: "/v1/K/ns/-tenants/u", segment: "name", part: "RFC 1123"},
	{name: "name too long", value: "/v1/K/ns/" + longSubdomain + "e/u", segment: "name", part: "must be no more than 253 characters"},

	{name: "empty uid", value: "fluxcd.controlplane.io/v1/ResourceSet/flux-system/tenants/", segment: "uid", rule: ruleEmpty},
	{name: "trailing whitespace", value: "/v1/ConfigMap/flux-system/rset/abc ", segment: "uid", rule: ruleUID},
	{name: "trailing newline", value: "/v1/ConfigMap/flux-system/rset/abc\n", segment: "uid", rule: ruleUID},
	{name: "space in uid", value: "/v1/K/ns/n/a b", segment: "uid", rule: ruleUID},
	{name: "NUL in uid", value: "/v1/K/ns/n/a\x00", segment: "uid", rule: ruleUID},
	{name: "DEL in uid", value: "/v1/K/ns/n/a\x7f", segment: "uid", rule: ruleUID},
	{name: "non-ASCII uid", value: "/v1/K/ns/n/é", segment: "uid", rule: ruleUID},
	{name: "uid too long", value: "/v1/K/ns/n/" + strings.Repeat("u", 129), segment: "uid", rule: ruleUIDLength},

	{name: "first failing segment wins", value: "/X/y_/Z/ns/", segment: "version", part: "DNS-1035 label"},
}

// checkParseError fails t unless err is a *ParseError for value with the
// segment and rule (or part of a rule) given.
func checkParseError(t *testing.T, err error, value string, segment string, rule, part string) {
	t.Helper()
	var pe *ParseError
	if !errors.As(err, &pe) {
		t.Fatalf("error %v (%T) is not a *ParseError", err, err)
	}
	if !errors.Is(err, ErrInvalid) {
		t.Errorf("error %v does not unwrap to ErrInvalid", err)
	}
	if pe.Value != value {
		t.Errorf("ParseError.Value = %q, want %q", pe.Value, value)
	}
	if pe.Segment != segment {
		t.Errorf("ParseError.Segment = %q, want %q", pe.Segment, segment)
	}
	switch {
	case pe.Rule == "":
		t.Errorf("ParseError.Rule is empty")
	case rule != "" && pe.Rule != rule:
		t.Errorf("ParseError.Rule = %q, want %q", pe.Rule, rule)
	case !strings.Contains(pe.Rule, part):
		t.Errorf("ParseError.Rule = %q, want it to contain %q", pe.Rule, part)
	}
}

func TestParseInvalid(t *testing.T) {
	t.Parallel()
	for _, tt := range invalidTests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := Parse(tt.value)
			if err == nil {
				t.Fatalf("Parse(%q) = %+v, want an error", tt.value, got)
			}
			if got != (Reference{}) {
				t.Errorf("Parse(%q) returned %+v with its error, want the zero Reference", tt.value, got)
			}
			checkParseError(t, err, tt.value, tt.segment, tt.rule, tt.part)
		})
	}
}

func TestValidate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		ref     Reference
		segment string
		rule    string
		part    string
	}{
		{name: "zero", ref: Reference{}, segment: "version", rule: ruleEmpty},
		{name: "no name", ref: Reference{Version: "v1", Kind: "ConfigMap"}, segment: "name", rule: ruleEmpty},
		{name: "slash in group", ref: Reference{Group: "a/b", Version: "v1", Kind: "K", Name: "n", UID: "u"}, segment: "group", part: "RFC 1123"},
		{name: "slash in version", ref: Reference{Version: "v1/v2", Kind: "K", Name: "n", UID: "u"}, segment: "version", part: "DNS-1035"},
		{name: "slash in kind", ref: Reference{Version: "v1", Kind: "K/L", Name: "n", UID: "u"}, segment: "kind", part: "DNS-1035"},
		{name: "slash in namespace", ref: Reference{Version: "v1", Kind: "K", Namespace: "a/b", Name: "n", UID: "u"}, segment: "namespace", part: "RFC 1123"},
		{name: "slash in name", ref: Reference{Version: "v1", Kind: "K", Name: "a/b", UID: "u"}, segment: "name", part: "RFC 1123"},
		{name: "slash in uid", ref: Reference{Version: "v1", Kind: "K", Name: "n", UID: "a/b"}, segment: "uid", rule: ruleUID},
		{name: "self uid is fine, no name", ref: Reference{Version: "v1", Kind: "K", UID: Self}, segment: "name", rule: ruleEmpty},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			checkParseError(t, tt.ref.Validate(), tt.ref.String(), tt.segment, tt.rule, tt.part)
		})
	}
}

func TestParseErrorMessage(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		err  *ParseError
		want string
	}{
		{
			name: "segment",
			err:  &ParseError{Value: "/v1//ns/n/u", Segment: "kind", Rule: ruleEmpty},
			want: `finalizer: invalid reference "/v1//ns/n/u": kind: must not be empty`,
		},
		{
			name: "whole value",
			err:  &ParseError{Value: "a/b", Rule: ruleSegments},
			want: `finalizer: invalid reference "a/b": must have exactly six segments group/version/kind/namespace/name/uid`,
		},
		{
			name: "over-long value is cut",
			err:  &ParseError{Value: strings.Repeat("x", maxLength+1), Rule: ruleTooLong},
			want: `finalizer: invalid reference "` + strings.Repeat("x", quoteLimit) + `"... (829 bytes): must be no more than 828 bytes`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := tt.err.Error(); got != tt.want {
				t.Errorf("Error() = %q, want %q", got, tt.want)
			}
			if !errors.Is(tt.err, ErrInvalid) {
				t.Errorf("%v does not unwrap to ErrInvalid", tt.err)
			}
		})
	}
}

func TestGroupVersionKind(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		ref  Reference
		want schema.GroupVersionKind
	}{
		{
			name: "named group",
			ref:  Reference{Group: "fluxcd.controlplane.io", Version: "v1", Kind: "ResourceSet", Namespace: "flux-system", Name: "tenants", UID: "u"},
			want: schema.GroupVersionKind{Group: "fluxcd.controlplane.io", Version: "v1", Kind: "ResourceSet"},
		},
		{
			name: "core group",
			ref:  Reference{Version: "v1", Kind: "ConfigMap", Namespace: "ns", Name: "n", UID: "u"},
			want: schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tt.want, tt.ref.GroupVersionKind()); diff != "" {
				t.Errorf("GroupVersionKind() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func FuzzParse(f *testing.F) {
	for _, tt := range validTests {
		f.Add(tt.value)
	}
	for _, tt := range invalidTests {
		f.Add(tt.value)
	}
	for _, tt := range hostileValues {
		f.Add(tt.value)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := Parse(s)
		if err != nil {
			if r != (Reference{}) {
				t.Fatalf("Parse(%q) returned %+v with error %v", s, r, err)
			}
			var pe *ParseError
			if !errors.As(err, &pe) || !errors.Is(err, ErrInvalid) || pe.Value != s || pe.Rule == "" {
				t.Fatalf("Parse(%q) error = %#v, want a *ParseError for the value", s, err)
			}
			// A message quotes the value at most once, and %q at most
			// quadruples it; apimachinery's rules take a few hundred bytes.
			if n := len(err.Error()); n > maxMessageBytes {
				t.Fatalf("Parse(%q) error is %d bytes long", s[:min(len(s), 64)], n)
			}
			return
		}
		if len(s) > maxLength {
			t.Fatalf("Parse accepted a %d-byte value", len(s))
		}
		if got := r.String(); got != s {
			t.Fatalf("Parse(%q).String() = %q", s, got)
		}
		if err := r.Validate(); err != nil {
			t.Fatalf("Parse(%q) = %+v, which does not validate: %v", s, r, err)
		}
		again, err := Parse(r.String())
		if err != nil || again != r {
			t.Fatalf("Parse(String()) = %+v, %v, want %+v", again, err, r)
		}
	})
}

func BenchmarkParse(b *testing.B) {
	for _, bb := range []struct {
		name  string
		value string
	}{
		{name: "short", value: "/v1/ConfigMap/flux-system/rset/abc"},
		{name: "typical", value: "fluxcd.controlplane.io/v1/ResourceSet/flux-system/tenants/0d1e3c4a-5b6c-4d7e-8f90-a1b2c3d4e5f6"},
		{name: "longest", value: longest.String()},
	} {
		b.Run(bb.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(bb.value)))
			for b.Loop() {
				if _, err := Parse(bb.value); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkString(b *testing.B) {
	r, err := Parse("fluxcd.controlplane.io/v1/ResourceSet/flux-system/tenants/0d1e3c4a-5b6c-4d7e-8f90-a1b2c3d4e5f6")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		_ = r.String()
	}
}

// ownerTests are finalizing objects, as a controller has them, with the
// segment that Validate refuses in the Reference filled in from them.
var ownerTests = []struct {
	name      string
	gvk       schema.GroupVersionKind
	namespace string
	objName   string
	uid       string
	segment   string // when refused
	rule      string
}{
	{
		name: "a ResourceSet", gvk: schema.GroupVersionKind{Group: "fluxcd.controlplane.io", Version: "v1", Kind: "ResourceSet"},
		namespace: "flux-system", objName: "tenants", uid: "0d1e3c4a-5b6c-4d7e-8f90-a1b2c3d4e5f6",
	},
	{
		name: "cluster-scoped, core group", gvk: schema.GroupVersionKind{Version: "v1", Kind: "Namespace"},
		objName: "platform", uid: "u-1",
	},
	{
		name: "a typed object's empty GroupVersionKind", namespace: "flux-system", objName: "tenants", uid: "u",
		segment: "version", rule: ruleEmpty,
	},
	{
		name: "not created yet: no uid", gvk: schema.GroupVersionKind{Group: "fluxcd.controlplane.io", Version: "v1", Kind: "ResourceSet"},
		namespace: "flux-system", objName: "tenants",
		segment: "uid", rule: ruleEmpty,
	},
	{
		name: "a uid with a slash", gvk: schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"},
		namespace: "ns", objName: "n", uid: "a/b",
		segment: "uid", rule: ruleUID,
	},
	{
		name: "no name", gvk: schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}, namespace: "ns", uid: "u",
		segment: "name", rule: ruleEmpty,
	},
	{
		name: "an upper-case namespace", gvk: schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}, namespace: "NS", objName: "n", uid: "u",
		segment: "namespace",
	},
	{
		name: "a group with a slash", gvk: schema.GroupVersionKind{Group: "a/b", Version: "v1", Kind: "K"}, namespace: "ns", objName: "n", uid: "u",
		segment: "group",
	},
}

// TestValidateOwner validates a finalizing object's own reference, the owner
// a controller fills in from its kind and metadata.
func TestValidateOwner(t *testing.T) {
	t.Parallel()
	for _, tt := range ownerTests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			owner := Reference{Group: tt.gvk.Group, Version: tt.gvk.Version, Kind: tt.gvk.Kind,
				Namespace: tt.namespace, Name: tt.objName, UID: tt.uid}
			err := owner.Validate()
			if tt.segment != "" {
				checkParseError(t, err, owner.String(), tt.segment, tt.rule, "")
				return
			}
			if err != nil {
				t.Fatalf("Validate() error = %v", err)
			}
			if got, err := Parse(owner.String()); err != nil || got != owner {
				t.Errorf("Parse(%q) = %+v, %v, want %+v", owner.String(), got, err, owner)
			}
		})
	}
}

// FuzzValidate: Validate accepts of a Reference's segments only what Parse
// accepts, and Parse returns the same Reference.
func FuzzValidate(f *testing.F) {
	for _, tt := range ownerTests {
		f.Add(tt.gvk.Group, tt.gvk.Version, tt.gvk.Kind, tt.namespace, tt.objName, tt.uid)
	}
	for _, tt := range validTests {
		f.Add(tt.want.Group, tt.want.Version, tt.want.Kind, tt.want.Namespace, tt.want.Name, tt.want.UID)
	}
	f.Fuzz(func(t *testing.T, group, version, kind, namespace, name, uid string) {
		got := Reference{Group: group, Version: version, Kind: kind, Namespace: namespace, Name: name, UID: uid}
		if err := got.Validate(); err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) || !errors.Is(err, ErrInvalid) || pe.Value != got.String() {
				t.Fatalf("Validate() of %+v = %#v", got, err)
			}
			return
		}
		parsed, err := Parse(got.String())
		if err != nil || parsed != got {
			t.Fatalf("Parse(%q) = %+v, %v; want %+v", got.String(), parsed, err, got)
		}
	})
}
