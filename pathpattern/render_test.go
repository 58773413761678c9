package pathpattern

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/api/validate/content"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// rendered is what a test expects of one result of Render: the output's
// index, the directory, the object and, when it conflicts, the index and
// directory of the result it conflicts with.
type rendered struct {
	Index     int
	Path      string
	Namespace string
	Name      string
	Conflict  string // "index path" of Conflict; "" for none
}

func viewRendered(rs []Rendered) []rendered {
	var out []rendered
	for _, r := range rs {
		v := rendered{Index: r.Index, Path: r.Path, Namespace: r.Namespace, Name: r.Name}
		if r.Conflict != nil {
			v.Conflict = fmt.Sprintf("%d %s", r.Conflict.Index, r.Conflict.Path)
		}
		out = append(out, v)
	}
	return out
}

// fieldErr is a field.Error without its origin, as tests compare it.
type fieldErr struct {
	Type     field.ErrorType
	Field    string
	BadValue any
	Detail   string
}

func viewErrors(errs field.ErrorList) []fieldErr {
	var out []fieldErr
	for _, e := range errs {
		out = append(out, fieldErr{e.Type, e.Field, e.BadValue, e.Detail})
	}
	return out
}

// output binds a namespace and a name template to p ("" for a nil
// template).
func output(p *Pattern, namespace, name string) Output {
	var o Output
	if namespace != "" {
		o.Namespace = p.MustTemplate(namespace)
	}
	if name != "" {
		o.Name = p.MustTemplate(name)
	}
	return o
}

func TestRender(t *testing.T) {
	t.Parallel()
	p := MustParse("@repo/{ns}/{app}")
	subdomain := strings.Join(content.IsDNS1123Subdomain("x_y"), "; ")
	label := strings.Join(content.IsDNS1123Label("a_b"), "; ")
	dots := strings.Join(content.IsDNS1123Label("a.b"), "; ")
	tests := []struct {
		name      string
		static    bool // templates bound to no pattern
		matches   []Match
		outputs   [][2]string // namespace and name templates; "" for nil
		namespace string      // the default namespace
		want      []rendered
		errs      []fieldErr
	}{
		{
			name:    "valid",
			matches: []Match{match("team-a/app", "ns", "team-a", "app", "App"), match("team-b/app", "ns", "team-b", "app", "app")},
			outputs: [][2]string{{"{ns}", "{app}"}},
			want: []rendered{
				{Index: 0, Path: "team-a/app", Namespace: "team-a", Name: "app"},
				{Index: 0, Path: "team-b/app", Namespace: "team-b", Name: "app"},
			},
		},
		{
			name:      "no namespace template: the default namespace",
			matches:   []Match{match("t/a", "ns", "t", "app", "a"), match("u/a", "ns", "u", "app", "a")},
			outputs:   [][2]string{{"", "{ns}.{app}"}},
			namespace: "flux-system",
			want: []rendered{
				{Index: 0, Path: "t/a", Namespace: "flux-system", Name: "t.a"},
				{Index: 0, Path: "u/a", Namespace: "flux-system", Name: "u.a"},
			},
		},
		{
			name:    "no namespace at all",
			matches: []Match{match("t/a", "ns", "t", "app", "a")},
			outputs: [][2]string{{"", "{app}"}},
			want:    []rendered{{Index: 0, Path: "t/a", Name: "a"}},
		},
		{
			name:    "results in path order, whatever the order of matches",
			matches: []Match{match("b/x", "ns", "b", "app", "x"), match("a/x", "ns", "a", "app", "x")},
			outputs: [][2]string{{"{ns}", "{app}"}, {"{ns}", "{app}-2"}},
			want: []rendered{
				{Index: 0, Path: "a/x", Namespace: "a", Name: "x"},
				{Index: 0, Path: "b/x", Namespace: "b", Name: "x"},
				{Index: 1, Path: "a/x", Namespace: "a", Name: "x-2"},
				{Index: 1, Path: "b/x", Namespace: "b", Name: "x-2"},
			},
		},
		{
			name: "invalid values are left out and reported with their directory",
			matches: []Match{
				match("a_b/x_y", "ns", "a_b", "app", "x_y"),
				match("a.b/ok", "ns", "a.b", "app", "ok"),
				match("ok/ok", "ns", "ok", "app", "ok"),
			},
			outputs: [][2]string{{"{ns}", "{app}"}},
			want:    []rendered{{Index: 0, Path: "ok/ok", Namespace: "ok", Name: "ok"}},
			errs: []fieldErr{
				{field.ErrorTypeInvalid, "spec.artifacts[0].namespace", "a.b", `rendered from directory "a.b/ok": ` + dots},
				{field.ErrorTypeInvalid, "spec.artifacts[0].name", "x_y", `rendered from directory "a_b/x_y": ` + subdomain},
				{field.ErrorTypeInvalid, "spec.artifacts[0].namespace", "a_b", `rendered from directory "a_b/x_y": ` + label},
			},
		},
		{
			name:    "an error is reported at its output's index",
			matches: []Match{match("t/a", "ns", "t", "app", "a")},
			outputs: [][2]string{{"{ns}", "{app}"}, {"{ns}", "{app}_x"}},
			want:    []rendered{{Index: 0, Path: "t/a", Namespace: "t", Name: "a"}},
			errs: []fieldErr{
				{field.ErrorTypeInvalid, "spec.artifacts[1].name", "a_x", `rendered from directory "t/a": ` + strings.Join(content.IsDNS1123Subdomain("a_x"), "; ")},
			},
		},
		{
			name: "collisions in one output name both directories",
			matches: []Match{
				match("apps/auth", "ns", "apps", "app", "auth"),
				match("apps/Auth", "ns", "apps", "app", "Auth"),
				match("apps/AUTH", "ns", "apps", "app", "AUTH"),
				match("other/auth", "ns", "other", "app", "auth"),
			},
			outputs: [][2]string{{"{ns}", "{app}"}},
			// Path order: apps/AUTH, apps/Auth, apps/auth. The first
			// conflicts with the second, the later ones with the first.
			want: []rendered{
				{Index: 0, Path: "apps/AUTH", Namespace: "apps", Name: "auth", Conflict: "0 apps/Auth"},
				{Index: 0, Path: "apps/Auth", Namespace: "apps", Name: "auth", Conflict: "0 apps/AUTH"},
				{Index: 0, Path: "apps/auth", Namespace: "apps", Name: "auth", Conflict: "0 apps/AUTH"},
				{Index: 0, Path: "other/auth", Namespace: "other", Name: "auth"},
			},
			errs: []fieldErr{
				{field.ErrorTypeDuplicate, "spec.artifacts[0].name", "auth", `directories "apps/AUTH" and "apps/Auth" render the same namespace "apps" and name "auth"`},
				{field.ErrorTypeDuplicate, "spec.artifacts[0].name", "auth", `directories "apps/AUTH" and "apps/auth" render the same namespace "apps" and name "auth"`},
			},
		},
		{
			name:    "collisions across outputs name both directories and both outputs",
			matches: []Match{match("t/app", "ns", "t", "app", "app"), match("t/web", "ns", "t", "app", "web")},
			outputs: [][2]string{{"{ns}", "{app}"}, {"{ns}", "app"}},
			want: []rendered{
				{Index: 0, Path: "t/app", Namespace: "t", Name: "app", Conflict: "1 t/app"},
				{Index: 0, Path: "t/web", Namespace: "t", Name: "web"},
				{Index: 1, Path: "t/app", Namespace: "t", Name: "app", Conflict: "0 t/app"},
				{Index: 1, Path: "t/web", Namespace: "t", Name: "app", Conflict: "0 t/app"},
			},
			errs: []fieldErr{
				{field.ErrorTypeDuplicate, "spec.artifacts[1].name", "app", `directories "t/app" (spec.artifacts[0]) and "t/app" (spec.artifacts[1]) render the same namespace "t" and name "app"`},
				{field.ErrorTypeDuplicate, "spec.artifacts[1].name", "app", `directories "t/app" (spec.artifacts[0]) and "t/web" (spec.artifacts[1]) render the same namespace "t" and name "app"`},
			},
		},
		{
			name:      "the default namespace collides with a rendered one",
			matches:   []Match{match("flux-system/a", "ns", "flux-system", "app", "a")},
			outputs:   [][2]string{{"", "{app}"}, {"{ns}", "{app}"}},
			namespace: "flux-system",
			want: []rendered{
				{Index: 0, Path: "flux-system/a", Namespace: "flux-system", Name: "a", Conflict: "1 flux-system/a"},
				{Index: 1, Path: "flux-system/a", Namespace: "flux-system", Name: "a", Conflict: "0 flux-system/a"},
			},
			errs: []fieldErr{
				{field.ErrorTypeDuplicate, "spec.artifacts[1].name", "a", `directories "flux-system/a" (spec.artifacts[0]) and "flux-system/a" (spec.artifacts[1]) render the same namespace "flux-system" and name "a"`},
			},
		},
		{
			name:    "collision without a namespace",
			matches: []Match{match("t/A", "ns", "t", "app", "A"), match("t/a", "ns", "t", "app", "a")},
			outputs: [][2]string{{"", "{app}"}},
			want: []rendered{
				{Index: 0, Path: "t/A", Name: "a", Conflict: "0 t/a"},
				{Index: 0, Path: "t/a", Name: "a", Conflict: "0 t/A"},
			},
			errs: []fieldErr{
				{field.ErrorTypeDuplicate, "spec.artifacts[0].name", "a", `directories "t/A" and "t/a" render the same name "a"`},
			},
		},
		{
			name:    "nil name template",
			matches: []Match{match("t/a", "ns", "t", "app", "a")},
			outputs: [][2]string{{"{ns}", ""}, {"{ns}", "{app}"}},
			want:    []rendered{{Index: 1, Path: "t/a", Namespace: "t", Name: "a"}},
			errs:    []fieldErr{{field.ErrorTypeRequired, "spec.artifacts[0].name", "", "a name template is required"}},
		},
		{
			name:    "capture without a value",
			matches: []Match{{Path: "t/a", Raw: map[string]string{}, Normalized: map[string]string{"ns": "t"}}},
			outputs: [][2]string{{"{ns}", "{app}"}},
			errs: []fieldErr{{field.ErrorTypeInvalid, "spec.artifacts[0].name", "{app}",
				`rendered from directory "t/a": pathpattern: captures must hold a value for every capture the template names: "app" in template "{app}"`}},
		},
		{
			name:    "no matches",
			outputs: [][2]string{{"{ns}", "{app}"}},
		},
		{
			name:    "no outputs",
			matches: []Match{match("t/a", "ns", "t", "app", "a")},
		},
		// Static outputs: no pattern, one match without a directory.
		{
			name:      "static outputs",
			static:    true,
			matches:   []Match{{}},
			outputs:   [][2]string{{"", "static-1"}, {"team-a", "static-2"}},
			namespace: "flux-system",
			want: []rendered{
				{Index: 0, Namespace: "flux-system", Name: "static-1"},
				{Index: 1, Namespace: "team-a", Name: "static-2"},
			},
		},
		{
			name:      "static outputs: invalid literals name no directory",
			static:    true,
			matches:   []Match{{}},
			outputs:   [][2]string{{"Team-A", "x_y"}},
			namespace: "flux-system",
			errs: []fieldErr{
				{field.ErrorTypeInvalid, "spec.artifacts[0].name", "x_y", subdomain},
				{field.ErrorTypeInvalid, "spec.artifacts[0].namespace", "Team-A", strings.Join(content.IsDNS1123Label("Team-A"), "; ")},
			},
		},
		{
			name:      "static outputs: a collision names both outputs",
			static:    true,
			matches:   []Match{{}},
			outputs:   [][2]string{{"", "x"}, {"", "y"}, {"flux-system", "x"}},
			namespace: "flux-system",
			want: []rendered{
				{Index: 0, Namespace: "flux-system", Name: "x", Conflict: "2 "},
				{Index: 1, Namespace: "flux-system", Name: "y"},
				{Index: 2, Namespace: "flux-system", Name: "x", Conflict: "0 "},
			},
			errs: []fieldErr{
				{field.ErrorTypeDuplicate, "spec.artifacts[2].name", "x", `spec.artifacts[0] and spec.artifacts[2] render the same namespace "flux-system" and name "x"`},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			pat := p
			if tt.static {
				pat = nil
			}
			var outputs []Output
			for _, o := range tt.outputs {
				outputs = append(outputs, output(pat, o[0], o[1]))
			}
			got, errs := Render(tt.matches, outputs, tt.namespace, field.NewPath("spec", "artifacts"))
			if diff := cmp.Diff(tt.want, viewRendered(got)); diff != "" {
				t.Errorf("Render (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.errs, viewErrors(errs)); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
			for _, r := range got {
				if r.Match.Path != "" && !cmp.Equal(r.Match, findMatch(tt.matches, r.Path)) {
					t.Errorf("result for %q carries another match: %+v", r.Path, r.Match)
				}
			}
		})
	}
}

func findMatch(ms []Match, path string) Match {
	for _, m := range ms {
		if m.Path == path {
			return m
		}
	}
	return Match{}
}

func TestRenderDiscovered(t *testing.T) {
	t.Parallel()
	// apps/Auth and apps/auth render the same name (upstream's
	// TestBuildArtifactRequests, "duplicate names after lowercasing").
	p := MustParse("@repo/{namespace}/{module}")
	ms, _, err := p.Discover(fstestTree("apps/Auth", "apps/auth", "apps/db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	_, errs := Render(ms, []Output{output(p, "{namespace}", "{module}")}, "", nil)
	want := []fieldErr{{field.ErrorTypeDuplicate, "[0].name", "auth", `directories "apps/Auth" and "apps/auth" render the same namespace "apps" and name "auth"`}}
	if diff := cmp.Diff(want, viewErrors(errs)); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
}

// TestRenderSkipsProblems: a link where the pattern needs a directory is
// a problem entry of Discover, which Render renders nothing from: its
// captures are only those on the way to it.
func TestRenderSkipsProblems(t *testing.T) {
	t.Parallel()
	p := MustParse("@repo/tenants/{namespace}/modules/{module}")
	fsys := fstestTree("tenants/a/modules/app", "tenants/b/modules/web")
	fsys["tenants/c"] = symlink("a")
	ms, errs, err := p.Discover(fsys, nil)
	if err != nil || len(ms) != 3 || len(errs) != 1 {
		t.Fatalf("Discover = %v, %v, %v; want two matches and a problem", ms, errs, err)
	}
	rs, errs := Render(ms, []Output{output(p, "{namespace}", "{module}")}, "", nil)
	var got []string
	for _, r := range rs {
		got = append(got, r.Namespace+"/"+r.Name)
	}
	if diff := cmp.Diff([]string{"a/app", "b/web"}, got); diff != "" || errs != nil {
		t.Errorf("Render (-want +got):\n%s\nerrors %v", diff, errs)
	}
}

func TestTemplateWithoutPattern(t *testing.T) {
	t.Parallel()
	var p *Pattern
	for _, tt := range []struct {
		name     string
		template string
		rule     Rule // 0: valid
		offset   int
		value    string
	}{
		{name: "literal", template: "static-1"},
		{name: "literal reference", template: "@repo/apps/auth/**"},
		{name: "capture", template: "app-{app}", rule: RuleUnknownCapture, offset: 4, value: "app"},
		{name: "brace alternatives", template: "@repo/{a,b}/*.yaml", rule: RuleInvalidName, offset: 7, value: "a,b"},
		{name: "unclosed brace", template: "app-{", rule: RuleMissingClose, offset: 4},
		{name: "unopened brace", template: "app}", rule: RuleMissingOpen, offset: 3},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tmpl, err := p.Template(tt.template)
			if tt.rule != 0 {
				checkSyntaxError(t, err, tt.template, tt.rule, tt.offset, tt.value)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got, err := tmpl.Expand(nil); got != tt.template || err != nil {
				t.Errorf("Expand(nil) = %q, %v, want the literal", got, err)
			}
			if c := tmpl.Captures(); c != nil {
				t.Errorf("Captures() = %q, want none", c)
			}
		})
	}
	if w := p.Warnings(nil); w != nil {
		t.Errorf("Warnings() of no pattern = %q, want none", w)
	}
}

// FuzzRender renders two outputs over two matches with any templates and
// any values: Render never panics, keeps only valid names and namespaces,
// reports every result it leaves out, and marks exactly the results whose
// namespace and name another result has.
func FuzzRender(f *testing.F) {
	f.Add("{a}", "{b}", "Team-A", "App", "team-a", "app")
	f.Add("{a}-{b}", "", "x", "y", "x-y", "")
	f.Add("{b}..invalid", "{a}", "a_b", "x_y", "ok", "ok")
	f.Add("static", "flux-system", "", "", "", "")
	p := MustParse("@r/{a}/{b}")
	f.Fuzz(func(t *testing.T, name, namespace, a1, b1, a2, b2 string) {
		o := Output{Name: p.MustTemplate("{a}.{b}")}
		var err error
		if o.Name, err = p.Template(name); err != nil {
			return
		}
		if namespace != "" {
			if o.Namespace, err = p.Template(namespace); err != nil {
				return
			}
		}
		ms := []Match{
			{Path: "1", Raw: map[string]string{"a": a1, "b": b1}, Normalized: map[string]string{"a": strings.ToLower(a1), "b": strings.ToLower(b1)}},
			{Path: "2", Raw: map[string]string{"a": a2, "b": b2}, Normalized: map[string]string{"a": strings.ToLower(a2), "b": strings.ToLower(b2)}},
		}
		outputs := []Output{o, {Namespace: o.Namespace, Name: p.MustTemplate("x")}}
		got, errs := Render(ms, outputs, "default", field.NewPath("spec", "artifacts"))
		// The results left out: an output and a directory with an Invalid
		// error, on its name, its namespace or both.
		invalid, keys := map[string]bool{}, map[[2]string]int{}
		for _, e := range errs {
			output, _, ok := strings.Cut(e.Field, "].")
			if !ok || !strings.HasPrefix(output, "spec.artifacts[") {
				t.Errorf("error at %q", e.Field)
			}
			if e.Type == field.ErrorTypeInvalid {
				_, dir, _ := strings.Cut(e.Detail, "rendered from directory ")
				dir, _, _ = strings.Cut(dir, ":")
				invalid[output+" "+dir] = true
			}
		}
		if len(got)+len(invalid) != len(ms)*len(outputs) {
			t.Fatalf("%d results and %d invalid, want %d in all: %v", len(got), len(invalid), len(ms)*len(outputs), errs)
		}
		for _, r := range got {
			if len(content.IsDNS1123Subdomain(r.Name)) > 0 || len(content.IsDNS1123Label(r.Namespace)) > 0 {
				t.Errorf("invalid result %q/%q", r.Namespace, r.Name)
			}
			keys[[2]string{r.Namespace, r.Name}]++
		}
		for _, r := range got {
			shared := keys[[2]string{r.Namespace, r.Name}] > 1
			if shared != (r.Conflict != nil) || r.Conflict != nil && (r.Conflict == &r || r.Conflict.Name != r.Name || r.Conflict.Namespace != r.Namespace) {
				t.Errorf("result %+v: conflict %+v, want one: %t", r, r.Conflict, shared)
			}
		}
	})
}
