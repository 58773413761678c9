package generator

import (
	"context"
	"encoding/json"
	"io/fs"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/tenantkit/tenantkit/inventory"
)

// FuzzCompile compiles specs whose pattern, templates, globs, rules and
// metadata are fuzzed. Nothing may panic; a spec either compiles or is
// rejected with sorted field errors under "spec."; a compiled one plans the
// test tree (see FuzzPlan's promises).
func FuzzCompile(f *testing.F) {
	for _, s := range planSeeds {
		f.Add(s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7], s[8])
	}
	f.Fuzz(func(t *testing.T, pattern, name, namespace, inputsFrom, from, exclude, metadataPath, allowedName, labelRule string) {
		spec := fuzzSpec(pattern, name, namespace, inputsFrom, from, exclude, metadataPath, allowedName, labelRule)
		g, errs := Compile(spec, WithUID(testUID), WithNamespace("flux-system"))
		if (g == nil) == (len(errs) == 0) {
			t.Fatalf("Compile() = %v, %v", g, errs)
		}
		for _, e := range errs {
			if !strings.HasPrefix(e.Field, "spec") {
				t.Fatalf("error outside spec: %v", e)
			}
		}
		if g != nil {
			checkPlan(t, g)
		}
	})
}

// FuzzPlan plans a fuzzed tree with the test spec against a previous
// inventory: nothing may panic, a plan with errors deletes nothing, every
// decision but create, update and unchanged has a reason, and every entry
// of the previous inventory is still tracked unless it is deleted or
// released.
func FuzzPlan(f *testing.F) {
	f.Add("tenants/tenant-a/modules/app/manifests/a.yaml", "kind: A\n", "tenants/tenant-a/modules/app/inputs.yaml", "tag: 1\n", "tenants/tenant-a/namespace-metadata.yaml", metadataFile("team", "a"))
	f.Add("tenants/Tenant-A/modules/app/manifests/a.yaml", "x", "tenants/tenant-a/modules/App/manifests/b.yaml", "y", "tenants/kube-system/modules/x/manifests/c", "z")
	f.Add("tenants/tenant-b/modules/x/README.md", "x", "tenants/tenant-b/modules/x/inputs.yaml", "- a\n", "tenants/tenant-b/namespace-metadata.yaml", "kind: [\n")
	f.Add("tenants", "file", "x", "y", "z", "w")
	f.Add("tenants/tenant-a/modules/app/manifests/a*b.yaml", "x", "tenants/tenant-a/modules/app/manifests/.hidden", "y", "tenants/.x/modules/y/manifests/z", "z")
	g := mustCompile(f, testSpec())
	f.Fuzz(func(t *testing.T, p1, c1, p2, c2, p3, c3 string) {
		fsys := tree("tenants/tenant-ok/modules/app")
		for _, pc := range [][2]string{{p1, c1}, {p2, c2}, {p3, c3}} {
			if fs.ValidPath(pc[0]) && pc[0] != "." {
				fsys[pc[0]] = &fstest.MapFile{Data: []byte(pc[1])}
			}
		}
		checkPlanFS(t, g, fsys)
	})
}

// planSeeds are the seeds of FuzzCompile: pattern, artifact name,
// namespace, inputsFrom, copy from, copy exclude, metadata path,
// allowedNames rule and label rule.
var planSeeds = [][9]string{
	{"@repo/tenants/{namespace}/modules/{module}", "{module}", "{namespace}", "@repo/tenants/{namespace}/modules/{module}/inputs.yaml",
		"@repo/tenants/{namespace}/modules/{module}/manifests/**", "*.md", "@repo/tenants/{namespace}/namespace-metadata.yaml",
		`ns.startsWith("tenant-")`, `value.size() <= 10`},
	{"@repo/tenants/{namespace}", "{namespace}", "{namespace}", "", "@repo/tenants/{namespace}/**", "", "", "true", "true"},
	{"@repo/tenants/{namespace}/modules/{module}", "{namespace}", "tenant-ok", "", "@repo/**", "**", "", "true", "false"},
	{"@repo/tenants/{a}-{b}/modules/{module}", "{b}-{module}", "{a}", "", "@repo/tenants/{a}-{b}/modules/{module}/manifests", "", "@repo/tenants/{a}-{b}/x", `ns == "tenant"`, "value"},
	{"@repo/tenants/{namespace}/modules/{module}/", "{module}", "{namespace}", "", "@repo/x", "", "", "true", "true"},
	{"@repo/{namespace}/../x", "{module}", "{namespace}", "@repo/../../etc/passwd", "@repo/../**", "[", "@repo//etc", "ns", ""},
	{"@repo/tenants/{namespace}/modules/{module}", "{module}", "{namespace}", "@repo/tenants/{namespace}/../inputs.yaml",
		"@repo/tenants/{namespace}/../**", "", "@artifact/{module}/../ns.yaml", "true", "true"},
	{"@repo/tenants/{namespace}", "{namespace}", "{namespace}", "@repo/", "@repo/.", "", "@repo/./", "true", "true"},
	{"", "app", "tenant-a", "@repo/../escape.yaml", "@repo/", "", "@artifact/", "true", "true"},
	{"@repo/tenants/{namespace}/modules/{module}", "{module}", "kube-system", "", "@repo/tenants/{namespace}/modules/{module}/manifests/**", "", "", "true", "true"},
	{"@repo/tenants/{Namespace}/modules/{module}", "{Namespace}", "{Namespace}", "@repo/tenants/{Namespace}", "@repo/tenants/{Namespace}/**", "", "@repo/tenants/{Namespace}/namespace-metadata.yaml", "true", "true"},
	{"@repo/tenants/{namespace}/modules/{module}", "{module}", "{namespace}", "", `@repo/tenants/{namespace}/modules/{module}/manifests/a\*b.yaml`, "", "", "true", "true"},
}

func fuzzSpec(pattern, name, namespace, inputsFrom, from, exclude, metadataPath, allowedName, labelRule string) Spec {
	spec := testSpec()
	spec.PathPattern = pattern
	a := &spec.Artifacts[0]
	a.Name, a.Namespace, a.InputsFrom = name, namespace, inputsFrom
	a.Copy[0].From, a.Copy[0].Exclude = from, []string{exclude}
	m := spec.ManagedNamespaces
	m.AllowedNames = []string{allowedName}
	m.Metadata.FromSource.Path = metadataPath
	m.Metadata.FromSource.AllowedLabels = map[string]string{"team": labelRule}
	return spec
}

// checkPlan plans the fuzz tree with g; see checkPlanFS.
func checkPlan(t *testing.T, g *Generator) {
	t.Helper()
	checkPlanFS(t, g, tree(
		"tenants/tenant-ok/modules/app", "tenants/tenant-ok/modules/app/inputs.yaml=tag: 1\n",
		"tenants/tenant-ok/namespace-metadata.yaml="+metadataFile("team", "ok"),
		"tenants/Tenant-B/modules/web", "tenants/tenant-x-y/modules/api", "README.md=x",
	))
}

// checkPlanFS plans fsys with g against a previous inventory and checks
// the promises of every plan.
func checkPlanFS(t *testing.T, g *Generator, fsys fstest.MapFS) {
	t.Helper()
	previous := []inventory.Entry{nsEntry("tenant-ok"), artEntry("tenant-ok", "app"), nsEntry("tenant-old"), artEntry("tenant-old", "app"), artEntry("tenant-ok", "old")}
	p, err := g.Plan(context.Background(), sources(fsys), previous, (&fakeCluster{}).live(previous, nil, nil).cluster())
	if err != nil {
		t.Fatalf("Plan() = %v", err)
	}
	gone := map[inventory.ID]bool{}
	for _, d := range p.Decisions {
		if d.Action == inventory.Delete && p.HasErrors() {
			t.Fatalf("a plan with errors %v deletes %s", p.Errors.ToAggregate(), d)
		}
		if d.Action != inventory.Create && d.Action != inventory.Update && d.Action != inventory.Unchanged && d.Reason == "" {
			t.Fatalf("%s without a reason", d)
		}
		if d.Action == inventory.Delete || d.Action == inventory.Release {
			gone[d.Entry.ID()] = true
		}
	}
	tracked := map[inventory.ID]bool{}
	for _, e := range p.Next(nil) {
		tracked[e.ID()] = true
	}
	for _, e := range previous {
		if !tracked[e.ID()] && !gone[e.ID()] {
			t.Fatalf("%s is neither tracked, deleted nor released", e.ID().String())
		}
	}
}

// FuzzParseInputs checks that no inputs file panics, and that accepted
// inputs are a mapping of valid JSON values that reads back the same
// when written as JSON.
func FuzzParseInputs(f *testing.F) {
	for _, s := range inputsSeeds {
		f.Add([]byte(s))
	}
	for _, tt := range parseInputsTests {
		f.Add([]byte(tt.data))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		in, object, err := parseInputs(data)
		if err != nil {
			if in != nil || object != nil {
				t.Fatalf("parseInputs() = %v, %s with error %v", in, object, err)
			}
			return
		}
		if in == nil {
			t.Fatal("parseInputs() = nil, nil")
		}
		for k, v := range in {
			if !json.Valid(v) {
				t.Fatalf("input %q = %q is not valid JSON", k, v)
			}
		}
		js, err := json.Marshal(in)
		if err != nil {
			t.Fatalf("json.Marshal(%v): %v", in, err)
		}
		if len(in) == 0 && object != nil || len(in) > 0 && string(object) != string(js) {
			t.Fatalf("parseInputs() object %s, json.Marshal of its values %s", object, js)
		}
		again, _, err := parseInputs(js)
		if err != nil {
			t.Fatalf("parseInputs(%s) of accepted inputs: %v", js, err)
		}
		if k1, k2 := sortedKeys(in), sortedKeys(again); !slices.Equal(k1, k2) {
			t.Fatalf("keys %q, then %q", k1, k2)
		}
	})
}

// inputsSeeds are the seeds of FuzzParseInputs, with parseInputsTests,
// from TestHostileParseInputs and the sample.
var inputsSeeds = []string{
	"replicas: 3\ndependsOn: []\nimage:\n  repository: ghcr.io/example/payments-api\n  tag: \"1.8.2\"\n",
	"{}", "", "# comment only\n", "---\n# nothing\n---\n", "null\n", "- a\n- b\n", "hello\n", "42\n",
	"a: 1\n---\nb: 2\n", "a: 1\n...\nb: 2\n", "a: 1\n--- b: 2\n", "replicas: 1\nreplicas: 2\n",
	"a: \"x\x00\"\n", "a: x\xff\n", "k: 1\n\u212a: 2\n", "a: 1e400\n", "a: &x [1, 2]\nb: *x\n",
	"a: !!binary aGk=\n", "a: {b: {c: [1, {d: e}]}}\n", "? [a, b]\n: c\n", "a: 0x10\nb: 0o7\nc: .inf\nd: ~\n",
	billionLaughs("x"), "x: " + deepFlow(100),
}
