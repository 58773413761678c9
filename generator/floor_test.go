package generator

import (
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// The floor of a plan is what no planner can avoid: reading every file that
// the plan must read (each artifact's files, its inputs file and each
// namespace-metadata.yaml) and hashing it with sha256, on every core, given
// the list of their paths. A plan does more (it finds the files, parses
// YAML, checks metadata, diffs the inventory), and the benchmarks report how
// far it is from the floor: BenchmarkPlan's x-floor is the time of its
// plans over that of a read of the floor after each, on the same tree.
//
//	go test ./generator -run '^$' -bench 'BenchmarkPlan$|BenchmarkFloor$' -benchmem

// planFiles returns the paths of the files that a plan of the synthetic
// monorepo reads, relative to the monorepo: not the READMEs, the docs or
// the platform's policies.
func (c synthConfig) planFiles() []string {
	var out []string
	c.files(func(f synthFile) {
		if strings.HasPrefix(f.path, "tenants/") && strings.HasSuffix(f.path, ".yaml") {
			out = append(out, f.path)
		}
	})
	return out
}

// readFloor reads and hashes every file of names below repo, on every
// core, as os.ReadFile and sha256.Sum256 do.
func readFloor(repo string, names []string) error {
	var (
		next     atomic.Int64
		wg       sync.WaitGroup
		mu       sync.Mutex
		firstErr error
	)
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= len(names) {
					return
				}
				data, err := os.ReadFile(filepath.Join(repo, filepath.FromSlash(names[i])))
				if err != nil {
					mu.Lock()
					firstErr = err
					mu.Unlock()
					return
				}
				sha256.Sum256(data)
			}
		})
	}
	wg.Wait()
	return firstErr
}

// floorFiles returns the files of the floor of the synthetic monorepo c
// (planFiles), after checking that they are exactly the files that a plan
// reads: the sources of its artifacts' files, their inputs files and the
// namespaces' metadata files.
func floorFiles(tb testing.TB, gen, repo string, c synthConfig) []string {
	tb.Helper()
	g, srcs := synthRequest(tb, gen, repo, WithFileLists())
	p := synthPlan(tb, g, srcs, nil)
	names := c.planFiles()
	var read []string
	for _, a := range p.Artifacts {
		for _, f := range a.Files {
			read = append(read, f.Source.Path)
		}
		read = append(read, a.Path+"/applier-inputs.yaml")
	}
	for _, ns := range p.Namespaces {
		// Every namespace's file is required and read.
		read = append(read, "tenants/"+ns.Name+"/namespace-metadata.yaml")
	}
	slices.Sort(read)
	want := slices.Sorted(slices.Values(names))
	if !slices.Equal(read, want) {
		tb.Fatalf("the plan read %d files, the floor %d", len(read), len(want))
	}
	return names
}

// BenchmarkFloor reads the floor of BenchmarkPlan's monorepos.
func BenchmarkFloor(b *testing.B) {
	forSynthTrees(b, func(n int, c synthConfig, gen, repo string) {
		names := floorFiles(b, gen, repo, c)
		b.Run(fmt.Sprintf("tenants=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			cpu := cpuTime()
			for b.Loop() {
				if err := readFloor(repo, names); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64((cpuTime()-cpu).Nanoseconds())/float64(b.N*n), "cpu-ns/tenant")
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/tenant")
			b.ReportMetric(float64(len(names)), "files")
		})
	})
}
