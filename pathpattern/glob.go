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
)

// maxAlternatives is how many brace-free patterns a glob given to [Glob]
// may expand to: "{a,b}/{c,d}" expands to four. Each alternative is a walk
// of its own, and a few braces multiply quickly ("{a,b}" ten times is 1024),
// so the limit keeps the cost of a pattern proportional to the tree.
const maxAlternatives = 64

// maxGlobWork is how much work one [Glob] call may do: every directory
// entry it reads counts one, and every lookup or read of a path counts one
// per element of the path (an [os.Root] opens each element in turn), each
// time it happens. The files Glob returns were all read or looked up, so
// this bounds the result too. Several "**" in one pattern, such as
// "**/a/**/a/**/*.yaml", walk the same directories again for every way of
// splitting a path between them, so without a bound a deep tree would
// make a glob run for hours. A "**" over 1,000 tenants of three modules of
// five files takes 50,000 units; a million is twice what one over 10,000
// tenants takes. TestGlobBounds shows the bound stopping a hostile tree;
// BenchmarkGlob measures a call, and docs/performance.md has the figures.
const maxGlobWork = 1_000_000

// maxGlobDepth is how many path elements deep [Glob] looks: far deeper than
// any repository layout, and a bound on the recursion of the walks, which a
// tree made deep on purpose would otherwise set.
const maxGlobDepth = 256

// maxGlobLength is the longest glob or exclude pattern, in bytes, that
// [Glob] accepts: Linux's PATH_MAX, since a glob is usually a template
// expanded with names from the tree, as a reference is.
const maxGlobLength = maxRefLength

// Glob returns the sorted paths of the regular files of fsys that a copy
// from pattern would take, leaving out those that an exclude pattern
// removes:
//
//	files, err := pathpattern.Glob(ctx, fsys, "tenants/team-a/modules/app/manifests/**", "*.md")
//
// The syntax is doublestar's: "*", "?", "[class]", "{alt,ernatives}" and
// "**" for any number of directories, which io/fs.Glob lacks (source-watcher
// uses it, so there "**" acts like "*"). pattern is relative to the root of
// fsys: it must not start with "/" or contain an empty, "." or ".." element.
// A matched regular file is taken; a matched directory contributes every
// regular file below it, like "cp -r". Symbolic links are never followed or
// returned (see [Pattern.Discover] on how they are recognised), nor are
// other irregular files: [GlobSkipped] lists them.
//
// An exclude pattern removes a file when it matches the file's path from
// the root of fsys, or from the non-glob prefix of pattern (the directories
// before the first meta character, see [doublestar.SplitPattern]; the whole
// pattern when it has none), or, for an exclude pattern without "/", the
// file's base name, so "*.md" excludes at any depth. A directory below the
// prefix that an exclude pattern removes is skipped whole.
//
// A bad pattern, or one that expands to more than 64 alternatives or is
// longer than 4096 bytes, is an error wrapping [doublestar.ErrBadPattern].
// Consecutive "**" elements act as one. A walk that does more than
// 1,000,000 units of work (directory entries read, path elements looked
// up) or looks deeper than 256 path elements stops with an error wrapping
// [ErrTooLarge] (see the package documentation, "Bounds"). Once ctx is
// done, Glob stops with an error
// wrapping ctx.Err(). I/O errors other than missing paths are returned. A
// pattern that matches nothing gives nil.
func Glob(ctx context.Context, fsys fs.FS, pattern string, exclude ...string) ([]string, error) {
	files, _, err := glob(ctx, fsys, pattern, exclude, maxGlobWork, false)
	return files, err
}

// A Skipped is an entry of a file system that [GlobSkipped] left out of a
// copy: a symbolic link or an irregular file (a named pipe, a socket, a
// device) where the copy would have taken a file or looked for one.
type Skipped struct {
	// Path is the entry's path from the root of fsys.
	Path string
	// Mode is the entry's type ([fs.FileMode.Type]): fs.ModeSymlink for
	// a symbolic link, another type bit for an irregular file.
	Mode fs.FileMode
}

// GlobSkipped is [Glob], and also returns, sorted by path, the entries that
// the copy leaves out because they are symbolic links or irregular files,
// so that a caller can say what it did not copy:
//
//	files, skipped, err := pathpattern.GlobSkipped(ctx, fsys, "tenants/team-a/modules/app/manifests/**", "*.md")
//
// An entry is skipped where a copy would have taken a regular file or
// looked further for one: a link or an irregular file that the pattern
// matches, or that lies in a directory the copy takes whole; a link in
// the pattern's literal prefix ("manifests" in "manifests/**" or in
// "manifests/deploy.yaml"); and a link where a directory could hold
// files the pattern matches, such as any link below the directories
// before a "**", or "tenants/c" for "tenants/*/inputs.yaml": Glob does
// not follow a link to learn whether it leads to a directory. An entry
// that an exclude pattern removes, or that lies in a directory one
// removes, is not skipped but excluded, and not listed.
//
// Flux leaves the same entries out: source-controller archives a
// checkout's regular files and directories only, so the source that
// source-watcher copies from never holds a link or an irregular file.
//
// skipped is nil when there is none, and whenever err is not nil, as
// files is.
func GlobSkipped(ctx context.Context, fsys fs.FS, pattern string, exclude ...string) (files []string, skipped []Skipped, err error) {
	return glob(ctx, fsys, pattern, exclude, maxGlobWork, false)
}

// glob is GlobSkipped with a bound of maxWork instead of maxGlobWork,
// which tests lower; slow walks "dir/**" with doublestar too, for tests
// that compare it with the walk of expand.
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
	// The non-glob prefix: for a pattern without meta characters, which
	// names one file or directory, the whole pattern.
	base := unescapeMeta(pattern)
	if hasMeta(pattern) {
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
	var files []string
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

// boundedFS is the file system a Glob reads through: it counts what is
// read against maxGlobWork, refuses paths deeper than maxGlobDepth, and
// fails once ctx is done. Every walk of Glob, doublestar's and its own,
// reads through it, so no loop of theirs escapes the bounds.
type boundedFS struct {
	fsys    fs.FS
	ctx     context.Context
	pattern string
	max     int // maxGlobWork, or less in tests
	left    int // work still allowed
	// seen, when set, is told the entries of every directory read
	// (globber.glob sets it while doublestar walks).
	seen func(dir string, entries []fs.DirEntry)
}

// lookup charges a lookup or read of name against the bounds: one per
// element of name.
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

// charge counts n units of work against maxGlobWork.
func (b *boundedFS) charge(n int) error {
	b.left -= n
	if b.left < 0 {
		return errorf(ErrTooLarge, "glob %q must do no more than %d units of work (directory entries and path elements looked up)", shorten(b.pattern), b.max)
	}
	return nil
}

func (b *boundedFS) Open(name string) (fs.File, error) {
	if err := b.lookup(name); err != nil {
		return nil, err
	}
	return b.fsys.Open(name)
}

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

func (b *boundedFS) Stat(name string) (fs.FileInfo, error) {
	if err := b.lookup(name); err != nil {
		return nil, err
	}
	return fs.Stat(b.fsys, name)
}

func (b *boundedFS) Lstat(name string) (fs.FileInfo, error) {
	if err := b.lookup(name); err != nil {
		return nil, err
	}
	return fs.Lstat(b.fsys, name)
}

func (b *boundedFS) ReadLink(name string) (string, error) {
	if err := b.lookup(name); err != nil {
		return "", err
	}
	return fs.ReadLink(b.fsys, name)
}

// checkGlob checks a doublestar pattern and returns its brace-free
// alternatives. When walk is set, the pattern is one to walk and each
// alternative must be a relative path without empty, "." or ".." elements.
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

// collapseDoubleStars replaces each run of "**" elements of alt by one:
// "**/**" selects what "**" selects, but doublestar walks the tree again for
// every way of splitting a path between them, which over a deep tree takes
// hours ("**/**/**/**/*.yaml" over a chain of 30 directories read them
// hundreds of thousands of times).
func collapseDoubleStars(alt string) string {
	if !strings.Contains(alt, "**/**") {
		return alt
	}
	elems := strings.Split(alt, "/")
	out := elems[:1]
	for _, e := range elems[1:] {
		if e == "**" && out[len(out)-1] == "**" {
			continue
		}
		out = append(out, e)
	}
	return strings.Join(out, "/")
}

func badGlob(pattern, rule string) error {
	return fmt.Errorf("pathpattern: glob %q %s: %w", pattern, rule, doublestar.ErrBadPattern)
}

// expandBraces returns the brace-free alternatives of a valid doublestar
// pattern, and false when there are more than max. The work is bounded by
// max times the length of the pattern, because it stops at max+1.
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

// indexBrace returns the index of the first '{' of s that is neither
// escaped nor inside a character class, or -1.
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

// classEnd returns the index of the ']' that closes the character class
// starting at s[open], following doublestar's validation rules (the
// pattern is known to be valid).
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

// braceGroup returns the index of the '}' that closes the '{' at s[open]
// and the indexes of the commas that separate its alternatives.
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

// globber is the state of one Glob call.
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
	if !hasMeta(alt) {
		name := unescapeMeta(alt)
		if g.excluded(name) {
			return nil
		}
		info, err := g.lstatPath(name)
		if err != nil || info == nil {
			return err
		}
		switch {
		case info.IsDir():
			return g.expand(name)
		case info.Mode().IsRegular():
			g.files[name] = struct{}{}
		default:
			g.skip(name, info.Mode())
		}
		return nil
	}
	if dir, ok := strings.CutSuffix(alt, "/**"); ok && !g.slow && !hasMeta(dir) {
		// A directory and everything below it, the usual copy ("@repo/
		// tenants/team-a/manifests/**"): the files that doublestar selects,
		// found by expand's plain walk, which is the same walk without
		// matching each name against the pattern. TestGlobDirectoryTree and
		// FuzzGlob compare the two; generator's BenchmarkPlan through dirfs
		// shows what it saves, and docs/performance.md has the figures.
		name := unescapeMeta(dir)
		if name != g.base && g.excluded(name) {
			// An alternative's directory below the prefix, which
			// doublestar's walk would pass to excluded too.
			return nil
		}
		info, err := g.lstatPath(name)
		if err != nil || info == nil || !info.IsDir() {
			return err
		}
		return g.expand(name)
	}
	// doublestar follows the literal prefix of a pattern even with
	// WithNoFollow, so check it here first.
	if base, _ := doublestar.SplitPattern(alt); base != "." {
		info, err := g.lstatPath(base)
		if err != nil || info == nil || !info.IsDir() {
			return err
		}
	}
	// doublestar passes by a link where the pattern needs a directory
	// without a word: the directories it reads tell of them.
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
	// For a pattern ending in "**", doublestar reports every file below a
	// matched directory anyway.
	whole := alt != "**" && !strings.HasSuffix(alt, "/**")
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

// mayHold reports whether a directory at p could hold a file that the
// pattern of the brace-free elements elems matches: whether p matches the
// elements before the first "**" and that "**", when p is that deep, or
// else the first elements of the pattern, as many as p has, when the
// pattern has more.
func mayHold(elems []string, p string) bool {
	n := 1 + strings.Count(p, "/")
	if i := slices.Index(elems, "**"); i >= 0 && i < n {
		return doublestar.MatchUnvalidated(strings.Join(elems[:i+1], "/"), p)
	}
	return n < len(elems) && doublestar.MatchUnvalidated(strings.Join(elems[:n], "/"), p)
}

// skip records that p, of type mode, was left out, unless an exclude
// pattern removes it or one of its directories below the prefix.
func (g *globber) skip(p string, mode fs.FileMode) {
	if !g.excluded(p) {
		g.record(p, mode)
	}
}

// record records that p, of type mode, was left out.
func (g *globber) record(p string, mode fs.FileMode) {
	if g.skipped == nil {
		g.skipped = make(map[string]fs.FileMode)
	}
	g.skipped[p] = mode.Type()
}

// lstatPath returns the FileInfo of name when no element of it is a
// symbolic link, and nil when one is (which it records as skipped) or
// when name does not exist.
func (g *globber) lstatPath(name string) (fs.FileInfo, error) {
	for i := 0; i <= len(name); i++ {
		if i < len(name) && name[i] != '/' {
			continue
		}
		info, err := fs.Lstat(g.fsys, name[:i])
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		if info.Mode()&fs.ModeSymlink != 0 {
			g.skip(name[:i], info.Mode())
			return nil, nil
		}
		if i < len(name) && !info.IsDir() {
			return nil, nil
		}
		if i == len(name) {
			return info, nil
		}
	}
	return nil, nil // unreachable: the loop ends with i == len(name)
}

// expand adds every regular file below dir, skipping excluded entries.
func (g *globber) expand(dir string) error {
	g.expanded[dir] = struct{}{}
	return g.walk(dir)
}

// walk adds every regular file below dir, a directory, skipping excluded
// entries and recording the links and irregular files it leaves out: the
// walk of fs.WalkDir, depth first in name order, without its path.Join of
// each name (a name read from a directory holds no "/"). It does not
// descend into symbolic links, and a directory that vanished holds
// nothing.
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
			g.record(p, e.Type())
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

// excluded reports whether an exclude pattern removes p or one of its
// directories below the prefix.
func (g *globber) excluded(p string) bool {
	if len(g.exclude) == 0 {
		return false
	}
	if g.excludes(p) {
		return true
	}
	for q := p; ; {
		i := strings.LastIndexByte(q, '/')
		if i < 0 {
			return false
		}
		q = q[:i]
		if g.base != "." && !strings.HasPrefix(q, g.below) {
			return false
		}
		if g.excludes(q) {
			return true
		}
	}
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

// hasMeta reports whether s has an unescaped doublestar meta character.
func hasMeta(s string) bool {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '*', '?', '[', '{':
			return true
		}
	}
	return false
}

var unescaper = strings.NewReplacer(`\*`, "*", `\?`, "?", `\[`, "[", `\]`, "]", `\{`, "{", `\}`, "}")

// unescapeMeta removes the escapes of meta characters, as doublestar does
// for the literal parts of a pattern. A name without a backslash is
// returned as it is: the Replacer would copy it.
func unescapeMeta(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	return unescaper.Replace(s)
}
