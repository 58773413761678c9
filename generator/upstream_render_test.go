package generator

import (
	"errors"
	"os"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/tenantkit/tenantkit/pathpattern"
)

// upstreamArtifact is what source-watcher's buildArtifactRequests makes of
// one match and one spec.artifacts entry, as render renders it: the
// name, the labels (the normalized captures) and the copy operation's from
// and to, expanded from the raw captures.
type upstreamArtifact struct {
	Name     string
	Labels   map[string]string
	From, To string
	Conflict bool
}

// upstreamErr is what a test expects of a field error: its type, field and
// value, and the directory its detail names ("" for none).
type upstreamErr struct {
	Type  field.ErrorType
	Field string
	Value any
	Dir   string
}

// upstreamShared is the tree that TestBuildArtifactRequests shares between
// its subtests: three directories and a file where a directory could be.
var upstreamShared = []string{"apps/auth/envs/dev", "apps/auth/envs/prod", "apps/payments", "apps/ignore/envs/dev="}

// upstreamTests are the cases of source-watcher's TestBuildArtifactRequests
// (fluxcd/source-watcher, internal/controller/
// artifactgenerator_pathpattern_test.go), one entry per subtest, named as
// there, with the outcome that pathpattern's discovery and render give.
// Where it differs from upstream's, difference names the entry of
// pathpattern's package documentation ("Compatibility with source-watcher")
// or the row of docs/differences.md that says why. The entries named
// "tenantkit: ..." are not upstream's: they show a documented difference
// that upstream's test does not reach. Not translated: "preserves Exclude
// and Strategy fields" (the copy operation's other fields are the
// generator's, not the renderer's).
var upstreamTests = []struct {
	name        string
	tree        []string // directories, and files as "path="; nil for upstreamShared
	pattern     string   // "" for none: static artifacts
	names       []string // spec.artifacts[].name
	from, to    string   // spec.artifacts[].copy[0]
	rule        string   // the SyntaxError of the pattern or a template
	offset      int      // its offset
	value       string   // and the value it names
	sourceShape bool     // Discover fails with pathpattern.ErrSourceShape
	want        []upstreamArtifact
	errs        []upstreamErr
	difference  string
}{
	{
		name:  "static path (no pathPattern)",
		names: []string{"static-1", "static-2"},
		want:  []upstreamArtifact{{Name: "static-1"}, {Name: "static-2"}},
	},
	{
		name:    "invalid pathPattern format",
		pattern: "invalid-no-at-sign",
		rule:    syntaxMissingAlias,
		offset:  0,
	},
	{
		// Upstream fails on an alias with no source; pathpattern parses the
		// alias, and its caller checks it (generator.Compile: "alias must
		// be declared in spec.sources").
		name:    "unknown alias in pattern",
		pattern: "@unknown/apps/{app}",
		names:   []string{"{app}"},
		want: []upstreamArtifact{
			{Name: "auth", Labels: map[string]string{"app": "auth"}},
			{Name: "ignore", Labels: map[string]string{"app": "ignore"}},
			{Name: "payments", Labels: map[string]string{"app": "payments"}},
		},
		difference: "the caller checks the alias",
	},
	{
		name:    "invalid capture label key",
		pattern: "@repo/apps/{_app}",
		rule:    syntaxInvalidName,
		offset:  12,
		value:   "_app",
	},
	{
		name:        "source walk error is not terminal",
		tree:        []string{"elsewhere/x"},
		pattern:     "@repo/apps/{app}",
		names:       []string{"app-{app}"},
		sourceShape: true,
		difference:  "A missing, non-directory or symbolic-link root or fixed prefix is an error wrapping [ErrSourceShape]",
	},
	{name: "invalid capture syntax/empty capture", pattern: "@repo/apps/{}", rule: syntaxEmptyCapture, offset: 11},
	{name: "invalid capture syntax/unsupported capture name", pattern: "@repo/apps/{app-name}", rule: syntaxInvalidName, offset: 12, value: "app-name"},
	{name: "invalid capture syntax/capture name starts with digit", pattern: "@repo/apps/{1app}", rule: syntaxInvalidName, offset: 12, value: "1app"},
	{name: "invalid capture syntax/missing closing brace", pattern: "@repo/apps/{app", rule: syntaxMissingClose, offset: 11},
	{name: "invalid capture syntax/missing opening brace", pattern: "@repo/apps/app}", rule: syntaxMissingOpen, offset: 14},
	{name: "invalid capture syntax/duplicate capture", pattern: "@repo/apps/{app}/envs/{app}", rule: syntaxDuplicateName, offset: 22, value: "app"},
	{
		name:    "single capture pattern",
		pattern: "@repo/apps/{app}",
		names:   []string{"app-{app}"},
		from:    "apps/{app}",
		want: []upstreamArtifact{
			{Name: "app-auth", Labels: map[string]string{"app": "auth"}, From: "apps/auth"},
			{Name: "app-ignore", Labels: map[string]string{"app": "ignore"}, From: "apps/ignore"},
			{Name: "app-payments", Labels: map[string]string{"app": "payments"}, From: "apps/payments"},
		},
	},
	{
		// Upstream fails when it renders the first match; pathpattern when
		// the template is bound, before any tree is read.
		name:    "unknown capture placeholder",
		pattern: "@repo/apps/{app}",
		names:   []string{"{missing}"},
		rule:    syntaxUnknownCapture,
		offset:  0,
		value:   "missing",
	},
	{
		name:    "skips files that match pattern exactly",
		pattern: "@repo/apps/{app}/envs/{env}",
		names:   []string{"{app}-{env}"},
		want: []upstreamArtifact{
			{Name: "auth-dev", Labels: map[string]string{"app": "auth", "env": "dev"}},
			{Name: "auth-prod", Labels: map[string]string{"app": "auth", "env": "prod"}},
		},
	},
	{
		name:    "uppercase directories are lowercased",
		tree:    []string{"apps/Auth/envs/Dev", "apps/Payments/envs/Prod"},
		pattern: "@repo/apps/{app}/envs/{env}",
		names:   []string{"{app}-{env}"},
		from:    "@repo/apps/{app}/envs/{env}/**",
		to:      "@artifact/{app}/{env}/",
		want: []upstreamArtifact{
			{Name: "auth-dev", Labels: map[string]string{"app": "auth", "env": "dev"}, From: "@repo/apps/Auth/envs/Dev/**", To: "@artifact/Auth/Dev/"},
			{Name: "payments-prod", Labels: map[string]string{"app": "payments", "env": "prod"}, From: "@repo/apps/Payments/envs/Prod/**", To: "@artifact/Payments/Prod/"},
		},
	},
	{
		// Upstream matches ".hidden" and fails on its value.
		name:       "invalid label value - leading dot",
		tree:       []string{"apps/.hidden"},
		pattern:    "@repo/apps/{app}",
		names:      []string{"app-{app}"},
		difference: "Hidden names",
	},
	{
		name:    "invalid label value - contains space",
		tree:    []string{"apps/my app"},
		pattern: "@repo/apps/{app}",
		names:   []string{"app-{app}"},
		errs:    []upstreamErr{{field.ErrorTypeInvalid, "spec.pathPattern", "my app", "apps/my app"}},
	},
	{
		name:    "invalid label value - too long",
		tree:    []string{"apps/" + strings.Repeat("a", 64)},
		pattern: "@repo/apps/{app}",
		names:   []string{"app-{app}"},
		errs:    []upstreamErr{{field.ErrorTypeInvalid, "spec.pathPattern", strings.Repeat("a", 64), "apps/" + strings.Repeat("a", 64)}},
	},
	{
		name:    "invalid rendered DNS name",
		tree:    []string{"apps/auth"},
		pattern: "@repo/apps/{app}",
		names:   []string{"{app}..invalid"},
		errs:    []upstreamErr{{field.ErrorTypeInvalid, "spec.artifacts[0].name", "auth..invalid", "apps/auth"}},
	},
	{
		// Upstream stops at the second directory; render returns both,
		// marked, and reports the pair.
		name:    "duplicate names after lowercasing",
		tree:    []string{"apps/Auth", "apps/auth"},
		pattern: "@repo/apps/{app}",
		names:   []string{"app-{app}"},
		want: []upstreamArtifact{
			{Name: "app-auth", Labels: map[string]string{"app": "auth"}, Conflict: true},
			{Name: "app-auth", Labels: map[string]string{"app": "auth"}, Conflict: true},
		},
		errs:       []upstreamErr{{field.ErrorTypeDuplicate, "spec.artifacts[0].name", "app-auth", "apps/auth"}},
		difference: "that render the same namespace and name | an error at the first pair",
	},
	{
		name:       "tenantkit: a trailing slash is a parse error",
		pattern:    "@repo/apps/{app}/",
		rule:       syntaxTrailingSlash,
		offset:     16,
		difference: "Patterns that can never match are refused by [Parse]",
	},
	{
		name:       "tenantkit: bad values do not stop the others",
		tree:       []string{"apps/my app", "apps/ok", "apps/" + strings.Repeat("a", 64)},
		pattern:    "@repo/apps/{app}",
		names:      []string{"app-{app}"},
		want:       []upstreamArtifact{{Name: "app-ok", Labels: map[string]string{"app": "ok"}}},
		errs:       []upstreamErr{{field.ErrorTypeInvalid, "spec.pathPattern", strings.Repeat("a", 64), "apps/" + strings.Repeat("a", 64)}, {field.ErrorTypeInvalid, "spec.pathPattern", "my app", "apps/my app"}},
		difference: "Bad values",
	},
	{
		name:       "tenantkit: results in path order",
		tree:       []string{"a/x", "a-c/y"},
		pattern:    "@repo/{p}/{q}",
		names:      []string{"{p}.{q}"},
		want:       []upstreamArtifact{{Name: "a-c.y", Labels: map[string]string{"p": "a-c", "q": "y"}}, {Name: "a.x", Labels: map[string]string{"p": "a", "q": "x"}}},
		difference: "Result order",
	},
}

func upstreamTree(entries []string) fstest.MapFS {
	fsys := fstest.MapFS{}
	for _, e := range entries {
		if name, ok := strings.CutSuffix(e, "="); ok {
			fsys[name] = &fstest.MapFile{Data: []byte("test")}
			continue
		}
		fsys[e] = renderDir()
	}
	return fsys
}

func TestUpstreamBuildArtifactRequests(t *testing.T) {
	t.Parallel()
	doc := packageDoc(t)
	for _, tt := range upstreamTests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if tt.difference != "" && !strings.Contains(doc, tt.difference) {
				t.Errorf("the package documentation does not name the difference %q", tt.difference)
			}
			var p *pathpattern.Pattern // nil: static artifacts
			if tt.pattern != "" {
				var err error
				if p, err = pathpattern.Parse(tt.pattern); err != nil || tt.rule != "" && len(tt.names) == 0 {
					checkSyntaxError(t, err, tt.pattern, tt.rule, tt.offset, tt.value)
					return
				}
			}
			outputs := make([]compiledArtifact, len(tt.names))
			for i, name := range tt.names {
				tmpl, err := p.Template(name)
				if tt.rule != "" {
					checkSyntaxError(t, err, name, tt.rule, tt.offset, tt.value)
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				outputs[i].name = tmpl
			}
			if tt.rule != "" {
				t.Fatalf("no error, want one breaking %q", tt.rule)
			}
			matches := []pathpattern.Match{{}}
			var errs field.ErrorList
			if p != nil {
				tree := tt.tree
				if tree == nil {
					tree = upstreamShared
				}
				var err error
				matches, errs, err = p.Discover(upstreamTree(tree), field.NewPath("spec", "pathPattern"))
				if tt.sourceShape != errors.Is(err, pathpattern.ErrSourceShape) || !tt.sourceShape && err != nil {
					t.Fatalf("Discover error %v, want pathpattern.ErrSourceShape: %t", err, tt.sourceShape)
				}
			}
			rendered, rerrs := render(matches, outputs, "", field.NewPath("spec", "artifacts"))
			errs = append(errs, rerrs...)
			var got []upstreamArtifact
			for _, r := range rendered {
				a := upstreamArtifact{Name: r.Name, Labels: r.Normalized, Conflict: r.Conflict != nil}
				a.From = expandWith(t, p, tt.from, r.Raw)
				a.To = expandWith(t, p, tt.to, r.Raw)
				got = append(got, a)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("artifacts (-want +got):\n%s", diff)
			}
			var gotErrs []upstreamErr
			for _, e := range errs {
				ue := upstreamErr{Type: e.Type, Field: e.Field, Value: e.BadValue}
				// The directory the detail names, quoted, or the detail.
				ue.Dir = e.Detail
				if i := len(gotErrs); i < len(tt.errs) && strings.Contains(e.Detail, strconv.Quote(tt.errs[i].Dir)) {
					ue.Dir = tt.errs[i].Dir
				}
				gotErrs = append(gotErrs, ue)
			}
			if diff := cmp.Diff(tt.errs, gotErrs); diff != "" {
				t.Errorf("errors (-want +got):\n%s\n%v", diff, errs)
			}
		})
	}
}

// packageDoc returns the text of pathpattern's doc.go, which lists the
// differences of discovery, and of docs/differences.md, which lists those
// of rendering, with comment markers and line breaks folded into single
// spaces.
func packageDoc(t *testing.T) string {
	t.Helper()
	var words []string
	for _, name := range []string{"../pathpattern/doc.go", "../docs/differences.md"} {
		data, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		for line := range strings.Lines(string(data)) {
			words = append(words, strings.Fields(strings.TrimPrefix(strings.TrimSpace(line), "//"))...)
		}
	}
	return strings.Join(words, " ")
}

// maxSyntaxMessageBytes bounds the message of a syntax error: it quotes at
// most a bounded prefix of an over-long input (pathpattern's 4096 bytes),
// and %q at most quadruples it.
const maxSyntaxMessageBytes = 4*4096 + 512

// The rules of pathpattern.SyntaxError that these tests expect, as its messages word them.
const (
	syntaxDuplicateName  = "capture name must be unique in the pattern"
	syntaxEmptyCapture   = "capture must have a name"
	syntaxInvalidName    = "capture name must match [A-Za-z_][A-Za-z0-9_]* and be a valid label key (at most 63 characters, starting and ending with an alphanumeric character)"
	syntaxMissingAlias   = `must start with "@alias/"`
	syntaxMissingClose   = "'{' must be closed by '}' in the same segment"
	syntaxMissingOpen    = "'}' must close a '{'"
	syntaxTrailingSlash  = "must not end with '/'"
	syntaxUnknownCapture = "template must name only captures of its pattern"
)

// checkSyntaxError checks that err is a *pathpattern.SyntaxError for input,
// wrapping pathpattern.ErrSyntax, that reports rule at offset, naming value
// when it is set, with a bounded message.
func checkSyntaxError(t *testing.T, err error, input string, rule string, offset int, value string) {
	t.Helper()
	var se *pathpattern.SyntaxError
	if !errors.Is(err, pathpattern.ErrSyntax) || !errors.As(err, &se) || se.Rule != rule {
		t.Fatalf("error = %v, want a *SyntaxError wrapping ErrSyntax, breaking %q", err, rule)
	}
	if !strings.HasPrefix(err.Error(), "pathpattern: "+rule) {
		t.Errorf("error %q does not word its rule as %q", err, rule)
	}
	if se.Input != input || se.Offset != offset {
		t.Errorf("error at offset %d of %.40q, want offset %d of the input", se.Offset, se.Input, offset)
	}
	msg := err.Error()
	if value != "" && (se.Value != value || !strings.Contains(msg, strconv.Quote(value))) {
		t.Errorf("error %q names value %q, want %q", msg, se.Value, value)
	}
	if !strings.Contains(msg, "offset ") || len(msg) > maxSyntaxMessageBytes {
		t.Errorf("error %.200q (%d bytes) must give the offset and stay short", msg, len(msg))
	}
}

// expandWith expands s, a template of p, from values; "" stays "".
func expandWith(t *testing.T, p *pathpattern.Pattern, s string, values map[string]string) string {
	t.Helper()
	if s == "" {
		return ""
	}
	got, err := p.MustTemplate(s).Expand(values)
	if err != nil {
		t.Fatal(err)
	}
	return got
}
