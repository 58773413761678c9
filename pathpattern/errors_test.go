package pathpattern

import (
	"slices"
	"testing"
)

// allRules lists every rule a *SyntaxError may name.
var allRules = []string{
	ruleTooLong, ruleTooManyBytes, ruleInvalidUTF8, ruleNUL, ruleMissingAlias, ruleBadAlias,
	ruleMissingClose, ruleMissingOpen, ruleEmptyCapture, ruleInvalidName, ruleDuplicateName,
	ruleEmptySegment, ruleTrailingSlash, ruleDotSegment, ruleUnknownCapture, ruleEmptyPath,
	ruleAbsolutePath, ruleDotDot, ruleUncleanPath,
}

// validRule reports whether r is one of the rules.
func validRule(r string) bool { return slices.Contains(allRules, r) }

func TestRuleText(t *testing.T) {
	t.Parallel()
	seen := map[string]int{}
	for i, r := range allRules {
		if r == "" {
			t.Errorf("rule %d has no text", i)
		}
		if other, dup := seen[r]; dup {
			t.Errorf("rules %d and %d share the text %q", other, i, r)
		}
		seen[r] = i
	}
	for _, tt := range []struct {
		name string
		rule string
		want string
	}{
		{name: "trailing slash", rule: ruleTrailingSlash, want: "must not end with '/'"},
		{name: "pattern characters", rule: ruleTooLong, want: "must be no more than 1024 characters"},
		{name: "pattern bytes", rule: ruleTooManyBytes, want: "must be no more than 4096 bytes"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if tt.rule != tt.want {
				t.Errorf("rule = %q, want %q", tt.rule, tt.want)
			}
		})
	}
}
