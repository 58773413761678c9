package dirfs

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/sys/unix"
)

// TestOpenat2Detected checks that an FS uses openat2 wherever the kernel
// lets this process call it: a probe that failed for a wrong reason would
// make every FS walk, which is slower.
func TestOpenat2Detected(t *testing.T) {
	t.Parallel()
	how := unix.OpenHow{Flags: unix.O_PATH | unix.O_CLOEXEC, Resolve: unix.RESOLVE_BENEATH}
	fd, err := unix.Openat2(unix.AT_FDCWD, ".", &how)
	if err != nil {
		t.Skipf("openat2 is not available here: %v", err)
	}
	unix.Close(fd)
	fsys, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer fsys.Close()
	if fsys.sys.walk {
		t.Error("openat2 works, but the FS walks names")
	}
}

// describe returns what every operation of fsys makes of name, errors
// included, in full: two file systems give the same description when they
// behave the same.
func describe(fsys *FS, name string) []string {
	info := func(fi fs.FileInfo, err error) string {
		if err != nil {
			return "error " + err.Error()
		}
		return fmt.Sprintf("%s %v %d %v", fi.Name(), fi.Mode(), fi.Size(), fi.ModTime().UnixNano())
	}
	var out []string
	out = append(out, "stat: "+info(fsys.Stat(name)), "lstat: "+info(fsys.Lstat(name)))
	target, err := fsys.ReadLink(name)
	out = append(out, fmt.Sprintf("readlink: %q %v", target, err))
	list, err := fsys.ReadDir(name)
	var entries []string
	for _, e := range list {
		entries = append(entries, e.Name()+" "+e.Type().String()+" "+info(e.Info()))
	}
	out = append(out, fmt.Sprintf("readdir: %q %v", entries, err))
	f, err := fsys.Open(name)
	if err != nil {
		return append(out, "open: error "+err.Error())
	}
	defer f.Close()
	data, rerr := io.ReadAll(f)
	out = append(out, fmt.Sprintf("open: %s read %q %v", info(f.Stat()), data, rerr))
	if d, ok := f.(fs.ReadDirFile); ok {
		list, err := d.ReadDir(-1)
		entries = entries[:0]
		for _, e := range list {
			entries = append(entries, e.Name()+" "+e.Type().String())
		}
		out = append(out, fmt.Sprintf("file readdir: %q %v", entries, err))
	}
	return out
}

// sameTreeNames are the names TestWalkSameAsOpenat2 and FuzzWalkSameAsOpenat2
// start from: every name below the hostile tree with the plain tree
// beside it, each also with "/x" after it, and names no tree holds.
func sameTreeNames(t testing.TB, dir string) []string {
	t.Helper()
	var names []string
	err := filepath.WalkDir(dir, func(p string, _ fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		names = append(names, filepath.ToSlash(rel), filepath.ToSlash(rel)+"/x")
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return append(names, "", "/", "..", "a/..", "a//file.txt", "a/./file.txt", "a/file.txt/", "a\x00", `a\file.txt`,
		"a/lparent/a/lparent/a/file.txt", strings.Repeat("a/", 2100)+"file.txt", strings.Repeat("n", 300), "a/"+strings.Repeat("n", 300)+"/x",
		strings.Repeat("missing/", 600)+"x")
}

// sameTree writes the hostile tree with the plain tree beside it.
func sameTree(t testing.TB) string {
	dir := hostileTree(t)
	writeTree(t, filepath.Join(dir, "plain"), plainTree)
	return dir
}

// TestWalkSameAsOpenat2 checks that walking a name element by element, as
// an FS does where openat2 is missing, gives what openat2 gives, errors
// included, for every operation on every name of the hostile tree.
func TestWalkSameAsOpenat2(t *testing.T) {
	t.Parallel()
	dir := sameTree(t)
	vs := variants(t)
	fast, walk := vs[0].openTB(t, dir), vs[1].openTB(t, dir)
	for _, name := range sameTreeNames(t, dir) {
		if diff := cmp.Diff(describe(fast, name), describe(walk, name)); diff != "" {
			t.Errorf("%.80q (-openat2 +walk):\n%s", name, diff)
		}
	}
}

// FuzzWalkSameAsOpenat2 checks, for any name, that no operation panics and
// that walking gives what openat2 gives.
func FuzzWalkSameAsOpenat2(f *testing.F) {
	dir := sameTree(f)
	for _, name := range sameTreeNames(f, dir) {
		if len(name) <= 256 { // a long seed makes each minimization slow
			f.Add(name)
		}
	}
	vs := variants(f)
	fast, walk := vs[0].openTB(f, dir), vs[1].openTB(f, dir)
	f.Fuzz(func(t *testing.T, name string) {
		want, got := describe(fast, name), describe(walk, name)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("%.80q (-openat2 +walk):\n%s", name, diff)
		}
		if !fs.ValidPath(name) && !strings.Contains(want[0], "invalid argument") {
			t.Fatalf("Stat(%q) = %s, want fs.ErrInvalid", name, want[0])
		}
	})
}

// TestSwapRace swaps a tenant's directory with a link to another tenant's
// directory, hundreds of times, while readers open, list and stat names
// below it: no read may ever see the other tenant's files. With os.Root,
// which follows a link that stays inside it, they can (the test logs how
// often they did). Besides ErrLink, a name may be missing while the
// swap runs; and a walk, which classifies an element that O_DIRECTORY
// refused after the fact, may report the link as ENOTDIR when the
// directory is back by then.
func TestSwapRace(t *testing.T) {
	t.Parallel()
	const swaps = 400
	for _, v := range append(variants(t), variant{name: "os.Root (control)"}) {
		t.Run(v.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			writeTree(t, dir, map[string]string{
				"tenants/mine/data.txt":             "mine",
				"tenants/mine/d1/d2/deep.txt":       "mine, deep",
				"tenants/other/data.txt":            "OTHER TENANT'S DATA",
				"tenants/other/d1/d2/deep.txt":      "OTHER TENANT'S DEEP DATA",
				"tenants/other/only-other-has-this": "",
			})
			if err := os.Symlink("other", filepath.Join(dir, "tenants/swap")); err != nil {
				t.Fatal(err)
			}
			var fsys fs.FS
			if v.open != nil {
				fsys = v.openTB(t, dir)
			} else {
				root, err := os.OpenRoot(dir)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { root.Close() })
				fsys = root.FS()
			}
			var (
				done                 atomic.Bool
				reads, leaks, linked atomic.Int64
				wg                   sync.WaitGroup
			)
			leak := func(format string, args ...any) {
				if leaks.Add(1) == 1 && v.open != nil {
					t.Errorf(format, args...)
				}
			}
			for range 2 {
				wg.Go(func() {
					for !done.Load() {
						for name, want := range map[string]string{"tenants/mine/data.txt": "mine", "tenants/mine/d1/d2/deep.txt": "mine, deep"} {
							data, err := fs.ReadFile(fsys, name)
							switch {
							case err == nil && string(data) != want:
								leak("ReadFile(%q) = %q", name, data)
							case errors.Is(err, ErrLink):
								linked.Add(1)
							case err != nil && v.open != nil && !errors.Is(err, fs.ErrNotExist) && !(v.name == "walk" && errors.Is(err, syscall.ENOTDIR)):
								t.Errorf("ReadFile(%q): %v", name, err)
							}
							if info, err := fs.Stat(fsys, name); err == nil && info.Size() != int64(len(want)) {
								leak("Stat(%q) has the size of the other tenant's file", name)
							}
						}
						if list, err := fs.ReadDir(fsys, "tenants/mine"); err == nil && slices.ContainsFunc(list, func(e fs.DirEntry) bool { return e.Name() == "only-other-has-this" }) {
							leak("ReadDir(tenants/mine) lists the other tenant's files")
						}
						reads.Add(1)
					}
				})
			}
			mine, swap := filepath.Join(dir, "tenants/mine"), filepath.Join(dir, "tenants/swap")
			deadline := time.Now().Add(20 * time.Second)
			for i := 0; i < swaps && time.Now().Before(deadline); i++ {
				// Atomically: "mine" is now the link to "other", and "swap"
				// the directory; the next exchange puts them back.
				if err := unix.Renameat2(unix.AT_FDCWD, mine, unix.AT_FDCWD, swap, unix.RENAME_EXCHANGE); err != nil {
					done.Store(true)
					wg.Wait()
					t.Skipf("renameat2 RENAME_EXCHANGE: %v", err)
				}
				time.Sleep(50 * time.Microsecond)
			}
			done.Store(true)
			wg.Wait()
			t.Logf("%d rounds of reads, %d refused as links, %d reads of the other tenant's files", reads.Load(), linked.Load(), leaks.Load())
			if reads.Load() == 0 {
				t.Error("no reads")
			}
		})
	}
}

// TestReadDirAsOS checks that ReadDir, which parses getdents64's records
// itself, lists what os.ReadDir lists, names and types, for a directory
// whose records take several calls (longer names than one buffer holds)
// and entries of each type a test can make.
func TestReadDirAsOS(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for i := range 300 {
		name := fmt.Sprintf("file-%03d-%s", i, strings.Repeat("x", i%60))
		if err := os.WriteFile(filepath.Join(dir, name), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, mk := range []func() error{
		func() error { return os.Mkdir(filepath.Join(dir, "sub"), 0o755) },
		func() error { return os.Symlink("sub", filepath.Join(dir, "link")) },
		func() error { return unix.Mkfifo(filepath.Join(dir, "fifo"), 0o644) },
		func() error { return os.WriteFile(filepath.Join(dir, "ünïcode name"), nil, 0o644) },
	} {
		if err := mk(); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range variants(t) {
		t.Run(v.name, func(t *testing.T) {
			t.Parallel()
			got, err := v.openTB(t, dir).ReadDir(".")
			if err != nil {
				t.Fatal(err)
			}
			entry := func(e fs.DirEntry) string { return e.Name() + " " + e.Type().String() }
			if diff := cmp.Diff(slicesMap(want, entry), slicesMap(got, entry)); diff != "" {
				t.Errorf("ReadDir(.) differs from os.ReadDir (-os +dirfs):\n%s", diff)
			}
		})
	}
}

func slicesMap[T, U any](s []T, f func(T) U) []U {
	out := make([]U, len(s))
	for i, v := range s {
		out[i] = f(v)
	}
	return out
}

// TestParseDirent checks the records that getdents64 does not return for
// a directory read here but that parseDirent must still survive: a record
// shorter than its header or longer than the buffer, and an entry of
// inode 0.
func TestParseDirent(t *testing.T) {
	t.Parallel()
	record := func(ino uint64, typ byte, name string) []byte {
		r := make([]byte, 19, 19+len(name)+8)
		binary.NativeEndian.PutUint64(r[0:8], ino)
		r = append(append(r, name...), 0)
		for len(r)%8 != 0 {
			r = append(r, 0)
		}
		binary.NativeEndian.PutUint16(r[16:18], uint16(len(r)))
		r[18] = typ
		return r
	}
	good := record(7, unix.DT_REG, "a.yaml")
	for _, tc := range []struct {
		name     string
		buf      []byte
		wantName string
		wantNil  bool
		wantOK   bool
		wantRest int
	}{
		{name: "file", buf: append(slices.Clone(good), good...), wantName: "a.yaml", wantOK: true, wantRest: len(good)},
		{name: "dot", buf: record(7, unix.DT_DIR, "."), wantNil: true, wantOK: true},
		{name: "dot dot", buf: record(7, unix.DT_DIR, ".."), wantNil: true, wantOK: true},
		{name: "inode 0", buf: record(0, unix.DT_REG, "gone"), wantNil: true, wantOK: true},
		{name: "short header", buf: good[:10]},
		{name: "record past the buffer", buf: good[:len(good)-1]},
		{name: "record length below the header", buf: func() []byte {
			r := slices.Clone(good)
			binary.NativeEndian.PutUint16(r[16:18], 4)
			return r
		}()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			name, typ, rest, ok := parseDirent(tc.buf)
			if ok != tc.wantOK {
				t.Fatalf("ok = %v, want %v", ok, tc.wantOK)
			}
			if !ok {
				return
			}
			if (name == nil) != tc.wantNil || (!tc.wantNil && string(name) != tc.wantName) {
				t.Errorf("name = %q, want %q (nil: %v)", name, tc.wantName, tc.wantNil)
			}
			if len(rest) != tc.wantRest {
				t.Errorf("rest has %d bytes, want %d", len(rest), tc.wantRest)
			}
			if !tc.wantNil && typ != unix.DT_REG {
				t.Errorf("type = %d, want DT_REG", typ)
			}
		})
	}
}
