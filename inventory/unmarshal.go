package inventory

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"

	"github.com/tenantkit/tenantkit/internal/yamldoc"
)

// maxDocumentBytes bounds the document that [Unmarshal] reads: 8 MiB, more
// than five times etcd's default limit of 1.5 MiB on a stored object, so
// any inventory that a cluster holds fits, even printed as YAML, while a
// wrong file cannot make the decoder allocate without bound.
const maxDocumentBytes = 8 << 20

// Unmarshal reads an inventory from a YAML or JSON document of one of these
// shapes:
//
//	[{kind, namespace, name, ...}, ...]          a list of entries
//	{status: {inventory: [{...}, ...]}}          an ArtifactGenerator
//	{status: {inventory: {entries: [{id, v}]}}}  a Kustomization, ResourceSet, ...
//	{entries: [{id, v}, ...]}                    a Flux ResourceInventory
//	{kind: List, items: [{...}]}                 a List holding exactly one object above
//
// Entries get an explicit kind ExternalArtifact when theirs is empty; Flux
// refs are converted as [FromResourceInventory] does. Every entry must pass
// [Entry.Validate]; duplicates are left to [Diff]. An entry without a
// digest is valid (see [Entry]).
//
// An ArtifactGenerator, Kustomization, ResourceSet or FluxInstance without
// status.inventory, or with a null one, such as one that has applied
// nothing yet, is an empty inventory, as Flux reads it. Any other document
// is malformed, never an empty inventory by accident: a List of none or of
// several objects (what kubectl get prints for a kind), an object of
// another kind (a Namespace, a NamespaceList) or one that is no Kubernetes
// object, a string.
//
//	entries, err := inventory.Unmarshal(data)
//
// Unmarshal returns an error wrapping [ErrTooLarge] for a document of more
// than 8 MiB (any inventory a cluster holds fits), [ErrMalformed] for one
// that does not decode to a shape above, saying what it found, or the
// field.ErrorList of every invalid entry, at its path in the document
// (e.g. "status.inventory[2].digest", "items[0].status.inventory[2].digest"
// or "[0].name"), aggregated with ToAggregate. YAML aliases and nesting are
// bounded by the YAML decoder; a YAML stream of more than one document is
// malformed.
func Unmarshal(data []byte) ([]Entry, error) {
	js, err := documentJSON(data)
	if err != nil {
		return nil, err
	}
	loc, err := locate(nil, js)
	switch {
	case err != nil:
		return nil, err
	case loc.entries != nil:
		return unmarshalEntries(loc.path, loc.entries)
	case loc.refs != nil:
		var refs []ResourceRef
		if err := json.Unmarshal(loc.refs, &refs); err != nil {
			return nil, fmt.Errorf("%w: %s: %w", ErrMalformed, loc.path, err)
		}
		return refsToEntries(loc.path, refs)
	}
	return []Entry{}, nil
}

// inventoryKinds are the kinds whose objects record an inventory in
// status.inventory: one of them without it has applied nothing yet.
var inventoryKinds = []string{"ArtifactGenerator", "FluxInstance", "Kustomization", "ResourceSet"}

// located is where a document holds its inventory: a list of entries or a
// list of Flux refs, at path; neither for an object that has applied
// nothing yet.
type located struct {
	path          *field.Path
	entries, refs json.RawMessage
}

// locate finds the inventory in js, a document's JSON at path base (nil
// for the document itself), in one of the shapes [Unmarshal] lists, or
// returns an error wrapping ErrMalformed that says what it found.
func locate(base *field.Path, js []byte) (located, error) {
	switch {
	case bytes.HasPrefix(js, []byte("[")):
		return located{path: base, entries: js}, nil
	case !bytes.HasPrefix(js, []byte("{")):
		return located{}, fmt.Errorf("%w: must be a list of entries or an object, not %s", ErrMalformed, kindOfJSON(js))
	}
	var doc struct {
		Kind    string             `json:"kind"`
		Items   *[]json.RawMessage `json:"items"`
		Entries json.RawMessage    `json:"entries"`
		Status  *struct {
			Inventory json.RawMessage `json:"inventory"`
		} `json:"status"`
	}
	if err := json.Unmarshal(js, &doc); err != nil {
		return located{}, fmt.Errorf("%w: %w", ErrMalformed, err)
	}
	switch {
	case doc.Items != nil && base == nil:
		if n := len(*doc.Items); n != 1 {
			return located{}, fmt.Errorf("%w: a %s must hold exactly one object with an inventory, found %d items", ErrMalformed, listKind(doc.Kind), n)
		}
		return locate(field.NewPath("items").Index(0), (*doc.Items)[0])
	case !isNull(doc.Entries):
		return located{path: base.Child("entries"), refs: doc.Entries}, nil
	case doc.Status != nil && doc.Status.Inventory != nil:
		// status.inventory is there: null is an empty one.
		if isNull(doc.Status.Inventory) {
			return located{}, nil
		}
	case slices.Contains(inventoryKinds, doc.Kind):
		return located{}, nil
	case doc.Kind != "":
		return located{}, fmt.Errorf("%w: found an object of kind %s, which records no inventory; want %s, a List holding one, a Flux ResourceInventory or a list of entries",
			ErrMalformed, doc.Kind, strings.Join(inventoryKinds, ", "))
	default:
		return located{}, fmt.Errorf("%w: found an object with neither status.inventory nor entries, nor a kind that records an inventory (%s)",
			ErrMalformed, strings.Join(inventoryKinds, ", "))
	}
	inv, p := doc.Status.Inventory, base.Child("status", "inventory")
	switch {
	case bytes.HasPrefix(inv, []byte("[")):
		return located{path: p, entries: inv}, nil
	case bytes.HasPrefix(inv, []byte("{")):
		var refs struct {
			Entries json.RawMessage `json:"entries"`
		}
		if err := json.Unmarshal(inv, &refs); err != nil {
			return located{}, fmt.Errorf("%w: %s: %w", ErrMalformed, p, err)
		}
		if isNull(refs.Entries) {
			return located{}, nil
		}
		return located{path: p.Child("entries"), refs: refs.Entries}, nil
	}
	return located{}, fmt.Errorf("%w: %s must be a list of entries or an object with entries, not %s", ErrMalformed, p, kindOfJSON(inv))
}

// listKind names a list document for messages.
func listKind(kind string) string {
	if kind == "" {
		return "list (items)"
	}
	return kind
}

// documentJSON returns the JSON of an inventory document of YAML or JSON,
// bounded to maxDocumentBytes and to one YAML document, or an error
// wrapping ErrTooLarge, or a yamlError, which wraps ErrMalformed, in the
// document's words.
func documentJSON(data []byte) ([]byte, error) {
	if len(data) > maxDocumentBytes {
		return nil, fmt.Errorf("%w: %d bytes, must be no more than %d", ErrTooLarge, len(data), maxDocumentBytes)
	}
	js := bytes.TrimSpace(data)
	if !json.Valid(js) {
		if err := yamldoc.CheckExpansion(data); err != nil {
			return nil, &yamlError{err: err}
		}
		var err error
		if js, err = yaml.YAMLToJSONStrict(data); err != nil {
			return nil, &yamlError{err: err}
		}
		// sigs.k8s.io/yaml reads the first document and silently drops
		// the rest: the entries dropped would be tracked no more, their
		// objects left behind for ever.
		if err := yamldoc.Single(data); err != nil {
			return nil, &yamlError{context: "must hold one YAML document: ", err: err}
		}
	}
	return js, nil
}

// unmarshalEntries decodes a JSON list of entries found at p.
func unmarshalEntries(p *field.Path, js []byte) ([]Entry, error) {
	var entries []Entry
	if err := json.Unmarshal(js, &entries); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrMalformed, err)
	}
	var errs field.ErrorList
	for i := range entries {
		if entries[i].Kind == "" {
			entries[i].Kind = KindExternalArtifact
		}
		errs = append(errs, entries[i].Validate(p.Index(i))...)
	}
	if len(errs) > 0 {
		return nil, errs.ToAggregate()
	}
	if entries == nil {
		entries = []Entry{}
	}
	return entries, nil
}

// refsToEntries converts Flux refs found at p, as FromResourceInventory.
func refsToEntries(p *field.Path, refs []ResourceRef) ([]Entry, error) {
	entries, errs := fromRefs(p, refs)
	if len(errs) > 0 {
		return nil, errs.ToAggregate()
	}
	return entries, nil
}

// kindOfJSON names the type of a JSON value, for errors.
func kindOfJSON(js []byte) string {
	switch {
	case len(js) == 0 || bytes.Equal(js, []byte("null")):
		return "null"
	case js[0] == '"':
		return "a string"
	case js[0] == 't' || js[0] == 'f':
		return "a boolean"
	case js[0] == '[':
		return "a list"
	case js[0] == '{':
		return "an object"
	}
	return "a number"
}
