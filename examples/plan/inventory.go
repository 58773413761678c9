package main

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/tenantkit/tenantkit/internal/agmanifest"
	"github.com/tenantkit/tenantkit/inventory"
)

// inventoryShapes are the documents that -inventory takes, for the
// message of one it does not.
const inventoryShapes = "an ArtifactGenerator (its status.inventory), a List holding exactly one, " +
	"this tool's -o json output (its inventory), a list of inventory entries, a Flux ResourceInventory (entries of id and v), " +
	"or an object whose status.inventory is one (a Kustomization, a ResourceSet)"

// previous is the previous inventory that -inventory names, and what it
// was read from, for the output's assumptions.
type previous struct {
	entries []inventory.Entry
	// from says what the document is, e.g. "ArtifactGenerator
	// flux-system/tenants, status.inventory".
	from string
}

// readInventory reads a previous inventory: one of the documents of
// inventoryShapes, decoded strictly (an unknown field of an entry is an
// error at its path). Anything else is an error that says what the
// document is and what -inventory takes: a wrong file is never read as an
// empty inventory. An ArtifactGenerator without status.inventory (one that
// has applied nothing yet) and an empty list are empty inventories; the
// output says so. An entry without a kind is an ExternalArtifact's (older
// ArtifactGenerator inventories, as inventory.Unmarshal reads them); every
// entry must pass inventory.Entry.Validate, and no identity may be listed
// twice.
func readInventory(data []byte) (previous, error) {
	doc, err := agmanifest.Parse(data)
	if err != nil {
		return previous{}, err
	}
	var p previous
	var entries []inventory.Entry
	var at *field.Path
	switch v := doc.(type) {
	case []any:
		p.from = "a list of entries"
		err = agmanifest.Strict(v, nil, &entries)
	case map[string]any:
		entries, at, p.from, err = fromObject(v)
	default:
		return previous{}, fmt.Errorf("found %s; -inventory takes %s", agmanifest.JSONKind(doc), inventoryShapes)
	}
	if err != nil {
		return previous{}, err
	}
	var errs field.ErrorList
	seen := make(map[inventory.ID]bool, len(entries))
	for i := range entries {
		if entries[i].Kind == "" {
			entries[i].Kind = inventory.KindExternalArtifact
		}
		errs = append(errs, entries[i].Validate(at.Index(i))...)
		if id := entries[i].ID(); seen[id] {
			errs = append(errs, field.Duplicate(at.Index(i), id.String()))
		} else {
			seen[id] = true
		}
	}
	if len(errs) > 0 {
		return previous{}, errs.ToAggregate()
	}
	p.entries = entries
	if p.entries == nil {
		p.entries = []inventory.Entry{}
	}
	return p, nil
}

// fromObject reads the inventory of a mapping: the entries, their path in
// the document, and what the document is.
func fromObject(obj map[string]any) (entries []inventory.Entry, at *field.Path, from string, err error) {
	kind, hasKind := obj["kind"].(string)
	switch {
	case kind == agmanifest.Kind || kind == "List" || kind == agmanifest.Kind+"List":
		gen, genAt, err := agmanifest.Find(obj)
		if errors.Is(err, agmanifest.ErrNotGenerator) {
			return nil, nil, "", fmt.Errorf("%w; -inventory takes %s", err, inventoryShapes)
		}
		if err != nil {
			return nil, nil, "", err
		}
		from = "ArtifactGenerator " + objectName(gen)
		status, ok := gen["status"].(map[string]any)
		if gen["status"] != nil && !ok {
			return nil, nil, "", fmt.Errorf("%s: must be a mapping, found %s", genAt.Child("status"), agmanifest.JSONKind(gen["status"]))
		}
		if status["inventory"] == nil {
			return []inventory.Entry{}, nil, from + ", which has no status.inventory (it has applied nothing yet)", nil
		}
		at = genAt.Child("status", "inventory")
		err = agmanifest.Strict(status["inventory"], at, &entries)
		return entries, at, from + ", status.inventory", err
	case hasKind:
		// A Flux object whose status.inventory is a ResourceInventory.
		status, _ := obj["status"].(map[string]any)
		inv, ok := status["inventory"].(map[string]any)
		if !ok {
			return nil, nil, "", fmt.Errorf("found a %s%s without an inventory of Flux entries at status.inventory; -inventory takes %s",
				kind, apiVersionOf(obj), inventoryShapes)
		}
		at = field.NewPath("status", "inventory")
		entries, err = fluxEntries(inv, at)
		return entries, at.Child("entries"), kind + " " + objectName(obj) + ", status.inventory", err
	case obj["kind"] != nil:
		return nil, nil, "", fmt.Errorf("kind: must be a string, found %s; -inventory takes %s", agmanifest.JSONKind(obj["kind"]), inventoryShapes)
	case obj["inventory"] != nil && obj["changes"] != nil:
		// This tool's -o json output; its other lists are not read.
		at = field.NewPath("inventory")
		err = agmanifest.Strict(obj["inventory"], at, &entries)
		return entries, at, "a plan of this tool (-o json)", err
	case obj["entries"] != nil:
		entries, err = fluxEntries(obj, nil)
		return entries, field.NewPath("entries"), "a Flux ResourceInventory", err
	}
	keys := slices.Sorted(maps.Keys(obj))
	if len(keys) > 10 {
		keys = append(keys[:10], "...")
	}
	what := "an empty mapping"
	if len(keys) > 0 {
		what = "a mapping with keys " + strings.Join(keys, ", ") + " and no kind"
	}
	return nil, nil, "", fmt.Errorf("found %s; -inventory takes %s", what, inventoryShapes)
}

// fluxEntries reads a Flux ResourceInventory, {entries: [{id, v}]}, at
// path, as inventory.FromResourceInventory converts it.
func fluxEntries(obj map[string]any, path *field.Path) ([]inventory.Entry, error) {
	var inv struct {
		Entries []inventory.ResourceRef `json:"entries"`
	}
	if err := agmanifest.Strict(obj, path, &inv); err != nil {
		return nil, err
	}
	entries, errs := inventory.FromResourceInventory(inv.Entries...)
	if len(errs) > 0 {
		// Its paths are "entries[i]..." from the ResourceInventory.
		for _, e := range errs {
			if path != nil {
				e.Field = path.String() + "." + e.Field
			}
		}
		return nil, errs.ToAggregate()
	}
	return entries, nil
}

// objectName returns "namespace/name" from an object's metadata, or
// "name", or "(no name)".
func objectName(obj map[string]any) string {
	meta, _ := obj["metadata"].(map[string]any)
	ns, _ := meta["namespace"].(string)
	name, _ := meta["name"].(string)
	switch {
	case name == "":
		return "(no name)"
	case ns == "":
		return name
	}
	return ns + "/" + name
}

// apiVersionOf returns " (apiVersion)" for an object that has one, or "".
func apiVersionOf(obj map[string]any) string {
	if v, ok := obj["apiVersion"].(string); ok && v != "" {
		return " (" + v + ")"
	}
	return ""
}
