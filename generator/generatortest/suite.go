package generatortest

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/tenantkit/tenantkit/generator"
	"github.com/tenantkit/tenantkit/internal/agmanifest"
	"github.com/tenantkit/tenantkit/inventory"
	"github.com/tenantkit/tenantkit/nsmeta"
)

// The type fields of a suite.
const (
	// APIVersion is a suite's apiVersion.
	APIVersion = "tenantkit.dev/v1alpha1"
	// Kind is a suite's kind.
	Kind = "PlanTest"
)

// Bounds on what a suite makes the runner read: suites and generators come
// from the platform team, but a wrong path must not read a disk image.
const (
	maxFileBytes   = 16 << 20 // a suite, a generator manifest
	maxSourceFiles = 10000    // files of one case's source directory
	maxSourceBytes = 64 << 20 // bytes of one case's source directory
)

// ErrBadSuite is the error of LoadSuite for a suite that cannot be run: not
// readable, not strictly decodable, of another kind, without cases, or
// naming a generator or source that cannot be read.
var ErrBadSuite = errors.New("generatortest: bad suite")

// Suite is a loaded suite, ready to run. The zero value is not valid; use
// LoadSuite.
type Suite struct {
	path      string
	dir       string
	doc       suiteDoc
	manifest  *agmanifest.Manifest[generator.Spec]
	alias     string
	generator string // the generator file, for messages
}

type suiteDoc struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Metadata   struct {
		Name string `json:"name,omitempty"`
	} `json:"metadata"`
	Generator string    `json:"generator"`
	Source    string    `json:"source,omitempty"`
	Cases     []caseDoc `json:"cases"`
}

type caseDoc struct {
	Name      string            `json:"name"`
	Source    string            `json:"source,omitempty"`
	Remove    []string          `json:"remove,omitempty"`
	Files     map[string]string `json:"files,omitempty"`
	Inventory []inventory.Entry `json:"inventory,omitempty"`
	Cluster   *clusterDoc       `json:"cluster,omitempty"`
	Options   optionsDoc        `json:"options,omitempty"`
	Expect    expectDoc         `json:"expect"`
}

type optionsDoc struct {
	DefaultServiceAccount string `json:"defaultServiceAccount,omitempty"`
	AllowDeleteAll        bool   `json:"allowDeleteAll,omitempty"`
	Strict                bool   `json:"strict,omitempty"`
}

type clusterDoc struct {
	Namespaces []liveDoc `json:"namespaces,omitempty"`
	Artifacts  []liveDoc `json:"artifacts,omitempty"`
	Objects    []liveDoc `json:"objects,omitempty"`
}

type liveDoc struct {
	APIVersion  string            `json:"apiVersion,omitempty"`
	Kind        string            `json:"kind,omitempty"`
	Namespace   string            `json:"namespace,omitempty"`
	Name        string            `json:"name"`
	UID         string            `json:"uid,omitempty"`
	Labels      map[string]string `json:"labels,omitempty"`
	Annotations map[string]string `json:"annotations,omitempty"`
}

type expectDoc struct {
	Objects    []objectExpect    `json:"objects,omitempty"`
	Namespaces []namespaceExpect `json:"namespaces,omitempty"`
	Artifacts  []artifactExpect  `json:"artifacts,omitempty"`
	Errors     []errorExpect     `json:"errors,omitempty"`
	NoErrors   bool              `json:"noErrors,omitempty"`
	Warnings   []string          `json:"warnings,omitempty"`
	Refused    string            `json:"refused,omitempty"`
}

func (e expectDoc) empty() bool {
	return len(e.Objects) == 0 && len(e.Namespaces) == 0 && len(e.Artifacts) == 0 &&
		len(e.Errors) == 0 && !e.NoErrors && len(e.Warnings) == 0 && e.Refused == ""
}

type objectExpect struct {
	Object string `json:"object"`
	// ActionName is the action as the suite writes it; LoadSuite reads it
	// into Action, refusing a name that is none.
	ActionName string           `json:"action,omitempty"`
	Action     inventory.Action `json:"-"`
	Reason     string           `json:"reason,omitempty"`
}

type namespaceExpect struct {
	Name        string            `json:"name"`
	Labels      map[string]string `json:"labels,omitempty"`
	Annotations map[string]string `json:"annotations,omitempty"`
	Exact       bool              `json:"exact,omitempty"`
	Origin      nsmeta.Metadata   `json:"origin,omitempty"`
	// Conflict, when set, is the namespace's generator.Namespace.Conflict
	// exactly: "Adopted", "OwnershipConflict", or "" for none.
	// Unset, the conflict is not checked.
	Conflict *string `json:"conflict,omitempty"`
}

type artifactExpect struct {
	Artifact string                     `json:"artifact"`
	Inputs   map[string]json.RawMessage `json:"inputs,omitempty"`
	NoInputs bool                       `json:"noInputs,omitempty"`
	Files    []string                   `json:"files,omitempty"`
	// Conflict, when set, is the artifact's generator.Artifact.Conflict
	// exactly: "OwnershipConflict", or "" for none. Unset, the conflict is
	// not checked.
	Conflict *string `json:"conflict,omitempty"`
}

type errorExpect struct {
	Field    string `json:"field,omitempty"`
	Contains string `json:"contains"`
}

// SuiteError is the error of LoadSuite: a bad suite, and why. It wraps
// ErrBadSuite, and the error that made it bad when there is one (such as
// fs.ErrNotExist).
type SuiteError struct {
	// Msg names the file and the field, and says what is wrong, e.g.
	// "tests/policy.yaml: cases[0].expect.noError: unknown field": the
	// message a tool prints, without the package's words.
	Msg   string
	cause error
}

// Error returns "generatortest: bad suite: " and Msg.
func (e *SuiteError) Error() string { return ErrBadSuite.Error() + ": " + e.Msg }

// Unwrap returns ErrBadSuite, and the error that made the suite bad, if
// any.
func (e *SuiteError) Unwrap() []error {
	if e.cause != nil {
		return []error{ErrBadSuite, e.cause}
	}
	return []error{ErrBadSuite}
}

func badf(format string, args ...any) error {
	return &SuiteError{Msg: fmt.Sprintf(format, args...)}
}

// LoadSuite reads the suite at file, decoding it strictly: an unknown or
// duplicate key, or a value of the wrong type, is an error naming its path
// ("cases[0].expect.noError: unknown field"), so that no expectation is
// silently ignored. The generator file and every source directory are
// paths relative to the suite's directory; the generator is read now, as
// the preview tool reads -generator (internal/agmanifest: as written, or
// as kubectl prints it, alone or in a List), each case's source when it
// runs. Every error is a *SuiteError, which wraps ErrBadSuite and names
// the file and the field.
//
//	s, err := generatortest.LoadSuite("tests/sample.yaml")
func LoadSuite(file string) (*Suite, error) {
	data, err := readBounded(file)
	if err != nil {
		return nil, &SuiteError{Msg: err.Error(), cause: err}
	}
	s := &Suite{path: file, dir: filepath.Dir(file)}
	if err := agmanifest.Unmarshal(data, &s.doc); err != nil {
		return nil, badf("%s: %v", file, err)
	}
	d := &s.doc
	if d.APIVersion != APIVersion || d.Kind != Kind {
		return nil, badf("%s: apiVersion and kind must be %s and %s, got %q and %q", file, APIVersion, Kind, d.APIVersion, d.Kind)
	}
	if d.Generator == "" {
		return nil, badf("%s: generator: must name the ArtifactGenerator file", file)
	}
	if len(d.Cases) == 0 {
		return nil, badf("%s: cases: must hold at least one case", file)
	}
	seen := map[string]bool{}
	for i, c := range d.Cases {
		if c.Name == "" {
			return nil, badf("%s: cases[%d].name: must not be empty", file, i)
		}
		if seen[c.Name] {
			return nil, badf("%s: cases[%d].name: %q appears twice", file, i, c.Name)
		}
		seen[c.Name] = true
		if c.Source == "" && d.Source == "" && len(c.Files) == 0 {
			return nil, badf("%s: cases[%d] (%s): needs a source or files", file, i, c.Name)
		}
		for j, o := range c.Expect.Objects {
			if _, err := parseObject(o.Object); err != nil {
				return nil, badf("%s: cases[%d].expect.objects[%d].object: %v", file, i, j, err)
			}
			a, err := parseAction(o.ActionName)
			if err != nil {
				return nil, badf("%s: cases[%d].expect.objects[%d].action: %v", file, i, j, err)
			}
			d.Cases[i].Expect.Objects[j].Action = a
		}
		for j, ne := range c.Expect.Namespaces {
			if err := checkConflict(ne.Conflict, "Adopted", "OwnershipConflict"); err != nil {
				return nil, badf("%s: cases[%d].expect.namespaces[%d].conflict: %v", file, i, j, err)
			}
		}
		for j, ae := range c.Expect.Artifacts {
			if err := checkConflict(ae.Conflict, "OwnershipConflict"); err != nil {
				return nil, badf("%s: cases[%d].expect.artifacts[%d].conflict: %v", file, i, j, err)
			}
		}
		for j, e := range c.Inventory {
			if errs := e.Validate(nil); len(errs) > 0 {
				return nil, badf("%s: cases[%d].inventory[%d]: %v", file, i, j, errs.ToAggregate())
			}
		}
	}
	s.generator = s.resolve(d.Generator)
	gdata, err := readBounded(s.generator)
	if err != nil {
		return nil, &SuiteError{Msg: fmt.Sprintf("%s: generator: %v", file, err), cause: err}
	}
	if s.manifest, err = agmanifest.Decode[generator.Spec](gdata); err != nil {
		return nil, badf("%s: generator %s: %v", file, s.generator, err)
	}
	if n := len(s.manifest.Spec.Sources); n != 1 {
		return nil, badf("%s: generator %s: spec.sources must declare one source for a suite, got %d", file, s.generator, n)
	}
	s.alias = s.manifest.Spec.Sources[0].Alias
	return s, nil
}

// parseAction reads an expected action: "" (not checked) or one of the
// seven actions' names.
func parseAction(name string) (inventory.Action, error) {
	if name == "" {
		return 0, nil
	}
	var names []string
	for a := inventory.Create; a <= inventory.Skip; a++ {
		if a.String() == name {
			return a, nil
		}
		names = append(names, a.String())
	}
	return 0, fmt.Errorf("%q: must be one of %s", name, strings.Join(names, ", "))
}

// checkConflict refuses an expected conflict that no plan can have, so
// that a misspelt reason is a bad suite rather than a case that can only
// fail: it must be one of the reasons given, or "" (none).
func checkConflict(want *string, reasons ...string) error {
	if want == nil || *want == "" || slices.Contains(reasons, *want) {
		return nil
	}
	return fmt.Errorf("%q: must be %s or \"\" (none)", *want, strings.Join(reasons, ", "))
}

// resolve returns p relative to the suite's directory, or p when it is
// absolute.
func (s *Suite) resolve(p string) string {
	p = filepath.FromSlash(p)
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(s.dir, p)
}

// Name returns the suite's metadata.name, or its file when it has none.
func (s *Suite) Name() string {
	if s.doc.Metadata.Name != "" {
		return s.doc.Metadata.Name
	}
	return s.path
}

// parseObject reads "Namespace/name" or "Kind/namespace/name" (a kind
// other than Namespace is an ExternalArtifact's, or any kind the inventory
// holds, compared by kind, namespace and name).
func parseObject(s string) (inventory.ID, error) {
	parts := strings.Split(s, "/")
	switch {
	case len(parts) == 2 && parts[0] == inventory.KindNamespace && parts[1] != "":
		return inventory.ID{Kind: parts[0], Name: parts[1]}, nil
	case len(parts) == 3 && parts[0] != "" && parts[0] != inventory.KindNamespace && parts[1] != "" && parts[2] != "":
		return inventory.ID{Kind: parts[0], Namespace: parts[1], Name: parts[2]}, nil
	}
	return inventory.ID{}, fmt.Errorf("%q: must be Namespace/NAME or KIND/NAMESPACE/NAME", s)
}

func readBounded(file string) ([]byte, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxFileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	if len(data) > maxFileBytes {
		return nil, fmt.Errorf("%s: must be no larger than %d bytes", file, maxFileBytes)
	}
	return data, nil
}

// readDir copies dir into memory, bounded. A symbolic link in dir is an
// error: the suite's world is what it says, not what a link points to.
func readDir(dir string) (map[string]string, error) {
	m := map[string]string{}
	if dir != "" {
		var total int64
		root := os.DirFS(dir)
		err := fs.WalkDir(root, ".", func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			switch {
			case d.IsDir():
				return nil
			case !d.Type().IsRegular():
				return fmt.Errorf("%s: must be a regular file or a directory", p)
			}
			if len(m) >= maxSourceFiles {
				return fmt.Errorf("must hold no more than %d files", maxSourceFiles)
			}
			data, err := fs.ReadFile(root, p)
			if err != nil {
				return err
			}
			if total += int64(len(data)); total > maxSourceBytes {
				return fmt.Errorf("must hold no more than %d bytes", maxSourceBytes)
			}
			m[p] = string(data)
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("source %s: %w", dir, err)
		}
	}
	return m, nil
}

// overlay returns base without the removed paths (files or directories),
// with files laid over it, as an in-memory fs.FS; base is not modified.
func overlay(base map[string]string, remove []string, files map[string]string) (fs.FS, error) {
	m := make(map[string]string, len(base)+len(files))
	for p, content := range base {
		if !removed(p, remove) {
			m[p] = content
		}
	}
	for p, content := range files {
		clean := path.Clean(p)
		if !fs.ValidPath(clean) || clean == "." {
			return nil, fmt.Errorf("files[%s]: must be a relative slash-separated path without ..", p)
		}
		m[clean] = content
	}
	return mapFS(m), nil
}

func removed(p string, remove []string) bool {
	for _, r := range remove {
		r = path.Clean(r)
		if p == r || strings.HasPrefix(p, r+"/") {
			return true
		}
	}
	return false
}
