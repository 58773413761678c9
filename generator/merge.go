package generator

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"sync"

	yamlv3 "go.yaml.in/yaml/v3"
	"sigs.k8s.io/yaml"

	"github.com/tenantkit/tenantkit/internal/yamldoc"
	"github.com/tenantkit/tenantkit/pathpattern"
)

// The budgets of Merge. Decoding YAML into maps takes many times the
// file's size in time and memory, and how many times depends on how many
// nodes (scalars, mappings, sequences) the file holds as much as on its
// bytes: a flow sequence "[1,1,1,...]" holds a node for every two bytes,
// and the decoders it goes through (sigs.k8s.io/yaml decodes YAML with
// yaml/v2, converts it to JSON and decodes that; encodeMerged does the
// reverse) each build all of them. So every merge is charged, before
// anything is decoded, what its two files cost to decode: one unit for
// each YAML node, as countMergeNodes counts them without decoding, and one
// for every 64 bytes (a key's twice), with what a file's aliases add as
// they are expanded (see mergeCharge). A node costs the decoders about as
// much as 64 bytes of text (BenchmarkHostileMerge). The charge must fit
// three budgets:
//
//   - each file: at most maxMergeUnits, so that one merge costs a
//     bounded, small amount (a file of 1 MiB is 16,384 units of bytes,
//     and may hold 1,024 nodes; a smaller one more);
//   - each artifact: the merges of one artifact together at most
//     maxArtifactMergeUnits, so that a tenant cannot multiply that amount
//     by merging many files;
//   - each plan: the merges that the plan's workers run at the same time
//     together at most one artifact's budget (mergeGate, see planBudget),
//     so that a plan's memory does not grow with its worker count. A
//     merge waits for its charge to be free, and never fails for this
//     budget.
//
// A merge that a budget refuses is an error of its artifact naming the
// budget, the file and its size; nothing of it is decoded, the copy
// operation stops there (the artifact fails, and its other files would
// only cost more), and other artifacts proceed. The budgets are counted,
// never timed: a file passes or fails the same way on every machine.
// Within them, a merge writes the same bytes as before they existed: they
// refuse a merge, and never change its output.
//
// The node count is an upper bound, which counts more than the nodes a
// realistic values file holds (the words of a comment after a quote
// character in it, or of a quoted or block scalar, count as nodes); the
// budget of a file leaves room for that on the largest values files that
// charts ship (BenchmarkHostileMerge's realistic file).
const (
	// maxMergeBytes bounds each file that a Merge copy reads, the file it
	// merges and the file it merges into: 1 MiB, the bound of every other
	// YAML file the plan decodes (inputs, NamespaceMetadata). The per-file
	// bound of copied files (8 MiB), which are only hashed, would be far
	// too much here.
	maxMergeBytes = 1 << 20
	// mergeUnitBytes is how many bytes a merge charges as one unit, as
	// much as a node.
	mergeUnitBytes = 64
	// maxMergeUnits bounds the charge of each file that a Merge copy
	// decodes: 17,408 units, a file of maxMergeBytes and 1,024 nodes.
	maxMergeUnits = 17_408
	// maxMergedBytes bounds the file that a merge writes: 4 MiB, four
	// times a file it reads, since block style takes more bytes than flow
	// style, and indentation grows with nesting. Its encoding costs about
	// as much as decoding a file at its budget, and a merge refuses it
	// before it encodes it when the bound is sure to be passed (see
	// encodedSizeAtLeast). Within maxArtifactFileBytes, the bound of every
	// file of an artifact.
	maxMergedBytes = 4 * maxMergeBytes
	// maxArtifactMergeUnits bounds the charges of the merges of one
	// artifact together: four files at their budget, or two merges of two
	// such files, several times what a chain of merges over the largest
	// chart values files takes, and few enough that one artifact's merges
	// cost about as much as extracting its archives at their bounds.
	maxArtifactMergeUnits = 4 * maxMergeUnits
)

// errMergeBudget is wrapped by the error of a merge that a budget refuses.
var errMergeBudget = errors.New("merge budget exceeded")

// mergeCost is what a merge decodes: bytes and YAML nodes.
type mergeCost struct {
	bytes, nodes int64
	// more says that the count stopped past a budget (see aliasCost):
	// there are more.
	more bool
}

func (c mergeCost) add(d mergeCost) mergeCost {
	return mergeCost{bytes: c.bytes + d.bytes, nodes: c.nodes + d.nodes, more: c.more || d.more}
}

// units is what c is charged: a unit for each node and for every
// mergeUnitBytes bytes, started.
func (c mergeCost) units() int64 {
	return c.nodes + (c.bytes+mergeUnitBytes-1)/mergeUnitBytes
}

// describe is c as an error shows it.
func (c mergeCost) describe() string {
	more := ""
	if c.more {
		more = " or more"
	}
	return fmt.Sprintf("%d%s (%d bytes, %d YAML nodes)", c.units(), more, c.bytes, c.nodes)
}

// merge merges the YAML file src into old, the file at its destination,
// and puts the result there, as source-watcher's Merge strategy does when
// the destination exists (see mergeYAML). The merged file reports src as
// its source.
//
// Before it decodes anything, it charges both files to the budgets (see
// maxMergeUnits): a file over its budget, or a merge that would take the
// artifact past its own, is an error wrapping errMergeBudget; then it
// waits until the plan's gate has room for the charge. It returns ctx's
// error when ctx ends first, and stops between the steps of a merge once
// ctx has ended.
func (t *artifactTree) merge(ctx context.Context, old *artifactFile, fsys fs.FS, src pathpattern.Ref) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	base, err := old.content(maxMergeBytes, nil)
	if err != nil {
		return err
	}
	overlay, err := pathpattern.ReadFile(fsys, src.Path, maxMergeBytes)
	if err != nil {
		return err
	}
	// Their bytes alone are charged (mergeCharge reads them to count the
	// rest): the plan's share must have room for them before they are.
	share := workShareOf(ctx)
	if err := share.check((int64(len(base)+len(overlay))+mergeUnitBytes-1)/mergeUnitBytes, "the merge's bytes alone"); err != nil {
		return err
	}
	bc, err := mergeCharge(base)
	if err != nil {
		return &mergeError{err: err}
	}
	if err := checkMergeFile(bc, fmt.Sprintf("the file there (from %q)", old.src.String())); err != nil {
		return err
	}
	oc, err := mergeCharge(overlay)
	if err != nil {
		return &mergeError{overlay: true, err: err}
	}
	if err := checkMergeFile(oc, "the file merged"); err != nil {
		return err
	}
	charge := bc.units() + oc.units()
	if spent := t.mergeSpent + charge; spent > maxArtifactMergeUnits {
		return fmt.Errorf("%w: the merges of an artifact must count no more than %d in all (a unit for each YAML node and each %d bytes of their files), and this one, counting %d, would bring them to %d",
			errMergeBudget, maxArtifactMergeUnits, mergeUnitBytes, charge, spent)
	}
	if err := share.charge(charge, "the merge"); err != nil {
		return err
	}
	t.mergeSpent += charge
	merged, err := gatedMerge(ctx, charge, base, overlay)
	if err != nil {
		return err
	}
	// The gate is given back: holdRoom may wait for an artifact that waits
	// for it.
	if err := holdRoom(ctx, t, int64(len(merged))); err != nil {
		return err
	}
	return t.put(&artifactFile{dest: old.dest, src: src, data: merged, own: true})
}

// gatedMerge is mergeYAML once the plan's gate has let charge through,
// which it gives back when the merge ends, however it ends.
func gatedMerge(ctx context.Context, charge int64, base, overlay []byte) ([]byte, error) {
	gate := mergeGateOf(ctx)
	if err := gate.acquire(ctx, charge); err != nil {
		return nil, err
	}
	defer gate.release(charge) // after a panic too: the plan's other merges wait for it
	return mergeYAML(ctx, base, overlay)
}

// checkMergeFile checks the charge of one file against the budget of a
// file; which names the file.
func checkMergeFile(c mergeCost, which string) error {
	if c.units() <= maxMergeUnits {
		return nil
	}
	return fmt.Errorf("%w: %s must count no more than %d to be merged (a unit for each YAML node and each %d bytes), and it counts %s",
		errMergeBudget, which, maxMergeUnits, mergeUnitBytes, c.describe())
}

// mergeCharge returns what decoding data costs a merge: its bytes and
// countMergeNodes' bound on its nodes, and for a stream with aliases, the
// bytes and nodes that expanding them adds. It decodes nothing but a
// stream that has both an anchor ("&") and an alias ("*") character, and
// that only once countMergeNodes has found it within the budget of a
// file; it then returns the parser's error for a stream that
// go.yaml.in/yaml/v3 cannot parse (yamldoc.CheckExpansion refuses it
// too).
func mergeCharge(data []byte) (mergeCost, error) {
	c := mergeCost{bytes: int64(len(data)), nodes: countMergeNodes(data)}
	if c.units() > maxMergeUnits || !bytes.ContainsRune(data, '&') || !bytes.ContainsRune(data, '*') {
		return c, nil
	}
	extra, err := aliasCost(data, maxMergeUnits-c.units())
	return c.add(extra), err
}

// countMergeNodes returns an upper bound on the nodes that go.yaml.in/yaml/v2
// (under sigs.k8s.io/yaml) parses in the YAML stream data, an alias
// counting as one node, in one pass over its bytes, without allocating.
//
// yaml/v2 makes a node of each token that holds content (a scalar, an
// alias, a node property), of each collection (a flow one at its "[" or
// "{", a block one at its first "-" or key), and of each empty scalar that
// an indicator leaves ("a:" with no value, "- " with no entry, "{a}", an
// empty document). The count is:
//
//   - one for each word: a run of bytes that are neither blank (space,
//     tab, line break) nor a separator ("[", "]", "{", "}", ",", "?", and
//     ":" where it may be a value indicator), since every token that holds
//     content starts a word;
//   - one for the stream: its first document's root;
//   - for each indicator, the nodes that no word counts and that it may
//     make or leave: "[" two (the list, and a mapping of one pair as its
//     first entry, "[a: 1]"), "{" two (the mapping, and its first key's
//     empty value), "," one (the same for the next entry), "?" three (a
//     mapping, an empty key and an empty value); "-" followed by a blank
//     one (an empty entry, or a mapping or a list in the entry); a ":"
//     that may be a value indicator one unless a word follows on the same
//     line (an empty value, or the mapping or list of the next lines),
//     and one more unless a word ends right before it (an empty key).
//
// A block collection needs no count of its own: it is a document's root,
// or what an indicator before it leaves without a word after it ("a:" and
// the next lines, "- " and the rest of the line), or a node's properties
// ("a: !!map" and the next lines), each counted. So a mapping of plain
// keys and values, as values files are written, counts its nodes.
//
// Surcharges make the count follow what decoding costs, not only the
// nodes: a key counts a unit more for every 64 of its bytes, which every
// step hashes, compares or copies again, as a unit of bytes (see
// mergeCharge) counts a value's; "[" and "{" count three more each, and
// so does a "-" entry whose
// content is a list on the same line ("- - x"), since each level of
// nesting costs the decoders several times what a node costs (nesting on
// separate lines costs the square of its depth in indentation, which the
// budget of bytes bounds); and a document start ("---" and a blank at the
// start of a line) counts docNodes, since each document is decoded afresh
// (see decodeMergeFile).
//
// A comment, from a "#" after a blank to the end of its line, is skipped
// up to its first quote character, if it holds one, and counted from
// there: a "#" inside a quoted scalar is text, and the scalar could end
// at that quote, with more tokens after it on the same line; before it,
// whatever YAML makes of the text holds no token. "[]" and "{}" (blanks
// inside allowed) count one node, as they nest nothing. Bytes that might
// start a line break other than "\n" and "\r" (NEL, LS, PS) count as
// blanks that end a comment, and everything else is counted, whatever it
// is inside (quoted and block scalars included), so the count can only be
// too high. Fuzzing checks it against the nodes that yaml/v3 parses and
// yaml/v2 decodes (FuzzCountMergeNodes).
func countMergeNodes(data []byte) int64 {
	n := int64(1)
	word := false      // inside a word
	var first byte     // the current word's first byte
	start := 0         // the index of the current word's first byte
	prev := byte('\n') // the byte before data[i]; a line break before the stream
	for i := 0; i < len(data); i++ {
		c := data[i]
		switch {
		case mayBreak(c) || c == ' ' || c == '\t':
			word = false
			prev = c
			continue
		case c == '#' && (prev == ' ' || prev == '\t' || prev == '\n' || prev == '\r'):
			j, ok := commentEnd(data, i)
			if ok {
				i = j - 1
				word = false
				prev = ' '
				continue
			}
			// Up to the quote, nothing is a token: a comment's text, or a
			// quoted scalar's, which the quote may end.
			i = j
			c = data[i]
			word = false
			prev = ' '
		}
		switch {
		case c == '-' && prev == '\n' && bytes.HasPrefix(data[i:], []byte("---")) && blankAt(data, i+3):
			n += docNodes // a document start
			i += 2
		case c == ',':
			n++
			word = false
		case (c == '[' || c == '{') && emptyFlow(data, i):
			n++ // "[]" or "{}": one node, nothing nested
			word = false
		case c == '[':
			n += 5
			word = false
		case c == '{':
			n += 5
			word = false
		case c == ']' || c == '}':
			word = false
		case c == '?':
			n += 3
			word = false
		case c == '-' && !word && blankAt(data, i+1):
			n++ // an empty entry, or a mapping or a list in the entry
			if j := skipBlanks(data, i+1); j < len(data) && data[j] == '-' && blankAt(data, j+1) {
				n += 3 // an entry that is a list: a level of nesting
			}
		case c == ':' && mayBeValue(data, i, word, first, prev):
			n += emptyAfter(data, i+1) // an empty value, or a collection on the next lines
			if !word || isSeparator(prev) || prev == ':' {
				n++ // an empty key
			} else {
				n += int64(i-start) / mergeUnitBytes // a key's bytes, again
			}
			word = false
		case !word:
			n++
			word = true
			first, start = c, i
		}
		prev = c
	}
	return n
}

// docNodes is what a document start counts (see countMergeNodes).
const docNodes = 8

// mayBreak reports whether c may be or start a line break for YAML: "\n",
// "\r", or the first byte of NEL (U+0085), LS (U+2028) or PS (U+2029),
// which are two other code points' too; or NUL, which ends yaml/v2's input.
func mayBreak(c byte) bool { return c == '\n' || c == '\r' || c == 0xC2 || c == 0xE2 || c == 0 }

// blankAt reports whether data ends at i or holds a blank there, as YAML's
// indicators need after them.
func blankAt(data []byte, i int) bool {
	return i >= len(data) || data[i] == ' ' || data[i] == '\t' || mayBreak(data[i])
}

// isSeparator reports whether c ends a word and starts the next one: the
// flow indicators, and "?", which yaml/v2 takes for a key indicator
// anywhere in a flow collection.
func isSeparator(c byte) bool {
	switch c {
	case ',', '[', ']', '{', '}', '?':
		return true
	}
	return false
}

// mayBeValue reports whether the ":" at data[i] may be a value indicator
// for yaml/v2: followed by a blank (or, conservatively, a separator), or
// where a token may start in a flow collection: after a blank, a
// separator, another ":" or a quote, or after an alias or an anchor,
// whose name a ":" ends. Elsewhere it is inside a word ("http://x",
// "image:tag"), which is one plain scalar.
func mayBeValue(data []byte, i int, word bool, first, prev byte) bool {
	if blankAt(data, i+1) || isSeparator(data[i+1]) || !word {
		return true
	}
	switch prev {
	case ':', '"', '\'':
		return true
	}
	return first == '*' || first == '&'
}

// emptyAfter returns 0 when a word starts on the same line after the blanks
// at data[i:], so that the indicator before them has a value or an entry,
// and 1 otherwise.
func emptyAfter(data []byte, i int) int64 {
	i = skipBlanks(data, i)
	if i == len(data) || mayBreak(data[i]) {
		return 1
	}
	switch data[i] {
	case ',', ']', '}', '?', '#', ':', '-':
		return 1
	}
	return 0
}

// skipBlanks returns the index of the first byte at or after data[i] that
// is not a space or a tab, or len(data).
func skipBlanks(data []byte, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\t') {
		i++
	}
	return i
}

// commentEnd returns where the comment that starts at data[i] ends (a
// line break, or the end of data), or, with false, where the first quote
// character before that is (see countMergeNodes).
func commentEnd(data []byte, i int) (int, bool) {
	for j := i + 1; j < len(data); j++ {
		switch c := data[j]; {
		case mayBreak(c):
			return j, true
		case c == '"' || c == '\'':
			return j, false
		}
	}
	return len(data), true
}

// emptyFlow reports whether the flow collection that starts at data[i]
// ends at once, blanks apart: "[]", "{ }".
func emptyFlow(data []byte, i int) bool {
	j := skipBlanks(data, i+1)
	return j < len(data) && (data[i] == '[' && data[j] == ']' || data[i] == '{' && data[j] == '}')
}

// aliasCost returns what expanding the aliases of data adds to what
// decoding it costs: for each alias, the nodes and bytes of the node it
// refers to, less the one node and the bytes that the alias itself
// counted. A node's bytes are yamldoc.CheckExpansion's measure: a
// scalar's value and one, and two for a collection, plus its contents.
// It stops once the sum passes limit units, with the cost so far and more
// set.
// The stream is
// parsed with go.yaml.in/yaml/v3's node API, which keeps aliases as
// references, as yamldoc.CheckExpansion parses it; each anchor is measured
// once.
func aliasCost(data []byte, limit int64) (cost mergeCost, err error) {
	defer func() {
		// The parser reports errors by panicking and recovering internally;
		// a panic that escapes it is a bug in the parser, which hostile
		// input must not turn into a crash.
		if r := recover(); r != nil {
			err = fmt.Errorf("yaml: %v", r)
		}
	}()
	a := aliasSizes{sizes: map[*yamlv3.Node]mergeCost{}}
	dec := yamlv3.NewDecoder(bytes.NewReader(data))
	for {
		var doc yamlv3.Node
		if err := dec.Decode(&doc); err != nil {
			if errors.Is(err, io.EOF) {
				return cost, nil
			}
			return cost, err
		}
		a.walk(&doc, &cost, limit)
		if cost.units() > limit {
			var next yamlv3.Node
			cost.more = a.more || dec.Decode(&next) == nil
			return cost, nil
		}
	}
}

// aliasSizes measures the nodes that aliases refer to, once each.
type aliasSizes struct {
	// sizes holds the expanded cost of each anchored node measured so far,
	// or a negative nodes count while it is being measured (an alias to it
	// then is a cycle, which yaml/v3 refuses before this).
	sizes map[*yamlv3.Node]mergeCost
	// more says that a node was left out, past the budgets.
	more bool
}

// walk adds to cost what expanding the aliases below n adds, until cost
// passes limit.
func (a *aliasSizes) walk(n *yamlv3.Node, cost *mergeCost, limit int64) {
	if cost.units() > limit {
		a.more = true
		return
	}
	if n.Kind == yamlv3.AliasNode {
		if n.Alias != nil {
			s := a.size(n.Alias)
			*cost = cost.add(mergeCost{bytes: s.bytes, nodes: s.nodes - 1})
		}
		return
	}
	for _, c := range n.Content {
		a.walk(c, cost, limit)
	}
}

// size returns the expanded cost of n: its nodes and bytes with every
// alias below it replaced by what it refers to. Its recursion is as deep as
// the document nests, which the parser bounds; a cycle counts as nothing
// (yaml/v3 refuses such a stream when it decodes it).
func (a *aliasSizes) size(n *yamlv3.Node) mergeCost {
	if n.Kind == yamlv3.AliasNode {
		if n.Alias == nil {
			return mergeCost{nodes: 1}
		}
		n = n.Alias
	}
	if s, ok := a.sizes[n]; ok {
		if s.nodes < 0 {
			return mergeCost{}
		}
		return s
	}
	a.sizes[n] = mergeCost{nodes: -1}
	s := mergeCost{nodes: 1, bytes: 2}
	if n.Kind == yamlv3.ScalarNode {
		s.bytes = int64(len(n.Value)) + 1
	}
	for _, c := range n.Content {
		s = s.add(a.size(c))
		if s.units() > maxMergeUnits {
			a.more = true
			break // past every budget: the caller refuses it
		}
	}
	a.sizes[n] = s
	return s
}

// mergeError says which side of a merge is not what Merge can merge.
type mergeError struct {
	overlay bool // the file merged, not the one merged into
	err     error
}

func (e *mergeError) Error() string {
	which := "the file there"
	if e.overlay {
		which = "the file merged"
	}
	return which + " must be YAML whose documents are mappings: " + e.err.Error()
}

func (e *mergeError) Unwrap() error { return e.err }

// mergeYAML returns overlay's YAML merged over base's, byte for byte as
// source-watcher v2.3 writes it: each file's documents are decoded with
// sigs.k8s.io/yaml into maps and merged in order into one; then overlay's
// map is merged over base's, recursively, as Helm merges values files
// (see mergeMaps); and the result is encoded as sigs.k8s.io/yaml encodes
// it, one document, keys sorted, in an order that does not change from run
// to run (encodeMerged). A document that is not a mapping (a list, a
// string) is an error; an empty or null one adds nothing. Decoding is
// sigs.k8s.io/yaml's (not strict: a duplicate key takes its last value;
// numbers pass through float64), which is what upstream decodes with.
//
// Before decoding, yamldoc.Documents bounds alias expansion and refuses a
// document hidden after a "..." end marker, which upstream's decoder would
// drop. Nesting is bounded by the decoders, to 10,000 levels. mergeYAML
// charges nothing: its caller does (see artifactTree.merge). Between
// documents and steps it returns ctx's error once ctx has ended.
func mergeYAML(ctx context.Context, base, overlay []byte) ([]byte, error) {
	b, err := decodeMergeFile(ctx, base)
	if err != nil {
		return nil, sideError(err, false)
	}
	o, err := decodeMergeFile(ctx, overlay)
	if err != nil {
		return nil, sideError(err, true)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	merged := mergeMaps(b, o)
	if encodedSizeAtLeast(merged, maxMergedBytes) > maxMergedBytes {
		return nil, errMergedTooLarge
	}
	out, err := encodeMerged(ctx, merged)
	if err == nil && len(out) > maxMergedBytes {
		return nil, errMergedTooLarge
	}
	return out, err
}

// errMergedTooLarge refuses a merged file larger than maxMergedBytes.
var errMergedTooLarge = fmt.Errorf("the merged file must be no more than %d bytes", maxMergedBytes)

// sideError is err of one side of a merge: a mergeError, unless it is the
// context's.
func sideError(err error, overlay bool) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return &mergeError{overlay: overlay, err: err}
}

// decodeMergeFile decodes a file's YAML documents into maps and merges
// them, in order, into one.
func decodeMergeFile(ctx context.Context, data []byte) (map[string]any, error) {
	docs, err := yamldoc.Documents(data)
	if err != nil {
		return nil, err
	}
	out := map[string]any{}
	for i, doc := range docs {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if i == 0 {
			doc = yamldoc.Aligned(data, doc) // errors name the file's lines
		}
		var m map[string]any
		if err := yaml.Unmarshal(doc, &m); err != nil {
			if len(docs) > 1 {
				return nil, fmt.Errorf("document %d: %w", i+1, err)
			}
			return nil, err
		}
		// Into out, which holds only what this file's documents decoded
		// to, so that many documents cost their size, not its square.
		mergeInto(out, m)
	}
	return out, nil
}

// mergeMaps returns overlay merged over base, neither of which it
// changes: a key that both hold as maps is merged recursively; otherwise
// overlay's value wins, lists and nulls included. This is source-watcher's
// merge, which follows Helm's merge of values files (except that a null
// sets the key to null instead of deleting it). Its recursion is as deep
// as the maps, which the decoders bound.
func mergeMaps(base, overlay map[string]any) map[string]any {
	out := make(map[string]any, len(base)+len(overlay))
	for k, v := range base {
		out[k] = v
	}
	for k, v := range overlay {
		if om, ok := v.(map[string]any); ok {
			if bm, ok := out[k].(map[string]any); ok {
				out[k] = mergeMaps(bm, om)
				continue
			}
		}
		out[k] = v
	}
	return out
}

// mergeInto merges overlay over dst as mergeMaps does, changing dst (and
// the maps it holds) in place instead of copying it: the result is
// mergeMaps(dst, overlay). overlay's maps become dst's, so the caller
// must not use overlay afterwards.
func mergeInto(dst, overlay map[string]any) {
	for k, v := range overlay {
		if om, ok := v.(map[string]any); ok {
			if dm, ok := dst[k].(map[string]any); ok {
				mergeInto(dm, om)
				continue
			}
		}
		dst[k] = v
	}
}

// mergeGate is a plan's budget of merges that run at the same time: a
// semaphore weighted by what each merge is charged, with room for one
// artifact's budget, which serves merges in the order they asked. Each
// merge's charge fits an artifact's budget, so each eventually gets its
// turn, and holds it only while it decodes and encodes. The zero value is
// not valid; use newMergeGate. A nil *mergeGate lets every merge through.
type mergeGate struct {
	mu      sync.Mutex
	free    int64 // units
	waiters []*mergeWaiter
}

type mergeWaiter struct {
	units int64
	ready chan struct{} // closed when units are taken for it
}

func newMergeGate() *mergeGate { return &mergeGate{free: maxArtifactMergeUnits} }

// acquire takes c units from the gate, waiting for room, or returns ctx's
// error when ctx ends first, having taken nothing.
func (g *mergeGate) acquire(ctx context.Context, c int64) error {
	if g == nil {
		return nil
	}
	g.mu.Lock()
	if len(g.waiters) == 0 && c <= g.free {
		g.free -= c
		g.mu.Unlock()
		return nil
	}
	w := &mergeWaiter{units: c, ready: make(chan struct{})}
	g.waiters = append(g.waiters, w)
	g.mu.Unlock()
	select {
	case <-w.ready:
		return nil
	case <-ctx.Done():
		g.mu.Lock()
		select {
		case <-w.ready: // served meanwhile: give it back
			g.mu.Unlock()
			g.release(c)
		default:
			for i, x := range g.waiters {
				if x == w {
					g.waiters = append(g.waiters[:i], g.waiters[i+1:]...)
					break
				}
			}
			g.serve()
			g.mu.Unlock()
		}
		return ctx.Err()
	}
}

// release gives c units back to the gate.
func (g *mergeGate) release(c int64) {
	if g == nil {
		return
	}
	g.mu.Lock()
	g.free += c
	g.serve()
	g.mu.Unlock()
}

// serve hands room to the waiters, in order, while the first one fits.
// g.mu is held.
func (g *mergeGate) serve() {
	for len(g.waiters) > 0 && g.waiters[0].units <= g.free {
		w := g.waiters[0]
		g.waiters = g.waiters[1:]
		g.free -= w.units
		close(w.ready)
	}
}

// planBudget is what the artifacts that a plan builds at the same time
// share, so that the plan's memory does not grow with its worker count
// beyond what one artifact's bounds allow:
//
//   - merges, the memory of their decoding and encoding while they run:
//     together at most one artifact's budget of merges (mergeGate);
//   - the content of merged and extracted files, which an artifact holds
//     until its digest is computed (maxHeldBytes): each artifact may hold
//     smallHeld bytes, maxHeldBytes shared by the workers, and one
//     artifact at a time, the one that holds the large token, up to
//     maxHeldBytes. An artifact that needs more waits for the token, which
//     it keeps until it is built (see artifactLease).
//
// So the held content of a plan is at most twice maxHeldBytes, whatever
// its worker count. Neither budget makes an artifact fail: it makes it
// wait. No wait can close a cycle: a merge takes its units only while it
// decodes and encodes, and gives them back before it asks for the token.
type planBudget struct {
	merges    *mergeGate
	large     chan struct{} // holds a value while an artifact holds the token
	smallHeld int64
}

// artifactLease is what one artifact holds of its plan's budget.
type artifactLease struct {
	plan  *planBudget
	large bool       // it holds the large token
	work  *workShare // its share of the plan's work, nil for no bound
}

type planBudgetKey struct{}
type artifactLeaseKey struct{}

// withPlanBudget returns ctx with a new planBudget for workers workers,
// the one that every artifact built under it shares (see artifacts).
func withPlanBudget(ctx context.Context, workers int) context.Context {
	b := &planBudget{merges: newMergeGate(), large: make(chan struct{}, 1), smallHeld: maxHeldBytes / int64(max(workers, 1))}
	return context.WithValue(ctx, planBudgetKey{}, b)
}

// withArtifactLease returns ctx with the lease of one artifact of ctx's
// plan, with work as its share of the plan's work (nil for no bound), and
// the function that gives back what the artifact took of the plan's
// budget once it is built, which the caller must call.
func withArtifactLease(ctx context.Context, work *workShare) (context.Context, func()) {
	plan, _ := ctx.Value(planBudgetKey{}).(*planBudget)
	l := &artifactLease{plan: plan, work: work}
	return context.WithValue(ctx, artifactLeaseKey{}, l), func() {
		if l.large {
			l.large = false
			<-plan.large
		}
	}
}

// mergeGateOf returns the mergeGate of ctx's plan, or nil when it has
// none.
func mergeGateOf(ctx context.Context) *mergeGate {
	if b, _ := ctx.Value(planBudgetKey{}).(*planBudget); b != nil {
		return b.merges
	}
	return nil
}

// holdRoom waits until the artifact that t is may hold n more bytes of
// content, as its plan's budget shares them (see planBudget): at once
// while t holds no more than smallHeld bytes with them, or once it holds
// the large token. It returns ctx's error when ctx ends first. Without a
// lease in ctx (a tree built outside a plan), it lets everything through;
// maxHeldBytes still bounds the tree (see artifactTree.put).
func holdRoom(ctx context.Context, t *artifactTree, n int64) error {
	l, _ := ctx.Value(artifactLeaseKey{}).(*artifactLease)
	if l == nil || l.plan == nil || l.large || t.held+n <= l.plan.smallHeld {
		return nil
	}
	select {
	case l.plan.large <- struct{}{}:
		l.large = true
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
