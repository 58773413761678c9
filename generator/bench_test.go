package generator

import (
	"context"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tenantkit/tenantkit/inventory"
	"github.com/tenantkit/tenantkit/pathpattern"
)

// The benchmarks write their synthetic monorepos (synth_test.go) to a
// temporary directory once per run of the benchmark function (each has
// sub-benchmarks, so its own body runs once), never in plain go test, and
// remove each before writing the next. A pattern that names sizes writes
// only those (see benchSelected):
//
//	go test ./generator -run '^$' -bench 'BenchmarkPlan$/tenants=10000$' -count 3
//
// Besides ns/op, B/op and allocs/op they report:
//
//	ns/tenant     the time per tenant (3 modules of 5 files each)
//	cpu-ns/tenant the CPU time (user and system, all threads) per tenant;
//	              BenchmarkFloor's too, to compare on a busy machine,
//	              where a plan's wall-clock time depends on the cores
//	              that other processes leave it
//	peak-RSS-MiB  the process's resident-set high-water mark (VmHWM) during
//	              the sub-benchmark: reset before it (see resetPeakRSS) and
//	              read after it; Linux only
//	plan-RSS-KiB/tenant
//	              what the plan adds to the resident set: the high-water
//	              mark over the resident set before the loop, per tenant
//	              (the test binary and its trees' configuration are not
//	              counted); Linux only
//	x-floor       BenchmarkPlan only: the time per plan over the floor's, the
//	              time it takes to read and hash the files the plan reads
//	              (see floor_test.go), on the same tree: one read of the
//	              floor follows each plan, with the benchmark's timer
//	              stopped, and x-floor is the plans' total time over the
//	              floor reads', so that the machine's speed, which moves
//	              from one run to the next on a shared machine, moves both
//	              alike
var benchSizes = []int{100, 1000, 10000}

func benchConfig(tenants int) synthConfig {
	return synthConfig{Tenants: tenants, Modules: 3, Files: 5, Unrelated: tenants, MetadataEvery: 2}
}

// BenchmarkPlan plans a synthetic monorepo from scratch: discovery, the
// name policy, namespace metadata, inputs, files and digests, the
// inventory diff and garbage collection, as one run of the tool does after
// loading its input. It reads the same tree through two sources, one after
// the other, each against reads of the floor between its plans (x-floor):
//
//	os.Root  root.FS() of an os.Root, what the tool and the controller
//	         example pass by default
//	dirfs    the opt-in link-free file system of package dirfs
func BenchmarkPlan(b *testing.B) {
	forSynthTrees(b, func(n int, c synthConfig, gen, repo string) {
		g, rootSrcs := synthRequest(b, gen, repo)
		names := floorFiles(b, gen, repo, c)
		b.Run(fmt.Sprintf("tenants=%d", n), func(b *testing.B) {
			for _, src := range []struct {
				name string
				srcs func() map[string]fs.FS
			}{
				{name: "os.Root", srcs: func() map[string]fs.FS { return rootSrcs }},
				{name: "dirfs", srcs: func() map[string]fs.FS { return synthDirFS(b, repo) }},
			} {
				b.Run(src.name, func(b *testing.B) {
					srcs := src.srcs()
					checkSynth(b, synthPlan(b, g, srcs, nil), c, 0)
					if err := readFloor(names); err != nil { // warm the caches as the plan did
						b.Fatal(err)
					}
					floor := benchPlan(b, g, srcs, nil, emptyCluster{}.cluster(), n, func() error { return readFloor(names) })
					b.ReportMetric(float64(b.Elapsed())/float64(floor), "x-floor")
				})
			}
		})
	})
}

// BenchmarkPlanSecondRound plans a synthetic monorepo in which 1% of the
// tenants changed (synthChanged) since a first round, whose inventory it
// is given: what a controller does on every commit.
func BenchmarkPlanSecondRound(b *testing.B) {
	forSynthTrees(b, func(n int, c synthConfig, gen, repo string) {
		g, srcs := synthRequest(b, gen, repo)
		first := synthPlan(b, g, srcs, nil)
		changeSynth(b, repo, c)
		checkSynth(b, synthPlan(b, g, srcs, first), c, c.synthChanges())
		applied := emptyCluster{}.cluster()
		applied.Objects = appliedCluster(first)
		b.Run(fmt.Sprintf("tenants=%d", n), func(b *testing.B) {
			benchPlan(b, g, srcs, first.Next(nil), applied, n, nil)
		})
	})
}

// BenchmarkPlanShape plans monorepos of the same number of tenants with
// more or fewer modules per tenant and files per module, to show how the
// cost of a plan grows with each; besides ns/tenant it reports the time
// per artifact (module) and per artifact file.
func BenchmarkPlanShape(b *testing.B) {
	const tenants = 300
	for _, shape := range []struct{ modules, files int }{
		{1, 5}, {3, 5}, {9, 5}, {3, 1}, {3, 20},
	} {
		c := synthConfig{Tenants: tenants, Modules: shape.modules, Files: shape.files, Unrelated: tenants, MetadataEvery: 2}
		dir := b.TempDir()
		gen, repo := writeSynth(b, dir, c)
		g, srcs := synthRequest(b, gen, repo)
		checkSynth(b, synthPlan(b, g, srcs, nil), c, 0)
		b.Run(fmt.Sprintf("tenants=%d,modules=%d,files=%d", tenants, shape.modules, shape.files), func(b *testing.B) {
			benchPlan(b, g, srcs, nil, emptyCluster{}.cluster(), tenants, nil)
			perOp := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
			b.ReportMetric(perOp/float64(tenants*shape.modules), "ns/artifact")
			b.ReportMetric(perOp/float64(tenants*shape.modules*shape.files), "ns/file")
		})
		os.RemoveAll(dir)
	}
}

// forSynthTrees calls f with the synthetic monorepo of each size in
// benchSizes that the -test.bench pattern selects (benchSelected): its
// tenant count and config, its generator file and its monorepo directory,
// written before f and removed after it.
func forSynthTrees(b *testing.B, f func(n int, c synthConfig, gen, repo string)) {
	for _, n := range benchSizes {
		if !benchSelected(n) {
			continue
		}
		c := benchConfig(n)
		dir := b.TempDir()
		gen, repo := writeSynth(b, dir, c)
		f(n, c, gen, repo)
		os.RemoveAll(dir)
	}
}

func benchPlan(b *testing.B, g *Generator, srcs map[string]fs.FS, previous []inventory.Entry, c Cluster, tenants int, floor func() error) (floorTotal time.Duration) {
	debug.FreeOSMemory()
	resetPeakRSS()
	base := peakRSS() // just reset: the resident set before the loop
	var floorCPU time.Duration
	cpu := cpuTime()
	b.ReportAllocs()
	// The labels let a CPU profile of the whole run (-cpuprofile) show the
	// plans alone, without the floor's reads or the writing of the tree:
	// go tool pprof -tagfocus bench=plan.
	pprof.Do(context.Background(), pprof.Labels("bench", "plan"), func(ctx context.Context) {
		for b.Loop() {
			if _, err := g.Plan(ctx, srcs, previous, c); err != nil {
				b.Fatal(err)
			}
			if floor == nil {
				continue
			}
			// The floor's allocations and time are not the plan's, but its
			// garbage is collected on the plan's time, as another
			// goroutine's of the embedding process would be.
			b.StopTimer()
			startCPU, start := cpuTime(), time.Now()
			pprof.Do(ctx, pprof.Labels("bench", "floor"), func(context.Context) {
				if err := floor(); err != nil {
					b.Fatal(err)
				}
			})
			floorTotal += time.Since(start)
			floorCPU += cpuTime() - startCPU
			b.StartTimer()
		}
	})
	cpu = cpuTime() - cpu - floorCPU
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*tenants), "ns/tenant")
	if cpu > 0 {
		b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N*tenants), "cpu-ns/tenant")
	}
	if peak := peakRSS(); peak > 0 {
		b.ReportMetric(float64(peak)/(1<<20), "peak-RSS-MiB")
		b.ReportMetric(float64(peak-base)/(1<<10)/float64(tenants), "plan-RSS-KiB/tenant")
	}
	return floorTotal
}

// benchSelected reports whether the -test.bench pattern can select the
// sub-benchmark of n tenants, so that a run of one size does not write the
// trees of the others: when the pattern has "tenants=", only the sizes
// written after it, such as "tenants=1000$" or "tenants=(100|1000)$", are
// selected.
func benchSelected(n int) bool {
	var pattern string
	if f := flag.Lookup("test.bench"); f != nil {
		pattern = f.Value.String()
	}
	_, sizes, ok := strings.Cut(pattern, "tenants=")
	if !ok {
		return true
	}
	return slices.Contains(regexp.MustCompile(`\d+`).FindAllString(sizes, -1), strconv.Itoa(n))
}

// BenchmarkDiscover compares pathpattern's Discover with the approach of
// source-watcher, a filepath.WalkDir of the whole tree with every directory
// tested against the equivalent regular expression, on the synthetic
// monorepos of BenchmarkPlan: both read the tree through the operating
// system's paths (os.DirFS). One more runs Discover through an os.Root,
// as the tool reads its sources.
func BenchmarkDiscover(b *testing.B) {
	p := pathpattern.MustParse("@repo/tenants/{namespace}/modules/{module}")
	re := regexp.MustCompile(`^tenants/(?P<namespace>[^/]+)/modules/(?P<module>[^/]+)$`)
	forSynthTrees(b, func(n int, c synthConfig, _, repo string) {
		fsys := os.DirFS(repo)
		root, err := os.OpenRoot(repo)
		if err != nil {
			b.Fatal(err)
		}
		want, _, err := p.Discover(fsys, nil)
		if err != nil || len(want) != n*c.Modules {
			b.Fatalf("Discover found %d matches, %v; want %d", len(want), err, n*c.Modules)
		}
		got, err := benchWalkRegexp(repo, re)
		if err != nil || !slices.EqualFunc(got, want, func(a, b pathpattern.Match) bool { return a.Path == b.Path }) {
			b.Fatalf("the baseline found %d matches, %v; want %d", len(got), err, len(want))
		}
		b.Run(fmt.Sprintf("tenants=%d/pathpattern", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, _, err := p.Discover(fsys, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("tenants=%d/walkdir-regexp", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := benchWalkRegexp(repo, re); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("tenants=%d/pathpattern-root", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, _, err := p.Discover(root.FS(), nil); err != nil {
					b.Fatal(err)
				}
			}
		})
		root.Close()
	})
}

// benchWalkRegexp is the baseline of BenchmarkDiscover: every directory of the
// tree is read and its path matched against re.
func benchWalkRegexp(root string, re *regexp.Regexp) ([]pathpattern.Match, error) {
	var out []pathpattern.Match
	names := re.SubexpNames()[1:]
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() || p == root {
			return nil
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		sub := re.FindStringSubmatch(rel)
		if sub == nil {
			return nil
		}
		m := pathpattern.Match{Path: rel, Raw: map[string]string{}, Normalized: map[string]string{}}
		for i, name := range names {
			m.Raw[name] = sub[i+1]
			m.Normalized[name] = strings.ToLower(sub[i+1])
		}
		out = append(out, m)
		return nil
	})
	slices.SortFunc(out, func(a, b pathpattern.Match) int { return strings.Compare(a.Path, b.Path) })
	return out, err
}
