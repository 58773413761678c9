package generator

import (
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/tenantkit/tenantkit/finalizer"
	"github.com/tenantkit/tenantkit/nsmeta"
)

// TestCompileErrors: every spec problem is a field error under "spec.", all
// of them at once.
func TestCompileErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		spec   func(*Spec)
		opts   []Option
		fields []string // field paths, sorted
	}{
		{name: "valid"},
		{name: "empty spec", spec: func(s *Spec) { *s = Spec{} }, fields: []string{"spec.artifacts", "spec.sources"}},
		{name: "no pattern: captures are errors", spec: func(s *Spec) { s.PathPattern = "" },
			fields: []string{"spec.artifacts[0].copy[0].from", "spec.artifacts[0].inputsFrom", "spec.artifacts[0].name", "spec.artifacts[0].namespace", "spec.managedNamespaces.metadata.fromSource.path"}},
		{name: "no pattern: literal artifacts", spec: func(s *Spec) {
			s.PathPattern = ""
			s.Artifacts[0] = OutputArtifact{Name: "static-1", Namespace: "tenant-a", InputsFrom: "@repo/static/inputs.yaml",
				Copy: []CopyOperation{{From: "@repo/static/manifests/**", To: "@artifact/"}}}
			s.ManagedNamespaces.Metadata.FromSource.Path = "@repo/static/namespace-metadata.yaml"
		}},
		{name: "pattern does not parse", spec: func(s *Spec) { s.PathPattern = "@repo/tenants/{namespace" }, fields: []string{"spec.pathPattern"}},
		{name: "pattern with a trailing slash", spec: func(s *Spec) { s.PathPattern = "@repo/tenants/{namespace}/" }, fields: []string{"spec.pathPattern"}},
		{name: "pattern alias not declared", spec: func(s *Spec) { s.Sources[0].Alias = "other" },
			fields: []string{"spec.artifacts[0].copy[0].from", "spec.artifacts[0].inputsFrom", "spec.managedNamespaces.metadata.fromSource.path", "spec.pathPattern"}},
		{name: "duplicate alias", spec: func(s *Spec) { s.Sources = append(s.Sources, s.Sources[0]) }, fields: []string{"spec.sources[1].alias"}},
		{name: "bad alias", spec: func(s *Spec) { s.Sources = append(s.Sources, SourceReference{Alias: "Bad!"}) }, fields: []string{"spec.sources[1].alias"}},
		{name: "unknown capture", spec: func(s *Spec) { s.Artifacts[0].Name = "{app}" }, fields: []string{"spec.artifacts[0].name"}},
		{name: "missing name and copy", spec: func(s *Spec) { s.Artifacts[0].Name, s.Artifacts[0].Copy = "", nil },
			fields: []string{"spec.artifacts[0].copy", "spec.artifacts[0].name"}},
		{name: "copy to another alias", spec: func(s *Spec) { s.Artifacts[0].Copy[0].To = "@repo/x" }, fields: []string{"spec.artifacts[0].copy[0].to"}},
		{name: "copy to outside", spec: func(s *Spec) { s.Artifacts[0].Copy[0].To = "@artifact/../x" }, fields: []string{"spec.artifacts[0].copy[0].to"}},
		{name: "bad strategy", spec: func(s *Spec) { s.Artifacts[0].Copy[0].Strategy = "Merge" }, fields: []string{"spec.artifacts[0].copy[0].strategy"}},
		{name: "bad exclude", spec: func(s *Spec) { s.Artifacts[0].Copy[0].Exclude = []string{"[a"} }, fields: []string{"spec.artifacts[0].copy[0].exclude[0]"}},
		{name: "bad originRevision", spec: func(s *Spec) { s.Artifacts[0].OriginRevision = "@other" }, fields: []string{"spec.artifacts[0].originRevision"}},
		{name: "no namespace anywhere", spec: func(s *Spec) { s.Artifacts[0].Namespace = "" }, opts: []Option{WithNamespace("")},
			fields: []string{"spec.artifacts[0].namespace"}},
		{name: "allowedNames empty, prune missing", spec: func(s *Spec) { s.ManagedNamespaces.AllowedNames, s.ManagedNamespaces.Prune = nil, nil },
			fields: []string{"spec.managedNamespaces.allowedNames", "spec.managedNamespaces.prune"}},
		{name: "allowedNames does not compile", spec: func(s *Spec) { s.ManagedNamespaces.AllowedNames = []string{"ns +"} },
			fields: []string{"spec.managedNamespaces.allowedNames[0]"}},
		{name: "schema rule does not compile", spec: func(s *Spec) { s.ManagedNamespaces.Metadata.FromSource.AllowedLabels["team"] = "value +" },
			fields: []string{"spec.managedNamespaces.metadata.fromSource.allowedLabels[team]"}},
		{name: "operation without strategy", spec: func(s *Spec) {
			s.ManagedNamespaces.Metadata.From = []nsmeta.Operation{{Namespace: "*"}}
		}, fields: []string{"spec.managedNamespaces.metadata.from[0].strategy"}},
		{name: "bad common label", spec: func(s *Spec) { s.CommonMetadata.Labels["bad key!"] = "x" }, fields: []string{"spec.commonMetadata.labels"}},
		{name: "no service account", spec: func(s *Spec) { s.ServiceAccountName = "" }, fields: []string{"spec.serviceAccountName"}},
		{name: "default service account", spec: func(s *Spec) { s.ServiceAccountName = "" }, opts: []Option{WithDefaultServiceAccount("flux-operator")}},
		{name: "bad options", opts: []Option{WithMaxDeletions(-1), WithUID("not a label value!"), WithNamespace("Flux_System")},
			fields: []string{"WithMaxDeletions", "WithNamespace", "WithUID"}},
		{name: "concurrency zero", opts: []Option{WithConcurrency(0)}, fields: []string{"WithConcurrency"}},
		{name: "concurrency negative", opts: []Option{WithConcurrency(-2)}, fields: []string{"WithConcurrency"}},
		{name: "concurrency one", opts: []Option{WithConcurrency(1)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			spec := testSpec()
			if tt.spec != nil {
				tt.spec(&spec)
			}
			g, errs := Compile(spec, append([]Option{WithNamespace("flux-system")}, tt.opts...)...)
			var got []string
			for _, e := range errs {
				got = append(got, trimKey(e))
			}
			got = slices.Compact(got)
			if !slices.Equal(got, tt.fields) {
				t.Errorf("error fields %q, want %q; errors: %v", got, tt.fields, errs.ToAggregate())
			}
			if (g == nil) != (len(errs) > 0) {
				t.Errorf("Compile() = %v, %v", g, errs)
			}
			if !slices.IsSortedFunc(errs, func(a, b *field.Error) int { return compareStrings(a.Field, b.Field) }) {
				t.Errorf("errors are not sorted: %v", errs)
			}
		})
	}
}

// trimKey drops a map key from a field path that nsmeta reports per key of
// commonMetadata, so that the table can name the map.
func trimKey(e *field.Error) string {
	if e.Field == "spec.commonMetadata.labels[bad key!]" {
		return "spec.commonMetadata.labels"
	}
	return e.Field
}

func compareStrings(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// TestCompileCopies: the generator shares nothing with the caller's spec.
func TestCompileCopies(t *testing.T) {
	t.Parallel()
	spec := testSpec()
	g := mustCompile(t, spec)
	spec.CommonMetadata.Labels["my.org.io/provisioner"] = "changed"
	p := mustPlan(t, g, sources(tree(okTenant)), nil, (&fakeCluster{}).cluster())
	if got := p.Artifacts[0].Labels["my.org.io/provisioner"]; got != "monorepo" {
		t.Errorf("label %q: the generator shares the caller's map", got)
	}
}

// TestCompileRefusesExternalFinalizer: the generator's own desired metadata
// never sets finalizer.Annotation, whichever step would set it, so that
// whoever writes the spec cannot make the generator hand a namespace off to
// itself. The error is a Forbidden one at that step's field, keyed by
// finalizer.Annotation: nsmeta, which imports no sibling but cel, keeps its
// own copy of the key, and this also checks that the two are equal.
func TestCompileRefusesExternalFinalizer(t *testing.T) {
	t.Parallel()
	ann := func() map[string]string { return map[string]string{finalizer.Annotation: finalizer.Self} }
	key := ".annotations[" + finalizer.Annotation + "]"
	tests := []struct {
		name  string
		spec  func(*Spec)
		opts  []Option
		field string
	}{
		{name: "commonMetadata", spec: func(s *Spec) { s.CommonMetadata.Annotations = ann() }, field: "spec.commonMetadata" + key},
		{name: "a from operation", spec: func(s *Spec) {
			s.ManagedNamespaces.Metadata.From = []nsmeta.Operation{
				{Strategy: nsmeta.Merge, Namespace: "*", Metadata: nsmeta.Metadata{Labels: map[string]string{"tier": "bronze"}}},
				{Strategy: nsmeta.Override, Namespace: "tenant-a", Metadata: nsmeta.Metadata{Annotations: ann()}},
			}
		}, field: "spec.managedNamespaces.metadata.from[1]" + key},
		{name: "WithFinalMetadata", opts: []Option{WithFinalMetadata(nil, ann())}, field: "metadata" + key},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			spec := testSpec()
			if tt.spec != nil {
				tt.spec(&spec)
			}
			g, errs := Compile(spec, append([]Option{WithNamespace("flux-system")}, tt.opts...)...)
			if g != nil || len(errs) != 1 || errs[0].Type != field.ErrorTypeForbidden || errs[0].Field != tt.field {
				t.Errorf("Compile() = %v, %v; want one Forbidden error at %s", g, errs.ToAggregate(), tt.field)
			}
		})
	}
}

// TestPlanRefusesExternalFinalizerFromFile: a tenant's NamespaceMetadata
// file that sets finalizer.Annotation, even through a schema that allows
// it, is an error at the key in the file, and its namespace is not built.
func TestPlanRefusesExternalFinalizerFromFile(t *testing.T) {
	t.Parallel()
	spec := testSpec()
	spec.ManagedNamespaces.Metadata.FromSource.AllowedAnnotations = map[string]string{finalizer.Annotation: "true"}
	g := mustCompile(t, spec)
	file := "tenants/tenant-a/namespace-metadata.yaml"
	fsys := tree("tenants/tenant-a/modules/app", "tenants/tenant-ok/modules/app",
		file+"=apiVersion: source.extensions.fluxcd.io/v1beta1\nkind: NamespaceMetadata\nmetadata:\n  annotations:\n    "+finalizer.Annotation+": self\n")
	p := mustPlan(t, g, sources(fsys), nil, (&fakeCluster{}).cluster())
	want := "@repo/" + file + ":metadata.annotations[" + finalizer.Annotation + "]"
	if len(p.Errors) != 1 || p.Errors[0].Type != field.ErrorTypeForbidden || p.Errors[0].Field != want {
		t.Errorf("errors %v, want one Forbidden error at %s", p.Errors.ToAggregate(), want)
	}
	if len(p.Namespaces) != 1 || p.Namespaces[0].Name != "tenant-ok" {
		t.Errorf("namespaces %v, want only tenant-ok", p.Namespaces)
	}
}
