package nsmeta

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strings"

	"github.com/opencontainers/go-digest"
)

// Digest returns the digest of m as source-watcher v2.3 computes a managed
// namespace's inventory digest, so that an inventory it wrote reads back
// as unchanged: one entry "label:KEY=VALUE" for every label and
// "annotation:KEY=VALUE" for every annotation, sorted in byte order, joined
// with "|", hashed with SHA-256 and written "sha256:" followed by 64
// lower-case hex digits. Keys and values are written as their bytes, with
// no escaping, so that
//
//	nsmeta.Digest(nsmeta.Metadata{Labels: map[string]string{"team": "payments"}})
//
// is the SHA-256 of the 20 bytes "label:team=payments". The empty Metadata
// hashes no byte at all:
//
//	nsmeta.Digest(nsmeta.Metadata{}) // sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855
//
// Nil and empty maps give the same digest, and so does any map order.
// Because nothing is escaped, two different Metadata can share a digest:
// the label a="b|label:c=d" and the two labels a="b", c="d" both hash
// "label:a=b|label:c=d". A digest therefore tells that the desired metadata
// changed, never that it did not; package generator compares the live
// metadata with the desired one as well, so that no change is missed. It
// never fails and never panics.
func Digest(m Metadata) digest.Digest {
	parts := make([]string, 0, len(m.Labels)+len(m.Annotations))
	for k, v := range m.Labels {
		parts = append(parts, "label:"+k+"="+v)
	}
	for k, v := range m.Annotations {
		parts = append(parts, "annotation:"+k+"="+v)
	}
	// Byte order, as sort.Strings sorts: map order does not leak.
	slices.Sort(parts)
	sum := sha256.Sum256([]byte(strings.Join(parts, "|")))
	return digest.Digest(string(digest.SHA256) + ":" + hex.EncodeToString(sum[:]))
}
