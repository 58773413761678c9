package main

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// noCluster is what plan test prints after the counts for the cases
// without cluster: what they assumed, in the words plan prints without
// -cluster.
const noCluster = "no live cluster given (cluster:): assuming every desired namespace exists as planned and every other object without labels or annotations, " +
	"with no external finalizer and no other generator's ExternalArtifact: deletions are planned as if every object were deletable"

func TestPlanTestSample(t *testing.T) {
	t.Parallel()
	code, out, stderr := tool(t, "test", "sample/tests")
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d, stderr %q, out:\n%s", code, stderr, out)
	}
	if want := "12 passed, 0 failed\n6 of 12 cases: " + noCluster + "\n"; !strings.HasSuffix(string(out), want) {
		t.Errorf("output does not end with the counts and the assumption\n%s\ngot:\n%s", want, out)
	}
}

func TestPlanTestFailing(t *testing.T) {
	t.Parallel()
	code, out, stderr := tool(t, "test", "testdata/plantest/failing.yaml")
	if code != 1 || stderr != "" {
		t.Fatalf("exit %d, stderr %q, want 1 and none", code, stderr)
	}
	golden(t, "plantest-failing.txt", out)

	code, out, _ = tool(t, "test", "-run", "^created$", "testdata/plantest/failing.yaml")
	if code != 0 || string(out) != "PASS  failing  created\n1 passed, 0 failed\n1 of 1 cases: "+noCluster+"\n" {
		t.Errorf("-run: exit %d, output %q", code, out)
	}
}

func TestPlanTestJSON(t *testing.T) {
	t.Parallel()
	code, out, _ := tool(t, "test", "-o", "json", "testdata/plantest/failing.yaml")
	if code != 1 {
		t.Fatalf("exit %d, want 1", code)
	}
	type failure struct{ Where, Expected, Got string }
	var got struct {
		Passed, Failed int
		Cases          []struct {
			Suite, Case string
			Failures    []failure
		}
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("%v in %s", err, out)
	}
	if got.Passed != 1 || got.Failed != 1 || len(got.Cases) != 2 || got.Cases[1].Case != "deleted" {
		t.Fatalf("results = %+v", got)
	}
	want := []failure{
		{"cases[1].expect.objects[0] (Namespace/tenant-search).action", "delete", "create, no reason"},
		{"cases[1].expect.namespaces[0] (tenant-search).labels[my.org.io/cost-center]", "cc-9999", "cc-2001"},
		{"cases[1].expect.namespaces[0] (tenant-search).origin.labels[my.org.io/cost-center]", "from[0]", "source"},
	}
	if diff := cmp.Diff(want, got.Cases[1].Failures); diff != "" {
		t.Errorf("failures (-want +got):\n%s", diff)
	}
}

func TestPlanTestJUnit(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "junit.xml")
	code, out, stderr := tool(t, "test", "-junit", file, "testdata/plantest/failing.yaml")
	if code != 1 || stderr != "" {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	if strings.Contains(string(out), "<") {
		t.Errorf("stdout holds XML:\n%s", out)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	type testcase struct {
		Name      string `xml:"name,attr"`
		ClassName string `xml:"classname,attr"`
		Failure   *struct {
			Message string `xml:"message,attr"`
			Text    string `xml:",chardata"`
		} `xml:"failure"`
	}
	var got struct {
		XMLName  xml.Name `xml:"testsuites"`
		Tests    int      `xml:"tests,attr"`
		Failures int      `xml:"failures,attr"`
		Suites   []struct {
			Name  string     `xml:"name,attr"`
			Cases []testcase `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(data, &got); err != nil {
		t.Fatalf("the report is not XML: %v\n%s", err, data)
	}
	if got.Tests != 2 || got.Failures != 1 || len(got.Suites) != 1 || got.Suites[0].Name != "failing" || len(got.Suites[0].Cases) != 2 {
		t.Fatalf("report = %+v", got)
	}
	if c := got.Suites[0].Cases[0]; c.Name != "created" || c.Failure != nil {
		t.Errorf("first case = %+v, want created, passed", c)
	}
	c := got.Suites[0].Cases[1]
	if c.Name != "deleted" || c.Failure == nil || c.Failure.Message != "3 expectation(s) not met" ||
		!strings.HasPrefix(c.Failure.Text, "cases[1].expect.objects[0] (Namespace/tenant-search).action\n  expected: delete\n  got:      create, no reason\n") {
		t.Errorf("second case = %+v", c)
	}
}

func TestPlanTestUsage(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		args   []string
		stderr string
	}{
		{name: "bad suite", args: []string{"testdata/plantest/bad/unknown-key.yaml"}, stderr: "plan test: testdata/plantest/bad/unknown-key.yaml: cases[0].expects: unknown field\n"},
		{name: "bad suite in a directory", args: []string{"testdata/plantest"}, stderr: "plan test: testdata/plantest/bad/unknown-key.yaml: cases[0].expects: unknown field\n"},
		{name: "no path", args: nil, stderr: "needs at least one PATH"},
		{name: "missing path", args: []string{"testdata/none"}, stderr: "no such file"},
		{name: "no suite in the directory", args: []string{"sample/monorepo"}, stderr: "no suite (kind PlanTest)"},
		{name: "bad -run", args: []string{"-run", "(", "sample/tests"}, stderr: "-run:"},
		{name: "bad -o", args: []string{"-o", "xml", "sample/tests"}, stderr: "-o: must be table or json"},
		{name: "unknown flag", args: []string{"-x", "sample/tests"}, stderr: "-x"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			code, out, stderr := tool(t, append([]string{"test"}, tt.args...)...)
			if code != 2 || len(out) != 0 || !strings.Contains(stderr, tt.stderr) {
				t.Errorf("exit %d, stdout %q, stderr %q; want 2, none, containing %q", code, out, stderr, tt.stderr)
			}
		})
	}
}

func TestPlanTestCoverage(t *testing.T) {
	t.Parallel()
	code, out, stderr := tool(t, "test", "-coverage", "-coverage-min", "100", "sample/tests")
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	want := "12 passed, 0 failed\n6 of 12 cases: " + noCluster + `
coverage  sample/generator.yaml  6 of 6 policies checked
       12  spec.managedNamespaces.allowedNames[0]
        2  spec.managedNamespaces.metadata.from[0]
        1  spec.managedNamespaces.metadata.from[1]
        1  spec.managedNamespaces.metadata.from[2]
        3  spec.managedNamespaces.metadata.fromSource.allowedLabels[my.org.io/cost-center]
        1  spec.managedNamespaces.metadata.fromSource.allowedAnnotations[my.org.io/observability]
`
	if !strings.HasSuffix(string(out), want) {
		t.Errorf("output does not end with\n%s\ngot:\n%s", want, out)
	}

	// Only the label cases: 3 of 6 policies, under the floor.
	code, _, stderr = tool(t, "test", "-run", "label", "-coverage-min", "51", "sample/tests")
	if code != 1 || stderr != "plan test: the cases check 3 of 6 policies, less than -coverage-min 51%\n" {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
	code, _, _ = tool(t, "test", "-run", "label", "-coverage-min", "50", "sample/tests")
	if code != 0 {
		t.Errorf("-coverage-min 50: exit %d, want 0", code)
	}
	code, _, stderr = tool(t, "test", "-coverage-min", "101", "sample/tests")
	if code != 2 || !strings.Contains(stderr, "-coverage-min: must be 0 to 100") {
		t.Errorf("-coverage-min 101: exit %d, stderr %q", code, stderr)
	}
}

func TestPlanTestUpdate(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	gen, err := filepath.Abs("sample/generator.yaml")
	if err != nil {
		t.Fatal(err)
	}
	repo, err := filepath.Abs("sample/monorepo")
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "suite.yaml")
	writeFile(t, file, `apiVersion: tenantkit.dev/v1alpha1
kind: PlanTest
generator: `+gen+`
source: `+repo+`
cases:
  - name: search
    expect:
      namespaces:
        - name: tenant-search
          labels:
            my.org.io/cost-center: cc-9999
`)
	if code, _, _ := tool(t, "test", file); code != 1 {
		t.Fatalf("before -update: exit %d, want 1", code)
	}
	code, out, stderr := tool(t, "test", "-update", file)
	if code != 0 || stderr != "" || string(out) != "PASS  "+file+"  search\n1 passed, 0 failed\n1 of 1 cases: "+noCluster+"\n" {
		t.Fatalf("-update: exit %d, stderr %q, out %q", code, stderr, out)
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), "my.org.io/cost-center: cc-2001\n") {
		t.Errorf("the suite after -update:\n%s", data)
	}
	if code, _, _ := tool(t, "test", file); code != 0 {
		t.Errorf("after -update: exit %d, want 0", code)
	}
}

// TestReadmePlanTest runs each "$ go run ./examples/plan test ..." command
// of the tool's README and checks that the output the README shows is what
// it prints. The README's paths are the repository root's; the test runs
// in examples/plan.
func TestReadmePlanTest(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	const prompt = "$ go run ./examples/plan "
	blocks := strings.Split(string(readme), "\n"+prompt)[1:]
	if len(blocks) != 3 {
		t.Fatalf("examples/plan/README.md has %d commands %q, want 3", len(blocks), prompt)
	}
	for _, b := range blocks {
		cmd, rest, _ := strings.Cut(b, "\n")
		shown, _, ok := strings.Cut(rest, "```\n")
		if !ok {
			t.Fatalf("examples/plan/README.md: the output block of %q is not closed", cmd)
		}
		t.Run(cmd, func(t *testing.T) {
			t.Parallel()
			args := strings.Fields(strings.ReplaceAll(cmd, "./examples/plan/", ""))
			_, out, stderr := tool(t, args...)
			got := strings.ReplaceAll(string(out), "coverage  sample/", "coverage  examples/plan/sample/")
			if diff := cmp.Diff(shown, got); diff != "" || stderr != "" {
				t.Errorf("examples/plan/README.md shows another output than %q prints (-readme +tool):\n%s\nstderr %q", cmd, diff, stderr)
			}
		})
	}
}

// TestPlanAndPlanTestAgree: without live state, plan (no -cluster) and plan
// test (no cluster:) assume the same cluster and decide alike: a removed
// tenant's objects are deleted by both, for the same reasons, and both say
// what they assumed (issue 38, item 5: plan deleted them, plan test kept
// them "(no ObjectReader)").
func TestPlanAndPlanTestAgree(t *testing.T) {
	t.Parallel()
	gen, repo := monorepo(t)
	prev := firstRound(t, gen, repo)
	inv, err := os.ReadFile(prev)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(filepath.Join(repo, "tenants/tenant-payments")); err != nil {
		t.Fatal(err)
	}
	code, out, _ := tool(t, "-generator", gen, "-source", "repo="+repo, "-inventory", prev, "-o", "json")
	if code != 0 {
		t.Fatalf("plan: exit %d", code)
	}
	res := decode(t, out)
	if res.Assumptions[0] != strings.Replace(noCluster, "(cluster:)", "(-cluster)", 1) {
		t.Errorf("plan assumes %q", res.Assumptions)
	}
	var objects []string
	for _, c := range changes(res) {
		id := c.kind + "/" + c.name
		if c.namespace != "" {
			id = c.kind + "/" + c.namespace + "/" + c.name
		}
		objects = append(objects, fmt.Sprintf("      - {object: %s, action: %s, reason: %q}\n", id, c.action, c.reason))
	}
	if len(objects) != 3 {
		t.Fatalf("plan: changes %v, want the removed tenant's three objects", changes(res))
	}
	suite := filepath.Join(t.TempDir(), "suite.yaml")
	writeFile(t, suite, "apiVersion: tenantkit.dev/v1alpha1\nkind: PlanTest\ngenerator: "+gen+"\nsource: "+repo+"\ncases:\n"+
		"  - name: removed tenant\n    inventory: "+string(inv)+"\n    expect:\n      objects:\n"+strings.Join(objects, ""))
	code, out, stderr := tool(t, "test", suite)
	if want := "PASS  " + suite + "  removed tenant\n1 passed, 0 failed\n1 of 1 cases: " + noCluster + "\n"; code != 0 || string(out) != want || stderr != "" {
		t.Errorf("plan test: exit %d, stderr %q, output\n%s\nwant 0 and\n%s", code, stderr, out, want)
	}
}
