package main

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/opencontainers/go-digest"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/tenantkit/tenantkit/generator"
	"github.com/tenantkit/tenantkit/inventory"
	"github.com/tenantkit/tenantkit/nsmeta"
)

// planResult is a plan to print: the plan's own lists, which the writers
// convert to the output shape one item at a time, and its errors,
// converted and without duplicates.
type planResult struct {
	namespaces []generator.Namespace
	artifacts  []generator.Artifact
	decisions  []generator.Decision
	inventory  []inventory.Entry
	warnings   []string
	errors     []planFieldError
}

// planJSON is the plan in the shape of the JSON output. Struct fields are
// declared in the order of their JSON names, and encoding/json sorts map
// keys, so every object's keys come sorted.
type planJSON struct {
	Artifacts  []planArtifact   `json:"artifacts"`
	Changes    []planChange     `json:"changes"`
	Errors     []planFieldError `json:"errors"`
	Inventory  []inventoryItem  `json:"inventory"`
	Namespaces []planNamespace  `json:"namespaces"`
	Warnings   []string         `json:"warnings"`
}

type planNamespace struct {
	Annotations map[string]string `json:"annotations"`
	Digest      digest.Digest     `json:"digest"`
	Labels      map[string]string `json:"labels"`
	Name        string            `json:"name"`
	Origin      nsmeta.Metadata   `json:"origin"`
}

type planArtifact struct {
	Captures  map[string]string          `json:"captures"`
	Digest    digest.Digest              `json:"digest"`
	Files     []string                   `json:"files"`
	Inputs    map[string]json.RawMessage `json:"inputs"`
	Labels    map[string]string          `json:"labels"`
	Name      string                     `json:"name"`
	Namespace string                     `json:"namespace"`
	Path      string                     `json:"path"`
}

type inventoryItem struct {
	APIVersion string        `json:"apiVersion,omitempty"`
	Digest     digest.Digest `json:"digest,omitempty"`
	Kind       string        `json:"kind"`
	Name       string        `json:"name"`
	Namespace  string        `json:"namespace,omitempty"`
}

type planChange struct {
	Action    string `json:"action"`
	Kind      string `json:"kind"`
	Name      string `json:"name"`
	Namespace string `json:"namespace,omitempty"`
	Reason    string `json:"reason,omitempty"`
}

type planFieldError struct {
	Detail string `json:"detail"`
	Field  string `json:"field"`
	Type   string `json:"type"`
	Value  any    `json:"value"`
}

// hasErrors reports whether the desired state had errors: then the plan
// deletes nothing.
func (r *planResult) hasErrors() bool { return len(r.errors) > 0 }

// result holds a plan for printing. The preview assumes that every
// deletion succeeds: its inventory is the one a controller records then.
func result(p *generator.Plan) *planResult {
	return &planResult{
		namespaces: p.Namespaces,
		artifacts:  p.Artifacts,
		decisions:  p.Decisions,
		inventory:  p.Next(func(inventory.Entry) bool { return true }),
		warnings:   p.Warnings,
		errors:     fieldErrors(p.Errors),
	}
}

// The conversions to the output shape, one per item kind.

func toNamespace(ns generator.Namespace) planNamespace {
	return planNamespace{Name: ns.Name, Labels: ns.Labels, Annotations: ns.Annotations, Origin: ns.Origin, Digest: ns.Digest}
}

func toArtifact(a generator.Artifact) planArtifact {
	files := make([]string, 0, len(a.Files))
	for _, f := range a.Files {
		files = append(files, f.Path)
	}
	return planArtifact{
		Name: a.Name, Namespace: a.Namespace, Path: a.Path, Captures: a.Captures,
		Labels: a.Labels, Inputs: a.Inputs, Files: files, Digest: a.Digest,
	}
}

func toChange(d generator.Decision) planChange {
	id := d.Entry.ID()
	return planChange{Action: string(d.Action), Kind: id.Kind, Namespace: id.Namespace, Name: id.Name, Reason: d.Reason}
}

func toInventoryItem(e inventory.Entry) inventoryItem {
	id := e.ID()
	return inventoryItem{APIVersion: e.APIVersion, Kind: id.Kind, Namespace: id.Namespace, Name: id.Name, Digest: e.Digest}
}

// fieldErrors converts field errors to the output shape, one line each:
// a detail that spans lines (a CEL compile error with its caret) has its
// lines joined with spaces.
func fieldErrors(errs field.ErrorList) []planFieldError {
	out := make([]planFieldError, 0, len(errs))
	seen := map[string]bool{}
	for _, e := range errs {
		v := e.BadValue
		if _, omit := v.(field.OmitValueType); omit {
			v = nil
		}
		fe := planFieldError{Field: e.Field, Type: string(e.Type), Value: v, Detail: oneLine(e.Detail)}
		key := fmt.Sprintf("%s\x00%s\x00%s\x00%s", fe.Field, fe.Type, fe.Detail, quoteValue(fe.Value))
		if !seen[key] {
			seen[key] = true
			out = append(out, fe)
		}
	}
	return out
}

func oneLine(s string) string {
	if !strings.Contains(s, "\n") {
		return s
	}
	var parts []string
	for l := range strings.Lines(s) {
		if l = strings.TrimRight(l, "\n"); strings.TrimSpace(l) != "" {
			parts = append(parts, l)
		}
	}
	return strings.Join(parts, " ")
}

// writeJSON prints the plan as JSON: keys sorted, lists in apply order,
// empty lists as [] rather than null.
func writeJSON(w io.Writer, res *planResult) error {
	out := planJSON{
		Artifacts:  convert(res.artifacts, toArtifact),
		Changes:    convert(res.decisions, toChange),
		Errors:     res.errors,
		Inventory:  convert(res.inventory, toInventoryItem),
		Namespaces: convert(res.namespaces, toNamespace),
		Warnings:   res.warnings,
	}
	nonNil(&out.Errors)
	nonNil(&out.Warnings)
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(out)
}

// convert converts every item; the result is never nil.
func convert[T, U any](items []T, conv func(T) U) []U {
	out := make([]U, 0, len(items))
	for _, it := range items {
		out = append(out, conv(it))
	}
	return out
}

func nonNil[T any](s *[]T) {
	if *s == nil {
		*s = []T{}
	}
}

// writeText prints the plan for a terminal; changesOnly leaves out the
// unchanged objects.
func writeText(w io.Writer, res *planResult, changesOnly bool) error {
	var b strings.Builder
	section := func(title string, n int) {
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "%s (%d)\n", title, n)
	}

	section("Namespaces", len(res.namespaces))
	for _, ns := range res.namespaces {
		fmt.Fprintf(&b, "  %s  %s\n", ns.Name, ns.Digest)
		writeKeys(&b, "label", ns.Labels, ns.Origin.Labels)
		writeKeys(&b, "annotation", ns.Annotations, ns.Origin.Annotations)
	}

	section("Artifacts", len(res.artifacts))
	for _, a := range res.artifacts {
		fmt.Fprintf(&b, "  %s/%s  from %s  %d files  %s\n", a.Namespace, a.Name, a.Path, a.FileCount, a.Digest)
		for _, k := range slices.Sorted(maps.Keys(a.Inputs)) {
			fmt.Fprintf(&b, "      input  %s = %s\n", k, a.Inputs[k])
		}
	}

	counts := map[string]int{}
	var lines []string
	for _, d := range res.decisions {
		c := toChange(d)
		counts[c.Action]++
		if changesOnly && c.Action == string(generator.Unchanged) {
			continue
		}
		line := c.Kind + "/"
		if c.Namespace != "" {
			line += c.Namespace + "/"
		}
		line += c.Name + " " + generator.Action(c.Action).Verb()
		if c.Reason != "" {
			line += " (" + c.Reason + ")"
		}
		lines = append(lines, line)
	}
	section("Changes", len(lines))
	for _, l := range lines {
		fmt.Fprintf(&b, "  %s\n", l)
	}
	var summary []string
	for _, a := range []string{"create", "update", "unchanged", "delete", "release", "keep"} {
		summary = append(summary, fmt.Sprintf("%d %s", counts[a], a))
	}
	if n := counts["skip"]; n > 0 {
		summary = append(summary, fmt.Sprintf("%d skip", n))
	}
	fmt.Fprintf(&b, "  %s\n", strings.Join(summary, ", "))

	if len(res.warnings) > 0 {
		section("Warnings", len(res.warnings))
		for _, w := range res.warnings {
			fmt.Fprintf(&b, "  %s\n", w)
		}
	}
	if len(res.errors) > 0 {
		section("Errors", len(res.errors))
		for _, e := range res.errors {
			fmt.Fprintf(&b, "  %s\n", errorLine(e))
		}
		b.WriteString("\nThe desired state has errors: nothing will be deleted.\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// errorLine prints a field error on one line: field: type: value: detail.
func errorLine(e planFieldError) string {
	typ := field.ErrorType(e.Type).String()
	s := e.Field + ": " + typ
	if e.Field == "" {
		s = typ
	}
	if e.Value != nil && e.Value != "" {
		s += ": " + quoteValue(e.Value)
	}
	return s + ": " + e.Detail
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

func quoteValue(v any) string {
	if v == nil {
		return ""
	}
	if s, ok := v.(string); ok {
		return fmt.Sprintf("%q", s)
	}
	j, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("%q", fmt.Sprint(v))
	}
	return string(j)
}
