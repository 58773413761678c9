package generator

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"slices"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/tenantkit/tenantkit/internal/globmeta"
	"github.com/tenantkit/tenantkit/pathpattern"
)

// The bounds of Extract, for all the archives of one artifact together, so that a tenant's
// archives cost so much at most however many there are. Each archive, and each file in it, is
// also at most maxArtifactFileBytes.
const (
	// maxArchiveEntries bounds an artifact's archives' entries: far more than a chart holds.
	maxArchiveEntries = 10_000
	// maxExtractedBytes bounds the bytes of an artifact's archives' files (held: maxHeldBytes).
	maxExtractedBytes = 64 << 20
	// maxDecompressedBytes bounds all that decompressing an artifact's archives produces (a gzip
	// bomb stops here): the files and 16 MiB, more than the headers of maxArchiveEntries entries
	// and their names take, and few enough that records the tar reader drops (a PAX record may
	// hold 1 MiB) cost a fraction of the files.
	maxDecompressedBytes = maxExtractedBytes + 16<<20
	// maxArchiveNameBytes bounds the names of an artifact's archives' entries, as an archive's work
	// grows with them (400 bytes each for 10,000, several times what charts use; else up to 40 MB).
	maxArchiveNameBytes = 4 << 20
	// maxArchiveDirs bounds the directories an artifact's archives make, as many as entries (a name
	// of 2,048 elements implies 2,048, each recorded by a path of up to 4 KiB).
	maxArchiveDirs = maxArchiveEntries
)

// tarballExtensions, in any case, name the archives Extract extracts, as `flux build artifact`
// and `helm package` write them.
var tarballExtensions = []string{".tar.gz", ".tgz"}

func isTarball(name string) bool {
	lower := strings.ToLower(name)
	return slices.ContainsFunc(tarballExtensions, func(ext string) bool { return strings.HasSuffix(lower, ext) })
}

// archivesOf returns the archives, of the files pathpattern.Glob selected, that an Extract copy
// from pattern extracts, as source-watcher chooses them: a glob pattern, the tarballs it matches
// itself, silently skipping other files and those below a directory it matches; a literal pattern
// must name a tarball, not another file or a directory.
func archivesOf(pattern string, files []string) ([]string, error) {
	if !globmeta.HasMeta(pattern) {
		lit := globmeta.Unescape(pattern)
		if len(files) != 1 || files[0] != lit {
			return nil, errors.New("the Extract strategy does not support directories")
		}
		if !isTarball(lit) {
			return nil, fmt.Errorf("the Extract strategy requires a tarball (%s), not %q", strings.Join(tarballExtensions, " or "), lit)
		}
		return files, nil
	}
	var out []string
	for _, f := range files {
		// The pattern was valid for Glob, so it is for Match.
		if ok, _ := doublestar.Match(pattern, f); ok && isTarball(f) {
			out = append(out, f)
		}
	}
	return out, nil
}

// extractArchive puts the files of the archive src below to (a directory of the artifact, "" for
// its root) as source-watcher extracts a tarball into its staging directory: each entry at
// to/<its name>, replacing what was there. It reads the archive whole, at most
// maxArtifactFileBytes; the directories the entries make count against maxArchiveDirs. Its work
// is linear in the archive's size and names' bytes (see artifactTree.checkParents).
func extractArchive(ctx context.Context, t *artifactTree, fsys fs.FS, src pathpattern.Ref, to string) error {
	data, err := pathpattern.ReadFile(fsys, src.Path, maxArtifactFileBytes)
	if err != nil {
		return err
	}
	if err := t.mkdir(to); err != nil {
		return fmt.Errorf("cannot extract into %q: %w", to, err)
	}
	return untar(ctx, data, t, func(e archiveEntry) error {
		if e.name == "." { // the archive's root directory: to itself
			return nil
		}
		dest := pathJoin(to, e.name)
		if !validDestination(dest) {
			return &archiveError{entry: e.header, rule: fmt.Sprintf("would land at %q, which is not a valid path in the artifact", dest)}
		}
		var err error
		dirs := len(t.dirs)
		if e.dir {
			err = t.mkdir(dest)
		} else {
			err = t.put(&artifactFile{dest: dest, src: src, data: e.data, own: true, mode: e.mode})
		}
		if err != nil {
			return &archiveError{entry: e.header, rule: err.Error()}
		}
		if t.archiveDirs += len(t.dirs) - dirs; t.archiveDirs > maxArchiveDirs {
			return &archiveError{entry: e.header, rule: fmt.Sprintf("the archives of an artifact must make no more than %d directories in all, those their names imply included", maxArchiveDirs)}
		}
		return nil
	})
}

// archiveEntry is a file or a directory of an archive.
type archiveEntry struct {
	header string // its name in the archive, as given
	name   string // cleaned; "." for the archive's root directory
	dir    bool
	data   []byte      // a file's content
	mode   fs.FileMode // a file's permission bits
}

// archiveError is a problem with one entry of an archive, or the whole archive (entry empty).
type archiveError struct {
	entry string
	rule  string
	err   error
}

func (e *archiveError) Error() string {
	var b strings.Builder
	if e.entry != "" {
		fmt.Fprintf(&b, "entry %q: ", e.entry)
	}
	b.WriteString(e.rule)
	if e.err != nil {
		b.WriteString(": ")
		b.WriteString(e.err.Error())
	}
	return b.String()
}

func (e *archiveError) Unwrap() error { return e.err }

// errDecompressed stops a decompression that produced more than its bound.
var errDecompressed = errors.New("decompressed past its bound")

// untar reads data, a gzip-compressed tar archive, and calls visit with each file and directory
// in archive order until visit or the archive fails, stopping at the end-of-archive marker as
// upstream's reader does. Each entry must pass checkEntry, and counts against t's bounds (see
// maxArchiveEntries), a file at most maxArtifactFileBytes. Every error is an *archiveError,
// wrapping ctx's once ctx has ended.
func untar(ctx context.Context, data []byte, t *artifactTree, visit func(archiveEntry) error) error {
	gz, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return &archiveError{rule: "must be a gzip-compressed tar archive", err: err}
	}
	tr := tar.NewReader(&boundedReader{ctx: ctx, r: gz, t: t})
	for {
		if err := ctx.Err(); err != nil {
			return &archiveError{rule: "extraction stopped", err: err}
		}
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return readError(err)
		}
		if t.entries++; t.entries > maxArchiveEntries {
			return &archiveError{entry: hdr.Name, rule: fmt.Sprintf("the archives of an artifact must hold no more than %d entries in all", maxArchiveEntries)}
		}
		if t.names += int64(len(hdr.Name)); t.names > maxArchiveNameBytes {
			return &archiveError{entry: hdr.Name, rule: fmt.Sprintf("the names of the entries of an artifact's archives must hold no more than %d bytes in all", maxArchiveNameBytes)}
		}
		// An entry costs the share a unit, and one per mergeUnitBytes of its name; a file's content
		// is charged as it decompresses, and must fit the share before it is allocated.
		share := workShareOf(ctx)
		if err := share.charge(1+int64(len(hdr.Name))/mergeUnitBytes, "the entry and its name"); err != nil {
			return &archiveError{entry: hdr.Name, rule: "cannot be extracted", err: err}
		}
		e, err := checkEntry(hdr)
		if err != nil {
			return err
		}
		if !e.dir {
			if hdr.Size < 0 || hdr.Size > maxArtifactFileBytes {
				return &archiveError{entry: hdr.Name, rule: fmt.Sprintf("must be no more than %d bytes", maxArtifactFileBytes)}
			}
			if t.extracted += hdr.Size; t.extracted > maxExtractedBytes {
				return &archiveError{entry: hdr.Name, rule: fmt.Sprintf("the archives of an artifact must hold no more than %d bytes of files in all", maxExtractedBytes)}
			}
			if err := share.check((hdr.Size+extractUnitBytes-1)/extractUnitBytes, fmt.Sprintf("a file of %d bytes", hdr.Size)); err != nil {
				return &archiveError{entry: hdr.Name, rule: "cannot be extracted", err: err}
			}
			// The plan's budget must have room for what is held, before it is read.
			if err := holdRoom(ctx, t, hdr.Size); err != nil {
				return &archiveError{rule: "extraction stopped", err: err}
			}
			e.data = make([]byte, hdr.Size)
			if _, err := io.ReadFull(tr, e.data); err != nil {
				return readError(err)
			}
		}
		if err := visit(e); err != nil {
			return err
		}
	}
}

// checkEntry checks an entry's name (not empty, relative, without a NUL, a backslash or a ".."
// element; then cleaned: "./a/" is "a") and its type (file or directory, as upstream reads it).
func checkEntry(hdr *tar.Header) (archiveEntry, error) {
	name := hdr.Name
	fail := func(rule string) (archiveEntry, error) {
		return archiveEntry{}, &archiveError{entry: name, rule: rule}
	}
	switch {
	case name == "":
		return fail("must have a name")
	case strings.ContainsRune(name, 0):
		return fail("must not contain a NUL byte")
	case strings.ContainsRune(name, '\\'):
		return fail(`must not contain "\"`)
	case strings.HasPrefix(name, "/"):
		return fail("must not be an absolute path")
	case len(name) > maxDestinationBytes:
		return fail(fmt.Sprintf("must be no more than %d bytes", maxDestinationBytes))
	}
	for elem := range strings.SplitSeq(name, "/") {
		if elem == ".." {
			return fail(`must not contain a ".." element`)
		}
	}
	e := archiveEntry{header: name, name: path.Clean(name)}
	// The type as upstream's reader decides it, by the header's mode.
	mode := hdr.FileInfo().Mode()
	switch {
	case hdr.Typeflag == tar.TypeLink:
		return fail(fmt.Sprintf("must not be a hard link (to %q)", hdr.Linkname))
	case mode.IsRegular():
		if e.name == "." {
			return fail("must name a file below the archive's root")
		}
		e.mode = mode.Perm()
	case mode.IsDir():
		e.dir = true
	case mode&fs.ModeSymlink != 0:
		return fail(fmt.Sprintf("must not be a symbolic link (to %q)", hdr.Linkname))
	default:
		return fail(fmt.Sprintf("must be a file or a directory, not %s", entryKind(mode)))
	}
	return e, nil
}

// entryKind names the kind of an entry that is neither file nor directory.
func entryKind(mode fs.FileMode) string {
	switch {
	case mode&fs.ModeCharDevice != 0:
		return "a character device"
	case mode&fs.ModeDevice != 0:
		return "a block device"
	case mode&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case mode&fs.ModeSocket != 0:
		return "a socket"
	default:
		return fmt.Sprintf("mode %v", mode)
	}
}

// readError is the error of reading the archive itself.
func readError(err error) error {
	switch {
	case errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded):
		return &archiveError{rule: "extraction stopped", err: err}
	case errors.Is(err, errDecompressed):
		return &archiveError{rule: fmt.Sprintf("the archives of an artifact must decompress to no more than %d bytes in all", maxDecompressedBytes)}
	case errors.Is(err, errWorkBudget):
		return &archiveError{rule: "cannot be read to its end", err: err}
	}
	return &archiveError{rule: "must be a gzip-compressed tar archive", err: err}
}

// boundedReader reads the decompressed archive, counting what it reads against t's bound, and
// fails once it is spent, or once ctx has ended.
type boundedReader struct {
	ctx context.Context
	r   io.Reader
	t   *artifactTree
}

func (b *boundedReader) Read(p []byte) (int, error) {
	if err := b.ctx.Err(); err != nil {
		return 0, err
	}
	left := maxDecompressedBytes - b.t.decompressed
	if left <= 0 {
		return 0, errDecompressed
	}
	// Charge a unit per extractUnitBytes decompressed, started, before it is: at most what is left.
	work := workShareOf(b.ctx)
	charged := (b.t.decompressed + extractUnitBytes - 1) / extractUnitBytes
	if work != nil {
		room := charged*extractUnitBytes - b.t.decompressed + (work.limit-work.spent)*extractUnitBytes
		if room <= 0 {
			return 0, work.charge(1, fmt.Sprintf("decompressing the artifact's archives past %d bytes", b.t.decompressed))
		}
		left = min(left, room)
	}
	if int64(len(p)) > left {
		p = p[:left]
	}
	n, err := b.r.Read(p)
	b.t.decompressed += int64(n)
	if work != nil { // within what it had left: the read was cut to it
		work.spent += (b.t.decompressed+extractUnitBytes-1)/extractUnitBytes - charged
	}
	return n, err
}
