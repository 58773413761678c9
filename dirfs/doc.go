// Package dirfs is a read-only file system rooted at a directory, an
// [fs.FS], whose every operation follows no symbolic link in any element
// of the name it is given and never reaches outside the directory, and
// which on Linux opens a name with one system call:
//
//	fsys, err := dirfs.Open("/var/lib/checkout/monorepo")
//	if err != nil {
//		return err
//	}
//	defer fsys.Close()
//	plan, err := g.Plan(ctx, map[string]fs.FS{"repo": fsys}, previous, cluster)
//
// It is meant for trees that a tenant writes and a controller reads on
// behalf of other tenants: a link, wherever it points, is refused, so that
// no tenant's name can lead to another tenant's files, even in a tree that
// changes while it is read. It is opt-in: a caller that does not need it
// passes the FS of an [os.Root] (which follows links that stay inside the
// root) or [os.DirFS] (which follows any link).
//
// # What it guarantees
//
// An [FS] implements [fs.FS], [fs.ReadDirFS], [fs.StatFS] and
// [fs.ReadLinkFS]. Names are [fs.FS] names (slash-separated, relative,
// cleaned, no ".." element); any other name, or one holding a NUL byte,
// is an [*fs.PathError] wrapping [fs.ErrInvalid]. A backslash is an
// ordinary character of a name on Unix; on Windows such a name is invalid.
//
//   - [FS.Open], [FS.ReadDir] and [FS.Stat] refuse a name with a link in
//     any element, the last included: the error is an [*fs.PathError],
//     naming the whole name, that wraps [ErrLink]. [FS.Stat] is thus
//     [FS.Lstat] that refuses a link; it does not follow one.
//   - [FS.Lstat] and [FS.ReadLink] refuse a link before the last element,
//     and describe or read a link as the last.
//   - Opening a named pipe does not wait for a writer (on Linux it opens
//     non-blocking, so that reading it does not wait either: without a
//     writer it reads as empty; elsewhere it is refused, see below).
//   - Other errors are the system's, such as ENOENT (wrapping
//     [fs.ErrNotExist]) and ENOTDIR, in an [*fs.PathError] naming the
//     name asked for.
//   - [FS.ReadDir] returns the entries sorted by name; an entry's Info is
//     [FS.Lstat] of its name, when Info is called.
//   - Sys of a FileInfo is nil on Linux.
//
// The directory itself is opened as the system opens any path, following
// links; the FS keeps it open until [FS.Close], so renaming or replacing it
// does not change what the FS reads. Mount points below it are crossed.
//
// # On each system
//
// On Linux (5.6 and later) a name is opened with one openat2 system call
// from the directory's descriptor, resolving no link (RESOLVE_NO_SYMLINKS,
// and so no /proc magic link) and never leaving the directory
// (RESOLVE_BENEATH). The kernel checks every element as it resolves it,
// so the guarantee holds while the tree changes: a directory swapped for a
// link during a read makes the read fail, never follow the link.
// TestSwapRace swaps a tenant's directory with a link to another's
// hundreds of times while reading below it. In generator's
// TestPlanSwapRace, which does the same to a module directory while
// planning, no artifact built through an FS came from the other tenant's
// files; through an os.Root's FS, some did (the test logs how many).
//
// Where openat2 is missing (Linux before 5.6) or refused (a seccomp filter
// answering ENOSYS or EPERM, as some container runtimes do), which the
// package finds out once per process, a name is walked one element at a
// time: each directory on the way opened with openat, O_PATH and
// O_NOFOLLOW from the one before, the last element with O_NOFOLLOW. This
// is as link-free and gives the same answers (TestWalkSameAsOpenat2,
// FuzzWalkSameAsOpenat2); it costs two more system calls per directory on
// the way; and while the tree changes, it may report a link that was
// swapped in and out again as ENOTDIR rather than [ErrLink].
//
// Elsewhere (macOS, the BSDs, Windows), an FS reads through an [os.Root],
// which never leaves the directory. Before each operation it checks every
// element of the name with the root's Lstat, refusing a link (and, on
// Windows, a mount point or junction); after opening a file it checks
// that the file opened is the one that Lstat saw ([os.SameFile]), or the
// open fails. This refuses every link in place when the operation starts.
// It does not hold while the tree changes: a directory on the way swapped
// for a link between the checks and the open can still be followed, to
// somewhere inside the directory (never outside it). Open refuses what is
// neither a regular file nor a directory, since it cannot open a named
// pipe without waiting. Linux is the system to run a controller that
// reads hostile trees on.
//
// # Limits
//
// A name is at most 4,095 bytes on Linux (PATH_MAX with its terminating
// NUL; a longer one fails with ENAMETOOLONG before any call), and each
// element at most the file system's limit (255 bytes on most). A link's
// target is read up to 4,096 bytes. Each open file holds a descriptor
// until it is closed, and the FS one for its directory: the process's
// descriptor limit bounds how many are open at once.
//
// # Concurrency
//
// An FS is safe for concurrent use: its operations share the directory's
// descriptor, which [FS.Close] closes once those under way are done. A file it opens
// is not safe for concurrent use, and stays open after the FS is closed.
//
// # Speed
//
// On Linux, reading a file costs what os.ReadFile costs on a full path:
// an openat2, an fstat, the reads and a close. A file it opens is a plain
// descriptor, not an [*os.File], which would cost two more system calls
// (its flags, and an epoll registration that a regular file refuses) and
// a finalizer. [FS.ReadDir] reads a directory's records with getdents64
// itself, without the fcntl and the allocations per entry of an
// [*os.File]; a directory opened with [FS.Open] is read through one.
//
// Since Open refuses a link in any element itself, pathpattern.ReadFile
// reads a file of an FS without first checking each element of its name
// with Lstat, as it must on another file system; it checks them only when
// the read fails, to give the same error.
//
// Through an FS, a plan of tenantkit's generator makes a few file-system
// calls per directory above its floor (only reading the files it reads),
// and through an os.Root's FS, which opens every element of a name in
// turn, many more: TestPlanFileSystemCalls counts both with strace and
// bounds each. Generator's BenchmarkPlan plans the same tree through both
// (its dirfs and os.Root sub-benchmarks), each against that floor, and
// this package's BenchmarkReadFile times one read at several depths;
// docs/performance.md has the figures.
package dirfs
