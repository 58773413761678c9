package main

import (
	"context"
	"io/fs"
	"strings"
	"sync"
	"testing"

	"github.com/tenantkit/tenantkit/generator"
	"github.com/tenantkit/tenantkit/internal/agmanifest"
	"github.com/tenantkit/tenantkit/inventory"
)

// generatorSeeds are the seeds of FuzzParseGenerator: the sample, small
// variants of it, the sample as kubectl prints it (alone and in Lists),
// and the hostile manifests of TestHostileParseGenerator.
func generatorSeeds(t testing.TB) [][]byte {
	gen, export := sampleGenerator(t), kubectlGet(t)
	managed := strings.Index(gen, "  managedNamespaces:\n")
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
		gen[:managed], // no managedNamespaces: the namespaces are not managed
		strings.Replace(gen, "  managedNamespaces:\n", "  namespaces:\n    strategy: Managed\n  managedNamespaces:\n", 1), // the unreleased shape
		strings.Replace(gen, "    allowedNames:\n      - \"ns.startsWith('tenant-')\"\n", "    allowedNames: []\n", 1),
		strings.Replace(gen, "ns.startsWith('tenant-')", "true", 1),
		strings.Replace(gen, "ns.startsWith('tenant-')", "ns", 1),
		strings.Replace(gen, "ns.startsWith('tenant-')", "ns == 'flux-system'", 1),
		strings.Replace(gen, "    prune: true\n", "", 1),
		strings.Replace(gen, "    prune: true\n", "    prune: false\n", 1),
		breakSchema(gen),
		strings.Replace(gen, costCenterRule, `"value"`, 1),
		strings.Replace(gen, costCenterRule, `"^cc-[0-9]{4}$"`, 1), // a regular expression, not CEL
		strings.Replace(gen, "          exclude:\n", "          strategy: Extract\n          exclude:\n", 1),
		strings.Replace(gen, "          exclude:\n", "          optional: true\n          exclude:\n", 1),
		strings.Replace(gen, `originRevision: "@repo"`, `revision: "@other"`, 1),
		strings.Replace(gen, `inputsFrom: "@repo/`, `inputsFrom: "@artifact/`, 1),
		strings.Replace(gen, "my.org.io/provisioner: monorepo\n", "my.org.io/provisioner: monorepo\n    annotations:\n      source.extensions.fluxcd.io/ssa: Ignore\n", 1),
		strings.Replace(gen, "strategy: Merge", "strategy: merge", 1),
		strings.Replace(gen, `namespace: "*"`, `namespace: ""`, 1),
		strings.Replace(gen, "my.org.io/pci-scope", "source.extensions.fluxcd.io/externalFinalizer", 1),
		strings.Replace(gen, "  serviceAccountName: flux-operator\n", "", 1),
		strings.Replace(gen, "uid: 6f1d0c2e-6a4b-4d6e-9d53-0b7f3c1e2a10", "uid: \"x\\ny\"", 1),
		export,
		kubectlList(export),
		kubectlList(),
		kubectlList(export, export),
		kubectlList(strings.Replace(export, "kind: ArtifactGenerator\n", "kind: Namespace\n", 1)),
		strings.Replace(export, "status:\n", "status: 42\nx:\n", 1),
		strings.Replace(export, "  uid: 6f1d0c2e-6a4b-4d6e-9d53-0b7f3c1e2a10\n", "", 1),
		strings.Replace(export, "apiVersion: source.extensions.fluxcd.io/v1beta1\nkind", "apiVersion: v1\nkind", 1),
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
	g, err := agmanifest.Decode[generator.Spec](data)
	if err != nil {
		panic(err)
	}
	res, err := makePlan(context.Background(), request{manifest: g, sources: map[string]fs.FS{"repo": sub}})
	if err != nil || res.hasErrors() {
		panic("the sample does not plan cleanly")
	}
	var previous []inventory.Entry
	for _, e := range res.inventory {
		previous = append(previous, inventory.Entry{APIVersion: e.APIVersion, Kind: e.Kind, Namespace: e.Namespace, Name: e.Name, Digest: e.Digest})
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
		g, err := agmanifest.Decode[generator.Spec](data)
		if err != nil {
			if g != nil {
				t.Fatalf("agmanifest.Decode[generator.Spec]() = %v with error %v", g, err)
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
func checkPlan(t *testing.T, g *agmanifest.Manifest[generator.Spec]) {
	t.Helper()
	src, previous := samplePlan()
	res, err := makePlan(context.Background(), request{
		manifest: g,
		sources:  map[string]fs.FS{"repo": src},
		previous: previous,
		opts:     []generator.Option{generator.WithDefaultServiceAccount("default")},
	})
	if err != nil {
		t.Fatalf("makePlan() = %v", err)
	}
	checkStream(t, res)
	gone := map[string]bool{}
	for _, d := range res.decisions {
		c := toChange(d)
		if c.Action == "delete" && res.hasErrors() {
			t.Fatalf("a plan with errors %v deletes %s/%s/%s", res.errors, c.Kind, c.Namespace, c.Name)
		}
		if c.Action == "delete" || c.Action == "release" {
			gone[c.Kind+"/"+c.Namespace+"/"+c.Name] = true
		}
	}
	tracked := map[string]bool{}
	for _, e := range res.inventory {
		tracked[e.Kind+"/"+e.Namespace+"/"+e.Name] = true
	}
	for _, e := range previous {
		if k := e.Kind + "/" + e.Namespace + "/" + e.Name; !tracked[k] && !gone[k] {
			t.Fatalf("%s is neither tracked, deleted nor released", k)
		}
	}
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
		for _, o := range c.Objects() {
			if o.ID.Kind == "" || o.ID.Name == "" {
				t.Fatalf("object %+v without a kind or name", o)
			}
			if _, err := c.Object(context.Background(), o.ID); err != nil {
				t.Fatalf("object %+v not found: %v", o.ID, err)
			}
		}
	})
}

// inventorySeeds are seeds of FuzzReadInventory: the shapes of
// TestInventoryShapes and the refused documents of TestInventoryRefused.
func inventorySeeds(t testing.TB) []string {
	export := kubectlGet(t)
	return []string{
		export,
		kubectlList(export),
		kubectlList(export, export),
		kubectlList(),
		`[{"kind": "Namespace", "name": "a", "digest": "sha256:4c902a77feddebb40a2f76690644d69782ba08a037a7e9ec4259f0e3b126520e"}]`,
		"[]\n",
		`{"changes": [], "inventory": [{"kind": "ExternalArtifact", "namespace": "a", "name": "b"}]}`,
		`{"entries": [{"id": "a_b_source.toolkit.fluxcd.io_ExternalArtifact", "v": "v1"}]}`,
		"apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {name: t}\nstatus:\n  inventory:\n    entries: [{id: _a__Namespace, v: v1}]\n",
		"apiVersion: v1\nkind: NamespaceList\nitems: []\n",
		"apiVersion: source.extensions.fluxcd.io/v1beta1\nkind: ArtifactGenerator\nmetadata: {name: g}\nstatus: []\n",
		"[{kind: Namespace, nmae: a}]\n",
		"[{kind: Namespace, name: a}, {kind: Namespace, name: a}]\n",
		`{"hello": "world"}`, "{}\n", "inventory\n", "", "# x\n", billionLaughs("status"),
	}
}

// FuzzReadInventory: no -inventory file panics the reader; one it accepts
// holds valid entries, none listed twice, and one it refuses gets a
// message in the tool's words.
func FuzzReadInventory(f *testing.F) {
	for _, s := range inventorySeeds(f) {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := readInventory(data)
		if err != nil {
			if p.entries != nil || err.Error() == "" || goWords.MatchString(err.Error()) {
				t.Fatalf("readInventory() = %v, %q", p.entries, err)
			}
			return
		}
		if p.entries == nil || p.from == "" {
			t.Fatalf("readInventory() = %+v: no entries list or no origin", p)
		}
		seen := map[inventory.ID]bool{}
		for i, e := range p.entries {
			if errs := e.Validate(nil); len(errs) > 0 || seen[e.ID()] {
				t.Fatalf("entry %d %+v: %v, or listed twice", i, e, errs)
			}
			seen[e.ID()] = true
		}
	})
}
