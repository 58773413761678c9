package generator

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/opencontainers/go-digest"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/tenantkit/tenantkit/internal/globmeta"
	"github.com/tenantkit/tenantkit/inventory"
	"github.com/tenantkit/tenantkit/pathpattern"
)

const (
	// maxInputsBytes bounds an inputsFrom file (tenant-controlled).
	maxInputsBytes = 1 << 20
	// maxArtifactFileBytes bounds each file an artifact copies: enough for a
	// CustomResourceDefinition, too little for a tenant to make the controller hash a disk image.
	maxArtifactFileBytes = 8 << 20
)

// artifacts builds every item that skipped does not hold (labels, inputs, files, digest), and
// adds to skipped those whose inputs or files fail, and to found their errors and warnings. The
// builds run in parallel, each a task, their findings added in item order so the plan is the same
// as a serial one, and share the plan's budget of work (work.go): those over their first, equal
// share (at most maxArtifactWorkUnits) are built again, the smallest needs first, as long as
// what is left holds them.
func (p *planner) artifacts(items []*item, skipped skips, found *findings) []Artifact {
	// What a build leaves, not its task, so that what the plan holds meanwhile stays small.
	type built struct {
		done   bool // false: not built (skipped, or the context ended)
		a      *Artifact
		reason string // why a is nil
		found  findings
		work   workShare
	}
	out := make([]built, len(items))
	ctx := withPlanBudget(p.ctx, p.workers()) // what the artifacts built at once share
	var pending []int
	namespaces := map[string]bool{}
	for i, it := range items {
		if skipped.reason(it.namespace, it.name) == "" {
			pending = append(pending, i)
			namespaces[it.namespace] = true
		}
	}
	total := cmp.Or(p.g.opts.workBudget, planWorkUnits+namespaceWorkUnits*int64(len(namespaces)))
	left, shares := total, make([]int64, len(items))
	for _, i := range pending {
		shares[i] = min(maxArtifactWorkUnits, total/int64(len(pending)))
	}
	for round := 1; len(pending) > 0; round++ {
		panics := parallel(p.ctx, p.workers(), len(pending), func(k int) {
			it, b := items[pending[k]], &out[pending[k]]
			*b = built{done: true, work: workShare{limit: shares[pending[k]], total: total, left: left, artifacts: len(pending)}}
			t := p.task()
			var release func()
			t.ctx, release = withArtifactLease(ctx, &b.work)
			defer release()
			b.a, b.reason = t.artifact(it)
			b.found = t.findings
			if !b.work.over {
				// Nothing reads the captures again (the artifact owns the raw ones): kept,
				// they grow the live heap with the tenants (BenchmarkPlan's RSS per tenant).
				it.match.Raw, it.match.Normalized = nil, nil
			}
		})
		// A panicked build's errors, warnings and artifact may be half done: only its panic counts.
		for k, v := range panics {
			it := items[pending[k]]
			out[pending[k]] = built{done: true, reason: reasonPanic, found: findings{errs: field.ErrorList{field.InternalError(it.art.path,
				fmt.Errorf("artifact %s/%s (directory %q): panic: %v", it.namespace, it.name, it.match.Path, v))}}}
		}
		var over []int
		var needs []int64
		for _, i := range pending {
			left -= out[i].work.spent
			if w := out[i].work; w.over {
				over, needs = append(over, i), append(needs, w.need)
			}
		}
		if p.ctx.Err() != nil {
			break
		}
		var again []int
		var next []int64
		if round < maxWorkRounds {
			again, next = nextShares(needs, left)
		}
		pending = pending[:0]
		for k, j := range again {
			pending = append(pending, over[j])
			shares[over[j]] = next[k]
		}
		if len(again) < len(over) {
			// The others are over for good: their last build and the plan's error say why.
			found.errs = append(found.errs, workBudgetError(total, left, items, over, needs, again, round == maxWorkRounds))
		}
	}
	var result []Artifact // nil when there is none, as a plan's lists are
	if n := countFunc(out, func(b built) bool { return b.a != nil }); n > 0 {
		result = make([]Artifact, 0, n)
	}
	for i, b := range out {
		if !b.done {
			continue
		}
		found.add(b.found)
		if b.a != nil {
			result = append(result, *b.a)
		} else {
			skipped.artifact(items[i], b.reason)
		}
		items[i].match.Raw, items[i].match.Normalized = nil, nil
	}
	slices.SortFunc(result, func(a, b Artifact) int {
		return cmp.Or(strings.Compare(a.Namespace, b.Namespace), strings.Compare(a.Name, b.Name))
	})
	return result
}

// artifact builds one artifact, or returns why it cannot.
func (t *task) artifact(it *item) (*Artifact, string) {
	labels := cloneLabels(t.g.pipeline.Common.Labels)
	maps.Copy(labels, it.match.Normalized)
	maps.Copy(labels, t.g.final)
	a := &Artifact{
		Name: it.name, Namespace: it.namespace, Path: it.match.Path,
		Captures: it.match.Raw, Labels: labels,
	}
	var inputs map[string]json.RawMessage // what a.Inputs holds, for the digest
	inputsOK := true
	if it.art.inputs != nil && !it.art.inputsFromArtifact {
		inputs, inputsOK = t.readInputs(a, it, nil)
	}
	// The copy operations, in order, as source-watcher applies them to its staging directory
	// ([CopyOperation]). Copied files are read at digest time; only merged and extracted content
	// is held (maxHeldBytes).
	tree, filesOK := newArtifactTree(), true
	for i := range it.art.copies {
		if t.ctx.Err() != nil {
			filesOK = false // the plan has ended: Plan returns its error
			break
		}
		filesOK = t.applyCopy(it, &it.art.copies[i], tree) && filesOK
	}
	if filesOK {
		readMetadataFile(it, tree)
	}
	if filesOK && it.art.inputsFromArtifact {
		// The artifact's own file after every copy, merged and extracted files included.
		inputs, inputsOK = t.readInputs(a, it, tree)
	}
	if !inputsOK {
		return nil, "its inputs have errors"
	}
	if !filesOK {
		return nil, "its copy operations have errors"
	}
	files := tree.sorted()
	a.FileCount = len(files)
	if t.g.opts.fileLists {
		a.Files = make([]File, len(files))
		for i := range files {
			a.Files[i] = File{Path: files[i].dest, Source: files[i].src}
		}
	}
	var ok bool
	if f := t.g.opts.artifactDigest; f != nil {
		if a.Digest, ok = t.embedderDigest(f, a, it, newArtifactFS(tree, files)); !ok {
			return nil, "its digest cannot be computed"
		}
	} else if a.Digest, ok = t.digest(inputs, files, it.art.copyPath); !ok {
		return nil, "its files cannot be read"
	}
	return a, ""
}

// embedderDigest calls WithArtifactDigest's function with the artifact's file system. A file it
// could not read is an error at the artifact's copy naming the file, even if it went on without
// it; its own error, or an invalid digest, is an internal error of the artifact.
func (t *task) embedderDigest(f artifactDigestFunc, a *Artifact, it *item, files *artifactFS) (digest.Digest, bool) {
	d, err := f(t.ctx, a, files)
	bad, readErrs := files.readErrors()
	if len(bad) > 0 {
		// The function's error, if any, is most likely these.
		for i, file := range bad {
			t.errs = append(t.errs, field.Invalid(it.art.copyPath, file.src.String(), readErrs[i].Error()))
		}
		return "", false
	}
	if err == nil {
		if err = d.Validate(); err != nil {
			err = fmt.Errorf("the digest function returned %q: %w", d, err)
		}
	}
	if err == nil && a.Filename != "" && !validFilename(a.Filename) {
		err = fmt.Errorf("the digest function set Filename %q: %s", a.Filename, filenameRule)
	}
	if err != nil {
		t.errs = append(t.errs, field.InternalError(it.art.path,
			fmt.Errorf("artifact %s/%s (directory %q): digest: %w", a.Namespace, a.Name, it.match.Path, err)))
		return "", false
	}
	return d, true
}

// maxFilenameBytes bounds an artifact's Filename: NAME_MAX, the longest file name on Linux.
const maxFilenameBytes = 255

const filenameRule = "must be the name of one file: 1 to 255 bytes, not \".\" or \"..\", without \"/\", \"\\\" or NUL"

// validFilename reports whether name is one file's name, as source-watcher records the base
// name of an artifact's storage path: never a file outside the artifact's own directory.
func validFilename(name string) bool {
	return name != "" && len(name) <= maxFilenameBytes && name != "." && name != ".." &&
		!strings.ContainsAny(name, "/\\\x00")
}

// keepFilenames sets the Filename of each artifact that has none to its previous entry's when
// that has the artifact's digest: source-watcher names the file after a hash of its content. A
// changed artifact keeps none (source-watcher's drift check would delete the old file as
// corrupted), nor is an invalid one carried over. Of an identity listed twice, the first counts.
func keepFilenames(artifacts []Artifact, previous []inventory.Entry) {
	if !slices.ContainsFunc(previous, func(e inventory.Entry) bool { return e.Filename != "" }) {
		return // an inventory without file names, such as tenantkit's own
	}
	byID := make(map[inventory.ID]inventory.Entry, len(previous))
	for _, e := range previous {
		if _, dup := byID[e.ID()]; !dup {
			byID[e.ID()] = e
		}
	}
	for i := range artifacts {
		a := &artifacts[i]
		if e, ok := byID[newArtifactEntry(a.Namespace, a.Name).ID()]; ok && a.Filename == "" && e.Digest == a.Digest && validFilename(e.Filename) {
			a.Filename = e.Filename
		}
	}
}

// readInputs reads an artifact's inputsFrom file into a.Inputs, and returns the inputs by name:
// from a source when tree is nil, else from the files its copy operations produced
// ("@artifact/path"). A missing file gives no inputs and a warning.
func (t *task) readInputs(a *Artifact, it *item, tree *artifactTree) (map[string]json.RawMessage, bool) {
	fp := it.art.inputsPath
	ref, err := expandRef(it.art.inputs, it.match.Raw)
	if err != nil {
		t.errs = append(t.errs, field.Invalid(fp, it.art.inputs.String(), fmt.Sprintf("rendered from directory %q: %v", it.match.Path, err)))
		return nil, false
	}
	var data []byte
	if tree == nil {
		fsys := t.source(ref.Alias, fp, ref.String())
		if fsys == nil {
			return nil, false
		}
		data, err = pathpattern.ReadFile(fsys, ref.Path, maxInputsBytes)
		if errors.Is(err, fs.ErrNotExist) {
			t.warn = append(t.warn, fmt.Sprintf("%s: inputs file not found; artifact %s/%s has no inputs", ref, a.Namespace, a.Name))
			return nil, true
		}
	} else {
		f, ok := tree.files[ref.Path]
		switch {
		case !ok && tree.dirs[ref.Path]:
			t.errs = append(t.errs, field.Invalid(fp, ref.String(), "must be a file of the artifact, not a directory"))
			return nil, false
		case !ok:
			t.warn = append(t.warn, fmt.Sprintf("%s: inputs file not found in the artifact; artifact %s/%s has no inputs", ref, a.Namespace, a.Name))
			return nil, true
		}
		data, err = f.content(maxInputsBytes, nil)
	}
	var inputs map[string]json.RawMessage
	if err == nil {
		inputs, a.Inputs, err = parseInputs(data) // a is dropped when this fails
	}
	if err != nil {
		t.errs = append(t.errs, field.Invalid(fp, ref.String(), err.Error()))
		return nil, false
	}
	return inputs, true
}

// applyCopy applies one copy operation to tree, reporting its errors; one that selects no file
// is an error unless optional.
func (t *task) applyCopy(it *item, c *compiledCopy, tree *artifactTree) bool {
	ok := true
	fail := func(fp *field.Path, value, detail string) {
		t.errs = append(t.errs, field.Invalid(fp, value, fmt.Sprintf("rendered from directory %q: %s", it.match.Path, detail)))
		ok = false
	}
	from, err := c.from.Expand(it.match.Raw)
	if err != nil {
		fail(c.fromPath, c.from.String(), err.Error())
		return false
	}
	ref, err := pathpattern.ParseRef(from)
	if err != nil {
		fail(c.fromPath, from, err.Error())
		return false
	}
	to, toDir := c.to, c.toDir
	if c.toTemplate != nil {
		rendered, err := c.toTemplate.Expand(it.match.Raw)
		if err == nil {
			to, toDir, err = parseDestination(rendered)
		} else {
			rendered = c.toTemplate.String()
		}
		if err != nil {
			fail(c.toPath, rendered, err.Error())
			return false
		}
	}
	fsys := t.source(ref.Alias, c.fromPath, from)
	if fsys == nil {
		return false
	}
	files, skipped, err := pathpattern.Glob(t.ctx, fsys, ref.Path, c.exclude...)
	if err != nil {
		fail(c.fromPath, from, err.Error())
		return false
	}
	t.warnSkipped(it, c, ref, skipped)
	if len(files) == 0 {
		if !c.optional { // an optional copy that selects nothing copies nothing
			fail(c.fromPath, from, "selects no file")
		}
		return ok
	}
	if c.strategy == strategyExtract {
		archives, err := archivesOf(ref.Path, files)
		if err != nil {
			fail(c.fromPath, from, err.Error())
			return false
		}
		for _, f := range archives {
			src := pathpattern.Ref{Alias: ref.Alias, Path: f}
			if err := extractArchive(t.ctx, tree, fsys, src, to); err != nil {
				fail(c.fromPath, src.String(), err.Error())
				return false
			}
		}
		return ok
	}
	for _, f := range files {
		dest := destination(to, toDir, ref.Path, f, tree.isDir)
		if !validDestination(dest) {
			fail(c.fromPath, from, fmt.Sprintf("file %q would land at %q, which is not a valid path in the artifact", f, dest))
			continue
		}
		src := pathpattern.Ref{Alias: ref.Alias, Path: f}
		if old, ok := tree.files[dest]; ok && c.strategy == strategyMerge {
			if err := tree.merge(t.ctx, &old, fsys, src); err != nil {
				fail(c.fromPath, src.String(), fmt.Sprintf("merging into %q: %v", dest, err))
				if errors.Is(err, errMergeBudget) || errors.Is(err, errWorkBudget) {
					return false // the artifact fails: its other files would only cost more
				}
			}
			continue
		}
		if err := tree.put(&artifactFile{dest: dest, src: src, fsys: fsys}); err != nil {
			fail(c.fromPath, src.String(), fmt.Sprintf("landing at %q: %v", dest, err))
		}
	}
	return ok
}

// warnSkipped warns about each entry that a copy from ref left out of an artifact because it is
// a symbolic link or not a regular file (pathpattern.Glob), naming it, the artifact and
// why (see [CopyOperation]). An Extract copy with a glob extracts only the tarballs the glob
// matches, so it warns only about those and about the links on the way to them.
func (t *task) warnSkipped(it *item, c *compiledCopy, ref pathpattern.Ref, skipped []pathpattern.Skipped) {
	for _, s := range skipped {
		link := s.Mode == fs.ModeSymlink
		if c.strategy == strategyExtract && globmeta.HasMeta(ref.Path) {
			// The pattern was valid for Glob, so it is for Match.
			if matched, _ := doublestar.Match(ref.Path, s.Path); matched && !isTarball(s.Path) || !matched && !link {
				continue
			}
		}
		why := "not a regular file"
		if link {
			why = "a symbolic link"
		}
		src := pathpattern.Ref{Alias: ref.Alias, Path: s.Path}
		t.warn = append(t.warn, fmt.Sprintf("%s: left out of artifact %s/%s: %s", quoteIfNeeded(src.String()), it.namespace, it.name, why))
	}
}

// quoteIfNeeded returns s, or s quoted when it holds a character that strconv.Quote escapes (a
// control character, invalid UTF-8), so that a tenant's file name cannot forge a line of output.
func quoteIfNeeded(s string) string {
	if q := strconv.Quote(s); q[1:len(q)-1] != s {
		return q
	}
	return s
}

// validDestination reports whether dest is a path that a file of an artifact can have.
func validDestination(dest string) bool {
	return fs.ValidPath(dest) && dest != "." && !strings.ContainsRune(dest, 0) && len(dest) <= maxDestinationBytes
}

// maxDestinationBytes bounds a path in an artifact, as references (archives set it): PATH_MAX.
const maxDestinationBytes = 4096

// destination returns where a copy puts file, one that pattern (a copy's from, below its
// alias) selects, below to (a path in the artifact, "" for its root; dir when it names a
// directory), by source-watcher's (cp's) rule, [CopyOperation]'s table; isDir reports whether a
// path is a directory of the artifact so far. An escaped glob character is a literal:
// "a\*b.yaml" names the file "a*b.yaml", which lands at to, not at to/a*b.yaml.
func destination(to string, dir bool, pattern, file string, isDir func(string) bool) string {
	if !globmeta.HasMeta(pattern) {
		lit := globmeta.Unescape(pattern)
		if file == lit {
			if dir || to == "" || isDir(to) {
				return pathJoin(to, base(lit))
			}
			return to
		}
		return pathJoin(to, pathJoin(base(lit), strings.TrimPrefix(file, lit+"/")))
	}
	if prefix, ok := strings.CutSuffix(pattern, "/**"); ok && !globmeta.HasMeta(prefix) {
		if rel, ok := strings.CutPrefix(file, globmeta.Unescape(prefix)+"/"); ok {
			return pathJoin(to, rel)
		}
	}
	return pathJoin(to, file)
}

func base(p string) string { return p[strings.LastIndexByte(p, '/')+1:] }

// digest returns an artifact's digest over its files and inputs ([Artifact]), reading, hashing
// and dropping one copied file at a time; merged and extracted content is the artifact's own.
func (t *task) digest(inputs map[string]json.RawMessage, files []artifactFile, fp *field.Path) (digest.Digest, bool) {
	d := newDigester()
	ok := true
	// One buffer for every file: allocating each is a large share of a plan's (BenchmarkPlan).
	var buf []byte
	for i := range files {
		f := &files[i]
		data, err := f.content(maxArtifactFileBytes, buf)
		if err != nil {
			t.errs = append(t.errs, field.Invalid(fp, f.src.String(), err.Error()))
			ok = false
			continue
		}
		d.file(f.dest, data)
		if !f.own {
			buf = data
		}
	}
	d.inputs(inputs)
	return d.sum(), ok
}

// parallel calls f(i) for every i in [0, n) on at most workers goroutines, and returns when
// every call has. Each call writes only its own results, which the caller reads in index order,
// so the output does not depend on the scheduling; once ctx is done, calls not started are
// skipped. A call that panics stops alone (one tenant's input must not kill the controller):
// its value is returned by index (nil when none panicked), and its results must not be used.
func parallel(ctx context.Context, workers, n int, f func(i int)) map[int]any {
	var (
		next   atomic.Int64
		wg     sync.WaitGroup
		mu     sync.Mutex
		panics map[int]any
	)
	call := func(i int) {
		defer func() {
			if v := recover(); v != nil { // panic(nil) recovers a *runtime.PanicNilError
				mu.Lock()
				defer mu.Unlock()
				if panics == nil {
					panics = map[int]any{}
				}
				panics[i] = v
			}
		}()
		f(i)
	}
	for range min(workers, n) {
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= n || ctx.Err() != nil {
					return
				}
				call(i)
			}
		})
	}
	wg.Wait()
	return panics
}

// workers returns how many goroutines a parallel step of the plan uses (see WithConcurrency).
func (p *planner) workers() int {
	if n := p.g.opts.concurrency; n > 0 {
		return n
	}
	return runtime.GOMAXPROCS(0)
}

// reasonPanic is why an object whose build panicked is skipped; the plan's errors hold the value.
const reasonPanic = "an internal error stopped its build"

func countFunc[E any](s []E, f func(E) bool) int {
	n := 0
	for _, e := range s {
		if f(e) {
			n++
		}
	}
	return n
}
