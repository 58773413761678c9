package generator

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"slices"
	"sync"

	yamlv3 "go.yaml.in/yaml/v3"
	"sigs.k8s.io/yaml"

	"github.com/tenantkit/tenantkit/internal/yamldoc"
	"github.com/tenantkit/tenantkit/pathpattern"
)

// The budgets of Merge, counted, never timed (a file passes or fails alike on every machine),
// and never changing its output. Decoding YAML costs as much per node as per byte, so before
// decoding a merge is charged a unit per YAML node (mergeCharge) and per 64 bytes, against the
// budgets of a file, an artifact and a plan (mergeGate, which makes a merge wait, never fail).
// A refused merge is an error of its artifact naming the budget, the file and its size: nothing
// of it is decoded, its copy operation stops, and other artifacts proceed.
const (
	// maxMergeBytes bounds both files of a merge, as every YAML file the plan decodes (a copied
	// file's 8 MiB, which is only hashed, would be far too much here).
	maxMergeBytes = 1 << 20
	// mergeUnitBytes is how many bytes a merge charges as one unit.
	mergeUnitBytes = 64
	// maxMergeUnits bounds each file a Merge copy decodes: a file of maxMergeBytes and 1,024 nodes,
	// room for the largest chart values files (BenchmarkHostileMerge's realistic file).
	maxMergeUnits = 17_408
	// maxMergedBytes bounds the file a merge writes, within maxArtifactFileBytes: four times a file
	// it reads, as block style takes more bytes than flow style (see encodedSizeAtLeast).
	maxMergedBytes = 4 * maxMergeBytes
	// maxArtifactMergeUnits bounds one artifact's merges together, so that many files do not
	// multiply a merge's cost: about what extracting its archives at their bounds costs.
	maxArtifactMergeUnits = 4 * maxMergeUnits
)

// errMergeBudget is wrapped by the error of a merge that a budget refuses.
var errMergeBudget = errors.New("merge budget exceeded")

// mergeCost is what a merge decodes: bytes and YAML nodes.
type mergeCost struct {
	bytes, nodes int64
	// more says that the count stopped past a budget (see aliasCost).
	more bool
}

func (c mergeCost) add(d mergeCost) mergeCost {
	return mergeCost{bytes: c.bytes + d.bytes, nodes: c.nodes + d.nodes, more: c.more || d.more}
}

// units is what c is charged: a unit per node and per mergeUnitBytes started.
func (c mergeCost) units() int64 {
	return c.nodes + (c.bytes+mergeUnitBytes-1)/mergeUnitBytes
}

func (c mergeCost) describe() string {
	more := ""
	if c.more {
		more = " or more"
	}
	return fmt.Sprintf("%d%s (%d bytes, %d YAML nodes)", c.units(), more, c.bytes, c.nodes)
}

// merge merges the YAML file src into old, the file at its destination, as source-watcher's
// Merge strategy does (mergeYAML), src its source. It first charges both files: one over a
// file's or the artifact's budget is an error wrapping errMergeBudget; then it waits for room
// in the plan's gate. Once ctx has ended, it returns ctx's error.
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
	// Charge the bytes before mergeCharge reads them to count the rest.
	share := workShareOf(ctx)
	if err := share.check((int64(len(base)+len(overlay))+mergeUnitBytes-1)/mergeUnitBytes, "the merge's bytes alone"); err != nil {
		return err
	}
	bc, err := chargeMergeFile(base, false, fmt.Sprintf("the file there (from %q)", old.src.String()))
	if err != nil {
		return err
	}
	oc, err := chargeMergeFile(overlay, true, "the file merged")
	if err != nil {
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
	// After the gate is given back: holdRoom may wait for an artifact that waits for it.
	if err := holdRoom(ctx, t, int64(len(merged))); err != nil {
		return err
	}
	return t.put(&artifactFile{dest: old.dest, src: src, data: merged, own: true})
}

// gatedMerge is mergeYAML once the plan's gate lets charge through, given back however it ends.
func gatedMerge(ctx context.Context, charge int64, base, overlay []byte) ([]byte, error) {
	gate := mergeGateOf(ctx)
	if err := gate.acquire(ctx, charge); err != nil {
		return nil, err
	}
	defer gate.release(charge) // after a panic too: the plan's other merges wait for it
	return mergeYAML(ctx, base, overlay)
}

// chargeMergeFile returns one side's charge (mergeCharge), checked against a file's budget;
// which names the file in that error.
func chargeMergeFile(data []byte, overlay bool, which string) (mergeCost, error) {
	c, err := mergeCharge(data)
	if err != nil {
		return c, &mergeError{overlay: overlay, err: err}
	}
	if c.units() > maxMergeUnits {
		return c, fmt.Errorf("%w: %s must count no more than %d to be merged (a unit for each YAML node and each %d bytes), and it counts %s",
			errMergeBudget, which, maxMergeUnits, mergeUnitBytes, c.describe())
	}
	return c, nil
}

// mergeCharge returns what decoding data costs a merge: its bytes, countMergeNodes' bound on its
// nodes, and what expanding aliases adds, parsed (as yamldoc.CheckExpansion does) only for a
// stream with "&" and "*" within a file's budget so far, whose parse error it returns.
func mergeCharge(data []byte) (mergeCost, error) {
	c := mergeCost{bytes: int64(len(data)), nodes: countMergeNodes(data)}
	if c.units() > maxMergeUnits || !bytes.ContainsRune(data, '&') || !bytes.ContainsRune(data, '*') {
		return c, nil
	}
	extra, err := aliasCost(data, maxMergeUnits-c.units())
	return c.add(extra), err
}

// countMergeNodes returns an upper bound on the nodes that go.yaml.in/yaml/v2 (under
// sigs.k8s.io/yaml) parses in the YAML stream data, an alias counting one, in one pass without
// allocating: yaml/v2 makes a node of each content token (a scalar, an alias, a node property),
// of each collection, and of each empty scalar an indicator leaves ("a:", "- ", "{a}", an empty
// document). It counts one for the stream and one per word (a run of bytes neither blank nor a
// separator: "[", "]", "{", "}", ",", "?", and a ":" that may be a value indicator); for what an
// indicator may make or leave, "[" two (the list, a one-pair mapping "[a: 1]" in it), "{" two
// (the mapping, an empty value), "," one (the same for the next entry), "?" three, "-" before a
// blank one, a value ":" one unless a word follows on its line (an empty value, or the next
// lines' collection) and one more unless a word ends right before it (an empty key); and for
// decoding beyond nodes, a key one more per 64 of its bytes (each step handles it again), "[",
// "{" and "- -" three more (a level of nesting; by lines, the bytes bound it), and a document
// start ("---" and a blank at a line's start) docNodes (each is decoded afresh).
//
// A comment ("#" after a blank) is skipped up to its first quote, which could end a quoted
// scalar the "#" was in; "[]" and "{}" count one; a byte that may start NEL, LS or PS is a blank.
// Everything else is counted, inside scalars too, so the count can only be too high.
// FuzzCountMergeNodes checks it against yaml/v3 and yaml/v2.
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
			word, prev = false, ' '
			if ok {
				i = j - 1
				continue
			}
			// Up to the quote nothing is a token: a comment's text, or a quoted scalar's.
			i, c = j, data[j]
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
		case c == '[' || c == '{':
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

// mayBreak reports whether c may be or start a line break for YAML ("\n",
// "\r", or NEL's, LS's or PS's first byte), or is NUL, which ends yaml/v2's input.
func mayBreak(c byte) bool { return c == '\n' || c == '\r' || c == 0xC2 || c == 0xE2 || c == 0 }

// blankAt reports whether data ends at i or holds a blank there, as YAML's indicators need.
func blankAt(data []byte, i int) bool {
	return i >= len(data) || data[i] == ' ' || data[i] == '\t' || mayBreak(data[i])
}

// isSeparator reports whether c ends a word and starts the next: a flow
// indicator, or "?", a key indicator anywhere in a flow collection.
func isSeparator(c byte) bool {
	switch c {
	case ',', '[', ']', '{', '}', '?':
		return true
	}
	return false
}

// mayBeValue reports whether the ":" at data[i] may be a value indicator for yaml/v2: before a
// blank or (conservatively) a separator, or after a blank, a separator, ":" or a quote, or ending
// an alias's or anchor's name; elsewhere it is inside a plain scalar ("http://x", "image:tag").
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
// at data[i:] (the indicator before them has a value), and 1 otherwise.
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

// skipBlanks returns the index of the first byte from data[i] not a space or a tab, or len(data).
func skipBlanks(data []byte, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\t') {
		i++
	}
	return i
}

// commentEnd returns where the comment at data[i] ends (a line break, or the
// end of data), or, with false, where a quote before that is.
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

// emptyFlow reports whether the flow collection at data[i] ends at once, blanks apart: "{ }".
func emptyFlow(data []byte, i int) bool {
	j := skipBlanks(data, i+1)
	return j < len(data) && (data[i] == '[' && data[j] == ']' || data[i] == '{' && data[j] == '}')
}

// aliasCost returns what expanding data's aliases adds to decoding it: for each alias, the nodes
// and bytes (as yamldoc.CheckExpansion measures them) of the node it refers to, less the alias's
// own. It parses as CheckExpansion does, with yaml/v3's node API, which keeps aliases as
// references, measures each anchor once, and stops past limit units with the cost so far and more.
func aliasCost(data []byte, limit int64) (cost mergeCost, err error) {
	defer func() {
		// A parser panic is its bug, which hostile input must not turn into a crash.
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
	// sizes holds the expanded cost of each anchored node measured so far;
	// negative nodes while it is measured (an alias to it is then a cycle).
	sizes map[*yamlv3.Node]mergeCost
	// more says that a node was left out, past the budgets.
	more bool
}

// walk adds to cost what expanding the aliases below n adds, until cost passes limit.
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

// size returns the expanded cost of n, aliases replaced by what they refer to, recursing as deep
// as the document nests, which the parser bounds; a cycle counts nothing (yaml/v3 refuses it).
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

// mergeYAML returns overlay's YAML merged over base's, byte for byte as source-watcher v2.3
// writes it: each file's documents decoded as upstream does, with sigs.k8s.io/yaml (a duplicate
// key takes its last value; numbers pass through float64), and merged in order; then overlay
// over base (mergeInto), encoded as one document, keys sorted (encodeMerged). A document that is
// not a mapping is an error; an empty or null one adds nothing. yamldoc.Documents first bounds
// alias expansion and refuses a document after a "..." end marker, which upstream would drop;
// the decoders bound nesting to 10,000 levels. It charges nothing (see artifactTree.merge), and
// returns ctx's error between steps once ctx has ended.
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
	mergeInto(b, o) // both are this call's own
	if encodedSizeAtLeast(b, maxMergedBytes) > maxMergedBytes {
		return nil, errMergedTooLarge
	}
	out, err := encodeMerged(ctx, b)
	if err == nil && len(out) > maxMergedBytes {
		return nil, errMergedTooLarge
	}
	return out, err
}

// errMergedTooLarge refuses a merged file larger than maxMergedBytes.
var errMergedTooLarge = fmt.Errorf("the merged file must be no more than %d bytes", maxMergedBytes)

// sideError is err of one side of a merge: a mergeError, unless ctx's.
func sideError(err error, overlay bool) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return &mergeError{overlay: overlay, err: err}
}

// decodeMergeFile decodes a file's YAML documents and merges them in order.
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
		// In place, so that many documents cost their size, not its square.
		mergeInto(out, m)
	}
	return out, nil
}

// mergeInto merges overlay over dst, in place, as source-watcher merges (Helm's merge of values
// files, but a null sets the key to null instead of deleting it): maps under one key merge
// recursively, as deep as the decoders bound; else overlay's value wins, lists too. overlay's
// maps become dst's, so the caller must not use overlay afterwards.
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

// mergeGate is a plan's budget of merges running at once: a semaphore weighted by charge, with
// room for one artifact's budget, so every merge fits and gets its turn in the order asked. The
// zero value is not valid; use newMergeGate. A nil *mergeGate lets every merge through.
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

// acquire takes c units, waiting for room, or returns ctx's error, having taken nothing.
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
			g.waiters = slices.DeleteFunc(g.waiters, func(x *mergeWaiter) bool { return x == w })
			g.serve()
			g.mu.Unlock()
		}
		return ctx.Err()
	}
}

func (g *mergeGate) release(c int64) {
	if g == nil {
		return
	}
	g.mu.Lock()
	g.free += c
	g.serve()
	g.mu.Unlock()
}

// serve hands room to the waiters, in order, while the first fits; g.mu is held.
func (g *mergeGate) serve() {
	for len(g.waiters) > 0 && g.waiters[0].units <= g.free {
		w := g.waiters[0]
		g.waiters = g.waiters[1:]
		g.free -= w.units
		close(w.ready)
	}
}

// planBudget is what the artifacts a plan builds at once share, so that memory does not grow
// with the worker count: running merges share one artifact's budget (mergeGate); of the content
// held until an artifact is hashed, each may hold smallHeld bytes (maxHeldBytes shared by the
// workers) and the one holding the large token up to maxHeldBytes, so a plan holds at most twice
// maxHeldBytes. Both only make an artifact wait, never fail it, and no wait closes a cycle: a
// merge gives its units back before it asks for the token.
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

// withPlanBudget returns ctx with a planBudget for workers workers, shared by its artifacts.
func withPlanBudget(ctx context.Context, workers int) context.Context {
	b := &planBudget{merges: newMergeGate(), large: make(chan struct{}, 1), smallHeld: maxHeldBytes / int64(max(workers, 1))}
	return context.WithValue(ctx, planBudgetKey{}, b)
}

// withArtifactLease returns ctx with the lease of one artifact of ctx's plan, work its share
// (nil for no bound), and the function to call once it is built, which gives back what it took.
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

// mergeGateOf returns the mergeGate of ctx's plan, or nil.
func mergeGateOf(ctx context.Context) *mergeGate {
	if b, _ := ctx.Value(planBudgetKey{}).(*planBudget); b != nil {
		return b.merges
	}
	return nil
}

// holdRoom waits until t's artifact may hold n more bytes (planBudget): at once within smallHeld
// or with the large token, else until ctx ends. Without a lease in ctx (a tree built outside a
// plan) it lets all through; maxHeldBytes still bounds the tree (see artifactTree.put).
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
