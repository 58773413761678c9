package pathpattern

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/tenantkit/tenantkit/internal/globmeta"
)

// maxAlternatives is how many brace-free patterns a glob may expand to ("{a,b}/{c,d}" is
// four): each is a walk of its own, and braces multiply ("{a,b}" ten times is 1024).
const maxAlternatives = 64

// maxGlobWork bounds the work of one [Glob] call, and so its result: several "**" walk a
// deep tree again for every way of splitting a path, for hours unbounded (TestGlobBounds);
// a million is twice what a "**" over 10,000 tenants takes.
const maxGlobWork = 1_000_000

// maxGlobDepth is how deep [Glob] looks: far deeper than any layout, and it bounds recursion.
const maxGlobDepth = 256

// maxGlobLength bounds a glob or exclude pattern as a reference: both are usually templates.
const maxGlobLength = maxRefLength

// Glob returns, sorted, the regular files of fsys that a copy from pattern would take, less
// those that an exclude pattern removes, and, sorted by path, the symbolic links and irregular
// files that the copy leaves out, so that a caller can say what it did not copy:
//
//	files, skipped, err := pathpattern.Glob(ctx, fsys, "tenants/team-a/modules/app/manifests/**", "*.md")
//
// The syntax is doublestar's, with "**", which io/fs.Glob lacks (used by source-watcher,
// where "**" acts like "*"); consecutive "**" act as one. pattern is relative to fsys,
// without an empty, "." or ".." element. A matched directory gives every regular file below
// it, like "cp -r". Symbolic links (recognised as in [Pattern.Discover]) and irregular
// files are never followed or returned as files. One is skipped where a copy would have
// taken a regular file or looked for one: matched, in a directory taken whole, in the
// literal prefix, or where a directory could hold matching files ("tenants/c" for
// "tenants/*/inputs.yaml"), since Glob follows no link to find out. Excluded entries are not
// listed. Flux leaves the same entries out: source-controller archives only regular files
// and directories.
//
// An exclude pattern removes a file when it matches its path from the root of fsys or from
// the non-glob prefix of pattern ([doublestar.SplitPattern]), or, without "/", its base
// name ("*.md" at any depth); a directory below the prefix that it removes is skipped whole.
//
// A bad pattern, or one over 64 alternatives or 4096 bytes, is an error wrapping
// [doublestar.ErrBadPattern]. A walk over 1,000,000 units of work (directory entries read,
// path elements looked up) or 256 path elements deep fails with [ErrTooLarge]; once ctx is
// done, with ctx.Err(). I/O errors other than missing paths are returned. files and skipped
// are nil when there is none and whenever err is not nil.
func Glob(ctx context.Context, fsys fs.FS, pattern string, exclude ...string) (files []string, skipped []Skipped, err error) {
	return glob(ctx, fsys, pattern, exclude, maxGlobWork, false)
}

// A Skipped is a symbolic link or an irregular file (a named pipe, a socket, a device) that
// [Glob] left out of a copy.
type Skipped struct {
	// Path is the entry's path from the root of fsys.
	Path string
	// Mode is the entry's type ([fs.FileMode.Type]), fs.ModeSymlink for a link.
	Mode fs.FileMode
}

// glob is Glob with a bound of maxWork; with slow, tests walk "dir/**" with doublestar too.
func glob(ctx context.Context, fsys fs.FS, pattern string, exclude []string, maxWork int, slow bool) ([]string, []Skipped, error) {
	alts, err := checkGlob(pattern, true)
	if err != nil {
		return nil, nil, err
	}
	for _, ex := range exclude {
		if _, err := checkGlob(ex, false); err != nil {
			return nil, nil, err
		}
	}
	base := globmeta.Unescape(pattern)
	if globmeta.HasMeta(pattern) {
		base, _ = doublestar.SplitPattern(pattern)
	}
	g := &globber{
		fsys:     &boundedFS{fsys: fsys, ctx: ctx, pattern: pattern, max: maxWork, left: maxWork},
		exclude:  exclude,
		base:     base,
		below:    base + "/",
		files:    make(map[string]struct{}),
		expanded: make(map[string]struct{}),
		slow:     slow,
	}
	for _, alt := range alts {
		if err := g.glob(alt); err != nil {
			if errors.Is(err, ErrTooLarge) {
				return nil, nil, err // names the pattern already
			}
			return nil, nil, fmt.Errorf("pathpattern: glob %q: %w", pattern, err)
		}
	}
	// Made at their sizes, with plain loops: a plan globs every copy of every artifact.
	var files []string // nil for none
	if len(g.files) > 0 {
		files = make([]string, 0, len(g.files))
		for f := range g.files {
			files = append(files, f)
		}
		slices.Sort(files)
	}
	var skipped []Skipped
	if len(g.skipped) > 0 {
		skipped = make([]Skipped, 0, len(g.skipped))
		for p, mode := range g.skipped {
			skipped = append(skipped, Skipped{Path: p, Mode: mode})
		}
		slices.SortFunc(skipped, func(a, b Skipped) int { return strings.Compare(a.Path, b.Path) })
	}
	return files, skipped, nil
}

// boundedFS is what every walk of a Glob, doublestar's and its own, reads through, so that
// none escapes the bounds: maxGlobWork, maxGlobDepth and ctx.
type boundedFS struct {
	fsys    fs.FS
	ctx     context.Context
	pattern string
	max     int // maxGlobWork, or less in tests
	left    int // work still allowed
	// seen, set while doublestar walks, is told every directory's entries.
	seen func(dir string, entries []fs.DirEntry)
}

// lookup charges a lookup or read of name, one unit per element.
func (b *boundedFS) lookup(name string) error {
	if err := b.ctx.Err(); err != nil {
		return err
	}
	depth := 1 + strings.Count(name, "/")
	if depth > maxGlobDepth {
		return errorf(ErrTooLarge, "glob %q must look no deeper than %d directories", shorten(b.pattern), maxGlobDepth)
	}
	return b.charge(depth)
}

func (b *boundedFS) charge(n int) error {
	b.left -= n
	if b.left < 0 {
		return errorf(ErrTooLarge, "glob %q must do no more than %d units of work (directory entries and path elements looked up)", shorten(b.pattern), b.max)
	}
	return nil
}

// bounded charges the lookup of name, then calls f.
func bounded[T any](b *boundedFS, name string, f func(fs.FS, string) (T, error)) (T, error) {
	if err := b.lookup(name); err != nil {
		var zero T
		return zero, err
	}
	return f(b.fsys, name)
}

func (b *boundedFS) Open(name string) (fs.File, error)      { return bounded(b, name, fs.FS.Open) }
func (b *boundedFS) Stat(name string) (fs.FileInfo, error)  { return bounded(b, name, fs.Stat) }
func (b *boundedFS) Lstat(name string) (fs.FileInfo, error) { return bounded(b, name, fs.Lstat) }
func (b *boundedFS) ReadLink(name string) (string, error)   { return bounded(b, name, fs.ReadLink) }

func (b *boundedFS) ReadDir(name string) ([]fs.DirEntry, error) {
	if err := b.lookup(name); err != nil {
		return nil, err
	}
	entries, err := fs.ReadDir(b.fsys, name)
	if err := b.charge(len(entries)); err != nil {
		return nil, err
	}
	if b.seen != nil {
		b.seen(name, entries)
	}
	return entries, err
}

// checkGlob returns a valid pattern's alternatives; with walk, none has a "", "." or ".." element.
func checkGlob(pattern string, walk bool) ([]string, error) {
	if len(pattern) > maxGlobLength {
		return nil, badGlob(shorten(pattern), fmt.Sprintf("must be no more than %d bytes", maxGlobLength))
	}
	if !doublestar.ValidatePattern(pattern) {
		return nil, badGlob(pattern, "must be a valid doublestar pattern")
	}
	alts, ok := expandBraces(pattern, maxAlternatives)
	if !ok {
		return nil, badGlob(pattern, fmt.Sprintf("must expand to no more than %d alternatives", maxAlternatives))
	}
	if walk {
		for i, alt := range alts {
			for elem := range strings.SplitSeq(alt, "/") {
				if elem == "" || elem == "." || elem == ".." {
					return nil, badGlob(pattern, `must be a relative path without empty, "." or ".." elements`)
				}
			}
			alts[i] = collapseDoubleStars(alt)
		}
	}
	return alts, nil
}

// collapseDoubleStars makes each run of "**" elements one, walked once, not once per split.
func collapseDoubleStars(alt string) string {
	if !strings.Contains(alt, "**/**") {
		return alt
	}
	elems := slices.CompactFunc(strings.Split(alt, "/"), func(a, b string) bool { return a == "**" && b == "**" })
	return strings.Join(elems, "/")
}

func badGlob(pattern, rule string) error {
	return fmt.Errorf("pathpattern: glob %q %s: %w", pattern, rule, doublestar.ErrBadPattern)
}

// expandBraces returns a valid pattern's brace-free alternatives, or false past max, so its
// work is at most max times the length.
func expandBraces(pattern string, max int) ([]string, bool) {
	var out []string
	var expand func(s string) bool
	expand = func(s string) bool {
		open := indexBrace(s)
		if open < 0 {
			out = append(out, s)
			return len(out) <= max
		}
		closing, commas := braceGroup(s, open)
		start := open + 1
		for _, c := range append(commas, closing) {
			if !expand(s[:open] + s[start:c] + s[closing+1:]) {
				return false
			}
			start = c + 1
		}
		return true
	}
	return out, expand(pattern)
}

// indexBrace returns the index of the first unescaped '{' outside a class, or -1.
func indexBrace(s string) int {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '[':
			i = classEnd(s, i)
		case '{':
			return i
		}
	}
	return -1
}

// classEnd returns the index of the ']' closing the class at s[open], by doublestar's rules.
func classEnd(s string, open int) int {
	i := open + 1
	if i < len(s) && (s[i] == '^' || s[i] == '!') {
		i++
	}
	for i++; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case ']':
			return i
		}
	}
	return len(s)
}

// braceGroup returns the index of the '}' closing the '{' at s[open] and its commas.
func braceGroup(s string, open int) (closing int, commas []int) {
	depth := 0
	for i := open + 1; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '[':
			i = classEnd(s, i)
		case '{':
			depth++
		case '}':
			if depth == 0 {
				return i, commas
			}
			depth--
		case ',':
			if depth == 0 {
				commas = append(commas, i)
			}
		}
	}
	return len(s), commas // unreachable for a valid pattern
}

type globber struct {
	fsys     *boundedFS
	exclude  []string
	base     string                 // the non-glob prefix of the pattern, or "."
	below    string                 // base + "/", what the names below it start with
	files    map[string]struct{}    // the result
	skipped  map[string]fs.FileMode // the links and irregular files left out, by type
	expanded map[string]struct{}    // directories taken whole
	slow     bool                   // tests: walk "dir/**" with doublestar too
}

// glob adds the files that one brace-free alternative selects.
func (g *globber) glob(alt string) error {
	// A literal alt, or the usual copy of a whole directory, "dir/**", which expand's plain walk
	// selects as doublestar would, without matching each name (TestGlobDirectoryTree, FuzzGlob;
	// BenchmarkPlan).
	root, tree := strings.CutSuffix(alt, "/**")
	if !globmeta.HasMeta(alt) || tree && !g.slow && !globmeta.HasMeta(root) {
		name := globmeta.Unescape(alt)
		if tree {
			name = globmeta.Unescape(root)
		}
		if (!tree || name != g.base) && g.excluded(name) {
			return nil
		}
		info, err := g.lstatPath(name)
		switch {
		case err != nil || info == nil:
			return err
		case info.IsDir():
			return g.expand(name)
		case tree: // a file is no directory to copy
		case info.Mode().IsRegular():
			g.files[name] = struct{}{}
		default:
			g.skip(name, info.Mode())
		}
		return nil
	}
	// doublestar follows the literal prefix even with WithNoFollow, so check it first.
	if base, _ := doublestar.SplitPattern(alt); base != "." {
		info, err := g.lstatPath(base)
		if err != nil || info == nil || !info.IsDir() {
			return err
		}
	}
	// doublestar silently passes by a link where a directory is needed; its reads tell of them.
	elems := strings.Split(alt, "/")
	g.fsys.seen = func(dir string, entries []fs.DirEntry) {
		if g.covered(dir) {
			return // expand's walk reports them
		}
		for _, e := range entries {
			if e.Type()&fs.ModeSymlink == 0 {
				continue
			}
			if p := join(dir, e.Name()); mayHold(elems, p) {
				g.skip(p, e.Type())
			}
		}
	}
	defer func() { g.fsys.seen = nil }()
	// A pattern ending in "**" reports every file below a directory anyway.
	whole := alt != "**" && !tree
	return doublestar.GlobWalk(g.fsys, alt, func(p string, d fs.DirEntry) error {
		if g.covered(p) || g.excluded(p) {
			return nil
		}
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			g.skip(p, d.Type())
		case d.IsDir():
			if whole {
				return g.expand(p)
			}
		case d.Type().IsRegular():
			g.files[p] = struct{}{}
		default:
			g.skip(p, d.Type())
		}
		return nil
	}, doublestar.WithNoFollow(), doublestar.WithFailOnIOErrors())
}

// mayHold reports whether a directory at p could hold a file that elems match: whether p
// matches the elements up to the first "**" when p is that deep, or else as many as p has.
func mayHold(elems []string, p string) bool {
	n := 1 + strings.Count(p, "/")
	if i := slices.Index(elems, "**"); i >= 0 && i < n {
		return doublestar.MatchUnvalidated(strings.Join(elems[:i+1], "/"), p)
	}
	return n < len(elems) && doublestar.MatchUnvalidated(strings.Join(elems[:n], "/"), p)
}

// skip records that p, of type mode, was left out, unless it is excluded; most globs leave
// nothing out, so the map is made on the first.
func (g *globber) skip(p string, mode fs.FileMode) {
	if g.excluded(p) {
		return
	}
	if g.skipped == nil {
		g.skipped = make(map[string]fs.FileMode)
	}
	g.skipped[p] = mode.Type()
}

// lstatPath returns name's FileInfo, or nil when it does not exist or an element is a
// symbolic link (recorded as skipped).
func (g *globber) lstatPath(name string) (fs.FileInfo, error) {
	for i := 0; i <= len(name); i++ {
		if i < len(name) && name[i] != '/' {
			continue
		}
		info, err := fs.Lstat(g.fsys, name[:i])
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return nil, nil
		case err != nil:
			return nil, err
		case info.Mode()&fs.ModeSymlink != 0:
			g.skip(name[:i], info.Mode())
			return nil, nil
		case i == len(name):
			return info, nil
		case !info.IsDir():
			return nil, nil
		}
	}
	return nil, nil // unreachable: the loop ends with i == len(name)
}

// expand adds every regular file below dir, skipping excluded entries.
func (g *globber) expand(dir string) error {
	g.expanded[dir] = struct{}{}
	return g.walk(dir)
}

// walk adds every regular file below dir (fs.WalkDir without its path.Join), skipping
// excluded entries, recording links and irregular files, taking a vanished directory for empty.
func (g *globber) walk(dir string) error {
	entries, err := fs.ReadDir(g.fsys, dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return err
	}
	for _, e := range entries {
		p := join(dir, e.Name())
		switch {
		case g.excludes(p):
		case e.IsDir():
			if err := g.walk(p); err != nil {
				return err
			}
		case e.Type().IsRegular():
			g.files[p] = struct{}{}
		default:
			g.skip(p, e.Type())
		}
	}
	return nil
}

// covered reports whether p lies in a directory that was taken whole.
func (g *globber) covered(p string) bool {
	for q := p; ; {
		if _, ok := g.expanded[q]; ok {
			return true
		}
		i := strings.LastIndexByte(q, '/')
		if i < 0 {
			return false
		}
		q = q[:i]
	}
}

// excluded reports whether an exclude pattern removes p or one of its directories below the prefix.
func (g *globber) excluded(p string) bool {
	if len(g.exclude) == 0 {
		return false
	}
	for q := p; !g.excludes(q); {
		i := strings.LastIndexByte(q, '/')
		if i < 0 {
			return false
		}
		q = q[:i]
		if g.base != "." && !strings.HasPrefix(q, g.below) {
			return false
		}
	}
	return true
}

// excludes reports whether an exclude pattern matches p itself.
func (g *globber) excludes(p string) bool {
	rel := p
	if g.base != "." {
		rel = strings.TrimPrefix(p, g.below)
	}
	for _, ex := range g.exclude {
		if doublestar.MatchUnvalidated(ex, p) || doublestar.MatchUnvalidated(ex, rel) ||
			!strings.Contains(ex, "/") && doublestar.MatchUnvalidated(ex, path.Base(p)) {
			return true
		}
	}
	return false
}
