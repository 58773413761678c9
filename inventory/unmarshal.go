package inventory

import (
	"bytes"
	"encoding/json"
	"fmt"

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
//
// Entries get an explicit kind ExternalArtifact when theirs is empty; Flux
// refs are converted as [FromResourceInventory] does. Every entry must pass
// [Entry.Validate]; duplicates are left to [Diff]. An entry without a
// digest is valid (see [Entry]).
//
// An object without status.inventory, or with a null one, such as a fresh
// ArtifactGenerator or Kustomization that has applied nothing yet, is an
// empty inventory, as Flux reads it. A document that is not an object or a
// list, such as a string, is malformed.
//
// Unmarshal returns an error wrapping [ErrTooLarge] for a document of more
// than 8 MiB (any inventory a cluster holds fits), [ErrMalformed] for one that does not decode to a
// shape above, or the field.ErrorList of every invalid entry, at its path in
// the document (e.g. "status.inventory[2].digest" or "[0].name"),
// aggregated with ToAggregate.
// YAML aliases and nesting are bounded by the YAML decoder; a YAML stream
// of more than one document is malformed.
func Unmarshal(data []byte) ([]Entry, error) {
	js, err := documentJSON(data)
	if err != nil {
		return nil, err
	}

	switch {
	case bytes.HasPrefix(js, []byte("[")):
		return unmarshalEntries(nil, js)
	case bytes.HasPrefix(js, []byte("{")):
	default:
		return nil, fmt.Errorf("%w: must be a list of entries or an object, not %s", ErrMalformed, kindOfJSON(js))
	}
	var doc struct {
		Entries *[]ResourceRef `json:"entries"`
		Status  *struct {
			Inventory json.RawMessage `json:"inventory"`
		} `json:"status"`
	}
	if err := json.Unmarshal(js, &doc); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrMalformed, err)
	}
	switch {
	case doc.Entries != nil:
		return refsToEntries(field.NewPath("entries"), *doc.Entries)
	case doc.Status == nil || len(doc.Status.Inventory) == 0 || bytes.Equal(doc.Status.Inventory, []byte("null")):
		return []Entry{}, nil
	}
	inv := doc.Status.Inventory
	p := field.NewPath("status", "inventory")
	switch {
	case bytes.HasPrefix(inv, []byte("[")):
		return unmarshalEntries(p, inv)
	case bytes.HasPrefix(inv, []byte("{")):
		var refs struct {
			Entries []ResourceRef `json:"entries"`
		}
		if err := json.Unmarshal(inv, &refs); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrMalformed, err)
		}
		return refsToEntries(p.Child("entries"), refs.Entries)
	}
	return nil, fmt.Errorf("%w: status.inventory must be a list of entries or an object with entries, not %s", ErrMalformed, kindOfJSON(inv))
}

// documentJSON returns the JSON of an inventory document of YAML or JSON,
// bounded to maxDocumentBytes and to one YAML document, or an error
// wrapping ErrTooLarge or ErrMalformed.
func documentJSON(data []byte) ([]byte, error) {
	if len(data) > maxDocumentBytes {
		return nil, fmt.Errorf("%w: %d bytes, must be no more than %d", ErrTooLarge, len(data), maxDocumentBytes)
	}
	js := bytes.TrimSpace(data)
	if !json.Valid(js) {
		if err := yamldoc.CheckExpansion(data); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrMalformed, err)
		}
		var err error
		if js, err = yaml.YAMLToJSONStrict(data); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrMalformed, err)
		}
		// sigs.k8s.io/yaml reads the first document and silently drops
		// the rest: the entries dropped would be tracked no more, their
		// objects left behind for ever.
		if err := yamldoc.Single(data); err != nil {
			return nil, fmt.Errorf("%w: must hold one YAML document: %w", ErrMalformed, err)
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
