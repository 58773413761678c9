package inventory

import (
	"cmp"
	"fmt"
	"strings"

	"github.com/opencontainers/go-digest"
	"github.com/tenantkit/tenantkit/internal/apiname"
	"k8s.io/apimachinery/pkg/api/validate/content"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// The kinds, groups and API versions that identity, validation and order know by name.
const (
	KindNamespace                = "Namespace"
	KindExternalArtifact         = "ExternalArtifact"
	KindCustomResourceDefinition = "CustomResourceDefinition"

	// GroupCore is the core API group, of Namespace.
	GroupCore = ""
	// GroupSource is Flux's source API group, of ExternalArtifact.
	GroupSource = "source.toolkit.fluxcd.io"
	// GroupAPIExtensions is the group of CustomResourceDefinition.
	GroupAPIExtensions = "apiextensions.k8s.io"

	// APIVersionNamespace is what an empty apiVersion reads as for a Namespace.
	APIVersionNamespace = "v1"
	// APIVersionExternalArtifact is what an empty apiVersion reads as for an ExternalArtifact.
	APIVersionExternalArtifact = GroupSource + "/v1"
)

const (
	// maxNameBytes is Kubernetes' bound for any name: a tenant's name costs a bounded amount.
	maxNameBytes = validation.DNS1123SubdomainMaxLength
	// maxFilenameBytes is Linux's PATH_MAX, so any artifact path the generator writes fits.
	maxFilenameBytes = 4096
)

// digestHexLen maps each digest algorithm that an entry may use to the length of its hex.
var digestHexLen = map[string]int{
	"sha1":   40,
	"sha256": 64,
	"sha384": 96,
	"sha512": 128,
	"blake3": 64,
}

const digestAlgorithms = "sha1, sha256, sha384, sha512 or blake3"

// Entry is one object that a generator applied, as the ArtifactGenerator records it in
// status.inventory:
//
//	{"kind": "ExternalArtifact", "namespace": "tenant-a", "name": "app",
//	 "filename": "...", "digest": "sha256:..."}
//
// Its identity is its [ID], without the API version (an object served at v1 and v2 is one
// object). An empty Kind reads as ExternalArtifact, the only kind older inventories held. An empty
// APIVersion reads as "v1" for a Namespace and "source.toolkit.fluxcd.io/v1" for an
// ExternalArtifact; any other kind must carry its group. The zero Entry is not valid: no name.
type Entry struct {
	// APIVersion is "group/version", or "version" for the core group.
	APIVersion string `json:"apiVersion,omitempty"`
	// Kind is the object's kind, e.g. "Namespace".
	Kind string `json:"kind"`
	// Namespace is empty for a cluster-scoped object.
	Namespace string `json:"namespace,omitempty"`
	// Name is the object's name.
	Name string `json:"name"`
	// Filename is an ExternalArtifact's artifact file, not part of identity or change detection.
	Filename string `json:"filename,omitempty"`
	// Digest is "<algorithm>:<hex>" of what was applied, an algorithm of source-watcher's
	// --artifact-digest-algo; a changed digest makes [Diff] report an update. It may be empty, as
	// in a Flux ResourceInventory (not an ArtifactGenerator's): two empty digests are equal.
	Digest digest.Digest `json:"digest,omitempty"`
}

// ID identifies an object, (group, kind, namespace, name), and serves as a map key. The core
// group is "", and so is Namespace for a cluster-scoped object. The zero ID is not valid.
type ID struct {
	Group     string
	Kind      string
	Namespace string
	Name      string
}

// ID returns the entry's identity, with an empty Kind and APIVersion read as [Entry] says.
func (e Entry) ID() ID {
	kind, apiVersion := cmp.Or(e.Kind, KindExternalArtifact), e.APIVersion
	if apiVersion == "" {
		apiVersion, _ = defaultAPIVersion(kind)
	}
	group, _, ok := strings.Cut(apiVersion, "/")
	if !ok {
		group = GroupCore
	}
	return ID{Group: group, Kind: kind, Namespace: e.Namespace, Name: e.Name}
}

// defaultAPIVersion returns what an empty apiVersion reads as for kind, and whether it is known.
func defaultAPIVersion(kind string) (string, bool) {
	switch kind {
	case "", KindExternalArtifact:
		return APIVersionExternalArtifact, true
	case KindNamespace:
		return APIVersionNamespace, true
	}
	return "", false
}

// String returns the ID for people, as Flux names an object in change lines:
// "Kind/namespace/name", or "Kind/name" for a cluster-scoped object, e.g. "Namespace/tenant-a".
// It omits the group, as Flux does, so two IDs may print alike; [ID.FluxID] is the machine form.
func (id ID) String() string {
	if id.Namespace == "" {
		return id.Kind + "/" + id.Name
	}
	return id.Kind + "/" + id.Namespace + "/" + id.Name
}

// IsNamespace reports whether the ID is a core Namespace, not a same-named kind of another group.
func (id ID) IsNamespace() bool { return id.Group == GroupCore && id.Kind == KindNamespace }

// IsCustomResourceDefinition reports whether the ID is apiextensions.k8s.io's.
func (id ID) IsCustomResourceDefinition() bool {
	return id.Group == GroupAPIExtensions && id.Kind == KindCustomResourceDefinition
}

// Validate reports whether the ID could name a Kubernetes object:
//
//   - Group, when set, is a DNS-1123 subdomain (at most 253 bytes).
//   - Kind is set, ASCII and, lower-cased, a DNS-1035 label (at most 63 bytes), as Kubernetes
//     requires of a CustomResourceDefinition's kind.
//   - Namespace, when set, is a DNS-1123 label, and is empty for a Namespace or a CRD.
//   - Name is set, at most 253 bytes, and a valid path segment: not "." or "..", no "/" or "%"
//     (so "_" and ":" are allowed, as in RBAC and CertificateSigningRequest names).
//
// Every broken rule is reported under fldPath, which may be nil:
//
//	errs := id.Validate(field.NewPath("spec", "target"))
func (id ID) Validate(fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, msg := range apiname.IsGroup(id.Group) {
		errs = append(errs, field.Invalid(fldPath.Child("group"), id.Group, msg))
	}
	validateKind(&errs, fldPath, id.Kind)
	validateNamespace(&errs, fldPath, id)
	validateName(&errs, fldPath, id.Name)
	return errs
}

// Validate checks the entry against the rules of [ID.Validate] and these: APIVersion is "version"
// or "group/version" with a DNS-1035 label as version, and may be empty only for a Namespace or
// an ExternalArtifact; Filename has at most 4096 bytes; Digest, when set, is "<algorithm>:<hex>"
// with algorithm sha1, sha256, sha384, sha512 or blake3 and the lower-case hex of its size (40,
// 64, 96, 128 and 64 characters). Each rule bounds its field, so that a validated entry costs a
// bounded amount however a tenant names it. Every broken rule is reported under fldPath (or nil):
//
//	errs := e.Validate(field.NewPath("status", "inventory").Index(3))
func (e Entry) Validate(fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	validateAPIVersion(&errs, fldPath, e.APIVersion, e.Kind)
	if e.Kind != "" {
		validateKind(&errs, fldPath, e.Kind)
	}
	validateNamespace(&errs, fldPath, e.ID())
	validateName(&errs, fldPath, e.Name)
	if len(e.Filename) > maxFilenameBytes {
		errs = append(errs, field.TooLong(fldPath.Child("filename"), e.Filename, maxFilenameBytes))
	}
	validateDigest(&errs, fldPath, e.Digest)
	return errs
}

// The validateX functions append their field's problems, at its child of p, to errs: the child
// path is made only for a problem, so that a valid entry costs no path (BenchmarkPlan).

func validateAPIVersion(errs *field.ErrorList, p *field.Path, apiVersion, kind string) {
	if apiVersion == "" {
		if _, ok := defaultAPIVersion(kind); !ok {
			*errs = append(*errs, field.Required(p.Child("apiVersion"), fmt.Sprintf("must be set for kind %q: only Namespace and ExternalArtifact may omit it", kind)))
		}
		return
	}
	group, version, ok := strings.Cut(apiVersion, "/")
	if !ok {
		group, version = "", apiVersion
	} else if group == "" {
		*errs = append(*errs, field.Invalid(p.Child("apiVersion"), apiVersion, "must be \"version\" or \"group/version\" with a non-empty group"))
		return
	}
	if msgs := apiname.IsGroup(group); len(msgs) > 0 {
		*errs = append(*errs, field.Invalid(p.Child("apiVersion"), apiVersion, "group: "+strings.Join(msgs, "; ")))
	}
	if msgs := apiname.IsVersion(version); len(msgs) > 0 {
		*errs = append(*errs, field.Invalid(p.Child("apiVersion"), apiVersion, "version: "+strings.Join(msgs, "; ")))
	}
}

func validateKind(errs *field.ErrorList, p *field.Path, kind string) {
	if kind == "" {
		*errs = append(*errs, field.Required(p.Child("kind"), ""))
		return
	}
	for _, msg := range apiname.IsKind(kind) {
		*errs = append(*errs, field.Invalid(p.Child("kind"), kind, msg))
	}
}

func validateNamespace(errs *field.ErrorList, p *field.Path, id ID) {
	if id.Namespace == "" {
		return
	}
	if id.IsNamespace() || id.IsCustomResourceDefinition() {
		*errs = append(*errs, field.Forbidden(p.Child("namespace"), fmt.Sprintf("must be empty for cluster-scoped kind %q", id.Kind)))
		return
	}
	for _, msg := range validation.IsDNS1123Label(id.Namespace) {
		*errs = append(*errs, field.Invalid(p.Child("namespace"), id.Namespace, msg))
	}
}

func validateName(errs *field.ErrorList, p *field.Path, name string) {
	switch {
	case name == "":
		*errs = append(*errs, field.Required(p.Child("name"), ""))
	case len(name) > maxNameBytes:
		*errs = append(*errs, field.TooLong(p.Child("name"), name, maxNameBytes))
	default:
		for _, msg := range content.IsPathSegmentName(name) {
			*errs = append(*errs, field.Invalid(p.Child("name"), name, msg))
		}
	}
}

func validateDigest(errs *field.ErrorList, p *field.Path, d digest.Digest) {
	if d == "" || isDigest(d) {
		return
	}
	detail := "must be a " + digestAlgorithms + ` digest, "<algorithm>:<lower-case hex>"`
	if algorithm, _, _ := strings.Cut(string(d), ":"); digestHexLen[algorithm] > 0 {
		detail = fmt.Sprintf("must be %q followed by %d lower-case hex characters", algorithm+":", digestHexLen[algorithm])
	}
	*errs = append(*errs, field.Invalid(p.Child("digest"), string(d), detail))
}

// isDigest reports whether d is "<algorithm>:" and the lower-case hex of its size.
func isDigest(d digest.Digest) bool {
	algorithm, hex, _ := strings.Cut(string(d), ":")
	n, ok := digestHexLen[algorithm]
	return ok && len(hex) == n && !strings.ContainsFunc(hex, func(c rune) bool { return !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') })
}
