// Package dirfs is a read-only file system rooted at a directory, an [fs.FS], whose every
// operation follows no symbolic link in any element of the name it is given and never reaches
// outside the directory, and which on Linux opens a name with one system call:
//
//	fsys, err := dirfs.Open("/var/lib/checkout/monorepo")
//	if err != nil {
//		return err
//	}
//	defer fsys.Close()
//	plan, err := g.Plan(ctx, map[string]fs.FS{"repo": fsys}, previous, cluster)
//
// It is meant for trees that a tenant writes and a controller reads on behalf of other tenants:
// a link, wherever it points, is refused, so that no tenant's name can lead to another tenant's
// files, even in a tree that changes while it is read. It is opt-in: the FS of an [os.Root]
// follows links that stay inside the root, and [os.DirFS] any link.
//
// # What it guarantees
//
// An [FS] implements [fs.FS], [fs.ReadDirFS], [fs.StatFS] and [fs.ReadLinkFS]. Every operation
// refuses a name with a link in any element with an [*fs.PathError] naming the whole name and
// wrapping [ErrLink], except that [FS.Lstat] and [FS.ReadLink] accept one as the last element.
// Other errors are the system's (ENOENT wraps [fs.ErrNotExist]), and a name that is no [fs.FS]
// name or holds a NUL byte wraps [fs.ErrInvalid] (on Windows, a backslash too).
//
// # On each system
//
// On Linux (5.6 and later) a name is opened with one openat2 call from the directory's
// descriptor with RESOLVE_NO_SYMLINKS (so no /proc magic link) and RESOLVE_BENEATH: the kernel
// checks every element as it resolves it, so a directory swapped for a link during a read makes
// the read fail, never follow it (TestSwapRace; generator's TestPlanSwapRace shows an os.Root's
// FS reading another tenant's files where an FS reads none).
//
// Where openat2 is missing or refused (ENOSYS or EPERM from a seccomp filter), found out once
// per process, a name is walked with openat and O_NOFOLLOW, each directory opened with O_PATH:
// as link-free, with the same answers (TestWalkSameAsOpenat2 and its fuzz target), at two more
// system calls per directory, but a link swapped in and out again may be reported as ENOTDIR
// rather than [ErrLink].
//
// Elsewhere (macOS, the BSDs, Windows), an FS reads through an [os.Root]: it checks every
// element with the root's Lstat, refusing a link (and on Windows a mount point or junction),
// then that the file opened is the one Lstat saw ([os.SameFile]); a link swapped in between can
// still be followed, inside the directory. Linux is the system to run a controller that reads
// hostile trees on.
//
// # Limits
//
// A name is at most 4,095 bytes on Linux (PATH_MAX less its NUL; a longer one is ENAMETOOLONG),
// each element the file system's limit (255 bytes on most). A link's target is read up to 4,096
// bytes. Each open file and each FS holds a descriptor, which the process's limit bounds.
//
// # Concurrency
//
// An FS is safe for concurrent use; a file it opens is not (see [FS]).
//
// # Speed
//
// On Linux a file is a plain descriptor, not an [*os.File], and [FS.ReadDir] calls getdents64
// itself, so reading a file costs what os.ReadFile does on a full path. Generator's
// BenchmarkPlan compares an FS with an os.Root's, and TestPlanFileSystemCalls bounds the calls
// of both.
package dirfs
