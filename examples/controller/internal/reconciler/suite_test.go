package reconciler_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	"sigs.k8s.io/yaml"

	"github.com/tenantkit/tenantkit/examples/controller/api/v1alpha1"
	"github.com/tenantkit/tenantkit/examples/controller/internal/reconciler"
	"github.com/tenantkit/tenantkit/finalizer"
	"github.com/tenantkit/tenantkit/generator"
)

// One control plane (etcd and kube-apiserver, no controller manager) for
// the whole package: every test works in its own namespaces, with names
// prefixed by its scenario, so that they run in parallel. TestMain starts it
// because there is no other way to share a process between tests; it
// builds no tree on disk (each test writes its sources under t.TempDir).
var (
	cfg       *rest.Config
	scheme    = runtime.NewScheme()
	admin     client.Client
	clientset *kubernetes.Clientset

	// controllerCfg and controller act as the controller's own user.
	controllerCfg *rest.Config
	controller    client.Client

	// recorder records events as the controller's user, through the
	// events.k8s.io API, as the manager's recorder does.
	recorder events.EventRecorder
)

const controllerUser = "tenantkit-controller"

const (
	// provisionerRole may do what the controller's writes need, and look up
	// ConfigMaps (the external finalizers of the tests).
	provisionerRole = "tenant-provisioner"
	// limitedRole is the same without ConfigMaps (scenario 4).
	limitedRole = "tenant-provisioner-limited"
	// serviceAccount is the name of the account every fixture impersonates.
	serviceAccount = "provisioner"
	// tenantSetRole may do what a TenantSet's reads and writes need: list
	// ExternalArtifacts, apply and delete Namespaces and ConfigMaps.
	tenantSetRole = "tenant-set"
	// tenantSetAccount is the account a TenantSet impersonates.
	tenantSetAccount = "tenant-set"
)

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	if os.Getenv("KUBEBUILDER_ASSETS") == "" {
		fmt.Fprintln(os.Stderr, "KUBEBUILDER_ASSETS is not set: run hack/test.sh, or eval \"$(hack/testenv.sh)\" first (it provides etcd and kube-apiserver; nothing is downloaded at test time)")
		return 1
	}
	ctrl.SetLogger(discardLogger())
	env := &envtest.Environment{
		CRDDirectoryPaths: []string{
			filepath.Join("..", "..", "config", "crd"),
			filepath.Join("..", "..", "testdata", "crd"),
		},
		ErrorIfCRDPathMissing: true,
	}
	var err error
	if cfg, err = env.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "starting the control plane:", err)
		return 1
	}
	defer func() {
		if err := env.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, "stopping the control plane:", err)
		}
	}()
	for _, add := range []func(*runtime.Scheme) error{clientgoscheme.AddToScheme, v1alpha1.AddToScheme} {
		if err := add(scheme); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	if admin, err = client.New(cfg, client.Options{Scheme: scheme}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if clientset, err = kubernetes.NewForConfig(cfg); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	ctx := context.Background()
	rules := []rbacv1.PolicyRule{
		{APIGroups: []string{""}, Resources: []string{"namespaces"}, Verbs: []string{"get", "list", "watch", "create", "update", "patch", "delete"}},
		{APIGroups: []string{"source.toolkit.fluxcd.io"}, Resources: []string{"externalartifacts"}, Verbs: []string{"get", "list", "watch", "create", "update", "patch", "delete"}},
		{APIGroups: []string{"source.toolkit.fluxcd.io"}, Resources: []string{"externalartifacts/status"}, Verbs: []string{"get", "update", "patch"}},
	}
	for _, role := range []*rbacv1.ClusterRole{
		{ObjectMeta: metav1.ObjectMeta{Name: provisionerRole}, Rules: append(slices.Clone(rules),
			rbacv1.PolicyRule{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"get"}},
			// The TenantSets that take a hand-off.
			rbacv1.PolicyRule{APIGroups: []string{v1alpha1.GroupVersion.Group}, Resources: []string{"tenantsets"}, Verbs: []string{"get"}})},
		{ObjectMeta: metav1.ObjectMeta{Name: limitedRole}, Rules: rules},
		{ObjectMeta: metav1.ObjectMeta{Name: tenantSetRole}, Rules: []rbacv1.PolicyRule{
			{APIGroups: []string{"source.toolkit.fluxcd.io"}, Resources: []string{"externalartifacts"}, Verbs: []string{"get", "list"}},
			{APIGroups: []string{""}, Resources: []string{"namespaces", "configmaps"}, Verbs: []string{"get", "create", "patch", "delete"}},
		}},
	} {
		if err := admin.Create(ctx, role); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	// The reconciler runs as its own user, bound to config/rbac/controller.yaml
	// only: whatever it writes to namespaces and artifacts must go through
	// the impersonated service account.
	role := &rbacv1.ClusterRole{}
	data, err := os.ReadFile(filepath.Join("..", "..", "config", "rbac", "controller.yaml"))
	if err == nil {
		err = yaml.UnmarshalStrict(data, role)
	}
	if err == nil {
		err = admin.Create(ctx, role)
	}
	if err == nil {
		err = admin.Create(ctx, &rbacv1.ClusterRoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: role.Name},
			RoleRef:    rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: role.Name},
			Subjects:   []rbacv1.Subject{{APIGroup: "rbac.authorization.k8s.io", Kind: "User", Name: controllerUser}},
		})
	}
	var user *envtest.AuthenticatedUser
	if err == nil {
		user, err = env.AddUser(envtest.User{Name: controllerUser}, nil)
	}
	if err == nil {
		controllerCfg = user.Config()
		controller, err = client.New(controllerCfg, client.Options{Scheme: scheme})
	}
	var controllerSet *kubernetes.Clientset
	if err == nil {
		controllerSet, err = kubernetes.NewForConfig(controllerCfg)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "the controller's identity:", err)
		return 1
	}
	broadcaster := events.NewBroadcaster(&events.EventSinkImpl{Interface: controllerSet.EventsV1()})
	stop := make(chan struct{})
	broadcaster.StartRecordingToSink(stop)
	defer func() {
		close(stop)
		broadcaster.Shutdown()
	}()
	recorder = broadcaster.NewRecorder(scheme, controllerUser)
	return m.Run()
}

// fixture is one TenantGenerator in its own namespace, with its own source
// directory and reconciler.
type fixture struct {
	t      *testing.T
	ctx    context.Context
	prefix string // every tenant namespace of the fixture starts with prefix-
	dir    string // the "repo" source
	r      *reconciler.Reconciler
	key    types.NamespacedName
}

type fixtureOption func(*fixtureConfig)

type fixtureConfig struct {
	role string // "" binds no role
	spec func(*v1alpha1.TenantGeneratorSpec)
	r    func(*reconciler.Reconciler)
}

func withRole(role string) fixtureOption { return func(c *fixtureConfig) { c.role = role } }
func withSpec(f func(*v1alpha1.TenantGeneratorSpec)) fixtureOption {
	return func(c *fixtureConfig) { c.spec = f }
}
func withReconciler(f func(*reconciler.Reconciler)) fixtureOption {
	return func(c *fixtureConfig) { c.r = f }
}

// newFixture creates namespace gen-<prefix> holding the service account
// "provisioner" (bound to the provisioner role unless told otherwise) and
// the TenantGenerator "tenants", whose pattern is
// "@repo/tenants/{namespace}/modules/{module}" and whose name policy allows
// "<prefix>-*".
func newFixture(t *testing.T, prefix string, opts ...fixtureOption) *fixture {
	t.Helper()
	c := fixtureConfig{role: provisionerRole}
	for _, o := range opts {
		o(&c)
	}
	f := &fixture{t: t, ctx: context.Background(), prefix: prefix, dir: t.TempDir()}
	genNS := "gen-" + prefix
	f.key = types.NamespacedName{Namespace: genNS, Name: "tenants"}
	f.must(admin.Create(f.ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: genNS}}))
	f.must(admin.Create(f.ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: genNS, Name: serviceAccount}}))
	if c.role != "" {
		f.must(admin.Create(f.ctx, &rbacv1.ClusterRoleBinding{
			ObjectMeta: metav1.ObjectMeta{Name: genNS + "-" + serviceAccount},
			RoleRef:    rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: c.role},
			Subjects:   []rbacv1.Subject{{Kind: "ServiceAccount", Namespace: genNS, Name: serviceAccount}},
		}))
	}
	f.must(os.MkdirAll(filepath.Join(f.dir, "tenants"), 0o755))
	spec := v1alpha1.TenantGeneratorSpec{
		ServiceAccountName: serviceAccount,
		PathPattern:        "@repo/tenants/{namespace}/modules/{module}",
		CommonMetadata:     &v1alpha1.Metadata{Labels: map[string]string{"tenantkit.dev/fixture": prefix}},
		Sources:            []v1alpha1.Source{{Alias: "repo", Kind: "OCIRepository", Name: "monorepo"}},
		Artifacts: []v1alpha1.Artifact{{
			Name:       "{module}",
			Namespace:  "{namespace}",
			InputsFrom: "@repo/tenants/{namespace}/modules/{module}/inputs.yaml",
			Copy:       []v1alpha1.Copy{{From: "@repo/tenants/{namespace}/modules/{module}/manifests/**", To: "@artifact/"}},
		}},
		ManagedNamespaces: &v1alpha1.ManagedNamespaces{
			AllowedNames: []string{fmt.Sprintf("ns.startsWith(%q)", prefix+"-")},
			Prune:        true,
			Metadata: &v1alpha1.NamespaceMetadata{FromSource: &v1alpha1.FromSource{
				Path:          "@repo/tenants/{namespace}/namespace.yaml",
				AllowedLabels: map[string]string{"team": `value.matches("^[a-z]+$")`},
			}},
		},
	}
	if c.spec != nil {
		c.spec(&spec)
	}
	f.must(admin.Create(f.ctx, &v1alpha1.TenantGenerator{
		ObjectMeta: metav1.ObjectMeta{Namespace: genNS, Name: f.key.Name},
		Spec:       spec,
	}))
	f.r = &reconciler.Reconciler{
		Client:        controller,
		Config:        controllerCfg,
		Scheme:        scheme,
		Recorder:      recorder,
		Sources:       map[string]string{"repo": f.dir},
		RetryInterval: 7 * time.Second,
		// The tests' external finalizers are ConfigMaps: the test API
		// server has no ResourceSet.
		Options: []generator.Option{generator.WithFinalizerKinds(schema.GroupKind{Kind: "ConfigMap"})},
	}
	if c.r != nil {
		c.r(f.r)
	}
	return f
}

func (f *fixture) must(err error) {
	f.t.Helper()
	if err != nil {
		f.t.Fatal(err)
	}
}

// tenant writes the module "<tenant>/modules/<module>" with one manifest and
// the given inputs (none when empty), and, unless the tenant has one, the
// NamespaceMetadata file that the spec requires, asking for nothing.
func (f *fixture) tenant(tenant, module, inputs string) {
	f.t.Helper()
	dir := filepath.Join(f.dir, "tenants", tenant, "modules", module)
	f.must(os.MkdirAll(filepath.Join(dir, "manifests"), 0o755))
	f.must(os.WriteFile(filepath.Join(dir, "manifests", "app.yaml"), []byte("kind: ConfigMap\n"), 0o644))
	if inputs != "" {
		f.must(os.WriteFile(filepath.Join(dir, "inputs.yaml"), []byte(inputs), 0o644))
	}
	if _, err := os.Lstat(filepath.Join(f.dir, "tenants", tenant, "namespace.yaml")); os.IsNotExist(err) {
		f.namespaceFile(tenant, "apiVersion: source.extensions.fluxcd.io/v1beta1\nkind: NamespaceMetadata\n")
	}
}

// namespaceFile writes the tenant's NamespaceMetadata file.
func (f *fixture) namespaceFile(tenant, body string) {
	f.t.Helper()
	f.must(os.WriteFile(filepath.Join(f.dir, "tenants", tenant, "namespace.yaml"), []byte(body), 0o644))
}

func (f *fixture) removeTenant(tenant string) {
	f.t.Helper()
	f.must(os.RemoveAll(filepath.Join(f.dir, "tenants", tenant)))
}

// reconcile runs one reconcile and returns its result and the generator as
// it is afterwards.
func (f *fixture) reconcile() (ctrl.Result, *v1alpha1.TenantGenerator) {
	f.t.Helper()
	res, err := f.r.Reconcile(f.ctx, ctrl.Request{NamespacedName: f.key})
	if err != nil {
		f.t.Fatalf("reconcile: %v", err)
	}
	return res, f.generator()
}

func (f *fixture) generator() *v1alpha1.TenantGenerator {
	f.t.Helper()
	tg := &v1alpha1.TenantGenerator{}
	f.must(admin.Get(f.ctx, f.key, tg))
	return tg
}

// namespace returns the live namespace, or nil.
func (f *fixture) namespace(name string) *corev1.Namespace {
	f.t.Helper()
	ns := &corev1.Namespace{}
	if err := admin.Get(f.ctx, client.ObjectKey{Name: name}, ns); err != nil {
		if apierrors.IsNotFound(err) {
			return nil
		}
		f.t.Fatal(err)
	}
	return ns
}

// artifact returns the live ExternalArtifact, or nil.
func (f *fixture) artifact(namespace, name string) *unstructured.Unstructured {
	f.t.Helper()
	u := &unstructured.Unstructured{}
	u.SetAPIVersion("source.toolkit.fluxcd.io/v1")
	u.SetKind("ExternalArtifact")
	if err := admin.Get(f.ctx, client.ObjectKey{Namespace: namespace, Name: name}, u); err != nil {
		if apierrors.IsNotFound(err) || meta.IsNoMatchError(err) {
			return nil
		}
		f.t.Fatal(err)
	}
	return u
}

// artifacts lists the names of the live ExternalArtifacts in a namespace.
func (f *fixture) artifacts(namespace string) []string {
	f.t.Helper()
	l := &unstructured.UnstructuredList{}
	l.SetAPIVersion("source.toolkit.fluxcd.io/v1")
	l.SetKind("ExternalArtifactList")
	f.must(admin.List(f.ctx, l, client.InNamespace(namespace)))
	var names []string
	for _, it := range l.Items {
		names = append(names, it.GetName())
	}
	return names
}

// finishNamespaceDeletion does what the namespace controller would do once
// the namespace is empty: remove the "kubernetes" finalizer, then delete.
func (f *fixture) finishNamespaceDeletion(name string) {
	f.t.Helper()
	ns, err := clientset.CoreV1().Namespaces().Get(f.ctx, name, metav1.GetOptions{})
	f.must(err)
	ns.Spec.Finalizers = nil
	_, err = clientset.CoreV1().Namespaces().Finalize(f.ctx, ns, metav1.UpdateOptions{})
	f.must(err)
	if err := clientset.CoreV1().Namespaces().Delete(f.ctx, name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
		f.t.Fatal(err)
	}
	if f.namespace(name) != nil {
		f.t.Fatalf("namespace %s still exists after its finalization", name)
	}
}

// patchMeta merge-patches a namespace's labels or annotations as another
// field manager ("intruder", as kubectl would).
func (f *fixture) patchNamespace(name string, labels, annotations map[string]any) {
	f.t.Helper()
	md := map[string]any{}
	if labels != nil {
		md["labels"] = labels
	}
	if annotations != nil {
		md["annotations"] = annotations
	}
	data, err := json.Marshal(map[string]any{"metadata": md})
	f.must(err)
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
	f.must(admin.Patch(f.ctx, ns, client.RawPatch(types.MergePatchType, data), client.FieldOwner("intruder")))
}

func ready(tg *v1alpha1.TenantGenerator) metav1.Condition {
	if c := meta.FindStatusCondition(tg.Status.Conditions, v1alpha1.ConditionReady); c != nil {
		return *c
	}
	return metav1.Condition{}
}

// subjects returns the inventory as change-line subjects, e.g.
// "Namespace/s1-a", in the inventory's order.
func subjects(tg *v1alpha1.TenantGenerator) []string {
	var out []string
	for _, e := range tg.Status.Inventory {
		out = append(out, e.ID().String())
	}
	return out
}

func inventoryHas(tg *v1alpha1.TenantGenerator, subject string) bool {
	return slices.Contains(subjects(tg), subject)
}

// stampFinalizer annotates the namespace with a reference to obj, as the
// finalizing controller would, as another field manager.
func (f *fixture) stampFinalizer(namespace string, obj *corev1.ConfigMap) {
	f.t.Helper()
	ref := finalizer.Reference{Version: "v1", Kind: "ConfigMap", Namespace: obj.Namespace, Name: obj.Name, UID: string(obj.UID)}
	f.patchNamespace(namespace, nil, map[string]any{finalizer.Annotation: ref.String()})
}

func (f *fixture) configMap(name string) *corev1.ConfigMap {
	f.t.Helper()
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: f.key.Namespace, Name: name}}
	f.must(admin.Create(f.ctx, cm))
	return cm
}

func hasChange(tg *v1alpha1.TenantGenerator, prefix string) bool {
	if tg.Status.LastPlan == nil {
		return false
	}
	return slices.ContainsFunc(tg.Status.LastPlan.Changes, func(s string) bool { return strings.HasPrefix(s, prefix) })
}

var _ = generator.GeneratorLabel
