package finalizer

import (
	"strings"

	"github.com/tenantkit/tenantkit/internal/apiname"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation"
)

// The annotation's vocabulary.
const (
	// Annotation is the key of the namespace annotation that names the
	// external finalizer, the object that takes over deleting the namespace.
	Annotation = "source.extensions.fluxcd.io/externalFinalizer"

	// Self is the placeholder that the finalizing controller replaces with its
	// own reference ([Stamp]); it is not a reference, and [Parse] refuses it.
	Self = "self"
)

// Segment bounds, apimachinery's for DNS names; a Kubernetes UID is a 36-byte UUID, and 128
// bytes leave room for other identifiers while keeping a forged value small.
const (
	maxGroupLength     = validation.DNS1123SubdomainMaxLength
	maxVersionLength   = validation.DNS1035LabelMaxLength
	maxKindLength      = validation.DNS1035LabelMaxLength
	maxNamespaceLength = validation.DNS1123LabelMaxLength
	maxNameLength      = validation.DNS1123SubdomainMaxLength
	maxUIDLength       = 128
)

// maxLength is the longest valid reference: Parse rejects a longer value before splitting
// it, since whoever may patch the namespace can write up to 256 KiB.
const maxLength = 828 // 253 + 63 + 63 + 63 + 253 + 128 + 5

// Reference identifies the external finalizer of a namespace by API group ("" for the core
// group), version, kind, namespace ("" when cluster-scoped), name and UID; its String is the
// annotation value. It is comparable and safe to copy and share. The zero value is not
// valid; obtain one from [Parse], or fill in the fields and check them with [Reference.Validate],
// as a finalizing controller builds its own, the owner that [Stamp] writes and [Release] looks
// for (a typed object read through controller-runtime has an empty GroupVersionKind: name its
// kind):
//
//	owner := finalizer.Reference{Group: "fluxcd.controlplane.io", Version: "v1", Kind: "ResourceSet",
//		Namespace: obj.GetNamespace(), Name: obj.GetName(), UID: string(obj.GetUID())}
type Reference struct {
	Group     string
	Version   string
	Kind      string
	Namespace string
	Name      string
	UID       string
}

// Parse parses an externalFinalizer annotation value (the grammar is in the package
// documentation), for example Parse("/v1/ConfigMap/flux-system/rset/abc"). Every failure,
// the placeholder [Self] included, is a *[ParseError] naming the first failing segment, in
// segment order, and its rule, which unwraps to [ErrInvalid]. The strings share memory with s.
func Parse(s string) (Reference, error) {
	if s == Self {
		return Reference{}, &ParseError{Value: s, Rule: ruleSelf}
	}
	if len(s) > maxLength {
		return Reference{}, &ParseError{Value: s, Rule: ruleTooLong}
	}
	seg := strings.SplitN(s, "/", 7)
	if len(seg) != 6 {
		return Reference{}, &ParseError{Value: s, Rule: ruleSegments}
	}
	r := Reference{Group: seg[0], Version: seg[1], Kind: seg[2], Namespace: seg[3], Name: seg[4], UID: seg[5]}
	if segment, rule := r.check(); rule != "" {
		return Reference{}, &ParseError{Value: s, Segment: segment, Rule: rule}
	}
	return r, nil
}

// String returns the annotation value "group/version/kind/namespace/name/uid".
// For a valid reference, Parse(r.String()) returns r.
func (r Reference) String() string {
	return r.Group + "/" + r.Version + "/" + r.Kind + "/" + r.Namespace + "/" + r.Name + "/" + r.UID
}

// Validate returns nil when r follows the rules of [Parse], or the *[ParseError] of the first
// failing segment, whose Value is r.String(): Reference{Version: "v1", Kind: "ConfigMap"} fails
// on the name. An empty UID fails, so that an object not yet created cannot take over.
func (r Reference) Validate() error {
	if segment, rule := r.check(); rule != "" {
		return &ParseError{Value: r.String(), Segment: segment, Rule: rule}
	}
	return nil
}

// GroupVersionKind returns the API group, version and kind as apimachinery's
// type, to set on an unstructured or PartialObjectMetadata object for a Get.
func (r Reference) GroupVersionKind() schema.GroupVersionKind {
	return schema.GroupVersionKind{Group: r.Group, Version: r.Version, Kind: r.Kind}
}

// Object returns the object the reference names, without its UID, in the
// "[group/]version/kind/[namespace/]name" form that reasons and messages
// use, e.g. "fluxcd.controlplane.io/v1/ResourceSet/flux-system/tenants".
func (r Reference) Object() string {
	s := r.Version + "/" + r.Kind + "/"
	if r.Group != "" {
		s = r.Group + "/" + s
	}
	if r.Namespace != "" {
		s += r.Namespace + "/"
	}
	return s + r.Name
}

// check returns the first failing segment and its rule; group, version and kind by apiname.
func (r Reference) check() (segment, rule string) {
	for _, c := range [...]struct {
		segment, value string
		optional       bool // "" is valid: the core group, a cluster-scoped object
		is             func(string) []string
	}{
		{"group", r.Group, true, apiname.IsGroup},
		{"version", r.Version, false, apiname.IsVersion},
		{"kind", r.Kind, false, apiname.IsKind},
		{"namespace", r.Namespace, true, validation.IsDNS1123Label},
		{"name", r.Name, false, validation.IsDNS1123Subdomain},
		{"uid", r.UID, false, checkUID},
	} {
		if c.value == "" {
			if !c.optional {
				return c.segment, ruleEmpty
			}
		} else if msgs := c.is(c.value); len(msgs) > 0 {
			return c.segment, strings.Join(msgs, "; ")
		}
	}
	return "", ""
}

// checkUID returns the rule a non-empty UID breaks, if any: at most maxUIDLength bytes of
// printable ASCII other than space and "/", nothing that could hide in a log line or split the value.
func checkUID(u string) []string {
	switch {
	case len(u) > maxUIDLength:
		return []string{ruleUIDLength}
	case strings.ContainsFunc(u, func(c rune) bool { return c <= ' ' || c > '~' || c == '/' }):
		return []string{ruleUID}
	}
	return nil
}
