package nsmeta

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/opencontainers/go-digest"
)

// Digest returns the sha256 digest of m's canonical JSON form,
//
//	{"annotations":{...},"labels":{...}}
//
// in the JSON Canonicalization Scheme (RFC 8785), as the Digest section of
// the package documentation spells out byte by byte. Nil and empty maps give the same digest, and so does any map order:
//
//	nsmeta.Digest(nsmeta.Metadata{}) // sha256:880c4a6272dc957686298143a2d40b1cdf759f0a20b039bc6408a9661c88e843
//
// It never fails and never panics: invalid UTF-8 is written as U+FFFD, as
// encoding/json writes it, and as the API server would store it.
func Digest(m Metadata) digest.Digest {
	bp := bufPool.Get().(*[]byte)
	b := appendCanonical((*bp)[:0], m)
	sum := sha256.Sum256(b)
	if cap(b) <= maxPooledBuffer {
		*bp = b[:0]
		bufPool.Put(bp)
	}

	const prefix = string(digest.SHA256) + ":"
	var d [len(prefix) + 2*sha256.Size]byte
	copy(d[:], prefix)
	hex.Encode(d[len(prefix):], sum[:])
	return digest.Digest(d[:])
}

// bufPool recycles the buffers that hold canonical forms, since Digest runs
// for every namespace on every reconcile. A buffer that grew past
// maxPooledBuffer (large annotations) is dropped rather than kept alive.
var bufPool = sync.Pool{New: func() any { b := make([]byte, 0, 1024); return &b }}

const maxPooledBuffer = 64 << 10

// appendCanonical appends the canonical JSON form of m to b.
func appendCanonical(b []byte, m Metadata) []byte {
	b = append(b, `{"annotations":`...)
	b = appendObject(b, m.Annotations)
	b = append(b, `,"labels":`...)
	b = appendObject(b, m.Labels)
	return append(b, '}')
}

// appendObject appends m as a JSON object with its members sorted by key,
// comparing keys as UTF-16 code units (RFC 8785, section 3.2.3).
func appendObject(b []byte, m map[string]string) []byte {
	var stack [32]member // no allocation for the usual handful of keys
	members := stack[:0]
	ascii := true
	for k, v := range m {
		members = append(members, member{k, v})
		ascii = ascii && isASCII(k)
	}
	sortMembers(members, ascii)
	b = append(b, '{')
	for i, mb := range members {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, mb.k)
		b = append(b, ':')
		b = appendString(b, mb.v)
	}
	return append(b, '}')
}

// member is a key and its value.
type member struct{ k, v string }

// sortMembers sorts ms by key in UTF-16 order. For ASCII keys, byte order is
// UTF-16 order. The handful of keys of most objects are sorted by insertion,
// comparing with the string operator: it is faster than a sort that calls a
// comparison function, and moves no more members.
func sortMembers(ms []member, ascii bool) {
	switch {
	case !ascii:
		slices.SortFunc(ms, func(a, b member) int { return compareUTF16(a.k, b.k) })
	case len(ms) > 16:
		slices.SortFunc(ms, func(a, b member) int { return strings.Compare(a.k, b.k) })
	default:
		for i := 1; i < len(ms); i++ {
			for j := i; j > 0 && ms[j].k < ms[j-1].k; j-- {
				ms[j], ms[j-1] = ms[j-1], ms[j]
			}
		}
	}
}

// isASCII reports whether s is all ASCII.
func isASCII(s string) bool {
	i := 0
	for ; i+8 <= len(s); i += 8 {
		if load64(s, i)&highBits != 0 {
			return false
		}
	}
	for ; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// Strings are scanned eight bytes at a time, as a little-endian uint64 word:
// lowBits has the lowest bit of each byte set, highBits the highest.
const (
	lowBits  = 0x0101010101010101
	highBits = 0x8080808080808080
)

// load64 returns the eight bytes of s at i as a word; the compiler turns it
// into one load.
func load64(s string, i int) uint64 {
	s = s[i : i+8]
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// plainWord reports whether every byte of w is ASCII that JSON writes as is:
// none is below 0x20, '"', '\\' or above 0x7F. (x - lowBits*n) &^ x has the
// high bit of a byte set when a byte of x is below n (n <= 0x80); it may set
// it in a higher byte too, but only above one that is truly below n, which is
// all a yes-or-no answer needs. A byte equal to c is a zero byte of x ^ c.
func plainWord(w uint64) bool {
	quote, backslash := w^(lowBits*'"'), w^(lowBits*'\\')
	control := (w - lowBits*0x20) &^ w
	quote = (quote - lowBits) &^ quote
	backslash = (backslash - lowBits) &^ backslash
	return (w|control|quote|backslash)&highBits == 0
}

// appendString appends s as a JSON string the way RFC 8785 (ECMAScript's
// JSON.stringify) writes it: only '"', '\\' and the control characters
// U+0000 to U+001F are escaped, as \b \t \n \f \r where they have a short
// form and as \u00xx (lower-case hex) otherwise; everything else, U+007F,
// U+2028, U+2029, '<', '>' and '&' included, is written as is, in UTF-8.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0 // s[start:i] is yet to be appended, and needs no escaping
	for i := 0; i < len(s); {
		if i+8 <= len(s) && plainWord(load64(s, i)) {
			i += 8
			continue
		}
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			i++
			continue
		}
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(s[i:])
			if r != utf8.RuneError || size != 1 {
				i += size
				continue
			}
		}
		b = append(b, s[start:i]...)
		switch {
		case c >= utf8.RuneSelf: // an invalid byte
			b = utf8.AppendRune(b, utf8.RuneError)
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
		case c == '\b':
			b = append(b, '\\', 'b')
		case c == '\t':
			b = append(b, '\\', 't')
		case c == '\n':
			b = append(b, '\\', 'n')
		case c == '\f':
			b = append(b, '\\', 'f')
		case c == '\r':
			b = append(b, '\\', 'r')
		default:
			b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
		}
		i++
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

const hexDigits = "0123456789abcdef"

// compareUTF16 orders strings by their UTF-16 code units, as RFC 8785 sorts
// member names. It differs from byte (and code point) order only between a
// character above U+FFFF, whose UTF-16 form starts with a surrogate in
// U+D800..U+DBFF, and one in U+E000..U+FFFF: "\U0001F600" sorts before
// "\uFB33" here, after it in byte order. Invalid UTF-8 compares as U+FFFD, as
// it is written; strings that are then equal are ordered by their bytes, so
// that the order is total.
func compareUTF16(a, b string) int {
	// Skip the common prefix, then step back to the start of the character
	// that holds the first difference: a byte that starts a character is a
	// character boundary however the bytes before it decode.
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	for i > 0 && i < len(a) && !utf8.RuneStart(a[i]) {
		i--
	}
	for i > 0 && i < len(b) && !utf8.RuneStart(b[i]) {
		i--
	}
	ra, rb := a[i:], b[i:]
	for len(ra) > 0 && len(rb) > 0 {
		ca, na := utf8.DecodeRuneInString(ra)
		cb, nb := utf8.DecodeRuneInString(rb)
		if ca != cb {
			return cmp.Or(cmp.Compare(firstUTF16(ca), firstUTF16(cb)), cmp.Compare(ca, cb))
		}
		ra, rb = ra[na:], rb[nb:]
	}
	switch {
	case len(ra) > 0:
		return 1
	case len(rb) > 0:
		return -1
	}
	return strings.Compare(a, b)
}

// firstUTF16 returns the first UTF-16 code unit of r: r itself in the Basic
// Multilingual Plane, its high surrogate above it. Two characters with the
// same high surrogate compare as their code points, as their low surrogates do.
func firstUTF16(r rune) rune {
	if r < 0x10000 {
		return r
	}
	return 0xD800 + (r-0x10000)>>10
}
