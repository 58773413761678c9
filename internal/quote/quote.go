package quote

import (
	"strconv"
	"unicode/utf8"
)

// MaxBytes is how many bytes of a value [Value] keeps: enough to recognize a value, and more
// than a label value may have (63 characters), so a rejected label value is shown whole.
const MaxBytes = 64

// Value returns s when it has at most MaxBytes bytes, or else its first MaxBytes bytes, cut
// back to the start of a UTF-8 character, followed by "... (N bytes)", N being len(s):
//
//	quote.Value(strings.Repeat("x", 100000)) // "xxxx...xxxx... (100000 bytes)", 64 x's
//
// The result is meant as a field.Error's BadValue or the operand of %q.
func Value(s string) string {
	if len(s) <= MaxBytes {
		return s
	}
	i := MaxBytes
	// At most three continuation bytes back, so that invalid UTF-8 is cut at MaxBytes.
	for j := i; j > MaxBytes-utf8.UTFMax; j-- {
		if utf8.RuneStart(s[j]) {
			i = j
			break
		}
	}
	return s[:i] + "... (" + strconv.Itoa(len(s)) + " bytes)"
}
