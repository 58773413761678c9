package generatortest

import (
	"context"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const sampleTests = "../../examples/plan/sample/tests"

// failingGenerator is the generator of testdata/failing.yaml, as the
// coverage names it.
var failingGenerator = filepath.Join("testdata", "../../../examples/plan/sample/generator.yaml")

func TestSampleSuitesPass(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob(filepath.Join(sampleTests, "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no sample suites: %v", err)
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			t.Parallel()
			s, err := LoadSuite(file)
			if err != nil {
				t.Fatal(err)
			}
			res := s.Run(context.Background(), Options{})
			if len(res.Cases) == 0 {
				t.Fatal("no cases ran")
			}
			for _, c := range res.Cases {
				for _, f := range c.Failures {
					t.Errorf("%s: %s: expected %s, got %s", c.Case, f.Where, f.Expected, f.Got)
				}
			}
			if !res.Passed() {
				t.Error("Passed() = false")
			}
		})
	}
}

func TestFailingSuite(t *testing.T) {
	t.Parallel()
	s, err := LoadSuite("testdata/failing.yaml")
	if err != nil {
		t.Fatal(err)
	}
	got := s.Run(context.Background(), Options{})
	want := Result{Cases: []CaseResult{
		{Suite: "failing", Case: "passes", Assumptions: []string{NoCluster}},
		{Suite: "failing", Case: "wrong everything", Assumptions: []string{NoCluster}, Failures: []Failure{
			{Where: "cases[1].expect.objects[0] (Namespace/tenant-search).action", Expected: "delete", Got: "create, no reason"},
			{Where: "cases[1].expect.objects[0] (Namespace/tenant-search).reason", Expected: "reason containing \"no longer desired\"", Got: "create, no reason"},
			{Where: "cases[1].expect.objects[1] (Namespace/tenant-nobody)", Expected: "a decision", Got: "the plan does not mention it"},
			{Where: "cases[1].expect.namespaces[0] (tenant-search).labels[my.org.io/cost-center]", Expected: "cc-9999", Got: "cc-2001"},
			{Where: "cases[1].expect.namespaces[0] (tenant-search).labels[my.org.io/missing]", Expected: "x", Got: "absent"},
			{Where: "cases[1].expect.namespaces[0] (tenant-search).origin.labels[my.org.io/cost-center]", Expected: "from[0]", Got: "source"},
			{Where: "cases[1].expect.namespaces[1] (tenant-sandbox).labels", Expected: "{my.org.io/sandbox=true}", Got: "{my.org.io/provisioner=monorepo, my.org.io/sandbox=true, source.extensions.fluxcd.io/generator=6f1d0c2e-6a4b-4d6e-9d53-0b7f3c1e2a10}"},
			{Where: "cases[1].expect.artifacts[0] (tenant-search/indexer).inputs[replicas]", Expected: "2", Got: "1"},
			{Where: "cases[1].expect.artifacts[0] (tenant-search/indexer).files", Expected: "deployment.yaml", Got: "deployment.yaml, service.yaml"},
			{Where: "cases[1].expect.artifacts[1] (tenant-search/nothing)", Expected: "an artifact to apply", Got: "the plan does not apply it"},
			{Where: "cases[1].expect.errors[0]", Expected: "an error containing \"anything\"", Got: "no errors"},
			{Where: "cases[1].expect.warnings[0]", Expected: "a warning containing \"no such warning\"", Got: "@repo/tenants/tenant-payments/namespace-metadata.yaml: metadata.labels[my.org.io/team]: label \"my.org.io/team\" is not in allowedLabels; dropped | @repo/tenants/tenant-sandbox/modules/playground/applier-inputs.yaml: inputs file not found; artifact tenant-sandbox/playground has no inputs"},
			{Where: "cases[1].expect.refused", Expected: "the deletions refused, containing \"every one\"", Got: "no errors"},
		}},
		{Suite: "failing", Case: "no expectation", Assumptions: []string{NoCluster}, Failures: []Failure{
			{Where: "cases[2].expect", Expected: "at least one expectation", Got: "none"},
		}},
		{Suite: "failing", Case: "wrong conflicts", Failures: []Failure{
			{Where: "cases[3].expect.namespaces[0] (tenant-search).conflict", Expected: "no conflict", Got: "Adopted"},
			{Where: "cases[3].expect.namespaces[1] (tenant-payments).conflict", Expected: "OwnershipConflict", Got: "no conflict"},
			{Where: "cases[3].expect.artifacts[0] (tenant-search/indexer).conflict", Expected: "no conflict", Got: "OwnershipConflict"},
			{Where: "cases[3].expect.artifacts[1] (tenant-payments/api).conflict", Expected: "OwnershipConflict", Got: "no conflict"},
		}},
	}, Coverage: []CoverageItem{
		{Generator: failingGenerator, Path: "spec.managedNamespaces.allowedNames[0]", Cases: 2}, // wrong everything, wrong conflicts
		{Generator: failingGenerator, Path: "spec.managedNamespaces.metadata.from[0]"},
		{Generator: failingGenerator, Path: "spec.managedNamespaces.metadata.from[1]"},
		{Generator: failingGenerator, Path: "spec.managedNamespaces.metadata.from[2]", Cases: 1},                                         // tenant-sandbox, exact
		{Generator: failingGenerator, Path: "spec.managedNamespaces.metadata.fromSource.allowedLabels[my.org.io/cost-center]", Cases: 1}, // tenant-search's label
		{Generator: failingGenerator, Path: "spec.managedNamespaces.metadata.fromSource.allowedAnnotations[my.org.io/observability]"},
	}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Run (-want +got):\n%s", diff)
	}
	if got.Passed() {
		t.Error("Passed() = true, want false")
	}
}

func TestRunSelects(t *testing.T) {
	t.Parallel()
	s, err := LoadSuite("testdata/failing.yaml")
	if err != nil {
		t.Fatal(err)
	}
	got := s.Run(context.Background(), Options{Run: regexp.MustCompile("^pass")})
	want := Result{Cases: []CaseResult{{Suite: "failing", Case: "passes", Assumptions: []string{NoCluster}}}, Coverage: []CoverageItem{
		{Generator: failingGenerator, Path: "spec.managedNamespaces.allowedNames[0]"},
		{Generator: failingGenerator, Path: "spec.managedNamespaces.metadata.from[0]"},
		{Generator: failingGenerator, Path: "spec.managedNamespaces.metadata.from[1]"},
		{Generator: failingGenerator, Path: "spec.managedNamespaces.metadata.from[2]"},
		{Generator: failingGenerator, Path: "spec.managedNamespaces.metadata.fromSource.allowedLabels[my.org.io/cost-center]"},
		{Generator: failingGenerator, Path: "spec.managedNamespaces.metadata.fromSource.allowedAnnotations[my.org.io/observability]"},
	}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Run (-want +got):\n%s", diff)
	}
	if !got.Passed() {
		t.Error("Passed() = false, want true")
	}
}

// TestCoverage: the sample's policy suite checks every from[] operation and
// schema key; the removal suite checks none (its expectations are about
// objects).
// TestCoverageNameRules: an allowedNames rule (the seed shape) counts as
// checked by a case that names a namespace the rule accepts, or that
// expects a name's refusal, and not by one that does neither.
func TestCoverageNameRules(t *testing.T) {
	t.Parallel()
	s, err := LoadSuite(filepath.Join("testdata", "seed-names.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	res := s.Run(context.Background(), Options{})
	for _, c := range res.Cases {
		if !c.Passed() {
			t.Errorf("case %q failed: %+v", c.Case, c.Failures)
		}
	}
	if len(res.Coverage) == 0 || res.Coverage[0].Path != "spec.managedNamespaces.allowedNames[0]" || res.Coverage[0].Cases != 2 {
		t.Errorf("coverage %+v, want spec.managedNamespaces.allowedNames[0] checked by 2 cases", res.Coverage)
	}
}

func TestCoverage(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		suite string
		want  []int // cases per item: allowedNames[0], from[0], from[1], from[2], allowedLabels, allowedAnnotations
	}{
		// allowedNames[0]: every case that expects a decision, metadata or
		// a name error for a tenant- namespace; from[0]: "allowed
		// namespace" (exact) and "from operations"; the cost-center label:
		// accepted in two cases, refused in one.
		{name: "policy", suite: "policy.yaml", want: []int{7, 2, 1, 1, 3, 1}},
		{name: "removal", suite: "removal.yaml", want: []int{5, 0, 0, 0, 0, 0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s, err := LoadSuite(filepath.Join(sampleTests, tt.suite))
			if err != nil {
				t.Fatal(err)
			}
			var got []int
			for _, c := range s.Run(context.Background(), Options{}).Coverage {
				got = append(got, c.Cases)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("coverage (-want +got):\n%s", diff)
			}
		})
	}
}

// TestNoCluster: a case without cluster plans as the preview tool plans
// without -cluster (generatortest.AsApplied): a removed tenant's objects are
// deleted, not kept for want of a live read, and the case says what it
// assumed (issue 38, item 5: plan deleted them, plan test kept them).
func TestNoCluster(t *testing.T) {
	t.Parallel()
	file := writeSuite(t, header+`cases:
- name: removed tenant
  inventory:
    - {kind: Namespace, name: tenant-old}
    - {kind: ExternalArtifact, namespace: tenant-old, name: app}
    - {kind: Namespace, name: tenant-search}
  expect:
    objects:
      - {object: ExternalArtifact/tenant-old/app, action: delete, reason: no longer desired}
      - {object: Namespace/tenant-old, action: delete, reason: "no longer desired; no external finalizer"}
      - {object: Namespace/tenant-search, action: update}
`)
	s, err := LoadSuite(file)
	if err != nil {
		t.Fatal(err)
	}
	got := s.Run(context.Background(), Options{})
	want := []CaseResult{{Suite: file, Case: "removed tenant", Assumptions: []string{NoCluster}}}
	if diff := cmp.Diff(want, got.Cases); diff != "" {
		t.Errorf("Run (-want +got):\n%s", diff)
	}
}
