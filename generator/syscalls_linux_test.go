package generator

import (
	"bufio"
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The file-system calls that TestPlanFileSystemCalls counts: every call
// that opens, reads, checks or closes a file or directory, on the
// architectures Go runs on under Linux.
var fsCall = regexp.MustCompile(`^\d+ +(openat2?|open|close|read|pread64|fstat|newfstatat|fstatat64|statx|lstat|stat|getdents64|readlinkat)\(`)

const (
	callsModeEnv = "TENANTKIT_FSCALLS_MODE" // plan or floor: TestFileSystemCallsChild's work
	callsDirEnv  = "TENANTKIT_FSCALLS_DIR"  // the directory writeSynth wrote
	beginMarker  = "/tenantkit-fscalls-begin"
	endMarker    = "/tenantkit-fscalls-end"
)

// callsConfig is the small synthetic monorepo of TestPlanFileSystemCalls.
var callsConfig = synthConfig{Tenants: 20, Modules: 3, Files: 5, Unrelated: 10, MetadataEvery: 2}

// TestPlanFileSystemCalls counts, with strace, the file-system calls of one
// plan of a small synthetic monorepo, and those of its floor (the same
// files read with os.ReadFile, see floor_test.go), so that a change that
// makes a plan touch the file system more fails. The plan may make no more
// than the floor's calls plus perDirectory for each directory that the
// pattern or a copy can reach (below the prefix: each tenant's directory,
// its modules directory, each module and the directories below its
// manifests).
//
// The plan reads the tree through root.FS() of an os.Root, which walks
// every name it is given one element at a time (an openat and a close for
// each directory on the way), and through the plan's dirCache, which
// answers the Lstat of a directory seen or listed in a directory read.
// perDirectory is just above what such a plan makes (the test logs the
// counts; docs/performance.md has them), so that a call more per file read
// fails the test, and so does a cache that stops answering.
//
// Through package dirfs, which opens a name with one openat2 call, the
// same plan makes an openat2, fstat and close for each Lstat the cache
// does not answer, and an openat2, two getdents64 and a close for each
// directory read; pathpattern.ReadFile makes no Lstat of the elements of
// the files it reads, since dirfs's Open refuses links itself (see
// readfile.ReadChecked). perDirectoryDirFS is just above that, so that an
// Lstat more per file read fails the test. Where dirfs cannot call openat2
// and walks names, the test does not check it.
//
// The test needs strace (.ci/run installs it) and a kernel that lets it
// trace; without them it is skipped.
func TestPlanFileSystemCalls(t *testing.T) {
	strace, err := exec.LookPath("strace")
	if err != nil {
		t.Skip("strace is not installed; .ci/run installs it")
	}
	if out, err := exec.Command(strace, "-f", "-o", os.DevNull, "true").CombinedOutput(); err != nil {
		t.Skipf("strace cannot trace here: %v: %s", err, out)
	}
	dir := t.TempDir()
	writeSynth(t, dir, callsConfig)
	plan := countCalls(t, strace, dir, "plan")
	linkFree := countCalls(t, strace, dir, "dirfs")
	floor := countCalls(t, strace, dir, "floor")

	dirs := 0
	err = filepath.WalkDir(filepath.Join(dir, "monorepo", "tenants"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() && !strings.Contains(p, "/docs") {
			dirs++
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	const perDirectory, perDirectoryDirFS = 33, 4
	budget := floor.total + perDirectory*dirs
	t.Logf("plan: %d file-system calls %v; through dirfs: %d %v; floor: %d %v; %d directories", plan.total, plan.byCall, linkFree.total, linkFree.byCall, floor.total, floor.byCall, dirs)
	if plan.total > budget {
		t.Errorf("a plan of %d tenants made %d file-system calls, more than the floor's %d plus %d for each of %d directories (%d): %v",
			callsConfig.Tenants, plan.total, floor.total, perDirectory, dirs, budget, plan.byCall)
	}
	if linkFree.byCall["openat2"] == 0 {
		t.Log("dirfs walks names here, without openat2: its budget is not checked")
	} else if budget := floor.total + perDirectoryDirFS*dirs; linkFree.total > budget {
		t.Errorf("through dirfs, a plan of %d tenants made %d file-system calls, more than the floor's %d plus %d for each of %d directories (%d): %v",
			callsConfig.Tenants, linkFree.total, floor.total, perDirectoryDirFS, dirs, budget, linkFree.byCall)
	}
}

type callCount struct {
	total  int
	byCall map[string]int
}

// countCalls runs TestFileSystemCallsChild in mode under strace and counts
// the file-system calls between its markers.
func countCalls(t *testing.T, strace, dir, mode string) callCount {
	t.Helper()
	log := filepath.Join(t.TempDir(), "strace.log")
	cmd := exec.Command(strace, "-f", "-qq", "-o", log, os.Args[0], "-test.run", "^TestFileSystemCallsChild$", "-test.count", "1")
	cmd.Env = append(os.Environ(), callsModeEnv+"="+mode, callsDirEnv+"="+dir, "GOMAXPROCS=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", cmd, err, out)
	}
	f, err := os.Open(log)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	c := callCount{byCall: map[string]int{}}
	in, ended := false, false
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.Contains(line, beginMarker):
			in = true
			continue
		case strings.Contains(line, endMarker):
			in, ended = false, true
		}
		if m := fsCall.FindStringSubmatch(line); in && m != nil {
			c.total++
			c.byCall[m[1]]++
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if !ended || c.total == 0 {
		t.Fatalf("%s: no calls between the markers in %s", mode, log)
	}
	return c
}

// TestFileSystemCallsChild is what TestPlanFileSystemCalls traces: one plan
// (through root.FS(), or dirfs), or one read of the floor, between two Lstat calls of names that do not
// exist, which mark where counting begins and ends.
func TestFileSystemCallsChild(t *testing.T) {
	mode, dir := os.Getenv(callsModeEnv), os.Getenv(callsDirEnv)
	if mode == "" {
		t.Skip("run by TestPlanFileSystemCalls")
	}
	gen, repo := filepath.Join(dir, "generator.yaml"), filepath.Join(dir, "monorepo")
	g, srcs := synthRequest(t, gen, repo)
	names := callsConfig.planFiles()
	os.Lstat(beginMarker)
	var err error
	switch mode {
	case "plan", "dirfs":
		if mode == "dirfs" {
			srcs = synthDirFS(t, repo)
		}
		var p *Plan
		if p, err = g.Plan(context.Background(), srcs, nil, emptyCluster{}.cluster()); err == nil && p.HasErrors() {
			err = p.Errors.ToAggregate()
		}
	case "floor":
		err = readFloor(floorPaths(repo, names))
	default:
		err = fmt.Errorf("mode %q", mode)
	}
	os.Lstat(endMarker)
	if err != nil {
		t.Fatal(err)
	}
}
