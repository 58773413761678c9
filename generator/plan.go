package generator

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"slices"
	"strings"

	"github.com/opencontainers/go-digest"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/tenantkit/tenantkit/internal/errsort"
	"github.com/tenantkit/tenantkit/inventory"
	"github.com/tenantkit/tenantkit/nsmeta"
	"github.com/tenantkit/tenantkit/pathpattern"
)

// Plan is what one reconcile of a generator does: the namespaces and artifacts to apply, one
// decision per object, and the problems found. A controller applies the creates and updates,
// deletes the deletions in order, and records [Plan.Next] as its inventory. A plan with errors
// still creates and updates what is valid, never what an error touches ([inventory.Skip]), and
// deletes nothing.
//
// A previous inventory entry that fails inventory.Entry.Validate, or whose identity an earlier
// entry has, is an error at "old[i]", as inventory.Diff reports it. The plan then deletes and
// releases nothing, reads no stale object, and heals: each desired object is decided (create,
// update, unchanged) against the valid entry with its identity, if any, and replaces an invalid
// one (a malformed digest is written afresh); every other entry is kept as it is, its reason
// "the previous inventory has errors; nothing is deleted" or, when it does not validate, "...;
// this entry does not validate and is kept as it is"; a skipped object is skipped as in any
// plan. [Plan.Next] holds them all in apply order, a repeated identity twice: nothing tracked is
// lost, and an invalid entry keeps every later plan from deleting until it is corrected or removed.
type Plan struct {
	// Namespaces are the managed namespaces to apply, by name, less those not to be applied, which
	// stay desired (see [Cluster]).
	Namespaces []Namespace
	// Artifacts are the ExternalArtifacts to apply, by namespace and name.
	Artifacts []Artifact
	// Decisions holds one decision per object, with its reason: the desired ones (create, update,
	// unchanged) and then the skipped ones in apply order, then the stale ones (delete, release,
	// keep) in prune order.
	Decisions []inventory.Decision
	// Warnings are problems that do not stop the plan, sorted.
	Warnings []string
	// Errors are the problems of the desired state, sorted, at "spec." and the field whose
	// rendering or file failed, "@alias/path:" and the path in a tenant's file, "cluster[...]" for
	// a live object that cannot be read ([Cluster]), or "old[i]" for an invalid previous inventory.
	Errors field.ErrorList
	// Refused is the deletion guard's refusal of the plan's deletions, if any: Errors holds its
	// [inventory.RefusedError.Rule] as a Forbidden error at "spec", which names no option, so
	// that an embedder says how to allow it in its own words ([WithAllowDeleteAll], a larger
	// [WithMaxDeletions]).
	Refused *inventory.RefusedError

	desired   []inventory.Entry
	collected []inventory.Decision
	invalid   []inventory.Entry // entries of an invalid previous inventory that Next keeps as they are
	previous  []inventory.Entry // the next inventory, when nothing could be decided
}

// Namespace is one managed namespace with its metadata.
type Namespace struct {
	Name        string
	Labels      map[string]string
	Annotations map[string]string
	// Origin names, for every key, the pipeline step that set it:
	// "common", "source", "from[i]" or "final".
	Origin nsmeta.Metadata
	// Digest is nsmeta.Digest of the labels and annotations.
	Digest digest.Digest
	// Conflict is "Adopted" or "OwnershipConflict" when the plan adopts
	// or takes over the live namespace, and empty otherwise ([Cluster]).
	Conflict string
}

// Artifact is one ExternalArtifact.
//
// Its digest is "sha256:" and the lower-case hex SHA-256 of these bytes
// (testdata/artifact-digest-vectors.json pins them):
//
//	digest = { file } [ inputs ]
//	file   = path NUL length NUL content            for each file, by path in byte order
//	inputs = NUL "inputs" NUL { input }             only when there is at least one input
//	input  = keylen NUL key NUL vallen NUL value    for each input, by key in byte order
//
// path is the file's destination below "@artifact/", content what the artifact holds there
// (copied, merged or extracted), length, keylen and vallen decimal byte counts without leading
// zeros, value the input as compact JSON (encoding/json.Compact). No path starts with NUL, so
// the inputs part cannot be read as a file.
//
// Under [WithArtifactDigest] the embedder's function computes it instead, from the artifact's
// file system: it passes testing/fstest.TestFS, "." is its root, listings are by name, times
// zero, and a file's mode is 0755 when its source or archive entry has an execute bit, 0644
// otherwise. os.CopyFS writes it into a staging directory as upstream's builder leaves its own;
// source-watcher v2.3 records the digest of the tarball its storage writes of that
// (fluxcd/pkg/artifact/storage's Archive, which leaves out what Flux's default ignore patterns
// match, such as .git/), which only the embedder can compute.
type Artifact struct {
	Name      string
	Namespace string
	// Path is the directory the pattern matched, relative to the alias root.
	Path string
	// Captures holds the raw captured values.
	Captures map[string]string
	// Labels are commonMetadata.labels, the normalized captures, then GeneratorLabel.
	Labels map[string]string
	// Inputs are the inputsFrom file's values, the ExternalArtifact's status.exportedInputs: one
	// JSON object as json.Marshal writes the map [ReadExportedInputs] reads of it (names sorted,
	// values compact); nil without inputsFrom, without such a file, or without values.
	Inputs json.RawMessage
	// Files are the artifact's files by destination under [WithFileLists]; nil otherwise.
	Files []File
	// FileCount is the number of files of the artifact.
	FileCount int
	// Digest covers the files and the inputs, or is what [WithArtifactDigest]'s function returns.
	Digest digest.Digest
	// Conflict is "OwnershipConflict" when the plan takes over the live copy, else "" ([Cluster]).
	Conflict string
	// Filename is the name of the artifact's file in the embedder's storage, which its inventory
	// entry records (source-watcher's "<hash>.tar.gz" of the staged files, whose drift check
	// rebuilds an artifact without it): the one [WithArtifactDigest]'s function set, else the
	// previous entry's when that has this Digest (the same content), else empty, never a name of
	// other content. So a source-watcher inventory, planned unchanged, reads back entry for entry.
	// It plays no part in the decisions.
	Filename string
}

// File is one file of an artifact.
type File struct {
	// Path is the file's path in the artifact, below "@artifact/".
	Path string
	// Source is where its content comes from: the file copied there, the last file a Merge copy
	// merged into it, or the archive it was extracted from.
	Source pathpattern.Ref
}

// Next returns the inventory to record once the plan's deletions have been attempted, in apply
// order: the desired entries and, as the previous inventory has them (Filename included), every
// tracked entry kept or skipped and every deletion that deleted does not confirm; a nil deleted
// confirms nothing. Nothing tracked leaves without a confirmed deletion or a release.
//
//	next := plan.Next(func(e inventory.Entry) bool { return confirmed[e.ID()] })
//
// Its entries are released source-watcher's status.inventory entries, {kind, name, namespace,
// digest, filename}: a Namespace or ExternalArtifact of its usual group has no apiVersion (the
// decisions' entries carry it for the embedder's calls), so that the CRD's structural schema
// keeps every field.
func (p *Plan) Next(deleted func(inventory.Entry) bool) []inventory.Entry {
	next := slices.Clone(p.previous)
	if p.previous == nil {
		next = inventory.Next(p.desired, p.collected, deleted) // a nil deleted confirms nothing there too
		if len(p.invalid) > 0 {
			// Not compacted by identity as inventory.Next does: nothing tracked is lost, nor a duplicate.
			next = append(next, p.invalid...)
			inventory.SortApply(next)
		}
	}
	for i, e := range next {
		switch id := e.ID(); {
		case id.Kind == namespaceKind && id.Group == inventory.GroupCore,
			id.Kind == artifactKind && id.Group == artifactGroup:
			next[i].APIVersion = ""
		}
	}
	return next
}

// HasErrors reports whether the desired state has errors: then the plan deletes nothing.
func (p *Plan) HasErrors() bool { return len(p.Errors) > 0 }

const (
	namespaceAPIVersion = inventory.APIVersionNamespace
	artifactAPIVersion  = inventory.APIVersionExternalArtifact
	artifactGroup       = inventory.GroupSource
	artifactKind        = inventory.KindExternalArtifact
	namespaceKind       = inventory.KindNamespace

	reasonDesiredErrors = "desired state has errors"
)

// planner is what every step of one plan reads and none changes.
type planner struct {
	g       *Generator
	ctx     context.Context
	sources map[string]fs.FS
	snap    *snapshot
}

// findings are the errors and warnings one step, or one object's share of a step, found.
type findings struct {
	errs field.ErrorList
	warn []string
}

func (f *findings) add(o findings) {
	f.errs = append(f.errs, o.errs...)
	f.warn = append(f.warn, o.warn...)
}

// task is one step, or one object's share of one: a copy of the planner, whose ctx it may narrow.
type task struct {
	planner
	findings
}

func (p *planner) task() *task { return &task{planner: *p} }

// item is one match of one spec.artifacts entry: an artifact to build.
type item struct {
	art       *compiledArtifact
	match     pathpattern.Match
	name      string
	namespace string
	// meta is the NamespaceMetadata file its namespace reads from it, if designate chose it.
	meta *artifactMeta
}

// skippedObject is an object that an error touches, and why.
type skippedObject struct {
	entry  inventory.Entry
	reason string
}

// skips holds the objects that errors touch, by identity ([inventory.Skip]): neither applied nor
// deleted. Its reason is the first found; add is the only writer; a step returns a new skips.
type skips map[inventory.ID]skippedObject

func (s skips) add(e inventory.Entry, reason string) {
	if _, dup := s[e.ID()]; !dup {
		s[e.ID()] = skippedObject{entry: e, reason: reason}
	}
}

func (s skips) clone() skips {
	out := make(skips, len(s))
	maps.Copy(out, s)
	return out
}

// artifact skips an item's artifact.
func (s skips) artifact(it *item, reason string) {
	s.add(newArtifactEntry(it.namespace, it.name), reason)
}

// namespace skips a namespace, and every artifact of it for that reason.
func (s skips) namespace(ns, reason string, users []*item) {
	s.add(inventory.Entry{APIVersion: namespaceAPIVersion, Kind: namespaceKind, Name: ns}, reason)
	for _, it := range users {
		s.artifact(it, fmt.Sprintf("namespace %q: %s", ns, reason))
	}
}

// reason returns why the artifact of namespace and name is skipped, or "".
func (s skips) reason(namespace, name string) string {
	return s[newArtifactEntry(namespace, name).ID()].reason
}

func newArtifactEntry(namespace, name string) inventory.Entry {
	return inventory.Entry{APIVersion: artifactAPIVersion, Kind: artifactKind, Namespace: namespace, Name: name}
}

// Plan plans one reconcile:
//
//	plan, err := g.Plan(ctx, map[string]fs.FS{"repo": root.FS()}, status.Inventory, cluster)
//
// sources holds the file system of each alias, rooted at the alias: any fs.FS safe for
// concurrent use, such as root.FS() of an [os.Root], which confines every read below its
// directory. Plan never writes them, and they must not change while it reads them; it refuses
// symbolic links where the file system reports them (fs.ReadLinkFS, see pathpattern.ReadFile),
// as os.Root's and os.DirFS do. previous is the inventory the last reconcile recorded
// ([Plan.Next]); cluster, what the plan reads of the live cluster.
//
// Problems of the desired state, a panic while building one object among them, are in
// [Plan.Errors], not returned. When ctx ends before the plan does, Plan returns no plan and
// ctx's error: nothing is to be applied or deleted.
func (g *Generator) Plan(ctx context.Context, sources map[string]fs.FS, previous []inventory.Entry, cluster Cluster) (*Plan, error) {
	p := &planner{g: g, ctx: ctx, sources: make(map[string]fs.FS, len(sources)), snap: newSnapshot(ctx, cluster)}
	for alias, fsys := range sources {
		if fsys != nil {
			p.sources[alias] = newDirCache(fsys)
		}
	}
	// Steps taking and returning values: discover, build, read live artifacts, decide (collect).
	d := p.discover()
	b := p.build(d.items, d.skipped)
	// Nothing reads the sources again: drop their caches before the rest allocates.
	p.sources = nil
	artifacts, skipped, live := p.liveArtifacts(b.artifacts, b.skipped)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	// An artifact skipped after it was built (its namespace or its live copy failed) goes.
	artifacts = slices.DeleteFunc(artifacts, func(a Artifact) bool { return skipped.reason(a.Namespace, a.Name) != "" })
	if len(artifacts) == 0 {
		artifacts = nil // as a plan's lists are when empty
	}
	res := &Plan{Namespaces: b.namespaces, Artifacts: artifacts}
	// Made at its size: this runs on one core (BenchmarkPlan).
	desired := make([]inventory.Entry, 0, len(b.namespaces)+len(artifacts))
	for _, ns := range b.namespaces {
		desired = append(desired, inventory.Entry{APIVersion: namespaceAPIVersion, Kind: namespaceKind, Name: ns.Name, Digest: ns.Digest})
	}
	keepFilenames(artifacts, previous)
	for _, a := range artifacts {
		e := newArtifactEntry(a.Namespace, a.Name)
		e.Filename, e.Digest = a.Filename, a.Digest
		desired = append(desired, e)
	}
	res.Warnings = slices.Concat(g.warnings, d.warn, b.warn, live.warn)
	slices.Sort(res.Warnings)
	res.Warnings = slices.Compact(res.Warnings)
	res.Errors = slices.Concat(d.errs, b.errs, live.errs)

	if err := p.collect(res, desired, previous, skipped); err != nil {
		return nil, err
	}
	// A context that ended while the plan read the cluster left objects undecided (kept) and the
	// rest decided against a cluster the caller no longer wants read: no plan to act on.
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	res.Errors = errsort.SortUnique(res.Errors)
	return res, nil
}

// source returns the file system of an alias, which must be declared in spec.sources and given.
func (t *task) source(alias string, fldPath *field.Path, value string) fs.FS {
	if !t.g.aliases[alias] {
		t.errs = append(t.errs, field.Invalid(fldPath, value, fmt.Sprintf("alias %q must be declared in spec.sources", alias)))
		return nil
	}
	fsys := t.sources[alias]
	if fsys == nil {
		t.errs = append(t.errs, field.Invalid(fldPath, value, fmt.Sprintf("alias %q has no source", alias)))
	}
	return fsys
}

// discovery is what discover found.
type discovery struct {
	items   []*item
	skipped skips // the artifacts that collide
	findings
}

// discover checks the pattern's source, discovers its matches and renders each artifact's name
// and namespace: no item when the source cannot be trusted (an error then keeps everything).
// Without a pattern, one match without a directory renders each spec.artifacts entry.
func (p *planner) discover() discovery {
	g, t := p.g, p.task()
	d := discovery{skipped: skips{}}
	var matches []pathpattern.Match
	if g.pattern == nil {
		matches = []pathpattern.Match{{Raw: map[string]string{}, Normalized: map[string]string{}}}
	} else {
		fp := specPath.Child("pathPattern")
		fsys := t.source(g.pattern.Alias(), fp, g.pattern.String())
		if fsys == nil || !t.checkSource(fsys) {
			return discovery{findings: t.findings}
		}
		ms, errs, err := g.pattern.Discover(fsys, fp)
		switch {
		case errors.Is(err, pathpattern.ErrSourceShape):
			t.errs = append(t.errs, field.Invalid(fp, g.pattern.String(), err.Error()))
			return discovery{findings: t.findings}
		case err != nil:
			t.errs = append(t.errs, field.InternalError(fp, err))
			return discovery{findings: t.findings}
		}
		// Left-out directories and unreadable matches are errors, so that the plan deletes nothing.
		t.errs = append(t.errs, errs...)
		matches = slices.DeleteFunc(ms, func(m pathpattern.Match) bool { return m.Problem != "" })
	}

	// render leaves out what fails (nothing to decide) and marks collisions: neither is built.
	rendered, errs := render(matches, g.artifacts, g.opts.namespace, specPath.Child("artifacts"))
	t.errs = append(t.errs, errs...)
	d.items = make([]*item, len(rendered))
	for i := range rendered {
		r := &rendered[i]
		m := r.Match
		// Values that normalize to themselves, as usual, share one map:
		// the build only reads Normalized.
		same := maps.Equal(m.Raw, m.Normalized)
		if r.Index > 0 {
			// Each item owns its captures: its artifact takes them.
			m.Raw = maps.Clone(m.Raw)
			if !same {
				m.Normalized = maps.Clone(m.Normalized)
			}
		}
		if same {
			m.Normalized = m.Raw
		}
		it := &item{art: &g.artifacts[r.Index], match: m, name: r.Name, namespace: r.Namespace}
		if c := r.Conflict; c != nil {
			if c.Path == "" {
				d.skipped.artifact(it, fmt.Sprintf("spec.artifacts[%d] renders the same namespace and name", c.Index))
			} else {
				d.skipped.artifact(it, fmt.Sprintf("directory %q renders the same namespace and name", c.Path))
			}
		}
		d.items[i] = it
	}
	d.findings = t.findings
	return d
}

// checkSource checks the source as rule 2 of the package documentation says: a misplaced or
// broken source would otherwise look like a monorepo without tenants, all to be deleted.
func (t *task) checkSource(fsys fs.FS) bool {
	fp := specPath.Child("pathPattern")
	alias := "@" + t.g.pattern.Alias()
	info, err := fs.Stat(fsys, ".")
	if err != nil {
		t.errs = append(t.errs, field.Invalid(fp, t.g.pattern.String(), fmt.Sprintf("source %s: %v", alias, err)))
		return false
	}
	if !info.IsDir() {
		t.errs = append(t.errs, field.Invalid(fp, t.g.pattern.String(), fmt.Sprintf("source %s: root must be a directory", alias)))
		return false
	}
	if t.g.prefix == "" {
		return true
	}
	dir := ""
	for seg := range strings.SplitSeq(t.g.prefix, "/") {
		dir = pathJoin(dir, seg)
		info, err := fs.Lstat(fsys, dir)
		var detail string
		switch {
		case errors.Is(err, fs.ErrNotExist):
			detail = "must exist (git drops an empty directory: to remove every tenant, keep a placeholder file such as " +
				alias + "/" + dir + "/.keep, which discovery ignores, and allow the plan to delete every object it tracks)"
		case err != nil:
			detail = err.Error()
		case info.Mode()&fs.ModeSymlink != 0:
			detail = "must not be a symbolic link"
		case !info.IsDir():
			detail = "must be a directory"
		default:
			continue
		}
		t.errs = append(t.errs, field.Invalid(fp, t.g.pattern.String(),
			fmt.Sprintf("directory %s/%s of the pattern's fixed prefix %s", alias, dir, detail)))
		return false
	}
	return true
}

func pathJoin(dir, name string) string {
	if dir == "" || dir == "." {
		return name
	}
	return dir + "/" + name
}

// expandRef expands a reference template from raw captures and parses it.
func expandRef(t *pathpattern.Template, raw map[string]string) (pathpattern.Ref, error) {
	s, err := t.Expand(raw)
	if err != nil {
		return pathpattern.Ref{}, err
	}
	return pathpattern.ParseRef(s)
}

// cloneLabels returns a copy of m that is never nil.
func cloneLabels(m map[string]string) map[string]string {
	out := make(map[string]string, len(m))
	maps.Copy(out, m)
	return out
}
