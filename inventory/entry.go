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
	validateGroup(&errs, fldPath.Child("group"), id.Group)
	validateKind(&errs, fldPath.Child("kind"), id.Kind)
	validateNamespace(&errs, fldPath.Child("namespace"), id)
	validateName(&errs, fldPath.Child("name"), id.Name)
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
	if e.valid() {
		return nil
	}
	return e.validate(fldPath)
}

// validate is Validate without the shortcut.
func (e Entry) validate(fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	id := e.ID()
	validateAPIVersion(&errs, fldPath.Child("apiVersion"), e.APIVersion, e.Kind)
	if e.Kind != "" {
		validateKind(&errs, fldPath.Child("kind"), e.Kind)
	}
	validateNamespace(&errs, fldPath.Child("namespace"), id)
	validateName(&errs, fldPath.Child("name"), e.Name)
	if len(e.Filename) > maxFilenameBytes {
		errs = append(errs, field.TooLong(fldPath.Child("filename"), e.Filename, maxFilenameBytes))
	}
	validateDigest(&errs, fldPath.Child("digest"), e.Digest)
	return errs
}

// validType reports whether validateAPIVersion and validateKind (of a kind) find no error.
func validType(apiVersion, kind string) bool {
	if kind != "" && len(apiname.IsKind(kind)) > 0 {
		return false
	}
	if apiVersion == "" {
		_, ok := defaultAPIVersion(kind)
		return ok
	}
	group, version, ok := strings.Cut(apiVersion, "/")
	if !ok {
		return len(apiname.IsVersion(apiVersion)) == 0
	}
	return group != "" && len(apiname.IsGroup(group)) == 0 && len(apiname.IsVersion(version)) == 0
}

// validName reports whether validateName would find no error.
func validName(name string) bool {
	return name != "" && len(name) <= maxNameBytes && name != "." && name != ".." &&
		strings.IndexByte(name, '/') < 0 && strings.IndexByte(name, '%') < 0
}

// valid is Validate without field paths, which Diff needs only to word errors (BenchmarkDiff);
// TestEntryValidate and FuzzFastChecks hold it equal to validate.
func (e Entry) valid() bool {
	return validType(e.APIVersion, e.Kind) && e.validObject()
}

// validObject reports whether the rest of e, past its type, is valid.
func (e Entry) validObject() bool {
	id := e.ID()
	if id.Namespace != "" && (id.IsNamespace() || id.IsCustomResourceDefinition() || !isDNS1123Label(id.Namespace)) {
		return false
	}
	return validName(e.Name) && len(e.Filename) <= maxFilenameBytes && (e.Digest == "" || isDigest(e.Digest))
}

func validateAPIVersion(errs *field.ErrorList, p *field.Path, apiVersion, kind string) {
	if apiVersion == "" {
		if _, ok := defaultAPIVersion(kind); !ok {
			*errs = append(*errs, field.Required(p, fmt.Sprintf("must be set for kind %q: only Namespace and ExternalArtifact may omit it", kind)))
		}
		return
	}
	group, version, ok := strings.Cut(apiVersion, "/")
	if !ok {
		group, version = "", apiVersion
	} else if group == "" {
		*errs = append(*errs, field.Invalid(p, apiVersion, "must be \"version\" or \"group/version\" with a non-empty group"))
		return
	}
	if msgs := apiname.IsGroup(group); len(msgs) > 0 {
		*errs = append(*errs, field.Invalid(p, apiVersion, "group: "+strings.Join(msgs, "; ")))
	}
	if msgs := apiname.IsVersion(version); len(msgs) > 0 {
		*errs = append(*errs, field.Invalid(p, apiVersion, "version: "+strings.Join(msgs, "; ")))
	}
}

func validateGroup(errs *field.ErrorList, p *field.Path, group string) {
	for _, msg := range apiname.IsGroup(group) {
		*errs = append(*errs, field.Invalid(p, group, msg))
	}
}

func validateKind(errs *field.ErrorList, p *field.Path, kind string) {
	if kind == "" {
		*errs = append(*errs, field.Required(p, ""))
		return
	}
	for _, msg := range apiname.IsKind(kind) {
		*errs = append(*errs, field.Invalid(p, kind, msg))
	}
}

func validateNamespace(errs *field.ErrorList, p *field.Path, id ID) {
	if id.Namespace == "" {
		return
	}
	if id.IsNamespace() || id.IsCustomResourceDefinition() {
		*errs = append(*errs, field.Forbidden(p, fmt.Sprintf("must be empty for cluster-scoped kind %q", id.Kind)))
		return
	}
	if !isDNS1123Label(id.Namespace) {
		for _, msg := range validation.IsDNS1123Label(id.Namespace) {
			*errs = append(*errs, field.Invalid(p, id.Namespace, msg))
		}
	}
}

func validateName(errs *field.ErrorList, p *field.Path, name string) {
	switch {
	case name == "":
		*errs = append(*errs, field.Required(p, ""))
	case len(name) > maxNameBytes:
		*errs = append(*errs, field.TooLong(p, name, maxNameBytes))
	default:
		for _, msg := range content.IsPathSegmentName(name) {
			*errs = append(*errs, field.Invalid(p, name, msg))
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
	*errs = append(*errs, field.Invalid(p, string(d), detail))
}

// The fast checks below accept exactly what apimachinery's regular expressions do, which run only
// to word errors (BenchmarkDiff); TestFastChecks and FuzzFastChecks hold them equal.

// isDNS1123Label reports whether s matches [a-z0-9]([-a-z0-9]*[a-z0-9])? in at most 63 bytes.
func isDNS1123Label(s string) bool {
	if len(s) == 0 || len(s) > validation.DNS1123LabelMaxLength {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case 'a' <= c && c <= 'z', '0' <= c && c <= '9':
		case c == '-' && i > 0 && i < len(s)-1:
		default:
			return false
		}
	}
	return true
}

// isDigest reports whether d is "<algorithm>:" and the lower-case hex of its size.
func isDigest(d digest.Digest) bool {
	algorithm, hex, _ := strings.Cut(string(d), ":")
	if n, ok := digestHexLen[algorithm]; !ok || len(hex) != n {
		return false
	}
	// A table lookup, not a branch per byte, which mispredicts on random hex (BenchmarkDiff).
	var bad byte
	for i := 0; i < len(hex); i++ {
		bad |= notLowerHex[hex[i]]
	}
	return bad == 0
}

// notLowerHex is 0 for the bytes 0-9 and a-f, 1 for every other byte.
var notLowerHex = func() (t [256]byte) {
	for c := range t {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			t[c] = 1
		}
	}
	return t
}()
