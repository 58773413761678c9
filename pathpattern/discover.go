package pathpattern

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"unicode/utf8"

	"k8s.io/apimachinery/pkg/api/validate/content"
)

// A Match is one directory that matches a [Pattern].
type Match struct {
	// Path is the directory, slash-separated and relative to the alias root.
	Path string
	// Raw holds the captured values as they appear in Path. Use them for
	// paths in the source.
	Raw Captures
	// Normalized holds the captured values lowercased (ASCII A-Z only), each
	// a valid label value. Use them for names, namespaces and labels.
	Normalized Captures
}

// Discover returns every directory of fsys that matches the pattern, in
// byte-lexical order of Path. fsys is rooted at the pattern's alias.
//
//	ms, err := p.Discover(os.DirFS(checkout))
//
// Only directories match. Symbolic links are never matched or followed, for
// literal segments too: a literal segment costs one [fs.Lstat], a segment
// with a capture one [fs.ReadDir] of the directory above it, and no other
// directory is read, so the cost grows with the part of the tree that can
// still match. A capture segment skips names that start with "." unless the
// segment itself starts with a literal ".", and names that are not valid
// UTF-8 (they cannot be [fs.FS] paths).
//
// Symbolic links are recognised through [fs.Lstat], so fsys must implement
// [fs.ReadLinkFS] to report them, as [os.DirFS], [os.Root.FS], [fs.Sub] and
// [testing/fstest.MapFS] do; a file system that does not is trusted to
// contain none.
//
// A directory that matches but has a capture whose normalized value is not
// a valid label value (spaces, more than 63 characters, a first or last
// character that is not alphanumeric) is left out of the result. Discover
// carries on past such directories and past I/O errors, and returns the
// matches it found with a [*DiscoverError] that lists them all; see
// [DirError.Terminal]. A non-nil error means the result must not be used to
// decide what to delete.
func (p *Pattern) Discover(fsys fs.FS) ([]Match, error) {
	d := &discovery{p: p, fsys: fsys, values: make([]string, len(p.captures))}
	d.walk(".", 0)
	slices.SortFunc(d.matches, func(a, b Match) int { return strings.Compare(a.Path, b.Path) })
	if len(d.errs) == 0 {
		return d.matches, nil
	}
	slices.SortFunc(d.errs, func(a, b *DirError) int {
		return cmp.Or(strings.Compare(a.Path, b.Path), strings.Compare(a.Capture, b.Capture))
	})
	return d.matches, &DiscoverError{Dirs: d.errs}
}

// discovery is the state of one Discover call.
type discovery struct {
	p       *Pattern
	fsys    fs.FS
	values  []string // captured values on the current path, by capture index
	matches []Match
	errs    []*DirError
}

// walk matches segment i against the children of dir, a directory known
// not to be a symbolic link. The recursion depth is the number of segments,
// which MaxLength bounds.
func (d *discovery) walk(dir string, i int) {
	seg := &d.p.segments[i]
	if !seg.capture {
		name := join(dir, seg.literal)
		info, err := fs.Lstat(d.fsys, name)
		if err != nil {
			d.ioError(name, err)
			return
		}
		if info.IsDir() && info.Mode()&fs.ModeSymlink == 0 {
			d.next(name, i)
		}
		return
	}
	entries, err := fs.ReadDir(d.fsys, dir)
	if err != nil {
		d.ioError(dir, err) // entries still holds what was read
	}
	for _, e := range entries {
		name := e.Name()
		if !e.IsDir() || e.Type()&fs.ModeSymlink != 0 || !utf8.ValidString(name) {
			continue
		}
		if seg.match(name, d.values) {
			d.next(join(dir, name), i)
		}
	}
}

// next continues with segment i+1 below dir, or records dir when segment i
// is the last.
func (d *discovery) next(dir string, i int) {
	if i+1 < len(d.p.segments) {
		d.walk(dir, i+1)
		return
	}
	m := Match{Path: dir, Raw: make(Captures, len(d.values)), Normalized: make(Captures, len(d.values))}
	ok := true
	for j, name := range d.p.captures {
		raw := d.values[j]
		norm := normalize(raw)
		if msgs := labelValueErrors(norm); len(msgs) > 0 {
			d.errs = append(d.errs, &DirError{Path: dir, Capture: name, Value: raw, Err: invalidValue(norm, msgs)})
			ok = false
		}
		m.Raw[name] = raw
		m.Normalized[name] = norm
	}
	if ok {
		d.matches = append(d.matches, m)
	}
}

// ioError records err for path unless the path does not exist, which only
// means that nothing matches there.
func (d *discovery) ioError(path string, err error) {
	if errors.Is(err, fs.ErrNotExist) {
		return
	}
	d.errs = append(d.errs, &DirError{Path: path, Err: err})
}

func join(dir, name string) string {
	if dir == "." {
		return name
	}
	return dir + "/" + name
}

// normalize lowercases the ASCII letters of s. Other letters stay as they
// are (and make s an invalid label value): full Unicode case folding would
// turn distinct names into the same one, such as "K" (Kelvin sign) and "k".
func normalize(s string) string {
	i := strings.IndexFunc(s, func(r rune) bool { return 'A' <= r && r <= 'Z' })
	if i < 0 {
		return s
	}
	b := []byte(s)
	for ; i < len(b); i++ {
		if 'A' <= b[i] && b[i] <= 'Z' {
			b[i] += 'a' - 'A'
		}
	}
	return string(b)
}

// labelValueErrors returns content.IsLabelValue(v). The common
// case, a valid value, is decided without the regular expression that
// IsLabelValue runs, which took an eighth of the time of discovery;
// TestLabelValueErrors checks that both agree.
func labelValueErrors(v string) []string {
	if len(v) <= content.LabelValueMaxLength && isLabelValue(v) {
		return nil
	}
	return content.IsLabelValue(v)
}

// isLabelValue reports whether v matches (([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?.
func isLabelValue(v string) bool {
	for i := 0; i < len(v); i++ {
		c := v[i]
		alnum := 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
		inner := c == '-' || c == '_' || c == '.'
		if !alnum && (!inner || i == 0 || i == len(v)-1) {
			return false
		}
	}
	return true
}

// invalidValue describes a normalized value that is not a label value.
func invalidValue(norm string, msgs []string) error {
	return fmt.Errorf("%w: %q: %s", ErrInvalidValue, norm, strings.Join(msgs, "; "))
}
