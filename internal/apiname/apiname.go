package apiname

import (
	"strings"
	"unicode/utf8"

	"k8s.io/apimachinery/pkg/util/validation"
)

// IsGroup returns nil when group is "" (the core group) or a DNS-1123 subdomain, and
// apimachinery's messages otherwise, for example for IsGroup("Fluxcd.io").
func IsGroup(group string) []string {
	if group == "" {
		return nil
	}
	return validation.IsDNS1123Subdomain(group)
}

// IsVersion returns nil when version is a DNS-1035 label, the rule for a CustomResourceDefinition's
// spec.versions[].name and an APIService's spec.version, and apimachinery's messages otherwise.
// IsVersion("v1alpha") and IsVersion("v1") return nil; IsVersion("V1") does not.
func IsVersion(version string) []string {
	return validation.IsDNS1035Label(version)
}

// IsKind returns nil when kind is ASCII and, lower-cased, a DNS-1035 label, the rule for a
// CustomResourceDefinition's spec.names.kind, and the broken rules otherwise, each starting
// "lower-cased, ", or "must be ASCII". IsKind("ResourceSet"), IsKind("myKind") and
// IsKind("My-Kind") return nil; IsKind("My_Kind") does not.
func IsKind(kind string) []string {
	msgs := validation.IsDNS1035Label(strings.ToLower(kind))
	for i, msg := range msgs {
		msgs[i] = "lower-cased, " + msg
	}
	if len(msgs) == 0 && strings.ContainsFunc(kind, func(r rune) bool { return r >= utf8.RuneSelf }) {
		// strings.ToLower maps a few non-ASCII letters to ASCII (the Kelvin sign to "k").
		return []string{"must be ASCII"}
	}
	return msgs
}
