package generator

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/tenantkit/tenantkit/nsmeta"
)

// hostileRule is an allowedAnnotations rule of the seed shape, and the
// kind of value that drives it furthest.
type hostileRule struct {
	key, expr string
	value     func(n int) string // a value of size n, growing with n
	max       int                // an n whose value the budget refuses
}

// hostileRules are the rules of the issue "Hostile tenants, round three"
// (distinct, sets.equivalent and sort over a list that the tenant writes)
// and the two comprehensions whose values cost the most CPU per unit of
// cost (package cel's planRules and BenchmarkHostilePlan), with their keys
// in the order the budget charges them: the comprehensions first.
var hostileRules = []hostileRule{
	{key: "hostile.io/1-all-matches", expr: `value.split(',').all(x, x.matches('^[a-z]+$'))`,
		value: func(n int) string { return strings.Repeat("a,", n) + "a" }, max: 128 << 10},
	{key: "hostile.io/2-nested-all", expr: `value.split(',').all(x, x.split(':').all(y, y.size() < 10))`,
		value: func(n int) string { return strings.Repeat(strings.Repeat("a:", 29)+"a,", n) + "a" }, max: 4000},
	{key: "hostile.io/3-distinct", expr: `value.split(',').distinct().size() == value.split(',').size()`,
		value: hexWords, max: 20000},
	{key: "hostile.io/4-sets-equivalent", expr: `sets.equivalent(value.split(','), value.split(','))`,
		value: hexWords, max: 20000},
	{key: "hostile.io/5-sort", expr: `value.split(',').sort() == value.split(',')`,
		value: hexWords, max: 20000},
}

// hexWords returns the hexadecimal numbers 0 to n-1, separated by commas.
func hexWords(n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.FormatInt(int64(i), 16))
	}
	return b.String()
}

// hostileSpec is testSpec with hostileRules and realisticRules as its
// allowedAnnotations.
func hostileSpec() Spec {
	spec := testSpec()
	rules := map[string]string{}
	for _, r := range hostileRules {
		rules[r.key] = r.expr
	}
	for k, r := range realisticRules() {
		rules[k] = r
	}
	spec.ManagedNamespaces.Metadata.FromSource.AllowedAnnotations = rules
	return spec
}

// realisticRules and realisticAnnotations are a realistic tenant's
// annotations and the rules that check them: two dozen short values, by
// regular expressions and CEL rules.
func realisticRules() map[string]string {
	rules := map[string]string{}
	for i := range 24 {
		k := fmt.Sprintf("my.org.io/annotation-%02d", i)
		switch i % 4 {
		case 0:
			rules[k] = `value in ["Enabled", "Disabled"]`
		case 1:
			rules[k] = `value.matches('^https://[a-z0-9.-]+(/[^ ]*)?$')`
		case 2:
			rules[k] = `value.size() <= 256 && value.matches('^[A-Za-z0-9 .,:-]+$')`
		case 3:
			rules[k] = `value.split(',').all(x, x in ["eu", "us", "ap"])`
		}
	}
	return rules
}

func realisticAnnotations() map[string]string {
	values := map[string]string{}
	for i := range 24 {
		k := fmt.Sprintf("my.org.io/annotation-%02d", i)
		switch i % 4 {
		case 0:
			values[k] = "Enabled"
		case 1:
			values[k] = "https://wiki.example.com/teams/" + strings.Repeat("p", 10*i)
		case 2:
			values[k] = strings.Repeat("A short description. ", 10)[:200]
		case 3:
			values[k] = "eu,us,ap"
		}
	}
	return values
}

// hostileValues returns, for each of hostileRules, the largest value that
// its rule evaluates within the budget of a file (nsmeta's, found here by
// bisection through Schema.Apply, so that it follows the budget): it
// spends the whole budget, where a larger one is stopped sooner, by a
// refused call or by a charge made after the work.
func hostileValues(tb testing.TB) map[string]string {
	tb.Helper()
	values := map[string]string{}
	for _, r := range hostileRules {
		s, errs := nsmeta.CompileSchema(nil, map[string]string{r.key: r.expr}, nil)
		if errs != nil {
			tb.Fatal(errs.ToAggregate())
		}
		overBudget := func(n int) bool {
			_, _, errs := s.Apply(context.Background(), nsmeta.Metadata{Annotations: map[string]string{r.key: r.value(n)}})
			return len(errs) > 0 && strings.Contains(errs[0].Detail, "cost budget")
		}
		if !overBudget(r.max) {
			tb.Fatalf("%s: a value of size %d is within the budget", r.key, r.max)
		}
		values[r.key] = r.value(sort.Search(r.max, overBudget) - 1)
	}
	return values
}

// annotationsFile renders annotations as a NamespaceMetadata file.
func annotationsFile(annotations map[string]string) []byte {
	var b strings.Builder
	b.WriteString(emptyMetadataFile + "metadata:\n  annotations:\n")
	for _, k := range sortedKeys(annotations) {
		fmt.Fprintf(&b, "    %s: %s\n", k, strconv.Quote(annotations[k]))
	}
	return []byte(b.String())
}

// hostileTree is a monorepo of n tenants, each with one module, whose
// NamespaceMetadata files file(i) returns.
func hostileTree(n int, file func(i int) []byte) fstest.MapFS {
	fsys := fstest.MapFS{}
	for i := range n {
		t := fmt.Sprintf("tenants/tenant-%04d", i)
		fsys[t+"/modules/app/manifests/deploy.yaml"] = &fstest.MapFile{Data: []byte("kind: Deployment\n")}
		fsys[t+"/namespace-metadata.yaml"] = &fstest.MapFile{Data: file(i)}
	}
	return fsys
}

// BenchmarkHostileTenants plans monorepos of 100 and 1,000 tenants whose
// every NamespaceMetadata file is hostile: it holds, for each of
// hostileRules, the value that spends the whole budget of a file (the
// budget of nsmeta's Schema.Apply, which the rules of one file share), all
// of them within Kubernetes' 256 KiB of annotations. The budget is
// charged key by key in sorted order, so the first key of a file spends it
// and the others find it spent. Files:
//
//	lead=comprehension  every file starts with a comprehension (all_matches,
//	                    or nested_all in every other file): the worst
//	                    tenant, at the most CPU a unit of cost buys
//	lead=rotating       the file of tenant i holds the values of rules
//	                    i%5 to 4: each rule leads in a fifth of the files
//	realistic           no hostile value: two dozen short annotations
//	                    that pass, for comparison
//
// Besides ns/op (the wall-clock time of one plan), B/op and allocs/op, it
// reports cpu-ns/op (user and system CPU time of the process, all threads,
// per plan; Linux only) and cpu-ns/tenant. A plan spreads its tenants over
// GOMAXPROCS goroutines, so its wall-clock time depends on the cores that
// other processes leave it; the verdicts never do (TestHostileTenantsBudget).
// docs/performance.md has the figures.
//
//	go test ./generator -run '^$' -bench BenchmarkHostileTenants -benchtime 1x -count 3
func BenchmarkHostileTenants(b *testing.B) {
	hostile := hostileValues(b)
	size := 0
	for _, v := range hostile {
		size += len(v)
	}
	if size > 256<<10 {
		b.Fatalf("the hostile values hold %d bytes, over Kubernetes' 256 KiB of annotations", size)
	}
	g := mustCompile(b, hostileSpec())
	files := []struct {
		name string
		file func(i int) []byte
		fail bool
	}{
		{name: "lead=comprehension", fail: true, file: func(i int) []byte {
			a := map[string]string{}
			for j, r := range hostileRules {
				if j > 0 || i%2 == 0 {
					a[r.key] = hostile[r.key]
				}
			}
			return annotationsFile(a)
		}},
		{name: "lead=rotating", fail: true, file: func(i int) []byte {
			a := map[string]string{}
			for _, r := range hostileRules[i%len(hostileRules):] {
				a[r.key] = hostile[r.key]
			}
			return annotationsFile(a)
		}},
		{name: "realistic", file: func(int) []byte { return annotationsFile(realisticAnnotations()) }},
	}
	for _, f := range files {
		for _, n := range []int{100, 1000} {
			if !benchSelected(n) {
				continue
			}
			srcs := sources(hostileTree(n, f.file))
			checkHostilePlan(b, mustPlan(b, g, srcs, nil, emptyCluster{}.cluster()), n, f.fail)
			b.Run(fmt.Sprintf("%s/tenants=%d", f.name, n), func(b *testing.B) {
				b.ReportAllocs()
				cpu := cpuTime()
				for b.Loop() {
					if _, err := g.Plan(context.Background(), srcs, nil, emptyCluster{}.cluster()); err != nil {
						b.Fatal(err)
					}
				}
				if cpu = cpuTime() - cpu; cpu > 0 {
					b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
					b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N*n), "cpu-ns/tenant")
				}
			})
		}
	}
}

// checkHostilePlan checks that a plan of n tenants fails every tenant's
// namespace (fail), or creates every one.
func checkHostilePlan(tb testing.TB, p *Plan, n int, fail bool) {
	tb.Helper()
	if !fail {
		if len(p.Namespaces) != n || len(p.Errors) > 0 {
			tb.Fatalf("%d namespaces, errors %v; want %d namespaces and no error", len(p.Namespaces), p.Errors.ToAggregate(), n)
		}
		return
	}
	failed, budget := map[string]bool{}, 0
	for _, e := range p.Errors {
		failed[e.Field[:strings.Index(e.Field, ":")]] = true
		if strings.Contains(e.Detail, "failed to evaluate within the CEL cost budget") {
			budget++
		}
	}
	if len(p.Namespaces) != 0 || len(failed) != n || budget == 0 {
		tb.Fatalf("%d namespaces, %d files failed, %d errors of the budget; want none, %d and some", len(p.Namespaces), len(failed), budget, n)
	}
}

// TestHostileTenantsBudget plans a hostile tenant and a realistic one: the
// hostile file exhausts the budget at its first key, which is an error
// naming the file and key, the value's size, the rule and the budget, and
// leaves nothing for the next key, which fails too; the hostile namespace
// fails alone, and the realistic one gets its annotations. The outcome is
// counted, never timed: the same on every machine, whatever its load.
func TestHostileTenantsBudget(t *testing.T) {
	t.Parallel()
	g := mustCompile(t, hostileSpec())
	hostile := map[string]string{
		hostileRules[0].key: hostileRules[0].value(39999), // "a,a,...,a", 79,999 bytes
		hostileRules[2].key: "a,b",
	}
	fsys := tree("tenants/tenant-a/modules/app", "tenants/tenant-b/modules/app")
	fsys["tenants/tenant-a/namespace-metadata.yaml"] = &fstest.MapFile{Data: annotationsFile(hostile)}
	fsys["tenants/tenant-b/namespace-metadata.yaml"] = &fstest.MapFile{Data: annotationsFile(realisticAnnotations())}
	p := mustPlan(t, g, sources(fsys), nil, emptyCluster{}.cluster())

	const file = "@repo/tenants/tenant-a/namespace-metadata.yaml:metadata.annotations"
	want := field.ErrorList{
		field.Invalid(field.NewPath(file).Key("hostile.io/1-all-matches"), strings.Repeat("a,", 32)+"... (79999 bytes)",
			`rule "value.split(',').all(x, x.matches('^[a-z]+$'))" failed to evaluate within the CEL cost budget of the file: `+
				`its rules may cost 100000 together, charged key by key (labels, then annotations, each in sorted order), `+
				`and 100000 was left for this 79999-byte value: cel: cost limit exceeded: runtime cost must be no more than 100000`),
		field.Invalid(field.NewPath(file).Key("hostile.io/3-distinct"), "a,b",
			`rule "value.split(',').distinct().size() == value.split(',').size()" failed to evaluate within the CEL cost budget of the file: `+
				`its rules may cost 100000 together, charged key by key (labels, then annotations, each in sorted order), `+
				`and 0 was left for this 3-byte value: cel: cost limit exceeded: runtime cost must be no more than 0`),
	}
	if diff := cmp.Diff(want, p.Errors); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
	if len(p.Namespaces) != 1 || p.Namespaces[0].Name != "tenant-b" {
		t.Fatalf("namespaces %v, want tenant-b alone", p.Namespaces)
	}
	if diff := cmp.Diff(realisticAnnotations(), p.Namespaces[0].Annotations); diff != "" {
		t.Errorf("tenant-b's annotations (-want +got):\n%s", diff)
	}
}
