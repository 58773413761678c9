package pathpattern

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"syscall"
	"unicode/utf8"

	"k8s.io/apimachinery/pkg/api/validate/content"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// maxNameBytes is Linux's NAME_MAX: a longer literal segment names no directory, so Discover
// does not look it up (the file system would fail with ENAMETOOLONG, not report it missing).
const maxNameBytes = 255

// A Match is one directory that matches a [Pattern].
type Match struct {
	// Path is the directory, slash-separated and relative to the alias root.
	Path string
	// Raw holds the captured values as they appear in Path: use them for paths in the source.
	Raw map[string]string
	// Normalized holds the values lowercased with [strings.ToLower], as source-watcher does,
	// each a valid label value: use them for names, namespaces and labels.
	Normalized map[string]string
	// Problem is empty for a matching directory, or else the rule Path breaks ("must be a
	// directory, not a symbolic link", see [Pattern.Discover]): Raw and Normalized hold the
	// values captured on the way (unchecked), naming objects to keep, none to build.
	Problem string
}

// Discover returns every directory of fsys, rooted at the pattern's alias, that matches the
// pattern, in byte-lexical order of Path, and in errs the problems of those it left out, at
// fldPath (the pathPattern field):
//
//	ms, errs, err := p.Discover(os.DirFS(checkout), field.NewPath("spec", "pathPattern"))
//
// The root of fsys (which may be a symbolic link: the caller chose it) and the fixed prefix
// (the literal segments before the first capture) must be directories, or err is an
// [*fs.PathError] naming one and wrapping [ErrSourceShape], with no result: an empty result
// from a source moved or given one level too deep would make the caller delete every
// tenant's objects. Below the prefix, an empty or missing directory is no match.
//
// Only directories match, and no symbolic link is followed. A literal segment costs one
// [fs.Lstat], a capture segment one [fs.ReadDir], and no other directory is read. A capture
// segment skips files, names that are not valid UTF-8, and names starting with "." unless
// it starts with a literal ".".
//
// Below the prefix, a file, pipe or symbolic link at a literal segment, or a link that a
// capture segment matches, may stand where a tenant's directory was: it is neither read nor
// skipped but returned as a [Match] with Problem set, so that the caller keeps what a
// directory there could have rendered, and reported in errs. Links are recognised with
// [fs.Lstat], so fsys must implement [fs.ReadLinkFS] ([os.DirFS], [os.Root.FS], [fs.Sub]
// and [testing/fstest.MapFS] do); one that does not is trusted to hold none.
//
// A matching directory with a capture whose normalized value is not a label value is left
// out and reported in errs; errs holds these and the problems, each a field.Invalid, in
// path order. Any other error, such as an I/O error or a panic of fsys below a directory
// the first capture segment matches, ends the walk: err wraps it (or names the directory
// and the panic's value), with no result. When err is not nil or errs is not empty, the
// caller must delete nothing on account of the result.
func (p *Pattern) Discover(fsys fs.FS, fldPath *field.Path) (matches []Match, errs field.ErrorList, err error) {
	fixed := slices.IndexFunc(p.segments, func(s segment) bool { return s.capture })
	if fixed < 0 {
		fixed = len(p.segments)
	}
	d := &discovery{p: p, fsys: fsys, fldPath: fldPath, fixed: fixed, values: make([]string, len(p.captures))}
	dir, err := d.checkPrefix()
	if err != nil {
		return nil, nil, err
	}
	if d.fixed == len(p.segments) {
		return []Match{d.captured(dir, 0)}, nil, nil
	}
	if err := d.walk(dir, d.fixed); err != nil {
		return nil, nil, err
	}
	slices.SortFunc(d.matches, func(a, b Match) int { return strings.Compare(a.Path, b.Path) })
	// Bad values and problems in path order, a directory's by capture name.
	slices.SortFunc(d.errs, func(a, b dirError) int {
		return cmp.Or(strings.Compare(a.dir, b.dir), strings.Compare(a.capture, b.capture))
	})
	for _, e := range d.errs {
		errs = append(errs, e.err)
	}
	return d.matches, errs, nil
}

type discovery struct {
	p       *Pattern
	fsys    fs.FS
	fldPath *field.Path
	fixed   int      // the number of segments before the first capture, or all
	values  []string // captured values on the current path, by capture index
	matches []Match
	errs    []dirError
}

// dirError is the problem of a directory, or of one of its captures.
type dirError struct {
	dir, capture string
	err          *field.Error
}

// checkPrefix checks that the root and the fixed prefix are directories; it returns the last.
func (d *discovery) checkPrefix() (string, error) {
	info, err := fs.Stat(d.fsys, ".")
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", shapeError(".", "must be the source's root directory: it does not exist")
	case errors.Is(err, syscall.ENOTDIR), err == nil && !info.IsDir():
		// os.DirFS of a file fails with ENOTDIR.
		return "", shapeError(".", "must be the source's root directory, not a file")
	case err != nil:
		return "", fmt.Errorf("pathpattern: %w", err)
	}
	dir := "."
	for _, seg := range d.p.segments[:d.fixed] {
		name := join(dir, seg.src)
		info, err := d.lstat(name, seg.src)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return "", shapeError(name, "must be a directory, as the pattern's fixed prefix names it: it does not exist")
		case err != nil:
			return "", fmt.Errorf("pathpattern: %w", err)
		case info.Mode()&fs.ModeSymlink != 0:
			return "", shapeError(name, "must be a directory, as the pattern's fixed prefix names it, not a symbolic link")
		case !info.IsDir():
			return "", shapeError(name, "must be a directory, as the pattern's fixed prefix names it, not a file")
		}
		dir = name
	}
	return dir, nil
}

func shapeError(dir, rule string) error {
	return &fs.PathError{Op: "discover", Path: dir, Err: errorf(ErrSourceShape, "%s", rule)}
}

// lstat is fs.Lstat of name, whose last element is lit; a lit over maxNameBytes does not exist.
func (d *discovery) lstat(name, lit string) (fs.FileInfo, error) {
	if len(lit) > maxNameBytes {
		return nil, &fs.PathError{Op: "lstat", Path: name, Err: fs.ErrNotExist}
	}
	return fs.Lstat(d.fsys, name)
}

// walk matches segment i against the children of dir; its recursion depth is bounded by maxLength.
func (d *discovery) walk(dir string, i int) error {
	seg := &d.p.segments[i]
	if !seg.capture {
		name := join(dir, seg.src)
		info, err := d.lstat(name, seg.src)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return nil // nothing to match in this directory
		case err != nil:
			return fmt.Errorf("pathpattern: %w", err)
		case info.IsDir() && info.Mode()&fs.ModeSymlink == 0:
			return d.next(name, i)
		}
		d.problem(name, i, info.Mode().Type())
		return nil
	}
	entries, err := fs.ReadDir(d.fsys, dir)
	if err != nil {
		// A directory below the prefix that vanished holds nothing; the prefix must not vanish.
		if errors.Is(err, fs.ErrNotExist) && i > d.fixed {
			return nil
		}
		return fmt.Errorf("pathpattern: %w", err)
	}
	next := d.next
	if i == d.fixed {
		next = d.below
	}
	for _, e := range entries {
		name := e.Name()
		link := e.Type()&fs.ModeSymlink != 0
		if (!e.IsDir() && !link) || !utf8.ValidString(name) {
			continue // a file among the directories, or a name no fs.FS path can hold
		}
		if !seg.match(name, d.values) {
			continue
		}
		if link {
			// It may stand where a tenant's directory was: neither followed nor taken for missing.
			d.problem(join(dir, name), i, fs.ModeSymlink)
			continue
		}
		if err := next(join(dir, name), i); err != nil {
			return err
		}
	}
	return nil
}

// below is next for a directory the first capture segment matched, a panic below it an error.
func (d *discovery) below(dir string, i int) (err error) {
	defer func() {
		if v := recover(); v != nil { // panic(nil) recovers a *runtime.PanicNilError
			err = fmt.Errorf("pathpattern: reading below %q: panic: %v", dir, v)
		}
	}()
	return d.next(dir, i)
}

// problem records name, which segment i names, as of type typ, with the values captured so far.
func (d *discovery) problem(name string, i int, typ fs.FileMode) {
	m := d.captured(name, d.p.segments[i].captured)
	m.Problem = "must be a directory, not " + describeType(typ)
	d.matches = append(d.matches, m)
	d.errs = append(d.errs, dirError{dir: name, err: field.Invalid(d.fldPath, name,
		fmt.Sprintf("%s, as the pattern's segment %q names it: discovery neither reads nor follows it", m.Problem, d.p.segments[i].src))})
}

// captured returns a Match at path with the values of the first n captures, raw and lower-cased.
func (d *discovery) captured(path string, n int) Match {
	m := Match{Path: path, Raw: make(map[string]string, n), Normalized: make(map[string]string, n)}
	for j, name := range d.p.captures[:n] {
		m.Raw[name], m.Normalized[name] = d.values[j], strings.ToLower(d.values[j])
	}
	return m
}

// describeType names what was found where a directory must be.
func describeType(typ fs.FileMode) string {
	switch {
	case typ&fs.ModeSymlink != 0:
		return "a symbolic link"
	case typ&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case typ&fs.ModeSocket != 0:
		return "a socket"
	case typ&fs.ModeDevice != 0:
		return "a device"
	default:
		return "a file"
	}
}

// next continues with segment i+1 below dir, or records dir after the last.
func (d *discovery) next(dir string, i int) error {
	if i+1 < len(d.p.segments) {
		return d.walk(dir, i+1)
	}
	m := d.captured(dir, len(d.values))
	ok := true
	for _, name := range d.p.captures {
		if msgs := content.IsLabelValue(m.Normalized[name]); len(msgs) > 0 {
			d.errs = append(d.errs, dirError{dir, name, field.Invalid(d.fldPath, m.Normalized[name],
				fmt.Sprintf("directory %q, capture %q: %s", dir, name, strings.Join(msgs, "; ")))})
			ok = false
		}
	}
	if ok {
		d.matches = append(d.matches, m)
	}
	return nil
}

func join(dir, name string) string {
	if dir == "." {
		return name
	}
	return dir + "/" + name
}
