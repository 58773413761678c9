package generator

import (
	"fmt"
	"io/fs"
	"maps"
	"slices"
	"strings"

	"github.com/tenantkit/tenantkit/internal/readfile"
	"github.com/tenantkit/tenantkit/pathpattern"
)

// maxHeldBytes bounds the merged and extracted content, which exists nowhere else, that an
// artifact holds until it is hashed: 64 MiB, far more than its charts and manifests, and little
// enough for a controller's memory with one artifact per core.
const maxHeldBytes = 64 << 20

// artifactFile is one file of an artifact being built.
type artifactFile struct {
	dest string
	// src is what [File.Source] reports.
	src pathpattern.Ref
	// fsys is src's file system, a copied file's content's.
	fsys fs.FS
	// data is the content of a merged or extracted file, which is not src's bytes; own says that
	// data is the content, empty or not.
	data []byte
	own  bool
	// mode holds an extracted file's permission bits, from its archive entry; 0 otherwise.
	mode fs.FileMode
}

// content returns the file's content, refusing more than maxBytes. A copied file is read into buf
// (nil or not), valid until buf is used again; Glob found it without a link, so readfile.Read
// checks only the opened file, not its path's elements again, and dirfs refuses a link.
func (f *artifactFile) content(maxBytes int64, buf []byte) ([]byte, error) {
	if !f.own {
		return readfile.Read(f.fsys, f.src.Path, maxBytes, buf)
	}
	if int64(len(f.data)) > maxBytes {
		return nil, fmt.Errorf("the artifact's file %q must be no more than %d bytes", f.dest, maxBytes)
	}
	return f.data, nil
}

// artifactTree is an artifact's files while its copy operations run, as upstream's staging dir.
type artifactTree struct {
	files map[string]artifactFile
	// dirs holds every directory of the artifact, above its files or from archives.
	dirs map[string]bool
	held int64 // bytes of data held by files
	// mergeSpent is what its merges were charged (see maxMergeUnits).
	mergeSpent int64
	// extracted, entries, names, decompressed and archiveDirs count what all the artifact's
	// archives held and made (see extractArchive).
	extracted    int64
	entries      int
	names        int64
	archiveDirs  int
	decompressed int64
}

func newArtifactTree() *artifactTree {
	return &artifactTree{files: map[string]artifactFile{}, dirs: map[string]bool{}}
}

func (t *artifactTree) isDir(path string) bool { return t.dirs[path] }

// put puts f at f.dest, replacing the file there. As in a staging directory, a file cannot
// replace a directory or land below a file.
func (t *artifactTree) put(f *artifactFile) error {
	if t.dirs[f.dest] {
		return fmt.Errorf("%q is a directory of the artifact", f.dest)
	}
	if err := t.checkParents(f.dest); err != nil {
		return err
	}
	held := t.held + int64(len(f.data)) - int64(len(t.files[f.dest].data))
	if held > maxHeldBytes {
		return fmt.Errorf("the merged and extracted files of an artifact must hold no more than %d bytes in all", maxHeldBytes)
	}
	t.files[f.dest] = *f
	t.held = held
	t.addParents(f.dest)
	return nil
}

// mkdir makes dir a directory of the artifact; "" is its root.
func (t *artifactTree) mkdir(dir string) error {
	if dir == "" || t.dirs[dir] {
		return nil
	}
	if _, ok := t.files[dir]; ok {
		return fmt.Errorf("%q is a file of the artifact", dir)
	}
	if err := t.checkParents(dir); err != nil {
		return err
	}
	t.dirs[dir] = true
	t.addParents(dir)
	return nil
}

// checkParents returns an error when a directory above path is a file. It and addParents walk up
// from path's parent only to the first known directory (all above are directories), so a path
// costs one lookup, not one per element hashing its prefix: the square of a deep name's length.
func (t *artifactTree) checkParents(path string) error {
	for i := strings.LastIndexByte(path, '/'); i >= 0; i = strings.LastIndexByte(path[:i], '/') {
		if t.dirs[path[:i]] {
			return nil
		}
		if _, ok := t.files[path[:i]]; ok {
			return fmt.Errorf("%q is a file of the artifact, not a directory", path[:i])
		}
	}
	return nil
}

// addParents records the directories above path, up to the first known one (see checkParents).
func (t *artifactTree) addParents(path string) {
	for i := strings.LastIndexByte(path, '/'); i >= 0; i = strings.LastIndexByte(path[:i], '/') {
		if t.dirs[path[:i]] {
			return
		}
		t.dirs[path[:i]] = true
	}
}

// sorted returns the files by destination, in byte order.
func (t *artifactTree) sorted() []artifactFile {
	out := slices.AppendSeq(make([]artifactFile, 0, len(t.files)), maps.Values(t.files))
	slices.SortFunc(out, func(a, b artifactFile) int { return strings.Compare(a.dest, b.dest) })
	return out
}
