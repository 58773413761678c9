package finalizer

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/tenantkit/tenantkit/internal/hostile"
)

// maxMessageBytes bounds every message: a value is quoted at most once, cut
// to quoteLimit bytes beyond maxLength, and %q at most quadruples it.
const maxMessageBytes = 4*maxLength + 512

const okRef = "fluxcd.controlplane.io/v1/ResourceSet/flux-system/tenants/0d1e3c4a"

// hostileValues are annotation values that whoever may patch a namespace
// can write. Each must fail to parse, naming the segment and the rule.
var hostileValues = []struct {
	name    string
	value   string
	segment string
	rule    string
}{
	{name: "one byte over the length limit", value: longest.String() + "u", segment: "", rule: "must be no more than 828 bytes"},
	{name: "256 KiB", value: strings.Repeat("/", 256<<10), segment: "", rule: "must be no more than 828 bytes"},
	{name: "seven segments", value: okRef + "/x", segment: "", rule: "exactly six segments"},
	{name: "five segments", value: "/v1/ConfigMap/ns/n", segment: "", rule: "exactly six segments"},
	{name: "only slashes", value: "/////", segment: "version", rule: "must not be empty"},
	{name: "slash in the uid", value: "/v1/ConfigMap/ns/n/u/id", segment: "", rule: "exactly six segments"},
	{name: "leading space", value: " " + okRef, segment: "group", rule: "RFC 1123"},
	{name: "self with a leading space", value: " self", segment: "", rule: "exactly six segments"},
	{name: "self with a trailing newline", value: "self\n", segment: "", rule: "exactly six segments"},
	{name: "upper-case self", value: "SELF", segment: "", rule: "exactly six segments"},
	{name: "trailing space", value: okRef + " ", segment: "uid", rule: "printable ASCII characters other than space"},
	{name: "trailing newline", value: okRef + "\n", segment: "uid", rule: "printable ASCII"},
	{name: "tab in the uid", value: "/v1/ConfigMap/ns/n/u\tid", segment: "uid", rule: "printable ASCII"},
	{name: "NUL in the uid", value: "/v1/ConfigMap/ns/n/uid\x00", segment: "uid", rule: "printable ASCII"},
	{name: "DEL in the uid", value: "/v1/ConfigMap/ns/n/uid\x7f", segment: "uid", rule: "printable ASCII"},
	{name: "non-ASCII uid", value: "/v1/ConfigMap/ns/n/u\u00efd", segment: "uid", rule: "printable ASCII"},
	{name: "invalid UTF-8 in the uid", value: "/v1/ConfigMap/ns/n/u\xffd", segment: "uid", rule: "printable ASCII"},
	{name: "uid of 129 bytes", value: "/v1/ConfigMap/ns/n/" + strings.Repeat("u", 129), segment: "uid", rule: "no more than 128 bytes"},
	{name: "space in the version", value: "/v1 /ConfigMap/ns/n/uid", segment: "version", rule: "DNS-1035 label"},
	{name: "space in the kind", value: "/v1/Config Map/ns/n/uid", segment: "kind", rule: "lower-cased, a DNS-1035 label"},
	{name: "Kelvin sign in the kind", value: "/v1/\u212aind/ns/n/uid", segment: "kind", rule: "must be ASCII"},
	{name: "Kelvin sign in the group", value: "fluxcd.\u212a.io/v1/ResourceSet/ns/n/uid", segment: "group", rule: "RFC 1123"},
	{name: "dotted capital I in the namespace", value: "/v1/ConfigMap/\u0130stanbul/n/uid", segment: "namespace", rule: "RFC 1123"},
	{name: "upper-case namespace", value: "/v1/ConfigMap/Flux-System/n/uid", segment: "namespace", rule: "RFC 1123"},
	{name: "newline in the name", value: "/v1/ConfigMap/ns/tenants\n/uid", segment: "name", rule: "RFC 1123"},
	{name: "space in the name", value: "/v1/ConfigMap/ns/ten ants/uid", segment: "name", rule: "RFC 1123"},
	{name: "invalid UTF-8 in the name", value: "/v1/ConfigMap/ns/\xff/uid", segment: "name", rule: "RFC 1123"},
	{name: "empty name", value: "/v1/ConfigMap/ns//uid", segment: "name", rule: "must not be empty"},
	{name: "empty uid", value: "/v1/ConfigMap/ns/n/", segment: "uid", rule: "must not be empty"},
}

func TestHostileParse(t *testing.T) {
	t.Parallel()
	for _, tt := range hostileValues {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			hostile.NoPanic(t, func() {
				r, err := Parse(tt.value)
				var pe *ParseError
				if r != (Reference{}) || !errors.Is(err, ErrInvalid) || !errors.As(err, &pe) {
					t.Fatalf("Parse() = %+v, %v; want a *ParseError", r, err)
				}
				if pe.Value != tt.value || pe.Segment != tt.segment {
					t.Errorf("error names segment %q, want %q", pe.Segment, tt.segment)
				}
				msg := err.Error()
				if !strings.Contains(msg, tt.rule) || (tt.segment != "" && !strings.Contains(msg, ": "+tt.segment+": ")) {
					t.Errorf("error %.300q must name segment %q and rule %q", msg, tt.segment, tt.rule)
				}
				if len(msg) > maxMessageBytes || strings.ContainsAny(msg, "\n\t\x00") {
					t.Errorf("error %.300q (%d bytes) must be short and quote the value", msg, len(msg))
				}
			})
		})
	}
	// At the limit, every segment at its bound, the value parses.
	if r, err := Parse(longest.String()); err != nil || r != longest || len(longest.String()) != maxLength {
		t.Errorf("Parse(longest) = %v, %v", r, err)
	}
}

func TestHostileStamp(t *testing.T) {
	t.Parallel()
	owner, err := Parse(okRef)
	if err != nil {
		t.Fatal(err)
	}
	many := map[string]string{Annotation: Self}
	for i := range 1000 {
		many[fmt.Sprint("my.org.io/k", i)] = "v"
	}
	for _, tt := range []struct {
		name        string
		labels      map[string]string
		annotations map[string]string
		owner       Reference
		want        error
		detail      string
	}{
		{name: "self with a leading space", annotations: map[string]string{Annotation: " self"}, owner: owner, want: ErrStamp, detail: `" self"`},
		{name: "self with a trailing newline", annotations: map[string]string{Annotation: "self\n"}, owner: owner, want: ErrStamp, detail: `"self\n"`},
		{name: "upper-case self", annotations: map[string]string{Annotation: "Self"}, owner: owner, want: ErrStamp},
		{name: "someone else's reference", annotations: map[string]string{Annotation: okRef}, owner: owner, want: ErrStamp},
		{name: "only whitespace", annotations: map[string]string{Annotation: " \t\n"}, owner: owner, want: ErrStamp},
		{name: "256 KiB", annotations: map[string]string{Annotation: strings.Repeat("self", 64<<10)}, owner: owner, want: ErrStamp, detail: "(262144 bytes)"},
		{name: "1000 other annotations", annotations: many, owner: owner, want: ErrStamp, detail: "and 990 more"},
		{name: "a label with a newline in its key", labels: map[string]string{"a\nb": ""}, annotations: map[string]string{Annotation: Self}, owner: owner,
			want: ErrStamp, detail: `"a\nb"`},
		{name: "owner with a space in its uid", annotations: map[string]string{Annotation: Self}, owner: Reference{Version: "v1", Kind: "ConfigMap", Name: "n", UID: "u id"},
			want: ErrInvalid, detail: "uid"},
		{name: "zero owner", annotations: map[string]string{Annotation: Self}, want: ErrInvalid, detail: "version: must not be empty"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			hostile.NoPanic(t, func() {
				got, err := Stamp(tt.labels, tt.annotations, tt.owner)
				if got != nil || !errors.Is(err, tt.want) {
					t.Fatalf("Stamp() = %v, %.300v; want %v", got, err, tt.want)
				}
				msg := err.Error()
				if !strings.Contains(msg, tt.detail) || len(msg) > maxMessageBytes || strings.ContainsAny(msg, "\n\x00") {
					t.Errorf("error %.300q (%d bytes) must contain %q and stay short", msg, len(msg), tt.detail)
				}
			})
		})
	}
}

func TestHostileDecide(t *testing.T) {
	t.Parallel()
	decider, errs := NewDecider(nil, resourceSet)
	if errs != nil {
		t.Fatal(errs)
	}
	refuse := LookupFunc(func(context.Context, Reference) (string, error) {
		t.Error("Decide looked up a reference it should have refused")
		return "", errors.New("unexpected lookup")
	})
	// Values that do not parse leave the generator accountable, without a
	// lookup: a forged value can never cause a deletion to be skipped.
	for _, v := range hostileValues {
		hostile.NoPanic(t, func() {
			verdict, err := decider.Decide(context.Background(), "tenant-a", map[string]string{Annotation: v.value}, refuse)
			if err != nil || verdict.Outcome != Malformed || verdict.HandedOff() {
				t.Errorf("%s: Decide() = %+v, %v; want Malformed", v.name, verdict, err)
			}
			if len(verdict.Reason) > maxMessageBytes || strings.ContainsAny(verdict.Reason, "\n\x00") {
				t.Errorf("%s: reason %.200q must be short and quote the value", v.name, verdict.Reason)
			}
		})
	}
	for _, tt := range []struct {
		name   string
		uid    string
		err    error
		want   Outcome
		hasErr bool
	}{
		{name: "same uid", uid: "0d1e3c4a", want: HandedOff},
		{name: "uid with a trailing space", uid: "0d1e3c4a ", want: Recreated},
		{name: "upper-case uid", uid: "0D1E3C4A", want: Recreated},
		{name: "empty uid", uid: "", want: Recreated},
		{name: "not found, wrapped", err: fmt.Errorf("get: %w", ErrNotFound), want: NotFound},
		{name: "forbidden, unmapped", err: errors.New("forbidden"), want: Undecided, hasErr: true},
		{name: "forbidden", err: fmt.Errorf("get: %w", ErrForbidden), want: Forbidden, hasErr: true},
		{name: "cancelled", err: context.Canceled, want: Undecided, hasErr: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			lookup := LookupFunc(func(context.Context, Reference) (string, error) { return tt.uid, tt.err })
			verdict, err := decider.Decide(context.Background(), "tenant-a", map[string]string{Annotation: okRef}, lookup)
			if verdict.Outcome != tt.want || (err != nil) != tt.hasErr || (tt.hasErr && !errors.Is(err, tt.err)) {
				t.Errorf("Decide() = %+v, %v; want %v", verdict, err, tt.want)
			}
			if strings.ContainsAny(verdict.Reason, "\n\x00") {
				t.Errorf("reason %q must quote what the cluster returned", verdict.Reason)
			}
		})
	}
	if v, err := decider.Decide(context.Background(), "tenant-a", map[string]string{Annotation: okRef}, nil); err == nil || v.HandedOff() {
		t.Errorf("Decide(nil lookup) = %+v, %v; want an error", v, err)
	}
}
