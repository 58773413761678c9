package main

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/opencontainers/go-digest"

	"github.com/tenantkit/tenantkit/generator"
	"github.com/tenantkit/tenantkit/generator/generatortest"
	"github.com/tenantkit/tenantkit/inventory"
)

// maxReasonKeys bounds the keys that a reason names in each of its lists,
// so that it stays fit for a change line.
const maxReasonKeys = 3

// explain gives each create and update decision of the plan without a
// reason the reason the tool can give (reasonFor); a decision the library
// gave a reason keeps it as it is.
func (r *planResult) explain(req request) {
	x := explainer{
		previous:   make(map[inventory.ID]inventory.Entry, len(req.previous)),
		namespaces: make(map[string]generator.Namespace, len(r.namespaces)),
		cluster:    req.cluster,
		noUID:      req.noUID,
		given:      req.inventoryGiven,
		empty:      len(req.previous) == 0,
	}
	for _, e := range req.previous {
		x.previous[e.ID()] = e
	}
	for _, ns := range r.namespaces {
		x.namespaces[ns.Name] = ns
	}
	for i, d := range r.decisions {
		if d.Reason == "" {
			r.decisions[i].Reason = x.reasonFor(d)
		}
	}
}

// explainer knows what the tool knows beyond the plan: the previous
// inventory's entries, the live cluster when -cluster gives one, and
// whether the generator has a UID.
type explainer struct {
	previous   map[inventory.ID]inventory.Entry
	namespaces map[string]generator.Namespace
	cluster    *generatortest.Cluster // nil without -cluster
	noUID      bool
	given      bool // -inventory names the previous inventory
	empty      bool // the previous inventory is empty
}

// reasonFor says why a create or update happens, as far as the tool can
// tell: the previous inventory holds only digests, so an update names the
// digests; for a namespace, the keys whose live values differ from the
// planned ones when -cluster gives the live namespace, and the missing
// generator label when the generator has no UID. Other actions get none:
// the library gives every delete, release, keep and skip its reason, and
// unchanged needs none.
func (x *explainer) reasonFor(d inventory.Decision) string {
	id := d.Entry.ID()
	prev, tracked := x.previous[id]
	switch {
	case d.Action == inventory.Create && !x.given:
		return "no previous inventory"
	case d.Action == inventory.Create && x.empty:
		return "the previous inventory is empty"
	case d.Action == inventory.Create:
		return "not in the previous inventory"
	case d.Action != inventory.Update || !tracked:
		return ""
	}
	what := "its files and inputs"
	if id.IsNamespace() {
		what = "its labels and annotations"
	}
	why := []string{fmt.Sprintf("the digest of %s changed (%s -> %s)", what, short(prev.Digest), short(d.Entry.Digest))}
	if prev.Digest == "" {
		why[0] = "the previous inventory records no digest for it"
	}
	if id.IsNamespace() {
		why = append(why, x.liveKeys(id)...)
		if x.noUID {
			why = append(why, fmt.Sprintf("metadata.uid is not set, so the planned labels lack %s, which an inventory recorded with a UID covers", generator.GeneratorLabel))
		}
	}
	return strings.Join(why, "; ")
}

// liveKeys names the planned labels and annotations of a namespace that
// its live copy lacks or holds with another value, when -cluster gives
// it; without -cluster, it says that they are not known.
func (x *explainer) liveKeys(id inventory.ID) []string {
	if x.cluster == nil {
		return []string{"the keys that changed are not known without -cluster"}
	}
	ns, ok := x.namespaces[id.Name]
	if !ok {
		return nil
	}
	live, err := x.cluster.Object(context.Background(), id)
	if err != nil {
		return nil // the library's reason says when it does not exist
	}
	var lacks, differs []string
	for _, m := range []struct {
		kind          string
		planned, live map[string]string
	}{{"label", ns.Labels, live.Labels}, {"annotation", ns.Annotations, live.Annotations}} {
		for _, k := range slices.Sorted(maps.Keys(m.planned)) {
			v, ok := m.live[k]
			switch {
			case !ok:
				lacks = append(lacks, m.kind+" "+k)
			case v != m.planned[k] && m.kind == "label":
				differs = append(differs, fmt.Sprintf("label %s (live %q, planned %q)", k, v, m.planned[k]))
			case v != m.planned[k]:
				differs = append(differs, "annotation "+k)
			}
		}
	}
	var out []string
	if len(lacks) > 0 {
		out = append(out, "the live namespace lacks "+firstFew(lacks))
	}
	if len(differs) > 0 {
		out = append(out, "the live namespace has another value for "+firstFew(differs))
	}
	if len(out) == 0 {
		out = append(out, "the live namespace carries the planned labels and annotations already")
	}
	return out
}

// firstFew joins the first maxReasonKeys names, and says how many more.
func firstFew(names []string) string {
	if len(names) <= maxReasonKeys {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:maxReasonKeys], ", "), len(names)-maxReasonKeys)
}

// short returns a digest with the first 12 characters of its hex, as a
// change line prints it.
func short(d digest.Digest) string {
	alg, hex, ok := strings.Cut(string(d), ":")
	if !ok || len(hex) <= 12 {
		return string(d)
	}
	return alg + ":" + hex[:12]
}
