// Package globmeta reads the escapes of a doublestar pattern as doublestar's Glob does, for
// pathpattern, which globs, and generator, which places what a glob returned.
//
// A backslash escapes the next byte; a pattern without an unescaped glob character ('*', '?',
// '[', '{') names a path, which Glob looks up with only the escapes of glob characters
// (*?[]{}) removed: `a\*b` names "a*b" but `a\b` names "a\b". Both functions are pure.
package globmeta

import "strings"

// HasMeta reports whether pattern has an unescaped glob character.
func HasMeta(pattern string) bool {
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

var unescaper = strings.NewReplacer(`\*`, "*", `\?`, "?", `\[`, "[", `\]`, "]", `\{`, "{", `\}`, "}")

// Unescape returns the path that a pattern without glob characters names.
func Unescape(pattern string) string {
	if !strings.Contains(pattern, `\`) {
		return pattern
	}
	return unescaper.Replace(pattern)
}
