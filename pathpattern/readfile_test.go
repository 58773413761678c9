package pathpattern

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
)

func TestReadFile(t *testing.T) {
	t.Parallel()
	fsys := fstest.MapFS{
		"t/meta.yaml":  file("kind: NamespaceMetadata"),
		"t/empty":      file(""),
		"t/big":        file(strings.Repeat("x", 100)),
		"t/huge":       file(strings.Repeat("x", defaultMaxFileSize+1)),
		"t/link.yaml":  symlink("meta.yaml"),
		"t/dir":        dir(),
		"t/pipe":       &fstest.MapFile{Mode: fs.ModeNamedPipe},
		"linkdir":      symlink("t"),
		"t/exact-size": file(strings.Repeat("x", 10)),
	}
	tests := []struct {
		name string
		file string
		max  int64
		want string
		err  error
		path string // the path the *fs.PathError names
	}{
		{name: "regular", file: "t/meta.yaml", want: "kind: NamespaceMetadata"},
		{name: "empty", file: "t/empty", want: ""},
		{name: "exactly the limit", file: "t/exact-size", max: 10, want: strings.Repeat("x", 10)},
		{name: "default limit", file: "t/big", max: 0, want: strings.Repeat("x", 100)},
		{name: "over the limit", file: "t/big", max: 99, err: ErrTooLarge, path: "t/big"},
		{name: "over the default limit", file: "t/huge", max: -1, err: ErrTooLarge, path: "t/huge"},
		{name: "symlink", file: "t/link.yaml", err: ErrNotRegular, path: "t/link.yaml"},
		{name: "symlink in the path", file: "linkdir/meta.yaml", err: ErrNotRegular, path: "linkdir"},
		{name: "directory", file: "t/dir", err: ErrNotRegular, path: "t/dir"},
		{name: "named pipe", file: "t/pipe", err: ErrNotRegular, path: "t/pipe"},
		{name: "file as a directory", file: "t/meta.yaml/x", err: fs.ErrNotExist, path: "t/meta.yaml"},
		{name: "missing", file: "t/missing", err: fs.ErrNotExist, path: "t/missing"},
		{name: "dot dot", file: "t/../t/meta.yaml", err: fs.ErrInvalid, path: "t/../t/meta.yaml"},
		{name: "absolute", file: "/t/meta.yaml", err: fs.ErrInvalid, path: "/t/meta.yaml"},
		{name: "root", file: ".", err: fs.ErrInvalid, path: "."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := ReadFile(fsys, tt.file, tt.max)
			if tt.err == nil {
				if err != nil || string(got) != tt.want {
					t.Fatalf("ReadFile(%q) = %q, %v, want %q", tt.file, got, err, tt.want)
				}
				return
			}
			var pe *fs.PathError
			if !errors.Is(err, tt.err) || !errors.As(err, &pe) || got != nil {
				t.Fatalf("ReadFile(%q) = %q, %v, want an *fs.PathError wrapping %v", tt.file, got, err, tt.err)
			}
			if pe.Path != tt.path {
				t.Errorf("error path = %q, want %q", pe.Path, tt.path)
			}
		})
	}
}

func TestReadFileOnDisk(t *testing.T) {
	t.Parallel()
	outside := t.TempDir()
	writeFiles(t, outside, "secret", "dir/secret")
	root := t.TempDir()
	writeFiles(t, root, "t/meta.yaml")
	for link, target := range map[string]string{
		"t/link":    filepath.Join(outside, "secret"),
		"t/linkdir": filepath.Join(outside, "dir"),
		"t/rel":     "../../" + filepath.Base(outside) + "/secret",
	} {
		if err := os.Symlink(target, filepath.Join(root, link)); err != nil {
			t.Fatal(err)
		}
	}
	fsys := os.DirFS(root)
	if got, err := ReadFile(fsys, "t/meta.yaml", 0); err != nil || string(got) != "t/meta.yaml" {
		t.Errorf("ReadFile(t/meta.yaml) = %q, %v", got, err)
	}
	for _, name := range []string{"t/link", "t/linkdir/secret", "t/rel"} {
		got, err := ReadFile(fsys, name, 0)
		if !errors.Is(err, ErrNotRegular) || got != nil {
			t.Errorf("ReadFile(%q) = %q, %v, want ErrNotRegular and nothing read", name, got, err)
		}
	}
	if os.Geteuid() != 0 {
		locked := filepath.Join(root, "t/locked")
		writeFiles(t, root, "t/locked")
		if err := os.Chmod(locked, 0); err != nil {
			t.Fatal(err)
		}
		if _, err := ReadFile(fsys, "t/locked", 0); !errors.Is(err, fs.ErrPermission) {
			t.Errorf("ReadFile(t/locked) error = %v, want fs.ErrPermission", err)
		}
	}
}
