package inventory

import (
	"fmt"
	"strings"

	"github.com/opencontainers/go-digest"
	"github.com/tenantkit/tenantkit/internal/apiname"
	"k8s.io/apimachinery/pkg/api/validate/content"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	// The digest algorithms that an entry may use must be linked in for
	// go-digest to report them available: sha256, sha384 and sha512, the
	// choices of source-controller's --artifact-digest-algo that go-digest
	// knows.
	_ "crypto/sha256"
	_ "crypto/sha512"
)

// The kinds and groups that identity and order know by name. An entry of
// kind Namespace or ExternalArtifact may leave its apiVersion empty, as the
// ArtifactGenerator's status.inventory does.
const (
	kindNamespace        = "Namespace"
	kindExternalArtifact = "ExternalArtifact"
	kindCRD              = "CustomResourceDefinition"

	groupCore          = ""
	groupSource        = "source.toolkit.fluxcd.io"
	groupAPIExtensions = "apiextensions.k8s.io"

	apiVersionNamespace = "v1"
	apiVersionArtifact  = groupSource + "/v1"
)

const (
	// maxNameBytes bounds a name, whatever its kind: Kubernetes names are
	// at most 253 bytes, and so a tenant's directory name costs a bounded
	// amount to store, compare and print.
	maxNameBytes = validation.DNS1123SubdomainMaxLength

	// maxFilenameBytes bounds Filename, which the generator writes rather
	// than a tenant: Linux's PATH_MAX, so any artifact path fits.
	maxFilenameBytes = 4096

	digestAlgorithms = "sha256, sha384 or sha512"
)

// Entry is one object that a generator applied, as the ArtifactGenerator
// records it in status.inventory:
//
//	{"kind": "ExternalArtifact", "namespace": "tenant-a", "name": "app",
//	 "filename": "...", "digest": "sha256:..."}
//
// Its identity is its [ID]: group, kind, namespace and name. The API version
// is not part of it: an object served at v1 and at v2 is one object.
//
// An empty Kind reads as ExternalArtifact, the only kind that older
// inventories held. An empty APIVersion reads as "v1" for a Namespace and
// "source.toolkit.fluxcd.io/v1" for an ExternalArtifact; every other kind
// must carry its APIVersion, since the group cannot be guessed.
//
// The zero Entry is not valid: it has no name.
type Entry struct {
	// APIVersion is "group/version", or "version" for the core group.
	APIVersion string `json:"apiVersion,omitempty"`
	// Kind is the object's kind, e.g. "Namespace".
	Kind string `json:"kind"`
	// Namespace is empty for a cluster-scoped object.
	Namespace string `json:"namespace,omitempty"`
	// Name is the object's name.
	Name string `json:"name"`
	// Filename is the artifact file of an ExternalArtifact, at most 4096
	// bytes. It plays no part in identity or change detection.
	Filename string `json:"filename,omitempty"`
	// Digest is the digest of what was applied; a changed digest makes
	// [Diff] report an update. It may be empty (Flux ResourceInventory ids
	// carry none); when set it must be a valid sha256, sha384 or sha512
	// digest.
	Digest digest.Digest `json:"digest,omitempty"`
}

// ID identifies an object: (group, kind, namespace, name). IDs are
// comparable and serve as map keys. The core group is "", and Namespace is
// "" for a cluster-scoped object.
//
// The zero ID is not valid.
type ID struct {
	Group     string
	Kind      string
	Namespace string
	Name      string
}

// ID returns the entry's identity, reading an empty Kind as
// ExternalArtifact, and taking the group from APIVersion or, when that is
// empty, from the well-known kind (see [Entry]).
func (e Entry) ID() ID {
	kind := e.Kind
	if kind == "" {
		kind = kindExternalArtifact
	}
	return ID{Group: groupOf(e.APIVersion, kind), Kind: kind, Namespace: e.Namespace, Name: e.Name}
}

// groupOf returns the API group of apiVersion, or of the well-known kind
// when apiVersion is empty.
func groupOf(apiVersion, kind string) string {
	if apiVersion == "" {
		if kind == kindExternalArtifact {
			return groupSource
		}
		return groupCore
	}
	if group, _, ok := strings.Cut(apiVersion, "/"); ok {
		return group
	}
	return groupCore
}

// defaultAPIVersion returns the apiVersion that an empty one reads as for
// kind, and whether kind is well-known.
func defaultAPIVersion(kind string) (string, bool) {
	switch kind {
	case "", kindExternalArtifact:
		return apiVersionArtifact, true
	case kindNamespace:
		return apiVersionNamespace, true
	}
	return "", false
}

// Subject returns the object as Flux names it in change lines:
// "Kind/namespace/name", or "Kind/name" for a cluster-scoped object, e.g.
// "ExternalArtifact/tenant-a/app". It omits the group, as Flux does.
func (id ID) Subject() string {
	if id.Namespace == "" {
		return id.Kind + "/" + id.Name
	}
	return id.Kind + "/" + id.Namespace + "/" + id.Name
}

// String returns the ID as a Flux ResourceInventory id,
// "<namespace>_<name>_<group>_<kind>", with every ":" of the name written
// as "__", e.g. "tenant-a_app_source.toolkit.fluxcd.io_ExternalArtifact".
// [ParseID] reads it back, unless the name contains "_", which a Flux id
// cannot carry (see [ToResourceInventory]).
func (id ID) String() string {
	return id.Namespace + "_" + strings.ReplaceAll(id.Name, ":", "__") + "_" + id.Group + "_" + id.Kind
}

// Validate reports whether the ID could name a Kubernetes object:
//
//   - Group, when set, is a DNS-1123 subdomain (at most 253 bytes).
//   - Kind is set, ASCII and, lower-cased, a DNS-1035 label (at most 63
//     bytes), the rule Kubernetes applies to the kind of a
//     CustomResourceDefinition.
//   - Namespace, when set, is a DNS-1123 label (at most 63 bytes), and is
//     empty for a Namespace or a CustomResourceDefinition.
//   - Name is set, at most 253 bytes, and a valid path segment: not "." or
//     "..", no "/" or "%".
//
// The error wraps [ErrInvalidID] and names the first broken rule, e.g.
// `inventory: invalid id "_a_b_": kind: Required value`.
func (id ID) Validate() error {
	if errs := id.validate(); len(errs) > 0 {
		return fmt.Errorf("%w %q: %s", ErrInvalidID, id.String(), errs[0].Error())
	}
	return nil
}

func (id ID) validate() field.ErrorList {
	var errs field.ErrorList
	validateGroup(&errs, field.NewPath("group"), id.Group)
	validateKind(&errs, field.NewPath("kind"), id.Kind)
	validateNamespace(&errs, field.NewPath("namespace"), id)
	validateName(&errs, field.NewPath("name"), id.Name)
	return errs
}

// Validate checks the entry against the rules of [ID.Validate] and these:
// APIVersion is "version" or "group/version" with a DNS-1035 label as
// version, and may be empty only for a Namespace or an ExternalArtifact;
// Filename has at most 4096 bytes; Digest, when set, is a valid sha256,
// sha384 or sha512 digest.
//
// Every broken rule is reported, with its field under fldPath, which may be
// nil:
//
//	errs := e.Validate(field.NewPath("status", "inventory").Index(3))
//
// Each rule also bounds the length of its field, so that a validated entry
// costs a bounded amount to store, compare and print.
func (e Entry) Validate(fldPath *field.Path) field.ErrorList {
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

// validType reports whether validateAPIVersion and validateKind (for a
// non-empty kind) would find no error.
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
	if isNamespace(id) || isCRD(id) {
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
	if err := d.Validate(); err != nil {
		detail += ": " + err.Error()
	}
	*errs = append(*errs, field.Invalid(p, string(d), detail))
}

// The fast checks below accept exactly what the apimachinery and go-digest
// checks accept; the validators call those only to word the error. They
// exist because Diff validates every entry and the regular expressions
// behind apimachinery's checks would take most of its time (see
// BenchmarkDiff). TestFastChecks and FuzzFastChecks hold them equal.

// isDNS1123Label reports whether s matches [a-z0-9]([-a-z0-9]*[a-z0-9])? and
// has at most 63 bytes.
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

// isDNS1123Subdomain reports whether s is dot-separated DNS-1123 labels of
// at most 253 bytes in all (each label may then be longer than 63 bytes, as
// apimachinery allows).
func isDNS1123Subdomain(s string) bool {
	if len(s) == 0 || len(s) > validation.DNS1123SubdomainMaxLength {
		return false
	}
	for label := range strings.SplitSeq(s, ".") {
		if len(label) == 0 || label[0] == '-' || label[len(label)-1] == '-' {
			return false
		}
		for i := 0; i < len(label); i++ {
			c := label[i]
			if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-') {
				return false
			}
		}
	}
	return true
}

// isDNS1035Label reports whether s matches [a-z]([-a-z0-9]*[a-z0-9])? and
// has at most 63 bytes.
func isDNS1035Label(s string) bool {
	return isDNS1123Label(s) && 'a' <= s[0] && s[0] <= 'z'
}

// isDigest reports whether d is "sha256:", "sha384:" or "sha512:" followed
// by lower-case hex of the algorithm's length, the digests go-digest
// validates with this package's imports.
func isDigest(d digest.Digest) bool {
	s := string(d)
	var n int
	switch {
	case strings.HasPrefix(s, "sha256:"):
		n = 64
	case strings.HasPrefix(s, "sha384:"):
		n = 96
	case strings.HasPrefix(s, "sha512:"):
		n = 128
	default:
		return false
	}
	hex := s[len("sha256:"):]
	if len(hex) != n {
		return false
	}
	// Eight bytes at a time, without a branch per byte: on random hex,
	// such branches mispredict so often that they made this check half of
	// Diff's time. For a byte b below 0x80, b + 0x80 - lo carries into the
	// byte's top bit exactly when b >= lo, and never into the next byte;
	// a byte of 0x80 or more sets bad by itself.
	const ones, top = 0x0101010101010101, 0x8080808080808080
	var bad uint64
	for ; len(hex) >= 8; hex = hex[8:] {
		b := hex[:8] // one bounds check, and the eight loads become one
		w := uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
			uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
		digit := (w + ones*(0x80-'0')) &^ (w + ones*(0x80-'9'-1)) & top
		letter := (w + ones*(0x80-'a')) &^ (w + ones*(0x80-'f'-1)) & top
		bad |= w&top | ((digit | letter) ^ top)
	}
	return bad == 0
}
