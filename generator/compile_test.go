package generator

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/tenantkit/tenantkit/finalizer"
	"github.com/tenantkit/tenantkit/inventory"
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
		{name: "bad alias", spec: func(s *Spec) {
			s.Sources = append(s.Sources, SourceReference{Alias: "Bad!", Kind: "GitRepository", Name: "x"})
		}, fields: []string{"spec.sources[1].alias"}},
		{name: "unknown capture", spec: func(s *Spec) { s.Artifacts[0].Name = "{app}" }, fields: []string{"spec.artifacts[0].name"}},
		{name: "missing name and copy", spec: func(s *Spec) { s.Artifacts[0].Name, s.Artifacts[0].Copy = "", nil },
			fields: []string{"spec.artifacts[0].copy", "spec.artifacts[0].name"}},
		{name: "copy to another alias", spec: func(s *Spec) { s.Artifacts[0].Copy[0].To = "@repo/x" }, fields: []string{"spec.artifacts[0].copy[0].to"}},
		{name: "copy to outside", spec: func(s *Spec) { s.Artifacts[0].Copy[0].To = "@artifact/../x" }, fields: []string{"spec.artifacts[0].copy[0].to"}},
		{name: "bad strategy", spec: func(s *Spec) { s.Artifacts[0].Copy[0].Strategy = "merge" }, fields: []string{"spec.artifacts[0].copy[0].strategy"}},
		{name: "to with a capture", spec: func(s *Spec) { s.Artifacts[0].Copy[0].To = "@artifact/{namespace}/{module}/" }},
		{name: "to with an unknown capture", spec: func(s *Spec) { s.Artifacts[0].Copy[0].To = "@artifact/{app}/" },
			fields: []string{"spec.artifacts[0].copy[0].to"}},
		{name: "to with a capture and a dot-dot", spec: func(s *Spec) { s.Artifacts[0].Copy[0].To = "@artifact/{module}/../x" },
			fields: []string{"spec.artifacts[0].copy[0].to"}},
		{name: "to with an unclosed brace", spec: func(s *Spec) { s.Artifacts[0].Copy[0].To = "@artifact/{module/" },
			fields: []string{"spec.artifacts[0].copy[0].to"}},
		{name: "inputsFrom the artifact with a capture", spec: func(s *Spec) { s.Artifacts[0].InputsFrom = "@artifact/{module}.yaml" }},
		{name: "inputsFrom the artifact, an unknown capture", spec: func(s *Spec) { s.Artifacts[0].InputsFrom = "@artifact/{app}.yaml" },
			fields: []string{"spec.artifacts[0].inputsFrom"}},
		{name: "inputsFrom the artifact's root", spec: func(s *Spec) { s.Artifacts[0].InputsFrom = "@artifact/" },
			fields: []string{"spec.artifacts[0].inputsFrom"}},
		{name: "inputsFrom the artifact, a dot-dot", spec: func(s *Spec) { s.Artifacts[0].InputsFrom = "@artifact/../inputs.yaml" },
			fields: []string{"spec.artifacts[0].inputsFrom"}},
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
		{name: "no finalizer kind", opts: []Option{WithFinalizerKinds()}, fields: []string{"WithFinalizerKinds"}},
		{name: "bad finalizer kind", opts: []Option{WithFinalizerKinds(schema.GroupKind{Group: "fluxcd.controlplane.io", Kind: "Resource_Set"})},
			fields: []string{"WithFinalizerKinds[0].kind"}},
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

// TestCompileRules: Compile refuses what released source-watcher v2.3's
// CRD refuses (its validation markers and rules, one case each; the same
// cases run against the released types in interop/sourcewatcher) and what
// tenantkit adds, each error at its field path and with its type. The
// commonMetadata cases translate source-watcher's
// TestArtifactGenerator_CommonMetadataAnnotationsValidation (its CRD rule).
func TestCompileRules(t *testing.T) {
	t.Parallel()
	type fieldErr struct {
		Field string
		Type  field.ErrorType
	}
	const (
		invalid      = field.ErrorTypeInvalid
		required     = field.ErrorTypeRequired
		forbidden    = field.ErrorTypeForbidden
		notSupported = field.ErrorTypeNotSupported
		tooLong      = field.ErrorTypeTooLong
		tooMany      = field.ErrorTypeTooMany
	)
	annotate := func(key string) func(*Spec) {
		return func(s *Spec) { s.CommonMetadata.Annotations = map[string]string{key: "disabled"} }
	}
	static := func(s *Spec) {
		s.PathPattern, s.ManagedNamespaces = "", nil
		s.Artifacts[0].Name, s.Artifacts[0].Namespace, s.Artifacts[0].InputsFrom = "app", "tenant-a", ""
		s.Artifacts[0].Copy[0].From = "@repo/app/**"
	}
	long := strings.Repeat("a", 1025)
	tests := []struct {
		name   string
		spec   func(*Spec)
		opts   []Option
		want   []fieldErr
		detail string // in the detail of the first error
	}{
		{name: "valid"},
		{name: "valid without namespace management", spec: func(s *Spec) { s.ManagedNamespaces, s.ServiceAccountName = nil, "" }},
		{name: "valid static", spec: static},

		// spec.sources
		{name: "sources: none", spec: func(s *Spec) { s.Sources = nil },
			want: []fieldErr{{"spec.artifacts[0].copy[0].from", invalid}, {"spec.artifacts[0].inputsFrom", invalid},
				{"spec.managedNamespaces.metadata.fromSource.path", invalid}, {"spec.pathPattern", invalid}, {"spec.sources", required}}},
		{name: "sources: 1001", spec: func(s *Spec) {
			for i := range 1000 {
				s.Sources = append(s.Sources, SourceReference{Alias: "s" + strconv.Itoa(i), Kind: "GitRepository", Name: "x"})
			}
		}, want: []fieldErr{{"spec.sources", tooMany}}},
		{name: "sources: alias pattern", spec: func(s *Spec) {
			s.Sources = append(s.Sources, SourceReference{Alias: "Bad", Kind: "GitRepository", Name: "x"})
		},
			want: []fieldErr{{"spec.sources[1].alias", invalid}}},
		{name: "sources: alias too long", spec: func(s *Spec) {
			s.Sources = append(s.Sources, SourceReference{Alias: strings.Repeat("a", 64), Kind: "GitRepository", Name: "x"})
		}, want: []fieldErr{{"spec.sources[1].alias", tooLong}}},
		{name: "sources: alias twice", spec: func(s *Spec) { s.Sources = append(s.Sources, s.Sources[0]) },
			want: []fieldErr{{"spec.sources[1].alias", field.ErrorTypeDuplicate}}},
		{name: "sources: name missing", spec: func(s *Spec) { s.Sources[0].Name = "" },
			want: []fieldErr{{"spec.sources[0].name", required}}},
		{name: "sources: name pattern", spec: func(s *Spec) { s.Sources[0].Name = "mono.repo" },
			want: []fieldErr{{"spec.sources[0].name", invalid}}},
		{name: "sources: name too long", spec: func(s *Spec) { s.Sources[0].Name = strings.Repeat("a", 254) },
			want: []fieldErr{{"spec.sources[0].name", tooLong}}},
		{name: "sources: namespace pattern", spec: func(s *Spec) { s.Sources[0].Namespace = "Flux" },
			want: []fieldErr{{"spec.sources[0].namespace", invalid}}},
		{name: "sources: kind missing", spec: func(s *Spec) { s.Sources[0].Kind = "" },
			want: []fieldErr{{"spec.sources[0].kind", required}}},
		{name: "sources: kind unknown", spec: func(s *Spec) { s.Sources[0].Kind = "gitrepository" },
			want: []fieldErr{{"spec.sources[0].kind", notSupported}}, detail: `"Bucket", "ExternalArtifact", "GitRepository", "HelmChart", "OCIRepository"`},

		// spec.serviceAccountName and spec.pathPattern
		{name: "serviceAccountName pattern", spec: func(s *Spec) { s.ServiceAccountName = "Flux_Operator" },
			want: []fieldErr{{"spec.serviceAccountName", invalid}}},
		{name: "serviceAccountName too long", spec: func(s *Spec) { s.ServiceAccountName = strings.Repeat("a", 64) },
			want: []fieldErr{{"spec.serviceAccountName", invalid}}},
		{name: "pathPattern without alias", spec: func(s *Spec) { s.PathPattern = "tenants/{namespace}" },
			want: []fieldErr{{"spec.pathPattern", invalid}}},
		{name: "pathPattern too long", spec: func(s *Spec) { s.PathPattern = "@repo/" + long },
			want: []fieldErr{{"spec.pathPattern", invalid}}},

		// spec.artifacts
		{name: "artifacts: none", spec: func(s *Spec) { s.Artifacts = nil },
			want: []fieldErr{{"spec.artifacts", required}}},
		{name: "artifacts: 1001", spec: func(s *Spec) {
			for range 1000 {
				s.Artifacts = append(s.Artifacts, s.Artifacts[0])
			}
		}, want: []fieldErr{{"spec.artifacts", tooMany}}},
		{name: "artifacts: name too long", spec: func(s *Spec) { s.Artifacts[0].Name = long },
			want: []fieldErr{{"spec.artifacts[0].name", tooLong}}},
		{name: "artifacts: namespace too long", spec: func(s *Spec) { s.Artifacts[0].Namespace = long },
			want: []fieldErr{{"spec.artifacts[0].namespace", tooLong}}},
		{name: "static: name not an object name", spec: func(s *Spec) { static(s); s.Artifacts[0].Name = "App_1" },
			want: []fieldErr{{"spec.artifacts[0].name", invalid}}},
		{name: "static: namespace not a namespace name", spec: func(s *Spec) { static(s); s.Artifacts[0].Namespace = "tenant.a" },
			want: []fieldErr{{"spec.artifacts[0].namespace", invalid}}},
		{name: "inputsFrom too long", spec: func(s *Spec) { s.Artifacts[0].InputsFrom = "@repo/" + long },
			want: []fieldErr{{"spec.artifacts[0].inputsFrom", tooLong}}},
		{name: "inputsFrom the artifact", spec: func(s *Spec) { s.Artifacts[0].InputsFrom = "@artifact/{module}/inputs.yaml" }},
		{name: "revision", spec: func(s *Spec) { s.Artifacts[0].Revision = "@repo" }},
		{name: "revision of an undeclared alias", spec: func(s *Spec) { s.Artifacts[0].Revision = "@other" },
			want: []fieldErr{{"spec.artifacts[0].revision", invalid}}},
		{name: "revision without @", spec: func(s *Spec) { s.Artifacts[0].Revision = "repo" },
			want: []fieldErr{{"spec.artifacts[0].revision", invalid}}},
		{name: "revision too long", spec: func(s *Spec) { s.Artifacts[0].Revision = "@" + strings.Repeat("a", 64) },
			want: []fieldErr{{"spec.artifacts[0].revision", invalid}, {"spec.artifacts[0].revision", tooLong}}},
		{name: "originRevision of an undeclared alias", spec: func(s *Spec) { s.Artifacts[0].OriginRevision = "@other" },
			want: []fieldErr{{"spec.artifacts[0].originRevision", invalid}}},
		{name: "copy: none", spec: func(s *Spec) { s.Artifacts[0].Copy = nil },
			want: []fieldErr{{"spec.artifacts[0].copy", required}}},
		{name: "copy: from too long", spec: func(s *Spec) { s.Artifacts[0].Copy[0].From = "@repo/" + long },
			want: []fieldErr{{"spec.artifacts[0].copy[0].from", tooLong}}},
		{name: "copy: to with ..", spec: func(s *Spec) { s.Artifacts[0].Copy[0].To = "@artifact/../x" },
			want: []fieldErr{{"spec.artifacts[0].copy[0].to", invalid}}},
		{name: "copy: to too long", spec: func(s *Spec) { s.Artifacts[0].Copy[0].To = "@artifact/" + long },
			want: []fieldErr{{"spec.artifacts[0].copy[0].to", tooLong}}},
		{name: "copy: 101 excludes", spec: func(s *Spec) {
			for i := range 100 {
				s.Artifacts[0].Copy[0].Exclude = append(s.Artifacts[0].Copy[0].Exclude, "x"+strconv.Itoa(i))
			}
		}, want: []fieldErr{{"spec.artifacts[0].copy[0].exclude", tooMany}}},
		{name: "copy: exclude too long", spec: func(s *Spec) { s.Artifacts[0].Copy[0].Exclude[0] = long },
			want: []fieldErr{{"spec.artifacts[0].copy[0].exclude[0]", tooLong}}},
		{name: "copy strategy Overwrite", spec: func(s *Spec) { s.Artifacts[0].Copy[0].Strategy = "Overwrite" }},
		{name: "copy strategy Merge", spec: func(s *Spec) { s.Artifacts[0].Copy[0].Strategy = "Merge" }},
		{name: "copy strategy Extract", spec: func(s *Spec) { s.Artifacts[0].Copy[0].Strategy = "Extract" }},
		{name: "copy strategy unknown", spec: func(s *Spec) { s.Artifacts[0].Copy[0].Strategy = "overwrite" },
			want: []fieldErr{{"spec.artifacts[0].copy[0].strategy", notSupported}}, detail: `supported values: "Overwrite", "Merge", "Extract"`},
		{name: "copy optional", spec: func(s *Spec) { s.Artifacts[0].Copy[0].Optional = true }},

		// spec.managedNamespaces
		{name: "allowedNames: none", spec: func(s *Spec) { s.ManagedNamespaces.AllowedNames = nil },
			want: []fieldErr{{"spec.managedNamespaces.allowedNames", required}}},
		{name: "prune missing", spec: func(s *Spec) { s.ManagedNamespaces.Prune = nil },
			want: []fieldErr{{"spec.managedNamespaces.prune", required}}},
		{name: "metadata empty", spec: func(s *Spec) { s.ManagedNamespaces.Metadata = &NamespaceMetadata{} },
			want: []fieldErr{{"spec.managedNamespaces.metadata", required}}, detail: "either fromSource or at least one from operation"},
		{name: "metadata from operations only", spec: func(s *Spec) {
			s.ManagedNamespaces.Metadata = &NamespaceMetadata{From: []nsmeta.Operation{{Strategy: nsmeta.Merge, Namespace: "*",
				Metadata: nsmeta.Metadata{Labels: map[string]string{"tier": "bronze"}}}}}
		}},
		{name: "fromSource without rules", spec: func(s *Spec) { s.ManagedNamespaces.Metadata.FromSource.AllowedLabels = nil },
			want: []fieldErr{{"spec.managedNamespaces.metadata.fromSource", required}}},
		{name: "fromSource with annotation rules only", spec: func(s *Spec) {
			fs := s.ManagedNamespaces.Metadata.FromSource
			fs.AllowedLabels, fs.AllowedAnnotations = nil, map[string]string{"example.com/a": "true"}
		}},
		{name: "fromSource without path", spec: func(s *Spec) { s.ManagedNamespaces.Metadata.FromSource.Path = "" },
			want: []fieldErr{{"spec.managedNamespaces.metadata.fromSource.path", required}}},
		{name: "fromSource path too long", spec: func(s *Spec) { s.ManagedNamespaces.Metadata.FromSource.Path = "@repo/" + long },
			want: []fieldErr{{"spec.managedNamespaces.metadata.fromSource.path", tooLong}}},
		{name: "fromSource from an undeclared alias", spec: func(s *Spec) { s.ManagedNamespaces.Metadata.FromSource.Path = "@other/x.yaml" },
			want: []fieldErr{{"spec.managedNamespaces.metadata.fromSource.path", invalid}}},
		{name: "fromSource path names a module capture", spec: func(s *Spec) {
			s.ManagedNamespaces.Metadata.FromSource.Path = "@repo/tenants/{namespace}/modules/{module}/ns.yaml"
		}, want: []fieldErr{{"spec.managedNamespaces.metadata.fromSource.path", invalid}}, detail: "only namespace-level captures are allowed"},
		{name: "fromSource from the artifact", spec: func(s *Spec) { s.ManagedNamespaces.Metadata.FromSource.Path = "@artifact/{namespace}/ns.yaml" }},
		{name: "fromSource from the artifact, an unknown capture", spec: func(s *Spec) { s.ManagedNamespaces.Metadata.FromSource.Path = "@artifact/{team}.yaml" },
			want: []fieldErr{{"spec.managedNamespaces.metadata.fromSource.path", invalid}}, detail: "team"},
		{name: "fromSource from the artifact, outside it", spec: func(s *Spec) { s.ManagedNamespaces.Metadata.FromSource.Path = "@artifact/../ns.yaml" },
			want: []fieldErr{{"spec.managedNamespaces.metadata.fromSource.path", invalid}}},
		{name: "label rule not CEL", spec: func(s *Spec) { s.ManagedNamespaces.Metadata.FromSource.AllowedLabels["team"] = "^[a-z]+$" },
			want: []fieldErr{{"spec.managedNamespaces.metadata.fromSource.allowedLabels[team]", invalid}}},
		{name: "bad label key", spec: func(s *Spec) { s.ManagedNamespaces.Metadata.FromSource.AllowedLabels["bad key!"] = "true" },
			want: []fieldErr{{"spec.managedNamespaces.metadata.fromSource.allowedLabels[bad key!]", invalid}}},
		{name: "operation without strategy", spec: func(s *Spec) {
			s.ManagedNamespaces.Metadata.From = []nsmeta.Operation{{Namespace: "*"}}
		}, want: []fieldErr{{"spec.managedNamespaces.metadata.from[0].strategy", required}}},
		{name: "operation strategy unknown", spec: func(s *Spec) {
			s.ManagedNamespaces.Metadata.From = []nsmeta.Operation{{Strategy: "merge", Namespace: "*"}}
		}, want: []fieldErr{{"spec.managedNamespaces.metadata.from[0].strategy", notSupported}}},
		{name: "operation namespace pattern", spec: func(s *Spec) {
			s.ManagedNamespaces.Metadata.From = []nsmeta.Operation{{Strategy: nsmeta.Merge, Namespace: "tenant-*"}}
		}, want: []fieldErr{{"spec.managedNamespaces.metadata.from[0].namespace", invalid}}},
		{name: "operation setting the external finalizer", spec: func(s *Spec) {
			s.ManagedNamespaces.Metadata.From = []nsmeta.Operation{{Strategy: nsmeta.Merge, Namespace: "*",
				Metadata: nsmeta.Metadata{Annotations: map[string]string{finalizer.Annotation: "self"}}}}
		}, want: []fieldErr{{"spec.managedNamespaces.metadata.from[0].annotations[" + finalizer.Annotation + "]", forbidden}}},
		{name: "no service account", spec: func(s *Spec) { s.ServiceAccountName = "" },
			want: []fieldErr{{"spec.serviceAccountName", required}}},
		{name: "no service account, a default", spec: func(s *Spec) { s.ServiceAccountName = "" },
			opts: []Option{WithDefaultServiceAccount("flux-operator")}},

		// source-watcher's TestArtifactGenerator_CommonMetadataAnnotationsValidation.
		{name: "commonMetadata sets ssa", spec: annotate("source.extensions.fluxcd.io/ssa"),
			want: []fieldErr{{"spec.commonMetadata.annotations[source.extensions.fluxcd.io/ssa]", forbidden}}, detail: "set it on individual objects"},
		{name: "commonMetadata sets prune", spec: annotate("source.extensions.fluxcd.io/prune"),
			want: []fieldErr{{"spec.commonMetadata.annotations[source.extensions.fluxcd.io/prune]", forbidden}}},
		{name: "commonMetadata sets reconcile", spec: annotate("source.extensions.fluxcd.io/reconcile"),
			want: []fieldErr{{"spec.commonMetadata.annotations[source.extensions.fluxcd.io/reconcile]", forbidden}}},
		{name: "commonMetadata sets another annotation", spec: annotate("example.com/team")},
		{name: "no namespaces: commonMetadata sets all three", spec: func(s *Spec) {
			s.ManagedNamespaces = nil
			s.CommonMetadata.Annotations = map[string]string{"source.extensions.fluxcd.io/ssa": "Ignore",
				"source.extensions.fluxcd.io/prune": "disabled", "source.extensions.fluxcd.io/reconcile": "disabled"}
		}, want: []fieldErr{
			{"spec.commonMetadata.annotations[source.extensions.fluxcd.io/prune]", forbidden},
			{"spec.commonMetadata.annotations[source.extensions.fluxcd.io/reconcile]", forbidden},
			{"spec.commonMetadata.annotations[source.extensions.fluxcd.io/ssa]", forbidden},
		}},
		{name: "commonMetadata label named like a control annotation", spec: func(s *Spec) {
			s.CommonMetadata.Labels["source.extensions.fluxcd.io/prune"] = "disabled"
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			spec := testSpec()
			if tt.spec != nil {
				tt.spec(&spec)
			}
			g, errs := Compile(spec, append([]Option{WithNamespace("flux-system")}, tt.opts...)...)
			var got []fieldErr
			for _, e := range errs {
				got = append(got, fieldErr{e.Field, e.Type})
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("errors (-want +got):\n%s\n%v", diff, errs.ToAggregate())
			}
			if tt.detail != "" && (len(errs) == 0 || !strings.Contains(errs[0].Detail, tt.detail)) {
				t.Errorf("errors %v, want the first to say %q", errs.ToAggregate(), tt.detail)
			}
			if (g == nil) != (len(errs) > 0) {
				t.Errorf("Compile() = %v, %v", g, errs)
			}
		})
	}
}

// TestNamespacesDefaults: whether namespaces are managed and pruned, seen
// in what a plan does with a managed namespace that no artifact uses any
// more: delete it when managed and pruned, release it otherwise. Translates
// source-watcher's TestArtifactGeneratorNamespaces (ManagesNamespaces,
// NamespacePrune).
func TestNamespacesDefaults(t *testing.T) {
	t.Parallel()
	no := false
	tests := []struct {
		name    string
		spec    func(*Spec)
		managed bool
		prune   bool
	}{
		{name: "no managedNamespaces", spec: func(s *Spec) { s.ManagedNamespaces = nil }},
		{name: "prune true", managed: true, prune: true},
		{name: "prune false", spec: func(s *Spec) { s.ManagedNamespaces.Prune = &no }, managed: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			spec := testSpec()
			if tt.spec != nil {
				tt.spec(&spec)
			}
			g := mustCompile(t, spec)
			previous := []inventory.Entry{nsEntry("tenant-ok"), artEntry("tenant-ok", "app"), nsEntry("tenant-gone")}
			p := mustPlan(t, g, sources(tree(okTenant)), previous, (&fakeCluster{}).live(previous, nil, nil).cluster())
			if p.HasErrors() {
				t.Fatalf("errors: %v", p.Errors.ToAggregate())
			}
			if managed := len(p.Namespaces) == 1; managed != tt.managed {
				t.Errorf("namespaces %v; want managed %v", p.Namespaces, tt.managed)
			}
			want := inventory.Release
			if tt.managed && tt.prune {
				want = inventory.Delete
			}
			if d := decisions(p)["Namespace/tenant-gone"]; d.Action != want {
				t.Errorf("stale namespace: %s, want %s", d, want)
			}
		})
	}
}

// TestCompileReferences: a reference of a source or of the artifact
// (inputsFrom, copy[].from, fromSource.path) that no rendering can make a
// reference is an error of Compile, naming the field, the value and the
// rule: without a capture, what every plan would refuse; with one, what
// its literal text breaks whatever the captures render. The rest is
// checked when a plan renders it.
func TestCompileReferences(t *testing.T) {
	t.Parallel()
	const (
		inputs = "spec.artifacts[0].inputsFrom: Invalid value: "
		from   = "spec.artifacts[0].copy[0].from: Invalid value: "
		meta   = "spec.managedNamespaces.metadata.fromSource.path: Invalid value: "
		dotdot = `pathpattern: reference path must not contain ".."`
		empty  = "pathpattern: reference must name a path below the alias"
	)
	static := func(s *Spec) {
		s.PathPattern, s.ManagedNamespaces = "", nil
		s.Artifacts[0].Name, s.Artifacts[0].Namespace = "app", "tenant-a"
		s.Artifacts[0].Copy[0].From = "@repo/app/**"
	}
	tests := map[string]struct {
		spec func(*Spec)
		want []string // errors, as Error() words them
	}{
		"inputsFrom: escaping the source": {
			spec: func(s *Spec) { s.Artifacts[0].InputsFrom = "@repo/../escape.yaml" },
			want: []string{inputs + `"@repo/../escape.yaml": ` + dotdot + ` (offset 6 in "@repo/../escape.yaml")`},
		},
		"inputsFrom: no path": {
			spec: func(s *Spec) { s.Artifacts[0].InputsFrom = "@repo/" },
			want: []string{inputs + `"@repo/": ` + empty + ` (offset 6 in "@repo/")`},
		},
		"inputsFrom: the alias root": {
			spec: func(s *Spec) { s.Artifacts[0].InputsFrom = "@repo/./" },
			want: []string{inputs + `"@repo/./": ` + empty + ` (offset 6 in "@repo/./")`},
		},
		"inputsFrom: absolute": {
			spec: func(s *Spec) { s.Artifacts[0].InputsFrom = "@repo//etc/inputs.yaml" },
			want: []string{inputs + `"@repo//etc/inputs.yaml": pathpattern: reference path must be relative (offset 6 in "@repo//etc/inputs.yaml")`},
		},
		"inputsFrom: a static artifact, no path": {
			spec: func(s *Spec) { static(s); s.Artifacts[0].InputsFrom = "@repo/" },
			want: []string{inputs + `"@repo/": ` + empty + ` (offset 6 in "@repo/")`},
		},
		"inputsFrom: a static artifact, escaping the source": {
			spec: func(s *Spec) { static(s); s.Artifacts[0].InputsFrom = "@repo/../escape.yaml" },
			want: []string{inputs + `"@repo/../escape.yaml": ` + dotdot + ` (offset 6 in "@repo/../escape.yaml")`},
		},
		"inputsFrom: a capture and a literal dot-dot": {
			spec: func(s *Spec) { s.Artifacts[0].InputsFrom = "@repo/tenants/{namespace}/../inputs.yaml" },
			want: []string{inputs + `"@repo/tenants/{namespace}/../inputs.yaml": ` + dotdot + ` (offset 26 in "@repo/tenants/{namespace}/../inputs.yaml")`},
		},
		"inputsFrom: a capture and a trailing dot-dot": {
			spec: func(s *Spec) { s.Artifacts[0].InputsFrom = "@repo/{namespace}/.." },
			want: []string{inputs + `"@repo/{namespace}/..": ` + dotdot + ` (offset 18 in "@repo/{namespace}/..")`},
		},
		"inputsFrom: dots beside a capture": {
			spec: func(s *Spec) { s.Artifacts[0].InputsFrom = "@repo/tenants/{namespace}..yaml" },
		},
		"inputsFrom: a capture alone": {
			spec: func(s *Spec) { s.Artifacts[0].InputsFrom = "@repo/{module}" },
		},
		"inputsFrom: the artifact, a capture and a dot-dot": {
			spec: func(s *Spec) { s.Artifacts[0].InputsFrom = "@artifact/{module}/../inputs.yaml" },
			want: []string{inputs + `"@artifact/{module}/../inputs.yaml": ` + dotdot + ` (offset 19 in "@artifact/{module}/../inputs.yaml")`},
		},
		"inputsFrom: no alias": {
			spec: func(s *Spec) { s.Artifacts[0].InputsFrom = "repo/../x.yaml" },
			want: []string{inputs + `"repo/../x.yaml": must be "@alias/path"`},
		},
		"inputsFrom: an undeclared alias and a dot-dot": {
			spec: func(s *Spec) { s.Artifacts[0].InputsFrom = "@git/../x.yaml" },
			want: []string{
				inputs + `"@git/../x.yaml": alias "git" must be declared in spec.sources`,
				inputs + `"@git/../x.yaml": ` + dotdot + ` (offset 5 in "@git/../x.yaml")`,
			},
		},
		"copy from: escaping the source": {
			spec: func(s *Spec) { s.Artifacts[0].Copy[0].From = "@repo/../**" },
			want: []string{from + `"@repo/../**": ` + dotdot + ` (offset 6 in "@repo/../**")`},
		},
		"copy from: no path": {
			spec: func(s *Spec) { s.Artifacts[0].Copy[0].From = "@repo/" },
			want: []string{from + `"@repo/": ` + empty + ` (offset 6 in "@repo/")`},
		},
		"copy from: a static artifact, the alias root": {
			spec: func(s *Spec) { static(s); s.Artifacts[0].InputsFrom = ""; s.Artifacts[0].Copy[0].From = "@repo/." },
			want: []string{from + `"@repo/.": ` + empty + ` (offset 6 in "@repo/.")`},
		},
		"copy from: a capture and a dot-dot": {
			spec: func(s *Spec) { s.Artifacts[0].Copy[0].From = "@repo/tenants/{namespace}/../**" },
			want: []string{from + `"@repo/tenants/{namespace}/../**": ` + dotdot + ` (offset 26 in "@repo/tenants/{namespace}/../**")`},
		},
		"copy from: a glob": {
			spec: func(s *Spec) { s.Artifacts[0].Copy[0].From = "@repo/tenants/{namespace}/*/{module}/**/*.yaml" },
		},
		"fromSource: escaping the source": {
			spec: func(s *Spec) { s.ManagedNamespaces.Metadata.FromSource.Path = "@repo/../ns.yaml" },
			want: []string{meta + `"@repo/../ns.yaml": ` + dotdot + ` (offset 6 in "@repo/../ns.yaml")`},
		},
		"fromSource: no path": {
			spec: func(s *Spec) { s.ManagedNamespaces.Metadata.FromSource.Path = "@repo/" },
			want: []string{meta + `"@repo/": ` + empty + ` (offset 6 in "@repo/")`},
		},
		"fromSource: a capture and a dot-dot": {
			spec: func(s *Spec) { s.ManagedNamespaces.Metadata.FromSource.Path = "@repo/tenants/{namespace}/../ns.yaml" },
			want: []string{meta + `"@repo/tenants/{namespace}/../ns.yaml": ` + dotdot + ` (offset 26 in "@repo/tenants/{namespace}/../ns.yaml")`},
		},
		"fromSource: the artifact, a capture and a dot-dot": {
			spec: func(s *Spec) { s.ManagedNamespaces.Metadata.FromSource.Path = "@artifact/{namespace}/../ns.yaml" },
			want: []string{meta + `"@artifact/{namespace}/../ns.yaml": ` + dotdot + ` (offset 22 in "@artifact/{namespace}/../ns.yaml")`},
		},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			spec := testSpec()
			tt.spec(&spec)
			g, errs := Compile(spec, WithNamespace("flux-system"))
			var got []string
			for _, e := range errs {
				got = append(got, e.Error())
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Compile() errors (-want +got):\n%s", diff)
			}
			if (g == nil) != (len(tt.want) > 0) {
				t.Errorf("Compile() = %v, want a generator only without errors", g)
			}
		})
	}
}
