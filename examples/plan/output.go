package main

import (
	"bufio"
	"bytes"
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
	// assumptions are what the plan assumed for want of an input (no
	// previous inventory or an empty one, no live cluster), which the
	// output states every time.
	assumptions []string
	namespaces  []generator.Namespace
	artifacts   []generator.Artifact
	decisions   []inventory.Decision
	inventory   []inventory.Entry
	warnings    []string
	errors      []planFieldError
	// allow says which flag allows the deletions the plan refused, or "".
	allow string
}

type planNamespace struct {
	Annotations map[string]string `json:"annotations"`
	// Conflict is generator.Namespace.Conflict: "Adopted",
	// "OwnershipConflict", or empty and left out.
	Conflict string            `json:"conflict,omitempty"`
	Digest   digest.Digest     `json:"digest"`
	Labels   map[string]string `json:"labels"`
	Name     string            `json:"name"`
	Origin   nsmeta.Metadata   `json:"origin"`
}

type planArtifact struct {
	Captures map[string]string `json:"captures"`
	// Conflict is generator.Artifact.Conflict: "OwnershipConflict", or
	// empty and left out.
	Conflict  string            `json:"conflict,omitempty"`
	Digest    digest.Digest     `json:"digest"`
	Files     []string          `json:"files"`
	Inputs    json.RawMessage   `json:"inputs"`
	Labels    map[string]string `json:"labels"`
	Name      string            `json:"name"`
	Namespace string            `json:"namespace"`
	Path      string            `json:"path"`
}

type inventoryItem struct {
	APIVersion string        `json:"apiVersion,omitempty"`
	Digest     digest.Digest `json:"digest,omitempty"`
	Filename   string        `json:"filename,omitempty"`
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
		allow:      allowFlag(p.Refused),
	}
}

// allowFlag names the flag that allows the deletions of a refused plan.
func allowFlag(r *inventory.RefusedError) string {
	switch {
	case r == nil:
		return ""
	case r.Max < 0:
		return "-allow-delete-all"
	default:
		return "a larger -max-deletions"
	}
}

// The conversions to the output shape, one per item kind.

func toNamespace(ns generator.Namespace) planNamespace {
	return planNamespace{Name: ns.Name, Labels: ns.Labels, Annotations: ns.Annotations, Origin: ns.Origin, Digest: ns.Digest, Conflict: ns.Conflict}
}

func toArtifact(a generator.Artifact) planArtifact {
	files := make([]string, 0, len(a.Files))
	for _, f := range a.Files {
		files = append(files, f.Path)
	}
	inputs := a.Inputs
	if len(inputs) == 0 {
		inputs = json.RawMessage("{}")
	}
	return planArtifact{
		Name: a.Name, Namespace: a.Namespace, Path: a.Path, Captures: a.Captures,
		Labels: a.Labels, Inputs: inputs, Files: files, Digest: a.Digest, Conflict: a.Conflict,
	}
}

func toChange(d inventory.Decision) planChange {
	id := d.Entry.ID()
	return planChange{Action: d.Action.String(), Kind: id.Kind, Namespace: id.Namespace, Name: id.Name, Reason: d.Reason}
}

func toInventoryItem(e inventory.Entry) inventoryItem {
	id := e.ID()
	return inventoryItem{APIVersion: e.APIVersion, Kind: id.Kind, Namespace: id.Namespace, Name: id.Name, Digest: e.Digest, Filename: e.Filename}
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
		fe := planFieldError{Field: toolField(e.Field), Type: string(e.Type), Value: v, Detail: oneLine(e.Detail)}
		key := fmt.Sprintf("%s\x00%s\x00%s\x00%s", fe.Field, fe.Type, fe.Detail, quoteValue(fe.Value))
		if !seen[key] {
			seen[key] = true
			out = append(out, fe)
		}
	}
	return out
}

// optionFields are the field paths at which generator.Compile reports an
// invalid option, with what sets the option in this tool: the
// -generator's metadata, or a flag. The tool's messages name these, never
// a Go option.
var optionFields = map[string]string{
	"WithUID":          "metadata.uid",
	"WithNamespace":    "metadata.namespace",
	"WithMaxDeletions": "-max-deletions",
}

// toolField returns the path of a field error in the tool's words: a path
// under an option's (optionFields) under what sets the option; any other
// as it is.
func toolField(path string) string {
	for opt, words := range optionFields {
		if rest, ok := strings.CutPrefix(path, opt); ok && (rest == "" || rest[0] == '.' || rest[0] == '[') {
			return words + rest
		}
	}
	return path
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
// empty lists as [] rather than null, indented by two spaces, with no HTML
// escaping: the bytes of a json.Encoder with SetIndent("", "  ") and
// SetEscapeHTML(false) encoding the whole plan at once. It converts and
// encodes one list item at a time into a buffered writer, so that it holds
// one item, not the whole plan, in the output shape and as JSON (some 40 MB
// of JSON at 10,000 tenants). An encoding error (a value that JSON cannot
// hold, such as NaN, which no decoded input is) can leave a part of the
// plan written, where the whole-plan encoder wrote nothing.
//
// With changesOnly, the namespaces, artifacts and changes leave out the
// unchanged objects; the inventory stays whole, the next run's input.
func writeJSON(w io.Writer, res *planResult, changesOnly bool) error {
	namespaces, artifacts, decisions := res.namespaces, res.artifacts, res.decisions
	if changesOnly {
		namespaces, artifacts, decisions = res.changed()
	}
	s := newJSONStream(w)
	// The keys in sorted order.
	jsonList(s, "artifacts", artifacts, toArtifact)
	jsonList(s, "assumptions", res.assumptions, same)
	jsonList(s, "changes", decisions, toChange)
	jsonList(s, "errors", res.errors, same)
	jsonList(s, "inventory", res.inventory, toInventoryItem)
	jsonList(s, "namespaces", namespaces, toNamespace)
	jsonList(s, "warnings", res.warnings, same)
	return s.close()
}

// jsonStream writes a JSON object whose values are lists, one list item
// at a time.
type jsonStream struct {
	out  *bufio.Writer
	item bytes.Buffer  // one list item, as JSON
	enc  *json.Encoder // into item
	keys int           // the keys written
	err  error         // the first encoding error
}

func newJSONStream(w io.Writer) *jsonStream {
	s := &jsonStream{out: bufio.NewWriter(w)}
	s.enc = json.NewEncoder(&s.item)
	// Items of the top-level lists are two levels deep: their inner lines
	// get that indentation as the prefix; the first line gets none.
	s.enc.SetIndent("    ", "  ")
	s.enc.SetEscapeHTML(false)
	s.out.WriteString("{")
	return s
}

// jsonList writes key (plain ASCII) with items as a list, each converted
// by conv.
func jsonList[T, U any](s *jsonStream, key string, items []T, conv func(T) U) {
	if s.err != nil {
		return
	}
	if s.keys > 0 {
		s.out.WriteString(",")
	}
	s.keys++
	s.out.WriteString("\n  \"" + key + "\": [")
	for i, it := range items {
		if i > 0 {
			s.out.WriteString(",")
		}
		s.out.WriteString("\n    ")
		v := conv(it)
		s.item.Reset()
		// A pointer, so that the item is addressable, as in a list.
		if s.err = s.enc.Encode(&v); s.err != nil {
			return
		}
		s.out.Write(s.item.Bytes()[:s.item.Len()-1]) // without Encode's newline
	}
	if len(items) > 0 {
		s.out.WriteString("\n  ")
	}
	s.out.WriteString("]")
}

// close ends the object and flushes the writer. It returns the first
// encoding or write error.
func (s *jsonStream) close() error {
	if s.err != nil {
		return s.err
	}
	s.out.WriteString("\n}\n")
	return s.out.Flush()
}

func same[T any](v T) T { return v }

// changed returns the namespaces, artifacts and decisions of the plan but
// the unchanged ones: what -changes-only prints.
func (r *planResult) changed() ([]generator.Namespace, []generator.Artifact, []inventory.Decision) {
	unchanged := map[inventory.ID]bool{}
	var decisions []inventory.Decision
	for _, d := range r.decisions {
		if d.Action == inventory.Unchanged {
			unchanged[d.Entry.ID()] = true
			continue
		}
		decisions = append(decisions, d)
	}
	var namespaces []generator.Namespace
	for _, ns := range r.namespaces {
		if !unchanged[inventory.ID{Kind: inventory.KindNamespace, Name: ns.Name}] {
			namespaces = append(namespaces, ns)
		}
	}
	var artifacts []generator.Artifact
	for _, a := range r.artifacts {
		id := inventory.ID{Group: inventory.GroupSource, Kind: inventory.KindExternalArtifact, Namespace: a.Namespace, Name: a.Name}
		if !unchanged[id] {
			artifacts = append(artifacts, a)
		}
	}
	return namespaces, artifacts, decisions
}

// countVerbs are the words of the text's counts, in order: Flux's change
// verbs (inventory.Action.Verb), the words of the change lines. skipped is
// printed only when some object is skipped.
var countVerbs = []inventory.Action{inventory.Create, inventory.Update, inventory.Unchanged, inventory.Delete, inventory.Release, inventory.Keep}

// writeText prints the plan for a terminal; changesOnly leaves out the
// unchanged objects, and each section's title says how many it left out.
func writeText(w io.Writer, res *planResult, changesOnly bool) error {
	var b strings.Builder
	section := func(title string, n, of int) {
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		if n == of {
			fmt.Fprintf(&b, "%s (%d)\n", title, n)
		} else {
			fmt.Fprintf(&b, "%s (%d of %d; unchanged left out)\n", title, n, of)
		}
	}
	namespaces, artifacts, decisions := res.namespaces, res.artifacts, res.decisions
	if changesOnly {
		namespaces, artifacts, decisions = res.changed()
	}

	section("Namespaces", len(namespaces), len(res.namespaces))
	for _, ns := range namespaces {
		fmt.Fprintf(&b, "  %s  %s%s\n", ns.Name, ns.Digest, conflictMarker(ns.Conflict))
		writeKeys(&b, "label", ns.Labels, ns.Origin.Labels)
		writeKeys(&b, "annotation", ns.Annotations, ns.Origin.Annotations)
	}

	section("Artifacts", len(artifacts), len(res.artifacts))
	for _, a := range artifacts {
		fmt.Fprintf(&b, "  %s/%s  from %s  %d files  %s%s\n", a.Namespace, a.Name, a.Path, a.FileCount, a.Digest, conflictMarker(a.Conflict))
		// The plan's inputs read back as they are written.
		inputs, _ := generator.ReadExportedInputs(a.Inputs)
		for _, k := range slices.Sorted(maps.Keys(inputs)) {
			fmt.Fprintf(&b, "      input  %s = %s\n", k, inputs[k])
		}
	}

	if len(res.assumptions) > 0 {
		section("Assumptions", len(res.assumptions), len(res.assumptions))
		for _, a := range res.assumptions {
			fmt.Fprintf(&b, "  %s\n", a)
		}
	}

	counts := map[inventory.Action]int{}
	for _, d := range res.decisions {
		counts[d.Action]++
	}
	section("Changes", len(decisions), len(res.decisions))
	for _, d := range decisions {
		c := toChange(d)
		line := c.Kind + "/"
		if c.Namespace != "" {
			line += c.Namespace + "/"
		}
		line += c.Name + " " + d.Action.Verb()
		if c.Reason != "" {
			line += " (" + c.Reason + ")"
		}
		fmt.Fprintf(&b, "  %s\n", line)
	}
	var summary []string
	for _, a := range countVerbs {
		summary = append(summary, fmt.Sprintf("%d %s", counts[a], a.Verb()))
	}
	if n := counts[inventory.Skip]; n > 0 {
		summary = append(summary, fmt.Sprintf("%d %s", n, inventory.Skip.Verb()))
	}
	fmt.Fprintf(&b, "  %s\n", strings.Join(summary, ", "))

	if len(res.warnings) > 0 {
		section("Warnings", len(res.warnings), len(res.warnings))
		for _, w := range res.warnings {
			fmt.Fprintf(&b, "  %s\n", w)
		}
	}
	if len(res.errors) > 0 {
		section("Errors", len(res.errors), len(res.errors))
		for _, e := range res.errors {
			fmt.Fprintf(&b, "  %s\n", errorLine(e))
		}
		b.WriteString("\nThe desired state has errors: nothing will be deleted.\n")
		if res.allow != "" {
			fmt.Fprintf(&b, "The deletions are refused: %s allows them.\n", res.allow)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// conflictMarker is the text output's mark of an object applied although
// the generator does not own it live (adopted or taken over), with the
// reason of the Warning event the controller records; nothing otherwise.
func conflictMarker(conflict string) string {
	if conflict == "" {
		return ""
	}
	return "  [conflict: " + conflict + "]"
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
