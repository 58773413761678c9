package generator

import (
	"crypto/sha256"
	"fmt"
	"io"
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

// readFloor reads and hashes every file of paths, on every core: each
// opened, its size read with fstat, read up to the read that returns
// nothing more and closed, the calls of os.ReadFile, then hashed with
// sha256. Each goroutine reads into a buffer of its own that it reuses, so
// that the floor allocates next to nothing: BenchmarkPlan reads it between
// its plans, whose memory it measures.
func readFloor(paths []string) error {
	return onEveryCore(len(paths), func(i int, buf []byte) ([]byte, error) {
		buf, err := readInto(buf[:0], paths[i])
		if err == nil {
			sha256.Sum256(buf)
		}
		return buf, err
	})
}

// onEveryCore calls f(i, buf) for each i in [0, n), on GOMAXPROCS
// goroutines that take the next i in turn, each with a buffer of its own
// that f may grow and return; it stops at the first error and returns it.
func onEveryCore(n int, f func(i int, buf []byte) ([]byte, error)) error {
	var (
		next     atomic.Int64
		wg       sync.WaitGroup
		mu       sync.Mutex
		firstErr error
	)
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			var buf []byte
			for {
				i := int(next.Add(1)) - 1
				if i >= n {
					return
				}
				var err error
				if buf, err = f(i, buf); err != nil {
					mu.Lock()
					firstErr = err
					mu.Unlock()
					return
				}
			}
		})
	}
	wg.Wait()
	return firstErr
}

// readInto reads the file name into buf, as os.ReadFile reads it.
func readInto(buf []byte, name string) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return buf, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return buf, err
	}
	buf = slices.Grow(buf, int(info.Size())+1)
	for {
		n, err := f.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
		if len(buf) == cap(buf) {
			buf = slices.Grow(buf, 512)
		}
	}
}

// floorFiles returns the files of the floor of the synthetic monorepo c
// (planFiles, as paths of the operating system below repo), after checking
// that they are exactly the files that a plan reads: the sources of its
// artifacts' files, their inputs files and the namespaces' metadata files.
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
	return floorPaths(repo, names)
}

// floorPaths returns the paths of the operating system of names below repo.
func floorPaths(repo string, names []string) []string {
	paths := make([]string, len(names))
	for i, name := range names {
		paths[i] = filepath.Join(repo, filepath.FromSlash(name))
	}
	return paths
}

// BenchmarkFloor reads the floor of BenchmarkPlan's monorepos.
func BenchmarkFloor(b *testing.B) {
	forSynthTrees(b, func(n int, c synthConfig, gen, repo string) {
		names := floorFiles(b, gen, repo, c)
		b.Run(fmt.Sprintf("tenants=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			cpu := cpuTime()
			for b.Loop() {
				if err := readFloor(names); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64((cpuTime()-cpu).Nanoseconds())/float64(b.N*n), "cpu-ns/tenant")
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/tenant")
			b.ReportMetric(float64(len(names)), "files")
		})
	})
}
