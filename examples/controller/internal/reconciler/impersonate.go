package reconciler

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// serviceAccountUser is the user name the API server gives a service account.
func serviceAccountUser(namespace, name string) string {
	return "system:serviceaccount:" + namespace + ":" + name
}

// impersonatedClient returns an uncached client that acts as the service
// account name in namespace (see impersonate).
func (r *Reconciler) impersonatedClient(namespace, name string) (client.Client, error) {
	return impersonate(r.Config, r.Scheme, r.Mapper, namespace, name)
}

// impersonate returns an uncached client, made from cfg, that acts as the
// service account name in namespace. The name comes from a tenant-facing
// spec: it is checked as the API server checks service account names, so
// that it cannot smuggle a ":" into the user name and impersonate someone
// else.
func impersonate(cfg *rest.Config, scheme *runtime.Scheme, mapper meta.RESTMapper, namespace, name string) (client.Client, error) {
	if errs := validation.IsDNS1123Subdomain(name); len(errs) > 0 {
		return nil, fmt.Errorf("service account name %q: %s", name, strings.Join(errs, "; "))
	}
	cfg = rest.CopyConfig(cfg)
	cfg.Impersonate = rest.ImpersonationConfig{UserName: serviceAccountUser(namespace, name)}
	// The API server adds the groups system:serviceaccounts,
	// system:serviceaccounts:<namespace> and system:authenticated itself.
	return client.New(cfg, client.Options{Scheme: scheme, Mapper: mapper})
}
