package finalizer

import (
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation"
)

// Annotation is the key of the namespace annotation that names the external
// finalizer, the object that takes over deleting the namespace.
const Annotation = "source.extensions.fluxcd.io/externalFinalizer"

// Self is the placeholder value that the finalizing controller replaces with its
// own reference when it applies the namespace (see [Stamp]). It is not a
// reference: [Parse] returns [ErrSelf] for it.
const Self = "self"

// Segment bounds. The group and the name are DNS-1123 subdomains and the
// namespace a DNS-1123 label (apimachinery's limits); a CustomResourceDefinition's
// versions and lowercased kind must be DNS-1035 labels, so 63 bytes each; a
// Kubernetes UID is a 36-byte UUID, and 128 bytes leave room for other
// identifiers while keeping a forged value small.
const (
	maxGroupLength     = validation.DNS1123SubdomainMaxLength
	maxVersionLength   = validation.DNS1035LabelMaxLength
	maxKindLength      = validation.DNS1035LabelMaxLength
	maxNamespaceLength = validation.DNS1123LabelMaxLength
	maxNameLength      = validation.DNS1123SubdomainMaxLength
	maxUIDLength       = 128
)

// MaxLength is the length in bytes of the longest valid reference: the sum of
// the segment bounds and the five separators. [Parse] rejects a longer value
// before it looks at its segments: the annotation is set by whoever may patch the
// namespace, and the API server accepts values of up to 256 KiB.
const MaxLength = 828 // 253 + 63 + 63 + 63 + 253 + 128 + 5

// Reference identifies the external finalizer of a namespace: an object by
// API group, version, kind, namespace, name and UID. Its text form, the
// annotation value, is "group/version/kind/namespace/name/uid", for example
// "fluxcd.controlplane.io/v1/ResourceSet/flux-system/tenants/0d1e3c4a-...".
//
// Group is empty for the core API group and Namespace is empty for a
// cluster-scoped object. Reference is comparable and safe to copy and share.
// The zero value is not a valid reference; obtain one from [Parse], or fill in
// the fields and check them with [Reference.Validate].
type Reference struct {
	Group     string
	Version   string
	Kind      string
	Namespace string
	Name      string
	UID       string
}

// Parse parses an externalFinalizer annotation value of the form
// "group/version/kind/namespace/name/uid" (see the package documentation for
// the grammar), for example Parse("/v1/ConfigMap/flux-system/rset/abc").
//
// For the placeholder [Self] it returns [ErrSelf]: the value was never stamped.
// Any other failure is a *[ParseError] that names the segment and the rule, and
// matches [ErrInvalid]. Parse reports the first failing segment, in segment
// order. The returned strings share memory with s: on success Parse does not
// allocate.
func Parse(s string) (Reference, error) {
	if s == Self {
		return Reference{}, ErrSelf
	}
	if len(s) > MaxLength {
		return Reference{}, &ParseError{Value: s, Err: errTooLong}
	}
	var seg [6]string
	rest := s
	for i := range 5 {
		j := strings.IndexByte(rest, '/')
		if j < 0 {
			return Reference{}, &ParseError{Value: s, Err: errSegments}
		}
		seg[i], rest = rest[:j], rest[j+1:]
	}
	if strings.IndexByte(rest, '/') >= 0 {
		return Reference{}, &ParseError{Value: s, Err: errSegments}
	}
	r := Reference{
		Group:     seg[0],
		Version:   seg[1],
		Kind:      seg[2],
		Namespace: seg[3],
		Name:      seg[4],
		UID:       rest,
	}
	if segment, err := r.check(); err != nil {
		return Reference{}, &ParseError{Value: s, Segment: segment, Err: err}
	}
	return r, nil
}

// String returns the annotation value "group/version/kind/namespace/name/uid".
// For a valid reference, Parse(r.String()) returns r.
func (r Reference) String() string {
	return r.Group + "/" + r.Version + "/" + r.Kind + "/" + r.Namespace + "/" + r.Name + "/" + r.UID
}

// Validate reports whether r follows the rules that [Parse] applies, returning
// nil or a *[ParseError] (matching [ErrInvalid]) whose Value is r.String(), for
// example Reference{Version: "v1", Kind: "ConfigMap"}.Validate() fails on the
// name.
func (r Reference) Validate() error {
	if segment, err := r.check(); err != nil {
		return &ParseError{Value: r.String(), Segment: segment, Err: err}
	}
	return nil
}

// GroupVersionKind returns the API group, version and kind as apimachinery's
// type, for example to set on an unstructured or PartialObjectMetadata object
// before a Get.
func (r Reference) GroupVersionKind() schema.GroupVersionKind {
	return schema.GroupVersionKind{Group: r.Group, Version: r.Version, Kind: r.Kind}
}

// object returns the reference without its UID in the "apiVersion/Kind/
// [namespace/]name" form, for reasons and messages.
func (r Reference) object() string {
	s := r.Version + "/" + r.Kind + "/"
	if r.Group != "" {
		s = r.Group + "/" + s
	}
	if r.Namespace != "" {
		s += r.Namespace + "/"
	}
	return s + r.Name
}

// check applies the segment rules in segment order and returns the first
// failing segment with its rule.
func (r Reference) check() (Segment, error) {
	if r.Group != "" {
		if msgs := validation.IsDNS1123Subdomain(r.Group); len(msgs) > 0 {
			return SegmentGroup, ruleError(msgs)
		}
	}
	switch {
	case r.Version == "":
		return SegmentVersion, errEmpty
	case len(r.Version) > maxVersionLength:
		return SegmentVersion, errTooLong63
	case !isAPIVersion(r.Version):
		return SegmentVersion, errVersion
	}
	switch {
	case r.Kind == "":
		return SegmentKind, errEmpty
	case len(r.Kind) > maxKindLength:
		return SegmentKind, errTooLong63
	case !isKind(r.Kind):
		return SegmentKind, errKind
	}
	if r.Namespace != "" {
		if msgs := validation.IsDNS1123Label(r.Namespace); len(msgs) > 0 {
			return SegmentNamespace, ruleError(msgs)
		}
	}
	if r.Name == "" {
		return SegmentName, errEmpty
	}
	if msgs := validation.IsDNS1123Subdomain(r.Name); len(msgs) > 0 {
		return SegmentName, ruleError(msgs)
	}
	switch {
	case r.UID == "":
		return SegmentUID, errEmpty
	case len(r.UID) > maxUIDLength:
		return SegmentUID, errTooLong128
	case !isUID(r.UID):
		return SegmentUID, errUID
	}
	return SegmentNone, nil
}

// isAPIVersion reports whether v has the form v<digits>[(alpha|beta)<digits>],
// the form apimachinery's version package orders (v1, v1beta2, v2alpha1). That
// package does not export its parser, and this check does not allocate; a test
// keeps the two in agreement.
func isAPIVersion(v string) bool {
	if len(v) < 2 || v[0] != 'v' {
		return false
	}
	n := leadingDigits(v[1:])
	if n == 0 {
		return false
	}
	rest := v[1+n:]
	if rest == "" {
		return true
	}
	switch {
	case strings.HasPrefix(rest, "alpha"):
		rest = rest[len("alpha"):]
	case strings.HasPrefix(rest, "beta"):
		rest = rest[len("beta"):]
	default:
		return false
	}
	n = leadingDigits(rest)
	return n > 0 && n == len(rest)
}

func leadingDigits(s string) int {
	for i := range len(s) {
		if s[i] < '0' || s[i] > '9' {
			return i
		}
	}
	return len(s)
}

// isKind reports whether k is a CamelCase identifier: an upper-case ASCII
// letter, then ASCII letters and digits. Lowercased, such a kind is a DNS-1035
// label, as a CustomResourceDefinition requires.
func isKind(k string) bool {
	if k == "" || k[0] < 'A' || k[0] > 'Z' {
		return false
	}
	for i := 1; i < len(k); i++ {
		c := k[i]
		if (c < 'A' || c > 'Z') && (c < 'a' || c > 'z') && (c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// isUID reports whether u consists of printable ASCII characters other than
// space and "/": no whitespace, no control characters, nothing that could hide
// in a log line or split the value.
func isUID(u string) bool {
	for i := range len(u) {
		if c := u[i]; c <= ' ' || c > '~' || c == '/' {
			return false
		}
	}
	return true
}
