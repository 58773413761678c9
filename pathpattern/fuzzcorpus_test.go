package pathpattern

import (
	"strings"
	"testing"

	"github.com/tenantkit/tenantkit/internal/fuzzcorpus"
)

// TestFuzzCorpus writes the seed corpora of the package's fuzz targets,
// which live in testdata/fuzz/<target>, from the table tests. It is skipped
// unless TENANTKIT_WRITE_FUZZ_CORPUS is set; package internal/fuzzcorpus
// describes the corpora and how to regenerate them.
func TestFuzzCorpus(t *testing.T) {
	fuzzcorpus.SkipUnlessWriting(t)
	var parse, match, template, ref [][]any
	for _, tt := range parseTests {
		parse = append(parse, []any{tt.pattern})
	}
	for _, tt := range hostilePatternTests {
		parse = append(parse, []any{tt.pattern})
	}
	fuzzcorpus.Write(t, "FuzzParse", parse)
	for _, tt := range matchTests {
		match = append(match, []any{tt.pattern, tt.path})
	}
	for _, name := range []string{strings.Repeat("a-", 99) + "a", "team\nb", "\u212a", "a\x00b", "\xff"} {
		match = append(match, []any{"@r/" + manyCaptures(20, "-"), name})
	}
	fuzzcorpus.Write(t, "FuzzMatch", match)
	for _, tt := range templateTests {
		template = append(template, []any{tt.template, "Team-A", "App"})
	}
	for _, tt := range hostileTemplateTests {
		template = append(template, []any{tt.template, "team\na", "\u212a"})
	}
	fuzzcorpus.Write(t, "FuzzTemplate", template)
	for _, tt := range refTests {
		ref = append(ref, []any{tt.ref})
	}
	for _, tt := range hostileRefTests {
		ref = append(ref, []any{tt.ref})
	}
	fuzzcorpus.Write(t, "FuzzParseRef", ref)
	fuzzcorpus.Write(t, "FuzzGlob", [][]any{
		{manifests + "/**", "*.md"},
		{"tenants/{a,c}/modules/*/manifests/*", "sub"},
		{"{a,b}{a,b}{a,b}", "["},
		{`weird/a\*b/*`, ""},
		{"tenants/c/**", ""},
		{strings.Repeat("{a,b}", 7), ""},
		{strings.Repeat("{a,", 20) + "b" + strings.Repeat("}", 20), ""},
		{"a/../../etc/*", ""},
		{"/etc/*", ""},
		{"**", "**/*.md"},
		{"tenants/**", "{a,b}/**"},
		{"tenants/a\x00b/*", ""},
	})
}
