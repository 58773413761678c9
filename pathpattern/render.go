package pathpattern

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/api/validate/content"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Rendered is one match with the object namespace and name that its
// templates produced.
type Rendered struct {
	Match
	Namespace string // empty when there is no namespace template
	Name      string
}

// Render expands the namespace and name templates of one object kind (an
// ArtifactGenerator's artifacts[i].namespace and .name) for every match,
// from the normalized values, and checks the results. It returns one
// [Rendered] per match, in the order of matches, and every problem found:
//
//	out, errs := pathpattern.Render(ms, nsTemplate, nameTemplate, field.NewPath("spec", "artifacts").Index(i))
//
// A name that is not a DNS-1123 subdomain or a namespace that is not a
// DNS-1123 label is a field.Invalid error on fldPath.Child("name") or
// fldPath.Child("namespace") whose detail names the directory that produced
// it. Two directories that render the same namespace and name are a
// field.Duplicate error on fldPath.Child("name") whose detail names both
// directories, reported at the later one in path order. The errors come in
// path order of their directories. namespace may be nil, for objects that
// take a fixed namespace from elsewhere; a nil name is a field.Required
// error. Both templates must be bound to the pattern that produced matches;
// a capture without a value is a field.Invalid error on the template.
//
// When errs is not empty, the caller must not act on the result, and in
// particular must not delete anything on its account.
func Render(matches []Match, namespace, name *Template, fldPath *field.Path) ([]Rendered, field.ErrorList) {
	namePath, nsPath := fldPath.Child("name"), fldPath.Child("namespace")
	if name == nil {
		return nil, field.ErrorList{field.Required(namePath, "a name template is required")}
	}
	out := make([]Rendered, len(matches))
	order := make([]int, len(matches))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return strings.Compare(matches[a].Path, matches[b].Path) })

	var errs field.ErrorList
	first := make(map[[2]string]string, len(matches)) // namespace and name -> first directory
	for _, i := range order {
		m := matches[i]
		out[i].Match = m
		valid := true
		if namespace != nil {
			ns, err := namespace.Expand(m.Normalized)
			if err != nil {
				errs = append(errs, field.Invalid(nsPath, namespace.String(), err.Error()))
				valid = false
			} else if msgs := content.IsDNS1123Label(ns); len(msgs) > 0 {
				errs = append(errs, field.Invalid(nsPath, ns, fromDir(m.Path, msgs)))
				valid = false
			}
			out[i].Namespace = ns
		}
		nm, err := name.Expand(m.Normalized)
		if err != nil {
			errs = append(errs, field.Invalid(namePath, name.String(), err.Error()))
			valid = false
		} else if msgs := content.IsDNS1123Subdomain(nm); len(msgs) > 0 {
			errs = append(errs, field.Invalid(namePath, nm, fromDir(m.Path, msgs)))
			valid = false
		}
		out[i].Name = nm
		if !valid {
			continue
		}
		key := [2]string{out[i].Namespace, nm}
		if dir, dup := first[key]; dup {
			e := field.Duplicate(namePath, nm)
			e.Detail = fmt.Sprintf("directories %q and %q render the same %s", dir, m.Path, objectName(key))
			errs = append(errs, e)
			continue
		}
		first[key] = m.Path
	}
	return out, errs
}

func fromDir(dir string, msgs []string) string {
	return fmt.Sprintf("rendered from directory %q: %s", dir, strings.Join(msgs, "; "))
}

func objectName(key [2]string) string {
	if key[0] == "" {
		return fmt.Sprintf("name %q", key[1])
	}
	return fmt.Sprintf("namespace %q and name %q", key[0], key[1])
}
