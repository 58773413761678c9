package cel

import (
	"fmt"
	"math"
	"math/bits"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
)

// This file charges matches on a pattern that is not a constant. Compiling is work its length
// does not show (regexp/syntax appends every range of a class escape and sorts them, folds
// case-insensitive ranges, copies counted repetitions), and parsing is already that work, so
// the charge comes from one linear scan of the text (scanPattern), refused over callLimit.

// patternBound is what scanPattern finds: upper bounds of the work of regexp.Compile (parse,
// simplify, compile, and the one-pass analysis of an anchored pattern) and of its program.
type patternBound struct {
	bytes  uint64 // the pattern's length
	atoms  uint64 // parser nodes: literals, classes, groups, repetitions, assertions
	ranges uint64 // ranges appended to classes, class escapes' tables included
	// sorts is n*log2(n) for each sort of n ranges: each bracketed class, each class escape
	// with its folding, the classes of each alternation, which the parser merges.
	sorts    uint64
	folds    uint64   // code points folded one at a time
	prog     progSize // the compiled program
	anchored bool     // may start with ^ or \A, so regexp.Compile tries one-pass analysis
	widest   uint64   // the most ranges a rune instruction holds
}

// progSize bounds a compiled program, or a part of it.
type progSize struct {
	insts    uint64
	weighted uint64 // insts weighted by instWeight
	runes    uint64 // ranges of rune instructions, each repetition's copy counted
	others   uint64 // instructions that are not rune instructions
}

func (a progSize) zip(b progSize, f func(x, y uint64) uint64) progSize {
	return progSize{f(a.insts, b.insts), f(a.weighted, b.weighted), f(a.runes, b.runes), f(a.others, b.others)}
}

func (a progSize) plus(b progSize) progSize  { return a.zip(b, satAdd) }
func (a progSize) minus(b progSize) progSize { return a.zip(b, satSub) }
func (a progSize) times(n uint64) progSize   { return a.zip(progSize{n, n, n, n}, satMul) }

func satSub(a, b uint64) uint64 { return a - min(a, b) }

func control(n uint64) progSize { return progSize{insts: n, weighted: n, others: n} }

// The work of compiling a pattern in steps of about the same time, fitted by
// BenchmarkPatternCharge so that compiling the largest pattern of each of patternFamilies
// within CostLimit takes at most about what CostLimit buys of other functions.
const (
	compileSteps = 1500 // any pattern
	onePassBase  = 1000 // starting the one-pass analysis of an anchored one
	byteSteps    = 10   // reading a byte
	// nodeSteps is a node or instruction of a small pattern, growing by one step every
	// nodeGrowth of them as the tables outgrow the processor's caches.
	nodeSteps    = 250
	nodeGrowth   = 384
	rangeSteps   = 40 // appending a range to a class
	sortSteps    = 10 // a step of sorting ranges
	foldSteps    = 25 // folding a code point
	onePassSteps = 15 // one-pass analysis copying a range of a rune instruction
	mergeSteps   = 1  // and merging it at another instruction

	stepsPerUnit = 100

	onePassLimit = 1000 // instructions from which Go's regexp skips one-pass analysis
)

func (b patternBound) compileCost() uint64 {
	nodes := satAdd(b.atoms, b.prog.insts)
	steps := satAdd(compileSteps, satMul(b.bytes, byteSteps))
	steps = satAdd(steps, satMul(nodes, satAdd(nodeSteps, nodes/nodeGrowth)))
	steps = satAdd(steps, satMul(b.ranges, rangeSteps))
	steps = satAdd(steps, satMul(b.sorts, sortSteps))
	steps = satAdd(steps, satMul(b.folds, foldSteps))
	if b.anchored {
		runes := min(b.prog.runes, satMul(onePassLimit, b.widest))
		steps = satAdd(steps, satAdd(onePassBase, satMul(runes, onePassSteps)))
		merges := satMul(runes, min(b.prog.others, onePassLimit))
		steps = satAdd(steps, satMul(merges, mergeSteps))
	}
	return satAdd(steps/stepsPerUnit, min(1, steps%stepsPerUnit))
}

// size is what regexSize is for a constant pattern.
func (b patternBound) size() uint64 {
	return max(b.bytes, b.prog.weighted)
}

// runtimeMatchCost is the charge of compiling a pattern and matching it (matchCost).
func runtimeMatchCost(subject, pattern string) uint64 {
	// A pattern whose length alone is over any limit is not scanned.
	if c := matchCost(len(subject), len(pattern)); c > CostLimit {
		return c
	}
	b := scanPattern(pattern)
	return satAdd(b.compileCost(), matchCost(len(subject), sizeInt(b.size())))
}

func sizeInt(n uint64) int { return int(min(n, math.MaxInt)) }

// matchesCost is runtimeMatchCost; 1 for arguments that are not strings, which the call refuses.
func matchesCost(args []ref.Val) uint64 {
	s, ok1 := args[0].(types.String)
	p, ok2 := args[1].(types.String)
	if !ok1 || !ok2 {
		return 1
	}
	return runtimeMatchCost(string(s), string(p))
}

func matchesDetail(args []ref.Val) string {
	s, _ := args[0].(types.String)
	p, _ := args[1].(types.String)
	if c := matchCost(len(s), len(p)); c > CostLimit {
		return fmt.Sprintf("%s and a %d-byte pattern", describe(args[0]), len(p))
	}
	b := scanPattern(string(p))
	return fmt.Sprintf("%s and a %d-byte pattern not known before the evaluation: %d to compile it, %d to match it",
		describe(args[0]), len(p), b.compileCost(), matchCost(len(s), sizeInt(b.size())))
}

// scanPattern follows Go's regexp/syntax parser (syntax.Perl) without building anything.
// Where the parser would stop with an error, it reads the rest as literals, and case folding,
// once on, stays on to the end: both only add to the bound.
func scanPattern(pattern string) patternBound {
	var s scanner
	s.scan(pattern)
	return s.b
}

func (s *scanner) scan(pattern string) {
	s.b = patternBound{bytes: uint64(len(pattern))}
	s.groups = append(s.groups[:0], scanGroup{})
	s.size, s.next, s.searched = len(pattern), make(map[string]int, 3), 0
	t := pattern
	for t != "" {
		switch t[0] {
		case '(':
			t = s.openGroup(t)
		case '|':
			s.alternative()
			t = t[1:]
		case ')':
			s.closeGroup()
			t = t[1:]
		case '^', '$':
			s.assertion(t[0] == '^')
			t = t[1:]
		case '.':
			s.classAtom(2)
			t = t[1:]
		case '[':
			t = s.class(t)
		case '*', '+', '?':
			s.repeat(0, -1)
			t = strings.TrimPrefix(t[1:], "?") // non-greedy
		case '{':
			lo, hi, rest, ok := parseRepeat(t)
			if !ok {
				s.literal('{')
				t = t[1:]
				break
			}
			s.repeat(lo, hi)
			t = strings.TrimPrefix(rest, "?")
		case '\\':
			t = s.escape(t)
		default:
			r, size := utf8.DecodeRuneInString(t)
			s.literal(r)
			t = t[size:]
		}
	}
	for s.deep > 0 || len(s.groups) > 1 {
		s.closeGroup()
	}
	g := s.top()
	s.merge(g, g.branches > 0)
	// The program ends in a match and starts with a failure.
	s.b.prog = g.alts.plus(g.branch()).plus(control(2))
}

type scanner struct {
	b      patternBound
	fold   bool
	groups []scanGroup // the groups open, the whole pattern first

	// Groups nested past maxDepth have no scanGroup, so memory is bounded: deep counts them,
	// and they add all they hold to the innermost scanGroup, whose current alternative's size
	// was since when the first opened. alternatives: the innermost has some, whose classes merge.
	deep         int
	since        progSize
	alternatives bool

	// next remembers, for each separator index looked for, where the next one is (-1: none),
	// so that the scan stays linear: at each of many "[:" without a ":]" after them, the
	// parser's search reads the rest of the pattern (TestScanLinear).
	next     map[string]int
	size     int // the pattern's length
	searched int // bytes index read: at most 3 times size, as index looks for 3 separators
}

// index is strings.Index(t, sep) for t, a suffix of the pattern: where the last search found
// sep, if not behind t, or nowhere, else a new search.
func (s *scanner) index(t, sep string) int {
	at := s.size - len(t)
	next, ok := s.next[sep]
	if !ok || next >= 0 && next < at {
		next = strings.Index(t, sep)
		if s.searched += len(t); next >= 0 {
			s.searched -= len(t) - next - len(sep)
			next += at
		}
		s.next[sep] = next
	}
	return max(next-at, -1)
}

// maxDepth bounds the groups that have a scanGroup: the parser refuses nesting over 1000,
// but not of a non-capturing group that holds only another.
const maxDepth = 1000

func (s *scanner) open(capture bool) {
	if s.deep == 0 && len(s.groups) <= maxDepth {
		s.groups = append(s.groups, scanGroup{capture: capture})
		return
	}
	g := s.top()
	if s.deep == 0 {
		s.since = g.cur
	}
	s.deep++
	g.last = progSize{}
	if capture {
		// What closeGroup counts for a capture, counted now.
		s.b.atoms = satAdd(s.b.atoms, 3)
		g.cur = g.cur.plus(control(2))
	}
}

func (s *scanner) alternative() {
	g := s.top()
	if s.deep > 0 {
		// Each alternative, in sequence: one alternation instruction, and a no-op if empty.
		g.cur = g.cur.plus(control(2))
		g.last = progSize{}
		s.alternatives = true
		return
	}
	// The alternative, an alternation instruction and a no-op: an empty alternative's, or one
	// the parser makes when it factors out a prefix that alternatives share ("0|00000" is
	// "0(?:|0000)"; FuzzRuntimeMatches found it).
	g.alts = g.alts.plus(g.cur).plus(control(2))
	g.cur, g.last = progSize{}, progSize{}
	g.branches++
}

// scanGroup is a group being scanned; last is the atom that a repetition repeats.
type scanGroup struct {
	alts, cur, last progSize
	capture         bool
	branches        uint64 // alternatives, less one
	// classRanges is the ranges of its classes and literals, nested groups included: what the
	// parser can merge into one class, and sort, when it has alternatives.
	classRanges uint64
}

func (s *scanner) top() *scanGroup { return &s.groups[len(s.groups)-1] }

func (g *scanGroup) branch() progSize {
	if g.cur.insts == 0 {
		return control(1) // an empty alternative compiles to a no-op
	}
	return g.cur
}

// assertion is an empty-width assertion; anchor: ^ or \A.
func (s *scanner) assertion(anchor bool) {
	s.b.anchored = s.b.anchored || anchor
	s.atom(control(1))
}

func (s *scanner) atom(a progSize) {
	s.b.atoms = satAdd(s.b.atoms, 1)
	g := s.top()
	g.cur = g.cur.plus(a)
	g.last = a
}

func (s *scanner) literal(r rune) {
	if !s.fold {
		s.classAtom(1)
		return
	}
	// Its orbit: at most four code points.
	s.b.folds = satAdd(s.b.folds, 1)
	s.runeAtom(4, instWeight(1, true))
}

func (s *scanner) classAtom(n uint64) { s.runeAtom(n, instWeight(n, false)) }

// runeAtom is a rune instruction of n ranges, weighted weight (instWeight).
func (s *scanner) runeAtom(n, weight uint64) {
	g := s.top()
	g.classRanges = satAdd(g.classRanges, n)
	s.b.widest = max(s.b.widest, n)
	s.atom(progSize{insts: 1, weighted: weight, runes: n})
}

func (s *scanner) sort(n uint64) {
	s.b.sorts = satAdd(s.b.sorts, satMul(n, uint64(bits.Len64(n))))
}

// merge counts the parser merging a group's classes, which it does when it has alternatives.
func (s *scanner) merge(g *scanGroup, alternatives bool) {
	if alternatives {
		s.b.ranges = satAdd(s.b.ranges, g.classRanges)
		s.sort(g.classRanges)
	}
}

// openGroup scans a group's opening, or a change of flags, at the start of t.
func (s *scanner) openGroup(t string) string {
	if len(t) < 2 || t[1] != '?' {
		s.open(true)
		return t[1:]
	}
	// Named captures: (?P<name>, (?<name>.
	if len(t) > 4 && t[2] == 'P' && t[3] == '<' || len(t) > 3 && t[2] == '<' {
		if end := s.index(t, ">"); end >= 0 {
			s.open(true)
			return t[end+1:]
		}
		s.literal('(')
		return t[1:]
	}
	u := t[2:] // flags, then ) or : to open a group
	fold := false
	for u != "" {
		switch u[0] {
		case 'i':
			fold = true
		case 'm', 's', 'U', '-':
		case ':', ')':
			s.fold = s.fold || fold
			if u[0] == ':' {
				s.open(false)
			}
			return u[1:]
		default:
			s.literal('(')
			return t[1:]
		}
		u = u[1:]
	}
	s.literal('(')
	return t[1:]
}

func (s *scanner) closeGroup() {
	if s.deep > 0 {
		s.deep--
		s.b.atoms = satAdd(s.b.atoms, 1)
		g := s.top()
		s.merge(g, s.alternatives)
		s.alternatives = false
		g.last = g.cur.minus(s.since)
		return
	}
	if len(s.groups) < 2 {
		return
	}
	g := s.groups[len(s.groups)-1]
	s.groups = s.groups[:len(s.groups)-1]
	s.merge(&g, g.branches > 0)
	size := g.alts.plus(g.branch())
	if g.capture {
		// Two instructions, and as much again for the parser's bookkeeping (index, name).
		size = size.plus(control(2))
		s.b.atoms = satAdd(s.b.atoms, 2)
	}
	parent := s.top()
	parent.classRanges = satAdd(parent.classRanges, g.classRanges)
	s.atom(size)
}

// repeat repeats the last atom lo to hi times, unbounded for hi < 0 (*, + and ? are 0, -1).
func (s *scanner) repeat(lo, hi int) {
	s.b.atoms = satAdd(s.b.atoms, 1)
	g := s.top()
	var size progSize
	switch {
	case hi < 0:
		size = g.last.times(uint64(max(lo, 1))).plus(control(2))
	case hi == 0:
		size = control(1)
	default:
		// x{lo,hi} is lo copies of x and hi-lo optional ones; the parser refuses lo over hi.
		hi = max(hi, lo)
		size = g.last.times(uint64(hi)).plus(control(2 * uint64(hi-lo)))
	}
	g.cur = g.cur.minus(g.last).plus(size)
	g.last = size
}

// parseRepeat parses {lo}, {lo,} or {lo,hi} at the start of t, as the parser does; a count
// the parser refuses (over 1000) counts as 1000.
func parseRepeat(t string) (lo, hi int, rest string, ok bool) {
	u := t[1:]
	lo, u, ok = parseCount(u)
	if !ok || u == "" {
		return 0, 0, "", false
	}
	hi = lo
	if u[0] == ',' {
		u = u[1:]
		switch {
		case u == "":
			return 0, 0, "", false
		case u[0] == '}':
			hi = -1
		default:
			if hi, u, ok = parseCount(u); !ok {
				return 0, 0, "", false
			}
		}
	}
	if u == "" || u[0] != '}' {
		return 0, 0, "", false
	}
	return min(lo, maxRepeat), min(hi, maxRepeat), u[1:], true
}

const maxRepeat = 1000

// parseCount parses a count as the parser does, up to maxRepeat+1.
func parseCount(t string) (n int, rest string, ok bool) {
	if t == "" || t[0] < '0' || t[0] > '9' || len(t) >= 2 && t[0] == '0' && t[1] >= '0' && t[1] <= '9' {
		return 0, "", false
	}
	i := 0
	for ; i < len(t) && t[i] >= '0' && t[i] <= '9'; i++ {
		if n <= maxRepeat {
			n = n*10 + int(t[i]-'0')
		}
	}
	return min(n, maxRepeat+1), t[i:], true
}

func (s *scanner) escape(t string) string {
	if len(t) < 2 {
		s.literal('\\')
		return t[1:]
	}
	if n, rest, ok := s.classEscape(t); ok {
		s.classAtom(n)
		return rest
	}
	switch t[1] {
	case 'A', 'b', 'B', 'z':
		s.assertion(t[1] == 'A')
		return t[2:]
	case 'Q':
		lit, rest, _ := strings.Cut(t[2:], `\E`)
		for _, r := range lit {
			s.literal(r)
		}
		return rest
	}
	r, rest := s.parseEscape(t)
	s.literal(r)
	return rest
}

// Perl and POSIX groups (\d, [:alpha:]) hold at most 4 ranges of ASCII, 5 when negated.
// Folded, each of their code points from A (the first that folds) to the end of ASCII, at most
// 63, is folded into at most 18 ranges, 19 when negated (TestFoldedGroupBound checks them all).
const (
	groupRanges     = 5
	groupFolds      = 63
	groupFoldRanges = 19
)

// classEscape scans a class escape (\pL, \d) at the start of t: the ranges it adds, and ok.
func (s *scanner) classEscape(t string) (uint64, string, bool) {
	if len(t) >= 2 && t[0] == '\\' {
		switch t[1] {
		case 'p', 'P':
			n, rest := s.unicodeClass(t)
			return n, rest, true
		case 'd', 'D', 's', 'S', 'w', 'W':
			return s.group(), t[2:], true
		}
	}
	return 0, t, false
}

// group counts a Perl or POSIX group and returns the ranges it adds.
func (s *scanner) group() uint64 {
	if !s.fold {
		s.b.ranges = satAdd(s.b.ranges, groupRanges)
		return groupRanges
	}
	s.b.folds = satAdd(s.b.folds, groupFolds)
	s.b.ranges = satAdd(s.b.ranges, 2*groupFoldRanges)
	s.sort(groupFoldRanges)
	return groupFoldRanges
}

func (s *scanner) unicodeClass(t string) (uint64, string) {
	u := t[2:]
	var name string
	switch {
	case u == "":
		return 0, u
	case u[0] == '{':
		end := s.index(u, "}")
		if end < 0 {
			return 0, u // refused by the parser; what follows is literals
		}
		name, u = u[1:end], u[end+1:]
	default:
		_, size := utf8.DecodeRuneInString(u)
		name, u = u[:size], u[size:]
	}
	name = strings.TrimPrefix(name, "^")
	c, ok := unicodeTables().names[canonicalName(name)]
	if !ok {
		// A name the parser knows and this does not (it refuses others): the largest table.
		c = unicodeTables().largest
	}
	if !s.fold || c.folds == 0 {
		n := satAdd(c.ranges, 1)
		s.b.ranges = satAdd(s.b.ranges, n)
		return n, u
	}
	// The table and its orbits in a class of their own, which the parser reuses (its appends
	// counted with its sort), sorted, then appended, or their negation.
	n := satAdd(c.ranges, c.folds)
	s.sort(n)
	s.b.sorts = satAdd(s.b.sorts, n)
	s.b.ranges = satAdd(s.b.ranges, satAdd(n, 1))
	return satAdd(n, 1), u
}

func (s *scanner) class(t string) string {
	u := t[1:]
	n := uint64(0)
	// A class of at most two code points, or two pairs, that fold to each other ([Aa],
	// [\x{100}-\x{101}]) is a case-insensitive literal to the parser.
	items, literal := 0, true
	if u != "" && u[0] == '^' {
		n++ // the newline that the negation keeps out
		u = u[1:]
		literal = false
	}
	first := true
	for u != "" && (u[0] != ']' || first) {
		first = false
		items++
		if len(u) > 2 && u[0] == '[' && u[1] == ':' {
			if i := s.index(u[2:], ":]"); i >= 0 {
				n = satAdd(n, s.group())
				u = u[i+4:]
				literal = false
				continue
			}
		}
		if m, rest, ok := s.classEscape(u); ok {
			n, u, literal = satAdd(n, m), rest, false
			continue
		}
		var lo, hi rune
		lo, u = s.classChar(u)
		hi = lo
		if len(u) >= 2 && u[0] == '-' && u[1] != ']' {
			hi, u = s.classChar(u[1:])
		}
		literal = literal && hi-lo <= 1
		n = satAdd(n, s.classRange(lo, hi))
	}
	if u != "" {
		u = u[1:] // ]
	}
	s.sort(n) // and negated: at most one range more
	s.b.ranges = satAdd(s.b.ranges, n)
	n = satAdd(n, 1)
	w := instWeight(n, false)
	if literal && items <= 2 {
		w = max(w, instWeight(1, true))
	}
	s.runeAtom(n, w)
	return u
}

func (s *scanner) classRange(lo, hi rune) uint64 {
	if !s.fold || lo <= minFold && hi >= maxFold || hi < minFold || lo > maxFold {
		s.b.ranges = satAdd(s.b.ranges, 1)
		return 1
	}
	// The parser folds each code point in [minFold, maxFold] (appendFoldedRange); one that
	// folds adds at most three ranges, and breaks the range it extends at most once.
	lo, hi = max(lo, minFold), min(hi, maxFold)
	folds := uint64(max(0, hi-lo+1))
	n := satAdd(3, satMul(4, folding(lo, hi)))
	s.b.folds = satAdd(s.b.folds, folds)
	s.b.ranges = satAdd(s.b.ranges, n)
	return n
}

// The code points that case folding involves, as regexp/syntax has them
// (TestFoldingCodePoints checks them against package unicode).
const (
	minFold = 0x0041
	maxFold = 0x1e943
)

var foldingCodePoints = sync.OnceValue(func() []rune {
	var f []rune
	for c := rune(minFold); c <= maxFold; c++ {
		if unicode.SimpleFold(c) != c {
			f = append(f, c)
		}
	}
	return f
})

func folding(lo, hi rune) uint64 {
	f := foldingCodePoints()
	i, _ := slices.BinarySearch(f, lo)
	j, _ := slices.BinarySearch(f, hi+1)
	return uint64(j - i)
}

func (s *scanner) classChar(t string) (rune, string) {
	if t[0] == '\\' {
		return s.parseEscape(t)
	}
	r, size := utf8.DecodeRuneInString(t)
	return r, t[size:]
}

// parseEscape reads an escape as the parser does; one the parser refuses reads as two bytes.
func (s *scanner) parseEscape(t string) (rune, string) {
	if len(t) < 2 {
		return '\\', t[1:]
	}
	c, size := utf8.DecodeRuneInString(t[1:])
	u := t[1+size:]
	switch {
	case c >= '1' && c <= '7' && (u == "" || u[0] < '0' || u[0] > '7'):
		// A backreference, which the parser refuses.
	case c >= '0' && c <= '7':
		r := c - '0'
		for i := 1; i < 3 && u != "" && u[0] >= '0' && u[0] <= '7'; i++ {
			r = r*8 + rune(u[0]-'0')
			u = u[1:]
		}
		return r, u
	case c == 'x' && u != "" && u[0] == '{':
		if end := s.index(u, "}"); end > 1 {
			r := rune(0)
			for i := 1; i < end; i++ {
				v := unhex(u[i])
				if v < 0 || r > unicode.MaxRune {
					return c, u
				}
				r = r*16 + v
			}
			if r <= unicode.MaxRune {
				return r, u[end+1:]
			}
		}
	case c == 'x' && len(u) >= 2:
		if x, y := unhex(u[0]), unhex(u[1]); x >= 0 && y >= 0 {
			return x*16 + y, u[2:]
		}
	}
	return c, u
}

func unhex(c byte) rune {
	if v, err := strconv.ParseUint(string(c), 16, 8); err == nil {
		return rune(v)
	}
	return -1
}

// tableCost is what a class escape appends: its table's and fold orbits' ranges, strides expanded.
type tableCost struct{ ranges, folds uint64 }

type classTables struct {
	names   map[string]tableCost
	largest tableCost
}

var unicodeTables = sync.OnceValue(func() classTables {
	m := map[string]tableCost{}
	// Where two names meet, the costlier stands.
	put := func(name string, t, fold *unicode.RangeTable) {
		name = canonicalName(name)
		c := m[name]
		m[name] = tableCost{ranges: max(c.ranges, expanded(t)), folds: max(c.folds, expanded(fold))}
	}
	put("Any", anyTable, anyTable)
	put("Assigned", unicode.Cn, unicode.Cn)
	put("Ascii", asciiTable, asciiFoldTable)
	for name, t := range unicode.Categories {
		put(name, t, unicode.FoldCategory[name])
	}
	for name, t := range unicode.Scripts {
		put(name, t, unicode.FoldScript[name])
	}
	for alias, name := range unicode.CategoryAliases {
		put(alias, unicode.Categories[name], unicode.FoldCategory[name])
	}
	var largest tableCost
	for _, c := range m {
		largest = tableCost{ranges: max(largest.ranges, c.ranges), folds: max(largest.folds, c.folds)}
	}
	return classTables{names: m, largest: largest}
})

// The tables of the names package unicode does not have, as regexp/syntax defines them.
var (
	anyTable = &unicode.RangeTable{
		R16: []unicode.Range16{{Lo: 0, Hi: 1<<16 - 1, Stride: 1}},
		R32: []unicode.Range32{{Lo: 1 << 16, Hi: unicode.MaxRune, Stride: 1}},
	}
	asciiTable     = &unicode.RangeTable{R16: []unicode.Range16{{Lo: 0, Hi: 0x7F, Stride: 1}}}
	asciiFoldTable = &unicode.RangeTable{R16: []unicode.Range16{
		{Lo: 0, Hi: 0x7F, Stride: 1}, {Lo: 0x017F, Hi: 0x017F, Stride: 1}, {Lo: 0x212A, Hi: 0x212A, Stride: 1},
	}}
)

// expanded is how many ranges the parser appends for t: strides other than 1 expand.
func expanded(t *unicode.RangeTable) uint64 {
	if t == nil {
		return 0
	}
	var n uint64
	for _, r := range t.R16 {
		n += strided(uint64(r.Lo), uint64(r.Hi), uint64(r.Stride))
	}
	for _, r := range t.R32 {
		n += strided(uint64(r.Lo), uint64(r.Hi), uint64(r.Stride))
	}
	return n
}

func strided(lo, hi, stride uint64) uint64 {
	if stride == 1 {
		return 1
	}
	return (hi-lo)/stride + 1
}

// canonicalName is the parser's canonical form of a class name: no _, - or spaces, the first
// letter upper case, the others lower ("Greek").
func canonicalName(name string) string {
	b := make([]byte, 0, len(name))
	for i := range len(name) {
		switch c := name[i]; {
		case c == '_' || c == '-' || c == ' ':
		case len(b) == 0 && 'a' <= c && c <= 'z':
			b = append(b, c-'a'+'A')
		case len(b) > 0 && 'A' <= c && c <= 'Z':
			b = append(b, c-'A'+'a')
		default:
			b = append(b, c)
		}
	}
	return string(b)
}
