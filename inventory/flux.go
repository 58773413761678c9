package inventory

import (
	"fmt"
	"strings"

	"github.com/tenantkit/tenantkit/internal/apiname"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// ResourceRef is one entry of Flux's ResourceInventory, as kustomize-controller
// and flux-operator record it in status.inventory.entries:
//
//	{"id": "apps_podinfo_apps_Deployment", "v": "v1"}
type ResourceRef struct {
	// ID is "<namespace>_<name>_<group>_<kind>" (see [ParseID]).
	ID string `json:"id"`
	// Version is the API version without the group, e.g. "v1".
	Version string `json:"v"`
}

// ParseID parses a Flux ResourceInventory id, "<namespace>_<name>_<group>_<kind>",
// where namespace and group are empty for a cluster-scoped object and the
// core group, and each ":" of the name is written "__":
//
//	_team1__Namespace                                    Namespace team1
//	apps_podinfo_apps_Deployment                         Deployment apps/podinfo, group apps
//	_system__controller_rbac.authorization.k8s.io_ClusterRole  ClusterRole system:controller
//
// It splits as Flux does (sigs.k8s.io/cli-utils ParseObjMetadata): the
// namespace up to the first "_", the kind after the last, the group after
// the one before, and the name in between, which, once "__" is read as ":",
// must hold no "_". The parts must then pass [ID.Validate]. [ID.String]
// formats an ID back.
//
// The error wraps [ErrInvalidID].
func ParseID(s string) (ID, error) {
	id, detail := parseID(s)
	if detail != "" {
		return ID{}, fmt.Errorf("%w %q: %s", ErrInvalidID, s, detail)
	}
	return id, nil
}

// parseID parses s, or says which rule it breaks.
func parseID(s string) (ID, string) {
	ns, rest, ok := strings.Cut(s, "_")
	var id ID
	if ok {
		var kindOK, groupOK bool
		rest, id.Kind, kindOK = cutLast(rest, "_")
		rest, id.Group, groupOK = cutLast(rest, "_")
		ok = kindOK && groupOK
		id.Namespace, id.Name = ns, strings.ReplaceAll(rest, "__", ":")
	}
	if !ok {
		return ID{}, `must be "<namespace>_<name>_<group>_<kind>"`
	}
	if strings.Contains(id.Name, "_") {
		return ID{}, fmt.Sprintf(`name %q must not contain "_" once "__" is read as ":"`, id.Name)
	}
	if errs := id.validate(); len(errs) > 0 {
		return ID{}, errs[0].Error()
	}
	return id, ""
}

// cutLast slices s around the last sep.
func cutLast(s, sep string) (before, after string, found bool) {
	if i := strings.LastIndex(s, sep); i >= 0 {
		return s[:i], s[i+len(sep):], true
	}
	return s, "", false
}

// FromResourceInventory converts Flux ResourceInventory entries to entries
// with APIVersion "<group>/<v>" (or "<v>" for the core group), Kind,
// Namespace and Name, and no digest, in the order given. Each id must parse
// with [ParseID], and each v must be a DNS-1035 label, such as "v1beta2".
//
// The error is a *[ListError] naming every bad ref at "entries[i].id" or
// "entries[i].v"; it matches [ErrInvalidID] for an id, [ErrInvalidEntry]
// for a version.
//
//	entries, err := inventory.FromResourceInventory(ks.Status.Inventory.Entries...)
func FromResourceInventory(refs ...ResourceRef) ([]Entry, error) {
	return fromRefs(field.NewPath("entries"), refs)
}

func fromRefs(p *field.Path, refs []ResourceRef) ([]Entry, error) {
	entries := make([]Entry, 0, len(refs))
	var errs field.ErrorList
	for i, ref := range refs {
		id, detail := parseID(ref.ID)
		if detail != "" {
			errs = append(errs, field.Invalid(p.Index(i).Child("id"), ref.ID, detail))
		}
		switch {
		case ref.Version == "":
			errs = append(errs, field.Required(p.Index(i).Child("v"), ""))
		case len(apiname.IsVersion(ref.Version)) > 0:
			errs = append(errs, field.Invalid(p.Index(i).Child("v"), ref.Version, strings.Join(apiname.IsVersion(ref.Version), "; ")))
		}
		apiVersion := ref.Version
		if id.Group != "" {
			apiVersion = id.Group + "/" + ref.Version
		}
		entries = append(entries, Entry{APIVersion: apiVersion, Kind: id.Kind, Namespace: id.Namespace, Name: id.Name})
	}
	if len(errs) > 0 {
		return nil, &ListError{Errs: errs}
	}
	return entries, nil
}

// ToResourceInventory converts entries to Flux ResourceInventory entries,
// in apply order (see [SortApply]), dropping filenames and digests. An
// entry without APIVersion gets its well-known one (see [Entry]).
//
// Each entry must pass [Entry.Validate], and its name must not contain "_":
// Flux ids use "_" as separator and read "__" as ":", so such a name cannot
// be written. The error is a *[ListError] naming every bad entry at
// "entries[i]", which matches [ErrInvalidEntry].
func ToResourceInventory(entries ...Entry) ([]ResourceRef, error) {
	var errs field.ErrorList
	for i, e := range entries {
		p := field.NewPath("entries").Index(i)
		errs = append(errs, e.Validate(p)...)
		if strings.Contains(e.Name, "_") {
			errs = append(errs, field.Invalid(p.Child("name"), e.Name, `must not contain "_" to be written in a Flux id`))
		}
	}
	if len(errs) > 0 {
		return nil, &ListError{Errs: errs}
	}
	sorted := append([]Entry(nil), entries...)
	SortApply(sorted)
	refs := make([]ResourceRef, len(sorted))
	for i, e := range sorted {
		apiVersion := e.APIVersion
		if apiVersion == "" {
			apiVersion, _ = defaultAPIVersion(e.Kind)
		}
		_, version, ok := strings.Cut(apiVersion, "/")
		if !ok {
			version = apiVersion
		}
		refs[i] = ResourceRef{ID: e.ID().String(), Version: version}
	}
	return refs, nil
}
