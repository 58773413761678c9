package generator

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/api/validate/content"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/tenantkit/tenantkit/pathpattern"
)

// renderedObject is one artifact rendered from one match.
type renderedObject struct {
	pathpattern.Match
	Index     int    // the artifact's index in the artifacts given to render
	Namespace string // rendered, or the namespace given to render
	Name      string
	// Conflict is the first other result with this namespace and name, or nil: neither is built.
	Conflict *renderedObject
}

// render is rule 7 of the package documentation: it expands the namespace and name templates of
// every artifact for every match, from the normalized values, and checks the results (namespace is
// that of the artifacts without a namespace template, maybe empty; the templates are bound to the
// matches' pattern, or to none). It returns one renderedObject per artifact and match whose name is
// a DNS-1123 subdomain and namespace a DNS-1123 label, by artifact, then by path; any other is left
// out, a field.Invalid at fldPath.Index(i).Child("name" or "namespace"), i the artifact's index,
// with the value and its directory, or a field.Required for an artifact without a name template.
// Two results with the same namespace and name both get Conflict, and each later one is a
// field.Duplicate on its name naming both directories and, when the artifacts differ, both
// artifacts. A match with a Problem renders nothing; one with an empty Path renders each artifact
// once, errors naming the artifact (a spec without a pattern). The results share the matches' maps;
// the errors come in result order. When errs is not empty, the caller must not act on the results
// an error touches, nor delete anything on account of the others.
func render(matches []pathpattern.Match, artifacts []compiledArtifact, namespace string, fldPath *field.Path) ([]renderedObject, field.ErrorList) {
	order := make([]int, 0, len(matches))
	for i := range matches {
		if matches[i].Problem == "" {
			order = append(order, i)
		}
	}
	slices.SortStableFunc(order, func(a, b int) int { return strings.Compare(matches[a].Path, matches[b].Path) })

	var errs field.ErrorList
	out := make([]renderedObject, 0, len(matches)*len(artifacts))
	for i := range artifacts {
		o := &artifacts[i]
		op := fldPath.Index(i)
		namePath, nsPath := op.Child("name"), op.Child("namespace")
		if o.name == nil {
			errs = append(errs, field.Required(namePath, "a name template is required"))
			continue
		}
		for _, j := range order {
			m := matches[j]
			name, ok := expandChecked(&errs, o.name, m, namePath, content.IsDNS1123Subdomain)
			ns, nsOK := namespace, true
			if o.namespace != nil {
				ns, nsOK = expandChecked(&errs, o.namespace, m, nsPath, content.IsDNS1123Label)
			}
			if ok && nsOK {
				out = append(out, renderedObject{Match: m, Index: i, Namespace: ns, Name: name})
			}
		}
	}

	first := make(map[[2]string]int, len(out)) // namespace and name -> index in out
	for k := range out {
		r := &out[k]
		key := [2]string{r.Namespace, r.Name}
		f, dup := first[key]
		if !dup {
			first[key] = k
			continue
		}
		r.Conflict = &out[f]
		if out[f].Conflict == nil {
			out[f].Conflict = r
		}
		e := field.Duplicate(fldPath.Index(r.Index).Child("name"), r.Name)
		e.Detail = fmt.Sprintf("%s render the same %s", renderedPair(&out[f], r, fldPath), objectName(key))
		errs = append(errs, e)
	}
	return out, errs
}

// expandChecked expands t from m's normalized values and checks the result with check, returning
// it, or false with an error at fldPath added to errs.
func expandChecked(errs *field.ErrorList, t *pathpattern.Template, m pathpattern.Match, fldPath *field.Path, check func(string) []string) (string, bool) {
	s, err := t.Expand(m.Normalized)
	if err != nil {
		*errs = append(*errs, field.Invalid(fldPath, t.String(), fromDir(m.Path, err.Error())))
		return "", false
	}
	if msgs := check(s); len(msgs) > 0 {
		*errs = append(*errs, field.Invalid(fldPath, s, fromDir(m.Path, strings.Join(msgs, "; "))))
		return "", false
	}
	return s, true
}

// fromDir prefixes detail with the directory it was rendered from, if any.
func fromDir(dir, detail string) string {
	if dir == "" {
		return detail
	}
	return fmt.Sprintf("rendered from directory %q: %s", dir, detail)
}

// renderedPair names the directories of two conflicting results, or their artifacts, or both.
func renderedPair(a, b *renderedObject, fldPath *field.Path) string {
	if a.Path == "" || b.Path == "" {
		return fmt.Sprintf("%s and %s", renderedOrigin(a, fldPath, true), renderedOrigin(b, fldPath, true))
	}
	both := a.Index != b.Index
	return fmt.Sprintf("directories %s and %s", renderedOrigin(a, fldPath, both), renderedOrigin(b, fldPath, both))
}

func renderedOrigin(r *renderedObject, fldPath *field.Path, withOutput bool) string {
	switch {
	case r.Path == "":
		return fldPath.Index(r.Index).String()
	case withOutput:
		return fmt.Sprintf("%q (%s)", r.Path, fldPath.Index(r.Index))
	}
	return fmt.Sprintf("%q", r.Path)
}

func objectName(key [2]string) string {
	if key[0] == "" {
		return fmt.Sprintf("name %q", key[1])
	}
	return fmt.Sprintf("namespace %q and name %q", key[0], key[1])
}
