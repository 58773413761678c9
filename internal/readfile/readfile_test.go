package readfile

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// TestReadAll checks readAll against io.ReadAll when the size it is given
// is right, too small (the file grew since Stat) or too large, and when a
// reader returns its last bytes with io.EOF; that it reads no more than
// its limit; and that it reads into the buffer it is given when that is
// large enough, whatever the buffer held.
func TestReadAll(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		data  string
		size  int64
		limit int64 // 0: 1 MiB
	}{
		{name: "empty", data: "", size: 0},
		{name: "exact", data: strings.Repeat("x", 700), size: 700},
		{name: "grew", data: strings.Repeat("x", 5000), size: 10},
		{name: "shrank", data: "abc", size: 4096},
		{name: "at the first buffer's end", data: strings.Repeat("x", 512), size: 511},
		{name: "cut at the limit", data: strings.Repeat("x", 5000), size: 10, limit: 1001},
		{name: "cut at the limit, within the first buffer", data: strings.Repeat("x", 700), size: 700, limit: 100},
		{name: "cut at the limit, at the first buffer's end", data: strings.Repeat("x", 700), size: 511, limit: 512},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			limit, want := int64(1<<20), tt.data
			if tt.limit > 0 {
				limit, want = tt.limit, tt.data[:tt.limit]
			}
			for _, buf := range [][]byte{nil, []byte("left over"), bytes.Repeat([]byte("y"), 8192)[:100]} {
				for _, r := range []io.Reader{strings.NewReader(tt.data), iotest.DataErrReader(strings.NewReader(tt.data)), iotest.OneByteReader(strings.NewReader(tt.data))} {
					got, err := readAll(r, buf, tt.size, limit)
					if err != nil || string(got) != want {
						t.Errorf("readAll(%T, %d-byte buffer, %d, %d) = %d bytes, %v; want %d bytes", r, cap(buf), tt.size, limit, len(got), err, len(want))
					}
					if len(got) == 0 {
						continue
					}
					fits := int64(cap(buf)) >= min(tt.size+1, limit) && len(got) <= cap(buf)
					if reused := cap(buf) > 0 && &got[0] == &buf[:1][0]; reused != fits {
						t.Errorf("readAll(%T, %d-byte buffer, %d, %d) read into the buffer: %t, want %t", r, cap(buf), tt.size, limit, reused, fits)
					}
				}
			}
		})
	}
	want := errors.New("broken")
	if _, err := readAll(iotest.ErrReader(want), nil, 10, 100); !errors.Is(err, want) {
		t.Errorf("readAll of a failing reader: %v, want %v", err, want)
	}
}
