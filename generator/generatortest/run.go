package generatortest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"regexp"
	"slices"
	"strings"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/tenantkit/tenantkit/generator"
	"github.com/tenantkit/tenantkit/inventory"
)

func mapFS(m map[string]string) fs.FS {
	fsys := fstest.MapFS{}
	for p, c := range m {
		fsys[p] = &fstest.MapFile{Data: []byte(c), Mode: 0o444}
	}
	return fsys
}

// Options select and shape a run. The zero value runs every case.
type Options struct {
	// Run, when set, selects the cases whose name it matches.
	Run *regexp.Regexp
}

// Result is the outcome of a run: one CaseResult per selected case, in the
// suite's order, and what the cases exercised of the generator's policies.
type Result struct {
	Cases []CaseResult `json:"cases"`
	// Coverage lists the generator's policies in the spec's order, each
	// with the number of cases whose plan exercised it (see CoverageItem).
	Coverage []CoverageItem `json:"coverage,omitempty"`
}

// Passed reports whether every case passed.
func (r Result) Passed() bool {
	for _, c := range r.Cases {
		if !c.Passed() {
			return false
		}
	}
	return true
}

// CaseResult is the outcome of one case: no failures is a pass.
type CaseResult struct {
	Suite    string    `json:"suite"`
	Case     string    `json:"case"`
	Failures []Failure `json:"failures,omitempty"`
	// Assumptions are what the case's plan assumed for want of an input:
	// NoCluster for a case without cluster.
	Assumptions []string `json:"assumptions,omitempty"`
}

// NoCluster is the assumption of a case without cluster, in the words of
// the preview tool's (examples/plan) without -cluster: the same live state
// is assumed ([AsApplied]), and said alike.
const NoCluster = "no live cluster given (cluster:): " + Assumed

// Passed reports whether the case has no failures.
func (c CaseResult) Passed() bool { return len(c.Failures) == 0 }

// Failure is one expectation the plan did not meet: where in the suite it
// is, what it expected and what the plan gave.
type Failure struct {
	Where    string `json:"where"`
	Expected string `json:"expected"`
	Got      string `json:"got"`
}

// Run plans each selected case and checks its expectations. A case without
// expectations fails, and so does an expectation naming an object, a
// namespace or an artifact that the plan never mentions. A case whose world
// cannot be built (a source that cannot be read) fails with that error; a
// spec that does not compile is a plan with those errors, which the case
// may expect. Run returns early only when ctx is done, with the cases run so
// far. The suite is not modified: a Suite may be run concurrently.
func (s *Suite) Run(ctx context.Context, opts Options) Result {
	var res Result
	// Compiling the spec and reading the source directory are most of a
	// sample case's time (BenchmarkRunSample; docs/performance.md has the
	// figures): a run compiles once per distinct options and reads each
	// directory once.
	r := &runner{suite: s, compiled: map[optionsDoc]compiled{}, sources: map[string]sourceRead{}}
	items := coverageItems(&s.manifest.Spec)
	for _, it := range items {
		res.Coverage = append(res.Coverage, CoverageItem{Generator: s.generator, Path: it.path})
	}
	r.checked = func(e expectDoc, p *generator.Plan) {
		for i, it := range items {
			if it.checkedBy(e, p) {
				res.Coverage[i].Cases++
			}
		}
	}
	for i, c := range s.doc.Cases {
		if opts.Run != nil && !opts.Run.MatchString(c.Name) {
			continue
		}
		if ctx.Err() != nil {
			break
		}
		cr := CaseResult{Suite: s.Name(), Case: c.Name}
		cr.Failures = r.runCase(ctx, i, c)
		if c.Cluster == nil {
			cr.Assumptions = []string{NoCluster}
		}
		res.Cases = append(res.Cases, cr)
	}
	return res
}

// runner holds what one Run shares between its cases.
type runner struct {
	suite    *Suite
	compiled map[optionsDoc]compiled
	sources  map[string]sourceRead
	// checked counts the policies a case checks.
	checked func(expectDoc, *generator.Plan)
}

type compiled struct {
	g    *generator.Generator
	errs field.ErrorList
}

type sourceRead struct {
	files map[string]string
	err   error
}

func (r *runner) runCase(ctx context.Context, i int, c caseDoc) []Failure {
	where := fmt.Sprintf("cases[%d]", i)
	if c.Expect.empty() {
		return []Failure{{Where: where + ".expect", Expected: "at least one expectation", Got: "none"}}
	}
	plan, err := r.planCase(ctx, c)
	if err != nil {
		var se *sourceError
		if errors.As(err, &se) {
			return []Failure{{Where: where + ".source", Expected: "a readable source", Got: se.err.Error()}}
		}
		return []Failure{{Where: where, Expected: "a plan", Got: err.Error()}}
	}
	r.checked(c.Expect, plan)
	return check(where+".expect", c.Expect, plan)
}

// sourceError is a case's source that cannot be read.
type sourceError struct{ err error }

func (e *sourceError) Error() string { return e.err.Error() }

// planCase builds a case's world and plans it.
func (r *runner) planCase(ctx context.Context, c caseDoc) (*generator.Plan, error) {
	s := r.suite
	dir := c.Source
	if dir == "" {
		dir = s.doc.Source
	}
	if dir != "" {
		dir = s.resolve(dir)
	}
	read, ok := r.sources[dir]
	if !ok {
		read.files, read.err = readDir(dir)
		r.sources[dir] = read
	}
	if read.err != nil {
		return nil, &sourceError{read.err}
	}
	src, err := overlay(read.files, c.Remove, c.Files)
	if err != nil {
		return nil, &sourceError{err}
	}
	cg, ok := r.compiled[c.Options]
	if !ok {
		cg.g, cg.errs = s.compile(c.Options)
		r.compiled[c.Options] = cg
	}
	if len(cg.errs) > 0 {
		return &generator.Plan{Errors: cg.errs}, nil
	}
	sources := map[string]fs.FS{s.alias: src}
	live := newCluster(c.Cluster)
	if c.Cluster == nil {
		// Without cluster, every object is taken to exist as this
		// generator applies it, as the preview tool takes it without
		// -cluster.
		live = AsApplied()
	}
	return cg.g.Plan(ctx, sources, c.Inventory, live.Generator())
}

func (s *Suite) compile(o optionsDoc) (*generator.Generator, field.ErrorList) {
	m := s.manifest
	gopts := []generator.Option{generator.WithNamespace(m.Metadata.Namespace), generator.WithFileLists()}
	if m.Metadata.UID != "" {
		gopts = append(gopts, generator.WithUID(m.Metadata.UID))
	}
	if o.DefaultServiceAccount != "" {
		gopts = append(gopts, generator.WithDefaultServiceAccount(o.DefaultServiceAccount))
	}
	if o.AllowDeleteAll {
		gopts = append(gopts, generator.WithAllowDeleteAll())
	}
	if o.Strict {
		gopts = append(gopts, generator.WithStrict())
	}
	return generator.Compile(m.Spec, gopts...)
}

// check compares a plan with a case's expectations, in the order of the
// suite, so that the failures are deterministic.
func check(where string, e expectDoc, p *generator.Plan) []Failure {
	var fs []Failure
	fail := func(w, expected, got string) { fs = append(fs, Failure{Where: w, Expected: expected, Got: got}) }
	decisions := map[inventory.ID]inventory.Decision{}
	for _, d := range p.Decisions {
		id := d.Entry.ID()
		decisions[inventory.ID{Kind: id.Kind, Namespace: id.Namespace, Name: id.Name}] = d
	}
	for i, oe := range e.Objects {
		w := fmt.Sprintf("%s.objects[%d] (%s)", where, i, oe.Object)
		id, _ := parseObject(oe.Object) // LoadSuite checked it
		d, ok := decisions[id]
		if !ok {
			fail(w, "a decision", "the plan does not mention it")
			continue
		}
		if oe.Action != 0 && d.Action != oe.Action {
			fail(w+".action", oe.Action.String(), describe(d))
		}
		if oe.Reason != "" && !strings.Contains(d.Reason, oe.Reason) {
			fail(w+".reason", fmt.Sprintf("reason containing %q", oe.Reason), describe(d))
		}
	}
	for i, ne := range e.Namespaces {
		w := fmt.Sprintf("%s.namespaces[%d] (%s)", where, i, ne.Name)
		idx := slices.IndexFunc(p.Namespaces, func(n generator.Namespace) bool { return n.Name == ne.Name })
		if idx < 0 {
			fail(w, "a namespace to apply", "the plan does not apply it")
			continue
		}
		n := p.Namespaces[idx]
		checkMap(w+".labels", ne.Labels, n.Labels, ne.Exact, fail)
		checkMap(w+".annotations", ne.Annotations, n.Annotations, ne.Exact, fail)
		checkMap(w+".origin.labels", ne.Origin.Labels, n.Origin.Labels, false, fail)
		checkMap(w+".origin.annotations", ne.Origin.Annotations, n.Origin.Annotations, false, fail)
		checkConflictOf(w+".conflict", ne.Conflict, n.Conflict, fail)
	}
	for i, ae := range e.Artifacts {
		w := fmt.Sprintf("%s.artifacts[%d] (%s)", where, i, ae.Artifact)
		idx := slices.IndexFunc(p.Artifacts, func(a generator.Artifact) bool { return a.Namespace+"/"+a.Name == ae.Artifact })
		if idx < 0 {
			fail(w, "an artifact to apply", "the plan does not apply it")
			continue
		}
		a := p.Artifacts[idx]
		// A plan's inputs read back as they are written.
		inputs, _ := generator.ReadExportedInputs(a.Inputs)
		if ae.NoInputs && len(inputs) > 0 {
			fail(w+".inputs", "no inputs", inputsString(inputs))
		}
		for _, k := range slices.Sorted(maps.Keys(ae.Inputs)) {
			got, ok := inputs[k]
			if !ok {
				fail(w+".inputs["+k+"]", compact(ae.Inputs[k]), "absent")
				continue
			}
			if !jsonEqual(ae.Inputs[k], got) {
				fail(w+".inputs["+k+"]", compact(ae.Inputs[k]), compact(got))
			}
		}
		checkConflictOf(w+".conflict", ae.Conflict, a.Conflict, fail)
		if ae.Files != nil {
			var got []string
			for _, f := range a.Files {
				got = append(got, f.Path)
			}
			want := slices.Sorted(slices.Values(ae.Files))
			slices.Sort(got)
			if !slices.Equal(want, got) {
				fail(w+".files", strings.Join(want, ", "), strings.Join(got, ", "))
			}
		}
	}
	errText := func() string {
		if len(p.Errors) == 0 {
			return "no errors"
		}
		var s []string
		for _, err := range p.Errors {
			s = append(s, err.Error())
		}
		if p.Refused != nil && p.Refused.Max < 0 {
			s = append(s, "options.allowDeleteAll: true allows the deletions")
		}
		return strings.Join(s, " | ")
	}
	if e.NoErrors && len(p.Errors) > 0 {
		fail(where+".noErrors", "no errors", errText())
	}
	for i, ee := range e.Errors {
		if !slices.ContainsFunc(p.Errors, func(err *field.Error) bool { return matchesError(ee, err) }) {
			want := fmt.Sprintf("an error containing %q", ee.Contains)
			if ee.Field != "" {
				want = fmt.Sprintf("an error at %s containing %q", ee.Field, ee.Contains)
			}
			fail(fmt.Sprintf("%s.errors[%d]", where, i), want, errText())
		}
	}
	for i, we := range e.Warnings {
		if !slices.ContainsFunc(p.Warnings, func(w string) bool { return strings.Contains(w, we) }) {
			got := "no warnings"
			if len(p.Warnings) > 0 {
				got = strings.Join(p.Warnings, " | ")
			}
			fail(fmt.Sprintf("%s.warnings[%d]", where, i), fmt.Sprintf("a warning containing %q", we), got)
		}
	}
	if e.Refused != "" {
		if !slices.ContainsFunc(p.Errors, func(err *field.Error) bool {
			return err.Type == field.ErrorTypeForbidden && err.Field == "spec" && strings.Contains(err.Detail, e.Refused)
		}) {
			fail(where+".refused", fmt.Sprintf("the deletions refused, containing %q", e.Refused), errText())
		}
	}
	return fs
}

// matchesError reports whether err meets the expectation.
func matchesError(ee errorExpect, err *field.Error) bool {
	return (ee.Field == "" || err.Field == ee.Field) && strings.Contains(err.Error(), ee.Contains)
}

func describe(d inventory.Decision) string {
	if d.Reason == "" {
		return d.Action.String() + ", no reason"
	}
	return d.Action.String() + ": " + d.Reason
}

func checkMap(w string, want, got map[string]string, exact bool, fail func(w, expected, got string)) {
	if exact {
		if !maps.Equal(want, got) && !(len(want) == 0 && len(got) == 0) {
			fail(w, mapString(want), mapString(got))
		}
		return
	}
	for _, k := range slices.Sorted(maps.Keys(want)) {
		g, ok := got[k]
		switch {
		case !ok:
			fail(w+"["+k+"]", want[k], "absent")
		case g != want[k]:
			fail(w+"["+k+"]", want[k], g)
		}
	}
}

// checkConflictOf compares an object's conflict with the expected one,
// when the case sets it: exactly, "" meaning none.
func checkConflictOf(w string, want *string, got string, fail func(w, expected, got string)) {
	if want != nil && *want != got {
		fail(w, conflictString(*want), conflictString(got))
	}
}

func conflictString(c string) string {
	if c == "" {
		return "no conflict"
	}
	return c
}

func mapString(m map[string]string) string {
	if len(m) == 0 {
		return "{}"
	}
	var s []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		s = append(s, k+"="+m[k])
	}
	return "{" + strings.Join(s, ", ") + "}"
}

func inputsString(m map[string]json.RawMessage) string {
	var s []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		s = append(s, k+"="+compact(m[k]))
	}
	return strings.Join(s, ", ")
}

func compact(r json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, r) != nil {
		return string(r)
	}
	return b.String()
}

func jsonEqual(a, b json.RawMessage) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return bytes.Equal(a, b)
	}
	return cmp.Equal(x, y)
}

// newCluster holds a case's live state: namespaces and ExternalArtifacts
// with their metadata, and the objects that external finalizers point to.
// An object listed twice is the last one listed.
func newCluster(d *clusterDoc) *Cluster {
	c := &Cluster{}
	if d == nil {
		return c
	}
	add := func(id inventory.ID, o liveDoc) {
		c.Set(generator.Object{ID: id, Labels: o.Labels, Annotations: o.Annotations}, o.UID)
	}
	for _, n := range d.Namespaces {
		add(inventory.ID{Kind: inventory.KindNamespace, Name: n.Name}, n)
	}
	for _, a := range d.Artifacts {
		add(inventory.ID{Group: inventory.GroupSource, Kind: inventory.KindExternalArtifact, Namespace: a.Namespace, Name: a.Name}, a)
	}
	for _, o := range d.Objects {
		add(inventory.ID{Group: schema.FromAPIVersionAndKind(o.APIVersion, o.Kind).Group, Kind: o.Kind, Namespace: o.Namespace, Name: o.Name}, o)
	}
	return c
}
