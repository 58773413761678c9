package finalizer

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/version"
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
	if MaxLength != sum {
		t.Errorf("MaxLength = %d, the segment bounds add up to %d", MaxLength, sum)
	}
	if got := len(longest.String()); got != MaxLength {
		t.Errorf("the longest reference is %d bytes, MaxLength is %d", got, MaxLength)
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

// A rule is identified by the Err of a *ParseError. Rules that come from
// apimachinery (DNS names) have no identity here: for them the test checks the
// segment only (rule nil).
var invalidTests = []struct {
	name    string
	value   string
	segment Segment
	rule    error
}{
	{name: "empty", value: "", rule: errSegments},
	{name: "five segments", value: "fluxcd.controlplane.io/v1/ResourceSet/flux-system/tenants", rule: errSegments},
	{name: "seven segments", value: "fluxcd.controlplane.io/v1/ResourceSet/flux-system/tenants/uid/x", rule: errSegments},
	{name: "self with a space", value: " self", rule: errSegments},
	{name: "Self capitalized", value: "Self", rule: errSegments},
	{name: "too long", value: longest.String() + "u", rule: errTooLong},
	{name: "far too long", value: strings.Repeat("/", 1<<18), rule: errTooLong},

	{name: "leading whitespace", value: " fluxcd.controlplane.io/v1/ResourceSet/flux-system/tenants/uid", segment: SegmentGroup},
	{name: "leading whitespace, core group", value: " /v1/ConfigMap/flux-system/rset/abc", segment: SegmentGroup},
	{name: "upper-case group", value: "Fluxcd.io/v1/ResourceSet/ns/n/u", segment: SegmentGroup},
	{name: "group too long", value: longSubdomain + "e/v1/K/ns/n/u", segment: SegmentGroup},

	{name: "empty version", value: "fluxcd.controlplane.io//ResourceSet/flux-system/tenants/uid", segment: SegmentVersion, rule: errEmpty},
	{name: "version without v", value: "/1/K/ns/n/u", segment: SegmentVersion, rule: errVersion},
	{name: "version V1", value: "/V1/K/ns/n/u", segment: SegmentVersion, rule: errVersion},
	{name: "version v", value: "/v/K/ns/n/u", segment: SegmentVersion, rule: errVersion},
	{name: "version v1beta", value: "/v1beta/K/ns/n/u", segment: SegmentVersion, rule: errVersion},
	{name: "version v1gamma1", value: "/v1gamma1/K/ns/n/u", segment: SegmentVersion, rule: errVersion},
	{name: "version vbeta1", value: "/vbeta1/K/ns/n/u", segment: SegmentVersion, rule: errVersion},
	{name: "version v1.2", value: "/v1.2/K/ns/n/u", segment: SegmentVersion, rule: errVersion},
	{name: "version too long", value: "/v1beta" + strings.Repeat("1", 58) + "/K/ns/n/u", segment: SegmentVersion, rule: errTooLong63},

	{name: "empty kind", value: "fluxcd.controlplane.io/v1//flux-system/tenants/uid", segment: SegmentKind, rule: errEmpty},
	{name: "lower-case kind", value: "/v1/configMap/ns/n/u", segment: SegmentKind, rule: errKind},
	{name: "kind with a dash", value: "/v1/Config-Map/ns/n/u", segment: SegmentKind, rule: errKind},
	{name: "kind with a dot", value: "/v1/ConfigMap.v1/ns/n/u", segment: SegmentKind, rule: errKind},
	{name: "non-ASCII kind", value: "/v1/Ünit/ns/n/u", segment: SegmentKind, rule: errKind},
	{name: "kind too long", value: "/v1/K" + strings.Repeat("k", 63) + "/ns/n/u", segment: SegmentKind, rule: errTooLong63},

	{name: "upper-case namespace", value: "/v1/K/Flux-System/n/u", segment: SegmentNamespace},
	{name: "dotted namespace", value: "/v1/K/flux.system/n/u", segment: SegmentNamespace},
	{name: "namespace too long", value: "/v1/K/" + strings.Repeat("n", 64) + "/n/u", segment: SegmentNamespace},

	{name: "empty name", value: "/v1/K/ns//u", segment: SegmentName, rule: errEmpty},
	{name: "upper-case name", value: "/v1/K/ns/Tenants/u", segment: SegmentName},
	{name: "name with leading dash", value: "/v1/K/ns/-tenants/u", segment: SegmentName},
	{name: "name too long", value: "/v1/K/ns/" + longSubdomain + "e/u", segment: SegmentName},

	{name: "empty uid", value: "fluxcd.controlplane.io/v1/ResourceSet/flux-system/tenants/", segment: SegmentUID, rule: errEmpty},
	{name: "trailing whitespace", value: "/v1/ConfigMap/flux-system/rset/abc ", segment: SegmentUID, rule: errUID},
	{name: "trailing newline", value: "/v1/ConfigMap/flux-system/rset/abc\n", segment: SegmentUID, rule: errUID},
	{name: "space in uid", value: "/v1/K/ns/n/a b", segment: SegmentUID, rule: errUID},
	{name: "NUL in uid", value: "/v1/K/ns/n/a\x00", segment: SegmentUID, rule: errUID},
	{name: "DEL in uid", value: "/v1/K/ns/n/a\x7f", segment: SegmentUID, rule: errUID},
	{name: "non-ASCII uid", value: "/v1/K/ns/n/é", segment: SegmentUID, rule: errUID},
	{name: "uid too long", value: "/v1/K/ns/n/" + strings.Repeat("u", 129), segment: SegmentUID, rule: errTooLong128},

	{name: "first failing segment wins", value: "/x/y/Z/ns/", segment: SegmentVersion, rule: errVersion},
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
			if !errors.Is(err, ErrInvalid) {
				t.Errorf("Parse(%q) error %v does not match ErrInvalid", tt.value, err)
			}
			if errors.Is(err, ErrSelf) {
				t.Errorf("Parse(%q) error %v matches ErrSelf", tt.value, err)
			}
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("Parse(%q) error %T is not a *ParseError", tt.value, err)
			}
			if pe.Value != tt.value {
				t.Errorf("ParseError.Value = %q, want %q", pe.Value, tt.value)
			}
			if pe.Segment != tt.segment {
				t.Errorf("ParseError.Segment = %v, want %v", pe.Segment, tt.segment)
			}
			if tt.rule != nil && !errors.Is(err, tt.rule) {
				t.Errorf("ParseError.Err = %v, want %v", pe.Err, tt.rule)
			}
			if pe.Err == nil {
				t.Errorf("ParseError.Err is nil")
			}
		})
	}
}

func TestParseSelf(t *testing.T) {
	t.Parallel()
	got, err := Parse(Self)
	if !errors.Is(err, ErrSelf) {
		t.Fatalf("Parse(%q) error = %v, want ErrSelf", Self, err)
	}
	if errors.Is(err, ErrInvalid) {
		t.Errorf("Parse(%q) error matches ErrInvalid, want only ErrSelf", Self)
	}
	if got != (Reference{}) {
		t.Errorf("Parse(%q) = %+v, want the zero Reference", Self, got)
	}
}

func TestValidate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		ref     Reference
		segment Segment
		rule    error
	}{
		{name: "zero", ref: Reference{}, segment: SegmentVersion, rule: errEmpty},
		{name: "no name", ref: Reference{Version: "v1", Kind: "ConfigMap"}, segment: SegmentName, rule: errEmpty},
		{name: "slash in group", ref: Reference{Group: "a/b", Version: "v1", Kind: "K", Name: "n", UID: "u"}, segment: SegmentGroup},
		{name: "slash in version", ref: Reference{Version: "v1/v2", Kind: "K", Name: "n", UID: "u"}, segment: SegmentVersion, rule: errVersion},
		{name: "slash in kind", ref: Reference{Version: "v1", Kind: "K/L", Name: "n", UID: "u"}, segment: SegmentKind, rule: errKind},
		{name: "slash in namespace", ref: Reference{Version: "v1", Kind: "K", Namespace: "a/b", Name: "n", UID: "u"}, segment: SegmentNamespace},
		{name: "slash in name", ref: Reference{Version: "v1", Kind: "K", Name: "a/b", UID: "u"}, segment: SegmentName},
		{name: "slash in uid", ref: Reference{Version: "v1", Kind: "K", Name: "n", UID: "a/b"}, segment: SegmentUID, rule: errUID},
		{name: "self uid is fine, no name", ref: Reference{Version: "v1", Kind: "K", UID: Self}, segment: SegmentName, rule: errEmpty},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := tt.ref.Validate()
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("Validate() = %v, want a *ParseError", err)
			}
			if !errors.Is(err, ErrInvalid) {
				t.Errorf("Validate() error does not match ErrInvalid")
			}
			if pe.Value != tt.ref.String() {
				t.Errorf("ParseError.Value = %q, want %q", pe.Value, tt.ref.String())
			}
			if pe.Segment != tt.segment {
				t.Errorf("ParseError.Segment = %v, want %v", pe.Segment, tt.segment)
			}
			if tt.rule != nil && !errors.Is(err, tt.rule) {
				t.Errorf("ParseError.Err = %v, want %v", pe.Err, tt.rule)
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

// kubeAware reports whether apimachinery's version package recognizes v as a
// Kubernetes API version: such versions sort above every other string.
func kubeAware(v string) bool {
	return version.CompareKubeAwareVersionStrings(v, "") > 0
}

// TestAPIVersionAgreesWithApimachinery keeps isAPIVersion in step with the
// grammar of apimachinery's unexported parseKubeVersion.
func TestAPIVersionAgreesWithApimachinery(t *testing.T) {
	t.Parallel()
	for _, v := range []string{
		"v1", "v2", "v10", "v0", "v01", "v1beta1", "v1beta2", "v2alpha1", "v1alpha10", "v1beta0",
		"", "v", "V1", "1", "v1beta", "v1alpha", "vbeta1", "v1gamma1", "v1.2", "v1-beta1", "v1Beta1",
		"v1beta1x", "v1 ", " v1", "v1\n", "v1beta1beta1", "beta1", "v١",
	} {
		if got, want := isAPIVersion(v), kubeAware(v); got != want {
			t.Errorf("isAPIVersion(%q) = %v, apimachinery says %v", v, got, want)
		}
	}
}

// maxDigitRun is the length of the longest run of ASCII digits in s.
func maxDigitRun(s string) int {
	longest, run := 0, 0
	for i := range len(s) {
		if s[i] >= '0' && s[i] <= '9' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	return longest
}

func FuzzParse(f *testing.F) {
	for _, tt := range validTests {
		f.Add(tt.value)
	}
	for _, tt := range invalidTests {
		f.Add(tt.value)
	}
	f.Add(Self)
	f.Fuzz(func(t *testing.T, s string) {
		r, err := Parse(s)
		if err != nil {
			if r != (Reference{}) {
				t.Fatalf("Parse(%q) returned %+v with error %v", s, r, err)
			}
			if s == Self {
				if !errors.Is(err, ErrSelf) {
					t.Fatalf("Parse(%q) error = %v, want ErrSelf", s, err)
				}
				return
			}
			var pe *ParseError
			if !errors.As(err, &pe) || !errors.Is(err, ErrInvalid) || pe.Value != s || pe.Err == nil {
				t.Fatalf("Parse(%q) error = %#v, want a *ParseError for the value", s, err)
			}
			// A message quotes the value at most once, and %q at most
			// quadruples it; apimachinery's rules take a few hundred bytes.
			if n := len(err.Error()); n > 4*MaxLength+512 {
				t.Fatalf("Parse(%q) error is %d bytes long", s[:min(len(s), 64)], n)
			}
			return
		}
		if len(s) > MaxLength {
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
		// apimachinery's parser turns digits into an int: beyond 18 digits it
		// overflows and refuses what the grammar allows.
		if maxDigitRun(r.Version) <= 18 && !kubeAware(r.Version) {
			t.Fatalf("Parse(%q) accepted version %q, which apimachinery does not", s, r.Version)
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
