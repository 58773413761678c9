package generator

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"

	"github.com/tenantkit/tenantkit/finalizer"
	"github.com/tenantkit/tenantkit/inventory"
	"github.com/tenantkit/tenantkit/nsmeta"
)

// TestSpecDecodesUpstream: a source-watcher v2.3 manifest's spec decodes
// into Spec strictly (no field unknown), and compiles.
func TestSpecDecodesUpstream(t *testing.T) {
	t.Parallel()
	const manifest = `
serviceAccountName: tenants
pathPattern: "@repo/tenants/{namespace}/modules/{module}"
commonMetadata:
  labels: {my.org.io/provisioner: monorepo}
  annotations: {my.org.io/owner: platform}
sources:
  - {alias: repo, kind: GitRepository, name: monorepo, namespace: flux-system}
artifacts:
  - name: "{module}"
    namespace: "{namespace}"
    inputsFrom: "@repo/tenants/{namespace}/modules/{module}/inputs.yaml"
    revision: "@repo"
    originRevision: "@repo"
    copy:
      - from: "@repo/tenants/{namespace}/modules/{module}/manifests/**"
        to: "@artifact/"
        exclude: ["*.md"]
        strategy: Overwrite
      - from: "@repo/tenants/{namespace}/modules/{module}/extra/**"
        to: "@artifact/extra/"
        optional: true
namespaces:
  strategy: Managed
  prune: true
  metadata:
    fromSource:
      path: "@repo/tenants/{namespace}/namespace-metadata.yaml"
      allowedLabels: {team: "^[a-z]+$"}
      allowedAnnotations: {my.org.io/observability: "^(Enabled|Disabled)$"}
    from:
      - {strategy: Merge, namespace: "*", labels: {tier: bronze}}
`
	var spec Spec
	if err := yaml.UnmarshalStrict([]byte(manifest), &spec); err != nil {
		t.Fatal(err)
	}
	yes := true
	want := Spec{
		ServiceAccountName: "tenants",
		PathPattern:        "@repo/tenants/{namespace}/modules/{module}",
		CommonMetadata:     &nsmeta.Metadata{Labels: map[string]string{"my.org.io/provisioner": "monorepo"}, Annotations: map[string]string{"my.org.io/owner": "platform"}},
		Sources:            []SourceReference{{Alias: "repo", Kind: "GitRepository", Name: "monorepo", Namespace: "flux-system"}},
		Artifacts: []OutputArtifact{{
			Name: "{module}", Namespace: "{namespace}", InputsFrom: "@repo/tenants/{namespace}/modules/{module}/inputs.yaml",
			Revision: "@repo", OriginRevision: "@repo",
			Copy: []CopyOperation{
				{From: "@repo/tenants/{namespace}/modules/{module}/manifests/**", To: "@artifact/", Exclude: []string{"*.md"}, Strategy: "Overwrite"},
				{From: "@repo/tenants/{namespace}/modules/{module}/extra/**", To: "@artifact/extra/", Optional: true},
			},
		}},
		Namespaces: &Namespaces{Strategy: "Managed", Prune: &yes, Metadata: &NamespaceMetadata{
			FromSource: &MetadataFromSource{
				Path:               "@repo/tenants/{namespace}/namespace-metadata.yaml",
				AllowedLabels:      map[string]string{"team": "^[a-z]+$"},
				AllowedAnnotations: map[string]string{"my.org.io/observability": "^(Enabled|Disabled)$"},
			},
			From: []nsmeta.Operation{{Strategy: nsmeta.Merge, Namespace: "*", Metadata: nsmeta.Metadata{Labels: map[string]string{"tier": "bronze"}}}},
		}},
	}
	if diff := cmp.Diff(want, spec); diff != "" {
		t.Errorf("decoded spec (-want +got):\n%s", diff)
	}
	if _, errs := Compile(spec, WithNamespace("flux-system")); len(errs) > 0 {
		t.Errorf("Compile() = %v", errs.ToAggregate())
	}
}

// TestShapesPlanAlike: a spec in source-watcher v2.3's shape and the same
// spec in the seed proposal's shape (every name allowed, rule ^a$ as the
// regular expression and as value.matches('^a$')) plan alike: the same
// namespaces, artifacts, decisions, warnings and next inventory, and the
// same errors but for the text of the rule they quote.
func TestShapesPlanAlike(t *testing.T) {
	t.Parallel()
	ops := []nsmeta.Operation{
		{Strategy: nsmeta.Merge, Namespace: "*", Metadata: nsmeta.Metadata{Labels: map[string]string{"tier": "bronze"}}},
		{Strategy: nsmeta.Override, Namespace: "tenant-a", Metadata: nsmeta.Metadata{Annotations: map[string]string{"example.com/pci": "true"}}},
	}
	seed := testSpec()
	seed.ManagedNamespaces.AllowedNames = []string{"true"}
	seed.ManagedNamespaces.Metadata.FromSource.AllowedLabels = map[string]string{"team": `value.matches('^a$')`}
	seed.ManagedNamespaces.Metadata.FromSource.AllowedAnnotations = map[string]string{"example.com/obs": `value.matches('^(up|down)$')`}
	seed.ManagedNamespaces.Metadata.From = ops
	upstream := testUpstreamSpec()
	upstream.Namespaces.Metadata.FromSource.AllowedLabels = map[string]string{"team": "^a$"}
	upstream.Namespaces.Metadata.FromSource.AllowedAnnotations = map[string]string{"example.com/obs": "^(up|down)$"}
	upstream.Namespaces.Metadata.From = ops
	seed.Artifacts[0].InputsFrom, upstream.Artifacts[0].InputsFrom = "", ""

	file := func(labels, annotations string) string {
		return "apiVersion: source.extensions.fluxcd.io/v1beta1\nkind: NamespaceMetadata\nmetadata:\n  labels: {" + labels + "}\n  annotations: {" + annotations + "}\n"
	}
	fsys := tree(okTenant,
		"tenants/tenant-a/modules/app", "tenants/tenant-a/namespace-metadata.yaml="+file("team: a", "example.com/obs: up"),
		"tenants/tenant-b/modules/app", "tenants/tenant-b/namespace-metadata.yaml="+file("team: b", ""),
		"tenants/tenant-c/modules/app", "tenants/tenant-c/namespace-metadata.yaml="+file("unlisted: x", "example.com/obs: maybe"),
		"tenants/tenant-d/modules/app", "tenants/tenant-d/namespace-metadata.yaml="+file("team: xax", ""))
	previous := []inventory.Entry{nsEntry("tenant-gone"), nsEntry("tenant-ok")}
	plan := func(spec Spec) *Plan {
		// The tracked namespaces live, as this generator applied them.
		live := (&fakeCluster{}).live(previous, map[string]string{GeneratorLabel: testUID}, nil)
		return mustPlan(t, mustCompile(t, spec), sources(fsys), previous, live.cluster())
	}
	ps, pu := plan(seed), plan(upstream)
	if len(pu.Namespaces) != 2 || len(pu.Errors) != 3 || len(pu.Warnings) != 1 {
		t.Fatalf("upstream plan: namespaces %v, errors %v, warnings %q; want tenant-a and tenant-ok, three errors, one warning", pu.Namespaces, pu.Errors.ToAggregate(), pu.Warnings)
	}
	if diff := cmp.Diff(ps, pu, cmpopts.IgnoreUnexported(Plan{}), cmpopts.IgnoreFields(Plan{}, "Errors")); diff != "" {
		t.Errorf("plans differ (-seed +upstream):\n%s", diff)
	}
	if diff := cmp.Diff(ps.Next(nil), pu.Next(nil)); diff != "" {
		t.Errorf("next inventories differ (-seed +upstream):\n%s", diff)
	}
	type fieldErr struct {
		Field string
		Type  field.ErrorType
		Value any
	}
	strip := func(errs field.ErrorList) (out []fieldErr) {
		for _, e := range errs {
			out = append(out, fieldErr{e.Field, e.Type, e.BadValue})
		}
		return out
	}
	if diff := cmp.Diff(strip(ps.Errors), strip(pu.Errors)); diff != "" {
		t.Errorf("errors differ (-seed +upstream):\n%s", diff)
	}
}

// TestUpstreamOwnNamespace: in spec.namespaces an artifact that renders the
// generator's own namespace is generated, and the namespace is left
// unmanaged without an error or a warning, as source-watcher's
// reconcileNamespaces skips it ("Never manage the ArtifactGenerator
// namespace itself, even when explicitly targeted"). In
// spec.managedNamespaces the name policy refuses it (TestRule1Skip).
func TestUpstreamOwnNamespace(t *testing.T) {
	t.Parallel()
	for _, strategy := range []string{"Managed", "Unmanaged"} {
		t.Run(strategy, func(t *testing.T) {
			t.Parallel()
			spec := testUpstreamSpec()
			spec.Namespaces.Strategy = strategy
			spec.Artifacts[0].InputsFrom = ""
			g := mustCompile(t, spec)
			clean := mustPlan(t, g, sources(tree(okTenant)), nil, (&fakeCluster{}).cluster())
			p := mustPlan(t, g, sources(tree(okTenant, "tenants/flux-system/modules/x",
				"tenants/flux-system/namespace-metadata.yaml="+metadataFile("team", "platform"))), nil, (&fakeCluster{}).cluster())
			if p.HasErrors() || !slices.Equal(p.Warnings, clean.Warnings) {
				t.Errorf("errors %v, warnings %q; want none but the clean plan's %q", p.Errors.ToAggregate(), p.Warnings, clean.Warnings)
			}
			if diff := cmp.Diff(clean.Namespaces, p.Namespaces); diff != "" {
				t.Errorf("namespaces (-without +with the generator's namespace):\n%s", diff)
			}
			var got []string
			for _, d := range p.Decisions {
				got = append(got, d.Action.String()+" "+d.Entry.ID().String())
			}
			want := []string{"create ExternalArtifact/flux-system/x", "create ExternalArtifact/tenant-ok/app"}
			if strategy == "Managed" {
				want = append([]string{"create Namespace/tenant-ok"}, want...)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("decisions (-want +got):\n%s", diff)
			}
		})
	}
}

// TestUpstreamProtectedNames: in spec.namespaces the protected names are
// refused as in spec.managedNamespaces, an error naming the directory, and
// their namespaces and artifacts are skipped; source-watcher manages them
// (see the package documentation, "Differences from source-watcher").
func TestUpstreamProtectedNames(t *testing.T) {
	t.Parallel()
	g := mustCompile(t, testUpstreamSpec())
	for _, name := range []string{"default", "kube-node-lease", "kube-public", "kube-system"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			p := mustPlan(t, g, sources(tree(okTenant, "tenants/"+name+"/modules/x")), nil, (&fakeCluster{}).cluster())
			if len(p.Errors) != 1 || !hasError(p.Errors, "spec.artifacts[0].namespace", "must not be protected") {
				t.Errorf("errors %v, want one at spec.artifacts[0].namespace", p.Errors.ToAggregate())
			}
			ds := decisions(p)
			for _, id := range []string{"Namespace/" + name, "ExternalArtifact/" + name + "/x"} {
				if d := ds[id]; d.Action != inventory.Skip {
					t.Errorf("%s: %s, want skipped", id, d)
				}
			}
			if d := ds["ExternalArtifact/tenant-ok/app"]; d.Action != inventory.Create {
				t.Errorf("valid tenant: %s, want created", d)
			}
		})
	}
}

// TestUpstreamSchema translates source-watcher's TestFilterNamespaceMetadata:
// a key listed with a regular expression its value matches is kept, one
// whose value does not match is an error (and its namespace is not built),
// an unlisted key is dropped (with a warning here, silently upstream). The
// expression is matched anywhere in the value, as regexp.MatchString.
func TestUpstreamSchema(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		rules   map[string]string
		labels  string // of the tenant's file
		kept    map[string]string
		errors  []string // fields
		warning string
	}{
		{name: "allowed by .*, other ignored", rules: map[string]string{"allowed": ".*"}, labels: "{allowed: ok, other: ignored}",
			kept: map[string]string{"allowed": "ok"}, warning: `label "other" is not in allowedLabels; dropped`},
		{name: "refused by ^ok$", rules: map[string]string{"allowed": "^ok$"}, labels: "{allowed: nope}",
			errors: []string{"@repo/tenants/tenant-ok/namespace-metadata.yaml:metadata.labels[allowed]"}},
		{name: "only unlisted keys", rules: map[string]string{"allowed": ".*"}, labels: "{other: ignored}",
			kept: map[string]string{}, warning: `label "other" is not in allowedLabels; dropped`},
		{name: "unanchored", rules: map[string]string{"allowed": "o"}, labels: "{allowed: foo}", kept: map[string]string{"allowed": "foo"}},
		{name: "anchored at one end", rules: map[string]string{"allowed": "^o"}, labels: "{allowed: foo}",
			errors: []string{"@repo/tenants/tenant-ok/namespace-metadata.yaml:metadata.labels[allowed]"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			spec := testUpstreamSpec()
			spec.CommonMetadata = nil
			spec.Artifacts[0].InputsFrom = ""
			spec.Namespaces.Metadata.FromSource.AllowedLabels = tt.rules
			g := mustCompile(t, spec)
			file := "apiVersion: source.extensions.fluxcd.io/v1beta1\nkind: NamespaceMetadata\nmetadata:\n  labels: " + tt.labels + "\n"
			p := mustPlan(t, g, sources(tree(okTenant, "tenants/tenant-ok/namespace-metadata.yaml="+file)), nil, (&fakeCluster{}).cluster())
			var fields []string
			for _, e := range p.Errors {
				fields = append(fields, e.Field)
			}
			if diff := cmp.Diff(tt.errors, fields); diff != "" {
				t.Errorf("errors (-want +got):\n%s\n%v", diff, p.Errors.ToAggregate())
			}
			if tt.errors != nil {
				if len(p.Namespaces) != 0 {
					t.Errorf("namespaces %v, want none", p.Namespaces)
				}
				return
			}
			if len(p.Namespaces) != 1 {
				t.Fatalf("namespaces %v, want tenant-ok", p.Namespaces)
			}
			got := p.Namespaces[0].Labels
			delete(got, GeneratorLabel)
			if diff := cmp.Diff(tt.kept, got); diff != "" {
				t.Errorf("labels (-want +got):\n%s", diff)
			}
			if tt.warning != "" && (len(p.Warnings) != 1 || !strings.Contains(p.Warnings[0], tt.warning)) {
				t.Errorf("warnings %q, want one saying %q", p.Warnings, tt.warning)
			}
		})
	}
}

// TestUpstreamNamespaceMetadataFromSource translates source-watcher's
// TestNamespaceMetadataFromSource: commonMetadata, then the file through
// the regular expressions, then the from operations, then the generator's
// label; a value the expression refuses, a file of another kind and a file
// that sets the external finalizer (even through a rule that allows it)
// are errors of the namespace.
func TestUpstreamNamespaceMetadataFromSource(t *testing.T) {
	t.Parallel()
	spec := testUpstreamSpec()
	spec.CommonMetadata = &nsmeta.Metadata{Labels: map[string]string{"common": "base"}}
	fsrc := spec.Namespaces.Metadata.FromSource
	fsrc.AllowedLabels = map[string]string{"observability": "^(enabled|disabled)$"}
	fsrc.AllowedAnnotations = map[string]string{"team": ".*"}
	spec.Namespaces.Metadata.From = []nsmeta.Operation{{Strategy: nsmeta.Override, Namespace: "*",
		Metadata: nsmeta.Metadata{Labels: map[string]string{"common": "overridden"}, Annotations: map[string]string{"owner": "platform"}}}}
	const path = "tenants/tenant-a/namespace-metadata.yaml"
	good := "apiVersion: source.extensions.fluxcd.io/v1beta1\nkind: NamespaceMetadata\nmetadata:\n  labels:\n    observability: enabled\n    forbidden: nope\n  annotations:\n    team: platform\n"
	plan := func(t *testing.T, spec Spec, file string) *Plan {
		t.Helper()
		return mustPlan(t, mustCompile(t, spec), sources(tree("tenants/tenant-a/modules/app", path+"="+file)), nil, (&fakeCluster{}).cluster())
	}

	p := plan(t, spec, good)
	if p.HasErrors() || len(p.Namespaces) != 1 {
		t.Fatalf("errors %v, namespaces %v", p.Errors.ToAggregate(), p.Namespaces)
	}
	ns := p.Namespaces[0]
	wantLabels := map[string]string{"common": "overridden", "observability": "enabled", GeneratorLabel: testUID}
	wantAnnotations := map[string]string{"team": "platform", "owner": "platform"}
	if diff := cmp.Diff(wantLabels, ns.Labels); diff != "" {
		t.Errorf("labels (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(wantAnnotations, ns.Annotations); diff != "" {
		t.Errorf("annotations (-want +got):\n%s", diff)
	}

	refusing := testUpstreamSpec()
	refusing.Namespaces.Metadata = &NamespaceMetadata{FromSource: &MetadataFromSource{Path: fsrc.Path,
		AllowedLabels: map[string]string{"observability": "^disabled$"}, AllowedAnnotations: fsrc.AllowedAnnotations}}
	allowingFinalizer := testUpstreamSpec()
	allowingFinalizer.Namespaces.Metadata = &NamespaceMetadata{FromSource: &MetadataFromSource{Path: fsrc.Path,
		AllowedAnnotations: map[string]string{finalizer.Annotation: ".*"}}}
	for _, tt := range []struct {
		name  string
		spec  Spec
		file  string
		field string
	}{
		{name: "value refused", spec: refusing, file: good, field: "@repo/" + path + ":metadata.labels[observability]"},
		{name: "another kind", spec: spec, file: "apiVersion: source.extensions.fluxcd.io/v1beta1\nkind: Wrong\n", field: "@repo/" + path + ":kind"},
		{name: "external finalizer", spec: allowingFinalizer,
			file:  "apiVersion: source.extensions.fluxcd.io/v1beta1\nkind: NamespaceMetadata\nmetadata:\n  annotations:\n    " + finalizer.Annotation + ": fluxcd.controlplane.io/v1/ResourceSet//tenants/uid\n",
			field: "@repo/" + path + ":metadata.annotations[" + finalizer.Annotation + "]"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := plan(t, tt.spec, tt.file)
			if len(p.Errors) != 1 || p.Errors[0].Field != tt.field || len(p.Namespaces) != 0 {
				t.Errorf("errors %v, namespaces %v; want one error at %s and no namespace", p.Errors.ToAggregate(), p.Namespaces, tt.field)
			}
			if d := decisions(p)["ExternalArtifact/tenant-a/app"]; d.Action != inventory.Skip {
				t.Errorf("artifact: %s, want skipped", d)
			}
		})
	}
}

// TestCopyOptional: a copy that selects no file is an error of its
// artifact, unless it is optional; then it copies nothing, and the other
// copies still do.
func TestCopyOptional(t *testing.T) {
	t.Parallel()
	extra := CopyOperation{From: "@repo/tenants/{namespace}/modules/{module}/extra/**", To: "@artifact/extra/"}
	for _, tt := range []struct {
		name     string
		optional bool
		files    []string // besides the module's manifest
		want     []string // the artifact's files; nil when it fails
	}{
		{name: "required, nothing selected"},
		{name: "optional, nothing selected", optional: true, want: []string{"deploy.yaml"}},
		{name: "required, selected", files: []string{okTenant + "/extra/a.yaml=a"}, want: []string{"deploy.yaml", "extra/a.yaml"}},
		{name: "optional, selected", optional: true, files: []string{okTenant + "/extra/a.yaml=a"}, want: []string{"deploy.yaml", "extra/a.yaml"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			spec := testUpstreamSpec()
			op := extra
			op.Optional = tt.optional
			spec.Artifacts[0].Copy = append(spec.Artifacts[0].Copy, op)
			p := mustPlan(t, mustCompile(t, spec), sources(tree(append(tt.files, okTenant)...)), nil, (&fakeCluster{}).cluster())
			if tt.want == nil {
				if !hasError(p.Errors, "spec.artifacts[0].copy[1].from", "selects no file") || len(p.Artifacts) != 0 {
					t.Errorf("errors %v, artifacts %v; want the copy's error and no artifact", p.Errors.ToAggregate(), p.Artifacts)
				}
				return
			}
			if p.HasErrors() || len(p.Artifacts) != 1 {
				t.Fatalf("errors %v, artifacts %v", p.Errors.ToAggregate(), p.Artifacts)
			}
			var got []string
			for _, f := range p.Artifacts[0].Files {
				got = append(got, f.Path)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("files (-want +got):\n%s", diff)
			}
		})
	}
}
