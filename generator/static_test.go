package generator

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"k8s.io/apimachinery/pkg/api/validate/content"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/tenantkit/tenantkit/inventory"
	"github.com/tenantkit/tenantkit/nsmeta"
	"github.com/tenantkit/tenantkit/pathpattern"
)

// staticSpec is a generator without a pattern (source-watcher's artifacts
// without pathPattern): one artifact per spec.artifacts entry, with literal
// names, namespaces and references.
func staticSpec() Spec {
	prune := true
	return Spec{
		ServiceAccountName: "flux-operator",
		CommonMetadata:     &nsmeta.Metadata{Labels: map[string]string{"my.org.io/provisioner": "monorepo"}},
		Sources:            []SourceReference{{Alias: "repo", Kind: "OCIRepository", Name: "monorepo"}},
		Artifacts: []OutputArtifact{
			{
				Name:       "platform",
				InputsFrom: "@repo/platform/inputs.yaml",
				Copy:       []CopyOperation{{From: "@repo/platform/manifests/**", To: "@artifact/", Exclude: []string{"*.md"}}},
			},
			{
				Name:      "team-a-app",
				Namespace: "tenant-a",
				Copy: []CopyOperation{
					{From: "@repo/teams/a/app.yaml", To: "@artifact/app/"},
					{From: "@repo/teams/a/*.yaml", To: "@artifact/all/"},
				},
			},
		},
		ManagedNamespaces: &ManagedNamespaces{
			AllowedNames: []string{`ns.startsWith("tenant-")`},
			Prune:        &prune,
			Metadata: &NamespaceMetadata{FromSource: &MetadataFromSource{
				Path:          "@repo/namespaces/tenant-a.yaml",
				AllowedLabels: map[string]string{"team": "value.size() <= 10"},
			}},
		},
	}
}

func staticTree() map[string]string {
	return map[string]string{
		"platform/inputs.yaml":             "tag: v1\n",
		"platform/manifests/deploy.yaml":   "kind: Deployment\n",
		"platform/manifests/README.md":     "# platform\n",
		"teams/a/app.yaml":                 "kind: Deployment\n",
		"teams/a/svc.yaml":                 "kind: Service\n",
		"namespaces/tenant-a.yaml":         metadataFile("team", "a"),
		"tenants/ignored/modules/x/x.yaml": "kind: ConfigMap\n",
	}
}

// TestStaticArtifacts plans a spec without a pattern end to end: each
// spec.artifacts entry is one artifact, named and placed by its literals,
// with its inputs, its files and its namespace (upstream's
// TestBuildArtifactRequests, "static path (no pathPattern)", goes as far as
// the names).
func TestStaticArtifacts(t *testing.T) {
	t.Parallel()
	g := mustCompile(t, staticSpec())
	var files []string
	for name, data := range staticTree() {
		files = append(files, name+"="+data)
	}
	p := mustPlan(t, g, sources(tree(files...)), nil, (&fakeCluster{}).cluster())
	if len(p.Errors) > 0 {
		t.Fatalf("Errors = %v", p.Errors.ToAggregate())
	}
	labels := map[string]string{"my.org.io/provisioner": "monorepo", GeneratorLabel: testUID}
	ref := func(path string) pathpattern.Ref { return pathpattern.Ref{Alias: "repo", Path: path} }
	want := []Artifact{
		{
			Name: "platform", Namespace: "flux-system", Captures: map[string]string{}, Labels: labels,
			Inputs:    json.RawMessage(`{"tag":"v1"}`),
			Files:     []File{{Path: "deploy.yaml", Source: ref("platform/manifests/deploy.yaml")}},
			FileCount: 1,
		},
		{
			Name: "team-a-app", Namespace: "tenant-a", Captures: map[string]string{}, Labels: labels,
			Files: []File{
				{Path: "all/teams/a/app.yaml", Source: ref("teams/a/app.yaml")},
				{Path: "all/teams/a/svc.yaml", Source: ref("teams/a/svc.yaml")},
				{Path: "app/app.yaml", Source: ref("teams/a/app.yaml")},
			},
			FileCount: 3,
		},
	}
	if diff := cmp.Diff(want, p.Artifacts, cmpopts.IgnoreFields(Artifact{}, "Digest")); diff != "" {
		t.Errorf("Artifacts (-want +got):\n%s", diff)
	}
	for _, a := range p.Artifacts {
		if a.Digest.Validate() != nil {
			t.Errorf("artifact %s has no valid digest: %q", a.Name, a.Digest)
		}
	}
	if len(p.Namespaces) != 1 || p.Namespaces[0].Name != "tenant-a" || p.Namespaces[0].Labels["team"] != "a" {
		t.Errorf("Namespaces = %+v, want tenant-a with the label of its file", p.Namespaces)
	}
	var got []string
	for _, d := range p.Decisions {
		got = append(got, d.Action.String()+" "+d.Entry.ID().String())
	}
	wantDecisions := []string{"create Namespace/tenant-a", "create ExternalArtifact/flux-system/platform", "create ExternalArtifact/tenant-a/team-a-app"}
	if diff := cmp.Diff(wantDecisions, got); diff != "" {
		t.Errorf("Decisions (-want +got):\n%s", diff)
	}
}

// TestStaticArtifactErrors: without a pattern, a name or namespace that is
// not a valid object name or namespace is an error of Compile, as
// source-watcher's CRD refuses it; two entries that name one object are
// errors of the plan, with no directory to name, and the other entries are
// still built.
func TestStaticArtifactErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		spec    func(*Spec)
		errs    []*field.Error
		skip    map[string]string // subject -> reason
		applied []string          // created or updated
		compile bool              // errs are Compile's
	}{
		{
			name: "name not a DNS-1123 subdomain",
			spec: func(s *Spec) { s.Artifacts[0].Name = "Platform_1" },
			errs: []*field.Error{field.Invalid(field.NewPath("spec", "artifacts").Index(0).Child("name"), "Platform_1",
				strings.Join(content.IsDNS1123Subdomain("Platform_1"), "; "))},
			compile: true,
		},
		{
			name: "name longer than 253 characters",
			spec: func(s *Spec) { s.Artifacts[0].Name = strings.Repeat("a", 254) },
			errs: []*field.Error{field.Invalid(field.NewPath("spec", "artifacts").Index(0).Child("name"), strings.Repeat("a", 254),
				strings.Join(content.IsDNS1123Subdomain(strings.Repeat("a", 254)), "; "))},
			compile: true,
		},
		{
			name: "namespace not a DNS-1123 label",
			spec: func(s *Spec) { s.Artifacts[1].Namespace = "tenant.a" },
			errs: []*field.Error{field.Invalid(field.NewPath("spec", "artifacts").Index(1).Child("namespace"), "tenant.a",
				strings.Join(content.IsDNS1123Label("tenant.a"), "; "))},
			compile: true,
		},
		{
			name: "two entries name one object",
			spec: func(s *Spec) { s.Artifacts[0].Name, s.Artifacts[0].Namespace = "team-a-app", "tenant-a" },
			errs: []*field.Error{{Type: field.ErrorTypeDuplicate, Field: "spec.artifacts[1].name", BadValue: "team-a-app",
				Detail: `spec.artifacts[0] and spec.artifacts[1] render the same namespace "tenant-a" and name "team-a-app"`}},
			skip:    map[string]string{"ExternalArtifact/tenant-a/team-a-app": "spec.artifacts[1] renders the same namespace and name"},
			applied: []string{"Namespace/tenant-a"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			spec := staticSpec()
			tt.spec(&spec)
			if tt.compile {
				_, errs := Compile(spec, WithUID(testUID), WithNamespace("flux-system"))
				if diff := cmp.Diff(tt.errs, []*field.Error(errs), cmpopts.IgnoreFields(field.Error{}, "Origin", "CoveredByDeclarative")); diff != "" {
					t.Errorf("Compile errors (-want +got):\n%s", diff)
				}
				return
			}
			g := mustCompile(t, spec)
			var files []string
			for name, data := range staticTree() {
				files = append(files, name+"="+data)
			}
			p := mustPlan(t, g, sources(tree(files...)), []inventory.Entry{artEntry("flux-system", "platform")}, (&fakeCluster{}).cluster())
			if diff := cmp.Diff(tt.errs, []*field.Error(p.Errors), cmpopts.IgnoreFields(field.Error{}, "Origin", "CoveredByDeclarative")); diff != "" {
				t.Errorf("Errors (-want +got):\n%s", diff)
			}
			var applied []string
			skipped := map[string]string{}
			for _, d := range p.Decisions {
				switch d.Action {
				case inventory.Create, inventory.Update:
					applied = append(applied, d.Entry.ID().String())
				case inventory.Skip:
					skipped[d.Entry.ID().String()] = d.Reason
				}
			}
			if diff := cmp.Diff(tt.applied, applied); diff != "" {
				t.Errorf("applied (-want +got):\n%s", diff)
			}
			for subject, reason := range tt.skip {
				if !strings.Contains(skipped[subject], reason) {
					t.Errorf("%s skipped for %q, want a reason containing %q", subject, skipped[subject], reason)
				}
			}
			// An error in the desired state deletes nothing: the tracked
			// artifact is updated, kept or skipped, never deleted.
			if d := decisions(p)["ExternalArtifact/flux-system/platform"]; d.Action == inventory.Delete {
				t.Errorf("tracked artifact deleted: %s", d)
			}
		})
	}
}

// TestStaticTemplatesAreLiterals: without a pattern, a capture in any
// template is an error of Compile, with the rule it breaks.
func TestStaticTemplatesAreLiterals(t *testing.T) {
	t.Parallel()
	spec := staticSpec()
	spec.Artifacts[0].Name = "app-{app}"
	spec.Artifacts[1].Copy[0].From = "@repo/teams/{team}/app.yaml"
	_, errs := Compile(spec, WithNamespace("flux-system"))
	want := []string{
		`spec.artifacts[0].name: Invalid value: "app-{app}": pathpattern: template must name only captures of its pattern: "app" (offset 4 in "app-{app}")`,
		`spec.artifacts[1].copy[0].from: Invalid value: "@repo/teams/{team}/app.yaml": pathpattern: template must name only captures of its pattern: "team" (offset 12 in "@repo/teams/{team}/app.yaml")`,
	}
	var got []string
	for _, e := range errs {
		got = append(got, e.Error())
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Compile errors (-want +got):\n%s", diff)
	}
}
