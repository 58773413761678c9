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
			fmt.Sprintf("spec.artifacts: : the plan's merges and extractions may count %d units in all (see the errors of each artifact); "+
				"%d were left for the artifacts over their shares, the smallest needs first, and these do not fit: tenant-c/app (at least %d)", over, cl-1, cl),
			`spec.artifacts[0].copy[2].from: @repo/tenants/tenant-c/modules/app/values/values.yaml: rendered from directory "tenants/tenant-c/modules/app": merging into "values.yaml": ` +
				fmt.Sprintf("work budget exceeded: the merge counts %d, and the artifact's share of the plan's budget has %d left of %d "+
					"(the plan's merges and extractions may count %d in all, a unit for each YAML node, each 64 bytes merged and each 1024 bytes decompressed; this build had %d of them left, shared among 3 artifacts)",
					cl, over/3, over/3, over, over),
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
// is read, the error names it, and the plan's error what was left.
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
		want := []string{"spec.artifacts: : the plan's merges and extractions may count 4 units in all (see the errors of each artifact); " +
			"2 were left for the artifacts over their shares, the smallest needs first, and these do not fit: tenant-a/app (at least 22)",
			`spec.artifacts[0].copy[0].from: @repo/tenants/tenant-a/modules/app/chart.tgz: rendered from directory "tenants/tenant-a/modules/app": ` +
				`entry "values.yaml": cannot be extracted: work budget exceeded: a file of 20000 bytes counts 20, and the artifact's share of the plan's budget has 2 left of 4 ` +
				`(the plan's merges and extractions may count 4 in all, a unit for each YAML node, each 64 bytes merged and each 1024 bytes decompressed; this build had 4 of them left, shared among 1 artifact)`}
		if diff := cmp.Diff(want, planErrs(p)); diff != "" {
			t.Errorf("%d workers: errors (-want +got):\n%s", workers, diff)
		}
		if len(p.Artifacts) != 0 {
			t.Errorf("%d workers: artifacts %v, want none", workers, artifactNames(p))
		}
	}
}

// TestPlanWorkBudgetEqualNeeds plans three tenants whose merges need the
// same, with a budget that holds two and a half of them: none fits the
// first, equal share; then the first two in item order are built again,
// and the third fails, with the plan's error naming it.
func TestPlanWorkBudgetEqualNeeds(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	for i := range 150 {
		fmt.Fprintf(&b, "k%03d: %d\n", i, i)
	}
	base, overlay := []byte(b.String()), []byte("b: 1\n")
	bc, _ := mergeCharge(base)
	oc, _ := mergeCharge(overlay)
	need := bc.units() + oc.units()
	modules := map[string]map[string][]byte{}
	for _, tenant := range []string{"tenant-a", "tenant-b", "tenant-c"} {
		modules["tenants/"+tenant+"/modules/app"] = map[string][]byte{"base/values.yaml": base, "values/values.yaml": overlay}
	}
	budget := 2*need + need/2
	for _, workers := range []int{1, 8} {
		p := mustPlan(t, mustCompile(t, mergeSpec(), WithConcurrency(workers), withWorkBudget(budget)), sources(mergeTree(modules)), nil, emptyCluster{}.cluster())
		if diff := cmp.Diff([]string{"tenant-a/app", "tenant-b/app"}, artifactNames(p)); diff != "" {
			t.Errorf("%d workers: artifacts (-want +got):\n%s", workers, diff)
		}
		want := []string{
			fmt.Sprintf("spec.artifacts: : the plan's merges and extractions may count %d units in all (see the errors of each artifact); "+
				"%d were left for the artifacts over their shares, the smallest needs first, and these do not fit: tenant-c/app (at least %d)", budget, budget, need),
			`spec.artifacts[0].copy[2].from: @repo/tenants/tenant-c/modules/app/values/values.yaml: rendered from directory "tenants/tenant-c/modules/app": merging into "values.yaml": ` +
				fmt.Sprintf("work budget exceeded: the merge counts %d, and the artifact's share of the plan's budget has %d left of %d "+
					"(the plan's merges and extractions may count %d in all, a unit for each YAML node, each 64 bytes merged and each 1024 bytes decompressed; this build had %d of them left, shared among 3 artifacts)",
					need, budget/3, budget/3, budget, budget),
		}
		if diff := cmp.Diff(want, planErrs(p)); diff != "" {
			t.Errorf("%d workers: errors (-want +got):\n%s", workers, diff)
		}
	}
}

// TestNextShares: which artifacts over their shares are built again, and
// with what share.
func TestNextShares(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name   string
		needs  []int64
		left   int64
		again  []int
		shares []int64
	}{
		{name: "none over", left: 100},
		{name: "all fit, the rest shared", needs: []int64{30, 20}, left: 100,
			again: []int{0, 1}, shares: []int64{55, 45}},
		{name: "the smallest needs first", needs: []int64{60, 20, 30}, left: 60,
			again: []int{1, 2}, shares: []int64{25, 35}},
		{name: "equal needs in order", needs: []int64{40, 40, 40}, left: 100,
			again: []int{0, 1}, shares: []int64{50, 50}},
		{name: "nothing fits", needs: []int64{40}, left: 39},
		{name: "nothing left", needs: []int64{1}, left: -5},
		{name: "at most an artifact's bounds", needs: []int64{maxArtifactWorkUnits}, left: 10 * maxArtifactWorkUnits,
			again: []int{0}, shares: []int64{maxArtifactWorkUnits}},
		{name: "a need past an artifact's bounds", needs: []int64{maxArtifactWorkUnits + 1}, left: 10 * maxArtifactWorkUnits},
	} {
		t.Run(tt.name, func(t *testing.T) {
			again, shares := nextShares(tt.needs, tt.left)
			if diff := cmp.Diff(tt.again, again); diff != "" {
				t.Errorf("again (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.shares, shares); diff != "" {
				t.Errorf("shares (-want +got):\n%s", diff)
			}
		})
	}
}

// TestWorkBudgetError: the plan's error names the artifacts it gave up
// on, the first ten, and why: what was left, or the rounds spent.
func TestWorkBudgetError(t *testing.T) {
	t.Parallel()
	var items []*item
	var over []int
	var needs []int64
	for i := range 14 {
		items = append(items, &item{namespace: fmt.Sprintf("t%02d", i), name: "app"})
		over, needs = append(over, i), append(needs, int64(100+i))
	}
	names := "t01/app (at least 101), t03/app (at least 103), t04/app (at least 104), t05/app (at least 105), t06/app (at least 106), " +
		"t07/app (at least 107), t08/app (at least 108), t09/app (at least 109), t10/app (at least 110), t11/app (at least 111) and 2 more"
	for _, tt := range []struct {
		name string
		last bool
		want string
	}{
		{name: "what was left", want: "spec.artifacts: Forbidden: the plan's merges and extractions may count 1000 units in all (see the errors of each artifact); " +
			"50 were left for the artifacts over their shares, the smallest needs first, and these do not fit: " + names},
		{name: "the rounds spent", last: true, want: "spec.artifacts: Forbidden: the plan's merges and extractions may count 1000 units in all (see the errors of each artifact), " +
			"and these artifacts went over their shares in each of 8 builds: " + names},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := workBudgetError(1000, 50, items, over, needs, []int{0, 2}, tt.last).Error(); got != tt.want {
				t.Errorf("workBudgetError() =\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}
