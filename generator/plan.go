package generator

import (
	"cmp"
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

	"github.com/tenantkit/tenantkit/inventory"
	"github.com/tenantkit/tenantkit/nsmeta"
	"github.com/tenantkit/tenantkit/pathpattern"
)

// Plan is what one reconcile of a generator does: the namespaces and
// artifacts to apply, one decision per object, and the problems found. A
// controller applies the creates and updates, deletes the deletions in
// order, and records [Plan.Next] as its inventory.
//
// A plan with errors still creates and updates what is valid, never what
// an error touches (that is [inventory.Skip]), and deletes nothing.
//
// Previous inventory:
//
// The previous inventory is validated as inventory.Diff validates it: an
// entry that fails inventory.Entry.Validate, or whose identity an earlier
// entry has, is an error of the plan at "old[i]", as Diff reports it. The
// plan then fails closed and heals:
//
//	desired object                      its decision against the valid entry with its identity, if any
//	                                    (create, update, unchanged), recorded in the next inventory
//	invalid entry a desired object has  replaced by the desired entry (a malformed digest is written afresh)
//	valid entry not desired             keep: "the previous inventory has errors; nothing is deleted"
//	invalid entry not desired           keep, as it is: "...; this entry does not validate and is kept as it is"
//	skipped object                      skip, kept when tracked, as in any plan
//
// Nothing is deleted or released, and no stale object is read. [Plan.Next]
// holds the desired entries and every kept one, in apply order, an entry
// whose identity is listed twice twice: nothing tracked is lost. An entry
// that does not validate stays, and keeps every later plan from deleting,
// until it is corrected or removed. [Generator.Finalize] keeps every
// entry.
type Plan struct {
	// Namespaces are the managed namespaces to apply, by name. A
	// namespace that its live copy or its desired metadata keeps from
	// being applied (reconcile: disabled, ssa: Ignore or IfNotPresent) is
	// left out; its entry stays desired, and its decision, unchanged, says
	// why (see [Cluster]).
	Namespaces []Namespace
	// Artifacts are the ExternalArtifacts to apply, by namespace and name.
	Artifacts []Artifact
	// Decisions holds one decision per object, each with its reason (a
	// create, update or unchanged namespace has one when its live copy
	// gave one: adoption, drift, not applied): the desired ones (create,
	// update, unchanged) in apply order, then the skipped ones (skip) in
	// apply order, then the stale ones (delete, release, keep) in prune
	// order.
	Decisions []inventory.Decision
	// Warnings are problems that do not stop the plan, sorted.
	Warnings []string
	// Errors are the problems of the desired state, sorted, with paths
	// under "spec." (the field whose rendering or file failed) or, for
	// a tenant's file, "@alias/path:" and the path in the file; a live
	// namespace that cannot be read is one at "cluster[<name>]", a live
	// ExternalArtifact one at "cluster[<namespace>/<name>]"; a previous
	// inventory that does not validate has its problems at "old[i]", as
	// inventory.Diff reports them (see [Plan]).
	Errors field.ErrorList
	// Refused is the deletion guard's refusal, when it refused the plan's
	// deletions ([WithAllowDeleteAll], [WithMaxDeletions]): Errors holds it
	// as a Forbidden error at "spec" in the options' words, and a tool
	// words it with its own settings (inventory.RefusedError.Rule).
	Refused *inventory.RefusedError

	desired   []inventory.Entry
	collected []inventory.Decision
	previous  []inventory.Entry // the next inventory, when the previous one was invalid
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
	// Conflict is "Adopted" when the live namespace exists and no
	// generator manages it, "OwnershipConflict" when another generator's
	// label is on it, and empty otherwise: the reason of the Warning event
	// that source-watcher records when it applies such a namespace. The
	// namespace's decision and a warning of the plan say more (see [Cluster]).
	Conflict string
}

// Artifact is one ExternalArtifact.
//
// Artifact digest:
//
// An artifact's digest is "sha256:" and the lower-case hex SHA-256 of these
// bytes:
//
//	digest = { file } [ inputs ]
//	file   = path NUL length NUL content            for each file, by path in byte order
//	inputs = NUL "inputs" NUL { input }             only when there is at least one input
//	input  = keylen NUL key NUL vallen NUL value    for each input, by key in byte order
//
// path is the file's destination below "@artifact/", and content what the
// artifact holds there: a copied file's bytes, a merged file's merged YAML,
// an extracted file's bytes from its archive; length, keylen and
// vallen are decimal byte counts without leading zeros; value is the input
// as compact JSON (encoding/json.Compact). No path starts with NUL, so the
// inputs part cannot be read as a file. An artifact without inputs hashes
// its files only. testdata/artifact-digest-vectors.json pins the
// definition with vectors.
//
// Under [WithArtifactDigest] the embedder's function computes the digest
// instead, from the artifact's file system, an fs.FS that passes
// testing/fstest.TestFS: exactly the artifact's files at their
// destinations (a copied file read from its source on each Open, as the
// plan reads it, link-free and at most 8 MiB; a merged or extracted file
// from memory), every directory above them and every directory its
// archives hold, "." its root; listings by name, times zero, a file's mode
// 0755 when it is executable (its source's or its archive entry's execute
// bits) and 0644 otherwise. os.CopyFS writes it into a staging directory as
// upstream's builder leaves its own, for an embedder to archive as it does.
// source-watcher v2.3 records in status.inventory the digest of the
// tarball that its storage writes of that directory
// (fluxcd/pkg/artifact/storage's Archive: its directories and regular
// files in walk order, headers without owners or times, modes reduced to a
// directory's, an executable's or a file's, gzip-compressed, and without
// the files that Flux's default ignore patterns match, such as .git/ or
// *.png); only the archive determines it, so only the embedder can compute
// it, and an inventory it wrote then reads back as unchanged. The exported
// inputs are not in that archive, unless inputsFrom names a file of the
// artifact: a change of a source's inputs file alone leaves upstream's
// digest, and the plan's decision, unchanged, and upstream writes the new
// exportedInputs anyway, as it writes the status of every artifact it
// builds; an embedder applies every artifact of [Plan.Artifacts].
//
// Each entry of source-watcher's inventory also records the name of the
// artifact's file in its storage: "<hash>.tar.gz", a hash of the staged
// files' names and contents, so that the same content gets the same
// name. Its drift check
// looks for that file beside the digest, rebuilding an artifact whose
// file is missing and deleting one whose content does not match the
// digest; its garbage collection and its finalizer remove an artifact's
// files by their directory, not by that name. [Artifact.Filename] carries
// it, and [Plan.Next] records it: the function of [WithArtifactDigest]
// may set it, and otherwise an artifact whose digest is the previous
// entry's keeps the previous entry's name, as the same content gets the
// same name upstream; a changed artifact whose function sets none records
// none, never the name of a file that holds other content. A stale,
// skipped or kept entry is the previous one, its Filename included. So an
// inventory that source-watcher wrote, planned unchanged, reads back
// entry for entry, and an embedder that names its files as upstream does
// (setting Filename in its digest function) records what upstream would.
// Filename plays no part in a plan's decisions.
type Artifact struct {
	Name      string
	Namespace string
	// Path is the directory the pattern matched, relative to the alias root.
	Path string
	// Captures holds the raw captured values.
	Captures map[string]string
	// Labels are commonMetadata.labels, the normalized captures, then
	// GeneratorLabel.
	Labels map[string]string
	// Inputs are the values of the inputsFrom file: the ExternalArtifact's
	// status.exportedInputs, one JSON object, as json.Marshal writes the
	// map that [ReadExportedInputs] reads of it (names sorted, values
	// compact). Nil when the artifact has none: no inputsFrom, no such
	// file, or a file without values.
	Inputs json.RawMessage
	// Files are the files of the artifact, by destination, when the
	// generator was compiled [WithFileLists]; nil otherwise.
	Files []File
	// FileCount is the number of files of the artifact.
	FileCount int
	// Digest covers the files and the inputs, or is what the function of
	// [WithArtifactDigest] returns (see [Artifact]).
	Digest digest.Digest
	// Conflict is "OwnershipConflict" when the live ExternalArtifact
	// carries another generator's GeneratorLabel, and empty otherwise: the
	// reason of the Warning event that source-watcher records when it
	// takes such an artifact over. The artifact's decision and a warning
	// of the plan say more (see [Cluster]).
	Conflict string
	// Filename is the name of the artifact's file in the embedder's
	// storage, which its inventory entry records (source-watcher's
	// "<hash>.tar.gz"): the one the function of [WithArtifactDigest] set,
	// or else the previous inventory's when its entry has this Digest, or
	// else empty. It plays no part in the plan's decisions (see [Artifact]).
	Filename string
}

// File is one file of an artifact.
type File struct {
	// Path is the file's path in the artifact, below "@artifact/".
	Path string
	// Source is where its content comes from: the file copied there; for
	// a file that a Merge copy merged into, the last file merged; for a
	// file extracted from an archive, the archive.
	Source pathpattern.Ref
}

// Next returns the inventory to record once the deletions of the plan have
// been attempted: the desired entries, every tracked entry that is kept or
// skipped, and every deletion that deleted does not confirm. Nothing
// tracked leaves the inventory without a confirmed deletion or a release.
// A nil deleted confirms nothing. The result is in apply order.
//
//	next := plan.Next(func(e inventory.Entry) bool { return confirmed[e.ID()] })
//
// Its entries are released source-watcher's status.inventory entries,
// {kind, name, namespace, digest, filename}: a Namespace or ExternalArtifact
// of its usual group has no apiVersion (the one the decisions' entries
// carry for the embedder's calls), so that the CRD's structural schema
// keeps every field.
func (p *Plan) Next(deleted func(inventory.Entry) bool) []inventory.Entry {
	var next []inventory.Entry
	switch {
	case p.previous != nil:
		next = slices.Clone(p.previous)
	case deleted == nil:
		next = inventory.Next(p.desired, p.collected, func(inventory.Entry) bool { return false })
	default:
		next = inventory.Next(p.desired, p.collected, deleted)
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

// HasErrors reports whether the desired state has errors: then the plan
// deletes nothing.
func (p *Plan) HasErrors() bool { return len(p.Errors) > 0 }

const (
	namespaceAPIVersion = inventory.APIVersionNamespace
	artifactAPIVersion  = inventory.APIVersionExternalArtifact
	artifactGroup       = inventory.GroupSource
	artifactKind        = inventory.KindExternalArtifact
	namespaceKind       = inventory.KindNamespace

	reasonDesiredErrors = "desired state has errors"
)

// planner is what the steps of one plan share: the generator, the
// context, the sources and the live snapshot, read-only, and the errors
// and warnings they find (a parallel step forks it, and merges each fork
// in order). The steps themselves take and return values: discover
// returns the items and the problems, build the namespaces, the artifacts
// and the skipped namespaces, skipped and unreadable the skipped objects,
// collect the decisions.
type planner struct {
	g       *Generator
	ctx     context.Context
	sources map[string]fs.FS
	snap    *snapshot // what the plan read of the live cluster
	errs    field.ErrorList
	warn    []string

	// metaFrom holds, by the artifact it is read from, each namespace
	// metadata file that is read from an artifact (see build).
	metaFrom map[*item]*artifactMeta
}

// item is one match of one spec.artifacts entry: an artifact to build.
type item struct {
	art       *compiledArtifact
	match     pathpattern.Match
	name      string
	namespace string
	skip      string // why it is not built; "" when it is
}

// Plan plans one reconcile:
//
//	plan, err := g.Plan(ctx, map[string]fs.FS{"repo": root.FS()}, status.Inventory, cluster)
//
// sources holds the file system of each alias, rooted at the alias: any
// fs.FS that is safe for concurrent use, such as root.FS() of an [os.Root],
// which confines every read below its directory. The plan refuses
// symbolic links only where the file system reports them (fs.ReadLinkFS,
// see pathpattern.ReadFile), as os.Root's and os.DirFS do. previous is the inventory that the last
// reconcile recorded ([Plan.Next]). cluster reads the live copy of each
// desired namespace, once, and the live objects that garbage collection
// must look at.
//
// Problems of the desired state are in [Plan.Errors], not returned: the plan
// still says what to apply; a panic while building one namespace or
// artifact is one of them (see the package documentation, "Concurrency").
// When ctx ends before the plan does, while it reads the sources or the
// cluster, Plan returns no plan and ctx's error: nothing is decided, so
// nothing is to be applied or deleted. Plan reads the
// sources, never writes them; the trees must not change while it reads
// them.
func (g *Generator) Plan(ctx context.Context, sources map[string]fs.FS, previous []inventory.Entry, cluster Cluster) (*Plan, error) {
	p := &planner{g: g, ctx: ctx, sources: make(map[string]fs.FS, len(sources)), snap: newSnapshot(ctx, cluster)}
	// Each plan reads its sources through a cache of the directories it has
	// seen (see dirCache).
	for alias, fsys := range sources {
		if fsys != nil {
			p.sources[alias] = newDirCache(fsys)
		}
	}
	res := &Plan{}
	items, problems := p.discover()
	namespaces, artifacts, skippedNamespaces := p.build(items)
	// Nothing reads the sources again: their directory caches go before
	// the rest of the plan adds to what it holds.
	p.sources = nil
	artifacts = p.liveArtifacts(items, artifacts)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	// The lists are made at their size rather than grown by appending,
	// which shows in a CPU profile of BenchmarkPlan at 10,000 tenants:
	// this part runs on the one core that a plan uses after building its
	// artifacts.
	res.Namespaces, res.Artifacts = namespaces, artifacts
	desired := make([]inventory.Entry, 0, len(namespaces)+len(artifacts))
	for _, ns := range namespaces {
		desired = append(desired, inventory.Entry{APIVersion: namespaceAPIVersion, Kind: namespaceKind, Name: ns.Name, Digest: ns.Digest})
	}
	keepFilenames(artifacts, previous)
	for _, a := range artifacts {
		desired = append(desired, inventory.Entry{APIVersion: artifactAPIVersion, Kind: artifactKind, Namespace: a.Namespace, Name: a.Name, Filename: a.Filename, Digest: a.Digest})
	}
	res.Warnings = append(g.Warnings(), p.warn...)
	slices.Sort(res.Warnings)
	res.Warnings = slices.Compact(res.Warnings)
	res.Errors = p.errs

	skips := skipped(items, skippedNamespaces)
	unreadable(g, problems, skips, previous, desired)
	if err := p.collect(res, desired, previous, skips); err != nil {
		return nil, err
	}
	// A context that ended while the plan read the cluster has turned
	// every read after it into an error, or a guard that did not run: the
	// objects it left undecided are kept, and the decisions made before
	// it were made against a cluster that the caller no longer wants
	// read. That is no plan to act on.
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	res.Errors = sortErrors(res.Errors)
	return res, nil
}

// source returns the file system of an alias, which must be declared in
// spec.sources and given to Plan.
func (p *planner) source(alias string, fldPath *field.Path, value string) fs.FS {
	if !p.g.aliases[alias] {
		p.errs = append(p.errs, field.Invalid(fldPath, value, fmt.Sprintf("alias %q must be declared in spec.sources", alias)))
		return nil
	}
	fsys := p.sources[alias]
	if fsys == nil {
		p.errs = append(p.errs, field.Invalid(fldPath, value, fmt.Sprintf("alias %q has no source", alias)))
	}
	return fsys
}

// discover checks the source of the pattern, discovers its matches and
// renders every artifact's name and namespace with pathpattern.Render. It
// returns the items, and the entries that discovery found where the
// pattern needs a directory and could not read (pathpattern.Match.Problem),
// in path order. It returns no item when the source cannot be trusted: an
// error then keeps everything. Without a pattern, each spec.artifacts entry is one artifact
// whose name and namespace are literals, rendered from one match without a
// directory.
func (p *planner) discover() (items []*item, problems []pathpattern.Match) {
	g := p.g
	var matches []pathpattern.Match
	if g.pattern == nil {
		matches = []pathpattern.Match{{Raw: map[string]string{}, Normalized: map[string]string{}}}
	} else {
		fp := specPath.Child("pathPattern")
		fsys := p.source(g.pattern.Alias(), fp, g.pattern.String())
		if fsys == nil || !p.checkSource(fsys) {
			return nil, nil
		}
		ms, errs, err := g.pattern.Discover(fsys, fp)
		switch {
		case errors.Is(err, pathpattern.ErrSourceShape):
			p.errs = append(p.errs, field.Invalid(fp, g.pattern.String(), err.Error()))
			return nil, nil
		case err != nil:
			p.errs = append(p.errs, field.InternalError(fp, err))
			return nil, nil
		}
		p.errs = append(p.errs, errs...) // the directories Discover left out, and its problems
		matches = ms[:0:0]
		for _, m := range ms {
			if m.Problem != "" {
				problems = append(problems, m)
			} else {
				matches = append(matches, m)
			}
		}
	}

	outputs := make([]pathpattern.Output, len(g.artifacts))
	for i := range g.artifacts {
		outputs[i] = pathpattern.Output{Namespace: g.artifacts[i].namespace, Name: g.artifacts[i].name}
	}
	// Render leaves out what fails to render (no object to decide about),
	// and marks the artifacts that share a namespace and name: neither is
	// built.
	rendered, errs := pathpattern.Render(matches, outputs, g.opts.namespace, specPath.Child("artifacts"))
	p.errs = append(p.errs, errs...)
	items = make([]*item, len(rendered))
	for i := range rendered {
		r := &rendered[i]
		m := r.Match
		// Values that normalize to themselves, as a tenant's usually do,
		// share one map: the build only reads Normalized, and the item
		// holds one map less until its artifact is built.
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
				it.skip = fmt.Sprintf("spec.artifacts[%d] renders the same namespace and name", c.Index)
			} else {
				it.skip = fmt.Sprintf("directory %q renders the same namespace and name", c.Path)
			}
		}
		items[i] = it
	}
	return items, problems
}

// checkSource fails closed on a source that is not what the pattern
// expects: its root must be a directory, and so must every directory of the
// pattern's fixed prefix ("tenants" in "@repo/tenants/{namespace}/..."),
// none of them a symbolic link. Otherwise a misplaced or broken source
// would look like a monorepo without tenants, and the plan would delete
// every one of them.
func (p *planner) checkSource(fsys fs.FS) bool {
	fp := specPath.Child("pathPattern")
	alias := "@" + p.g.pattern.Alias()
	info, err := fs.Stat(fsys, ".")
	if err != nil {
		p.errs = append(p.errs, field.Invalid(fp, p.g.pattern.String(), fmt.Sprintf("source %s: %v", alias, err)))
		return false
	}
	if !info.IsDir() {
		p.errs = append(p.errs, field.Invalid(fp, p.g.pattern.String(), fmt.Sprintf("source %s: root must be a directory", alias)))
		return false
	}
	if p.g.prefix == "" {
		return true
	}
	dir := ""
	for seg := range strings.SplitSeq(p.g.prefix, "/") {
		dir = pathJoin(dir, seg)
		info, err := fs.Lstat(fsys, dir)
		var detail string
		switch {
		case errors.Is(err, fs.ErrNotExist):
			// git keeps no empty directory: the last tenant's leaving
			// removes tenants/ too, which looks the same as a wrong source.
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
		p.errs = append(p.errs, field.Invalid(fp, p.g.pattern.String(),
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

// fork returns a planner for one task of a parallel step: it shares what is
// read-only with p and collects its own errors and warnings, which the step
// merges into p in task order.
func (p *planner) fork() *planner {
	q := *p
	q.errs, q.warn = nil, nil
	return &q
}

func (p *planner) merge(q *planner) {
	p.errs = append(p.errs, q.errs...)
	p.warn = append(p.warn, q.warn...)
}

// expandRef expands a reference template from raw captures and parses it.
func expandRef(t *pathpattern.Template, raw map[string]string) (pathpattern.Ref, error) {
	s, err := t.Expand(raw)
	if err != nil {
		return pathpattern.Ref{}, err
	}
	return pathpattern.ParseRef(s)
}

// skippedObject is an object that an error touches.
type skippedObject struct {
	entry  inventory.Entry
	reason string
}

// skipped lists the namespaces and artifacts that were not built, by ID.
func skipped(items []*item, skippedNamespaces map[string]string) map[inventory.ID]skippedObject {
	out := map[inventory.ID]skippedObject{}
	for ns, reason := range skippedNamespaces {
		e := inventory.Entry{APIVersion: namespaceAPIVersion, Kind: namespaceKind, Name: ns}
		out[e.ID()] = skippedObject{entry: e, reason: reason}
	}
	for _, it := range items {
		if it.skip == "" {
			continue
		}
		e := inventory.Entry{APIVersion: artifactAPIVersion, Kind: artifactKind, Namespace: it.namespace, Name: it.name}
		if _, dup := out[e.ID()]; !dup {
			out[e.ID()] = skippedObject{entry: e, reason: it.skip}
		}
	}
	return out
}

// unreadable adds to skips every tracked object, not desired, that a
// directory discovery could not read (problems) (a symbolic link or a file where the
// pattern needs a directory) could have rendered, with the reason naming
// it: the problem's captures render what they can of each artifact's
// namespace and name, and a part they cannot render stands for any value.
// A link in place of a tenant's directory so keeps the tenant's namespace
// and every artifact in it; one in place of a module's directory, that
// module's artifact. (The plan has an error for each problem, and so
// deletes nothing anyway: this names the reason where it can tell.)
func unreadable(g *Generator, problems []pathpattern.Match, skips map[inventory.ID]skippedObject, previous, desired []inventory.Entry) {
	if len(problems) == 0 || len(previous) == 0 {
		return
	}
	const anyValue = "\x00" // no namespace or name holds a NUL byte
	type key struct{ namespace, name string }
	artifacts := map[key]string{} // what a problem could render (a part it cannot, anyValue) -> reason
	namespaces := map[string]string{}
	for _, m := range problems {
		reason := fmt.Sprintf("directory %q cannot be read: %s", m.Path, m.Problem)
		for i := range g.artifacts {
			a := &g.artifacts[i]
			ns := g.opts.namespace
			if a.namespace != nil {
				ns = expandOr(a.namespace, m.Normalized, anyValue)
				if _, seen := namespaces[ns]; !seen && g.managed {
					namespaces[ns] = reason
				}
			}
			k := key{ns, expandOr(a.name, m.Normalized, anyValue)}
			if _, seen := artifacts[k]; !seen {
				artifacts[k] = reason
			}
		}
	}
	isDesired := make(map[inventory.ID]bool, len(desired))
	for _, e := range desired {
		isDesired[e.ID()] = true
	}
	for _, e := range previous {
		id := e.ID()
		if isDesired[id] {
			continue
		}
		if _, skipped := skips[id]; skipped {
			continue
		}
		var reason string
		switch {
		case id.IsNamespace():
			reason = cmp.Or(namespaces[id.Name], namespaces[anyValue])
		case id.Group == artifactGroup && id.Kind == artifactKind:
			reason = cmp.Or(artifacts[key{id.Namespace, id.Name}], artifacts[key{id.Namespace, anyValue}],
				artifacts[key{anyValue, id.Name}], artifacts[key{anyValue, anyValue}])
		}
		if reason != "" {
			skips[id] = skippedObject{entry: e, reason: reason}
		}
	}
}

// expandOr expands t from values, or returns or when a capture it names
// has no value.
func expandOr(t *pathpattern.Template, values map[string]string, or string) string {
	s, err := t.Expand(values)
	if err != nil {
		return or
	}
	return s
}

// sortErrors sorts errors by field, type, detail and value, and drops
// duplicates, so that output never depends on map or scheduling order.
func sortErrors(errs field.ErrorList) field.ErrorList {
	if len(errs) == 0 {
		return nil
	}
	out := slices.Clone(errs)
	key := func(e *field.Error) string { return fmt.Sprintf("%v", e.BadValue) }
	slices.SortStableFunc(out, func(a, b *field.Error) int {
		if c := strings.Compare(a.Field, b.Field); c != 0 {
			return c
		}
		if c := strings.Compare(string(a.Type), string(b.Type)); c != 0 {
			return c
		}
		if c := strings.Compare(a.Detail, b.Detail); c != 0 {
			return c
		}
		return strings.Compare(key(a), key(b))
	})
	return slices.CompactFunc(out, func(a, b *field.Error) bool {
		return a.Field == b.Field && a.Type == b.Type && a.Detail == b.Detail && key(a) == key(b)
	})
}

// cloneLabels returns a copy of m that is never nil.
func cloneLabels(m map[string]string) map[string]string {
	out := make(map[string]string, len(m))
	maps.Copy(out, m)
	return out
}

// Reword words the deletion guard's refusal of p, if any ([Plan.Refused]),
// with the caller's names for [WithMaxDeletions] and [WithAllowDeleteAll],
// such as a tool's flags: the Forbidden error at "spec" and the reason of
// every deletion that the refusal kept. A plan the guard did not refuse is
// left as it is.
//
//	plan.Reword("-max-deletions", "-allow-delete-all")
func (p *Plan) Reword(maxDeletions, allowDeleteAll string) {
	if p.Refused == nil {
		return
	}
	was := p.Refused.Rule("WithMaxDeletions", "WithAllowDeleteAll")
	now := p.Refused.Rule(maxDeletions, allowDeleteAll)
	for i, e := range p.Errors {
		if e.Type == field.ErrorTypeForbidden && e.Field == specPath.String() && e.Detail == was {
			c := *e
			c.Detail = now
			p.Errors[i] = &c
		}
	}
	for i, d := range p.Decisions {
		if d.Action == inventory.Keep && d.Reason == "deletion refused: "+was {
			p.Decisions[i].Reason = "deletion refused: " + now
		}
	}
}
