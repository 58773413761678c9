package yamldoc

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	yamlv3 "go.yaml.in/yaml/v3"
)

// The bound on alias expansion: see [CheckExpansion].
const (
	// ExpansionRatio is how many times its own size a YAML stream may expand to through aliases.
	ExpansionRatio = 10
	// MinExpansion is the expanded size that any stream may reach, so that a small document can
	// still reuse an anchor many times.
	MinExpansion = 64 << 10
)

// ErrExpansion is returned by [CheckExpansion] for a stream whose aliases expand it too far.
var ErrExpansion = errors.New("YAML aliases must expand a document to no more than 10 times its size (64 KiB at least)")

// CheckExpansion returns nil when the YAML stream in data, with every alias replaced by what
// its anchor holds, stays within ExpansionRatio times len(data) bytes, or MinExpansion bytes
// for a smaller stream. It returns an error wrapping ErrExpansion for a stream that expands
// further, or an alias inside its own anchor (which would expand for ever), and the parser's
// error for a stream that is not YAML. Every YAML document the module reads passes here before
// it is decoded (issue 18: generator's TestParseInputsExpansionRefused, nsmeta's
// TestParseFileExpansion).
//
// The expanded size counts a scalar as its length plus one, a mapping or sequence as two plus
// its contents, a lower bound of the document written without aliases. An anchor is measured
// once, so the check is linear in len(data). A stream without both "&" and "*" is not parsed;
// any other that yaml/v3 refuses is refused, its bound unchecked. Nesting over 10,000 levels
// fails in the parser.
func CheckExpansion(data []byte) (err error) {
	if !bytes.ContainsRune(data, '&') || !bytes.ContainsRune(data, '*') {
		return nil
	}
	defer recoverParser(&err)
	e := expansion{
		limit: max(ExpansionRatio*int64(len(data)), MinExpansion),
		sizes: map[*yamlv3.Node]int64{},
	}
	dec := yamlv3.NewDecoder(bytes.NewReader(data))
	for {
		var doc yamlv3.Node
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		// An alias may refer to an anchor of an earlier document: measure them together.
		size, err := e.size(&doc)
		if e.total += size; errors.Is(err, errLimit) || e.total > e.limit {
			return fmt.Errorf("%w: %d bytes expand to more than %d", ErrExpansion, len(data), e.limit)
		}
		if err != nil {
			return fmt.Errorf("%w: %w", ErrExpansion, err)
		}
	}
}

type expansion struct {
	limit, total int64
	// sizes holds each anchored node's expanded size, or -1 while measured (an alias: a cycle).
	sizes map[*yamlv3.Node]int64
}

var errCycle = errors.New("an alias must not refer to a node that contains it")

var errLimit = errors.New("limit passed")

// size returns the expanded size of n, or errLimit or errCycle; the parser bounds its recursion.
func (e *expansion) size(n *yamlv3.Node) (int64, error) {
	if n.Kind == yamlv3.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	if n.Anchor != "" {
		switch s, ok := e.sizes[n]; {
		case ok && s < 0:
			return 0, errCycle
		case ok:
			return s, nil
		}
		e.sizes[n] = -1
	}
	var s int64
	switch n.Kind {
	case yamlv3.ScalarNode:
		s = int64(len(n.Value)) + 1
	case yamlv3.MappingNode, yamlv3.SequenceNode:
		s = 2
	}
	for _, c := range n.Content {
		cs, err := e.size(c)
		if err != nil {
			return 0, err
		}
		if s += cs; e.total+s > e.limit {
			return 0, errLimit
		}
	}
	if n.Anchor != "" {
		e.sizes[n] = s
	}
	return s, nil
}
