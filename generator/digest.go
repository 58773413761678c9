package generator

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"hash"
	"maps"
	"slices"
	"strconv"

	"github.com/opencontainers/go-digest"
)

// digester computes an artifact's digest (see [Artifact]) of its files,
// added in destination order, then its inputs.
type digester struct {
	h   hash.Hash
	buf []byte
}

func newDigester() *digester { return &digester{h: sha256.New()} }

// file adds one file: path NUL length NUL content.
func (d *digester) file(path string, content []byte) {
	d.buf = append(d.buf[:0], path...)
	d.buf = append(d.buf, 0)
	d.buf = strconv.AppendInt(d.buf, int64(len(content)), 10)
	d.buf = append(d.buf, 0)
	d.h.Write(d.buf)
	d.h.Write(content)
}

// inputs adds the inputs, when there are any, by key, after the files.
func (d *digester) inputs(in map[string]json.RawMessage) {
	if len(in) == 0 {
		return
	}
	d.h.Write([]byte("\x00inputs\x00"))
	keys := slices.AppendSeq(make([]string, 0, len(in)), maps.Keys(in))
	slices.Sort(keys)
	var compact bytes.Buffer
	for _, k := range keys {
		compact.Reset()
		compact.Grow(len(in[k]))
		if err := json.Compact(&compact, in[k]); err != nil {
			compact.Reset()
			compact.Write(in[k]) // not JSON: hashed as given, so that it still counts
		}
		d.buf = strconv.AppendInt(d.buf[:0], int64(len(k)), 10)
		d.buf = append(d.buf, 0)
		d.buf = append(d.buf, k...)
		d.buf = append(d.buf, 0)
		d.buf = strconv.AppendInt(d.buf, int64(compact.Len()), 10)
		d.buf = append(d.buf, 0)
		d.h.Write(d.buf)
		d.h.Write(compact.Bytes())
	}
}

func (d *digester) sum() digest.Digest { return digest.NewDigest(digest.SHA256, d.h) }
