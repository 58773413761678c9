package generator

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/bmatcuk/doublestar/v4"
	"github.com/opencontainers/go-digest"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/tenantkit/tenantkit/pathpattern"
)

const (
	// maxInputsBytes bounds an inputsFrom file (tenant-controlled).
	maxInputsBytes = 1 << 20
	// maxArtifactFileBytes bounds each file an artifact copies: large
	// enough for a CustomResourceDefinition, small enough that a tenant
	// cannot make the controller hash a disk image.
	maxArtifactFileBytes = 8 << 20
)

// artifacts builds every item that nothing skipped: labels, inputs, files
// and digest. An item whose inputs or files fail is skipped.
//
// Reading inputs, selecting files and reading and hashing them is most of
// the work of a plan, and each artifact's is independent of the others':
// they are built in parallel, each with its own errors and warnings, which
// are merged in item order, so that the plan is the same as a serial one.
func (p *planner) artifacts(items []*item) []Artifact {
	type built struct {
		q *planner // nil: not built (skipped, or the context ended)
		a *Artifact
	}
	out := make([]built, len(items))
	panics := parallel(p.ctx, p.workers(), len(items), func(i int) {
		it := items[i]
		if it.skip != "" {
			return
		}
		q := p.fork()
		out[i].q = q
		a, reason := q.artifact(it)
		if a == nil {
			it.skip = reason
		}
		out[i].a = a
		// Nothing reads the match's captures again: the artifact owns the
		// raw ones. At 10,000 tenants, keeping them until the plan ends
		// held 20 MB more of live heap.
		it.match.Raw, it.match.Normalized = nil, nil
	})
	// A build that panicked is an error of its own, and nothing else of it
	// counts: its errors, warnings and artifact may be half done.
	for i, v := range panics {
		it, q := items[i], p.fork()
		q.errs = append(q.errs, field.InternalError(it.art.path,
			fmt.Errorf("artifact %s/%s (directory %q): panic: %v", it.namespace, it.name, it.match.Path, v)))
		out[i] = built{q: q}
		it.skip = reasonPanic
	}
	var result []Artifact // nil when there is none, as a plan's lists are
	if n := countFunc(out, func(b built) bool { return b.a != nil }); n > 0 {
		result = make([]Artifact, 0, n)
	}
	for _, b := range out {
		if b.q == nil {
			continue
		}
		p.merge(b.q)
		if b.a != nil {
			result = append(result, *b.a)
		}
	}
	slices.SortFunc(result, func(a, b Artifact) int {
		if c := strings.Compare(a.Namespace, b.Namespace); c != 0 {
			return c
		}
		return strings.Compare(a.Name, b.Name)
	})
	return result
}

// artifact builds one artifact, or returns why it cannot.
func (p *planner) artifact(it *item) (*Artifact, string) {
	labels := cloneLabels(p.g.common)
	maps.Copy(labels, it.match.Normalized)
	maps.Copy(labels, p.g.final)
	a := &Artifact{
		Name: it.name, Namespace: it.namespace, Path: it.match.Path,
		Captures: it.match.Raw, Labels: labels, Inputs: map[string]json.RawMessage{},
	}
	inputsOK := true
	if it.art.inputs != nil {
		inputsOK = p.readInputs(a, it, it.art.inputsPath)
	}
	files, filesOK := p.selectFiles(it)
	if !inputsOK {
		return nil, "its inputs have errors"
	}
	if !filesOK {
		return nil, "its copy operations have errors"
	}
	d, ok := p.digest(a, files, it.art.copyPath)
	if !ok {
		return nil, "its files cannot be read"
	}
	a.Digest, a.FileCount = d, len(files)
	if p.g.opts.fileLists {
		a.Files = make([]File, len(files))
		for i, f := range files {
			a.Files[i] = File{Path: f.dest, Source: pathpattern.Ref{Alias: f.alias, Path: f.path}}
		}
	}
	return a, ""
}

// readInputs reads an artifact's inputsFrom file. A missing file gives
// empty inputs and a warning.
func (p *planner) readInputs(a *Artifact, it *item, fp *field.Path) bool {
	t := it.art.inputs
	ref, err := expandRef(t, it.match.Raw)
	if err != nil {
		p.errs = append(p.errs, field.Invalid(fp, t.String(), fmt.Sprintf("rendered from directory %q: %v", it.match.Path, err)))
		return false
	}
	fsys := p.source(ref.Alias, fp, ref.String())
	if fsys == nil {
		return false
	}
	data, err := pathpattern.ReadFile(fsys, ref.Path, maxInputsBytes)
	if errors.Is(err, fs.ErrNotExist) {
		p.warn = append(p.warn, fmt.Sprintf("%s: inputs file not found; artifact %s/%s has no inputs", ref, a.Namespace, a.Name))
		return true
	}
	if err != nil {
		p.errs = append(p.errs, field.Invalid(fp, ref.String(), err.Error()))
		return false
	}
	inputs, err := parseInputs(data)
	if err != nil {
		p.errs = append(p.errs, field.Invalid(fp, ref.String(), err.Error()))
		return false
	}
	a.Inputs = inputs
	return true
}

// selected is one file of an artifact: where it lands and where it comes
// from.
type selected struct {
	dest  string
	alias string
	path  string
	fsys  fs.FS
}

// selectFiles applies an artifact's copy operations in order. A later
// operation that writes the same destination overwrites the earlier one.
// An operation that selects no file is an error, unless it is optional.
func (p *planner) selectFiles(it *item) ([]selected, bool) {
	byDest := map[string]selected{}
	ok := true
	for _, c := range it.art.copies {
		fail := func(value, detail string) {
			p.errs = append(p.errs, field.Invalid(c.fromPath, value, fmt.Sprintf("rendered from directory %q: %s", it.match.Path, detail)))
			ok = false
		}
		from, err := c.from.Expand(it.match.Raw)
		if err != nil {
			fail(c.from.String(), err.Error())
			continue
		}
		ref, err := pathpattern.ParseRef(from)
		if err != nil {
			fail(from, err.Error())
			continue
		}
		fsys := p.source(ref.Alias, c.fromPath, from)
		if fsys == nil {
			ok = false
			continue
		}
		files, err := pathpattern.Glob(p.ctx, fsys, ref.Path, c.exclude...)
		if err != nil {
			fail(from, err.Error())
			continue
		}
		if len(files) == 0 {
			if !c.optional { // an optional copy that selects nothing copies nothing
				fail(from, "selects no file")
			}
			continue
		}
		for _, f := range files {
			dest := destination(c.to, c.toDir, ref.Path, f, byDest)
			if !fs.ValidPath(dest) || dest == "." || strings.ContainsRune(dest, 0) {
				fail(from, fmt.Sprintf("file %q would land at %q, which is not a valid path in the artifact", f, dest))
				continue
			}
			byDest[dest] = selected{dest: dest, alias: ref.Alias, path: f, fsys: fsys}
		}
	}
	out := make([]selected, 0, len(byDest))
	for _, s := range byDest {
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b selected) int { return strings.Compare(a.dest, b.dest) })
	return out, ok
}

// destination returns where a copy puts file, one of the files that pattern
// (a copy's from, below its alias) selects, below to (a path in the
// artifact, "" for its root; dir when it names a directory). The rule is
// source-watcher's, cp's:
//
//   - pattern without glob characters (escapes removed) that names a file:
//     to itself, or to/<base name> when to names a directory (it ends with
//     "/", is the root, or an earlier copy put files below it);
//   - pattern without glob characters that names a directory:
//     to/<directory's base name>/<path below it> (cp -r dir to);
//   - pattern ending in "/**" after a literal prefix: to/<path below the
//     prefix>;
//   - any other glob: to/<path from the alias root>.
//
// An escaped glob character is a literal: "a\*b.yaml" names the file
// "a*b.yaml", which lands at to, not at to/a*b.yaml.
func destination(to string, dir bool, pattern, file string, earlier map[string]selected) string {
	if !hasMeta(pattern) {
		lit := unescape(pattern)
		if file == lit {
			if dir || isDirectory(to, earlier) {
				return pathJoin(to, base(lit))
			}
			return to
		}
		return pathJoin(to, pathJoin(base(lit), strings.TrimPrefix(file, lit+"/")))
	}
	if prefix, ok := strings.CutSuffix(pattern, "/**"); ok && !hasMeta(prefix) {
		if rel, ok := strings.CutPrefix(file, unescape(prefix)+"/"); ok {
			return pathJoin(to, rel)
		}
	}
	return pathJoin(to, file)
}

// isDirectory reports whether an earlier copy put a file below to.
func isDirectory(to string, earlier map[string]selected) bool {
	if to == "" {
		return true
	}
	for d := range earlier {
		if strings.HasPrefix(d, to+"/") {
			return true
		}
	}
	return false
}

func base(p string) string { return p[strings.LastIndexByte(p, '/')+1:] }

// hasMeta reports whether a doublestar pattern has an unescaped glob
// character.
func hasMeta(pattern string) bool {
	for i := 0; i < len(pattern); i++ {
		switch pattern[i] {
		case '\\':
			i++
		case '*', '?', '[', '{':
			return true
		}
	}
	return false
}

// unescape removes the backslashes of a pattern without glob characters.
func unescape(pattern string) string {
	if !strings.Contains(pattern, `\`) {
		return pattern
	}
	var b strings.Builder
	for i := 0; i < len(pattern); i++ {
		if pattern[i] == '\\' && i+1 < len(pattern) {
			i++
		}
		b.WriteByte(pattern[i])
	}
	return b.String()
}

// validGlob checks an exclude pattern.
func validGlob(pattern string) error {
	if len(pattern) > pathpattern.MaxLength {
		return fmt.Errorf("must be no more than %d bytes", pathpattern.MaxLength)
	}
	if !doublestar.ValidatePattern(pattern) {
		return errors.New("must be a valid glob pattern")
	}
	return nil
}

// digest reads every file of an artifact and returns the artifact's digest
// over them and its inputs (see the package documentation, "Artifact
// digest"). A file's content is read, hashed and dropped, one file at a time.
func (p *planner) digest(a *Artifact, files []selected, fp *field.Path) (digest.Digest, bool) {
	d := newDigester()
	ok := true
	for _, f := range files {
		data, err := pathpattern.ReadFile(f.fsys, f.path, maxArtifactFileBytes)
		if err != nil {
			p.errs = append(p.errs, field.Invalid(fp, "@"+f.alias+"/"+f.path, err.Error()))
			ok = false
			continue
		}
		d.file(f.dest, data)
	}
	d.inputs(a.Inputs)
	return d.sum(), ok
}

// parallel calls f(i) for every i in [0, n) on at most workers
// goroutines, and returns when every call has. Each call must write only its
// own results, which the caller then reads in index order: the output does
// not depend on the scheduling. Once ctx is done, the calls not yet started
// are skipped.
//
// A call that panics stops alone: parallel recovers the panic and returns
// its value by index (nil when no call panicked), so that one tenant's
// input cannot take down the controller that embeds the library. Such a
// call has left its results half done: the caller must not use them.
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

// workers returns how many goroutines a parallel step of the plan uses
// (see WithConcurrency).
func (p *planner) workers() int {
	if n := p.g.opts.concurrency; n > 0 {
		return n
	}
	return runtime.GOMAXPROCS(0)
}

// reasonPanic is why an object whose build panicked is skipped; the plan's
// errors hold the panic value.
const reasonPanic = "an internal error stopped its build"

// countFunc returns how many elements of s satisfy f.
func countFunc[E any](s []E, f func(E) bool) int {
	n := 0
	for _, e := range s {
		if f(e) {
			n++
		}
	}
	return n
}
