package generator

import (
	"fmt"
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/api/validate/content"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/tenantkit/tenantkit/internal/hostile"
	"github.com/tenantkit/tenantkit/pathpattern"
)

// renderedView is what a test expects of one result of render: the output's
// index, the directory, the object and, when it conflicts, the index and
// directory of the result it conflicts with.
type renderedView struct {
	Index     int
	Path      string
	Namespace string
	Name      string
	Conflict  string // "index path" of Conflict; "" for none
}

func viewRendered(rs []renderedObject) []renderedView {
	var out []renderedView
	for _, r := range rs {
		v := renderedView{Index: r.Index, Path: r.Path, Namespace: r.Namespace, Name: r.Name}
		if r.Conflict != nil {
			v.Conflict = fmt.Sprintf("%d %s", r.Conflict.Index, r.Conflict.Path)
		}
		out = append(out, v)
	}
	return out
}

// renderErr is a field.Error without its origin, as tests compare it.
type renderErr struct {
	Type     field.ErrorType
	Field    string
	BadValue any
	Detail   string
}

func viewRenderErrors(errs field.ErrorList) []renderErr {
	var out []renderErr
	for _, e := range errs {
		out = append(out, renderErr{e.Type, e.Field, e.BadValue, e.Detail})
	}
	return out
}

// bindOutput binds a namespace and a name template to p ("" for a nil
// template).
func bindOutput(p *pathpattern.Pattern, namespace, name string) compiledArtifact {
	var o compiledArtifact
	if namespace != "" {
		o.namespace = p.MustTemplate(namespace)
	}
	if name != "" {
		o.name = p.MustTemplate(name)
	}
	return o
}

// renderMatch is the match of the directory path with the raw captures
// given as name, value pairs, normalized by lowercasing.
func renderMatch(path string, raw ...string) pathpattern.Match {
	m := pathpattern.Match{Path: path, Raw: map[string]string{}, Normalized: map[string]string{}}
	for i := 0; i < len(raw); i += 2 {
		m.Raw[raw[i]] = raw[i+1]
		m.Normalized[raw[i]] = strings.ToLower(raw[i+1])
	}
	return m
}

// renderDir and renderSymlink build fstest.MapFS entries.
func renderDir() *fstest.MapFile { return &fstest.MapFile{Mode: fs.ModeDir | 0o755} }

func renderSymlink(target string) *fstest.MapFile {
	return &fstest.MapFile{Data: []byte(target), Mode: fs.ModeSymlink | 0o777}
}

// renderTree is a tree of the directories dirs.
func renderTree(dirs ...string) fstest.MapFS {
	fsys := fstest.MapFS{}
	for _, d := range dirs {
		fsys[d] = renderDir()
	}
	return fsys
}

func TestRender(t *testing.T) {
	t.Parallel()
	p := pathpattern.MustParse("@repo/{ns}/{app}")
	subdomain := strings.Join(content.IsDNS1123Subdomain("x_y"), "; ")
	label := strings.Join(content.IsDNS1123Label("a_b"), "; ")
	dots := strings.Join(content.IsDNS1123Label("a.b"), "; ")
	tests := []struct {
		name      string
		static    bool // templates bound to no pattern
		matches   []pathpattern.Match
		outputs   [][2]string // namespace and name templates; "" for nil
		namespace string      // the default namespace
		want      []renderedView
		errs      []renderErr
	}{
		{
			name:    "valid",
			matches: []pathpattern.Match{renderMatch("team-a/app", "ns", "team-a", "app", "App"), renderMatch("team-b/app", "ns", "team-b", "app", "app")},
			outputs: [][2]string{{"{ns}", "{app}"}},
			want: []renderedView{
				{Index: 0, Path: "team-a/app", Namespace: "team-a", Name: "app"},
				{Index: 0, Path: "team-b/app", Namespace: "team-b", Name: "app"},
			},
		},
		{
			name:      "no namespace template: the default namespace",
			matches:   []pathpattern.Match{renderMatch("t/a", "ns", "t", "app", "a"), renderMatch("u/a", "ns", "u", "app", "a")},
			outputs:   [][2]string{{"", "{ns}.{app}"}},
			namespace: "flux-system",
			want: []renderedView{
				{Index: 0, Path: "t/a", Namespace: "flux-system", Name: "t.a"},
				{Index: 0, Path: "u/a", Namespace: "flux-system", Name: "u.a"},
			},
		},
		{
			name:    "no namespace at all",
			matches: []pathpattern.Match{renderMatch("t/a", "ns", "t", "app", "a")},
			outputs: [][2]string{{"", "{app}"}},
			want:    []renderedView{{Index: 0, Path: "t/a", Name: "a"}},
		},
		{
			name:    "results in path order, whatever the order of matches",
			matches: []pathpattern.Match{renderMatch("b/x", "ns", "b", "app", "x"), renderMatch("a/x", "ns", "a", "app", "x")},
			outputs: [][2]string{{"{ns}", "{app}"}, {"{ns}", "{app}-2"}},
			want: []renderedView{
				{Index: 0, Path: "a/x", Namespace: "a", Name: "x"},
				{Index: 0, Path: "b/x", Namespace: "b", Name: "x"},
				{Index: 1, Path: "a/x", Namespace: "a", Name: "x-2"},
				{Index: 1, Path: "b/x", Namespace: "b", Name: "x-2"},
			},
		},
		{
			name: "invalid values are left out and reported with their directory",
			matches: []pathpattern.Match{
				renderMatch("a_b/x_y", "ns", "a_b", "app", "x_y"),
				renderMatch("a.b/ok", "ns", "a.b", "app", "ok"),
				renderMatch("ok/ok", "ns", "ok", "app", "ok"),
			},
			outputs: [][2]string{{"{ns}", "{app}"}},
			want:    []renderedView{{Index: 0, Path: "ok/ok", Namespace: "ok", Name: "ok"}},
			errs: []renderErr{
				{field.ErrorTypeInvalid, "spec.artifacts[0].namespace", "a.b", `rendered from directory "a.b/ok": ` + dots},
				{field.ErrorTypeInvalid, "spec.artifacts[0].name", "x_y", `rendered from directory "a_b/x_y": ` + subdomain},
				{field.ErrorTypeInvalid, "spec.artifacts[0].namespace", "a_b", `rendered from directory "a_b/x_y": ` + label},
			},
		},
		{
			name:    "an error is reported at its output's index",
			matches: []pathpattern.Match{renderMatch("t/a", "ns", "t", "app", "a")},
			outputs: [][2]string{{"{ns}", "{app}"}, {"{ns}", "{app}_x"}},
			want:    []renderedView{{Index: 0, Path: "t/a", Namespace: "t", Name: "a"}},
			errs: []renderErr{
				{field.ErrorTypeInvalid, "spec.artifacts[1].name", "a_x", `rendered from directory "t/a": ` + strings.Join(content.IsDNS1123Subdomain("a_x"), "; ")},
			},
		},
		{
			name: "collisions in one output name both directories",
			matches: []pathpattern.Match{
				renderMatch("apps/auth", "ns", "apps", "app", "auth"),
				renderMatch("apps/Auth", "ns", "apps", "app", "Auth"),
				renderMatch("apps/AUTH", "ns", "apps", "app", "AUTH"),
				renderMatch("other/auth", "ns", "other", "app", "auth"),
			},
			outputs: [][2]string{{"{ns}", "{app}"}},
			// Path order: apps/AUTH, apps/Auth, apps/auth. The first
			// conflicts with the second, the later ones with the first.
			want: []renderedView{
				{Index: 0, Path: "apps/AUTH", Namespace: "apps", Name: "auth", Conflict: "0 apps/Auth"},
				{Index: 0, Path: "apps/Auth", Namespace: "apps", Name: "auth", Conflict: "0 apps/AUTH"},
				{Index: 0, Path: "apps/auth", Namespace: "apps", Name: "auth", Conflict: "0 apps/AUTH"},
				{Index: 0, Path: "other/auth", Namespace: "other", Name: "auth"},
			},
			errs: []renderErr{
				{field.ErrorTypeDuplicate, "spec.artifacts[0].name", "auth", `directories "apps/AUTH" and "apps/Auth" render the same namespace "apps" and name "auth"`},
				{field.ErrorTypeDuplicate, "spec.artifacts[0].name", "auth", `directories "apps/AUTH" and "apps/auth" render the same namespace "apps" and name "auth"`},
			},
		},
		{
			name:    "collisions across outputs name both directories and both outputs",
			matches: []pathpattern.Match{renderMatch("t/app", "ns", "t", "app", "app"), renderMatch("t/web", "ns", "t", "app", "web")},
			outputs: [][2]string{{"{ns}", "{app}"}, {"{ns}", "app"}},
			want: []renderedView{
				{Index: 0, Path: "t/app", Namespace: "t", Name: "app", Conflict: "1 t/app"},
				{Index: 0, Path: "t/web", Namespace: "t", Name: "web"},
				{Index: 1, Path: "t/app", Namespace: "t", Name: "app", Conflict: "0 t/app"},
				{Index: 1, Path: "t/web", Namespace: "t", Name: "app", Conflict: "0 t/app"},
			},
			errs: []renderErr{
				{field.ErrorTypeDuplicate, "spec.artifacts[1].name", "app", `directories "t/app" (spec.artifacts[0]) and "t/app" (spec.artifacts[1]) render the same namespace "t" and name "app"`},
				{field.ErrorTypeDuplicate, "spec.artifacts[1].name", "app", `directories "t/app" (spec.artifacts[0]) and "t/web" (spec.artifacts[1]) render the same namespace "t" and name "app"`},
			},
		},
		{
			name:      "the default namespace collides with a rendered one",
			matches:   []pathpattern.Match{renderMatch("flux-system/a", "ns", "flux-system", "app", "a")},
			outputs:   [][2]string{{"", "{app}"}, {"{ns}", "{app}"}},
			namespace: "flux-system",
			want: []renderedView{
				{Index: 0, Path: "flux-system/a", Namespace: "flux-system", Name: "a", Conflict: "1 flux-system/a"},
				{Index: 1, Path: "flux-system/a", Namespace: "flux-system", Name: "a", Conflict: "0 flux-system/a"},
			},
			errs: []renderErr{
				{field.ErrorTypeDuplicate, "spec.artifacts[1].name", "a", `directories "flux-system/a" (spec.artifacts[0]) and "flux-system/a" (spec.artifacts[1]) render the same namespace "flux-system" and name "a"`},
			},
		},
		{
			name:    "collision without a namespace",
			matches: []pathpattern.Match{renderMatch("t/A", "ns", "t", "app", "A"), renderMatch("t/a", "ns", "t", "app", "a")},
			outputs: [][2]string{{"", "{app}"}},
			want: []renderedView{
				{Index: 0, Path: "t/A", Name: "a", Conflict: "0 t/a"},
				{Index: 0, Path: "t/a", Name: "a", Conflict: "0 t/A"},
			},
			errs: []renderErr{
				{field.ErrorTypeDuplicate, "spec.artifacts[0].name", "a", `directories "t/A" and "t/a" render the same name "a"`},
			},
		},
		{
			name:    "nil name template",
			matches: []pathpattern.Match{renderMatch("t/a", "ns", "t", "app", "a")},
			outputs: [][2]string{{"{ns}", ""}, {"{ns}", "{app}"}},
			want:    []renderedView{{Index: 1, Path: "t/a", Namespace: "t", Name: "a"}},
			errs:    []renderErr{{field.ErrorTypeRequired, "spec.artifacts[0].name", "", "a name template is required"}},
		},
		{
			name:    "capture without a value",
			matches: []pathpattern.Match{{Path: "t/a", Raw: map[string]string{}, Normalized: map[string]string{"ns": "t"}}},
			outputs: [][2]string{{"{ns}", "{app}"}},
			errs: []renderErr{{field.ErrorTypeInvalid, "spec.artifacts[0].name", "{app}",
				`rendered from directory "t/a": pathpattern: captures must hold a value for every capture the template names: "app" in template "{app}"`}},
		},
		{
			name:    "no matches",
			outputs: [][2]string{{"{ns}", "{app}"}},
		},
		{
			name:    "no outputs",
			matches: []pathpattern.Match{renderMatch("t/a", "ns", "t", "app", "a")},
		},
		// Static outputs: no pattern, one match without a directory.
		{
			name:      "static outputs",
			static:    true,
			matches:   []pathpattern.Match{{}},
			outputs:   [][2]string{{"", "static-1"}, {"team-a", "static-2"}},
			namespace: "flux-system",
			want: []renderedView{
				{Index: 0, Namespace: "flux-system", Name: "static-1"},
				{Index: 1, Namespace: "team-a", Name: "static-2"},
			},
		},
		{
			name:      "static outputs: invalid literals name no directory",
			static:    true,
			matches:   []pathpattern.Match{{}},
			outputs:   [][2]string{{"Team-A", "x_y"}},
			namespace: "flux-system",
			errs: []renderErr{
				{field.ErrorTypeInvalid, "spec.artifacts[0].name", "x_y", subdomain},
				{field.ErrorTypeInvalid, "spec.artifacts[0].namespace", "Team-A", strings.Join(content.IsDNS1123Label("Team-A"), "; ")},
			},
		},
		{
			name:      "static outputs: a collision names both outputs",
			static:    true,
			matches:   []pathpattern.Match{{}},
			outputs:   [][2]string{{"", "x"}, {"", "y"}, {"flux-system", "x"}},
			namespace: "flux-system",
			want: []renderedView{
				{Index: 0, Namespace: "flux-system", Name: "x", Conflict: "2 "},
				{Index: 1, Namespace: "flux-system", Name: "y"},
				{Index: 2, Namespace: "flux-system", Name: "x", Conflict: "0 "},
			},
			errs: []renderErr{
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
			var outputs []compiledArtifact
			for _, o := range tt.outputs {
				outputs = append(outputs, bindOutput(pat, o[0], o[1]))
			}
			got, errs := render(tt.matches, outputs, tt.namespace, field.NewPath("spec", "artifacts"))
			if diff := cmp.Diff(tt.want, viewRendered(got)); diff != "" {
				t.Errorf("render (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.errs, viewRenderErrors(errs)); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
			for _, r := range got {
				if r.Match.Path != "" && !cmp.Equal(r.Match, findRenderMatch(tt.matches, r.Path)) {
					t.Errorf("result for %q carries another match: %+v", r.Path, r.Match)
				}
			}
		})
	}
}

func findRenderMatch(ms []pathpattern.Match, path string) pathpattern.Match {
	for _, m := range ms {
		if m.Path == path {
			return m
		}
	}
	return pathpattern.Match{}
}

func TestRenderDiscovered(t *testing.T) {
	t.Parallel()
	// apps/Auth and apps/auth render the same name (upstream's
	// TestBuildArtifactRequests, "duplicate names after lowercasing").
	p := pathpattern.MustParse("@repo/{namespace}/{module}")
	ms, _, err := p.Discover(renderTree("apps/Auth", "apps/auth", "apps/db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	_, errs := render(ms, []compiledArtifact{bindOutput(p, "{namespace}", "{module}")}, "", nil)
	want := []renderErr{{field.ErrorTypeDuplicate, "[0].name", "auth", `directories "apps/Auth" and "apps/auth" render the same namespace "apps" and name "auth"`}}
	if diff := cmp.Diff(want, viewRenderErrors(errs)); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
}

// TestRenderSkipsProblems: a link where the pattern needs a directory is
// a problem entry of Discover, which render renders nothing from: its
// captures are only those on the way to it.
func TestRenderSkipsProblems(t *testing.T) {
	t.Parallel()
	p := pathpattern.MustParse("@repo/tenants/{namespace}/modules/{module}")
	fsys := renderTree("tenants/a/modules/app", "tenants/b/modules/web")
	fsys["tenants/c"] = renderSymlink("a")
	ms, errs, err := p.Discover(fsys, nil)
	if err != nil || len(ms) != 3 || len(errs) != 1 {
		t.Fatalf("Discover = %v, %v, %v; want two matches and a problem", ms, errs, err)
	}
	rs, errs := render(ms, []compiledArtifact{bindOutput(p, "{namespace}", "{module}")}, "", nil)
	var got []string
	for _, r := range rs {
		got = append(got, r.Namespace+"/"+r.Name)
	}
	if diff := cmp.Diff([]string{"a/app", "b/web"}, got); diff != "" || errs != nil {
		t.Errorf("render (-want +got):\n%s\nerrors %v", diff, errs)
	}
}

// TestRenderPrinted holds what were pathpattern's ExampleRender and
// ExampleRender_static: each case prints its results and errors as the
// examples did, and compares every line.
func TestRenderPrinted(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		run  func() []string
		want []string
	}{
		{
			name: "discovered, two outputs, one in the default namespace",
			run: func() []string {
				p := pathpattern.MustParse("@repo/{namespace}/{module}")
				tree := fstest.MapFS{
					"apps/Auth": {Mode: fs.ModeDir},
					"apps/auth": {Mode: fs.ModeDir},
					"apps/db":   {Mode: fs.ModeDir},
				}
				matches, _, _ := p.Discover(tree, nil)
				outputs := []compiledArtifact{
					{namespace: p.MustTemplate("{namespace}"), name: p.MustTemplate("{module}")},
					{name: p.MustTemplate("{namespace}-{module}")}, // in the default namespace
				}
				out, errs := render(matches, outputs, "flux-system", field.NewPath("spec", "artifacts"))
				var lines []string
				for _, r := range out {
					lines = append(lines, fmt.Sprintf("[%d] %s -> %s/%s conflict: %t", r.Index, r.Path, r.Namespace, r.Name, r.Conflict != nil))
				}
				for _, e := range errs {
					lines = append(lines, e.Error())
				}
				return lines
			},
			want: []string{
				"[0] apps/Auth -> apps/auth conflict: true",
				"[0] apps/auth -> apps/auth conflict: true",
				"[0] apps/db -> apps/db conflict: false",
				"[1] apps/Auth -> flux-system/apps-auth conflict: true",
				"[1] apps/auth -> flux-system/apps-auth conflict: true",
				"[1] apps/db -> flux-system/apps-db conflict: false",
				`spec.artifacts[0].name: Duplicate value: "auth": directories "apps/Auth" and "apps/auth" render the same namespace "apps" and name "auth"`,
				`spec.artifacts[1].name: Duplicate value: "apps-auth": directories "apps/Auth" and "apps/auth" render the same namespace "flux-system" and name "apps-auth"`,
			},
		},
		{
			// Without a pattern (source-watcher's artifacts without
			// pathPattern), the templates are literals bound to a nil
			// *pathpattern.Pattern, and one match without a directory
			// renders each output once.
			name: "static",
			run: func() []string {
				var none *pathpattern.Pattern
				outputs := []compiledArtifact{
					{name: none.MustTemplate("static-1")},
					{namespace: none.MustTemplate("team-a"), name: none.MustTemplate("static-2")},
					{name: none.MustTemplate("Static_3")},
				}
				out, errs := render([]pathpattern.Match{{}}, outputs, "flux-system", field.NewPath("spec", "artifacts"))
				var lines []string
				for _, r := range out {
					lines = append(lines, fmt.Sprintf("[%d] %s/%s", r.Index, r.Namespace, r.Name))
				}
				lines = append(lines, fmt.Sprint(len(errs), " ", errs[0].Field, " ", errs[0].BadValue))
				_, err := none.Template("app-{app}")
				return append(lines, err.Error())
			},
			want: []string{
				"[0] flux-system/static-1",
				"[1] team-a/static-2",
				"1 spec.artifacts[2].name Static_3",
				`pathpattern: template must name only captures of its pattern: "app" (offset 4 in "app-{app}")`,
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tt.want, tt.run()); diff != "" {
				t.Errorf("printed (-want +got):\n%s", diff)
			}
		})
	}
}

// TestRenderHostileTree holds what was the end of pathpattern's
// TestHostileDiscover: over the hostile tree (hostile.Tree), three directories
// lowercase onto the same namespace and name, and render reports each
// later one as a duplicate, naming both directories.
func TestRenderHostileTree(t *testing.T) {
	t.Parallel()
	tree := hostile.Tree()
	p := pathpattern.MustParse("@repo/tenants/{namespace}/modules/{module}")
	ms, _, err := p.Discover(tree, field.NewPath("spec", "pathPattern"))
	if err != nil {
		t.Fatalf("Discover error = %v", err)
	}
	_, errs := render(ms, []compiledArtifact{{namespace: p.MustTemplate("{namespace}"), name: p.MustTemplate("{module}")}}, "", field.NewPath("spec", "artifacts"))
	var dups []string
	for _, e := range errs {
		if e.Type == field.ErrorTypeDuplicate && e.Field == "spec.artifacts[0].name" {
			dups = append(dups, e.Detail)
		}
	}
	wantDups := []string{
		`directories "tenants/TEAM-A/modules/APP" and "tenants/Team-A/modules/app" render the same namespace "team-a" and name "app"`,
		`directories "tenants/TEAM-A/modules/APP" and "tenants/team-a/modules/app" render the same namespace "team-a" and name "app"`,
	}
	if diff := cmp.Diff(wantDups, dups); diff != "" {
		t.Errorf("render duplicates (-want +got):\n%s\nall errors: %v", diff, errs)
	}
}

// FuzzRender renders two outputs over two matches with any templates and
// any values: render never panics, keeps only valid names and namespaces,
// reports every result it leaves out, and marks exactly the results whose
// namespace and name another result has.
func FuzzRender(f *testing.F) {
	f.Add("{a}", "{b}", "Team-A", "App", "team-a", "app")
	f.Add("{a}-{b}", "", "x", "y", "x-y", "")
	f.Add("{b}..invalid", "{a}", "a_b", "x_y", "ok", "ok")
	f.Add("static", "flux-system", "", "", "", "")
	p := pathpattern.MustParse("@r/{a}/{b}")
	f.Fuzz(func(t *testing.T, name, namespace, a1, b1, a2, b2 string) {
		o := compiledArtifact{name: p.MustTemplate("{a}.{b}")}
		var err error
		if o.name, err = p.Template(name); err != nil {
			return
		}
		if namespace != "" {
			if o.namespace, err = p.Template(namespace); err != nil {
				return
			}
		}
		ms := []pathpattern.Match{
			{Path: "1", Raw: map[string]string{"a": a1, "b": b1}, Normalized: map[string]string{"a": strings.ToLower(a1), "b": strings.ToLower(b1)}},
			{Path: "2", Raw: map[string]string{"a": a2, "b": b2}, Normalized: map[string]string{"a": strings.ToLower(a2), "b": strings.ToLower(b2)}},
		}
		outputs := []compiledArtifact{o, {namespace: o.namespace, name: p.MustTemplate("x")}}
		got, errs := render(ms, outputs, "default", field.NewPath("spec", "artifacts"))
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
