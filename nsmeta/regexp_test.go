package nsmeta

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/tenantkit/tenantkit/cel"
	"github.com/tenantkit/tenantkit/internal/quote"
)

// regexpPatterns are the patterns of TestRegexpRules and the seeds of
// FuzzRegexpRule: quotes, backslashes, newlines, unicode, flags, anchors,
// and patterns that do not compile.
var regexpPatterns = []string{
	"", ".*", "^ok$", "ok", "^(enabled|disabled)$", "^(Enabled|Disabled)$", "(?i)^enabled$",
	`"`, `\"`, `a"b`, `""`, `'`, `''`, `\'`, "`", `\\`, `\\\\`, `\d+`, `^\d{4}$`, `\.`, `\Q"\E`, `\Q\E`,
	"\n", "a\nb", `a\nb`, "(?m)^b$", "(?s)a.b", "\t", "\r\n", "\x00", `\x00`, "\x7f", "\u0085", "\u2028", "\ufeff",
	"é+", "^日本", "😀", `\x{1F600}`, `\pL+`, `\p{Greek}`, "[[:alpha:]]+", "[^a-z]", "a{2,3}", "(?P<name>x)", `\z`, "$", "^$", `\b`,
	"${x}", "%s", "{}", "value", `")`, `") || true || ("`, `\") || true || (\"`,
	// Not regular expressions.
	"(", "[", "a**", `\`, "x{1001}", "\xff", `\u00e9`, "(?<", "*", `\8`,
}

// regexpValues are the values every pattern of TestRegexpRules is checked on.
var regexpValues = []string{
	"", "ok", "OK", "enabled", "Enabled", "disabled", "not ok", "a\"b", `""`, "'", "\\", `\\`, "1234", "12345", ".", "`",
	"a\nb", "b", "a.b", "\t", "\r\n", "\x00", "\x7f", "\u0085", "\u2028", "\ufeff", "é", "ééé", "日本語", "😀", "α", "name",
	"x", "value", "${x}", "%s", "{}", `")`, "aa", "aaa",
}

// TestRegexpRules checks WithRegexpRules against Go's regexp package: a
// pattern that regexp.Compile refuses is a compile error at its key, naming
// the pattern and why; any other compiles, and keeps a value exactly when
// regexp.MatchString matches it, as a label and as an annotation.
func TestRegexpRules(t *testing.T) {
	t.Parallel()
	for _, pattern := range regexpPatterns {
		t.Run(pattern, func(t *testing.T) {
			t.Parallel()
			checkRegexpRule(t, pattern, regexpValues...)
		})
	}
}

// checkRegexpRule compiles pattern under WithRegexpRules for the label and
// annotation "k" and checks it against regexp.MatchString on values.
func checkRegexpRule(t *testing.T, pattern string, values ...string) {
	t.Helper()
	s, errs := CompileSchema(kv{"k": pattern}, kv{"k": pattern}, field.NewPath("spec"), WithRegexpRules())
	re, rerr := regexp.Compile(pattern)
	expr := matchesExpr(pattern)
	switch {
	case rerr != nil || len(expr) > cel.MaxExpressionBytes:
		want := []fieldErr{
			{field.ErrorTypeInvalid, "spec.allowedAnnotations[k]", quote.Value(pattern)},
			{field.ErrorTypeInvalid, "spec.allowedLabels[k]", quote.Value(pattern)},
		}
		if diff := cmp.Diff(want, project(errs)); s != nil || diff != "" {
			t.Fatalf("CompileSchema(%q) = %v, (-want +got):\n%s", pattern, s, diff)
		}
		why := "must be short enough"
		if rerr != nil && len(pattern) <= cel.MaxExpressionBytes {
			why = "must be a valid regular expression"
		}
		if !strings.Contains(errs[0].Detail, why) {
			t.Fatalf("CompileSchema(%q): detail %q does not say %q", pattern, errs[0].Detail, why)
		}
		return
	case errs != nil:
		t.Fatalf("CompileSchema(%q) = %v; regexp.Compile accepts it", pattern, errs.ToAggregate())
	}
	for _, v := range values {
		kept, warnings, errs := s.Apply(context.Background(), Metadata{Labels: kv{"k": v}, Annotations: kv{"k": v}})
		if len(warnings) > 0 {
			t.Fatalf("Apply(%q) warnings %q", v, warnings)
		}
		_, inLabels := kept.Labels["k"]
		_, inAnnotations := kept.Annotations["k"]
		match := re.MatchString(v)
		if match != regexp.MustCompile(pattern).MatchString(v) {
			t.Fatalf("regexp is not deterministic")
		}
		if inLabels != match || inAnnotations != match {
			// A value too long for the cost limit fails to evaluate:
			// reported, never kept.
			if !match || !costError(errs) {
				t.Fatalf("pattern %q, value %q: kept as label %v, annotation %v (errors %v); regexp.MatchString = %v",
					pattern, v, inLabels, inAnnotations, errs, match)
			}
		}
		if !match && len(errs) != 2 {
			t.Fatalf("pattern %q, value %q: errors %v, want one per key", pattern, v, errs)
		}
	}
}

// costError reports whether errs are the cost limit's.
func costError(errs field.ErrorList) bool {
	for _, e := range errs {
		if !strings.Contains(e.Detail, "cost limit") {
			return false
		}
	}
	return len(errs) > 0
}

// TestCelString checks the CEL string literals of patterns: exact for a
// few, and for every pattern and value of TestRegexpRules, a literal whose
// value is the string (checkCelString).
func TestCelString(t *testing.T) {
	t.Parallel()
	for s, want := range map[string]string{
		"":             `""`,
		`^(a|b)$`:      `"^(a|b)$"`,
		`a"b`:          `"a\"b"`,
		`\d+`:          `"\\d+"`,
		"a\nb\r\tc":    `"a\nb\r\tc"`,
		"'":            `"'"`,
		"é日😀":          `"é日😀"`,
		"\x00\x7f":     `"\u0000\u007f"`,
		"\u2028\ufeff": `"\u2028\ufeff"`,
		"\U000e0001":   `"\U000e0001"`,
	} {
		if got := celString(s); got != want {
			t.Errorf("celString(%q) = %s, want %s", s, got, want)
		}
	}
	for _, s := range append(append([]string{}, regexpPatterns...), regexpValues...) {
		if utf8.ValidString(s) {
			checkCelString(t, s)
		}
	}
}

// checkCelString checks that celString(s) is a CEL string literal whose
// value is s: value == literal holds for s, and not for s with a byte more
// or less.
func checkCelString(t *testing.T, s string) {
	t.Helper()
	expr := "value == " + celString(s)
	if len(expr) > cel.MaxExpressionBytes {
		return
	}
	p, err := cel.Compile(expr, "value")
	if err != nil {
		t.Fatalf("celString(%q): %v", s, err)
	}
	for _, v := range []string{s, s + "x", "x" + s, strings.TrimSuffix(s, s[max(len(s)-1, 0):])} {
		got, err := p.Eval(context.Background(), map[string]string{"value": v})
		if err != nil || got != (v == s) {
			t.Fatalf("%s with value %q = %v, %v; want %v", expr, v, got, err, v == s)
		}
	}
}

// FuzzCelString checks that every valid UTF-8 string has an exact CEL
// literal.
func FuzzCelString(f *testing.F) {
	for _, s := range regexpPatterns {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if utf8.ValidString(s) {
			checkCelString(t, s)
		}
	})
}

// FuzzRegexpRule checks fuzzed patterns against regexp.MatchString on a
// fuzzed value and on the values of TestRegexpRules (checkRegexpRule).
func FuzzRegexpRule(f *testing.F) {
	for i, p := range regexpPatterns {
		f.Add(p, regexpValues[i%len(regexpValues)])
	}
	f.Fuzz(func(t *testing.T, pattern, value string) {
		checkRegexpRule(t, pattern, append([]string{value}, regexpValues...)...)
	})
}

// TestCompileSchemaRegexp checks the errors of regexp rules: each names
// its key, shows the pattern, and says why.
func TestCompileSchemaRegexp(t *testing.T) {
	t.Parallel()
	fromSource := field.NewPath("spec", "namespaces", "metadata", "fromSource")
	long := strings.Repeat("a", cel.MaxExpressionBytes-len(`value.matches("")`))
	quotes := strings.Repeat(`"`, cel.MaxExpressionBytes/2)
	tests := []struct {
		name        string
		labels      kv
		annotations kv
		wantFields  []fieldErr
		wantDetail  map[string]string // field -> a substring its detail must contain
	}{
		{name: "valid", labels: kv{"team": "^[a-z]+$", "any": ""}, annotations: kv{"my.org.io/observability": "^(Enabled|Disabled)$"}},
		{name: "the longest pattern", labels: kv{"team": long}},
		{
			name:        "invalid patterns and keys",
			labels:      kv{"team": "(", "bad key": ".*", "tier": "a**"},
			annotations: kv{"my.org.io/x": `\u00e9`, "bytes": "\xff"},
			wantFields: []fieldErr{
				{field.ErrorTypeInvalid, "spec.namespaces.metadata.fromSource.allowedAnnotations[bytes]", "\xff"},
				{field.ErrorTypeInvalid, "spec.namespaces.metadata.fromSource.allowedAnnotations[my.org.io/x]", `\u00e9`},
				{field.ErrorTypeInvalid, "spec.namespaces.metadata.fromSource.allowedLabels[bad key]", "bad key"},
				{field.ErrorTypeInvalid, "spec.namespaces.metadata.fromSource.allowedLabels[team]", "("},
				{field.ErrorTypeInvalid, "spec.namespaces.metadata.fromSource.allowedLabels[tier]", "a**"},
			},
			wantDetail: map[string]string{
				"spec.namespaces.metadata.fromSource.allowedLabels[team]":             "must be a valid regular expression (RE2 syntax): missing closing ): \"(\"",
				"spec.namespaces.metadata.fromSource.allowedLabels[tier]":             "invalid nested repetition operator: \"**\"",
				"spec.namespaces.metadata.fromSource.allowedAnnotations[my.org.io/x]": `invalid escape sequence: "\\u"`,
				"spec.namespaces.metadata.fromSource.allowedAnnotations[bytes]":       "invalid UTF-8",
			},
		},
		{
			name:   "a pattern one byte too long",
			labels: kv{"team": long + "a"},
			wantFields: []fieldErr{
				{field.ErrorTypeInvalid, "spec.namespaces.metadata.fromSource.allowedLabels[team]", strings.Repeat("a", 64) + "... (5104 bytes)"},
			},
			wantDetail: map[string]string{"spec.namespaces.metadata.fromSource.allowedLabels[team]": "no more than 5120 bytes, got 5121"},
		},
		{
			// Each quote takes two bytes in the CEL literal.
			name:   "a pattern too long once escaped",
			labels: kv{"team": quotes},
			wantFields: []fieldErr{
				{field.ErrorTypeInvalid, "spec.namespaces.metadata.fromSource.allowedLabels[team]", strings.Repeat(`"`, 64) + "... (2560 bytes)"},
			},
			wantDetail: map[string]string{"spec.namespaces.metadata.fromSource.allowedLabels[team]": "got 5137"},
		},
		{
			name:        "a 1 MiB pattern is refused unparsed",
			annotations: kv{"my.org.io/x": strings.Repeat("(", 1<<20)},
			wantFields: []fieldErr{
				{field.ErrorTypeInvalid, "spec.namespaces.metadata.fromSource.allowedAnnotations[my.org.io/x]", strings.Repeat("(", 64) + "... (1048576 bytes)"},
			},
			wantDetail: map[string]string{"spec.namespaces.metadata.fromSource.allowedAnnotations[my.org.io/x]": "got at least 1048593"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s, errs := CompileSchema(tc.labels, tc.annotations, fromSource, WithRegexpRules(), WithStrict())
			if (s == nil) == (errs == nil) {
				t.Errorf("CompileSchema() = %v, %v: want exactly one of them", s, errs)
			}
			if diff := cmp.Diff(tc.wantFields, project(errs)); diff != "" {
				t.Errorf("CompileSchema() field errors (-want +got):\n%s", diff)
			}
			for _, fe := range errs {
				if want, ok := tc.wantDetail[fe.Field]; ok && !strings.Contains(fe.Detail, want) {
					t.Errorf("%s: detail %q does not say %q", fe.Field, fe.Detail, want)
				}
			}
		})
	}
}

// TestSchemaApplyRegexp checks what Apply says of a regexp rule: the
// pattern, in the detail of a value that fails it, and the cost limit,
// which fails a long value that a long pattern would take too long on.
func TestSchemaApplyRegexp(t *testing.T) {
	t.Parallel()
	s, errs := CompileSchema(kv{"team": "^[a-z]+$"}, kv{"my.org.io/x": "^(" + strings.Repeat("a?", 300) + ")$"}, nil, WithRegexpRules())
	if errs != nil {
		t.Fatal(errs.ToAggregate())
	}
	kept, warnings, errs := s.Apply(context.Background(), md(kv{"team": "Payments", "zone": "eu"}, kv{"my.org.io/x": strings.Repeat("a", 100<<10)}))
	if len(kept.Labels)+len(kept.Annotations) != 0 {
		t.Errorf("kept %v", kept)
	}
	if diff := cmp.Diff([]string{`metadata.labels[zone]: label "zone" is not in allowedLabels; dropped`}, warnings); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
	if len(errs) != 2 ||
		errs[0].Field != "metadata.annotations[my.org.io/x]" || !strings.Contains(errs[0].Detail, `regular expression "^(a?a?a?`) || !strings.Contains(errs[0].Detail, "cost limit") ||
		errs[1].Field != "metadata.labels[team]" || errs[1].Detail != `must satisfy regular expression "^[a-z]+$"` || errs[1].BadValue != "Payments" {
		t.Errorf("errors %v", errs)
	}
}
