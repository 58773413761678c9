package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// GroupVersion is the group and version of the example's API.
var GroupVersion = schema.GroupVersion{Group: "tenants.tenantkit.dev", Version: "v1alpha1"}

// AddToScheme registers TenantGenerator, TenantSet and their lists in a
// scheme.
func AddToScheme(s *runtime.Scheme) error {
	s.AddKnownTypes(GroupVersion, &TenantGenerator{}, &TenantGeneratorList{}, &TenantSet{}, &TenantSetList{})
	metav1.AddToGroupVersion(s, GroupVersion)
	return nil
}
