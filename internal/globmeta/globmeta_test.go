package globmeta

import "testing"

func TestHasMetaUnescape(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, pattern string
		meta          bool
		unescaped     string
	}{
		{name: "plain", pattern: "m/a.yaml", unescaped: "m/a.yaml"},
		{name: "star", pattern: "m/*.yaml", meta: true},
		{name: "question", pattern: "m/a?", meta: true},
		{name: "class", pattern: "m/[ab]", meta: true},
		{name: "brace", pattern: "m/{a,b}", meta: true},
		{name: "escaped star", pattern: `m/a\*b.yaml`, unescaped: "m/a*b.yaml"},
		{name: "escaped class and braces", pattern: `\[a\]\{b\}\?`, unescaped: "[a]{b}?"},
		{name: "escaped other byte is kept", pattern: `m/a\b.yaml`, unescaped: `m/a\b.yaml`},
		{name: "escaped backslash is kept", pattern: `m/a\\b`, unescaped: `m/a\\b`},
		{name: "escaped backslash then star", pattern: `a\\*`, meta: true},
		{name: "trailing backslash", pattern: `a\`, unescaped: `a\`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := HasMeta(tt.pattern); got != tt.meta {
				t.Fatalf("HasMeta(%q) = %v, want %v", tt.pattern, got, tt.meta)
			}
			if tt.meta {
				return
			}
			if got := Unescape(tt.pattern); got != tt.unescaped {
				t.Errorf("Unescape(%q) = %q, want %q", tt.pattern, got, tt.unescaped)
			}
		})
	}
}
