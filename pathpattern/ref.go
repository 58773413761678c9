package pathpattern

import (
	"io/fs"
	"path"
	"strings"
)

// maxRefLength is Linux's PATH_MAX, beyond which no file opens; a reference, often a
// template expanded with names from the tree, may be longer than a pattern.
const maxRefLength = 4096

// ruleTooManyBytes words both limits as maxBytes: this fails to compile if they differ.
const _ = uint(maxRefLength-maxBytes) + uint(maxBytes-maxRefLength)

// A Ref is a reference "@alias/path" to a file or directory in the source with that alias.
// Path is clean, relative, and valid for [fs.FS]. The zero value is not valid; use [ParseRef].
type Ref struct {
	Alias string
	Path  string
}

// ParseRef parses a reference "@alias/rel":
//
//	r, err := pathpattern.ParseRef("@repo/tenants/team-a/namespace-metadata.yaml") // {repo tenants/team-a/namespace-metadata.yaml}
//
// rel is cleaned with [path.Clean] ("a//b/./c/" becomes "a/b/c"). Every error is a
// [*SyntaxError] (wrapping [ErrSyntax]) with the byte offset and the rule broken: more
// than 4096 bytes, invalid UTF-8, a missing or invalid "@alias/", a NUL byte, an empty path
// or one naming the alias root, an absolute path, or a ".." element (even one that would
// clean away).
func ParseRef(s string) (Ref, error) {
	if len(s) > maxRefLength {
		return Ref{}, &SyntaxError{Input: s, Offset: maxRefLength, Rule: ruleTooManyBytes}
	}
	alias, off, err := splitAlias(s)
	if err != nil {
		return Ref{}, err
	}
	rel := s[off:]
	if i := strings.IndexByte(rel, 0); i >= 0 {
		return Ref{}, &SyntaxError{Input: s, Offset: off + i, Rule: ruleNUL}
	}
	if rel == "" {
		return Ref{}, &SyntaxError{Input: s, Offset: off, Rule: ruleEmptyPath}
	}
	if rel[0] == '/' {
		return Ref{}, &SyntaxError{Input: s, Offset: off, Rule: ruleAbsolutePath}
	}
	i := off
	for elem := range strings.SplitSeq(rel, "/") {
		if elem == ".." {
			return Ref{}, &SyntaxError{Input: s, Offset: i, Rule: ruleDotDot}
		}
		i += len(elem) + 1
	}
	clean := path.Clean(rel)
	if clean == "." || !fs.ValidPath(clean) {
		return Ref{}, &SyntaxError{Input: s, Offset: off, Rule: ruleEmptyPath}
	}
	return Ref{Alias: alias, Path: clean}, nil
}

// String returns the reference as "@alias/path".
func (r Ref) String() string { return "@" + r.Alias + "/" + r.Path }

// Validate reports whether r is what [ParseRef] returns for r.String(); the error is
// ParseRef's, or a [*SyntaxError] when r.Path is not clean.
func (r Ref) Validate() error {
	got, err := ParseRef(r.String())
	if err != nil {
		return err
	}
	if got != r {
		return &SyntaxError{Input: r.String(), Offset: len(r.Alias) + 2, Value: r.Path, Rule: ruleUncleanPath}
	}
	return nil
}
