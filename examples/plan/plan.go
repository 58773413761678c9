package main

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/opencontainers/go-digest"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/tenantkit/tenantkit/cel"
	"github.com/tenantkit/tenantkit/finalizer"
	"github.com/tenantkit/tenantkit/inventory"
	"github.com/tenantkit/tenantkit/nsmeta"
	"github.com/tenantkit/tenantkit/pathpattern"
)

const (
	// pruneAnnotation set to "disabled" on a live object makes the plan
	// release it instead of deleting it, as Flux's prune annotations do.
	pruneAnnotation = "source.extensions.fluxcd.io/prune"
	pruneDisabled   = "disabled"

	// generatorLabel carries the generator's UID on every namespace it
	// manages: the Final step of the metadata pipeline, which nothing can
	// override.
	generatorLabel = "source.extensions.fluxcd.io/generator"

	// maxInputsBytes bounds an inputsFrom file (tenant-controlled).
	maxInputsBytes = 1 << 20
	// maxManifestFileBytes bounds each file an artifact copies: large enough
	// for a CustomResourceDefinition, small enough that a tenant cannot make
	// the preview (or the controller) hash a disk image.
	maxManifestFileBytes = 8 << 20

	namespaceAPIVersion = "v1"
	artifactAPIVersion  = "source.toolkit.fluxcd.io/v1"
	artifactKind        = "ExternalArtifact"
	artifactPrefix      = "@artifact/"

	reasonDesiredErrors = "desired state has errors"
)

// request is everything one plan reads.
type request struct {
	generator             *generator
	sources               map[string]fs.FS // by alias
	previous              []inventory.Entry
	cluster               *cluster // nil: nothing is known about live objects
	defaultServiceAccount string
	celCache              *cel.Cache // shared across plans; nil compiles afresh
}

// planResult is the plan, in the shape of the JSON output (DESIGN.md,
// "examples/plan").
type planResult struct {
	Namespaces []planNamespace  `json:"namespaces"`
	Artifacts  []planArtifact   `json:"artifacts"`
	Inventory  []inventoryItem  `json:"inventory"`
	Changes    []planChange     `json:"changes"`
	Warnings   []string         `json:"warnings"`
	Errors     []planFieldError `json:"errors"`

	// origins records, per namespace, which pipeline step set each key; the
	// text output shows it.
	origins map[string]nsmeta.Metadata
}

type planNamespace struct {
	Name        string            `json:"name"`
	Labels      map[string]string `json:"labels"`
	Annotations map[string]string `json:"annotations"`
	Digest      digest.Digest     `json:"digest"`
}

type planArtifact struct {
	Name      string                     `json:"name"`
	Namespace string                     `json:"namespace"`
	Path      string                     `json:"path"`
	Captures  map[string]string          `json:"captures"`
	Labels    map[string]string          `json:"labels"`
	Inputs    map[string]json.RawMessage `json:"inputs"`
	Files     []string                   `json:"files"`
	Digest    digest.Digest              `json:"digest"`
}

type inventoryItem struct {
	Kind      string        `json:"kind"`
	Namespace string        `json:"namespace,omitempty"`
	Name      string        `json:"name"`
	Digest    digest.Digest `json:"digest,omitempty"`
}

type planChange struct {
	Action    string `json:"action"`
	Kind      string `json:"kind"`
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name"`
	Reason    string `json:"reason,omitempty"`
}

type planFieldError struct {
	Field  string `json:"field"`
	Type   string `json:"type"`
	Value  any    `json:"value"`
	Detail string `json:"detail"`
}

// hasErrors reports whether the desired state had errors: then the plan
// deletes nothing.
func (r *planResult) hasErrors() bool { return len(r.Errors) > 0 }

// planner carries one plan's state through its steps.
type planner struct {
	ctx  context.Context
	req  request
	spec *generatorSpec
	errs field.ErrorList
	warn []string

	pattern *pathpattern.Pattern
	source  fs.FS

	// schemaFailed is set when fromSource's schema did not compile: no
	// tenant file is then read unfiltered into a namespace's metadata.
	schemaFailed bool
}

var specPath = field.NewPath("spec")

// makePlan runs the whole pipeline: validate the generator, discover,
// render, check names, build namespace metadata, read inputs, resolve
// files and digests, diff against the previous inventory and decide garbage
// collection. Problems in the desired state are collected, not returned:
// they make every stale entry a Keep. The error return is for a cancelled
// context only.
func makePlan(ctx context.Context, req request) (*planResult, error) {
	p := &planner{ctx: ctx, req: req, spec: &req.generator.Spec}
	// Each plan reads its sources through a cache of the directories it
	// has seen, which saves most of the system calls (see dirCache).
	p.req.sources = make(map[string]fs.FS, len(req.sources))
	for alias, fsys := range req.sources {
		if fsys != nil {
			p.req.sources[alias] = newDirCache(fsys)
		}
	}
	res := &planResult{origins: map[string]nsmeta.Metadata{}}

	desired := p.desired(res)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	res.Warnings = append(res.Warnings, p.warn...)
	slices.Sort(res.Warnings)
	res.Warnings = slices.Compact(res.Warnings)
	res.Errors = fieldErrors(p.errs)

	if err := p.collect(res, desired); err != nil {
		return nil, err
	}
	return res, nil
}

// desired builds the namespaces and artifacts and returns the desired
// inventory. It stops at the first step whose failure leaves nothing to
// build on (no pattern, no source).
func (p *planner) desired(res *planResult) []inventory.Entry {
	g := p.req.generator
	p.errs = append(p.errs, g.validateShape()...)

	managed := p.spec.ManagedNamespaces != nil
	if managed && p.spec.ServiceAccountName == "" && p.req.defaultServiceAccount == "" {
		p.errs = append(p.errs, field.Required(specPath.Child("serviceAccountName"),
			"managing namespaces requires spec.serviceAccountName or a default service account (-default-service-account)"))
	}

	pattern, err := pathpattern.Parse(p.spec.PathPattern)
	if err != nil {
		if p.spec.PathPattern != "" {
			p.errs = append(p.errs, field.Invalid(specPath.Child("pathPattern"), p.spec.PathPattern, err.Error()))
		}
		return nil
	}
	p.pattern = pattern
	p.source = p.sourceFor(pattern.Alias(), specPath.Child("pathPattern"), p.spec.PathPattern)
	if p.source == nil {
		return nil
	}

	arts := p.compileArtifacts()
	policy, pipeline, schema, fromSource := p.compileNamespacePolicy()
	if len(p.errs) > 0 && (arts == nil || (managed && policy == nil)) {
		return nil
	}

	matches, errs, err := pattern.Discover(p.source, specPath.Child("pathPattern"))
	if errors.Is(err, pathpattern.ErrSourceShape) {
		p.errs = append(p.errs, field.Invalid(specPath.Child("pathPattern"), p.spec.PathPattern, err.Error()))
		return nil
	} else if err != nil {
		p.errs = append(p.errs, field.InternalError(specPath.Child("pathPattern"), err))
		return nil
	}
	p.errs = append(p.errs, errs...)

	// Render every artifact's namespace and name, then check the names the
	// policy must allow, once per namespace.
	var rendered []renderedArtifact
	for i, a := range arts {
		out, errs := pathpattern.Render(matches, a.namespace, a.name, specPath.Child("artifacts").Index(i))
		p.errs = append(p.errs, errs...)
		for _, r := range out {
			if r.Namespace == "" {
				r.Namespace = g.Metadata.Namespace
			}
			rendered = append(rendered, renderedArtifact{Rendered: r, spec: a})
		}
	}
	rendered = slices.DeleteFunc(rendered, func(r renderedArtifact) bool { return !validRendered(r.Rendered) })

	var desired []inventory.Entry
	if managed {
		desired = append(desired, p.namespaces(res, rendered, policy, pipeline, schema, fromSource)...)
	}
	desired = append(desired, p.artifacts(res, rendered)...)
	return desired
}

// sourceFor returns the file system of an alias, which spec.sources must
// declare and -source must provide.
func (p *planner) sourceFor(alias string, fldPath *field.Path, value string) fs.FS {
	declared := slices.ContainsFunc(p.spec.Sources, func(s sourceSpec) bool { return s.Alias == alias })
	if !declared {
		p.errs = append(p.errs, field.Invalid(fldPath, value, fmt.Sprintf("alias %q must be declared in spec.sources", alias)))
		return nil
	}
	fsys := p.req.sources[alias]
	if fsys == nil {
		p.errs = append(p.errs, field.Invalid(fldPath, value, fmt.Sprintf("alias %q has no source directory (-source %s=DIR)", alias, alias)))
	}
	return fsys
}

// compiledArtifact holds the bound templates of one spec.artifacts entry.
type compiledArtifact struct {
	index     int
	spec      *artifactSpec
	name      *pathpattern.Template
	namespace *pathpattern.Template // nil: the generator's namespace
	inputs    *pathpattern.Template // nil: no inputs
	copies    []compiledCopy
}

type compiledCopy struct {
	from    *pathpattern.Template
	to      string
	exclude []string
}

type renderedArtifact struct {
	pathpattern.Rendered
	spec compiledArtifact
}

// compileArtifacts binds every template of every artifact to the pattern, so
// that a template naming an unknown capture fails before any tree is read.
func (p *planner) compileArtifacts() []compiledArtifact {
	var out []compiledArtifact
	ok := true
	bind := func(fldPath *field.Path, s string) *pathpattern.Template {
		t, err := p.pattern.Template(s)
		if err != nil {
			p.errs = append(p.errs, field.Invalid(fldPath, s, err.Error()))
			ok = false
		}
		return t
	}
	for i := range p.spec.Artifacts {
		a := &p.spec.Artifacts[i]
		ap := specPath.Child("artifacts").Index(i)
		c := compiledArtifact{index: i, spec: a, name: bind(ap.Child("name"), a.Name)}
		if a.Namespace != "" {
			c.namespace = bind(ap.Child("namespace"), a.Namespace)
		}
		if a.InputsFrom != "" {
			c.inputs = bind(ap.Child("inputsFrom"), a.InputsFrom)
		}
		for j, cp := range a.Copy {
			cpp := ap.Child("copy").Index(j)
			if !strings.HasPrefix(cp.To, artifactPrefix) && cp.To != strings.TrimSuffix(artifactPrefix, "/") {
				p.errs = append(p.errs, field.Invalid(cpp.Child("to"), cp.To, `must start with "@artifact/"`))
				ok = false
			}
			to := strings.TrimPrefix(strings.TrimPrefix(cp.To, strings.TrimSuffix(artifactPrefix, "/")), "/")
			if to != "" && !fs.ValidPath(strings.TrimSuffix(to, "/")) {
				p.errs = append(p.errs, field.Invalid(cpp.Child("to"), cp.To, "must be a clean relative path below @artifact/"))
				ok = false
			}
			c.copies = append(c.copies, compiledCopy{from: bind(cpp.Child("from"), cp.From), to: to, exclude: cp.Exclude})
		}
		if c.namespace != nil {
			for _, w := range p.pattern.Warnings(c.namespace) {
				p.warn = append(p.warn, fmt.Sprintf("spec.pathPattern: %s", w))
			}
		} else {
			for _, w := range p.pattern.Warnings(nil) {
				p.warn = append(p.warn, fmt.Sprintf("spec.pathPattern: %s", w))
			}
		}
		out = append(out, c)
	}
	if !ok {
		return nil
	}
	return out
}

// compileNamespacePolicy compiles the name policy, the metadata pipeline and
// the schema of spec.managedNamespaces. The pipeline is nil when it has
// errors.
func (p *planner) compileNamespacePolicy() (*nsmeta.NamePolicy, *nsmeta.Pipeline, *nsmeta.Schema, *pathpattern.Template) {
	m := p.spec.ManagedNamespaces
	var steps []nsmeta.PipelineOption
	if cm := p.spec.CommonMetadata; cm != nil {
		steps = append(steps, nsmeta.WithCommon(nsmeta.Metadata{Labels: cm.Labels, Annotations: cm.Annotations}, specPath.Child("commonMetadata")))
	}
	if m == nil {
		pipeline, errs := nsmeta.NewPipeline(steps...)
		p.errs = append(p.errs, errs...)
		return nil, pipeline, nil, nil
	}
	mp := specPath.Child("managedNamespaces")
	var policyOpts []nsmeta.NamePolicyOption
	var schemaOpts []nsmeta.SchemaOption
	if p.req.celCache != nil {
		policyOpts = append(policyOpts, nsmeta.WithNamePolicyCache(p.req.celCache))
		schemaOpts = append(schemaOpts, nsmeta.WithSchemaCache(p.req.celCache))
	}
	if ns := p.req.generator.Metadata.Namespace; ns != "" {
		policyOpts = append(policyOpts, nsmeta.WithProtectedNames(ns))
	}
	policy, errs := nsmeta.NewNamePolicy(m.AllowedNames, mp, policyOpts...)
	p.errs = append(p.errs, errs...)
	if uid := p.req.generator.Metadata.UID; uid != "" {
		steps = append(steps, nsmeta.WithFinal(nsmeta.Metadata{Labels: map[string]string{generatorLabel: uid}}, field.NewPath("metadata", "uid")))
	}
	var schema *nsmeta.Schema
	var fromSource *pathpattern.Template
	if md := m.Metadata; md != nil {
		var ops []nsmeta.Operation
		for _, op := range md.From {
			ops = append(ops, nsmeta.Operation{
				Strategy:  nsmeta.Strategy(op.Strategy),
				Namespace: op.Namespace,
				Metadata:  nsmeta.Metadata{Labels: op.Labels, Annotations: op.Annotations},
			})
		}
		steps = append(steps, nsmeta.WithOperations(ops, mp.Child("metadata", "from")))
		if fsrc := md.FromSource; fsrc != nil {
			fp := mp.Child("metadata", "fromSource")
			var errs field.ErrorList
			schema, errs = nsmeta.CompileSchema(fsrc.AllowedLabels, fsrc.AllowedAnnotations, fp, schemaOpts...)
			if errs != nil {
				p.errs = append(p.errs, errs...)
				p.schemaFailed = true
			}
			if fsrc.Path != "" {
				t, err := p.pattern.Template(fsrc.Path)
				if err != nil {
					p.errs = append(p.errs, field.Invalid(fp.Child("path"), fsrc.Path, err.Error()))
				}
				fromSource = t
			}
		}
	}
	pipeline, errs := nsmeta.NewPipeline(steps...)
	p.errs = append(p.errs, errs...)
	return policy, pipeline, schema, fromSource
}

// namespaces checks each namespace against the policy and builds its
// metadata, once per namespace, and returns their inventory entries.
//
// Namespaces are independent of each other, and reading a namespace's
// metadata file is I/O: they are built in parallel (see parallel), each
// with its own errors and warnings, which are merged in namespace order.
func (p *planner) namespaces(res *planResult, rendered []renderedArtifact, policy *nsmeta.NamePolicy, pipeline *nsmeta.Pipeline, schema *nsmeta.Schema, fromSource *pathpattern.Template) []inventory.Entry {
	if policy == nil || pipeline == nil {
		return nil
	}
	// The first artifact, in path order, that renders a namespace provides
	// the captures for its metadata file.
	byNS := map[string][]renderedArtifact{}
	for _, r := range rendered {
		byNS[r.Namespace] = append(byNS[r.Namespace], r)
	}
	names := slices.Sorted(maps.Keys(byNS))

	type built struct {
		q      *planner // nil: not built, the context ended
		ns     *planNamespace
		origin nsmeta.Metadata
	}
	out := make([]built, len(names))
	parallel(p.ctx, len(names), func(i int) {
		q := p.fork()
		out[i].q = q
		ns := names[i]
		users := byNS[ns]
		first := users[0]
		nsPath := specPath.Child("artifacts").Index(first.spec.index).Child("namespace")
		if err := policy.Check(q.ctx, ns); err != nil {
			q.errs = append(q.errs, field.Invalid(nsPath, ns, fmt.Sprintf("rendered from directory %q: %v", first.Path, err)))
			return
		}
		fromFile, ok := q.namespaceFile(ns, users, schema, fromSource)
		if !ok {
			return
		}
		r, errs := pipeline.Resolve(ns, fromFile)
		if errs != nil {
			for _, e := range errs {
				q.errs = append(q.errs, prefixed("namespace "+ns, e))
			}
			return
		}
		if err := finalizer.CheckDesired(r.Annotations); err != nil {
			q.errs = append(q.errs, field.Forbidden(specPath.Child("managedNamespaces", "metadata"), fmt.Sprintf("namespace %q: %v", ns, err)))
			return
		}
		out[i].ns = &planNamespace{Name: ns, Labels: r.Labels, Annotations: r.Annotations, Digest: nsmeta.Digest(r.Metadata)}
		out[i].origin = r.Origin
	})

	var entries []inventory.Entry
	for _, b := range out {
		if b.q == nil {
			continue
		}
		p.merge(b.q)
		if b.ns == nil {
			continue
		}
		res.Namespaces = append(res.Namespaces, *b.ns)
		res.origins[b.ns.Name] = b.origin
		entries = append(entries, inventory.Entry{APIVersion: namespaceAPIVersion, Kind: "Namespace", Name: b.ns.Name, Digest: b.ns.Digest})
	}
	return entries
}

// namespaceFile reads, parses and checks a namespace's NamespaceMetadata
// file. A namespace without the file asks for nothing. ok is false when the
// file had errors.
func (p *planner) namespaceFile(ns string, users []renderedArtifact, schema *nsmeta.Schema, fromSource *pathpattern.Template) (nsmeta.Metadata, bool) {
	if p.schemaFailed {
		return nsmeta.Metadata{}, false // reported once, where the schema is
	}
	if fromSource == nil {
		return nsmeta.Metadata{}, true
	}
	fp := specPath.Child("managedNamespaces", "metadata", "fromSource", "path")
	// Every directory of the namespace must name the same file, or which
	// file holds the namespace's metadata would depend on the order of
	// directories.
	ref, err := p.expandRef(fromSource, users[0].Raw)
	if err != nil {
		p.errs = append(p.errs, field.Invalid(fp, fromSource.String(), fmt.Sprintf("rendered from directory %q: %v", users[0].Path, err)))
		return nsmeta.Metadata{}, false
	}
	for _, u := range users[1:] {
		other, err := p.expandRef(fromSource, u.Raw)
		if err == nil && other != ref {
			p.errs = append(p.errs, field.Invalid(fp, fromSource.String(), fmt.Sprintf(
				"namespace %q gets its metadata from two files: %q (directory %q) and %q (directory %q)", ns, ref, users[0].Path, other, u.Path)))
			return nsmeta.Metadata{}, false
		}
	}
	fsys := p.sourceFor(ref.Alias, fp, ref.String())
	if fsys == nil {
		return nsmeta.Metadata{}, false
	}
	data, err := pathpattern.ReadFile(fsys, ref.Path, nsmeta.MaxFileSize)
	if errors.Is(err, fs.ErrNotExist) {
		return nsmeta.Metadata{}, true
	}
	if err != nil {
		p.errs = append(p.errs, field.Invalid(fp, ref.String(), err.Error()))
		return nsmeta.Metadata{}, false
	}
	md, errs, err := nsmeta.ParseFile(data)
	if err != nil || errs != nil {
		p.fileErrors(ref.String(), errs, err)
		return nsmeta.Metadata{}, false
	}
	if schema == nil {
		return md, true
	}
	kept, warnings, errs := schema.Apply(p.ctx, md)
	for _, w := range warnings {
		p.warn = append(p.warn, ref.String()+": "+w)
	}
	if len(errs) > 0 {
		for _, e := range errs {
			p.errs = append(p.errs, prefixed(ref.String(), e))
		}
		return nsmeta.Metadata{}, false
	}
	return kept, true
}

// fileErrors records the errors of a tenant's file, each field path prefixed
// with the file.
func (p *planner) fileErrors(file string, errs field.ErrorList, err error) {
	for _, e := range errs {
		p.errs = append(p.errs, prefixed(file, e))
	}
	if err != nil {
		p.errs = append(p.errs, &field.Error{Type: field.ErrorTypeInvalid, Field: file, BadValue: field.OmitValueType{}, Detail: err.Error()})
	}
}

func prefixed(file string, e *field.Error) *field.Error {
	c := *e
	c.Field = file + ":" + e.Field
	return &c
}

// expandRef expands a path template from raw captures and parses the
// result as an @alias/path reference.
func (p *planner) expandRef(t *pathpattern.Template, raw pathpattern.Captures) (pathpattern.Ref, error) {
	s, err := t.Expand(raw)
	if err != nil {
		return pathpattern.Ref{}, err
	}
	return pathpattern.ParseRef(s)
}

// artifacts builds each artifact: labels, inputs, files and digest.
//
// Reading inputs, selecting files and reading and hashing them is most of
// the work of a plan, and each artifact's is independent of the others':
// they are built in parallel (see parallel), each with its own errors and
// warnings, which are merged in artifact order, so that the plan is the
// same as a serial one. An artifact's digest is computed from its own files
// in sorted order.
func (p *planner) artifacts(res *planResult, rendered []renderedArtifact) []inventory.Entry {
	var common map[string]string
	if cm := p.spec.CommonMetadata; cm != nil {
		common = cm.Labels
	}
	type built struct {
		q        *planner      // nil: not built, the context ended
		a        *planArtifact // nil: its inputs or files had errors
		digest   digest.Digest
		readErrs field.ErrorList
	}
	out := make([]built, len(rendered))
	parallel(p.ctx, len(rendered), func(i int) {
		q := p.fork()
		out[i].q = q
		r := rendered[i]
		defer q.viewSource(r.Path)()
		ap := specPath.Child("artifacts").Index(r.spec.index)
		labels := maps.Clone(common)
		if labels == nil {
			labels = map[string]string{}
		}
		maps.Copy(labels, r.Normalized)
		a := &planArtifact{
			Name: r.Name, Namespace: r.Namespace, Path: r.Path,
			Captures: r.Raw, Labels: labels, Inputs: map[string]json.RawMessage{},
		}
		ok := true
		if r.spec.inputs != nil {
			ok = q.readInputs(a, r, ap.Child("inputsFrom"))
		}
		files, filesOK := q.selectFiles(r, ap.Child("copy"))
		if !ok || !filesOK {
			return
		}
		out[i].a = a
		out[i].digest, out[i].readErrs = q.digestFiles(files, ap.Child("copy"))
		for _, f := range files {
			a.Files = append(a.Files, f.dest)
		}
	})
	for _, b := range out {
		if b.q != nil {
			p.merge(b.q)
		}
	}

	var entries []inventory.Entry
	seen := map[[2]string]renderedArtifact{} // Render checks one spec.artifacts entry; this checks across them
	for i, b := range out {
		a := b.a
		if a == nil {
			continue
		}
		key := [2]string{a.Namespace, a.Name}
		if first, dup := seen[key]; dup {
			if first.spec.index == rendered[i].spec.index {
				continue // Render reported it
			}
			e := field.Duplicate(specPath.Child("artifacts").Index(rendered[i].spec.index).Child("name"), a.Name)
			e.Detail = fmt.Sprintf("directories %q (spec.artifacts[%d]) and %q (spec.artifacts[%d]) render the same namespace %q and name %q",
				first.Path, first.spec.index, rendered[i].Path, rendered[i].spec.index, a.Namespace, a.Name)
			p.errs = append(p.errs, e)
			continue
		}
		seen[key] = rendered[i]
		if len(b.readErrs) > 0 {
			p.errs = append(p.errs, b.readErrs...)
			continue
		}
		a.Digest = b.digest
		res.Artifacts = append(res.Artifacts, *a)
		entries = append(entries, inventory.Entry{APIVersion: artifactAPIVersion, Kind: artifactKind, Namespace: a.Namespace, Name: a.Name, Digest: a.Digest})
	}
	return entries
}

// parallel calls f(i) for every i in [0, n) on at most GOMAXPROCS
// goroutines, so that the work uses every core and no more, and returns
// when every call has. Each call must write only its own results, which the
// caller then reads in index order: the output does not depend on the
// scheduling. Once ctx is done, the calls not yet started are skipped.
func parallel(ctx context.Context, n int, f func(i int)) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), n) {
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= n || ctx.Err() != nil {
					return
				}
				f(i)
			}
		})
	}
	wg.Wait()
}

// fork returns a planner for one task of a parallel step: it shares what
// is read-only with p and collects its own errors and warnings, which the
// step merges into p in task order.
func (p *planner) fork() *planner {
	q := *p
	q.errs, q.warn = nil, nil
	return &q
}

// viewSource makes p read the source of the pattern's alias through a view
// of dir, the directory of the task's match (see dirView), and returns the
// function that closes the view.
func (p *planner) viewSource(dir string) (done func()) {
	alias := p.pattern.Alias()
	c, ok := p.req.sources[alias].(*dirCache)
	if !ok {
		return func() {}
	}
	v, done := c.view(dir)
	p.req.sources = maps.Clone(p.req.sources)
	p.req.sources[alias] = v
	return done
}

// merge appends the errors and warnings of a forked planner to p's.
func (p *planner) merge(q *planner) {
	p.errs = append(p.errs, q.errs...)
	p.warn = append(p.warn, q.warn...)
}

// readInputs reads an artifact's inputsFrom file: a YAML mapping whose
// values become JSON. A missing file gives empty inputs and a warning.
func (p *planner) readInputs(a *planArtifact, r renderedArtifact, fp *field.Path) bool {
	ref, err := p.expandRef(r.spec.inputs, r.Raw)
	if err != nil {
		p.errs = append(p.errs, field.Invalid(fp, r.spec.inputs.String(), fmt.Sprintf("rendered from directory %q: %v", r.Path, err)))
		return false
	}
	fsys := p.sourceFor(ref.Alias, fp, ref.String())
	if fsys == nil {
		return false
	}
	data, err := pathpattern.ReadFile(fsys, ref.Path, maxInputsBytes)
	if errors.Is(err, fs.ErrNotExist) {
		p.warn = append(p.warn, fmt.Sprintf("%s: inputs file not found; artifact %s/%s has no inputs", ref, a.Namespace, a.Name))
		return true
	}
	if err != nil {
		p.errs = append(p.errs, field.Invalid(fp, ref.String(), err.Error()))
		return false
	}
	inputs, err := parseInputs(data)
	if err != nil {
		p.errs = append(p.errs, field.Invalid(fp, ref.String(), err.Error()))
		return false
	}
	a.Inputs = inputs
	return true
}

// artifactFile is one file of an artifact: where it lands and where it
// comes from.
type artifactFile struct {
	dest string
	fsys fs.FS
	path string
}

// selectFiles applies an artifact's copy operations in order. A later
// operation that writes the same destination overwrites the earlier one.
func (p *planner) selectFiles(r renderedArtifact, fp *field.Path) ([]artifactFile, bool) {
	byDest := map[string]artifactFile{}
	ok := true
	for j, c := range r.spec.copies {
		cp := fp.Index(j)
		from, err := c.from.Expand(r.Raw)
		alias, pattern, found := strings.Cut(strings.TrimPrefix(from, "@"), "/")
		if err != nil || !strings.HasPrefix(from, "@") || !found {
			if err == nil {
				err = errors.New(`must be "@alias/pattern"`)
			}
			p.errs = append(p.errs, field.Invalid(cp.Child("from"), from, fmt.Sprintf("rendered from directory %q: %v", r.Path, err)))
			ok = false
			continue
		}
		fsys := p.sourceFor(alias, cp.Child("from"), from)
		if fsys == nil {
			ok = false
			continue
		}
		files, err := pathpattern.Glob(p.ctx, fsys, pattern, c.exclude...)
		if err != nil {
			p.errs = append(p.errs, field.Invalid(cp.Child("from"), from, err.Error()))
			ok = false
			continue
		}
		if len(files) == 0 {
			p.errs = append(p.errs, field.Invalid(cp.Child("from"), from, fmt.Sprintf("rendered from directory %q: selects no file", r.Path)))
			ok = false
			continue
		}
		base := globBase(pattern)
		for _, f := range files {
			byDest[destination(c.to, base, f, len(files) == 1 && base == f)] = artifactFile{fsys: fsys, path: f}
		}
	}
	out := make([]artifactFile, 0, len(byDest))
	for _, d := range slices.Sorted(maps.Keys(byDest)) {
		f := byDest[d]
		f.dest = d
		out = append(out, f)
	}
	return out, ok
}

// globBase returns the directories of pattern before its first meta
// character, or the pattern itself when it has none.
func globBase(pattern string) string {
	i := strings.IndexAny(pattern, `*?[{\`)
	if i < 0 {
		return pattern
	}
	if j := strings.LastIndexByte(pattern[:i], '/'); j >= 0 {
		return pattern[:j]
	}
	return ""
}

// destination places a copied file under @artifact/: below to, keeping its
// path relative to the copy's base directory; a single file copied to a path
// without a trailing slash takes that path.
func destination(to, base, file string, single bool) string {
	if single {
		if to == "" || strings.HasSuffix(to, "/") {
			return to + file[strings.LastIndexByte(file, '/')+1:]
		}
		return to
	}
	rel := strings.TrimPrefix(strings.TrimPrefix(file, base), "/")
	if to == "" {
		return rel
	}
	return strings.TrimSuffix(to, "/") + "/" + rel
}

// digestFiles computes an artifact's digest: sha256 over, for each file in
// destination order, its destination path, a NUL, its length in decimal, a
// NUL, and its content. The framing makes the digest unambiguous; any change
// to a path or a byte changes it.
func (p *planner) digestFiles(files []artifactFile, fp *field.Path) (digest.Digest, field.ErrorList) {
	h := sha256.New()
	var errs field.ErrorList
	for _, f := range files {
		data, err := pathpattern.ReadFile(f.fsys, f.path, maxManifestFileBytes)
		if err != nil {
			errs = append(errs, field.Invalid(fp, f.path, err.Error()))
			continue
		}
		h.Write([]byte(f.dest))
		h.Write([]byte{0})
		h.Write(strconv.AppendInt(nil, int64(len(data)), 10))
		h.Write([]byte{0})
		h.Write(data)
	}
	return digest.NewDigest(digest.SHA256, h), errs
}

// collect diffs the desired inventory against the previous one and decides
// what happens to every stale entry, then fills in the changes and the next
// inventory.
func (p *planner) collect(res *planResult, desired []inventory.Entry) error {
	changes, errs := inventory.Diff(p.req.previous, desired)
	if err := errs.ToAggregate(); err != nil {
		// The desired side was built here and is valid; the previous one
		// was checked when it was read. A duplicate across artifacts and
		// namespaces is still possible with hostile templates.
		res.Errors = append(res.Errors, planFieldError{Field: "inventory", Type: string(field.ErrorTypeInvalid), Value: "", Detail: err.Error()})
		changes, _ = inventory.Diff(p.req.previous, nil)
		desired = nil
	}
	opts := []inventory.Option{inventory.WithGuard(p.liveGuard), inventory.WithAllowDeleteAll()}
	if res.hasErrors() {
		opts = append(opts, inventory.WithKeepAll(reasonDesiredErrors))
	}
	if m := p.spec.ManagedNamespaces; m != nil && m.Prune != nil && *m.Prune {
		opts = append(opts, inventory.WithNamespacePrune())
	}
	decisions, err := inventory.Collect(p.ctx, changes.Stale, desired, opts...)
	if err != nil {
		return err
	}
	for _, d := range append(changes.Decisions(), decisions...) {
		id := d.Entry.ID()
		res.Changes = append(res.Changes, planChange{Action: d.Action.String(), Kind: id.Kind, Namespace: id.Namespace, Name: id.Name, Reason: d.Reason})
	}
	// The preview assumes every deletion succeeds; a controller passes the
	// deletions its API server confirmed.
	for _, e := range inventory.Next(desired, decisions, func(inventory.Entry) bool { return true }) {
		id := e.ID()
		res.Inventory = append(res.Inventory, inventoryItem{Kind: id.Kind, Namespace: id.Namespace, Name: id.Name, Digest: e.Digest})
	}
	return nil
}

// liveGuard releases an object whose live copy disables pruning, and a
// namespace handed off to an external finalizer that still exists with the
// referenced UID.
func (p *planner) liveGuard(ctx context.Context, e inventory.Entry) (inventory.Action, string, error) {
	live, ok := p.req.cluster.lookup(e)
	if !ok {
		return inventory.Delete, "", nil
	}
	if live.Metadata.Annotations[pruneAnnotation] == pruneDisabled {
		return inventory.Release, "prune disabled on the live object (" + pruneAnnotation + ": " + pruneDisabled + ")", nil
	}
	if e.ID().Group != "" || e.ID().Kind != "Namespace" {
		return inventory.Delete, "", nil
	}
	v, err := (&finalizer.Decider{}).Decide(ctx, e.Name, live.Metadata.Annotations, p.req.cluster)
	if err != nil {
		return inventory.Keep, v.Reason, err
	}
	if v.HandedOff() {
		return inventory.Release, v.Reason, nil
	}
	return inventory.Delete, "", nil
}

func validRendered(r pathpattern.Rendered) bool { return r.Name != "" }

// fieldErrors converts a field.ErrorList to the JSON shape, sorted by field,
// then type, then detail.
func fieldErrors(errs field.ErrorList) []planFieldError {
	out := make([]planFieldError, 0, len(errs))
	for _, e := range errs {
		v := e.BadValue
		if _, omit := v.(field.OmitValueType); omit {
			v = nil
		}
		out = append(out, planFieldError{Field: e.Field, Type: string(e.Type), Value: v, Detail: e.Detail})
	}
	slices.SortStableFunc(out, func(a, b planFieldError) int {
		if c := strings.Compare(a.Field, b.Field); c != 0 {
			return c
		}
		if c := strings.Compare(a.Type, b.Type); c != 0 {
			return c
		}
		return strings.Compare(a.Detail, b.Detail)
	})
	return slices.CompactFunc(out, func(a, b planFieldError) bool {
		return a.Field == b.Field && a.Type == b.Type && a.Detail == b.Detail
	})
}
