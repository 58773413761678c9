package generator

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
	yamlv2 "go.yaml.in/yaml/v2"
	yamlv3 "go.yaml.in/yaml/v3"

	"github.com/tenantkit/tenantkit/pathpattern"
)

// The hostile inputs of issue 34 ("Hostile tenants, round four"), items 1
// to 4, each with its exact input, and the budgets of Merge and the bounds
// of Extract that now refuse them. Every outcome is counted, never timed;
// hostile_merge_bench_test.go measures what they cost.

// arrayBase is the base file of issue 34, item 1: "a: [1,1,...]", 1,048,575
// bytes, which gzip compresses to about 1.1 KB.
func arrayBase() string { return "a: [" + strings.Repeat("1,", 524284) + "1]\n" }

// mergeSpec is testSpec with the copy operations of issue 34, item 1:
// copy 0 extracts the module's tarballs to the artifact's root, copy 1
// copies its base/ files there (the same attack without Extract), and copy
// 2 merges its values/ files over what they put there.
func mergeSpec() Spec {
	spec := testSpec()
	spec.Artifacts[0].InputsFrom = ""
	spec.Artifacts[0].Copy = []CopyOperation{
		{From: "@repo/tenants/{namespace}/modules/{module}/*.tgz", To: "@artifact/", Strategy: "Extract", Optional: true},
		{From: "@repo/tenants/{namespace}/modules/{module}/base/**", To: "@artifact/", Optional: true},
		{From: "@repo/tenants/{namespace}/modules/{module}/values/**", To: "@artifact/", Strategy: "Merge"},
	}
	return spec
}

// mergeTree is a monorepo for mergeSpec: each module is a directory
// "tenants/<t>/modules/<m>" holding the files given by their paths below
// it.
func mergeTree(modules map[string]map[string][]byte) fstest.MapFS {
	var paths []string
	for m := range modules {
		paths = append(paths, m)
	}
	fsys := tree(paths...)
	for m, files := range modules {
		delete(fsys, m+"/manifests/deploy.yaml")
		for name, data := range files {
			fsys[m+"/"+name] = &fstest.MapFile{Data: data}
		}
	}
	return fsys
}

// planErrs is what a test compares of a plan's errors.
func planErrs(p *Plan) []string {
	var out []string
	for _, e := range p.Errors {
		out = append(out, fmt.Sprintf("%s: %v: %s", e.Field, e.BadValue, e.Detail))
	}
	return out
}

// artifactNames returns the namespace/name of a plan's artifacts.
func artifactNames(p *Plan) []string {
	var out []string
	for _, a := range p.Artifacts {
		out = append(out, a.Namespace+"/"+a.Name)
	}
	return out
}

// TestHostileMergeArrayBase is issue 34, item 1: a base of 1 MiB that
// holds half a million nodes, from a tarball and from a plain file, under
// a 5-byte overlay. Each merge is refused before anything is decoded,
// naming the budget, the file and its size; the tenant whose files are
// small gets its merged file.
func TestHostileMergeArrayBase(t *testing.T) {
	t.Parallel()
	base := arrayBase()
	archive := tgz(t, tarEntry{name: "values.yaml", body: base})
	if len(archive) > 1200 {
		t.Fatalf("the archive holds %d bytes, not about 1.1 KB", len(archive))
	}
	overlay := []byte("b: 1\n")
	fsys := mergeTree(map[string]map[string][]byte{
		"tenants/tenant-a/modules/app": {"base.tgz": archive, "values/values.yaml": overlay},
		"tenants/tenant-b/modules/app": {"base/values.yaml": []byte(base), "values/values.yaml": overlay},
		"tenants/tenant-c/modules/app": {"base.tgz": tgz(t, tarEntry{name: "values.yaml", body: "a: [1, 1]\n"}), "values/values.yaml": overlay},
	})
	p := mustPlan(t, mustCompile(t, mergeSpec()), sources(fsys), nil, emptyCluster{}.cluster())
	detail := func(tenant, from string) string {
		return fmt.Sprintf(`spec.artifacts[0].copy[2].from: @repo/tenants/%[1]s/modules/app/values/values.yaml: rendered from directory "tenants/%[1]s/modules/app": `+
			`merging into "values.yaml": merge budget exceeded: the file there (from "@repo/tenants/%[1]s/modules/app/%[2]s") `+
			`must count no more than 17408 to be merged (a unit for each YAML node and each 64 bytes), and it counts 1064960 (1048575 bytes, 1048576 YAML nodes)`, tenant, from)
	}
	want := []string{detail("tenant-a", "base.tgz"), detail("tenant-b", "base/values.yaml")}
	if diff := cmp.Diff(want, planErrs(p)); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"tenant-c/app"}, artifactNames(p)); diff != "" {
		t.Fatalf("artifacts (-want +got):\n%s", diff)
	}
	got, err := mergeYAML(context.Background(), []byte("a: [1, 1]\n"), overlay)
	if err != nil || string(got) != "a:\n- 1\n- 1\nb: 1\n" {
		t.Fatalf("mergeYAML() = %q, %v", got, err)
	}
}

// TestHostileMergeManyBases is issue 34, item 1's module of 32 bases: one
// archive of 32 files like arrayBase (about 35 KB), and 32 overlays. The
// first merge is refused, and the copy operation stops there: the
// artifact fails whatever its other files hold, so they are not read.
func TestHostileMergeManyBases(t *testing.T) {
	t.Parallel()
	base := arrayBase()
	files := map[string][]byte{}
	var entries []tarEntry
	for i := range 32 {
		name := fmt.Sprintf("v%02d.yaml", i)
		entries = append(entries, tarEntry{name: name, body: base})
		files["values/"+name] = []byte("b: 1\n")
	}
	files["bases.tgz"] = tgz(t, entries...)
	fsys := mergeTree(map[string]map[string][]byte{
		"tenants/tenant-a/modules/app": files,
		"tenants/tenant-b/modules/app": {"base/v.yaml": []byte("a: 1\n"), "values/v.yaml": []byte("b: 1\n")},
	})
	reads := &countingFS{FS: fsys, match: "/values/"}
	p := mustPlan(t, mustCompile(t, mergeSpec()), map[string]fs.FS{"repo": reads}, nil, emptyCluster{}.cluster())
	want := []string{`spec.artifacts[0].copy[2].from: @repo/tenants/tenant-a/modules/app/values/v00.yaml: rendered from directory "tenants/tenant-a/modules/app": ` +
		`merging into "v00.yaml": merge budget exceeded: the file there (from "@repo/tenants/tenant-a/modules/app/bases.tgz") ` +
		`must count no more than 17408 to be merged (a unit for each YAML node and each 64 bytes), and it counts 1064960 (1048575 bytes, 1048576 YAML nodes)`}
	if diff := cmp.Diff(want, planErrs(p)); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"tenant-b/app"}, artifactNames(p)); diff != "" {
		t.Errorf("artifacts (-want +got):\n%s", diff)
	}
	// tenant-a's first overlay and tenant-b's only one.
	if n := reads.opened.Load(); n != 2 {
		t.Errorf("%d overlays read, want 2", n)
	}
}

// countingFS counts the files opened whose names contain match, and calls
// onOpen, if set, before it opens one.
type countingFS struct {
	fs.FS
	match  string
	opened atomic.Int32
	onOpen func(name string)
}

// Stat stats a file without opening it, as a file system that reads
// files does.
func (c *countingFS) Stat(name string) (fs.FileInfo, error) { return fs.Stat(c.FS, name) }

func (c *countingFS) Open(name string) (fs.File, error) {
	f, err := c.FS.Open(name)
	if err == nil && strings.Contains(name, c.match) {
		if info, err := f.Stat(); err == nil && !info.IsDir() {
			c.opened.Add(1)
			if c.onOpen != nil {
				c.onOpen(name)
			}
		}
	}
	return f, err
}

// TestHostileMergeContext is issue 34, item 2: a plan's merges honour its
// context. The context ends while the first of twelve merges reads its
// overlay: that merge stops before it decodes, no other overlay is read,
// and Plan returns the context's error.
func TestHostileMergeContext(t *testing.T) {
	t.Parallel()
	files := map[string][]byte{}
	var entries []tarEntry
	for i := range 12 {
		name := fmt.Sprintf("v%02d.yaml", i)
		entries = append(entries, tarEntry{name: name, body: "a: 1\n"})
		files["values/"+name] = []byte("b: 1\n")
	}
	files["bases.tgz"] = tgz(t, entries...)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	fsys := &countingFS{FS: mergeTree(map[string]map[string][]byte{"tenants/tenant-a/modules/app": files}), match: "/values/"}
	fsys.onOpen = func(string) { cancel() }
	g := mustCompile(t, mergeSpec(), WithConcurrency(1))
	p, err := g.Plan(ctx, map[string]fs.FS{"repo": fsys}, nil, emptyCluster{}.cluster())
	if !errors.Is(err, context.Canceled) || p != nil {
		t.Fatalf("Plan() = %v, %v; want context.Canceled", p, err)
	}
	if n := fsys.opened.Load(); n != 1 {
		t.Errorf("%d overlays read, want 1", n)
	}
	// A merge under an ended context decodes nothing.
	if _, err := mergeYAML(ctx, []byte("a: 1\n"), []byte("b: 1\n")); !errors.Is(err, context.Canceled) {
		t.Errorf("mergeYAML() error = %v, want context.Canceled", err)
	}
	// Nor does an extraction.
	err = untar(ctx, tgz(t, tarEntry{name: "a", body: "x"}), newArtifactTree(), func(archiveEntry) error { return nil })
	var ae *archiveError
	if !errors.As(err, &ae) || !errors.Is(err, context.Canceled) || ae.rule != "extraction stopped" {
		t.Errorf("untar() error = %v, want an archiveError wrapping context.Canceled", err)
	}
}

// TestHostileMergeWorkers is issue 34, item 3: eight modules of one
// tenant, each an archive of one arrayBase and a 5-byte overlay, planned
// by eight workers. Each merge is refused before it decodes (what eight
// decodes would have held at once is what the benchmarks measured), the
// same way whatever the worker count.
func TestHostileMergeWorkers(t *testing.T) {
	t.Parallel()
	archive := tgz(t, tarEntry{name: "values.yaml", body: arrayBase()})
	modules := map[string]map[string][]byte{}
	for i := range 8 {
		modules[fmt.Sprintf("tenants/tenant-a/modules/m%d", i)] = map[string][]byte{"base.tgz": archive, "values/values.yaml": []byte("b: 1\n")}
	}
	fsys := mergeTree(modules)
	var want []string
	for i := range 8 {
		want = append(want, fmt.Sprintf(`spec.artifacts[0].copy[2].from: @repo/tenants/tenant-a/modules/m%[1]d/values/values.yaml: rendered from directory "tenants/tenant-a/modules/m%[1]d": `+
			`merging into "values.yaml": merge budget exceeded: the file there (from "@repo/tenants/tenant-a/modules/m%[1]d/base.tgz") `+
			`must count no more than 17408 to be merged (a unit for each YAML node and each 64 bytes), and it counts 1064960 (1048575 bytes, 1048576 YAML nodes)`, i))
	}
	for _, workers := range []int{1, 8} {
		p := mustPlan(t, mustCompile(t, mergeSpec(), WithConcurrency(workers)), sources(fsys), nil, emptyCluster{}.cluster())
		if diff := cmp.Diff(want, planErrs(p)); diff != "" {
			t.Errorf("%d workers: errors (-want +got):\n%s", workers, diff)
		}
	}
}

// deepName is the entry name of issue 34, item 4: 2,000 elements "a" and a
// five-digit number, 4,005 bytes, under the 4,096 bytes of a name.
func deepName(i int) string { return strings.Repeat("a/", 2000) + fmt.Sprintf("%05d", i) }

// TestHostileExtractDeepNames is issue 34, item 4: 10,000 empty files
// named deepName in a 150 KB tarball, which took seconds when the tree
// walked every directory above each file. The names' bytes now have a
// bound, which the 1,048th entry passes; an archive of 1,000 such names,
// within it, is extracted whole; and an archive whose every name starts a
// chain of 2,040 new directories stops at the bound of directories.
func TestHostileExtractDeepNames(t *testing.T) {
	t.Parallel()
	build := func(n int, name func(int) string) []byte {
		entries := make([]tarEntry, n)
		for i := range entries {
			entries[i] = tarEntry{name: name(i)}
		}
		return tgz(t, entries...)
	}
	issue := build(10_000, deepName)
	if len(issue) > 200_000 {
		t.Fatalf("the archive holds %d bytes, not about 150 KB", len(issue))
	}
	chain := func(i int) string { return fmt.Sprintf("%05d/", i) + strings.Repeat("a/", 2040) + "f" }
	tests := []struct {
		name      string
		archive   []byte
		files     int // extracted, when no error
		wantEntry string
		wantRule  string
	}{
		{name: "the issue's archive", archive: issue, wantEntry: deepName(1047),
			wantRule: "the names of the entries of an artifact's archives must hold no more than 4194304 bytes in all"},
		{name: "1,000 deep names", archive: build(1000, deepName), files: 1000},
		{name: "chains of new directories", archive: build(10, chain), wantEntry: chain(4),
			wantRule: "the archives of an artifact must make no more than 10000 directories in all, those their names imply included"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tr := newArtifactTree()
			err := extractArchive(context.Background(), tr, fstest.MapFS{"a.tgz": {Data: tt.archive}}, pathpattern.Ref{Alias: "repo", Path: "a.tgz"}, "")
			if tt.wantRule == "" {
				if err != nil || len(tr.files) != tt.files || tr.archiveDirs != 2000 {
					t.Fatalf("extractArchive() = %v: %d files, %d directories; want %d files below 2000", err, len(tr.files), tr.archiveDirs, tt.files)
				}
				return
			}
			var ae *archiveError
			if !errors.As(err, &ae) || ae.entry != tt.wantEntry || ae.rule != tt.wantRule {
				t.Fatalf("extractArchive() = %v; want entry %.20q... %s", err, tt.wantEntry, tt.wantRule)
			}
		})
	}
}

// TestTreeParentsLinear: the tree checks and records the directories above
// a path from its parent up, stopping at the first directory it knows, so
// that a deep name below a known directory costs one lookup; a file on
// the way is still found.
func TestTreeParentsLinear(t *testing.T) {
	t.Parallel()
	tr := newArtifactTree()
	deep := strings.Repeat("a/", 2000)
	if err := tr.put(&artifactFile{dest: deep + "00000", own: true}); err != nil {
		t.Fatal(err)
	}
	if len(tr.dirs) != 2000 || !tr.dirs["a"] || !tr.dirs[strings.TrimSuffix(deep, "/")] {
		t.Fatalf("%d directories, want the 2000 above the file", len(tr.dirs))
	}
	if err := tr.put(&artifactFile{dest: deep + "00001", own: true}); err != nil || len(tr.dirs) != 2000 {
		t.Fatalf("put() = %v, %d directories", err, len(tr.dirs))
	}
	if err := tr.put(&artifactFile{dest: "x", own: true}); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"x/y/z", "x/y"} {
		if err := tr.put(&artifactFile{dest: path, own: true}); err == nil || err.Error() != `"x" is a file of the artifact, not a directory` {
			t.Errorf("put(%q) = %v, want an error naming the file x", path, err)
		}
		if err := tr.mkdir(path); err == nil || err.Error() != `"x" is a file of the artifact, not a directory` {
			t.Errorf("mkdir(%q) = %v, want an error naming the file x", path, err)
		}
	}
}

// TestCountMergeNodes pins countMergeNodes' rules on small streams: the
// nodes yaml/v3 parses in each, and the count.
func TestCountMergeNodes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		data   string
		parsed int64
		want   int64
	}{
		{data: "", parsed: 0, want: 1},
		{data: "a: 1\n", parsed: 3, want: 3},             // the stream (its root), a, 1
		{data: "a:\n", parsed: 3, want: 3},               // ":" may leave an empty value
		{data: "a: 1\nb: 2\nc: 3\n", parsed: 7, want: 7}, // a mapping counts its nodes
		{data: "a:\n  b:\n    c: 1\n", parsed: 7, want: 7},
		{data: "- a: 1\n  b: 2\n- c: 3\n", parsed: 9, want: 9},
		{data: "a: [1,1,1]\n", parsed: 6, want: 12},      // "[" counts five, "," one
		{data: "- \n- \n", parsed: 3, want: 3},           // "-" may leave an empty entry
		{data: "- - - x\n", parsed: 4, want: 11},         // and a list in an entry three more
		{data: "[a: 1, b: ]", parsed: 7, want: 11},       // "[" and "," may start a mapping
		{data: "? a\n: b\n", parsed: 3, want: 7},         // "?" counts three, ":" an empty key
		{data: "a: !!map\n  b: 1\n", parsed: 5, want: 5}, // a tag is the mapping's node
		{data: "a: b # c: d, [e]\n", parsed: 3, want: 3}, // a comment counts nothing
		{data: "a: 'b # c', [1]\n", parsed: 0, want: 11}, // unless it may hold a quote's end: from it on
		{data: "a: 1 # it's: [x]\n", parsed: 3, want: 10},
		{data: "a: {}\nb: [ ]\n", parsed: 5, want: 5},    // an empty flow collection is one node
		{data: "a: http://x:80/y\n", parsed: 3, want: 3}, // a ":" inside a word is text
		{data: `{"a":b}`, parsed: 3, want: 8},            // after a quote it may be a value indicator
		{data: "a: 1\n---\nb: 2\n", parsed: 6, want: 13}, // a document start counts docNodes
		{data: "%YAML 1.1\n---\na: 1\n", parsed: 3, want: 13},
	}
	for _, tt := range tests {
		t.Run(tt.data, func(t *testing.T) {
			t.Parallel()
			if parsed, _ := parsedNodes([]byte(tt.data)); parsed != tt.parsed {
				t.Errorf("yaml/v3 parses %d nodes, want %d", parsed, tt.parsed)
			}
			if got := countMergeNodes([]byte(tt.data)); got != tt.want {
				t.Errorf("countMergeNodes() = %d, want %d", got, tt.want)
			}
		})
	}
}

// TestMergeBudgets charges merges to an artifact's budgets: a file over
// the budget of a file, by its nodes, its bytes or what its aliases
// expand it to, a merge that would take the artifact past its budget, and
// what the merges within them spend.
func TestMergeBudgets(t *testing.T) {
	t.Parallel()
	// 1 MiB less 2 bytes, 16,384 units, and 1,022 nodes: 17,406 units, at
	// the budget of a file.
	atBudget := "a: [" + strings.Repeat("1,", 506) + "1]\nb: " + strings.Repeat("x", maxMergeBytes-2-11-2*506) + "\n"
	// Four nodes more, in as many bytes.
	overBudget := "a: [" + strings.Repeat("1,", 508) + "1]\nb: " + strings.Repeat("x", maxMergeBytes-2-11-2*508) + "\n"
	// An anchor of 100 KB, and twenty aliases to it.
	aliases := "l:\n- &x " + strings.Repeat("x", 100_000) + "\n" + strings.Repeat("- *x\n", 20)
	// A billion laughs: each anchor holds four aliases to the one before.
	laughs := "a: &a [\"" + strings.Repeat("x", 1000) + "\"]\n"
	for c := 'b'; c <= 'k'; c++ {
		laughs += fmt.Sprintf("%c: &%[1]c [*%c, *%[2]c, *%[2]c, *%[2]c]\n", c, c-1)
	}
	type merge struct{ base, overlay string }
	tests := []struct {
		name   string
		merges []merge // each into a file of its own
		want   string  // the error of the last merge, if any
		spent  int64
	}{
		{name: "within the budgets", merges: []merge{{"a: 1\n", "b: 2\n"}, {"c: 3\n", "d: 4\n"}},
			spent: 4 * (3 + 1)}, // three nodes and five bytes each
		{name: "a file over the budget of a file by its nodes", merges: []merge{{"a: 1\n", "a: [" + strings.Repeat("1,", 12_200) + "1]\n"}},
			want: "merge budget exceeded: the file merged must count no more than 17408 to be merged (a unit for each YAML node and each 64 bytes), " +
				"and it counts 24790 (24407 bytes, 24408 YAML nodes)"},
		{name: "a file of nodes and bytes", merges: []merge{{"a: 1\n", overBudget}},
			want: "merge budget exceeded: the file merged must count no more than 17408 to be merged (a unit for each YAML node and each 64 bytes), " +
				"and it counts 17410 (1048574 bytes, 1026 YAML nodes)"},
		{name: "a file that its aliases expand past the budget", merges: []merge{{aliases, "b: 1\n"}},
			want: `merge budget exceeded: the file there (from "@repo/b0.yaml") must count no more than 17408 to be merged (a unit for each YAML node and each 64 bytes), ` +
				"and it counts 18798 or more (1200120 bytes, 46 YAML nodes)"},
		{name: "a file whose aliases expand without end", merges: []merge{{"a: 1\n", laughs}},
			want: "merge budget exceeded: the file merged must count no more than 17408 to be merged (a unit for each YAML node and each 64 bytes), " +
				"and it counts 20105 or more (1113291 bytes, 2709 YAML nodes)"},
		{name: "merges past the artifact's budget", merges: []merge{{atBudget, atBudget}, {atBudget, atBudget}, {atBudget, atBudget}},
			want: "merge budget exceeded: the merges of an artifact must count no more than 69632 in all (a unit for each YAML node and each 64 bytes of their files), " +
				"and this one, counting 34812, would bring them to 104436"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			fsys := fstest.MapFS{}
			tr := newArtifactTree()
			var err error
			for i, m := range tt.merges {
				base, overlay := fmt.Sprintf("b%d.yaml", i), fmt.Sprintf("m%d.yaml", i)
				fsys[base] = &fstest.MapFile{Data: []byte(m.base)}
				fsys[overlay] = &fstest.MapFile{Data: []byte(m.overlay)}
				old := artifactFile{dest: fmt.Sprintf("v%d.yaml", i), src: pathpattern.Ref{Alias: "repo", Path: base}, fsys: fsys}
				if err = tr.put(&old); err != nil {
					t.Fatal(err)
				}
				if err = tr.merge(context.Background(), &old, fsys, pathpattern.Ref{Alias: "repo", Path: overlay}); err != nil {
					break
				}
			}
			if tt.want == "" {
				if err != nil || tr.mergeSpent != tt.spent {
					t.Fatalf("merges = %v, spent %d; want %d", err, tr.mergeSpent, tt.spent)
				}
				return
			}
			if !errors.Is(err, errMergeBudget) || err.Error() != tt.want {
				t.Fatalf("merge() = %v\nwant %s", err, tt.want)
			}
		})
	}
}

// TestMergeGate: the plan's gate lets merges through while their charges
// fit together in an artifact's budget, serves them in the order they
// asked, and lets one whose context ends leave the queue, taking nothing.
func TestMergeGate(t *testing.T) {
	t.Parallel()
	g := newMergeGate()
	ctx := context.Background()
	big, small := int64(maxArtifactMergeUnits*3/4), int64(maxArtifactMergeUnits/2)
	if err := g.acquire(ctx, big); err != nil {
		t.Fatal(err)
	}
	var order []string
	var mu sync.Mutex
	var wg sync.WaitGroup
	queued := func(n int) {
		for {
			g.mu.Lock()
			l := len(g.waiters)
			g.mu.Unlock()
			if l == n {
				return
			}
			runtime.Gosched()
		}
	}
	run := func(name string, c int64) {
		wg.Go(func() {
			if err := g.acquire(ctx, c); err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			order = append(order, name)
			mu.Unlock()
			g.release(c)
		})
	}
	cctx, cancel := context.WithCancel(ctx)
	done := make(chan error)
	go func() { done <- g.acquire(cctx, big) }() // waits: big+big does not fit
	queued(1)
	run("small", small) // waits behind it, though it would fit
	queued(2)
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("acquire() = %v, want context.Canceled", err)
	}
	queued(1)
	g.release(big)
	wg.Wait()
	if diff := cmp.Diff([]string{"small"}, order); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}
	if g.free != maxArtifactMergeUnits || len(g.waiters) != 0 {
		t.Errorf("%d free, %d waiters; want %d, none", g.free, len(g.waiters), maxArtifactMergeUnits)
	}
	var none *mergeGate
	if err := none.acquire(cctx, big); err != nil {
		t.Errorf("a nil gate: acquire() = %v", err)
	}
}

// TestPlanBudgetHeld: the artifacts that a plan builds at once share what
// they may hold. Under 8 workers each may hold 8 MiB; an artifact that
// needs more waits for the large token, which one artifact at a time
// holds until it is built; a wait ends with the context. A plan whose
// artifacts all need the token builds them all, one after another, the
// same as one worker does.
func TestPlanBudgetHeld(t *testing.T) {
	t.Parallel()
	ctx := withPlanBudget(context.Background(), 8)
	a, releaseA := withArtifactLease(ctx, nil)
	b, releaseB := withArtifactLease(ctx, nil)
	ta, tb := newArtifactTree(), newArtifactTree()
	if err := holdRoom(a, ta, 8<<20); err != nil || artifactLeaseOf(a).large {
		t.Fatalf("holdRoom(8 MiB) = %v, large %v; want room without the token", err, artifactLeaseOf(a).large)
	}
	if err := holdRoom(a, ta, 8<<20+1); err != nil || !artifactLeaseOf(a).large {
		t.Fatalf("holdRoom(8 MiB + 1) = %v; want the token", err)
	}
	cb, cancel := context.WithCancel(b)
	done := make(chan error)
	go func() { done <- holdRoom(cb, tb, 8<<20+1) }()
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) || artifactLeaseOf(b).large {
		t.Fatalf("holdRoom() while a holds the token = %v; want context.Canceled", err)
	}
	go func() { done <- holdRoom(b, tb, 8<<20+1) }()
	releaseA()
	if err := <-done; err != nil || !artifactLeaseOf(b).large {
		t.Fatalf("holdRoom() once a is built = %v", err)
	}
	releaseB()
	if plan := artifactLeaseOf(a).plan; len(plan.large) != 0 || plan.smallHeld != 8<<20 {
		t.Fatalf("the token is held %d times, and each artifact may hold %d bytes", len(plan.large), plan.smallHeld)
	}

	// Three modules that each extract 12 MiB and merge a file into it.
	zeros := strings.Repeat("\x00", 6<<20)
	archive := tgz(t, tarEntry{name: "a", body: zeros}, tarEntry{name: "b", body: zeros}, tarEntry{name: "v.yaml", body: "a: 1\n"})
	modules := map[string]map[string][]byte{}
	for i := range 3 {
		modules[fmt.Sprintf("tenants/tenant-a/modules/m%d", i)] = map[string][]byte{"a.tgz": archive, "values/v.yaml": []byte("b: 1\n")}
	}
	fsys := mergeTree(modules)
	want := mustPlan(t, mustCompile(t, mergeSpec(), WithConcurrency(1)), sources(fsys), nil, emptyCluster{}.cluster())
	got := mustPlan(t, mustCompile(t, mergeSpec(), WithConcurrency(8)), sources(fsys), nil, emptyCluster{}.cluster())
	if len(want.Artifacts) != 3 || len(want.Errors) != 0 {
		t.Fatalf("%d artifacts, errors %v; want 3 and none", len(want.Artifacts), want.Errors.ToAggregate())
	}
	if diff := cmp.Diff(want.Artifacts, got.Artifacts); diff != "" {
		t.Errorf("artifacts with 8 workers (-1 worker +8 workers):\n%s", diff)
	}
}

// artifactLeaseOf returns ctx's artifactLease.
func artifactLeaseOf(ctx context.Context) *artifactLease {
	l, _ := ctx.Value(artifactLeaseKey{}).(*artifactLease)
	return l
}

// TestEncodedSizeAtLeast: the bound of the merged file's size, against
// what encodeMerged writes, and a deep nesting that it refuses before it
// is encoded.
func TestEncodedSizeAtLeast(t *testing.T) {
	t.Parallel()
	tests := []struct {
		src  string
		want int64 // the bound
		out  string
	}{
		{src: "", want: 2, out: "{}\n"},
		{src: "a: 1\n", want: 3, out: "a: 1\n"},
		{src: "a: {b: {c: x}}\n", want: 13, out: "a:\n  b:\n    c: x\n"},
		{src: "a: [1, [2, 3], {b: 4, c: [5]}]\n", want: 29, out: "a:\n- 1\n- - 2\n  - 3\n- b: 4\n  c:\n  - 5\n"},
		{src: "a: []\nb: {}\n", want: 8, out: "a: []\nb: {}\n"},
		{src: "a: null\nb: true\nc: 'long string'\n", want: 19, out: "a: null\nb: true\nc: long string\n"},
	}
	for _, tt := range tests {
		m, err := decodeMergeFile(context.Background(), []byte(tt.src))
		if err != nil {
			t.Fatal(err)
		}
		out, err := encodeMerged(context.Background(), m)
		if err != nil || string(out) != tt.out {
			t.Fatalf("%q: encodeMerged() = %q, %v", tt.src, out, err)
		}
		if n := encodedSizeAtLeast(m, 1<<30); n != tt.want || n > int64(len(out)) {
			t.Errorf("%q: encodedSizeAtLeast() = %d, want %d, at most %d", tt.src, n, tt.want, len(out))
		}
	}
	// "a: {a: {a: ...}}" 2,800 deep: 14 KB within the budget of a file,
	// which encodes to 7.8 MB.
	deep := "a: " + strings.Repeat("{a: ", 2800) + "1" + strings.Repeat("}", 2800) + "\n"
	if c := countMergeNodes([]byte(deep)); c != 16803 { // "{a: " counts six
		t.Fatalf("%d nodes, want 16803", c)
	}
	m, err := decodeMergeFile(context.Background(), []byte(deep))
	if err != nil {
		t.Fatal(err)
	}
	if n := encodedSizeAtLeast(m, 1<<30); n != 7_848_403 { // 2 + 1 + the sum of 2 + 2j for j = 1 to 2800
		t.Errorf("encodedSizeAtLeast() = %d for the deep file", n)
	}
	if _, err := mergeYAML(context.Background(), []byte(deep), nil); !errors.Is(err, errMergedTooLarge) {
		t.Fatalf("mergeYAML() error = %v, want %v", err, errMergedTooLarge)
	}
}

// parsedNodes returns the nodes that go.yaml.in/yaml/v3 parses in data,
// aliases counted once, and false when it cannot parse it.
func parsedNodes(data []byte) (n int64, ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	var count func(*yamlv3.Node)
	count = func(x *yamlv3.Node) {
		if x.Kind != yamlv3.DocumentNode && x.Kind != 0 {
			n++
		}
		for _, c := range x.Content {
			count(c)
		}
	}
	dec := yamlv3.NewDecoder(bytes.NewReader(data))
	for {
		var doc yamlv3.Node
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) {
			return n, true
		}
		if err != nil {
			return 0, false
		}
		count(&doc)
	}
}

// decodedNodes returns the nodes of what go.yaml.in/yaml/v2 decodes data
// into, document by document, aliases expanded, and false when it cannot
// decode it.
func decodedNodes(data []byte) (n int64, ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	var count func(any)
	count = func(v any) {
		n++
		switch v := v.(type) {
		case []any:
			for _, e := range v {
				count(e)
			}
		case map[any]any:
			for k, e := range v {
				count(k)
				count(e)
			}
		}
	}
	dec := yamlv2.NewDecoder(bytes.NewReader(data))
	for {
		var doc any
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) {
			return n, true
		}
		if err != nil {
			return 0, false
		}
		count(doc)
	}
}

// countSeeds are streams that test countMergeNodes' rules at their edges.
var countSeeds = []string{
	"a: [1,1,1,1]\n", "- \n- \n-\n", "[: , : , :]", "{a, b, c}", "{: b}", "? a\n? b\n", "[a: 1, b: 2]",
	"a:\nb:\nc:\n", "[\"]\", a: 1, a: 1]", "[ \"x #\", 1, 1, 1 ]", "[ 'x #', 1, 1 ]", "a: &x [1, 2]\nb: *x\nc: *x\n",
	"&a: b", "[*a: b]", "{\"a\":b}", "[[a]:b]", "- - - x\n", "--- |\n  text\n", "a: b # c, d, e\n",
	"[a\u0085, b]", "a: 1\u2028b: 2", "? - a\n  - b\n: c\n", "!!str", "&a", "[!a,!a]", "a: !t\nb: &x\n",
	"x: y\n---\n---\n...\n", "[a ?b ?c]", "{a:b, c}", "[ \"a\n # \", 1, 1]", "a: 'it''s # x', b\n",
	"a: |\n  # x\n  y\n", "[a,\r\nb]", "\ufeff# c\na: 1\n", "- a\n  # \"\n- b\n", "{a: {a: {a: 1}}}\n",
	"a: &a {b: &b [1, *a]}\n", "<<: &m {a: 1}\nb: *m\n", "[\t1,\t2]", "a:\t[1]\n",
	// A comment up to its first quote, and empty flow collections.
	"a: 1 # it's: [x]\n", "[ \"a # it's\", b, c ]", "a: 'x # \"q' , [c, d]\n", "[\"a\n # it's\", [x], {y: z}]",
	"a: {}\nb: [ ]\n", "[[], {}, [ ], { }]", "{a: [], b: {}}", "a: [] # \"x\", [y]\n",
}

// FuzzCountMergeNodes: countMergeNodes never counts fewer nodes than
// yaml/v3 parses, and mergeCharge never fewer than yaml/v2 decodes,
// aliases expanded.
func FuzzCountMergeNodes(f *testing.F) {
	for _, tt := range mergeYAMLTests {
		f.Add(tt.base)
		f.Add(tt.overlay)
	}
	for _, s := range countSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data string) {
		got := countMergeNodes([]byte(data))
		if n, ok := parsedNodes([]byte(data)); ok && got < n {
			t.Fatalf("countMergeNodes(%q) = %d, yaml/v3 parses %d nodes", data, got, n)
		}
		c, err := mergeCharge([]byte(data))
		if err != nil || c.more || c.units() > maxMergeUnits {
			return
		}
		if n, ok := decodedNodes([]byte(data)); ok && c.nodes < n {
			t.Fatalf("mergeCharge(%q) = %d nodes, yaml/v2 decodes %d", data, c.nodes, n)
		}
	})
}
