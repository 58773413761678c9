package generator

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// withWorkBudget sets the plan's budget of work to units, so that a test
// spends it in milliseconds.
func withWorkBudget(units int64) Option { return func(o *options) { o.workBudget = units } }

// TestPlanWorkBudget plans three tenants whose merges count little, some
// and much against budgets of work that fit them all, fit them only once
// the others left theirs, and fit all but the largest, with one and eight
// workers: the same artifacts and errors every time, and the error names
// the share, the plan's budget, and what the refused merge counts.
func TestPlanWorkBudget(t *testing.T) {
	t.Parallel()
	keys := func(n int) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "k%03d: %d\n", i, i)
		}
		return b.String()
	}
	const overlay = "b: 1\n"
	charge := func(base string) int64 {
		bc, err1 := mergeCharge([]byte(base))
		oc, err2 := mergeCharge([]byte(overlay))
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		return bc.units() + oc.units()
	}
	small, medium, large := keys(2), keys(40), keys(150)
	cs, cm, cl := charge(small), charge(medium), charge(large)
	fsys := mergeTree(map[string]map[string][]byte{
		"tenants/tenant-a/modules/app": {"base/values.yaml": []byte(small), "values/values.yaml": []byte(overlay)},
		"tenants/tenant-b/modules/app": {"base/values.yaml": []byte(medium), "values/values.yaml": []byte(overlay)},
		"tenants/tenant-c/modules/app": {"base/values.yaml": []byte(large), "values/values.yaml": []byte(overlay)},
	})
	all := []string{"tenant-a/app", "tenant-b/app", "tenant-c/app"}
	over := cs + cm + cl - 1
	if over/3 < cm || over/3 >= cl {
		t.Fatalf("charges %d, %d, %d: the medium one must fit a third of %d, the large one not", cs, cm, cl, over)
	}
	for _, tt := range []struct {
		name      string
		budget    int64
		artifacts []string
		errs      []string
	}{
		{name: "a third of it fits each", budget: 3 * cl, artifacts: all},
		{name: "the largest fits what the others left", budget: cs + cm + cl, artifacts: all},
		{name: "the largest is over what the others left", budget: over, artifacts: all[:2], errs: []string{
			`spec.artifacts[0].copy[2].from: @repo/tenants/tenant-c/modules/app/values/values.yaml: rendered from directory "tenants/tenant-c/modules/app": merging into "values.yaml": ` +
				fmt.Sprintf("work budget exceeded: the merge counts %d, and the artifact's share of the plan's budget has %d left of %d "+
					"(the plan's merges and extractions may count %d in all, a unit for each YAML node, each 64 bytes merged and each 1024 bytes decompressed; %d were left, shared equally by 1 artifact)",
					cl, cl-1, cl-1, over, cl-1),
		}},
	} {
		for _, workers := range []int{1, 8} {
			t.Run(fmt.Sprintf("%s/workers=%d", tt.name, workers), func(t *testing.T) {
				p := mustPlan(t, mustCompile(t, mergeSpec(), WithConcurrency(workers), withWorkBudget(tt.budget)), sources(fsys), nil, emptyCluster{}.cluster())
				if diff := cmp.Diff(tt.errs, planErrs(p)); diff != "" {
					t.Errorf("errors (-want +got):\n%s", diff)
				}
				if diff := cmp.Diff(tt.artifacts, artifactNames(p)); diff != "" {
					t.Errorf("artifacts (-want +got):\n%s", diff)
				}
			})
		}
	}
}

// TestPlanWorkBudgetExtract plans a tenant whose archive decompresses to
// more than its share of the plan's work: its file is refused before it
// is read, and the error names it.
func TestPlanWorkBudgetExtract(t *testing.T) {
	t.Parallel()
	fsys := mergeTree(map[string]map[string][]byte{
		"tenants/tenant-a/modules/app": {
			"chart.tgz":          tgz(t, tarEntry{name: "values.yaml", body: strings.Repeat("a: 1\n", 4000)}),
			"values/values.yaml": []byte("b: 1\n"),
		},
	})
	for _, workers := range []int{1, 8} {
		p := mustPlan(t, mustCompile(t, mergeSpec(), WithConcurrency(workers), withWorkBudget(4)), sources(fsys), nil, emptyCluster{}.cluster())
		want := []string{`spec.artifacts[0].copy[0].from: @repo/tenants/tenant-a/modules/app/chart.tgz: rendered from directory "tenants/tenant-a/modules/app": ` +
			`entry "values.yaml": cannot be extracted: work budget exceeded: a file of 20000 bytes counts 20, and the artifact's share of the plan's budget has 2 left of 4 ` +
			`(the plan's merges and extractions may count 4 in all, a unit for each YAML node, each 64 bytes merged and each 1024 bytes decompressed; 4 were left, shared equally by 1 artifact)`}
		if diff := cmp.Diff(want, planErrs(p)); diff != "" {
			t.Errorf("%d workers: errors (-want +got):\n%s", workers, diff)
		}
		if len(p.Artifacts) != 0 {
			t.Errorf("%d workers: artifacts %v, want none", workers, artifactNames(p))
		}
	}
}
