package generator

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
	"k8s.io/apimachinery/pkg/api/validate/content"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/tenantkit/tenantkit/finalizer"
	"github.com/tenantkit/tenantkit/internal/errsort"
	"github.com/tenantkit/tenantkit/nsmeta"
	"github.com/tenantkit/tenantkit/pathpattern"
)

// Generator is a compiled [Spec]: every template bound to the pattern, every CEL expression
// compiled, every field checked. It is immutable and safe for concurrent use: a controller
// compiles once per spec change and plans on every reconcile, from any goroutine. The zero
// value is not valid; use [Compile].
type Generator struct {
	opts      options
	pattern   *pathpattern.Pattern
	prefix    string // the literal directories of the pattern before its first capture
	aliases   map[string]bool
	artifacts []compiledArtifact
	final     map[string]string // GeneratorLabel, for artifacts
	warnings  []string

	// spec.managedNamespaces, compiled.
	decider    *finalizer.Decider
	managed    bool
	prune      bool
	policy     *nsmeta.NamePolicy
	pipeline   nsmeta.Pipeline // validated by Compile; its maps are the generator's own
	schema     *nsmeta.Schema
	fromSource *pathpattern.Template
	// fromArtifact: fromSource is "@artifact/...", read from the namespace's first artifact.
	fromArtifact bool
}

// compiledArtifact holds the bound templates of one spec.artifacts entry.
type compiledArtifact struct {
	index int
	// spec.artifacts[index], its inputsFrom and copy: built once, not per item (BenchmarkPlan).
	path, inputsPath, copyPath *field.Path
	name                       *pathpattern.Template
	namespace                  *pathpattern.Template // nil: the generator's namespace
	inputs                     *pathpattern.Template // nil: no inputs
	// inputsFromArtifact: inputs is "@artifact/...", read once the copy operations are done.
	inputsFromArtifact bool
	copies             []compiledCopy
}

type compiledCopy struct {
	fromPath *field.Path // spec.artifacts[i].copy[j].from
	toPath   *field.Path // and its to
	from     *pathpattern.Template
	// toTemplate is the destination when it names a capture, rendered from each match's raw
	// captures; nil when to is a literal, parsed once into to and toDir.
	toTemplate *pathpattern.Template
	to         string // below @artifact/, "" for its root
	toDir      bool   // to ends with "/" (or is the root): a directory
	strategy   string // strategyOverwrite, strategyMerge or strategyExtract
	exclude    []string
	optional   bool // selecting no file is not an error
}

var (
	specPath = field.NewPath("spec")
	nsPath   = specPath.Child("managedNamespaces")
)

const artifactRoot = "@artifact"

// A copy's strategies (source-watcher v2.3's spec.artifacts[].copy[].strategy; "" Overwrite).
const (
	strategyOverwrite = "Overwrite"
	strategyMerge     = "Merge"
	strategyExtract   = "Extract"
)

// controlAnnotations are refused in spec.commonMetadata.annotations, as by source-watcher v2.3's
// CRD: they steer how one object is applied and pruned, and on every object at once they would
// stop pruning or reconciling everything the generator manages.
var controlAnnotations = []string{
	"source.extensions.fluxcd.io/prune",
	"source.extensions.fluxcd.io/reconcile",
	"source.extensions.fluxcd.io/ssa",
}

// Compile validates spec and returns the generator it describes, or every problem of the spec
// as a sorted field.ErrorList with paths under "spec." (or, when an option's value is bad, only
// those, under the option's name). spec is copied: the caller may reuse it.
//
//	g, errs := generator.Compile(spec, generator.WithUID(uid), generator.WithNamespace("flux-system"))
//
// Compile checks what does not depend on a source: every limit, pattern, enumeration and rule
// of released source-watcher v2.3's CRD (so that an embedder without the CRD refuses what the
// API server would), the pattern, every template against its captures, the aliases, the copy
// destinations, the name policy, the schema, the metadata operations, the common metadata and
// the service account that namespace management requires.
func Compile(spec Spec, opts ...Option) (*Generator, field.ErrorList) {
	spec = deepCopy(spec)
	g := &Generator{}
	for _, o := range opts {
		o(&g.opts)
	}
	if errs := g.opts.validate(); len(errs) > 0 {
		return nil, errsort.SortUnique(errs) // the caller's bug: the spec waits
	}
	errs := validateShape(&spec, &g.opts)
	if g.opts.finalizerKinds != nil && len(g.opts.finalizerKinds) == 0 {
		// An empty list would allow every kind: the opposite of the option.
		return nil, field.ErrorList{field.Required(field.NewPath("WithFinalizerKinds"), "must name at least one kind")}
	}
	d, kindErrs := finalizer.NewDecider(field.NewPath("WithFinalizerKinds"), g.opts.finalizerKinds...)
	if len(kindErrs) > 0 {
		return nil, kindErrs
	}
	g.decider = d

	g.aliases = map[string]bool{}
	for _, s := range spec.Sources {
		g.aliases[s.Alias] = true
	}
	if spec.PathPattern != "" {
		p, err := pathpattern.Parse(spec.PathPattern)
		if err != nil {
			errs = append(errs, field.Invalid(specPath.Child("pathPattern"), spec.PathPattern, err.Error()))
		} else {
			g.pattern, g.prefix = p, literalPrefix(p)
			g.checkAlias(&errs, specPath.Child("pathPattern"), spec.PathPattern) // Parse checked its shape
		}
	}
	if cm := spec.CommonMetadata; cm != nil {
		g.pipeline.Common = *cm // its labels go on artifacts too
	}
	if g.pattern != nil || spec.PathPattern == "" { // no pattern: templates are literals
		errs = append(errs, g.compileArtifacts(spec.Artifacts)...)
		errs = append(errs, g.compileNamespaces(&spec)...)
	}
	// commonMetadata, the operations and final metadata: validated once, here; Plan applies them.
	errs = append(errs, g.pipeline.Validate(specPath.Child("commonMetadata"),
		nsPath.Child("metadata", "from"), field.NewPath("metadata"))...)
	if len(errs) > 0 {
		return nil, errsort.SortUnique(errs)
	}
	slices.Sort(g.warnings)
	g.warnings = slices.Compact(g.warnings)
	return g, nil
}

// deepCopy copies a spec through JSON, so that a Generator shares no map or slice of the caller's.
func deepCopy(s Spec) Spec {
	data, err := json.Marshal(s)
	if err != nil {
		panic(err) // a Spec holds only strings, maps, slices and a bool
	}
	var c Spec
	if err := json.Unmarshal(data, &c); err != nil {
		panic(err)
	}
	return c
}

func (o *options) validate() field.ErrorList {
	var errs field.ErrorList
	for _, msg := range validation.IsValidLabelValue(o.uid) { // "", unset, is a valid label value
		errs = append(errs, field.Invalid(field.NewPath("WithUID"), o.uid, msg))
	}
	if o.namespace != "" {
		for _, msg := range validation.IsDNS1123Label(o.namespace) {
			errs = append(errs, field.Invalid(field.NewPath("WithNamespace"), o.namespace, msg))
		}
	}
	if o.maxSet && o.maxDeletions < 0 {
		errs = append(errs, field.Invalid(field.NewPath("WithMaxDeletions"), o.maxDeletions, "must not be negative"))
	}
	if o.concurrencySet && o.concurrency < 1 {
		errs = append(errs, field.Invalid(field.NewPath("WithConcurrency"), o.concurrency, "must be at least 1"))
	}
	if o.artifactDigestSet && o.artifactDigest == nil {
		errs = append(errs, field.Required(field.NewPath("WithArtifactDigest"), "a digest function, not nil"))
	}
	final := nsmeta.Metadata{Labels: o.finalLabels, Annotations: o.finalAnnotations}
	errs = append(errs, final.Validate(field.NewPath("WithFinalMetadata"))...)
	return errs
}

// The limits and patterns of released source-watcher v2.3's CRD (its v1beta1 validation
// markers; see [Compile] for why), each a case of interop/sourcewatcher.
const (
	maxSources         = 1000
	maxArtifacts       = 1000
	maxExcludes        = 100
	maxReferenceBytes  = 1024 // pathPattern, names, from, to, inputsFrom, fromSource.path, an exclude
	maxSourceRefBytes  = 64   // revision and originRevision
	maxSourceNameBytes = 253
)

var (
	aliasPattern      = regexp.MustCompile(`^[a-z0-9]([a-z0-9_-]*[a-z0-9])?$`)
	sourceNamePattern = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]*[a-z0-9])?$`)
	sourceKinds       = []string{"Bucket", "ExternalArtifact", "GitRepository", "HelmChart", "OCIRepository"}
)

// validateShape checks required fields, the CRD's limits and patterns, and what no primitive does.
func validateShape(s *Spec, o *options) field.ErrorList {
	var errs field.ErrorList
	tooLong := func(p *field.Path, v string, limit int) {
		if len(v) > limit {
			errs = append(errs, field.TooLong(p, "", limit))
		}
	}
	check := func(p *field.Path, v string, msgs []string) {
		if len(msgs) > 0 {
			errs = append(errs, field.Invalid(p, v, strings.Join(msgs, "; ")))
		}
	}
	dnsLabel := func(p *field.Path, v string) { check(p, v, content.IsDNS1123Label(v)) }
	requiredRef := func(p *field.Path, v string) { // a reference: set, and not too long
		if v == "" {
			errs = append(errs, field.Required(p, ""))
		}
		tooLong(p, v, maxReferenceBytes)
	}
	switch sp := specPath.Child("sources"); {
	case len(s.Sources) == 0:
		errs = append(errs, field.Required(sp, "at least one source"))
	case len(s.Sources) > maxSources:
		errs = append(errs, field.TooMany(sp, len(s.Sources), maxSources))
	}
	seen := map[string]int{}
	for i, src := range s.Sources {
		sp := specPath.Child("sources").Index(i)
		p := sp.Child("alias")
		switch j, dup := seen[src.Alias]; {
		case src.Alias == "":
			errs = append(errs, field.Required(p, ""))
		case len(src.Alias) > validation.DNS1123LabelMaxLength:
			errs = append(errs, field.TooLong(p, "", validation.DNS1123LabelMaxLength))
		case !aliasPattern.MatchString(src.Alias):
			errs = append(errs, field.Invalid(p, src.Alias, "must be lower-case alphanumeric characters, '-' or '_', starting and ending with an alphanumeric character"))
		case dup:
			errs = append(errs, field.Duplicate(p, fmt.Sprintf("%s (also spec.sources[%d].alias)", src.Alias, j)))
		default:
			seen[src.Alias] = i
		}
		switch p := sp.Child("name"); {
		case src.Name == "":
			errs = append(errs, field.Required(p, ""))
		case len(src.Name) > maxSourceNameBytes:
			errs = append(errs, field.TooLong(p, "", maxSourceNameBytes))
		case !sourceNamePattern.MatchString(src.Name):
			errs = append(errs, field.Invalid(p, src.Name, "must be lower-case alphanumeric characters or '-', starting and ending with an alphanumeric character"))
		}
		if src.Namespace != "" {
			dnsLabel(sp.Child("namespace"), src.Namespace)
		}
		switch {
		case src.Kind == "":
			errs = append(errs, field.Required(sp.Child("kind"), "one of "+strings.Join(sourceKinds, ", ")))
		case !slices.Contains(sourceKinds, src.Kind):
			errs = append(errs, field.NotSupported(sp.Child("kind"), src.Kind, sourceKinds))
		}
	}
	if s.ServiceAccountName != "" {
		dnsLabel(specPath.Child("serviceAccountName"), s.ServiceAccountName)
	}
	switch ap := specPath.Child("artifacts"); {
	case len(s.Artifacts) == 0:
		errs = append(errs, field.Required(ap, "at least one artifact"))
	case len(s.Artifacts) > maxArtifacts:
		errs = append(errs, field.TooMany(ap, len(s.Artifacts), maxArtifacts))
	}
	for i, a := range s.Artifacts {
		p := specPath.Child("artifacts").Index(i)
		requiredRef(p.Child("name"), a.Name)
		tooLong(p.Child("namespace"), a.Namespace, maxReferenceBytes)
		if s.PathPattern == "" {
			// Without a pattern the names are literal: the CRD's rules, at the artifact's
			// own fields; a name that names a capture is refused when its template binds.
			if literal(a.Name) {
				check(p.Child("name"), a.Name, content.IsDNS1123Subdomain(a.Name))
			}
			if a.Namespace != "" && literal(a.Namespace) {
				dnsLabel(p.Child("namespace"), a.Namespace)
			}
		}
		if a.Namespace == "" && o.namespace == "" {
			errs = append(errs, field.Required(p.Child("namespace"), "the artifact's namespace, or the generator's own (WithNamespace)"))
		}
		tooLong(p.Child("inputsFrom"), a.InputsFrom, maxReferenceBytes)
		tooLong(p.Child("revision"), a.Revision, maxSourceRefBytes)
		tooLong(p.Child("originRevision"), a.OriginRevision, maxSourceRefBytes)
		if len(a.Copy) == 0 {
			errs = append(errs, field.Required(p.Child("copy"), "at least one copy operation"))
		}
		for j, c := range a.Copy {
			cp := p.Child("copy").Index(j)
			requiredRef(cp.Child("from"), c.From)
			requiredRef(cp.Child("to"), c.To)
			if len(c.Exclude) > maxExcludes {
				errs = append(errs, field.TooMany(cp.Child("exclude"), len(c.Exclude), maxExcludes))
			}
			for k, ex := range c.Exclude {
				tooLong(cp.Child("exclude").Index(k), ex, maxReferenceBytes)
			}
			switch c.Strategy {
			case "", strategyOverwrite, strategyMerge, strategyExtract:
			default:
				errs = append(errs, field.NotSupported(cp.Child("strategy"), c.Strategy,
					[]string{strategyOverwrite, strategyMerge, strategyExtract}))
			}
		}
	}
	if cm := s.CommonMetadata; cm != nil {
		for _, key := range controlAnnotations {
			if _, ok := cm.Annotations[key]; ok {
				errs = append(errs, field.Forbidden(specPath.Child("commonMetadata", "annotations").Key(key),
					"must not be set in commonMetadata, which goes on every object; set it on individual objects"))
			}
		}
	}
	if m := s.ManagedNamespaces; m != nil {
		p := nsPath
		if len(m.AllowedNames) == 0 {
			errs = append(errs, field.Required(p.Child("allowedNames"), `at least one CEL expression over "ns"; use ["true"] to allow any name`))
		}
		if m.Prune == nil {
			errs = append(errs, field.Required(p.Child("prune"), "whether to delete managed namespaces that no artifact uses"))
		}
		if md := m.Metadata; md != nil {
			mp := p.Child("metadata")
			if md.FromSource == nil && len(md.From) == 0 {
				errs = append(errs, field.Required(mp, "either fromSource or at least one from operation must be set"))
			}
			if fs := md.FromSource; fs != nil {
				fp := mp.Child("fromSource")
				if len(fs.AllowedLabels) == 0 && len(fs.AllowedAnnotations) == 0 {
					errs = append(errs, field.Required(fp, "at least one annotation or label must be set in allowedLabels or allowedAnnotations"))
				}
				requiredRef(fp.Child("path"), fs.Path)
			}
		}
		if s.ServiceAccountName == "" && o.defaultServiceAccount == "" {
			errs = append(errs, field.Required(specPath.Child("serviceAccountName"),
				"managing namespaces requires spec.serviceAccountName or a default service account"))
		}
	}
	return errs
}

// literal reports whether a template of at most maxReferenceBytes names no capture.
func literal(s string) bool {
	return s != "" && len(s) <= maxReferenceBytes && !strings.ContainsAny(s, "{}")
}

// literalPrefix returns the directories of p after its alias and before its first capture,
// e.g. "tenants" for "@repo/tenants/{namespace}/modules/{module}": those must exist as
// directories, or the source is not what the pattern expects.
func literalPrefix(p *pathpattern.Pattern) string {
	rest := strings.TrimPrefix(p.String(), "@"+p.Alias())
	rest = strings.TrimPrefix(rest, "/")
	var dirs []string
	for seg := range strings.SplitSeq(rest, "/") {
		if strings.ContainsAny(seg, "{}") {
			break
		}
		dirs = append(dirs, seg)
	}
	return strings.Join(dirs, "/")
}

// bind binds a template to the pattern, reporting a failure at fldPath. A template longer than
// the CRD allows, which validateShape reported, is not bound.
func (g *Generator) bind(errs *field.ErrorList, fldPath *field.Path, s string) *pathpattern.Template {
	if len(s) > maxReferenceBytes {
		return nil
	}
	t, err := g.pattern.Template(s)
	if err != nil {
		*errs = append(*errs, field.Invalid(fldPath, s, err.Error()))
		return nil
	}
	return t
}

// checkAlias reports a reference template whose literal alias is not declared in spec.sources.
// It returns false when s is not "@alias/path" at all.
func (g *Generator) checkAlias(errs *field.ErrorList, fldPath *field.Path, s string) bool {
	rest, ok := strings.CutPrefix(s, "@")
	alias, _, found := strings.Cut(rest, "/")
	switch {
	case !ok || !found:
		*errs = append(*errs, field.Invalid(fldPath, s, `must be "@alias/path"`))
		return false
	case strings.ContainsAny(alias, "{}"):
	case !g.aliases[alias]:
		*errs = append(*errs, field.Invalid(fldPath, s, fmt.Sprintf("alias %q must be declared in spec.sources", alias)))
	}
	return true
}

// bindRef binds a reference template s at fldPath: "@alias/path" with a declared alias, unless
// fromArtifact ("@artifact/...", the artifact's own files). It then refuses what no rendering can
// make valid (see [OutputArtifact]): it parses s with pathpattern.ParseRef, each capture "{name}"
// standing for the part of a path element it renders (never empty, "/" or NUL), so only what the
// literal text breaks in every rendering fails: a ".." element, an empty or absolute path, a NUL
// byte or invalid UTF-8. It returns nil when s does not bind (reported).
func (g *Generator) bindRef(errs *field.ErrorList, fldPath *field.Path, s string, fromArtifact bool) *pathpattern.Template {
	shaped := fromArtifact || g.checkAlias(errs, fldPath, s)
	t := g.bind(errs, fldPath, s)
	if alias, _, _ := strings.Cut(s, "/"); shaped && t != nil && !strings.ContainsAny(alias, "{}") {
		if _, err := pathpattern.ParseRef(s); err != nil {
			*errs = append(*errs, field.Invalid(fldPath, s, err.Error()))
		}
	}
	return t
}

// checkSourceAlias checks a reference to a whole source, "@alias" (an artifact's revision or
// originRevision): the alias must be declared in spec.sources. An empty ref is not set.
func (g *Generator) checkSourceAlias(errs *field.ErrorList, fldPath *field.Path, ref string) {
	if ref == "" {
		return
	}
	if alias, ok := strings.CutPrefix(ref, "@"); !ok || !g.aliases[alias] {
		*errs = append(*errs, field.Invalid(fldPath, ref, `must be "@alias" with an alias declared in spec.sources`))
	}
}

// isArtifactRef reports whether a reference names the generated artifact, "@artifact/...", as
// upstream reads inputsFrom and fromSource.path: alias "artifact" is never a source.
func isArtifactRef(ref string) bool { return strings.HasPrefix(ref, artifactRoot+"/") }

func (g *Generator) compileArtifacts(specs []OutputArtifact) field.ErrorList {
	var errs field.ErrorList
	for i, a := range specs {
		ap := specPath.Child("artifacts").Index(i)
		c := compiledArtifact{index: i, path: ap, inputsPath: ap.Child("inputsFrom"), copyPath: ap.Child("copy")}
		if a.Name != "" {
			c.name = g.bind(&errs, ap.Child("name"), a.Name)
		}
		if a.Namespace != "" {
			c.namespace = g.bind(&errs, ap.Child("namespace"), a.Namespace)
		}
		if a.InputsFrom != "" {
			// "@artifact/...": the artifact's own file once built, as upstream reads it.
			c.inputsFromArtifact = isArtifactRef(a.InputsFrom)
			c.inputs = g.bindRef(&errs, c.inputsPath, a.InputsFrom, c.inputsFromArtifact)
		}
		g.checkSourceAlias(&errs, ap.Child("revision"), a.Revision)
		g.checkSourceAlias(&errs, ap.Child("originRevision"), a.OriginRevision)
		for j, cp := range a.Copy {
			cpp := c.copyPath.Index(j)
			cc := compiledCopy{fromPath: cpp.Child("from"), toPath: cpp.Child("to"),
				strategy: cmp.Or(cp.Strategy, strategyOverwrite), exclude: cp.Exclude, optional: cp.Optional}
			if cp.From != "" {
				cc.from = g.bindRef(&errs, cc.fromPath, cp.From, false)
			}
			if cp.To != "" {
				g.compileDestination(&errs, &cc, cp.To)
			}
			for k, ex := range cp.Exclude { // one too long is reported by validateShape
				if len(ex) <= maxReferenceBytes && !doublestar.ValidatePattern(ex) {
					errs = append(errs, field.Invalid(cpp.Child("exclude").Index(k), ex, "must be a valid glob pattern"))
				}
			}
			c.copies = append(c.copies, cc)
		}
		for _, w := range g.pattern.Warnings(c.namespace) {
			g.warnings = append(g.warnings, "spec.pathPattern: "+w)
		}
		g.artifacts = append(g.artifacts, c)
	}
	g.final = cloneLabels(g.opts.finalLabels)
	if g.opts.uid != "" {
		g.final[GeneratorLabel] = g.opts.uid
	}
	return errs
}

// compileDestination compiles a copy's to, parsed once when literal. One that names captures
// is a template, rendered from each match's raw captures (as upstream does) and checked then;
// its text is checked here too, so a ".." element (upstream's CRD refuses it) fails at once.
func (g *Generator) compileDestination(errs *field.ErrorList, cc *compiledCopy, to string) {
	if len(to) > maxReferenceBytes {
		return // validateShape reported it
	}
	to0, dir, err := parseDestination(to)
	if err != nil {
		*errs = append(*errs, field.Invalid(cc.toPath, to, err.Error()))
		return
	}
	t := g.bind(errs, cc.toPath, to)
	switch {
	case t == nil:
	case len(t.Captures()) > 0:
		cc.toTemplate = t
	default:
		cc.to, cc.toDir = to0, dir
	}
}

// parseDestination parses a copy destination, "@artifact/" or "@artifact/path", with
// pathpattern.ParseRef into the path below the artifact's root and whether it names a directory
// (it ends with "/" or is the root: "", as "@artifact/." is, as upstream takes it).
func parseDestination(to string) (string, bool, error) {
	switch rest, ok := strings.CutPrefix(to, artifactRoot+"/"); {
	case !ok:
		return "", false, errors.New(`must start with "@artifact/"`)
	case onlyDots(rest): // the root, which ParseRef refuses
		return "", true, nil
	}
	ref, err := pathpattern.ParseRef(to)
	if err != nil {
		return "", false, err
	}
	return ref.Path, strings.HasSuffix(to, "/"), nil
}

// onlyDots reports whether every element of a relative slash path is "." or empty: its start.
func onlyDots(p string) bool {
	for e := range strings.SplitSeq(p, "/") {
		if e != "." && e != "" {
			return false
		}
	}
	return !strings.HasPrefix(p, "/")
}

// compileNamespaces compiles spec.managedNamespaces: the name policy, the pipeline's operations
// and final metadata, the schema and the metadata file's template.
func (g *Generator) compileNamespaces(s *Spec) field.ErrorList {
	m := s.ManagedNamespaces
	if m == nil {
		return nil
	}
	var errs field.ErrorList
	g.managed = true
	g.prune = m.Prune != nil && *m.Prune
	policyOp := []nsmeta.Option{nsmeta.WithCache(g.opts.cache)}
	if g.opts.namespace != "" {
		policyOp = append(policyOp, nsmeta.WithProtectedNames(g.opts.namespace))
	}
	if len(m.AllowedNames) > 0 {
		policy, perrs := nsmeta.NewNamePolicy(m.AllowedNames, nsPath, policyOp...)
		errs = append(errs, perrs...)
		g.policy = policy
	}
	g.pipeline.Final = nsmeta.Metadata{Labels: cloneLabels(g.final), Annotations: cloneLabels(g.opts.finalAnnotations)}

	md := m.Metadata
	if md == nil {
		return errs
	}
	g.pipeline.Operations = md.From
	fsrc := md.FromSource
	if fsrc == nil {
		return errs
	}
	fp := nsPath.Child("metadata", "fromSource")
	schemaOpts := []nsmeta.Option{nsmeta.WithCache(g.opts.cache)}
	if g.opts.strict {
		schemaOpts = append(schemaOpts, nsmeta.WithStrict())
	}
	schema, serrs := nsmeta.CompileSchema(fsrc.AllowedLabels, fsrc.AllowedAnnotations, fp, schemaOpts...)
	errs = append(errs, serrs...)
	g.schema = schema
	if fsrc.Path == "" {
		return errs
	}
	// "@artifact/...": a file of the namespace's first artifact, once built ([MetadataFromSource]).
	pp := fp.Child("path")
	g.fromArtifact = isArtifactRef(fsrc.Path)
	g.fromSource = g.bindRef(&errs, pp, fsrc.Path, g.fromArtifact)
	if g.fromSource != nil {
		errs = append(errs, g.namespaceLevel(pp, fsrc.Path)...)
	}
	return errs
}

// namespaceLevel refuses, as upstream's API does ("Only namespace-level captures are
// allowed"), a fromSource.path naming a capture that some artifact's namespace does not, so
// that a namespace's artifacts read one file. Those with no namespace (never managed) don't count.
func (g *Generator) namespaceLevel(fldPath *field.Path, path string) field.ErrorList {
	for _, name := range g.fromSource.Captures() {
		for i, a := range g.artifacts {
			if a.namespace == nil || slices.Contains(a.namespace.Captures(), name) {
				continue
			}
			return field.ErrorList{field.Invalid(fldPath, path, fmt.Sprintf(
				"must name only captures of the artifacts' namespace: {%s} is not named by spec.artifacts[%d].namespace %q; only namespace-level captures are allowed",
				name, i, a.namespace.String()))}
		}
	}
	return nil
}

// asFieldErrors spreads the error of a primitive (inventory.Collect's) into field errors: its own
// field errors when it carries them, or one Invalid error at fldPath for each other.
func asFieldErrors(err error, fldPath *field.Path, value any) field.ErrorList {
	if err == nil {
		return nil
	}
	all := []error{err}
	var agg utilerrors.Aggregate
	if errors.As(err, &agg) {
		all = agg.Errors()
	}
	var out field.ErrorList
	for _, e := range all {
		var fe *field.Error
		if errors.As(e, &fe) {
			out = append(out, fe)
		} else {
			out = append(out, field.Invalid(fldPath, value, e.Error()))
		}
	}
	return out
}

// Warnings returns the problems of the spec that are not errors, sorted, such as a capture
// whose name a ResourceSet input provider overwrites. Every plan repeats them.
func (g *Generator) Warnings() []string { return slices.Clone(g.warnings) }
