package generatortest

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/tenantkit/tenantkit/cel"
	"github.com/tenantkit/tenantkit/generator"
)

// CoverageItem is one policy of the suite's generator and how many of the
// run's cases check it. The policies are the name policy's rules
// ("spec.managedNamespaces.allowedNames[0]", in the seed shape), the
// metadata pipeline's from[] operations ("spec.managedNamespaces.metadata.from[1]")
// and the schema's keys
// ("spec.managedNamespaces.metadata.fromSource.allowedLabels[team]"). A case
// checks a name rule when one of its expectations names a namespace (a
// namespace expectation, or an object expectation on Namespace/<name>)
// that the rule accepts, or when one of its error expectations is met by
// the refusal of a namespace name, which every rule refused. A case
// checks a policy when one of its namespace expectations names a key (its
// value, its origin, or every key under exact) that the policy set in the
// case's plan (for a schema key: the key, taken from the tenant's file),
// or when one of its error expectations is met by an error at the schema
// key in a tenant's file (a refused value). A plan that merely applies a
// policy, unchecked, does not count.
type CoverageItem struct {
	// Generator is the generator file, as the suite names it, joined to
	// the suite's directory.
	Generator string `json:"generator"`
	// Path is the policy's field path in the spec.
	Path string `json:"path"`
	// Cases is the number of cases that check it.
	Cases int `json:"cases"`
}

// coverageItems lists the policies of a spec, in the spec's order: the
// from[] operations, then the allowed labels and annotations by key.
func coverageItems(spec *generator.Spec) []coverageItem {
	const prefix = "spec.managedNamespaces.metadata"
	var md *generator.NamespaceMetadata
	if spec.ManagedNamespaces != nil {
		md = spec.ManagedNamespaces.Metadata
	}
	var items []coverageItem
	if mn := spec.ManagedNamespaces; mn != nil {
		for i, expr := range mn.AllowedNames {
			// A rule that does not compile fails the generator's Compile:
			// no case can check it, and the run reports that error.
			if prog, err := cel.Compile(expr, "ns"); err == nil {
				items = append(items, coverageItem{path: fmt.Sprintf("spec.managedNamespaces.allowedNames[%d]", i), nameRule: prog})
			}
		}
	}
	if md == nil {
		return items
	}
	for i := range md.From {
		items = append(items, coverageItem{path: fmt.Sprintf("%s.from[%d]", prefix, i), origin: fmt.Sprintf("from[%d]", i)})
	}
	if fs := md.FromSource; fs != nil {
		for _, k := range slices.Sorted(maps.Keys(fs.AllowedLabels)) {
			items = append(items, coverageItem{path: prefix + ".fromSource.allowedLabels[" + k + "]", label: k})
		}
		for _, k := range slices.Sorted(maps.Keys(fs.AllowedAnnotations)) {
			items = append(items, coverageItem{path: prefix + ".fromSource.allowedAnnotations[" + k + "]", annotation: k})
		}
	}
	return items
}

// coverageItem is a policy and how a plan shows it was exercised: one of
// origin (a from[] step), label or annotation (a schema key) is set.
type coverageItem struct {
	path              string
	origin            string
	label, annotation string
	nameRule          *cel.Program // an allowedNames rule over ns
}

// checkedBy reports whether the expectations e check the item in plan p:
// a namespace expectation on a key (its value, its origin, or every key
// under exact) that the item set in p, or an error expectation met by an
// error at the item's key in a tenant's file (a refused value).
func (it coverageItem) checkedBy(e expectDoc, p *generator.Plan) bool {
	if it.nameRule != nil {
		return it.checksName(e, p)
	}
	for _, ne := range e.Namespaces {
		idx := slices.IndexFunc(p.Namespaces, func(n generator.Namespace) bool { return n.Name == ne.Name })
		if idx < 0 {
			continue
		}
		n := p.Namespaces[idx]
		if it.annotation == "" && it.setsAny(checkedKeys(ne.Labels, ne.Origin.Labels, n.Labels, ne.Exact), n.Origin.Labels, it.label) {
			return true
		}
		if it.label == "" && it.setsAny(checkedKeys(ne.Annotations, ne.Origin.Annotations, n.Annotations, ne.Exact), n.Origin.Annotations, it.annotation) {
			return true
		}
	}
	for _, ee := range e.Errors {
		for _, err := range p.Errors {
			if !matchesError(ee, err) || !strings.HasPrefix(err.Field, "@") {
				continue
			}
			if (it.label != "" && strings.HasSuffix(err.Field, "metadata.labels["+it.label+"]")) ||
				(it.annotation != "" && strings.HasSuffix(err.Field, "metadata.annotations["+it.annotation+"]")) {
				return true
			}
		}
	}
	return false
}

// setsAny reports whether the item set one of keys, by their origins: the
// item's from[] step, or, for a schema key, the tenant's file.
func (it coverageItem) setsAny(keys []string, origin map[string]string, schemaKey string) bool {
	for _, k := range keys {
		if (it.origin != "" && origin[k] == it.origin) || (schemaKey != "" && k == schemaKey && origin[k] == "source") {
			return true
		}
	}
	return false
}

// checkedKeys returns the keys an expectation checks.
func checkedKeys(values, origins, got map[string]string, exact bool) []string {
	keys := slices.Collect(maps.Keys(values))
	keys = append(keys, slices.Collect(maps.Keys(origins))...)
	if exact {
		keys = append(keys, slices.Collect(maps.Keys(got))...)
	}
	return keys
}

// checksName reports whether the expectations e check the name rule of
// the item: a namespace they name that the rule accepts, or an expected
// error that is a namespace name's refusal (every rule refused it).
func (it coverageItem) checksName(e expectDoc, p *generator.Plan) bool {
	var names []string
	for _, ne := range e.Namespaces {
		names = append(names, ne.Name)
	}
	for _, oe := range e.Objects {
		if name, ok := strings.CutPrefix(oe.Object, "Namespace/"); ok {
			names = append(names, name)
		}
	}
	for _, name := range names {
		if ok, err := it.nameRule.Eval(context.Background(), map[string]string{"ns": name}); err == nil && ok {
			return true
		}
	}
	for _, ee := range e.Errors {
		for _, err := range p.Errors {
			if matchesError(ee, err) && strings.HasSuffix(err.Field, ".namespace") && strings.Contains(err.Detail, "allowedNames") {
				return true
			}
		}
	}
	return false
}
