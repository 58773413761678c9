package finalizer_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/tenantkit/tenantkit/finalizer"
)

func ExampleParse() {
	r, err := finalizer.Parse("fluxcd.controlplane.io/v1/ResourceSet/flux-system/tenants/0d1e3c4a-5b6c-4d7e-8f90-a1b2c3d4e5f6")
	if err != nil {
		panic(err)
	}
	fmt.Println(r.Kind, r.Namespace, r.Name, r.UID)

	_, err = finalizer.Parse("fluxcd.controlplane.io/v1//flux-system/tenants/0d1e")
	var pe *finalizer.ParseError
	if errors.As(err, &pe) {
		fmt.Println(pe.Segment, errors.Is(err, finalizer.ErrInvalid))
	}

	_, err = finalizer.Parse("self")
	fmt.Println(errors.Is(err, finalizer.ErrSelf))
	// Output:
	// ResourceSet flux-system tenants 0d1e3c4a-5b6c-4d7e-8f90-a1b2c3d4e5f6
	// kind true
	// true
}

func ExampleReference_String() {
	r := finalizer.Reference{Version: "v1", Kind: "ConfigMap", Namespace: "flux-system", Name: "rset", UID: "abc"}
	fmt.Println(r)
	// Output:
	// /v1/ConfigMap/flux-system/rset/abc
}

func ExampleReference_Validate() {
	r := finalizer.Reference{Group: "fluxcd.controlplane.io", Version: "v1", Kind: "ResourceSet", Name: "tenants"}
	fmt.Println(r.Validate())
	// Output:
	// finalizer: invalid reference "fluxcd.controlplane.io/v1/ResourceSet//tenants/": uid: must not be empty
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
	// The platform team's Namespace in the ResourceSet's desired state.
	annotations := map[string]string{finalizer.Annotation: finalizer.Self}
	stamped, err := finalizer.Stamp(nil, annotations, owner)
	if err != nil {
		panic(err)
	}
	fmt.Println(stamped[finalizer.Annotation])

	// Any other metadata belongs to the generator.
	_, err = finalizer.Stamp(map[string]string{"team": "a"}, annotations, owner)
	fmt.Println(errors.Is(err, finalizer.ErrOtherMetadata))
	// Output:
	// fluxcd.controlplane.io/v1/ResourceSet/flux-system/tenants/0d1e3c4a-5b6c-4d7e-8f90-a1b2c3d4e5f6
	// true
}

func ExampleCheckDesired() {
	// The generator's own desired metadata for a namespace, here rendered from
	// a tenant's NamespaceMetadata file.
	desired := map[string]string{finalizer.Annotation: "self"}
	err := finalizer.CheckDesired(desired)
	fmt.Println(errors.Is(err, finalizer.ErrDesired))
	// Output:
	// true
}

func ExampleDecide() {
	// What the cluster holds: the ResourceSet, and live namespace annotations.
	lookup := finalizer.LookupFunc(func(ctx context.Context, r finalizer.Reference) (string, error) {
		if r.Kind == "ResourceSet" && r.Namespace == "flux-system" && r.Name == "tenants" {
			return "0d1e3c4a-5b6c-4d7e-8f90-a1b2c3d4e5f6", nil
		}
		return "", finalizer.ErrNotFound
	})
	for _, value := range []string{
		"fluxcd.controlplane.io/v1/ResourceSet/flux-system/tenants/0d1e3c4a-5b6c-4d7e-8f90-a1b2c3d4e5f6",
		"fluxcd.controlplane.io/v1/ResourceSet/flux-system/tenants/99999999-5b6c-4d7e-8f90-a1b2c3d4e5f6",
		"fluxcd.controlplane.io/v1/ResourceSet/flux-system/gone/0d1e3c4a-5b6c-4d7e-8f90-a1b2c3d4e5f6",
		"self",
		"",
	} {
		live := map[string]string{finalizer.Annotation: value}
		v, err := finalizer.Decide(context.Background(), live, lookup)
		if err != nil {
			fmt.Println("keep and retry:", err)
			continue
		}
		fmt.Printf("%v: %s\n", v.HandedOff(), v.Reason)
	}
	// Output:
	// true: handed off to fluxcd.controlplane.io/v1/ResourceSet/flux-system/tenants (uid 0d1e3c4a-5b6c-4d7e-8f90-a1b2c3d4e5f6)
	// false: external finalizer fluxcd.controlplane.io/v1/ResourceSet/flux-system/tenants has uid "0d1e3c4a-5b6c-4d7e-8f90-a1b2c3d4e5f6", not "99999999-5b6c-4d7e-8f90-a1b2c3d4e5f6": it was recreated and may not track the namespace
	// false: external finalizer fluxcd.controlplane.io/v1/ResourceSet/flux-system/gone (uid 0d1e3c4a-5b6c-4d7e-8f90-a1b2c3d4e5f6) not found
	// false: external finalizer "self" was never stamped with a reference
	// false: no external finalizer
}

func ExampleLookupFunc() {
	unreachable := errors.New("connection refused")
	lookup := finalizer.LookupFunc(func(ctx context.Context, r finalizer.Reference) (string, error) {
		return "", unreachable
	})
	live := map[string]string{finalizer.Annotation: "/v1/ConfigMap/flux-system/rset/abc"}
	v, err := finalizer.Decide(context.Background(), live, lookup)
	fmt.Println(v.Outcome, errors.Is(err, unreachable))
	fmt.Println(v.Reason)
	// Output:
	// undecided true
	// cannot look up external finalizer v1/ConfigMap/flux-system/rset (uid abc): connection refused
}
