package generator

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"slices"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/tenantkit/tenantkit/nsmeta"
	"github.com/tenantkit/tenantkit/pathpattern"
)

// managedNamespaces returns the managed namespaces the items render, sorted, and each one's items.
func managedNamespaces(items []*item) ([]string, map[string][]*item) {
	// Only what a namespace template renders is managed; the name policy refuses the generator's.
	byNS := map[string][]*item{}
	for _, it := range items {
		if it.art.namespace != nil {
			byNS[it.namespace] = append(byNS[it.namespace], it)
		}
	}
	return slices.Sorted(maps.Keys(byNS)), byNS
}

// buildNamespaces calls build for each of names, in parallel, each with its own task (a build
// that panics is an error of its own), adds what each found to r and skips each namespace that
// fails, with its artifacts. It returns the others, in name order, and what their builds returned.
func (p *planner) buildNamespaces(r *buildResult, names []string, byNS map[string][]*item, build func(t *task, ns string, users []*item) (*Namespace, string)) ([]string, []*Namespace) {
	type built struct {
		t      *task // nil: not built, the context ended
		ns     *Namespace
		reason string
	}
	out := make([]built, len(names))
	panics := parallel(p.ctx, p.workers(), len(names), func(i int) {
		t := p.task()
		out[i].t = t
		out[i].ns, out[i].reason = build(t, names[i], byNS[names[i]])
	})
	// Nothing else of a build that panicked counts: its errors and warnings may be half done.
	for i, v := range panics {
		t := p.task()
		t.errs = append(t.errs, field.InternalError(byNS[names[i]][0].art.path.Child("namespace"),
			fmt.Errorf("namespace %q: panic: %v", names[i], v)))
		out[i] = built{t: t, reason: reasonPanic}
	}
	var ok []string
	var nss []*Namespace
	for i, c := range out {
		if c.t == nil {
			continue
		}
		r.add(c.t.findings)
		if c.reason != "" {
			r.skipped.namespace(names[i], c.reason, byNS[names[i]])
			continue
		}
		ok, nss = append(ok, names[i]), append(nss, c.ns)
	}
	return ok, nss
}

// checkNamespace returns why a namespace's name or directories fail it, before its metadata, or "".
func (t *task) checkNamespace(ns string, users []*item) string {
	g := t.g
	first := users[0]
	// Directories differing only in case make one namespace: its owner and file would be arbitrary.
	firstRaw, _ := first.art.namespace.Expand(first.match.Raw)
	for _, u := range users[1:] {
		if raw, _ := u.art.namespace.Expand(u.match.Raw); raw != firstRaw {
			t.errs = append(t.errs, field.Invalid(first.art.path.Child("namespace"), ns, fmt.Sprintf(
				"directories %q and %q render the same namespace from %q and %q, which differ in case", first.match.Path, u.match.Path, firstRaw, raw)))
			return fmt.Sprintf("directories %q and %q collide", first.match.Path, u.match.Path)
		}
	}
	if err := g.policy.Check(t.ctx, ns); err != nil {
		fp := first.art.path.Child("namespace")
		if !isNameRefusal(err) {
			// Not a verdict on the name (cel's time budget ran out): an internal error,
			// and the namespace waits for the next plan.
			t.errs = append(t.errs, field.InternalError(fp, fmt.Errorf("rendered from directory %q: %w", first.match.Path, err)))
			return "its name could not be checked"
		}
		t.errs = append(t.errs, field.Invalid(fp, ns, fmt.Sprintf("rendered from directory %q: %v", first.match.Path, err)))
		return "refused by the name policy"
	}
	return ""
}

// resolveNamespace reads a namespace's metadata file, if any, and runs the metadata pipeline.
// skipped says which artifacts are not built, for a file in an artifact.
func (t *task) resolveNamespace(ns string, users []*item, skipped skips) (*Namespace, string) {
	fromFile, file, ok := t.namespaceFile(ns, users, skipped)
	if !ok {
		return nil, "its metadata has errors"
	}
	r, errs := t.g.pipeline.Resolve(ns, fromFile)
	if len(errs) > 0 {
		// Only the tenant's file can have caused them.
		var from string
		if t.g.fromArtifact {
			_, in := metaSource(users)
			from = fmt.Sprintf("namespace %q, %s", ns, in)
		}
		for _, e := range errs {
			t.errs = append(t.errs, inFile(file, from, e))
		}
		return nil, "its metadata has errors"
	}
	return &Namespace{Name: ns, Labels: r.Labels, Annotations: r.Annotations, Origin: r.Origin, Digest: nsmeta.Digest(r.Metadata)}, ""
}

// maxMetadataFileSize bounds a namespace's NamespaceMetadata file: 1 MiB, the most that
// nsmeta.ParseFile accepts, so that a larger file is refused before it is read whole.
const maxMetadataFileSize = 1 << 20

// namespaceFile reads, parses and checks a namespace's NamespaceMetadata file, if any, and
// names it. ok is false when the file had errors or does not exist: as source-watcher, a file
// named per namespace is required, lest a tenant whose file went missing be planned without it.
func (t *task) namespaceFile(ns string, users []*item, skipped skips) (md nsmeta.Metadata, file string, ok bool) {
	tmpl := t.g.fromSource
	if tmpl == nil {
		return nsmeta.Metadata{}, "", true
	}
	if t.g.fromArtifact {
		return t.artifactNamespaceFile(ns, users, skipped)
	}
	fp := nsPath.Child("metadata", "fromSource", "path")
	ref, err := expandRef(tmpl, users[0].match.Raw)
	if err != nil {
		t.errs = append(t.errs, field.Invalid(fp, tmpl.String(), fmt.Sprintf("rendered from directory %q: %v", users[0].match.Path, err)))
		return nsmeta.Metadata{}, "", false
	}
	// All the namespace's directories must name one file, or which counts would depend on order.
	for _, u := range users[1:] {
		other, err := expandRef(tmpl, u.match.Raw)
		if err == nil && other != ref {
			t.errs = append(t.errs, field.Invalid(fp, tmpl.String(), fmt.Sprintf(
				"namespace %q gets its metadata from two files: %q (directory %q) and %q (directory %q)", ns, ref, users[0].match.Path, other, u.match.Path)))
			return nsmeta.Metadata{}, "", false
		}
	}
	fsys := t.source(ref.Alias, fp, ref.String())
	if fsys == nil {
		return nsmeta.Metadata{}, "", false
	}
	data, err := pathpattern.ReadFile(fsys, ref.Path, maxMetadataFileSize)
	if errors.Is(err, fs.ErrNotExist) {
		t.errs = append(t.errs, field.Invalid(fp, ref.String(), fmt.Sprintf(
			"must exist: the NamespaceMetadata file of namespace %q, rendered from directory %q: %v", ns, users[0].match.Path, err)))
		return nsmeta.Metadata{}, "", false
	}
	if err != nil {
		t.errs = append(t.errs, field.Invalid(fp, ref.String(), err.Error()))
		return nsmeta.Metadata{}, "", false
	}
	return t.parseNamespaceFile(ref, data, "")
}

// parseNamespaceFile parses and checks a namespace's NamespaceMetadata file, read from ref.
// from, for an artifact's file, says whose ("namespace "a", artifact a/api (directory
// "tenants/a/apps/api")") in its every error and warning: "@artifact/ns.yaml" names no tenant.
func (t *task) parseNamespaceFile(ref pathpattern.Ref, data []byte, from string) (md nsmeta.Metadata, file string, ok bool) {
	fail := func(errs ...*field.Error) (nsmeta.Metadata, string, bool) {
		for _, e := range errs {
			t.errs = append(t.errs, inFile(ref.String(), from, e))
		}
		return nsmeta.Metadata{}, "", false
	}
	md, ferrs, err := nsmeta.ParseFile(data)
	if err != nil {
		// The file as a whole: the field is the file, the detail what is wrong with it in
		// the file's words (a FileError's Detail; its text names the package).
		detail := err.Error()
		if fe, ok := errors.AsType[*nsmeta.FileError](err); ok {
			detail = fe.Detail
		}
		return fail(&field.Error{Type: field.ErrorTypeInvalid, BadValue: field.OmitValueType{}, Detail: detail})
	}
	if len(ferrs) > 0 {
		return fail(ferrs...)
	}
	if t.g.schema == nil {
		return md, ref.String(), true
	}
	kept, warnings, errs := t.g.schema.Apply(t.ctx, md)
	for _, w := range warnings {
		if from != "" {
			w += " (" + from + ")"
		}
		t.warn = append(t.warn, ref.String()+": "+w)
	}
	if len(errs) > 0 {
		return fail(errs...)
	}
	return kept, ref.String(), true
}

// inFile returns e with its field path prefixed by a tenant's file ("@repo/t/a/ns.yaml:" before
// "metadata.labels[team]") and, when from is set, its detail followed by "(<from>)".
func inFile(file, from string, e *field.Error) *field.Error {
	c := *e
	if c.Field == "" || c.Field == "<nil>" {
		c.Field = file
	} else {
		c.Field = file + ":" + c.Field
	}
	if from != "" {
		c.Detail += " (" + from + ")"
	}
	return &c
}

// isNameRefusal reports whether a name policy's error is its verdict, not a failure to reach one.
func isNameRefusal(err error) bool {
	return errors.Is(err, nsmeta.ErrInvalidName) || errors.Is(err, nsmeta.ErrProtectedName) || errors.Is(err, nsmeta.ErrNameNotAllowed)
}
