package finalizer

import (
	"errors"
	"maps"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// stampedByTests are live annotations with who StampedBy says stamped them.
var stampedByTests = []struct {
	name        string
	annotations map[string]string
	want        Reference
	ok          bool
	segment     string // with rule, when the value is malformed
	rule        string
}{
	{name: "stamped", annotations: map[string]string{Annotation: ownerValue, "note": "x"}, want: owner, ok: true},
	{name: "nil", annotations: nil},
	{name: "absent", annotations: map[string]string{"note": "x"}},
	{name: "empty", annotations: map[string]string{Annotation: ""}},
	{name: "self, never stamped", annotations: map[string]string{Annotation: Self}},
	{name: "malformed", annotations: map[string]string{Annotation: "tenants"}, rule: ruleSegments},
	{name: "self with a space", annotations: map[string]string{Annotation: "self "}, rule: ruleSegments},
	{name: "a uid with a space", annotations: map[string]string{Annotation: ownerValue + " "}, segment: "uid", rule: ruleUID},
	{name: "256 KiB", annotations: map[string]string{Annotation: strings.Repeat("/", 256<<10)}, rule: ruleTooLong},
}

func TestStampedBy(t *testing.T) {
	t.Parallel()
	for _, tt := range stampedByTests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, ok, err := StampedBy(tt.annotations)
			if got != tt.want || ok != tt.ok {
				t.Errorf("StampedBy() = %+v, %v; want %+v, %v", got, ok, tt.want, tt.ok)
			}
			if tt.rule == "" {
				if err != nil {
					t.Errorf("StampedBy() error = %v", err)
				}
				return
			}
			checkParseError(t, err, tt.annotations[Annotation], tt.segment, tt.rule, "")
		})
	}
}

// releaseTests are live annotations with what Release does for owner.
var releaseTests = []struct {
	name        string
	annotations map[string]string
	owner       Reference
	want        map[string]string
	result      ReleaseResult
	err         error
}{
	{
		name:        "stamped by the owner",
		annotations: map[string]string{Annotation: ownerValue, "note": "x"},
		owner:       owner,
		want:        map[string]string{"note": "x"},
		result:      Released,
	},
	{
		name:        "stamped by the owner, the only annotation",
		annotations: map[string]string{Annotation: ownerValue},
		owner:       owner,
		want:        map[string]string{},
		result:      Released,
	},
	{
		name:        "stamped by the owner at another version",
		annotations: map[string]string{Annotation: "fluxcd.controlplane.io/v2/ResourceSet/flux-system/tenants/" + owner.UID},
		owner:       owner,
		want:        map[string]string{},
		result:      Released,
	},
	{
		name:        "stamped by a cluster-scoped owner",
		annotations: map[string]string{Annotation: clusterOwner.String()},
		owner:       clusterOwner,
		want:        map[string]string{},
		result:      Released,
	},
	{
		name:        "an earlier incarnation of the owner",
		annotations: map[string]string{Annotation: "fluxcd.controlplane.io/v1/ResourceSet/flux-system/tenants/11111111-2222-3333-4444-555555555555"},
		owner:       owner,
		want:        map[string]string{Annotation: "fluxcd.controlplane.io/v1/ResourceSet/flux-system/tenants/11111111-2222-3333-4444-555555555555"},
		result:      OtherUID,
	},
	{
		name:        "another ResourceSet",
		annotations: map[string]string{Annotation: "fluxcd.controlplane.io/v1/ResourceSet/flux-system/platform/" + owner.UID},
		owner:       owner,
		want:        map[string]string{Annotation: "fluxcd.controlplane.io/v1/ResourceSet/flux-system/platform/" + owner.UID},
		result:      OtherOwner,
	},
	{
		name:        "the same name in another namespace",
		annotations: map[string]string{Annotation: "fluxcd.controlplane.io/v1/ResourceSet/default/tenants/" + owner.UID},
		owner:       owner,
		want:        map[string]string{Annotation: "fluxcd.controlplane.io/v1/ResourceSet/default/tenants/" + owner.UID},
		result:      OtherOwner,
	},
	{
		name:        "another kind",
		annotations: map[string]string{Annotation: "fluxcd.controlplane.io/v1/FluxInstance/flux-system/tenants/" + owner.UID},
		owner:       owner,
		want:        map[string]string{Annotation: "fluxcd.controlplane.io/v1/FluxInstance/flux-system/tenants/" + owner.UID},
		result:      OtherOwner,
	},
	{
		name:        "another group",
		annotations: map[string]string{Annotation: "example.com/v1/ResourceSet/flux-system/tenants/" + owner.UID},
		owner:       owner,
		want:        map[string]string{Annotation: "example.com/v1/ResourceSet/flux-system/tenants/" + owner.UID},
		result:      OtherOwner,
	},
	{
		name:        "the cluster-scoped namesake of a namespaced owner",
		annotations: map[string]string{Annotation: "fluxcd.controlplane.io/v1/ResourceSet//tenants/" + owner.UID},
		owner:       owner,
		want:        map[string]string{Annotation: "fluxcd.controlplane.io/v1/ResourceSet//tenants/" + owner.UID},
		result:      OtherOwner,
	},
	{
		name:        "self",
		annotations: map[string]string{Annotation: Self},
		owner:       owner,
		want:        map[string]string{Annotation: Self},
		result:      NotStamped,
	},
	{name: "absent", annotations: map[string]string{"note": "x"}, owner: owner, want: map[string]string{"note": "x"}, result: NotStamped},
	{name: "empty", annotations: map[string]string{Annotation: ""}, owner: owner, want: map[string]string{Annotation: ""}, result: NotStamped},
	{name: "nil", owner: owner, want: nil, result: NotStamped},
	{
		name:        "malformed",
		annotations: map[string]string{Annotation: ownerValue + " "},
		owner:       owner,
		want:        map[string]string{Annotation: ownerValue + " "},
		result:      MalformedStamp,
	},
	{
		name:        "an invalid owner",
		annotations: map[string]string{Annotation: ownerValue},
		owner:       Reference{Group: owner.Group, Version: owner.Version, Kind: owner.Kind, Namespace: owner.Namespace, Name: owner.Name},
		err:         ErrInvalid,
	},
	{name: "the zero owner", annotations: map[string]string{Annotation: "/v1/K//n/"}, err: ErrInvalid},
}

func TestRelease(t *testing.T) {
	t.Parallel()
	for _, tt := range releaseTests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			annotations := maps.Clone(tt.annotations)
			got, result, err := Release(annotations, tt.owner)
			if !errors.Is(err, tt.err) || (err == nil) != (tt.err == nil) {
				t.Fatalf("Release() error = %v, want %v", err, tt.err)
			}
			if result != tt.result {
				t.Errorf("Release() result = %v, want %v", result, tt.result)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Release() mismatch (-want +got):\n%s", diff)
			}
			if got != nil {
				got["mutated"] = "yes" // must not reach the input
			}
			if diff := cmp.Diff(tt.annotations, annotations); diff != "" {
				t.Errorf("Release() changed its argument (-before +after):\n%s", diff)
			}
		})
	}
}

// TestStampThenRelease: what Stamp writes for an owner, Release removes for
// that owner and no other.
func TestStampThenRelease(t *testing.T) {
	t.Parallel()
	stamped, err := Stamp(nil, map[string]string{Annotation: Self}, owner)
	if err != nil {
		t.Fatal(err)
	}
	if by, ok, err := StampedBy(stamped); !ok || err != nil || by != owner {
		t.Fatalf("StampedBy(Stamp()) = %+v, %v, %v; want %+v", by, ok, err, owner)
	}
	recreated := owner
	recreated.UID = "11111111-2222-3333-4444-555555555555"
	if _, result, _ := Release(stamped, recreated); result != OtherUID {
		t.Errorf("Release() by a recreated owner = %v, want %v", result, OtherUID)
	}
	if got, result, _ := Release(stamped, owner); result != Released || len(got) != 0 {
		t.Errorf("Release() by the owner = %v, %v; want an empty map, %v", got, result, Released)
	}
}

func TestReleaseResultString(t *testing.T) {
	t.Parallel()
	for r, want := range map[ReleaseResult]string{
		0:              "ReleaseResult(0)",
		NotStamped:     "not stamped",
		Released:       "released",
		OtherOwner:     "stamped by another owner",
		OtherUID:       "stamped by the owner with another uid",
		MalformedStamp: "malformed stamp",
		6:              "ReleaseResult(6)",
		-1:             "ReleaseResult(-1)",
	} {
		if got := r.String(); got != want {
			t.Errorf("ReleaseResult(%d).String() = %q, want %q", int(r), got, want)
		}
	}
}

// FuzzRelease: for any live value, StampedBy agrees with Parse, and
// Release removes the annotation exactly when it names the owner, by
// group, kind, namespace, name and UID, and otherwise returns the
// annotations unchanged.
func FuzzRelease(f *testing.F) {
	for _, tt := range stampedByTests {
		f.Add(tt.annotations[Annotation])
	}
	for _, tt := range releaseTests {
		f.Add(tt.annotations[Annotation])
	}
	for _, tt := range hostileValues {
		f.Add(tt.value)
	}
	f.Fuzz(func(t *testing.T, value string) {
		live := map[string]string{Annotation: value, "note": "x"}
		by, ok, err := StampedBy(live)
		parsed, perr := Parse(value)
		switch {
		case value == "" || value == Self:
			if ok || err != nil || by != (Reference{}) {
				t.Fatalf("StampedBy(%q) = %+v, %v, %v", value, by, ok, err)
			}
		case perr != nil:
			if ok || err == nil || err.Error() != perr.Error() {
				t.Fatalf("StampedBy(%q) = %v, %v; Parse: %v", value, ok, err, perr)
			}
		case !ok || err != nil || by != parsed:
			t.Fatalf("StampedBy(%q) = %+v, %v, %v; Parse: %+v", value, by, ok, err, parsed)
		}
		got, result, err := Release(live, owner)
		if err != nil {
			t.Fatalf("Release(%q) error = %v", value, err)
		}
		names := ok && by.Group == owner.Group && by.Kind == owner.Kind &&
			by.Namespace == owner.Namespace && by.Name == owner.Name && by.UID == owner.UID
		if names != (result == Released) {
			t.Fatalf("Release(%q) = %v", value, result)
		}
		want := map[string]string{"note": "x"}
		if !names {
			want[Annotation] = value
		}
		if !maps.Equal(got, want) {
			t.Fatalf("Release(%q) = %q, want %q", value, got, want)
		}
	})
}
