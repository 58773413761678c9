package generator

import (
	"context"
	"crypto/rand"
	"fmt"
	"io/fs"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/tenantkit/tenantkit/pathpattern"
)

// The bounds of issue 34 ("Hostile tenants, round four") as benchmarks:
// what one file costs Merge and one archive Extract at their budgets, what
// one module's whole artifact costs at its budgets, what plans of hostile
// tenants cost, and how late a plan stops after its deadline. Besides
// ns/op, B/op and allocs/op they report:
//
//	cpu-ms/op      user and system CPU time of the process per operation,
//	               all threads (Linux only)
//	counted        countMergeNodes' count of a file, against the budget of
//	               a file (maxMergeNodes)
//	parsed         the nodes that yaml/v3 parses in it
//	peak-RSS-MiB   the process's resident-set high-water mark during the
//	               sub-benchmark (Linux only; see resetPeakRSS)
//	cpu-ms/tenant  a plan's CPU time per tenant
//	overrun-ms     how long after its deadline a plan returned
//
//	go test ./generator -run '^$' -bench 'BenchmarkHostile(Merge|Extract|Artifact|MergePlan|Deadline)' -benchtime 3x

// withinFileBudget reports whether a merge decodes data: at most
// maxMergeBytes, charged at most maxMergeUnits.
func withinFileBudget(data []byte) bool {
	c, err := mergeCharge(data)
	return err == nil && len(data) <= maxMergeBytes && c.units() <= maxMergeUnits
}

// mergeFill returns prefix, then item(0), item(1), ... as many as keep the
// file, with suffix, within the budget of a file (withinFileBudget): the
// most of a kind of file that a merge decodes.
func mergeFill(prefix string, item func(i int) string, suffix string) []byte {
	build := func(k int) []byte {
		var b strings.Builder
		b.WriteString(prefix)
		for i := range k {
			b.WriteString(item(i))
		}
		b.WriteString(suffix)
		return []byte(b.String())
	}
	lo, hi := 0, maxMergeBytes
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if withinFileBudget(build(mid)) {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return build(lo)
}

// nested returns open nested as deep as the budget of a file allows,
// around leaf, each closed by close.
func nested(prefix, open, leaf, close string) []byte {
	build := func(d int) []byte {
		return []byte(prefix + strings.Repeat(open, d) + leaf + strings.Repeat(close, d) + "\n")
	}
	lo, hi := 0, maxMergeUnits
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if withinFileBudget(build(mid)) {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return build(lo)
}

// realisticValues is a chart's values file as large charts write them:
// sections of settings, each documented by comments (some with quotes in
// them) and commented-out examples, with nested mappings, lists of
// mappings, empty lists and maps, and a block scalar of configuration;
// about 200 KB, a node for every 20 bytes (the largest charts' values
// files hold one for every 60).
func realisticValues() []byte {
	var b strings.Builder
	for i := 0; b.Len() < 200_000; i++ {
		fmt.Fprintf(&b, "## Component %d's settings\n## ref: https://example.com/docs/component-%d\n##\ncomponent%d:\n", i, i, i)
		b.WriteString("  # -- Whether to deploy it. It's on by default; set \"false\" to skip it.\n  enabled: true\n")
		b.WriteString("  ## Settings that most installations leave alone: the defaults suit a cluster of\n" +
			"  ## a few hundred nodes. Larger clusters raise the limits below, and the\n  ## scrape interval with them.\n" +
			"  ## ref: https://example.com/docs/sizing\n  ##\n  # podSecurityContext:\n  #   runAsNonRoot: true\n  #   runAsUser: 65534\n")
		b.WriteString("  image:\n    # -- The image's registry\n    registry: quay.io\n    repository: example/component\n    tag: v1.2.3\n    pullPolicy: IfNotPresent\n")
		b.WriteString("  # -- Resources, as a container's resources field takes them\n  resources: {}\n  #  limits:\n  #    cpu: 100m\n  #    memory: 128Mi\n")
		b.WriteString("  nodeSelector: {}\n  tolerations: []\n  affinity: {}\n  podAnnotations: {}\n")
		b.WriteString("  service:\n    type: ClusterIP\n    port: 8080\n    annotations: {}\n    labels:\n      app.kubernetes.io/part-of: example\n")
		b.WriteString("  extraArgs:\n    - --log.level=info\n    - --web.listen-address=:8080\n")
		b.WriteString("  env:\n    - name: GOMAXPROCS\n      value: \"2\"\n    - name: TZ\n      value: UTC\n")
		if i%4 == 0 {
			b.WriteString("  config: |\n    global:\n      scrape_interval: 30s\n      evaluation_interval: 30s\n    rule_files:\n      - /etc/rules/*.yaml\n")
		}
	}
	return []byte(b.String())
}

// hostileMergeFiles are the files of at most 1 MiB that cost Merge the
// most for the budget of a file, each the most of its kind that the budget
// lets through, and arrayBase, issue 34's, which it refuses, and
// realisticValues, for comparison.
func hostileMergeFiles() []struct {
	name string
	data []byte
} {
	// An anchor of 100 KB and nine aliases to it: a megabyte, decoded.
	aliases := "l:\n- &x " + strings.Repeat("x", 100_000) + "\n" + strings.Repeat("- *x\n", 9)
	return []struct {
		name string
		data []byte
	}{
		{"realistic", realisticValues()},
		{"issue-34-base", []byte(arrayBase())},
		{"flow-list", mergeFill("a: [", func(int) string { return "1," }, "1]\n")},
		{"block-list", mergeFill("a:\n", func(int) string { return "- 1\n" }, "")},
		{"keys", mergeFill("", func(i int) string { return fmt.Sprintf("k%06d: 1\n", i) }, "")},
		{"keys-and-bytes", mergeFill("", func(i int) string { return fmt.Sprintf("k%06d: %s\n", i, strings.Repeat("v", 60)) }, "")},
		{"long-keys-and-values", mergeFill("", func(i int) string {
			return fmt.Sprintf("%s%06d: %s\n", strings.Repeat("k", 60), i, strings.Repeat("v", 60))
		}, "")},
		{"empty-values", mergeFill("", func(i int) string { return fmt.Sprintf("k%d:\n", i) }, "")},
		{"flow-maps", mergeFill("a: [", func(int) string { return "{a: 1}," }, "{}]\n")},
		{"list-of-maps", mergeFill("a:\n", func(i int) string { return "- a: 1\n" }, "")},
		{"flow-pairs", mergeFill("a: [", func(i int) string { return "a: 1," }, "a: 1]\n")},
		{"nested-maps", mergeFill("", func(i int) string { return fmt.Sprintf("k%05d:\n  a:\n    b: 1\n", i) }, "")},
		{"documents", mergeFill("", func(i int) string { return fmt.Sprintf("---\nk%06d: 1\n", i) }, "")},
		{"deep-flow-lists", nested("a: ", "[", "", "]")},
		{"deep-block-lists", mergeFill("a:\n", func(int) string { return "- " }, "x\n")},
		{"deep-flow-maps", nested("a: ", "{a: ", "1", "}")},
		{"long-strings", mergeFill("a:\n", func(int) string { return "- " + strings.Repeat("x", 100) + "\n" }, "")},
		{"long-keys", mergeFill("", func(i int) string { return fmt.Sprintf("%s%06d: 1\n", strings.Repeat("k", 200), i) }, "")},
		{"one-scalar", []byte("a: " + strings.Repeat("x", maxMergeBytes-5) + "\n")},
		{"escapes", []byte("a: \"" + strings.Repeat(`\t`, (maxMergeBytes-7)/2) + "\"\n")},
		{"aliases", []byte(aliases)},
	}
}

// BenchmarkHostileMerge merges each of hostileMergeFiles into a copy of
// itself under a 5-byte overlay, as an artifact's merge does: charged,
// then decoded, merged and encoded, or refused. Each must cost at most
// 100 ms of CPU and 64 MiB.
func BenchmarkHostileMerge(b *testing.B) {
	overlay := []byte("b: 1\n")
	for _, f := range hostileMergeFiles() {
		parsed, _ := parsedNodes(f.data)
		b.Run(fmt.Sprintf("file=%s/bytes=%d", f.name, len(f.data)), func(b *testing.B) {
			fsys := fstest.MapFS{"base.yaml": {Data: f.data}, "values.yaml": {Data: overlay}}
			b.ReportAllocs()
			var err error
			cpu := cpuTime()
			for b.Loop() {
				tr := newArtifactTree()
				old := artifactFile{dest: "v.yaml", src: pathpattern.Ref{Alias: "repo", Path: "base.yaml"}, fsys: fsys}
				err = tr.merge(context.Background(), &old, fsys, pathpattern.Ref{Alias: "repo", Path: "values.yaml"})
			}
			reportCPU(b, cpu, 1)
			b.ReportMetric(float64(countMergeNodes(f.data)), "counted")
			b.ReportMetric(float64(parsed), "parsed")
			if err != nil {
				b.Logf("refused: %.200s", err)
			}
		})
	}
}

// reportCPU reports the CPU time since cpu per operation, as cpu-ms/op,
// and per unit when units is more than one, as cpu-ms/tenant.
func reportCPU(b *testing.B, cpu time.Duration, units int) {
	if cpu = cpuTime() - cpu; cpu <= 0 {
		return
	}
	b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N), "cpu-ms/op")
	if units > 1 {
		b.ReportMetric(float64(cpu.Microseconds())/1000/float64(b.N*units), "cpu-ms/tenant")
	}
}

// hostileArchives are the archives that cost Extract the most within its
// bounds, and those of issue 34, item 4, which it refuses.
func hostileArchives(tb testing.TB) []struct {
	name string
	data []byte
} {
	entries := func(n int, name func(int) string, body string) []tarEntry {
		es := make([]tarEntry, n)
		for i := range es {
			es[i] = tarEntry{name: name(i), body: body}
		}
		return es
	}
	random := make([]byte, maxArtifactFileBytes-(64<<10))
	_, _ = rand.Read(random)
	// 64 MiB of files and PAX records of 1 MiB up to the bound of
	// decompressed bytes.
	bomb := entries(16, func(i int) string { return fmt.Sprintf("f%02d", i) }, strings.Repeat("\x00", maxExtractedBytes/16))
	pax := map[string]string{"comment": strings.Repeat("x", 1<<20-64)}
	for i := range (maxDecompressedBytes-maxExtractedBytes)>>20 - 1 {
		bomb = append(bomb, tarEntry{name: fmt.Sprintf("d%02d", i), typ: '5', pax: pax})
	}
	return []struct {
		name string
		data []byte
	}{
		{"entries", tgz(tb, entries(maxArchiveEntries, func(i int) string { return fmt.Sprintf("dir%03d/file%05d.yaml", i%100, i) }, "a: 1\n")...)},
		{"long-names", tgz(tb, entries(maxArchiveEntries, func(i int) string { return fmt.Sprintf("%s/%05d", strings.Repeat("n", 400), i) }, "")...)},
		{"issue-34-deep-names", tgz(tb, entries(10_000, deepName, "")...)},
		{"directory-chains", tgz(tb, entries(10, func(i int) string { return fmt.Sprintf("%05d/", i) + strings.Repeat("a/", 2040) + "f" }, "")...)},
		{"decompressed-bound", tgz(tb, bomb...)},
		{"incompressible", tgz(tb, tarEntry{name: "random", body: string(random)})},
	}
}

// BenchmarkHostileExtract extracts each of hostileArchives into an
// artifact of its own. Each must cost at most 100 ms of CPU and 64 MiB
// besides the files it extracts, which the artifact holds.
func BenchmarkHostileExtract(b *testing.B) {
	for _, a := range hostileArchives(b) {
		b.Run(fmt.Sprintf("archive=%s/bytes=%d", a.name, len(a.data)), func(b *testing.B) {
			fsys := fstest.MapFS{"a.tgz": {Data: a.data}}
			b.ReportAllocs()
			var err error
			cpu := cpuTime()
			for b.Loop() {
				err = extractArchive(context.Background(), newArtifactTree(), fsys, pathpattern.Ref{Alias: "repo", Path: "a.tgz"}, "")
			}
			reportCPU(b, cpu, 1)
			if err != nil {
				b.Logf("refused: %.200s", err)
			}
		})
	}
}

// worstModule is one module whose artifact costs the most its budgets
// allow: an archive that decompresses to the bound (hostileArchives'
// decompressed-bound) and merges of files at the budget of a file until
// the artifact's budget is spent: each of the archive's 16 files is
// replaced by one of 1 MiB of long keys, which a file of its own merges
// over, as far as the budget goes.
func worstModule(tb testing.TB) map[string][]byte {
	var archive []byte
	for _, a := range hostileArchives(tb) {
		if a.name == "decompressed-bound" {
			archive = a.data
		}
	}
	var keys []byte
	for _, f := range hostileMergeFiles() {
		if f.name == "long-keys" {
			keys = f.data
		}
	}
	files := map[string][]byte{"bomb.tgz": archive}
	for i := range 16 {
		files[fmt.Sprintf("base/f%02d", i)] = keys
		files[fmt.Sprintf("values/f%02d", i)] = keys
	}
	return files
}

// BenchmarkHostileArtifact plans one tenant whose module is worstModule:
// one module's whole artifact at its budgets, which must cost at most 1 s
// of CPU and 256 MiB.
func BenchmarkHostileArtifact(b *testing.B) {
	fsys := mergeTree(map[string]map[string][]byte{"tenants/tenant-a/modules/app": worstModule(b)})
	g := mustCompile(b, mergeSpec())
	benchHostilePlan(b, g, fsys, 1)
}

// benchHostilePlan plans fsys with g, reporting the CPU time per tenant and the
// peak resident set.
func benchHostilePlan(b *testing.B, g *Generator, fsys fs.FS, tenants int) {
	srcs := map[string]fs.FS{"repo": fsys}
	p, err := g.Plan(context.Background(), srcs, nil, emptyCluster{}.cluster())
	if err != nil {
		b.Fatal(err)
	}
	if len(p.Errors) > 0 {
		b.Logf("%d errors, the first: %.300s", len(p.Errors), p.Errors[0])
	}
	runtime.GC()
	debug.FreeOSMemory()
	resetPeakRSS()
	b.ReportAllocs()
	cpu := cpuTime()
	for b.Loop() {
		if _, err := g.Plan(context.Background(), srcs, nil, emptyCluster{}.cluster()); err != nil {
			b.Fatal(err)
		}
	}
	reportCPU(b, cpu, tenants)
	if peak := peakRSS(); peak > 0 {
		b.ReportMetric(float64(peak)/(1<<20), "peak-RSS-MiB")
	}
}

// BenchmarkHostileMergePlan plans monorepos of hostile tenants, one module
// each, with 1 and 8 workers:
//
//	attack=many-bases   issue 34, item 1: an archive of 32 arrayBase files
//	                    (35 KB) and 32 five-byte overlays
//	attack=deep-names   issue 34, item 4: the archive of 10,000 deepName
//	                    files (150 KB)
//	attack=workers      issue 34, item 3: one tenant of 8 modules, each an
//	                    archive of one arrayBase and a 5-byte overlay
//	attack=budgets      worstModule: the most each budget allows
//
// The bound is 10 s of CPU for 1,000 tenants that are all
// hostile, which the plan's budget of work keeps (see planWorkUnits):
// cpu-ms/op at tenants=1000 is that figure, and tenants=10 shows what a
// few hostile tenants cost when the budget leaves each much more.
func BenchmarkHostileMergePlan(b *testing.B) {
	base := arrayBase()
	many := map[string][]byte{}
	var bases []tarEntry
	for i := range 32 {
		bases = append(bases, tarEntry{name: fmt.Sprintf("v%02d.yaml", i), body: base})
		many[fmt.Sprintf("values/v%02d.yaml", i)] = []byte("b: 1\n")
	}
	many["bases.tgz"] = tgz(b, bases...)
	var deep []tarEntry
	for i := range 10_000 {
		deep = append(deep, tarEntry{name: deepName(i)})
	}
	deepNames := map[string][]byte{"deep.tgz": tgz(b, deep...), "values/x.yaml": []byte("b: 1\n")}
	one := map[string][]byte{"base.tgz": tgz(b, tarEntry{name: "values.yaml", body: base}), "values/values.yaml": []byte("b: 1\n")}
	worst := worstModule(b)
	for _, attack := range []struct {
		name    string
		modules func(tenant int) map[string]map[string][]byte
		tenants []int
	}{
		{"many-bases", func(t int) map[string]map[string][]byte {
			return map[string]map[string][]byte{fmt.Sprintf("tenants/tenant-%04d/modules/app", t): many}
		}, []int{10, 1000}},
		{"deep-names", func(t int) map[string]map[string][]byte {
			return map[string]map[string][]byte{fmt.Sprintf("tenants/tenant-%04d/modules/app", t): deepNames}
		}, []int{10, 1000}},
		{"workers", func(t int) map[string]map[string][]byte {
			m := map[string]map[string][]byte{}
			for i := range 8 {
				m[fmt.Sprintf("tenants/tenant-%04d/modules/m%d", t, i)] = one
			}
			return m
		}, []int{10, 1000}},
		{"budgets", func(t int) map[string]map[string][]byte {
			return map[string]map[string][]byte{fmt.Sprintf("tenants/tenant-%04d/modules/app", t): worst}
		}, []int{10, 1000}},
	} {
		for _, n := range attack.tenants {
			modules := map[string]map[string][]byte{}
			for t := range n {
				for m, files := range attack.modules(t) {
					modules[m] = files
				}
			}
			fsys := mergeTree(modules)
			for _, workers := range []int{1, 8} {
				b.Run(fmt.Sprintf("attack=%s/tenants=%d/workers=%d", attack.name, n, workers), func(b *testing.B) {
					benchHostilePlan(b, mustCompile(b, mergeSpec(), WithConcurrency(workers)), fsys, n)
				})
			}
		}
	}
}

// BenchmarkHostileDeadline plans 100 tenants whose every module merges
// files within the budgets, so that the plan takes seconds, with a
// deadline of 200 ms, and reports how late after it Plan returned; the
// bound is 100 ms.
func BenchmarkHostileDeadline(b *testing.B) {
	var keys []byte
	for _, f := range hostileMergeFiles() {
		if f.name == "long-keys" {
			keys = f.data
		}
	}
	modules := map[string]map[string][]byte{}
	for t := range 100 {
		modules[fmt.Sprintf("tenants/tenant-%04d/modules/app", t)] = map[string][]byte{"base/v.yaml": keys, "values/v.yaml": keys}
	}
	srcs := map[string]fs.FS{"repo": mergeTree(modules)}
	const deadline = 200 * time.Millisecond
	for _, workers := range []int{1, 8} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			g := mustCompile(b, mergeSpec(), WithConcurrency(workers))
			var worst time.Duration
			for b.Loop() {
				ctx, cancel := context.WithTimeout(context.Background(), deadline)
				start := time.Now()
				_, err := g.Plan(ctx, srcs, nil, emptyCluster{}.cluster())
				if late := time.Since(start) - deadline; late > worst {
					worst = late
				}
				cancel()
				if err == nil {
					b.Fatal("the plan ended before its deadline: the tree is too small to test it")
				}
			}
			b.ReportMetric(float64(worst.Microseconds())/1000, "overrun-ms")
		})
	}
}
