package nsmeta

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strings"

	"github.com/opencontainers/go-digest"
)

// Digest returns the digest of m as source-watcher v2.3 computes a managed namespace's inventory
// digest, so that an inventory it wrote reads back as unchanged: the SHA-256 of the sorted entries
// "label:KEY=VALUE" and "annotation:KEY=VALUE" joined with "|" (see the package documentation).
//
//	nsmeta.Digest(nsmeta.Metadata{}) // sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855
//
// Nil and empty maps give the same digest, and so does any map order. Nothing is escaped, so two
// Metadata can share a digest (the label a="b|label:c=d" and the labels a="b", c="d"): a digest
// tells that the desired metadata changed, never that it did not (package generator compares the
// live metadata too). It never fails and never panics.
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
