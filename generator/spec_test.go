package generator

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/yaml"

	"github.com/tenantkit/tenantkit/finalizer"
	"github.com/tenantkit/tenantkit/inventory"
	"github.com/tenantkit/tenantkit/nsmeta"
)

// TestSpecDecodesUpstream: a released source-watcher v2.3 manifest's spec
// decodes into Spec strictly (no field unknown), and compiles.
// interop/sourcewatcher compares every field with the released types.
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
managedNamespaces:
  allowedNames: ["ns.startsWith('tenant-')"]
  prune: true
  metadata:
    fromSource:
      path: "@repo/tenants/{namespace}/namespace-metadata.yaml"
      allowedLabels: {team: "value.matches('^[a-z]+$')"}
      allowedAnnotations: {my.org.io/observability: "value in ['Enabled', 'Disabled']"}
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
		ManagedNamespaces: &ManagedNamespaces{AllowedNames: []string{"ns.startsWith('tenant-')"}, Prune: &yes, Metadata: &NamespaceMetadata{
			FromSource: &MetadataFromSource{
				Path:               "@repo/tenants/{namespace}/namespace-metadata.yaml",
				AllowedLabels:      map[string]string{"team": "value.matches('^[a-z]+$')"},
				AllowedAnnotations: map[string]string{"my.org.io/observability": "value in ['Enabled', 'Disabled']"},
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

// releasedSpec is testSpec that allows every name, as upstream's tests do.
func releasedSpec() Spec {
	s := testSpec()
	s.ManagedNamespaces.AllowedNames = []string{"true"}
	return s
}

// TestProtectedNames: released source-watcher always refuses default,
// kube-system, kube-public and flux-system, whatever allowedNames say and
// whatever the generator's own namespace; tenantkit refuses them too, and
// also kube-node-lease and the generator's own namespace, which upstream
// would manage (docs/differences.md). A refused name is an error naming the
// directory; its namespace and artifacts are skipped, the other tenants
// proceed.
func TestProtectedNames(t *testing.T) {
	t.Parallel()
	g := mustCompile(t, releasedSpec(), WithNamespace("platform"))
	for _, tt := range []struct {
		name     string
		upstream bool // upstream refuses it too
	}{
		{name: "default", upstream: true},
		{name: "kube-system", upstream: true},
		{name: "kube-public", upstream: true},
		{name: "flux-system", upstream: true},
		{name: "kube-node-lease"},
		{name: "platform"}, // the generator's own
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := mustPlan(t, g, sources(tree(okTenant, "tenants/"+tt.name+"/modules/x")), nil, (&fakeCluster{}).cluster())
			if len(p.Errors) != 1 || !hasError(p.Errors, "spec.artifacts[0].namespace", "must not be protected") {
				t.Errorf("errors %v, want one at spec.artifacts[0].namespace", p.Errors.ToAggregate())
			}
			ds := decisions(p)
			for _, id := range []string{"Namespace/" + tt.name, "ExternalArtifact/" + tt.name + "/x"} {
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

// TestUpstreamSchema translates source-watcher's TestFilterNamespaceMetadata
// (its regular expressions r as the CEL rules value.matches(r)): a key
// listed with a rule its value passes is kept, one whose value does not is
// an error (and its namespace is not built), an unlisted key is dropped
// (with a warning here, silently upstream).
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
		{name: "allowed by .*, other ignored", rules: map[string]string{"allowed": "value.matches('.*')"}, labels: "{allowed: ok, other: ignored}",
			kept: map[string]string{"allowed": "ok"}, warning: `label "other" is not in allowedLabels; dropped`},
		{name: "refused by ^ok$", rules: map[string]string{"allowed": "value.matches('^ok$')"}, labels: "{allowed: nope}",
			errors: []string{"@repo/tenants/tenant-ok/namespace-metadata.yaml:metadata.labels[allowed]"}},
		{name: "only unlisted keys", rules: map[string]string{"allowed": "value.matches('.*')"}, labels: "{other: ignored}",
			kept: map[string]string{}, warning: `label "other" is not in allowedLabels; dropped`},
		{name: "unanchored", rules: map[string]string{"allowed": "value.matches('o')"}, labels: "{allowed: foo}", kept: map[string]string{"allowed": "foo"}},
		{name: "anchored at one end", rules: map[string]string{"allowed": "value.matches('^o')"}, labels: "{allowed: foo}",
			errors: []string{"@repo/tenants/tenant-ok/namespace-metadata.yaml:metadata.labels[allowed]"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			spec := releasedSpec()
			spec.CommonMetadata = nil
			spec.Artifacts[0].InputsFrom = ""
			spec.ManagedNamespaces.Metadata.FromSource.AllowedLabels = tt.rules
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
// the rules, then the from operations, then the generator's
// label; a value the expression refuses, a file of another kind and a file
// that sets the external finalizer (even through a rule that allows it)
// are errors of the namespace.
func TestUpstreamNamespaceMetadataFromSource(t *testing.T) {
	t.Parallel()
	spec := releasedSpec()
	spec.CommonMetadata = &nsmeta.Metadata{Labels: map[string]string{"common": "base"}}
	fsrc := spec.ManagedNamespaces.Metadata.FromSource
	fsrc.AllowedLabels = map[string]string{"observability": "value.matches('^(enabled|disabled)$')"}
	fsrc.AllowedAnnotations = map[string]string{"team": "true"}
	spec.ManagedNamespaces.Metadata.From = []nsmeta.Operation{{Strategy: nsmeta.Override, Namespace: "*",
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

	refusing := releasedSpec()
	refusing.ManagedNamespaces.Metadata = &NamespaceMetadata{FromSource: &MetadataFromSource{Path: fsrc.Path,
		AllowedLabels: map[string]string{"observability": "value == 'disabled'"}, AllowedAnnotations: fsrc.AllowedAnnotations}}
	allowingFinalizer := releasedSpec()
	allowingFinalizer.ManagedNamespaces.Metadata = &NamespaceMetadata{FromSource: &MetadataFromSource{Path: fsrc.Path,
		AllowedAnnotations: map[string]string{finalizer.Annotation: "true"}}}
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
			spec := releasedSpec()
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
