package finalizer_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/tenantkit/tenantkit/finalizer"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// resourceSet is flux-operator's ResourceSet kind.
var resourceSet = schema.GroupKind{Group: "fluxcd.controlplane.io", Kind: "ResourceSet"}

func ExampleParse() {
	r, err := finalizer.Parse("fluxcd.controlplane.io/v1/ResourceSet/flux-system/tenants/0d1e3c4a-5b6c-4d7e-8f90-a1b2c3d4e5f6")
	if err != nil {
		panic(err)
	}
	fmt.Println(r.Kind, r.Namespace, r.Name, r.UID)

	// Any kind and version the API server serves.
	r, err = finalizer.Parse("example.com/v1alpha/My-Kind/flux-system/keeper/u-1")
	fmt.Println(r.Version, r.Kind, err)

	for _, value := range []string{
		"fluxcd.controlplane.io/v1//flux-system/tenants/0d1e",
		"fluxcd.controlplane.io/v1/ResourceSet/flux-system/tenants",
		"self",
	} {
		_, err = finalizer.Parse(value)
		var pe *finalizer.ParseError
		if errors.As(err, &pe) {
			fmt.Printf("%v (segment %q, invalid %v)\n", err, pe.Segment, errors.Is(err, finalizer.ErrInvalid))
		}
	}
	// Output:
	// ResourceSet flux-system tenants 0d1e3c4a-5b6c-4d7e-8f90-a1b2c3d4e5f6
	// v1alpha My-Kind <nil>
	// finalizer: invalid reference "fluxcd.controlplane.io/v1//flux-system/tenants/0d1e": kind: must not be empty (segment "kind", invalid true)
	// finalizer: invalid reference "fluxcd.controlplane.io/v1/ResourceSet/flux-system/tenants": must have exactly six segments group/version/kind/namespace/name/uid (segment "", invalid true)
	// finalizer: invalid reference "self": must be a reference, not the placeholder "self" that the finalizer replaces with one (segment "", invalid true)
}

func ExampleReference_String() {
	r := finalizer.Reference{Version: "v1", Kind: "ConfigMap", Namespace: "flux-system", Name: "rset", UID: "abc"}
	fmt.Println(r)
	// Output:
	// /v1/ConfigMap/flux-system/rset/abc
}

// A finalizing controller fills in its own reference from the object it reconciles: a typed
// object read through controller-runtime has no GroupVersionKind set, so it names its kind.
func ExampleReference_Validate() {
	owner := finalizer.Reference{Group: "fluxcd.controlplane.io", Version: "v1", Kind: "ResourceSet",
		Namespace: "flux-system", Name: "tenants", UID: "0d1e3c4a-5b6c-4d7e-8f90-a1b2c3d4e5f6"}
	fmt.Println(owner, owner.Validate())

	// Before the API server has created it, the object has no UID.
	owner.UID = ""
	fmt.Println(owner.Validate())
	r := finalizer.Reference{Version: "v1", Kind: "Config_Map", Name: "rset", UID: "u"}
	fmt.Println(r.Validate())
	// Output:
	// fluxcd.controlplane.io/v1/ResourceSet/flux-system/tenants/0d1e3c4a-5b6c-4d7e-8f90-a1b2c3d4e5f6 <nil>
	// finalizer: invalid reference "fluxcd.controlplane.io/v1/ResourceSet/flux-system/tenants/": uid: must not be empty
	// finalizer: invalid reference "/v1/Config_Map//rset/u": kind: lower-cased, a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')
}

func ExampleReference_GroupVersionKind() {
	r, err := finalizer.Parse("fluxcd.controlplane.io/v1/ResourceSet//tenants/1234-uid")
	if err != nil {
		panic(err)
	}
	gvk := r.GroupVersionKind()
	fmt.Println(gvk.GroupVersion(), gvk.Kind)
	// Output:
	// fluxcd.controlplane.io/v1 ResourceSet
}

func ExampleStamp() {
	owner := finalizer.Reference{
		Group: "fluxcd.controlplane.io", Version: "v1", Kind: "ResourceSet",
		Namespace: "flux-system", Name: "tenants", UID: "0d1e3c4a-5b6c-4d7e-8f90-a1b2c3d4e5f6",
	}
	// The platform team's Namespace as the ResourceSet renders it, with the
	// owner labels that flux-operator adds to every object it applies.
	labels := map[string]string{
		"resourceset.fluxcd.controlplane.io/name":      "tenants",
		"resourceset.fluxcd.controlplane.io/namespace": "flux-system",
	}
	annotations := map[string]string{finalizer.Annotation: finalizer.Self}
	stamped, err := finalizer.Stamp(labels, annotations, owner)
	if err != nil {
		panic(err)
	}
	fmt.Println(stamped[finalizer.Annotation])

	// Any other metadata is refused: the namespace's metadata belongs to
	// the generator.
	labels["team"] = "payments"
	_, err = finalizer.Stamp(labels, annotations, owner)
	fmt.Println(err)

	_, err = finalizer.Stamp(nil, map[string]string{finalizer.Annotation: "someone/v1/Else/ns/n/u"}, owner)
	fmt.Println(err)
	fmt.Println(errors.Is(err, finalizer.ErrStamp))
	// Output:
	// fluxcd.controlplane.io/v1/ResourceSet/flux-system/tenants/0d1e3c4a-5b6c-4d7e-8f90-a1b2c3d4e5f6
	// finalizer: cannot stamp namespace: must carry no labels or annotations besides source.extensions.fluxcd.io/externalFinalizer: found labels "team"
	// finalizer: cannot stamp namespace: annotation source.extensions.fluxcd.io/externalFinalizer must be "self", not "someone/v1/Else/ns/n/u"
	// true
}

func ExampleStampedBy() {
	live := map[string]string{
		finalizer.Annotation: "fluxcd.controlplane.io/v1/ResourceSet/flux-system/tenants/0d1e3c4a",
	}
	owner, ok, err := finalizer.StampedBy(live)
	fmt.Println(owner.Object(), ok, err)

	_, ok, err = finalizer.StampedBy(map[string]string{finalizer.Annotation: finalizer.Self})
	fmt.Println(ok, err)

	_, ok, err = finalizer.StampedBy(map[string]string{finalizer.Annotation: "tenants"})
	fmt.Println(ok, err)
	// Output:
	// fluxcd.controlplane.io/v1/ResourceSet/flux-system/tenants true <nil>
	// false <nil>
	// false finalizer: invalid reference "tenants": must have exactly six segments group/version/kind/namespace/name/uid
}

func ExampleRelease() {
	owner := finalizer.Reference{
		Group: "fluxcd.controlplane.io", Version: "v1", Kind: "ResourceSet",
		Namespace: "flux-system", Name: "tenants", UID: "0d1e3c4a",
	}
	for _, value := range []string{
		"fluxcd.controlplane.io/v1/ResourceSet/flux-system/tenants/0d1e3c4a",  // this owner
		"fluxcd.controlplane.io/v2/ResourceSet/flux-system/tenants/0d1e3c4a",  // this owner, served at v2
		"fluxcd.controlplane.io/v1/ResourceSet/flux-system/tenants/9f8e7d6c",  // an earlier incarnation
		"fluxcd.controlplane.io/v1/ResourceSet/flux-system/platform/0d1e3c4a", // another owner
		finalizer.Self, // never stamped
	} {
		live := map[string]string{finalizer.Annotation: value, "note": "kept"}
		annotations, result, err := finalizer.Release(live, owner)
		fmt.Printf("%s: %d annotations left, %v\n", result, len(annotations), err)
	}
	// Output:
	// released: 1 annotations left, <nil>
	// released: 1 annotations left, <nil>
	// stamped by the owner with another uid: 2 annotations left, <nil>
	// stamped by another owner: 2 annotations left, <nil>
	// not stamped: 2 annotations left, <nil>
}

func ExampleNewDecider() {
	d, errs := finalizer.NewDecider(field.NewPath("allowedKinds"), resourceSet)
	fmt.Println(d != nil, len(errs))

	_, errs = finalizer.NewDecider(field.NewPath("allowedKinds"), schema.GroupKind{Group: "fluxcd.controlplane.io", Kind: "Resource_Set"})
	fmt.Println(errs.ToAggregate())
	// Output:
	// true 0
	// allowedKinds[0].kind: Invalid value: "Resource_Set": lower-cased, a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')
}

func ExampleDecider_Decide() {
	d, errs := finalizer.NewDecider(field.NewPath("allowedKinds"), resourceSet)
	if errs != nil {
		panic(errs.ToAggregate())
	}
	// What the cluster holds: the ResourceSet, and kube-root-ca.crt in
	// tenant-a; live namespace annotations.
	lookup := finalizer.LookupFunc(func(ctx context.Context, r finalizer.Reference) (string, error) {
		switch {
		case r.Kind == "ResourceSet" && r.Namespace == "flux-system" && r.Name == "tenants":
			return "0d1e3c4a-5b6c-4d7e-8f90-a1b2c3d4e5f6", nil
		case r.Kind == "ConfigMap" && r.Namespace == "tenant-a" && r.Name == "kube-root-ca.crt":
			return "6f1c2d3e", nil
		}
		return "", finalizer.ErrNotFound
	})
	for _, value := range []string{
		"fluxcd.controlplane.io/v1/ResourceSet/flux-system/tenants/0d1e3c4a-5b6c-4d7e-8f90-a1b2c3d4e5f6",
		"fluxcd.controlplane.io/v1/ResourceSet/flux-system/tenants/99999999-5b6c-4d7e-8f90-a1b2c3d4e5f6",
		"fluxcd.controlplane.io/v1/ResourceSet/flux-system/gone/0d1e3c4a-5b6c-4d7e-8f90-a1b2c3d4e5f6",
		"/v1/ConfigMap/tenant-a/kube-root-ca.crt/6f1c2d3e",
		"/v1/ConfigMap/flux-system/keeper/6f1c2d3e",
		"fluxcd.controlplane.io/v1/ResourceSet/flux-system/Tenants/0d1e",
		"self",
		"",
	} {
		live := map[string]string{finalizer.Annotation: value}
		v, err := d.Decide(context.Background(), "tenant-a", live, lookup)
		if err != nil {
			fmt.Println("keep and retry:", err)
			continue
		}
		fmt.Printf("%v, %v: %s\n", v.HandedOff(), v.Outcome, v.Reason)
	}
	// Output:
	// true, handed off: handed off to fluxcd.controlplane.io/v1/ResourceSet/flux-system/tenants (uid 0d1e3c4a-5b6c-4d7e-8f90-a1b2c3d4e5f6)
	// false, recreated: external finalizer fluxcd.controlplane.io/v1/ResourceSet/flux-system/tenants has uid "0d1e3c4a-5b6c-4d7e-8f90-a1b2c3d4e5f6", not "99999999-5b6c-4d7e-8f90-a1b2c3d4e5f6": it was recreated and may not track the namespace
	// false, not found: external finalizer fluxcd.controlplane.io/v1/ResourceSet/flux-system/gone (uid 0d1e3c4a-5b6c-4d7e-8f90-a1b2c3d4e5f6) not found
	// false, inside the namespace: external finalizer v1/ConfigMap/tenant-a/kube-root-ca.crt (uid 6f1c2d3e) is not a hand-off: it is inside namespace tenant-a itself and cannot outlive it
	// false, kind not allowed: external finalizer v1/ConfigMap/flux-system/keeper (uid 6f1c2d3e) is not a hand-off: kind ConfigMap is not allowed (allowed: fluxcd.controlplane.io/ResourceSet)
	// false, malformed: malformed external finalizer "fluxcd.controlplane.io/v1/ResourceSet/flux-system/Tenants/0d1e": name: a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')
	// false, unstamped: external finalizer "self" was never stamped with a reference
	// false, absent: no external finalizer
}

func ExampleLookupFunc() {
	// A Lookup maps the cluster's Forbidden to ErrForbidden, and its
	// NotFound to ErrNotFound; anything else it returns as it is.
	forbidden := errors.New(`resourcesets.fluxcd.controlplane.io "tenants" is forbidden`)
	lookup := finalizer.LookupFunc(func(ctx context.Context, r finalizer.Reference) (string, error) {
		return "", fmt.Errorf("%w: %w", finalizer.ErrForbidden, forbidden)
	})
	var d finalizer.Decider // every kind allowed
	live := map[string]string{finalizer.Annotation: "fluxcd.controlplane.io/v1/ResourceSet/flux-system/tenants/0d1e"}
	v, err := d.Decide(context.Background(), "tenant-a", live, lookup)
	fmt.Println(v.Outcome, errors.Is(err, finalizer.ErrForbidden), errors.Is(err, forbidden))
	fmt.Println(v.Reason)
	fmt.Println(err)

	unreachable := errors.New("connection refused")
	lookup = func(ctx context.Context, r finalizer.Reference) (string, error) { return "", unreachable }
	v, err = d.Decide(context.Background(), "tenant-a", live, lookup)
	fmt.Println(v.Outcome, errors.Is(err, unreachable))
	fmt.Println(v.Reason)
	fmt.Println(err)
	// Output:
	// forbidden true true
	// cannot look up external finalizer fluxcd.controlplane.io/v1/ResourceSet/flux-system/tenants (uid 0d1e): RBAC: get fluxcd.controlplane.io/ResourceSet in namespace flux-system is forbidden
	// finalizer: forbidden: resourcesets.fluxcd.controlplane.io "tenants" is forbidden
	// undecided true
	// cannot look up external finalizer fluxcd.controlplane.io/v1/ResourceSet/flux-system/tenants (uid 0d1e): connection refused
	// finalizer: look up fluxcd.controlplane.io/v1/ResourceSet/flux-system/tenants (uid 0d1e): connection refused
}

func ExampleReference_Object() {
	r, err := finalizer.Parse("fluxcd.controlplane.io/v1/ResourceSet/flux-system/tenants/0d1e3c4a-5b6c-4d7e-8f90-a1b2c3d4e5f6")
	if err != nil {
		panic(err)
	}
	fmt.Println(r.Object())
	ns, _ := finalizer.Parse("/v1/Namespace//keeper/u-1")
	fmt.Println(ns.Object())
	// Output:
	// fluxcd.controlplane.io/v1/ResourceSet/flux-system/tenants
	// v1/Namespace/keeper
}
