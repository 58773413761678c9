package pathpattern

import (
	"strings"
	"testing"
)

func TestRuleString(t *testing.T) {
	t.Parallel()
	seen := map[string]Rule{}
	for r := RuleTooLong; r <= RuleUncleanPath; r++ {
		s := r.String()
		if s == "" || strings.HasPrefix(s, "rule ") {
			t.Errorf("Rule %d has no text: %q", int(r), s)
		}
		if other, dup := seen[s]; dup {
			t.Errorf("rules %d and %d share the text %q", int(other), int(r), s)
		}
		seen[s] = r
	}
	for _, tt := range []struct {
		name string
		rule Rule
		want string
	}{
		{name: "zero", rule: 0, want: "rule 0"},
		{name: "past the last", rule: RuleUncleanPath + 1, want: "rule 20"},
		{name: "negative", rule: -1, want: "rule -1"},
		{name: "trailing slash", rule: RuleTrailingSlash, want: "must not end with '/'"},
		{name: "pattern bytes", rule: RuleTooManyBytes, want: "must be no more than 4096 bytes"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := tt.rule.String(); got != tt.want {
				t.Errorf("String() = %q, want %q", got, tt.want)
			}
		})
	}
}
