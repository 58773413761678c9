package finalizer

import (
	"errors"
	"strings"
	"testing"
)

func TestParseErrorMessage(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		err  *ParseError
		want string
	}{
		{
			name: "segment",
			err:  &ParseError{Value: "/v1//ns/n/u", Segment: SegmentKind, Err: errEmpty},
			want: `finalizer: invalid reference "/v1//ns/n/u": kind: must not be empty`,
		},
		{
			name: "whole value",
			err:  &ParseError{Value: "a/b", Err: errSegments},
			want: `finalizer: invalid reference "a/b": must have exactly six segments group/version/kind/namespace/name/uid`,
		},
		{
			name: "over-long value is cut",
			err:  &ParseError{Value: strings.Repeat("x", MaxLength+1), Err: errTooLong},
			want: `finalizer: invalid reference "` + strings.Repeat("x", quoteLimit) + `"... (829 bytes): must be no more than 828 bytes`,
		},
		{
			name: "no rule",
			err:  &ParseError{Value: "v", Segment: SegmentUID},
			want: `finalizer: invalid reference "v": uid: invalid`,
		},
		{
			name: "unknown segment",
			err:  &ParseError{Value: "v", Segment: Segment(42), Err: errEmpty},
			want: `finalizer: invalid reference "v": segment(42): must not be empty`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := tt.err.Error(); got != tt.want {
				t.Errorf("Error() = %q, want %q", got, tt.want)
			}
			if !errors.Is(tt.err, ErrInvalid) {
				t.Errorf("%v does not match ErrInvalid", tt.err)
			}
			if tt.err.Err != nil && !errors.Is(tt.err, tt.err.Err) {
				t.Errorf("%v does not unwrap to its rule", tt.err)
			}
		})
	}
}

func TestSegmentString(t *testing.T) {
	t.Parallel()
	want := map[Segment]string{
		SegmentNone: "value", SegmentGroup: "group", SegmentVersion: "version", SegmentKind: "kind",
		SegmentNamespace: "namespace", SegmentName: "name", SegmentUID: "uid", Segment(-1): "segment(-1)",
	}
	for s, name := range want {
		if got := s.String(); got != name {
			t.Errorf("Segment(%d).String() = %q, want %q", int(s), got, name)
		}
	}
}

func TestListKeys(t *testing.T) {
	t.Parallel()
	many := map[string]string{}
	for _, k := range strings.Split("l k j i h g f e d c b a", " ") {
		many[k] = ""
	}
	tests := []struct {
		name string
		m    map[string]string
		skip string
		want string
	}{
		{name: "nil", m: nil, want: ""},
		{name: "only the skipped key", m: map[string]string{Annotation: "self"}, skip: Annotation, want: ""},
		{name: "sorted", m: map[string]string{"b": "", "a": "", Annotation: ""}, skip: Annotation, want: `"a", "b"`},
		{name: "bounded", m: many, want: `"a", "b", "c", "d", "e", "f", "g", "h", "i", "j" and 2 more`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := listKeys(tt.m, tt.skip); got != tt.want {
				t.Errorf("listKeys() = %q, want %q", got, tt.want)
			}
		})
	}
}
