package generator

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// pinnedTool is the build of the preview tool that BenchmarkTool runs side
// by side with this tree's: the last one before the lean-core work, whose
// speed issue 36 set as the bar. It reads the synthetic generator as this
// tree's does.
const pinnedTool = "9963427"

// BenchmarkTool runs what a platform team runs: the preview tool
// (examples/plan), built from this tree, as a process that plans the
// synthetic monorepo (synth_test.go) through its default source and prints
// the JSON plan to /dev/null. In the same run, one after the other in each
// round, it runs the floor as a process too (toolFloor: list tenants/, then
// read and hash every file under it, on every core) and, when git can build
// it from this clone's history, the pinned build (pinnedTool) on the same
// tree, first in every other round, after checking that both builds plan the
// same artifacts:
//
//	go test ./generator -run '^$' -bench 'BenchmarkTool$' -benchtime 5x
//	go test ./generator -run '^$' -bench 'BenchmarkTool$/tenants=10000$' -benchtime 5x
//
// The tree is written below $TMPDIR: on a tmpfs the file system's cache is
// out of the picture. Besides ns/op (the tool's wall-clock time), it
// reports:
//
//	cpu-ms        the tool's user and system CPU time
//	x-floor, x-floor-cpu
//	              the tool's wall-clock and CPU time over the floor's
//	fs-calls/tenant, floor-fs-calls/tenant
//	              file-system system calls of the tool and of the floor
//	              per tenant (strace -f -c, when strace is installed)
//	peak-RSS-KiB/tenant
//	              the tool's resident-set high-water mark over tenants
//	x-pinned-cpu, x-pinned-wall
//	              the tool's CPU and wall-clock time over the pinned
//	              build's; each above 1 is a regression against it
func BenchmarkTool(b *testing.B) {
	dir := b.TempDir()
	tool := buildTool(b, filepath.Join(dir, "plan"), "")
	pinned := buildTool(b, filepath.Join(dir, "plan-"+pinnedTool), pinnedTool)
	forSynthTrees(b, func(n int, c synthConfig, gen, repo string) {
		args := []string{"-generator", gen, "-source", "repo=" + repo, "-o", "json"}
		if pinned != "" {
			checkSameArtifacts(b, runTool(b, tool, args, true).out, runTool(b, pinned, args, true).out)
		}
		b.Run(fmt.Sprintf("tenants=%d", n), func(b *testing.B) {
			var now, old, floor toolRun
			round := 0
			for b.Loop() {
				// The pinned build runs before the tool in every other
				// round, so that neither always follows the floor.
				pinnedFirst := pinned != "" && round%2 == 1
				round++
				if pinnedFirst {
					b.StopTimer()
					old.add(runTool(b, pinned, args, false))
					b.StartTimer()
				}
				now.add(runTool(b, tool, args, false))
				b.StopTimer()
				floor.add(runFloor(b, repo))
				if pinned != "" && !pinnedFirst {
					old.add(runTool(b, pinned, args, false))
				}
				b.StartTimer()
			}
			// The tool's own wall-clock time, without the preparation of each run.
			b.ReportMetric(float64(now.wall.Nanoseconds())/float64(b.N), "ns/op")
			b.ReportMetric(float64(now.cpu.Milliseconds())/float64(b.N), "cpu-ms")
			b.ReportMetric(float64(now.wall)/float64(floor.wall), "x-floor")
			b.ReportMetric(float64(now.cpu)/float64(floor.cpu), "x-floor-cpu")
			if now.maxRSS > 0 {
				b.ReportMetric(float64(now.maxRSS)/1024/float64(n), "peak-RSS-KiB/tenant")
			} else {
				b.Logf("tenants=%d: no peak RSS: a run's was not above the benchmark's own", n)
			}
			if pinned != "" {
				b.ReportMetric(float64(now.cpu)/float64(old.cpu), "x-pinned-cpu")
				b.ReportMetric(float64(now.wall)/float64(old.wall), "x-pinned-wall")
				if now.maxRSS > 0 && old.maxRSS > 0 {
					b.ReportMetric(float64(now.maxRSS)/float64(old.maxRSS), "x-pinned-rss")
				}
			}
			if calls, floorCalls, ok := countFSCalls(b, tool, args, repo); ok {
				b.ReportMetric(float64(calls)/float64(n), "fs-calls/tenant")
				b.ReportMetric(float64(floorCalls)/float64(n), "floor-fs-calls/tenant")
			}
		})
	})
}

// toolRun is what runs of a tool took: wall-clock and CPU time, and the
// highest resident-set high-water mark, in bytes; -1 when a run's could not
// be told from the benchmark's own (see runTool).
type toolRun struct {
	wall, cpu time.Duration
	maxRSS    int64
	out       []byte
}

func (t *toolRun) add(r toolRun) {
	t.wall += r.wall
	t.cpu += r.cpu
	if t.maxRSS < 0 || r.maxRSS < 0 {
		t.maxRSS = -1
	} else {
		t.maxRSS = max(t.maxRSS, r.maxRSS)
	}
}

// buildTool builds examples/plan at commit (this tree's when "") into
// out and returns out; "" when commit cannot be built from this clone (a
// shallow clone, no git): the benchmark then runs without it, and says so.
func buildTool(b *testing.B, out, commit string) string {
	b.Helper()
	src := ".."
	if commit != "" {
		src = filepath.Join(b.TempDir(), "src")
		archive := exec.Command("sh", "-c", "git archive --format=tar "+commit+" | tar -x -C "+src)
		archive.Dir = ".." // the module's root: git archives the tree below its directory
		if err := os.MkdirAll(src, 0o755); err != nil {
			b.Fatal(err)
		}
		if msg, err := archive.CombinedOutput(); err != nil {
			b.Logf("no side-by-side with %s: git archive: %v: %s", commit, err, msg)
			return ""
		}
	}
	build := exec.Command("go", "build", "-trimpath", "-o", out, "./examples/plan")
	build.Dir = src
	if msg, err := build.CombinedOutput(); err != nil {
		if commit != "" {
			b.Logf("no side-by-side with %s: go build: %v: %s", commit, err, msg)
			return ""
		}
		b.Fatalf("go build ./examples/plan: %v: %s", err, msg)
	}
	return out
}

// runTool runs the tool with args and fails b unless it exits 0. Its
// output goes to /dev/null, or to r.out when keep is set.
func runTool(b *testing.B, tool string, args []string, keep bool) toolRun {
	b.Helper()
	var out, stderr bytes.Buffer
	cmd := exec.Command(tool, args...)
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if !keep {
		null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
		if err != nil {
			b.Fatal(err)
		}
		defer null.Close()
		cmd.Stdout = null
	}
	// Linux carries the parent's resident-set high-water mark into the
	// child's ru_maxrss when the child execs (os/exec starts it sharing the
	// parent's memory): reset this process's mark to what it holds now, and
	// take the child's figure only when it is above that.
	debug.FreeOSMemory()
	resetPeakRSS()
	own := peakRSS()
	start := time.Now()
	if err := cmd.Run(); err != nil {
		b.Fatalf("%s: %v: %s", tool, err, stderr.Bytes())
	}
	r := toolRun{wall: time.Since(start), out: out.Bytes()}
	r.cpu = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		if r.maxRSS = ru.Maxrss << 10; r.maxRSS <= own {
			r.maxRSS = -1 // perhaps the benchmark's own: not reported
		}
	}
	return r
}

// checkSameArtifacts fails b unless the two JSON plans have the same
// artifacts with the same digests: the builds compared did the same work.
func checkSameArtifacts(b *testing.B, now, old []byte) {
	b.Helper()
	digests := func(out []byte) map[string]string {
		var p struct {
			Artifacts []struct{ Namespace, Name, Digest string }
		}
		if err := json.Unmarshal(out, &p); err != nil {
			b.Fatal(err)
		}
		m := map[string]string{}
		for _, a := range p.Artifacts {
			m[a.Namespace+"/"+a.Name] = a.Digest
		}
		return m
	}
	d1, d2 := digests(now), digests(old)
	if len(d1) == 0 || len(d1) != len(d2) {
		b.Fatalf("%d artifacts, the pinned build %d", len(d1), len(d2))
	}
	for k, v := range d1 {
		if d2[k] != v {
			b.Fatalf("artifact %s: digest %s, the pinned build %s", k, v, d2[k])
		}
	}
}

// toolFloor is the floor of a run of the tool: it lists repo/tenants, then
// walks each tenant's directory and reads and hashes every file in it, on
// every core, as os.ReadFile reads a file (readInto); it returns the
// number of files read.
func toolFloor(repo string) (int, error) {
	root := filepath.Join(repo, "tenants")
	tenants, err := os.ReadDir(root)
	if err != nil {
		return 0, err
	}
	var files atomic.Int64
	// walk reads and hashes every file below dir into buf.
	var walk func(dir string, buf []byte) ([]byte, error)
	walk = func(dir string, buf []byte) ([]byte, error) {
		entries, err := os.ReadDir(dir)
		if err != nil {
			return buf, err
		}
		for _, e := range entries {
			p := filepath.Join(dir, e.Name())
			if e.IsDir() {
				buf, err = walk(p, buf)
			} else {
				if buf, err = readInto(buf[:0], p); err == nil {
					sha256.Sum256(buf)
					files.Add(1)
				}
			}
			if err != nil {
				return buf, err
			}
		}
		return buf, nil
	}
	err = onEveryCore(len(tenants), func(i int, buf []byte) ([]byte, error) {
		return walk(filepath.Join(root, tenants[i].Name()), buf)
	})
	return int(files.Load()), err
}

// runFloor runs the floor on repo as a process of its own, as the tool
// runs: this test binary, run again for TestToolFloor.
func runFloor(b *testing.B, repo string) toolRun {
	b.Helper()
	self, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	argv, env := floorCommand(self, repo)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), env)
	start := time.Now()
	if msg, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("the floor: %v: %s", err, msg)
	}
	return toolRun{wall: time.Since(start), cpu: cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()}
}

// floorCommand returns the command line and environment that run the
// floor on repo.
func floorCommand(self, repo string) ([]string, string) {
	return []string{self, "-test.run", "^TestToolFloor$"}, "TENANTKIT_FLOOR=" + repo
}

// countFSCalls counts the file-system system calls of one run of the tool
// and of one of the floor (this test binary, run again for TestToolFloor),
// with strace; ok is false without strace.
func countFSCalls(b *testing.B, tool string, args []string, repo string) (calls, floorCalls int, ok bool) {
	b.Helper()
	if _, err := exec.LookPath("strace"); err != nil {
		return 0, 0, false
	}
	self, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	calls = straceFS(b, append([]string{tool}, args...))
	argv, env := floorCommand(self, repo)
	floorCalls = straceFS(b, argv, env)
	return calls, floorCalls, true
}

// fsSyscalls are the system calls that count as file-system calls.
var fsSyscalls = []string{"openat", "openat2", "open", "read", "pread64", "close", "fstat", "newfstatat", "statx", "lstat", "stat", "getdents64", "readlinkat"}

// straceFS runs argv under strace -f -c and returns its file-system calls.
func straceFS(b *testing.B, argv []string, env ...string) int {
	b.Helper()
	report := filepath.Join(b.TempDir(), "strace.txt")
	cmd := exec.Command("strace", append([]string{"-f", "-c", "-o", report, "-e", "trace=" + strings.Join(fsSyscalls, ",")}, argv...)...)
	cmd.Env = append(os.Environ(), env...)
	if msg, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("strace %s: %v: %.2000s", argv[0], err, msg)
	}
	data, err := os.ReadFile(report)
	if err != nil {
		b.Fatal(err)
	}
	total := 0
	for _, line := range strings.Split(string(data), "\n") {
		// % time, seconds, usecs/call, calls, [errors,] syscall
		f := strings.Fields(line)
		if len(f) >= 5 && f[len(f)-1] != "total" {
			if n, err := strconv.Atoi(f[3]); err == nil {
				total += n
			}
		}
	}
	return total
}

// TestToolFloor runs toolFloor on $TENANTKIT_FLOOR, for BenchmarkTool's
// count of the floor's file-system calls; without it, it checks that the
// floor reads every file below tenants/ of a small synthetic monorepo, and
// nothing else.
func TestToolFloor(t *testing.T) {
	if repo := os.Getenv("TENANTKIT_FLOOR"); repo != "" {
		if _, err := toolFloor(repo); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Parallel()
	c := synthConfig{Tenants: 3, Modules: 2, Files: 2, Unrelated: 4, MetadataEvery: 2}
	_, repo := writeSynth(t, t.TempDir(), c)
	want := 0
	c.files(func(f synthFile) {
		if strings.HasPrefix(f.path, "tenants/") {
			want++
		}
	})
	if got, err := toolFloor(repo); err != nil || got != want {
		t.Errorf("toolFloor() = %d, %v; want %d files", got, err, want)
	}
}
