package main

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// writeJSON prints the plan as JSON: keys sorted (encoding/json sorts map
// keys; struct fields are declared in order), lists in apply order, empty
// lists as [] rather than null.
func writeJSON(w io.Writer, res *planResult) error {
	out := *res
	nonNil(&out.Namespaces)
	nonNil(&out.Artifacts)
	nonNil(&out.Inventory)
	nonNil(&out.Changes)
	nonNil(&out.Warnings)
	nonNil(&out.Errors)
	for i := range out.Artifacts {
		nonNil(&out.Artifacts[i].Files)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(out)
}

func nonNil[T any](s *[]T) {
	if *s == nil {
		*s = []T{}
	}
}

// writeText prints the plan for a terminal.
func writeText(w io.Writer, res *planResult) error {
	var b strings.Builder
	section := func(title string, n int) {
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "%s (%d)\n", title, n)
	}

	section("Namespaces", len(res.Namespaces))
	for _, ns := range res.Namespaces {
		fmt.Fprintf(&b, "  %s  %s\n", ns.Name, ns.Digest)
		origins := res.origins[ns.Name]
		writeKeys(&b, "label", ns.Labels, origins.Labels)
		writeKeys(&b, "annotation", ns.Annotations, origins.Annotations)
	}

	section("Artifacts", len(res.Artifacts))
	for _, a := range res.Artifacts {
		fmt.Fprintf(&b, "  %s/%s  from %s  %d files  %s\n", a.Namespace, a.Name, a.Path, len(a.Files), a.Digest)
		for _, k := range slices.Sorted(maps.Keys(a.Inputs)) {
			fmt.Fprintf(&b, "      input  %s = %s\n", k, a.Inputs[k])
		}
	}

	section("Changes", len(res.Changes))
	counts := map[string]int{}
	for _, c := range res.Changes {
		counts[c.Action]++
		line := c.Kind + "/"
		if c.Namespace != "" {
			line += c.Namespace + "/"
		}
		line += c.Name + " " + verb(c.Action)
		if c.Reason != "" {
			line += " (" + c.Reason + ")"
		}
		fmt.Fprintf(&b, "  %s\n", line)
	}
	var summary []string
	for _, a := range []string{"create", "update", "unchanged", "delete", "release", "keep"} {
		summary = append(summary, fmt.Sprintf("%d %s", counts[a], a))
	}
	fmt.Fprintf(&b, "  %s\n", strings.Join(summary, ", "))

	if len(res.Warnings) > 0 {
		section("Warnings", len(res.Warnings))
		for _, w := range res.Warnings {
			fmt.Fprintf(&b, "  %s\n", w)
		}
	}
	if len(res.Errors) > 0 {
		section("Errors", len(res.Errors))
		for _, e := range res.Errors {
			fmt.Fprintf(&b, "  %s: %s", e.Field, field.ErrorType(e.Type))
			if e.Value != nil && e.Value != "" {
				fmt.Fprintf(&b, ": %v", quoteValue(e.Value))
			}
			fmt.Fprintf(&b, ": %s\n", e.Detail)
		}
		b.WriteString("\nThe desired state has errors: nothing will be deleted.\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeKeys prints one metadata map with the pipeline step that set each key.
func writeKeys(b *strings.Builder, kind string, m, origins map[string]string) {
	keys := slices.Sorted(maps.Keys(m))
	width := 0
	for _, k := range keys {
		width = max(width, len(k)+len(m[k])+1)
	}
	for _, k := range keys {
		kv := k + "=" + m[k]
		fmt.Fprintf(b, "      %-10s %-*s  [%s]\n", kind, width, kv, origins[k])
	}
}

// verb is the word of a Flux change line.
func verb(action string) string {
	switch action {
	case "create":
		return "created"
	case "update":
		return "configured"
	case "unchanged":
		return "unchanged"
	case "delete":
		return "deleted"
	case "release":
		return "released"
	case "keep":
		return "kept"
	}
	return action
}

func quoteValue(v any) string {
	if s, ok := v.(string); ok {
		return fmt.Sprintf("%q", s)
	}
	j, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(j)
}
