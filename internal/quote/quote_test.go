package quote

import (
	"strings"
	"testing"
	"unicode/utf8"
)

var valueTests = []struct {
	name, s, want string
}{
	{name: "empty", s: "", want: ""},
	{name: "short", s: "payments", want: "payments"},
	{name: "exactly MaxBytes", s: strings.Repeat("x", MaxBytes), want: strings.Repeat("x", MaxBytes)},
	{name: "one byte more", s: strings.Repeat("x", MaxBytes+1), want: strings.Repeat("x", MaxBytes) + "... (65 bytes)"},
	{name: "long", s: strings.Repeat("ab", 50000), want: strings.Repeat("ab", MaxBytes/2) + "... (100000 bytes)"},
	{
		name: "a character across the cut",
		s:    strings.Repeat("x", MaxBytes-1) + "é" + "yy",
		want: strings.Repeat("x", MaxBytes-1) + "... (67 bytes)",
	},
	{
		name: "a four-byte character across the cut",
		s:    strings.Repeat("x", MaxBytes-2) + "\U0001F600" + "y",
		want: strings.Repeat("x", MaxBytes-2) + "... (67 bytes)",
	},
	{
		name: "invalid UTF-8 is cut at MaxBytes",
		s:    strings.Repeat("\x80", MaxBytes+10),
		want: strings.Repeat("\x80", MaxBytes) + "... (74 bytes)",
	},
}

func TestValue(t *testing.T) {
	t.Parallel()
	for _, tt := range valueTests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := Value(tt.s); got != tt.want {
				t.Errorf("Value() = %q, want %q", got, tt.want)
			}
		})
	}
}

// FuzzValue checks that Value keeps short values, bounds long ones, keeps
// a prefix of them, and never splits a valid character.
func FuzzValue(f *testing.F) {
	for _, tt := range valueTests {
		f.Add(tt.s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := Value(s)
		if len(s) <= MaxBytes {
			if got != s {
				t.Fatalf("Value(%q) = %q, want it unchanged", s, got)
			}
			return
		}
		prefix, _, ok := strings.Cut(got, "... (")
		if !ok || !strings.HasPrefix(s, prefix) || len(prefix) > MaxBytes || len(prefix) < MaxBytes-utf8.UTFMax+1 {
			t.Fatalf("Value(%q) = %q", s, got)
		}
		if utf8.ValidString(s) && !utf8.ValidString(prefix) {
			t.Fatalf("Value(%q) = %q splits a character", s, got)
		}
	})
}
