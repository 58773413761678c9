package readfile

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"
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

// TestReadChecked checks that ReadChecked gives, content or error to the
// letter, what CheckPath then Read give, whether the file system says that
// its Open refuses links (it then reads first, and calls Lstat only when
// the read fails) or not (it checks each element first).
func TestReadChecked(t *testing.T) {
	t.Parallel()
	tree := fstest.MapFS{
		"t/meta.yaml": {Data: []byte("kind: NamespaceMetadata\n")},
		"t/big":       {Data: bytes.Repeat([]byte("x"), 100)},
		"t/link.yaml": {Data: []byte("meta.yaml"), Mode: fs.ModeSymlink},
		"t/dir":       {Mode: fs.ModeDir},
		"t/pipe":      {Mode: fs.ModeNamedPipe},
		"linkdir":     {Data: []byte("t"), Mode: fs.ModeSymlink},
	}
	tests := []struct {
		name string
		want string // the content read, quoted, or "error " and the error
	}{
		{name: "t/meta.yaml", want: `"kind: NamespaceMetadata\n"`},
		{name: "t/big", want: "error read t/big: pathpattern: must be no more than 50 bytes"},
		{name: "t/link.yaml", want: "error read t/link.yaml: pathpattern: must not be a symbolic link"},
		{name: "linkdir/meta.yaml", want: "error read linkdir: pathpattern: must not be a symbolic link"},
		{name: "t/dir", want: "error read t/dir: pathpattern: must be a regular file"},
		{name: "t/pipe", want: "error read t/pipe: pathpattern: must be a regular file"},
		{name: "t/meta.yaml/x", want: "error read t/meta.yaml: pathpattern: must be a directory"},
		{name: "t/missing", want: "error lstat t/missing: file does not exist"},
		{name: "missing/x", want: "error lstat missing: file does not exist"},
	}
	outcome := func(data []byte, err error) string {
		if err != nil {
			return "error " + err.Error()
		}
		return fmt.Sprintf("%q", data)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			const limit = 50
			separate := func() ([]byte, error) {
				if err := CheckPath(tree, tt.name, limit); err != nil {
					return nil, err
				}
				return Read(tree, tt.name, limit, nil)
			}
			if got := outcome(separate()); got != tt.want {
				t.Fatalf("CheckPath then Read of %q = %s, want %s", tt.name, got, tt.want)
			}
			for _, refuses := range []bool{true, false} {
				fsys := &refusing{RefusesLinks: RefusesLinks(refuses), tree: tree}
				if got := OpenRefusesLinks(fsys); got != refuses {
					t.Errorf("OpenRefusesLinks = %t, want %t", got, refuses)
				}
				if got := outcome(ReadChecked(fsys, tt.name, limit, nil)); got != tt.want {
					t.Errorf("ReadChecked(%q), Open refusing links %t, = %s, want %s", tt.name, refuses, got, tt.want)
				}
				read := !strings.HasPrefix(tt.want, "error")
				if n := fsys.lstats; (n == 0) != (refuses && read) {
					t.Errorf("ReadChecked(%q), Open refusing links %t, made %d Lstat calls; want none exactly when Open refuses links and the file is read", tt.name, refuses, n)
				}
			}
		})
	}
	if OpenRefusesLinks(tree) {
		t.Error("OpenRefusesLinks(fstest.MapFS) = true, want false")
	}
}

// refusing is a tree seen through a file system whose Open refuses a name
// with a symbolic link in any element, with an error of its own, as
// package dirfs's does; it says so when its RefusesLinks is true. It
// counts the Lstat calls made of it.
type refusing struct {
	RefusesLinks
	tree   fstest.MapFS
	lstats int
}

func (r *refusing) Open(name string) (fs.File, error) {
	for i := range len(name) + 1 {
		if i < len(name) && name[i] != '/' {
			continue
		}
		if info, err := r.tree.Lstat(name[:i]); err == nil && info.Mode()&fs.ModeSymlink != 0 {
			return nil, &fs.PathError{Op: "open", Path: name, Err: errors.New("a link")}
		}
	}
	return r.tree.Open(name)
}

func (r *refusing) ReadLink(name string) (string, error) { return r.tree.ReadLink(name) }

func (r *refusing) Lstat(name string) (fs.FileInfo, error) {
	r.lstats++
	return r.tree.Lstat(name)
}
