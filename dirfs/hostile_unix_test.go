//go:build unix

package dirfs

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/tenantkit/tenantkit/internal/readfile"
	"github.com/tenantkit/tenantkit/pathpattern"
)

// hostileTree writes, below a new temporary directory, a tree holding what
// a tenant can commit (links to files and directories, inside the tree and
// out of it, absolute, dangling, looping; a name with a backslash) or a
// checkout can hold (a FIFO), and returns the directory.
//
//	a/file.txt, a/sub/deep.txt, b/secret.txt, a/back\slash.txt
//	a/lfile -> file.txt        a/ldir -> sub        a/lb -> ../b
//	a/lparent -> ..            a/loop -> loop       a/dangling -> nowhere
//	a/lout -> /abs/outside     a/lrelout -> ../../outside (relative)
//	a/labs -> /etc             lmid -> a            a/fifo (a named pipe)
func hostileTree(t testing.TB) string {
	t.Helper()
	dir, outside := t.TempDir(), t.TempDir()
	writeTree(t, dir, map[string]string{
		"a/file.txt":       "A",
		"a/sub/deep.txt":   "deep",
		"b/secret.txt":     "secret",
		`a/back\slash.txt`: "bs",
	})
	writeTree(t, outside, map[string]string{"secret.txt": "outside"})
	relOut, err := filepath.Rel(filepath.Join(dir, "a"), outside)
	if err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{
		"a/lfile":    "file.txt",
		"a/ldir":     "sub",
		"a/lb":       "../b",
		"a/lparent":  "..",
		"a/loop":     "loop",
		"a/dangling": "nowhere",
		"a/lout":     outside,
		"a/lrelout":  relOut,
		"a/labs":     "/etc",
		"lmid":       "a",
	} {
		if err := os.Symlink(target, filepath.Join(dir, filepath.FromSlash(link))); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "a", "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// outcome is what one operation gave: a description of its result, or
// its error.
type outcome struct {
	ok  string
	err error
}

func ok(s string) outcome    { return outcome{ok: s} }
func fail(err error) outcome { return outcome{err: err} }
func (o outcome) String() string {
	if o.err != nil {
		return "error " + o.err.Error()
	}
	return fmt.Sprintf("%q", o.ok)
}

var (
	isLink     = fail(ErrLink)
	isNotExist = fail(fs.ErrNotExist)
	isNotDir   = fail(syscall.ENOTDIR)
	isNotLink  = fail(syscall.EINVAL)
)

// The five operations of an FS, each giving an outcome: the content read
// (or "dir" for a directory), the sorted entries (a directory's name with
// "/", a link's with "@", a FIFO's with "|"), the type from Stat and
// Lstat ("-", "d", "L", "p"), the link's target.
func opOpen(fsys *FS, name string) outcome {
	f, err := fsys.Open(name)
	if err != nil {
		return fail(err)
	}
	defer f.Close()
	if info, err := f.Stat(); err != nil {
		return fail(err)
	} else if info.IsDir() {
		return ok("dir")
	}
	data, err := io.ReadAll(f)
	if err != nil {
		return fail(err)
	}
	return ok(string(data))
}

func opReadDir(fsys *FS, name string) outcome {
	list, err := fsys.ReadDir(name)
	if err != nil {
		return fail(err)
	}
	var names []string
	for _, e := range list {
		suffix := map[fs.FileMode]string{fs.ModeDir: "/", fs.ModeSymlink: "@", fs.ModeNamedPipe: "|"}[e.Type()]
		names = append(names, e.Name()+suffix)
	}
	return ok(strings.Join(names, " "))
}

func typeOf(info fs.FileInfo, err error) outcome {
	if err != nil {
		return fail(err)
	}
	return ok(info.Mode().String()[:1])
}

func opStat(fsys *FS, name string) outcome  { return typeOf(fsys.Stat(name)) }
func opLstat(fsys *FS, name string) outcome { return typeOf(fsys.Lstat(name)) }

func opReadLink(fsys *FS, name string) outcome {
	target, err := fsys.ReadLink(name)
	if err != nil {
		return fail(err)
	}
	return ok(target)
}

// TestHostileTree checks every operation on every kind of name in
// hostileTree: a name that crosses a link anywhere fails with ErrLink,
// whichever way the link points; Lstat and ReadLink see a link as the last
// element; nothing waits on the FIFO.
func TestHostileTree(t *testing.T) {
	t.Parallel()
	dir := hostileTree(t)
	allLink := [5]outcome{isLink, isLink, isLink, isLink, isLink}
	// On Linux a FIFO opens without waiting; elsewhere it is refused.
	fifoOpen := ok("")
	if runtime.GOOS != "linux" {
		fifoOpen = fail(errIrregularForTest)
	}
	tests := []struct {
		name string
		want [5]outcome // Open, ReadDir, Stat, Lstat, ReadLink
	}{
		{name: ".", want: [5]outcome{ok("dir"), ok("a/ b/ lmid@"), ok("d"), ok("d"), isNotLink}},
		{name: "a", want: [5]outcome{ok("dir"), ok(`back\slash.txt dangling@ fifo| file.txt labs@ lb@ ldir@ lfile@ loop@ lout@ lparent@ lrelout@ sub/`), ok("d"), ok("d"), isNotLink}},
		{name: "a/file.txt", want: [5]outcome{ok("A"), isNotDir, ok("-"), ok("-"), isNotLink}},
		{name: "a/sub/deep.txt", want: [5]outcome{ok("deep"), isNotDir, ok("-"), ok("-"), isNotLink}},
		{name: `a/back\slash.txt`, want: [5]outcome{ok("bs"), isNotDir, ok("-"), ok("-"), isNotLink}},
		{name: `a\file.txt`, want: [5]outcome{isNotExist, isNotExist, isNotExist, isNotExist, isNotExist}},
		{name: "a/fifo", want: [5]outcome{fifoOpen, isNotDir, ok("p"), ok("p"), isNotLink}},
		// A link as the last element.
		{name: "a/lfile", want: [5]outcome{isLink, isLink, isLink, ok("L"), ok("file.txt")}},
		{name: "a/ldir", want: [5]outcome{isLink, isLink, isLink, ok("L"), ok("sub")}},
		{name: "a/lb", want: [5]outcome{isLink, isLink, isLink, ok("L"), ok("../b")}},
		{name: "a/lparent", want: [5]outcome{isLink, isLink, isLink, ok("L"), ok("..")}},
		{name: "a/labs", want: [5]outcome{isLink, isLink, isLink, ok("L"), ok("/etc")}},
		{name: "a/loop", want: [5]outcome{isLink, isLink, isLink, ok("L"), ok("loop")}},
		{name: "a/dangling", want: [5]outcome{isLink, isLink, isLink, ok("L"), ok("nowhere")}},
		{name: "lmid", want: [5]outcome{isLink, isLink, isLink, ok("L"), ok("a")}},
		// A link in the middle: to a directory beside it, to another
		// directory of the tree, up, out by an absolute or a relative
		// target, at the top.
		{name: "a/ldir/deep.txt", want: allLink},
		{name: "a/lb/secret.txt", want: allLink},
		{name: "a/lparent/b/secret.txt", want: allLink},
		{name: "a/lout/secret.txt", want: allLink},
		{name: "a/lrelout/secret.txt", want: allLink},
		{name: "a/labs/passwd", want: allLink},
		{name: "a/loop/x", want: allLink},
		{name: "a/dangling/x", want: allLink},
		{name: "lmid/file.txt", want: allLink},
		{name: "lmid/lfile", want: allLink},
		// Missing names, and a file where a directory must be.
		{name: "a/missing", want: [5]outcome{isNotExist, isNotExist, isNotExist, isNotExist, isNotExist}},
		{name: "a/missing/x", want: [5]outcome{isNotExist, isNotExist, isNotExist, isNotExist, isNotExist}},
		{name: "a/file.txt/x", want: [5]outcome{isNotDir, isNotDir, isNotDir, isNotDir, isNotDir}},
		{name: "a/fifo/x", want: [5]outcome{isNotDir, isNotDir, isNotDir, isNotDir, isNotDir}},
	}
	ops := [5]func(*FS, string) outcome{opOpen, opReadDir, opStat, opLstat, opReadLink}
	opNames := [5]string{"Open", "ReadDir", "Stat", "Lstat", "ReadLink"}
	for _, v := range variants(t) {
		fsys := v.openTB(t, dir)
		for _, tt := range tests {
			t.Run(v.name+"/"+tt.name, func(t *testing.T) {
				t.Parallel()
				for i, op := range ops {
					got := withDeadline(t, func() outcome { return op(fsys, tt.name) })
					want := tt.want[i]
					if want.err == nil {
						if got != want {
							t.Errorf("%s(%q) = %v, want %v", opNames[i], tt.name, got, want)
						}
						continue
					}
					var pe *fs.PathError
					if !errors.Is(got.err, want.err) || !errors.As(got.err, &pe) || pe.Path != tt.name {
						t.Errorf("%s(%q) = %v, want an *fs.PathError for %q wrapping %v", opNames[i], tt.name, got, tt.name, want.err)
					}
				}
			})
		}
	}
}

// withDeadline runs f, failing t if it has not returned in 10 seconds: an
// open that waits on a FIFO.
func withDeadline(t *testing.T, f func() outcome) outcome {
	t.Helper()
	done := make(chan outcome, 1)
	go func() { done <- f() }()
	select {
	case o := <-done:
		return o
	case <-time.After(10 * time.Second):
		t.Fatal("blocked for 10 seconds")
		return outcome{}
	}
}

// TestEntryInfo checks that the Info of every entry of a directory read
// describes the entry itself, a link as a link, with the entry's name and
// type, and not what a path from the working directory names.
func TestEntryInfo(t *testing.T) {
	t.Parallel()
	dir := hostileTree(t)
	for _, v := range variants(t) {
		t.Run(v.name, func(t *testing.T) {
			t.Parallel()
			fsys := v.openTB(t, dir)
			for _, name := range []string{".", "a"} {
				list, err := fsys.ReadDir(name)
				if err != nil {
					t.Fatal(err)
				}
				f, err := fsys.Open(name)
				if err != nil {
					t.Fatal(err)
				}
				fromFile, err := f.(fs.ReadDirFile).ReadDir(-1)
				f.Close()
				if err != nil {
					t.Fatal(err)
				}
				if fmt.Sprint(list) != fmt.Sprint(fromFile) {
					t.Errorf("ReadDir(%q) = %v, the file's ReadDir(-1) %v", name, list, fromFile)
				}
				for _, e := range list {
					info, err := e.Info()
					if err != nil {
						t.Errorf("Info of %s/%s: %v", name, e.Name(), err)
						continue
					}
					if info.Name() != e.Name() || info.Mode().Type() != e.Type() {
						t.Errorf("Info of %s/%s = %s %v, want the entry's name and type %v", name, e.Name(), info.Name(), info.Mode(), e.Type())
					}
				}
			}
		})
	}
}

// TestReadFileWithoutLstat checks pathpattern.ReadFile through an FS, whose
// Open refuses a link in any element itself, so that ReadFile reads a file
// without the Lstat of each element of its name first and checks them only
// when the read fails (see readfile.ReadChecked): for every kind of name
// in hostileTree, it gives the content or the error, to the letter, that it
// gives when it checks each element first, and it makes no Lstat call
// exactly when it reads the file.
func TestReadFileWithoutLstat(t *testing.T) {
	t.Parallel()
	dir := hostileTree(t)
	const limit = 3
	tooLarge := "pathpattern: must be no more than 3 bytes"
	link, regular := "pathpattern: must not be a symbolic link", "pathpattern: must be a regular file"
	tests := []struct {
		name string
		want string // the content read, quoted, or "error " and the error
	}{
		{name: "a/file.txt", want: `"A"`},
		{name: `a/back\slash.txt`, want: `"bs"`},
		{name: "a/sub/deep.txt", want: "error read a/sub/deep.txt: " + tooLarge},
		{name: "b/secret.txt", want: "error read b/secret.txt: " + tooLarge},
		{name: "a", want: "error read a: " + regular},
		{name: "a/sub", want: "error read a/sub: " + regular},
		{name: "a/fifo", want: "error read a/fifo: " + regular},
		{name: "a/lfile", want: "error read a/lfile: " + link},
		{name: "a/ldir", want: "error read a/ldir: " + link},
		{name: "a/dangling", want: "error read a/dangling: " + link},
		{name: "a/loop", want: "error read a/loop: " + link},
		{name: "lmid", want: "error read lmid: " + link},
		{name: "a/ldir/deep.txt", want: "error read a/ldir: " + link},
		{name: "a/lb/secret.txt", want: "error read a/lb: " + link},
		{name: "a/lparent/b/secret.txt", want: "error read a/lparent: " + link},
		{name: "a/lout/secret.txt", want: "error read a/lout: " + link},
		{name: "a/lrelout/secret.txt", want: "error read a/lrelout: " + link},
		{name: "a/labs/passwd", want: "error read a/labs: " + link},
		{name: "a/loop/x", want: "error read a/loop: " + link},
		{name: "lmid/file.txt", want: "error read lmid: " + link},
		{name: "lmid/lfile", want: "error read lmid: " + link},
		{name: "a/missing", want: "error lstat a/missing: no such file or directory"},
		{name: "a/missing/x", want: "error lstat a/missing: no such file or directory"},
		{name: `a\file.txt`, want: `error lstat a\file.txt: no such file or directory`},
		{name: "a/file.txt/x", want: "error read a/file.txt: pathpattern: must be a directory"},
		{name: "a/fifo/x", want: "error read a/fifo: pathpattern: must be a directory"},
	}
	for _, v := range variants(t) {
		fsys := v.openTB(t, dir)
		if !readfile.OpenRefusesLinks(fsys) {
			t.Fatalf("%s: readfile.OpenRefusesLinks(FS) = false, want true", v.name)
		}
		for _, tt := range tests {
			t.Run(v.name+"/"+tt.name, func(t *testing.T) {
				t.Parallel()
				read := func(fsys fs.FS) func() outcome {
					return func() outcome {
						data, err := pathpattern.ReadFile(fsys, tt.name, limit)
						if err != nil {
							return fail(err)
						}
						return ok(string(data))
					}
				}
				trusted := &lstatCounter{linkRefusal: true, fsys: fsys}
				checked := &lstatCounter{fsys: fsys}
				for _, c := range []struct {
					via  string
					fsys fs.FS
				}{{"the FS", fsys}, {"a file system that says its Open refuses links", trusted}, {"a file system that does not say so", checked}} {
					if got := withDeadline(t, read(c.fsys)); got.String() != tt.want {
						t.Errorf("ReadFile(%q, %d) through %s = %v, want %s", tt.name, limit, c.via, got, tt.want)
					}
				}
				if n, read := trusted.lstats.Load(), !strings.HasPrefix(tt.want, "error"); (n == 0) != read {
					t.Errorf("ReadFile(%q, %d) made %d Lstat calls of a file system whose Open refuses links; want none exactly when it reads the file", tt.name, limit, n)
				}
				if n := checked.lstats.Load(); n == 0 {
					t.Errorf("ReadFile(%q, %d) made no Lstat call of a file system that does not say its Open refuses links", tt.name, limit)
				}
			})
		}
	}
}

// lstatCounter is an FS seen through another file system, which counts the
// Lstat calls made of it and says that its Open refuses links (as FS does)
// when its linkRefusal is true.
type lstatCounter struct {
	linkRefusal
	fsys   *FS
	lstats atomic.Int64
}

func (c *lstatCounter) Open(name string) (fs.File, error)    { return c.fsys.Open(name) }
func (c *lstatCounter) ReadLink(name string) (string, error) { return c.fsys.ReadLink(name) }
func (c *lstatCounter) Lstat(name string) (fs.FileInfo, error) {
	c.lstats.Add(1)
	return c.fsys.Lstat(name)
}
