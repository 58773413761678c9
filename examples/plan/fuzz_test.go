package main

import (
	"context"
	"encoding/json"
	"io/fs"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/tenantkit/tenantkit/inventory"
)

// generatorSeeds are the seeds of FuzzParseGenerator: the sample, and
// small variants of it and of the hostile manifests of
// TestHostileParseGenerator.
func generatorSeeds(t testing.TB) [][]byte {
	gen := sampleGenerator(t)
	seeds := []string{
		gen,
		strings.Replace(gen, "{namespace}/modules/{module}\"", "{namespace}/modules/{module}/\"", 1),
		strings.Replace(gen, "@repo/tenants/{namespace}", "@repo/tenants/{Namespace}", 1),
		strings.Replace(gen, "@repo/tenants/{namespace}", "@repo/tenants/{namespace}{ns}", 1),
		strings.Replace(gen, `"@repo/tenants/{namespace}/modules/{module}"`, `"@repo/tenants/\u0000/{module}"`, 1),
		strings.Replace(gen, `name: "{module}"`, `name: "{namespace}"`, 1),
		strings.Replace(gen, `namespace: "{namespace}"`, `namespace: "flux-system"`, 1),
		strings.Replace(gen, `"*.md"`, `"**"`, 1),
		strings.Replace(gen, `manifests/**"`, `manifests/{a,b}{c,d}[e-f]"`, 1),
		strings.Replace(gen, `to: "@artifact/"`, `to: "@artifact/../x"`, 1),
		strings.Replace(gen, `ns.startsWith("tenant-")`, `true`, 1),
		strings.Replace(gen, `ns.startsWith("tenant-")`, `ns`, 1),
		strings.Replace(gen, "prune: true", "prune: false", 1),
		strings.Replace(gen, "strategy: Merge", "strategy: merge", 1),
		strings.Replace(gen, `namespace: "*"`, `namespace: ""`, 1),
		strings.Replace(gen, "my.org.io/pci-scope", "source.extensions.fluxcd.io/externalFinalizer", 1),
		strings.Replace(gen, "  serviceAccountName: flux-operator\n", "", 1),
		strings.Replace(gen, "uid: 6f1d0c2e-6a4b-4d6e-9d53-0b7f3c1e2a10", "uid: \"x\\ny\"", 1),
		gen + "---\n" + gen,
		gen + "kind: ArtifactGenerator\n",
		strings.Replace(gen, "pathPattern:", "pathPatern:", 1),
		billionLaughs("spec"),
		"spec: " + deepFlow(100),
		`{"apiVersion":"source.extensions.fluxcd.io/v1beta1","kind":"ArtifactGenerator","spec":{"pathPattern":"@repo/{a}","sources":[{"alias":"repo"}],"artifacts":[{"name":"{a}","copy":[{"from":"@repo/{a}/**","to":"@artifact/"}]}]}}`,
		"",
	}
	out := make([][]byte, len(seeds))
	for i, s := range seeds {
		out[i] = []byte(s)
	}
	return out
}

// inputsSeeds are the seeds of FuzzParseInputs.
func inputsSeeds(t testing.TB) [][]byte {
	seeds := []string{
		"replicas: 3\ndependsOn: []\nimage:\n  repository: ghcr.io/example/payments-api\n  tag: \"1.8.2\"\n",
		"{}", "", "# comment only\n", "---\n# nothing\n---\n", "null\n", "- a\n- b\n", "hello\n", "42\n",
		"a: 1\n---\nb: 2\n", "a: 1\n...\nb: 2\n", "a: 1\n--- b: 2\n", "replicas: 1\nreplicas: 2\n",
		"a: \"x\x00\"\n", "a: x\xff\n", "k: 1\n\u212a: 2\n", "a: 1e400\n", "a: &x [1, 2]\nb: *x\n",
		"a: !!binary aGk=\n", "a: {b: {c: [1, {d: e}]}}\n", "? [a, b]\n: c\n", "a: 0x10\nb: 0o7\nc: .inf\nd: ~\n",
		billionLaughs("x"), "x: " + deepFlow(100),
	}
	out := make([][]byte, len(seeds))
	for i, s := range seeds {
		out[i] = []byte(s)
	}
	return out
}

// clusterSeeds are the seeds of FuzzParseCluster.
func clusterSeeds(t testing.TB) [][]byte {
	ns := func(name string) string { return "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: " + name + "\n" }
	seeds := []string{
		strings.Replace(liveTenant, "%s", "source.extensions.fluxcd.io/prune: disabled", 1),
		strings.Replace(liveTenant, "%s", "source.extensions.fluxcd.io/externalFinalizer: fluxcd.controlplane.io/v1/ResourceSet/flux-system/tenants/0d1e3c4a-5b6c-4d7e-8f90-a1b2c3d4e5f6", 1),
		"apiVersion: v1\nkind: List\nitems:\n- " + strings.ReplaceAll(strings.TrimSuffix(ns("a"), "\n"), "\n", "\n  ") + "\n",
		"apiVersion: v1\nkind: NamespaceList\nmetadata: {}\nitems: [{apiVersion: v1, kind: Namespace, metadata: {name: a}}]\n",
		ns("a") + "---\n" + ns("a"),
		ns("a") + "...\n" + ns("b"),
		strings.Repeat("---\n", 3) + ns("a"),
		ns("a") + "--- x\n",
		"apiVersion: v1\nkind: Namespace\n",
		"- a\n", "hello\n", "", billionLaughs("metadata"), "items: " + deepFlow(100),
	}
	out := make([][]byte, len(seeds))
	for i, s := range seeds {
		out[i] = []byte(s)
	}
	return out
}

// samplePlan is the source and the inventory of a clean plan of the
// embedded sample, which FuzzParseGenerator plans fuzzed generators
// against.
var samplePlan = sync.OnceValues(func() (fs.FS, []inventory.Entry) {
	sub, err := fs.Sub(sample, "sample/monorepo")
	if err != nil {
		panic(err)
	}
	data, err := fs.ReadFile(sample, "sample/generator.yaml")
	if err != nil {
		panic(err)
	}
	g, err := parseGenerator(data)
	if err != nil {
		panic(err)
	}
	res, err := makePlan(context.Background(), request{generator: g, sources: map[string]fs.FS{"repo": sub}})
	if err != nil || res.hasErrors() {
		panic("the sample does not plan cleanly")
	}
	var previous []inventory.Entry
	for _, e := range res.Inventory {
		apiVersion := "v1"
		if e.Kind == artifactKind {
			apiVersion = artifactAPIVersion
		}
		previous = append(previous, inventory.Entry{APIVersion: apiVersion, Kind: e.Kind, Namespace: e.Namespace, Name: e.Name, Digest: e.Digest})
	}
	return sub, previous
})

// FuzzParseGenerator decodes fuzzed ArtifactGenerator manifests and plans
// those that decode against the sample monorepo, with the sample's own
// inventory as the previous one. Nothing may panic, and a plan must keep
// the library's promises: a plan with errors deletes nothing, and every
// entry of the previous inventory is still tracked unless it is deleted or
// released.
func FuzzParseGenerator(f *testing.F) {
	for _, s := range generatorSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		g, err := parseGenerator(data)
		if err != nil {
			if g != nil {
				t.Fatalf("parseGenerator() = %v with error %v", g, err)
			}
			return
		}
		checkPlan(t, g)
	})
}

// checkPlan plans the sample monorepo with g against the sample's own
// inventory and checks that a plan with errors deletes nothing and that
// every entry of that inventory is still tracked unless it is deleted or
// released.
func checkPlan(t *testing.T, g *generator) {
	t.Helper()
	src, previous := samplePlan()
	res, err := makePlan(context.Background(), request{
		generator:             g,
		sources:               map[string]fs.FS{"repo": src},
		previous:              previous,
		defaultServiceAccount: "default",
	})
	if err != nil {
		t.Fatalf("makePlan() = %v", err)
	}
	gone := map[string]bool{}
	for _, c := range res.Changes {
		if c.Action == "delete" && res.hasErrors() {
			t.Fatalf("a plan with errors %v deletes %s/%s/%s", res.Errors, c.Kind, c.Namespace, c.Name)
		}
		if c.Action == "delete" || c.Action == "release" {
			gone[c.Kind+"/"+c.Namespace+"/"+c.Name] = true
		}
	}
	tracked := map[string]bool{}
	for _, e := range res.Inventory {
		tracked[e.Kind+"/"+e.Namespace+"/"+e.Name] = true
	}
	for _, e := range previous {
		if k := e.Kind + "/" + e.Namespace + "/" + e.Name; !tracked[k] && !gone[k] {
			t.Fatalf("%s is neither tracked, deleted nor released", k)
		}
	}
}

// planSeeds are the seeds of FuzzPlan: pattern, artifact name, namespace,
// inputsFrom, copy from, copy exclude, metadata path, allowedNames rule and
// label rule.
var planSeeds = [][9]string{
	{"@repo/tenants/{namespace}/modules/{module}", "{module}", "{namespace}", "@repo/tenants/{namespace}/modules/{module}/applier-inputs.yaml",
		"@repo/tenants/{namespace}/modules/{module}/manifests/**", "*.md", "@repo/tenants/{namespace}/namespace-metadata.yaml",
		`ns.startsWith("tenant-")`, `value.matches('^cc-[0-9]{4}$')`},
	{"@repo/tenants/{namespace}", "{namespace}", "{namespace}", "", "@repo/tenants/{namespace}/**", "", "", "true", "true"},
	{"@repo/tenants/{namespace}/modules/{module}", "{namespace}", "tenant-payments", "", "@repo/**", "**", "", "true", "false"},
	{"@repo/tenants/{a}-{b}/modules/{module}", "{b}-{module}", "{a}", "", "@repo/tenants/{a}-{b}/modules/{module}/manifests", "", "@repo/tenants/{a}-{b}/x", `ns == "tenant"`, "value"},
	{"@repo/tenants/{namespace}/modules/{module}/", "{module}", "{namespace}", "", "@repo/x", "", "", "true", "true"},
	{"@repo/{namespace}/../x", "{module}", "{namespace}", "@repo/../../etc/passwd", "@repo/../**", "[", "@repo//etc", "ns", ""},
	{"@repo/tenants/{namespace}/modules/{module}", "{module}", "kube-system", "", "@repo/tenants/{namespace}/modules/{module}/manifests/**", "", "", "true", "true"},
	{"@repo/tenants/{Namespace}/modules/{module}", "{Namespace}", "{Namespace}", "@repo/tenants/{Namespace}", "@repo/tenants/{Namespace}/**", "", "@repo/tenants/{Namespace}/namespace-metadata.yaml", "true", "true"},
}

// FuzzPlan plans the sample monorepo with a generator whose pattern,
// templates, globs and rules are fuzzed, against the sample's own
// inventory, and checks the promises FuzzParseGenerator checks. Most
// mutations of a whole manifest do not decode; this target spends its time
// in the library instead.
func FuzzPlan(f *testing.F) {
	for _, s := range planSeeds {
		f.Add(s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7], s[8])
	}
	data, err := fs.ReadFile(sample, "sample/generator.yaml")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, pattern, name, namespace, inputsFrom, from, exclude, metadataPath, allowedName, labelRule string) {
		g, err := parseGenerator(data)
		if err != nil {
			t.Fatal(err)
		}
		g.Spec.PathPattern = pattern
		a := &g.Spec.Artifacts[0]
		a.Name, a.Namespace, a.InputsFrom = name, namespace, inputsFrom
		a.Copy[0].From, a.Copy[0].Exclude = from, []string{exclude}
		m := g.Spec.ManagedNamespaces
		m.AllowedNames = []string{allowedName}
		m.Metadata.FromSource.Path = metadataPath
		m.Metadata.FromSource.AllowedLabels = map[string]string{"my.org.io/cost-center": labelRule}
		checkPlan(t, g)
	})
}

// FuzzParseInputs checks that no inputs file panics, and that accepted
// inputs are a mapping of valid JSON values that reads back the same
// when written as JSON.
func FuzzParseInputs(f *testing.F) {
	for _, s := range inputsSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		in, err := parseInputs(data)
		if err != nil {
			if in != nil {
				t.Fatalf("parseInputs() = %v with error %v", in, err)
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
		again, err := parseInputs(js)
		if err != nil {
			t.Fatalf("parseInputs(%s) of accepted inputs: %v", js, err)
		}
		if k1, k2 := slices.Sorted(mapsKeys(in)), slices.Sorted(mapsKeys(again)); !slices.Equal(k1, k2) {
			t.Fatalf("keys %q, then %q", k1, k2)
		}
	})
}

// FuzzParseCluster checks that no cluster file panics, and that every
// object of an accepted one is complete and found by its identity.
func FuzzParseCluster(f *testing.F) {
	for _, s := range clusterSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := parseCluster(data)
		if err != nil {
			if c != nil {
				t.Fatalf("parseCluster() = %v with error %v", c, err)
			}
			return
		}
		for k, o := range c.objects {
			if o.Kind == "" || o.APIVersion == "" || o.Metadata.Name == "" || k.kind != o.Kind || k.name != o.Metadata.Name {
				t.Fatalf("object %+v under key %+v", o, k)
			}
			if k.kind == "Namespace" && k.group == "" {
				c.namespaceAnnotations(k.name)
			}
		}
	})
}

func mapsKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}
