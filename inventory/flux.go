package inventory

import (
	"fmt"
	"strings"

	"github.com/tenantkit/tenantkit/internal/apiname"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// ResourceRef is one entry of Flux's ResourceInventory, as kustomize-controller and flux-operator
// record it in status.inventory.entries:
//
//	{"id": "apps_podinfo_apps_Deployment", "v": "v1"}
type ResourceRef struct {
	// ID is "<namespace>_<name>_<group>_<kind>" (see [ParseID]).
	ID string `json:"id"`
	// Version is the API version without the group, e.g. "v1".
	Version string `json:"v"`
}

// The RBAC kinds whose names (system roles hold ":") cli-utils writes with each ":" as "__".
const groupRBAC = "rbac.authorization.k8s.io"

var rbacKinds = map[string]bool{"Role": true, "ClusterRole": true, "RoleBinding": true, "ClusterRoleBinding": true}

// FluxID returns the ID as a Flux ResourceInventory id, "<namespace>_<name>_<group>_<kind>",
// exactly as cli-utils' ObjMetadata.String writes it: a name's ":" as "__" for the four RBAC kinds
// only. [ParseID] reads it back unless the name holds "__" (see [ToResourceInventory]).
//
//	_system__controller_rbac.authorization.k8s.io_ClusterRole   ClusterRole system:controller
func (id ID) FluxID() string {
	return id.Namespace + "_" + id.fluxName() + "_" + id.Group + "_" + id.Kind
}

// fluxName is the name as FluxID writes it.
func (id ID) fluxName() string {
	if id.Group == groupRBAC && rbacKinds[id.Kind] {
		return strings.ReplaceAll(id.Name, ":", "__")
	}
	return id.Name
}

// fluxIDRoundTrips reports whether ParseID reads id.FluxID() back as id.
func fluxIDRoundTrips(id ID) bool { return strings.ReplaceAll(id.fluxName(), "__", ":") == id.Name }

// ParseID parses a Flux ResourceInventory id as cli-utils' ParseObjMetadata does: the namespace
// up to the first "_", the kind after the last, the group after the one before, and the name in
// between, each "__" of it read as ":", whatever the kind. Where cli-utils reads any string with
// three "_", ParseID also requires an identity that can exist ([ID.Validate]); errors wrap
// [ErrInvalidID].
//
//	_team1__Namespace                                          Namespace team1
//	apps_podinfo_apps_Deployment                               Deployment apps/podinfo
//	_system__controller_rbac.authorization.k8s.io_ClusterRole  ClusterRole system:controller
//	_my_role_rbac.authorization.k8s.io_ClusterRole             ClusterRole my_role
func ParseID(s string) (ID, error) {
	id, detail := parseID(s)
	if detail != "" {
		return ID{}, fmt.Errorf("%w %q: %s", ErrInvalidID, s, detail)
	}
	return id, nil
}

// parseID parses s, or says which rules it breaks.
func parseID(s string) (ID, string) {
	ns, rest, nsOK := strings.Cut(s, "_")
	rest, kind, kindOK := cutLast(rest, "_")
	name, group, groupOK := cutLast(rest, "_")
	if !nsOK || !kindOK || !groupOK {
		return ID{}, `must be "<namespace>_<name>_<group>_<kind>"`
	}
	id := ID{Group: group, Kind: kind, Namespace: ns, Name: strings.ReplaceAll(name, "__", ":")}
	if errs := id.Validate(nil); len(errs) > 0 {
		return ID{}, errs.ToAggregate().Error()
	}
	return id, ""
}

func cutLast(s, sep string) (before, after string, found bool) {
	if i := strings.LastIndex(s, sep); i >= 0 {
		return s[:i], s[i+len(sep):], true
	}
	return s, "", false
}

// FromResourceInventory converts Flux ResourceInventory entries to entries with APIVersion
// "<group>/<v>" (or "<v>" for the core group), Kind, Namespace and Name, and no digest, in the
// order given. Each id must parse with [ParseID], and each v must be a DNS-1035 label, such as
// "v1beta2"; it reports every bad ref, at "entries[i].id" or "entries[i].v", in index order.
//
//	entries, errs := inventory.FromResourceInventory(ks.Status.Inventory.Entries...)
func FromResourceInventory(refs ...ResourceRef) ([]Entry, field.ErrorList) {
	p := field.NewPath("entries")
	entries := make([]Entry, 0, len(refs))
	var errs field.ErrorList
	for i, ref := range refs {
		e, rerrs := refToEntry(p.Index(i), ref)
		errs = append(errs, rerrs...)
		entries = append(entries, e)
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return entries, nil
}

// refToEntry converts the ref found at p, or reports its problems at p.id and p.v.
func refToEntry(p *field.Path, ref ResourceRef) (Entry, field.ErrorList) {
	var errs field.ErrorList
	id, detail := parseID(ref.ID)
	if detail != "" {
		errs = append(errs, field.Invalid(p.Child("id"), ref.ID, detail))
	}
	switch {
	case ref.Version == "":
		errs = append(errs, field.Required(p.Child("v"), ""))
	case len(apiname.IsVersion(ref.Version)) > 0:
		errs = append(errs, field.Invalid(p.Child("v"), ref.Version, strings.Join(apiname.IsVersion(ref.Version), "; ")))
	}
	apiVersion := ref.Version
	if id.Group != "" {
		apiVersion = id.Group + "/" + ref.Version
	}
	return Entry{APIVersion: apiVersion, Kind: id.Kind, Namespace: id.Namespace, Name: id.Name}, errs
}

// ResourceRef returns the entry as one Flux ResourceInventory entry: its id by [ID.FluxID] and
// its APIVersion's version (see [Entry] for an empty one). It checks and sorts nothing, so that a
// caller keeps its own order: give it an entry that [ToResourceInventory] accepts.
//
//	ref := e.ResourceRef() // {"id": "tenant-a_app_apps_Deployment", "v": "v1"}
func (e Entry) ResourceRef() ResourceRef {
	apiVersion := e.APIVersion
	if apiVersion == "" {
		apiVersion, _ = defaultAPIVersion(e.Kind)
	}
	// The version is what follows the group's "/", or all of a core apiVersion.
	return ResourceRef{ID: e.ID().FluxID(), Version: apiVersion[strings.IndexByte(apiVersion, '/')+1:]}
}

// ToResourceInventory converts entries as [Entry.ResourceRef] does, in apply order ([SortApply]).
// Each entry must pass [Entry.Validate], and its id must read back as the same object, which
// refuses only what cli-utils itself cannot read back: a name holding "__" (read as ":"), and for
// the RBAC kinds a "_" before a ":" (ClusterRole "a_:b" is written "a___b", read "a:_b"). It
// reports every bad entry at "entries[i]", in index order.
func ToResourceInventory(entries ...Entry) ([]ResourceRef, field.ErrorList) {
	var errs field.ErrorList
	for i, e := range entries {
		p := field.NewPath("entries").Index(i)
		errs = append(errs, e.Validate(p)...)
		if id := e.ID(); !fluxIDRoundTrips(id) {
			errs = append(errs, field.Invalid(p.Child("name"), e.Name, fmt.Sprintf("must read back from the Flux id %q, which reads \"__\" as \":\"", id.FluxID())))
		}
	}
	if len(errs) > 0 {
		return nil, errs
	}
	sorted := append([]Entry(nil), entries...)
	SortApply(sorted)
	refs := make([]ResourceRef, len(sorted))
	for i, e := range sorted {
		refs[i] = e.ResourceRef()
	}
	return refs, nil
}
