package pathpattern

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// MaxAlternatives is how many brace-free patterns a glob given to [Glob]
// may expand to: "{a,b}/{c,d}" expands to four. Each alternative is a walk
// of its own, and a few braces multiply quickly ("{a,b}" ten times is 1024),
// so the limit keeps the cost of a pattern proportional to the tree.
const MaxAlternatives = 64

// Glob returns the sorted paths of the regular files of fsys that a copy
// from pattern would take, leaving out those that an exclude pattern
// removes:
//
//	files, err := pathpattern.Glob(fsys, "tenants/team-a/modules/app/manifests/**", "*.md")
//
// The syntax is doublestar's: "*", "?", "[class]", "{alt,ernatives}" and
// "**" for any number of directories, which io/fs.Glob lacks (source-watcher
// uses it, so there "**" acts like "*"). pattern is relative to the root of
// fsys: it must not start with "/" or contain an empty, "." or ".." element.
// A matched regular file is taken; a matched directory contributes every
// regular file below it, like "cp -r". Symbolic links are never followed or
// returned (see [Pattern.Discover] on how they are recognised), nor are
// other irregular files.
//
// An exclude pattern removes a file when it matches the file's path from
// the root of fsys, or from the non-glob prefix of pattern (the directories
// before the first meta character, see [doublestar.SplitPattern]; the whole
// pattern when it has none), or, for an exclude pattern without "/", the
// file's base name, so "*.md" excludes at any depth. A directory below the
// prefix that an exclude pattern removes is skipped whole.
//
// A bad pattern, or one that expands to more than [MaxAlternatives]
// alternatives or exceeds [MaxLength] bytes, is an error wrapping
// [doublestar.ErrBadPattern]. I/O errors other than missing paths are
// returned. A pattern that matches nothing gives nil.
func Glob(fsys fs.FS, pattern string, exclude ...string) ([]string, error) {
	alts, err := checkGlob(pattern, true)
	if err != nil {
		return nil, err
	}
	for _, ex := range exclude {
		if _, err := checkGlob(ex, false); err != nil {
			return nil, err
		}
	}
	// The non-glob prefix: for a pattern without meta characters, which
	// names one file or directory, the whole pattern.
	base := unescapeMeta(pattern)
	if hasMeta(pattern) {
		base, _ = doublestar.SplitPattern(pattern)
	}
	g := &globber{
		fsys:     fsys,
		exclude:  exclude,
		base:     base,
		files:    make(map[string]struct{}),
		expanded: make(map[string]struct{}),
	}
	for _, alt := range alts {
		if err := g.glob(alt); err != nil {
			return nil, fmt.Errorf("pathpattern: glob %q: %w", pattern, err)
		}
	}
	if len(g.files) == 0 {
		return nil, nil
	}
	out := make([]string, 0, len(g.files))
	for f := range g.files {
		out = append(out, f)
	}
	slices.Sort(out)
	return out, nil
}

// checkGlob checks a doublestar pattern and returns its brace-free
// alternatives. When walk is set, the pattern is one to walk and each
// alternative must be a relative path without empty, "." or ".." elements.
func checkGlob(pattern string, walk bool) ([]string, error) {
	if len(pattern) > MaxLength {
		return nil, badGlob(pattern[:quoteLimit]+"...", fmt.Sprintf("must be no more than %d bytes", MaxLength))
	}
	if !doublestar.ValidatePattern(pattern) {
		return nil, badGlob(pattern, "must be a valid doublestar pattern")
	}
	alts, ok := expandBraces(pattern, MaxAlternatives)
	if !ok {
		return nil, badGlob(pattern, fmt.Sprintf("must expand to no more than %d alternatives", MaxAlternatives))
	}
	if walk {
		for _, alt := range alts {
			for elem := range strings.SplitSeq(alt, "/") {
				if elem == "" || elem == "." || elem == ".." {
					return nil, badGlob(pattern, `must be a relative path without empty, "." or ".." elements`)
				}
			}
		}
	}
	return alts, nil
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
	fsys     fs.FS
	exclude  []string
	base     string              // the non-glob prefix of the pattern, or "."
	files    map[string]struct{} // the result
	expanded map[string]struct{} // directories taken whole
}

// glob adds the files that one brace-free alternative selects.
func (g *globber) glob(alt string) error {
	if !hasMeta(alt) {
		name := unescapeMeta(alt)
		info, err := g.lstatPath(name)
		if err != nil || info == nil || g.excluded(name) {
			return err
		}
		if info.IsDir() {
			return g.expand(name)
		}
		if info.Mode().IsRegular() {
			g.files[name] = struct{}{}
		}
		return nil
	}
	// doublestar follows the literal prefix of a pattern even with
	// WithNoFollow, so check it here first.
	if base, _ := doublestar.SplitPattern(alt); base != "." {
		info, err := g.lstatPath(base)
		if err != nil || info == nil || !info.IsDir() {
			return err
		}
	}
	// For a pattern ending in "**", doublestar reports every file below a
	// matched directory anyway.
	whole := alt != "**" && !strings.HasSuffix(alt, "/**")
	return doublestar.GlobWalk(g.fsys, alt, func(p string, d fs.DirEntry) error {
		if d.Type()&fs.ModeSymlink != 0 || g.covered(p) || g.excluded(p) {
			return nil
		}
		switch {
		case d.IsDir():
			if whole {
				return g.expand(p)
			}
		case d.Type().IsRegular():
			g.files[p] = struct{}{}
		}
		return nil
	}, doublestar.WithNoFollow(), doublestar.WithFailOnIOErrors())
}

// lstatPath returns the FileInfo of name when no element of it is a
// symbolic link, and nil when one is or when name does not exist.
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
		if info.Mode()&fs.ModeSymlink != 0 || i < len(name) && !info.IsDir() {
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
	return fs.WalkDir(g.fsys, dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if p == dir {
			return nil
		}
		if g.excludes(p) {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.Type().IsRegular() {
			g.files[p] = struct{}{}
		}
		return nil // WalkDir does not descend into symbolic links
	})
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
		if g.base != "." && !strings.HasPrefix(q, g.base+"/") {
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
		rel = strings.TrimPrefix(p, g.base+"/")
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
// for the literal parts of a pattern.
func unescapeMeta(s string) string { return unescaper.Replace(s) }
