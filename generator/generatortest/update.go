package generatortest

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"slices"

	yamlv3 "go.yaml.in/yaml/v3"

	"github.com/tenantkit/tenantkit/generator"
)

// Update returns the suite's file with the expected labels, annotations and
// origins of the selected cases' namespace expectations rewritten from
// their plans: under exact, the whole maps; otherwise the values of the
// keys the expectation lists (a key the plan no longer sets is removed).
// Comments and the other expectations are kept; the YAML is re-indented.
// A namespace the plan does not apply, or a map written as an alias, is
// left as it is. The suite itself is not modified: load the file again to
// run what Update wrote.
//
//	data, err := s.Update(ctx, generatortest.Options{Run: regexp.MustCompile("^from")})
func (s *Suite) Update(ctx context.Context, opts Options) ([]byte, error) {
	data, err := readBounded(s.path)
	if err != nil {
		return nil, err
	}
	var doc yamlv3.Node
	if err := yamlv3.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%s: %w", s.path, err)
	}
	if len(doc.Content) != 1 {
		return nil, fmt.Errorf("%s: must hold one YAML document", s.path)
	}
	cases := child(doc.Content[0], "cases")
	if cases == nil || cases.Kind != yamlv3.SequenceNode || len(cases.Content) != len(s.doc.Cases) {
		return nil, fmt.Errorf("%s: cases: changed since the suite was loaded", s.path)
	}
	r := &runner{suite: s, compiled: map[optionsDoc]compiled{}, sources: map[string]sourceRead{}}
	for i, c := range s.doc.Cases {
		if opts.Run != nil && !opts.Run.MatchString(c.Name) {
			continue
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		nodes := child(child(cases.Content[i], "expect"), "namespaces")
		if nodes == nil || len(c.Expect.Namespaces) == 0 {
			continue
		}
		plan, err := r.planCase(ctx, c)
		if err != nil {
			return nil, fmt.Errorf("%s: cases[%d] (%s): %w", s.path, i, c.Name, err)
		}
		for j, ne := range c.Expect.Namespaces {
			idx := slices.IndexFunc(plan.Namespaces, func(n generator.Namespace) bool { return n.Name == ne.Name })
			if idx < 0 || j >= len(nodes.Content) {
				continue
			}
			n := plan.Namespaces[idx]
			node := nodes.Content[j]
			setMap(node, "labels", ne.Labels, n.Labels, ne.Exact)
			setMap(node, "annotations", ne.Annotations, n.Annotations, ne.Exact)
			if origin := child(node, "origin"); origin != nil {
				setMap(origin, "labels", ne.Origin.Labels, n.Origin.Labels, false)
				setMap(origin, "annotations", ne.Origin.Annotations, n.Origin.Annotations, false)
			}
		}
	}
	var b bytes.Buffer
	enc := yamlv3.NewEncoder(&b)
	enc.SetIndent(2)
	if err := enc.Encode(&doc); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// child returns the value of key in the mapping node m, or nil.
func child(m *yamlv3.Node, key string) *yamlv3.Node {
	if m == nil || m.Kind != yamlv3.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

// setMap rewrites the map under key of the mapping node m: got entire under
// exact, else the keys of want with got's values. A key absent from m is
// added only under exact, and only when got is not empty.
func setMap(m *yamlv3.Node, key string, want, got map[string]string, exact bool) {
	var keys []string
	if exact {
		keys = slices.Sorted(maps.Keys(got))
	} else {
		for _, k := range slices.Sorted(maps.Keys(want)) {
			if _, ok := got[k]; ok {
				keys = append(keys, k)
			}
		}
	}
	node := child(m, key)
	if node == nil {
		if !exact || len(keys) == 0 {
			return
		}
		node = &yamlv3.Node{Kind: yamlv3.MappingNode}
		m.Content = append(m.Content, &yamlv3.Node{Kind: yamlv3.ScalarNode, Value: key}, node)
	}
	if node.Kind != yamlv3.MappingNode {
		return // an alias or another shape: left alone
	}
	node.Content = nil
	for _, k := range keys {
		node.Content = append(node.Content,
			&yamlv3.Node{Kind: yamlv3.ScalarNode, Value: k},
			&yamlv3.Node{Kind: yamlv3.ScalarNode, Tag: "!!str", Value: got[k]})
	}
}
