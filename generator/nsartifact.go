package generator

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/tenantkit/tenantkit/nsmeta"
	"github.com/tenantkit/tenantkit/pathpattern"
)

// artifactMeta is a namespace's NamespaceMetadata file in an artifact ("@artifact/..."): which
// artifact, and what its build read of it. Only that build writes it, while the artifacts are
// built in parallel; the namespace reads it once they are.
type artifactMeta struct {
	it    *item           // the namespace's first artifact
	ref   pathpattern.Ref // the file, rendered from that artifact's captures
	read  bool            // the artifact's build looked for the file
	found bool            // the artifact holds the file
	data  []byte
	err   error // a read that failed
	dir   bool  // ref names a directory of the artifact
}

// buildResult is what build returns.
type buildResult struct {
	namespaces []Namespace // to apply, by name
	artifacts  []Artifact  // built, by namespace and name; Plan drops those skipped since
	skipped    skips
	findings
}

// build builds the namespaces and the artifacts that the items render, those skipped aside, in
// one order, the one that a NamespaceMetadata file in the artifact ("@artifact/...") needs, as
// upstream:
//
//  1. each namespace is checked (its name, its directories) and resolved when its metadata file
//     is in a source, or its first artifact designated (designate) when the file is in an
//     artifact, in parallel; one that fails skips its artifacts, which are not built;
//  2. the artifacts are built, in parallel;
//  3. each namespace whose metadata file is in an artifact reads it from that artifact and is
//     resolved, in parallel;
//  4. the live copy of each namespace is read, one at a time in name order (see [Cluster]).
//
// A namespace that fails in 3 or 4 skips its artifacts, built or not.
func (p *planner) build(items []*item, skipped skips) buildResult {
	g := p.g
	r := buildResult{skipped: skipped.clone()}
	if !g.managed || g.policy == nil {
		r.artifacts = p.artifacts(items, r.skipped, &r.findings)
		return r
	}
	names, byNS := managedNamespaces(items)
	pending, built := p.buildNamespaces(&r, names, byNS, func(t *task, ns string, users []*item) (*Namespace, string) {
		if reason := t.checkNamespace(ns, users); reason != "" {
			return nil, reason
		}
		if g.fromArtifact {
			return nil, designate(g, users, &t.findings)
		}
		return t.resolveNamespace(ns, users, nil)
	})

	r.artifacts = p.artifacts(items, r.skipped, &r.findings)

	if g.fromArtifact {
		pending, built = p.buildNamespaces(&r, pending, byNS, func(t *task, ns string, users []*item) (*Namespace, string) {
			return t.resolveNamespace(ns, users, r.skipped)
		})
	}
	t := p.task()
	for i, ns := range pending {
		if t.liveState(built[i]) {
			r.namespaces = append(r.namespaces, *built[i])
			continue
		}
		r.skipped.namespace(ns, "the live namespace cannot be read", byNS[ns])
	}
	r.add(t.findings)
	return r
}

// designate chooses the artifact a namespace's metadata file is read from, the first as
// upstream's reconcile meets them (by directory in walkOrder, then by spec.artifacts entry), and
// renders the file's path from its raw captures. It returns why the namespace fails, or "".
func designate(g *Generator, users []*item, found *findings) string {
	first := users[0]
	for _, u := range users[1:] {
		c := walkOrder(u.match.Path, first.match.Path)
		if c < 0 || c == 0 && u.art.index < first.art.index {
			first = u
		}
	}
	t := g.fromSource
	ref, err := expandRef(t, first.match.Raw)
	if err == nil && ref.Alias != "artifact" {
		err = fmt.Errorf("must name a file of the artifact, %q", artifactRoot+"/...")
	}
	if err != nil {
		found.errs = append(found.errs, field.Invalid(nsPath.Child("metadata", "fromSource", "path"), t.String(),
			fmt.Sprintf("rendered from directory %q: %v", first.match.Path, err)))
		return "its metadata has errors"
	}
	first.meta = &artifactMeta{it: first, ref: ref}
	return ""
}

// walkOrder compares two slash paths in the order a walk of their tree visits them, depth first
// with each directory's entries by name (as filepath.WalkDir, with which upstream discovers its
// directories): element by element, a path before those below it, so "a/z" before "a-b/z".
func walkOrder(a, b string) int {
	for {
		ae, arest, amore := strings.Cut(a, "/")
		be, brest, bmore := strings.Cut(b, "/")
		if c := strings.Compare(ae, be); c != 0 {
			return c
		}
		switch {
		case !amore && !bmore:
			return 0
		case !amore:
			return -1
		case !bmore:
			return 1
		}
		a, b = arest, brest
	}
}

// readMetadataFile reads, during an artifact's build, the namespace metadata file read from it,
// if any, from its files once its copy operations are done.
func readMetadataFile(it *item, t *artifactTree) {
	m := it.meta // set before the artifacts are built, read-only now
	if m == nil {
		return
	}
	m.read = true
	f, ok := t.files[m.ref.Path]
	switch {
	case !ok && t.dirs[m.ref.Path]:
		m.dir = true
	case ok:
		m.found = true
		m.data, m.err = f.content(maxMetadataFileSize, nil)
	}
}

// metaSource returns the artifact a namespace reads its NamespaceMetadata file from (see
// designate), and its name for messages: "artifact a/api (directory "tenants/a/apps/api")".
func metaSource(users []*item) (*artifactMeta, string) {
	m := users[slices.IndexFunc(users, func(u *item) bool { return u.meta != nil })].meta
	it := m.it
	if it.match.Path == "" {
		return m, fmt.Sprintf("artifact %s/%s (spec.artifacts[%d])", it.namespace, it.name, it.art.index)
	}
	return m, fmt.Sprintf("artifact %s/%s (directory %q)", it.namespace, it.name, it.match.Path)
}

// artifactNamespaceFile returns the metadata of a namespace's NamespaceMetadata file read from
// its first artifact (designate); it fails when that artifact does, or the file is missing or bad.
func (t *task) artifactNamespaceFile(ns string, users []*item, skipped skips) (nsmeta.Metadata, string, bool) {
	fp := nsPath.Child("metadata", "fromSource", "path")
	m, in := metaSource(users)
	fail := func(detail string) (nsmeta.Metadata, string, bool) {
		t.errs = append(t.errs, field.Invalid(fp, m.ref.String(), detail))
		return nsmeta.Metadata{}, "", false
	}
	switch reason := skipped.reason(m.it.namespace, m.it.name); {
	case reason != "":
		return fail(fmt.Sprintf("namespace %q reads its NamespaceMetadata file from %s, which is not built: %s", ns, in, reason))
	case !m.read:
		// Built, but the build stopped before its files were done: its error is the artifact's.
		return fail(fmt.Sprintf("namespace %q reads its NamespaceMetadata file from %s, whose files are not built", ns, in))
	case m.dir:
		return fail(fmt.Sprintf("must be a file of %s, not a directory", in))
	case m.err != nil:
		return fail(fmt.Sprintf("the NamespaceMetadata file of namespace %q, in %s: %v", ns, in, m.err))
	case !m.found:
		return fail(fmt.Sprintf("must exist: the NamespaceMetadata file of namespace %q, in %s", ns, in))
	}
	return t.parseNamespaceFile(m.ref, m.data, fmt.Sprintf("namespace %q, %s", ns, in))
}
