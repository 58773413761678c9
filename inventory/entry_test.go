package inventory

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/opencontainers/go-digest"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Test helpers shared by the package's tests.

func dg(s string) digest.Digest { return digest.FromString(s) }

func ea(ns, name string, d digest.Digest) Entry {
	return Entry{Kind: "ExternalArtifact", Namespace: ns, Name: name, Digest: d}
}

func nsEntry(name string, d digest.Digest) Entry {
	return Entry{Kind: "Namespace", Name: name, Digest: d}
}

// fieldErr is a field.Error reduced to what tests compare: the path and the
// type, not the wording.
type fieldErr struct {
	Field string
	Type  field.ErrorType
}

// fieldErrors returns the field errors that err aggregates, failing t when
// err is not the aggregate of a field.ErrorList.
func fieldErrors(t testing.TB, err error) field.ErrorList {
	t.Helper()
	var agg utilerrors.Aggregate
	if !errors.As(err, &agg) {
		t.Fatalf("error = %.300v, want the aggregate of a field.ErrorList", err)
	}
	var errs field.ErrorList
	for _, e := range agg.Errors() {
		fe, ok := e.(*field.Error)
		if !ok {
			t.Fatalf("error %v is a %T, want a *field.Error", e, e)
		}
		errs = append(errs, fe)
	}
	return errs
}

func reduce(errs field.ErrorList) []fieldErr {
	var out []fieldErr
	for _, e := range errs {
		out = append(out, fieldErr{e.Field, e.Type})
	}
	return out
}

func TestEntryID(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		entry Entry
		want  ID
	}{
		{name: "empty kind is ExternalArtifact", entry: Entry{Namespace: "t", Name: "app"},
			want: ID{Group: "source.toolkit.fluxcd.io", Kind: "ExternalArtifact", Namespace: "t", Name: "app"}},
		{name: "ExternalArtifact without apiVersion", entry: ea("t", "app", ""),
			want: ID{Group: "source.toolkit.fluxcd.io", Kind: "ExternalArtifact", Namespace: "t", Name: "app"}},
		{name: "Namespace without apiVersion is core", entry: nsEntry("t", ""),
			want: ID{Kind: "Namespace", Name: "t"}},
		{name: "group from apiVersion", entry: Entry{APIVersion: "apps/v1", Kind: "Deployment", Namespace: "t", Name: "web"},
			want: ID{Group: "apps", Kind: "Deployment", Namespace: "t", Name: "web"}},
		{name: "core apiVersion", entry: Entry{APIVersion: "v1", Kind: "ConfigMap", Namespace: "t", Name: "c"},
			want: ID{Kind: "ConfigMap", Namespace: "t", Name: "c"}},
		{name: "custom Namespace kind keeps its group", entry: Entry{APIVersion: "example.com/v1", Kind: "Namespace", Name: "t"},
			want: ID{Group: "example.com", Kind: "Namespace", Name: "t"}},
		{name: "version is not identity", entry: Entry{APIVersion: "source.toolkit.fluxcd.io/v1beta2", Kind: "ExternalArtifact", Namespace: "t", Name: "app"},
			want: ID{Group: "source.toolkit.fluxcd.io", Kind: "ExternalArtifact", Namespace: "t", Name: "app"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tt.want, tt.entry.ID()); diff != "" {
				t.Errorf("ID() mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestIDString(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		id         ID
		wantString string
		wantFluxID string
	}{
		{name: "cluster-scoped core", id: ID{Kind: "Namespace", Name: "team1"},
			wantString: "Namespace/team1", wantFluxID: "_team1__Namespace"},
		{name: "namespaced", id: ID{Group: "apps", Kind: "Deployment", Namespace: "apps", Name: "podinfo"},
			wantString: "Deployment/apps/podinfo", wantFluxID: "apps_podinfo_apps_Deployment"},
		{name: "ExternalArtifact", id: ID{Group: "source.toolkit.fluxcd.io", Kind: "ExternalArtifact", Namespace: "tenant-a", Name: "app"},
			wantString: "ExternalArtifact/tenant-a/app", wantFluxID: "tenant-a_app_source.toolkit.fluxcd.io_ExternalArtifact"},
		{name: "colon in an RBAC name", id: ID{Group: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: "system:controller"},
			wantString: "ClusterRole/system:controller", wantFluxID: "_system__controller_rbac.authorization.k8s.io_ClusterRole"},
		// Issue 14: cli-utils writes ":" as "__" only for the RBAC kinds.
		{name: "colon in a CSR name", id: ID{Group: "certificates.k8s.io", Kind: "CertificateSigningRequest", Name: "node:a"},
			wantString: "CertificateSigningRequest/node:a", wantFluxID: "_node:a_certificates.k8s.io_CertificateSigningRequest"},
		{name: "colon in an RBAC kind of another group", id: ID{Group: "example.com", Kind: "Role", Name: "a:b"},
			wantString: "Role/a:b", wantFluxID: "_a:b_example.com_Role"},
		{name: "underscore in an RBAC name", id: ID{Group: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: "my_role"},
			wantString: "ClusterRole/my_role", wantFluxID: "_my_role_rbac.authorization.k8s.io_ClusterRole"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := tt.id.String(); got != tt.wantString {
				t.Errorf("String() = %q, want %q", got, tt.wantString)
			}
			if got := tt.id.FluxID(); got != tt.wantFluxID {
				t.Errorf("FluxID() = %q, want %q", got, tt.wantFluxID)
			}
		})
	}
}

func TestIDIsNamespace(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		id      ID
		ns, crd bool
	}{
		{name: "core Namespace", id: ID{Kind: KindNamespace, Name: "a"}, ns: true},
		{name: "Namespace of another group", id: ID{Group: "example.com", Kind: KindNamespace, Name: "a"}},
		{name: "CRD", id: ID{Group: GroupAPIExtensions, Kind: KindCustomResourceDefinition, Name: "w.example.com"}, crd: true},
		{name: "CRD kind of another group", id: ID{Group: "example.com", Kind: KindCustomResourceDefinition, Name: "w"}},
		{name: "ExternalArtifact", id: Entry{Kind: KindExternalArtifact, Namespace: "a", Name: "b"}.ID()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := tt.id.IsNamespace(); got != tt.ns {
				t.Errorf("IsNamespace() = %v, want %v", got, tt.ns)
			}
			if got := tt.id.IsCustomResourceDefinition(); got != tt.crd {
				t.Errorf("IsCustomResourceDefinition() = %v, want %v", got, tt.crd)
			}
		})
	}
}

var validDigests = []digest.Digest{
	"sha256:" + digest.Digest(strings.Repeat("0a", 32)),
	"sha384:" + digest.Digest(strings.Repeat("bc", 48)),
	"sha512:" + digest.Digest(strings.Repeat("9f", 64)),
	"sha1:" + digest.Digest(strings.Repeat("7e", 20)),
	"blake3:" + digest.Digest(strings.Repeat("3d", 32)),
}

func TestEntryValidate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		entry Entry
		want  []fieldErr
	}{
		{name: "ExternalArtifact", entry: ea("tenant-a", "app", dg("x"))},
		{name: "Namespace without digest", entry: nsEntry("tenant-a", "")},
		{name: "empty kind", entry: Entry{Namespace: "tenant-a", Name: "app"}},
		{name: "sha384", entry: ea("t", "app", validDigests[1])},
		{name: "sha512", entry: ea("t", "app", validDigests[2])},
		// Issue 14: source-watcher's --artifact-digest-algo also offers sha1
		// and blake3.
		{name: "sha1", entry: ea("t", "app", "sha1:"+digest.Digest(strings.Repeat("0", 40)))},
		{name: "blake3", entry: ea("t", "app", "blake3:"+digest.Digest(strings.Repeat("0", 64)))},
		{name: "sha1 of sha256's length", entry: ea("t", "app", "sha1:"+digest.Digest(strings.Repeat("0", 64))),
			want: []fieldErr{{"digest", field.ErrorTypeInvalid}}},
		{name: "blake3 of sha1's length", entry: ea("t", "app", "blake3:"+digest.Digest(strings.Repeat("0", 40))),
			want: []fieldErr{{"digest", field.ErrorTypeInvalid}}},
		{name: "sha384 of sha512's length", entry: ea("t", "app", "sha384:"+digest.Digest(strings.Repeat("0", 128))),
			want: []fieldErr{{"digest", field.ErrorTypeInvalid}}},
		{name: "upper-case algorithm", entry: ea("t", "app", "BLAKE3:"+digest.Digest(strings.Repeat("0", 64))),
			want: []fieldErr{{"digest", field.ErrorTypeInvalid}}},
		{name: "name with underscore", entry: Entry{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "ClusterRole", Name: "my_role"}},
		{name: "RBAC name with colon", entry: Entry{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "ClusterRole", Name: "system:controller"}},
		{name: "core apiVersion", entry: Entry{APIVersion: "v1", Kind: "ConfigMap", Namespace: "t", Name: "c"}},
		{name: "CRD", entry: Entry{APIVersion: "apiextensions.k8s.io/v1", Kind: "CustomResourceDefinition", Name: "widgets.example.com"}},
		{name: "kind other than the two needs apiVersion", entry: Entry{Kind: "Deployment", Namespace: "t", Name: "web"},
			want: []fieldErr{{"apiVersion", field.ErrorTypeRequired}}},
		{name: "apiVersion with empty group", entry: Entry{APIVersion: "/v1", Kind: "Deployment", Namespace: "t", Name: "web"},
			want: []fieldErr{{"apiVersion", field.ErrorTypeInvalid}}},
		{name: "apiVersion with empty version", entry: Entry{APIVersion: "apps/", Kind: "Deployment", Namespace: "t", Name: "web"},
			want: []fieldErr{{"apiVersion", field.ErrorTypeInvalid}}},
		{name: "apiVersion with two slashes", entry: Entry{APIVersion: "a/b/c", Kind: "Deployment", Namespace: "t", Name: "web"},
			want: []fieldErr{{"apiVersion", field.ErrorTypeInvalid}}},
		{name: "apiVersion with upper-case group", entry: Entry{APIVersion: "Apps/v1", Kind: "Deployment", Namespace: "t", Name: "web"},
			want: []fieldErr{{"apiVersion", field.ErrorTypeInvalid}}},
		{name: "kind with underscore", entry: Entry{APIVersion: "v1", Kind: "Config_Map", Namespace: "t", Name: "c"},
			want: []fieldErr{{"kind", field.ErrorTypeInvalid}}},
		{name: "kind starting with digit", entry: Entry{APIVersion: "v1", Kind: "9Map", Namespace: "t", Name: "c"},
			want: []fieldErr{{"kind", field.ErrorTypeInvalid}}},
		{name: "Namespace with namespace", entry: Entry{Kind: "Namespace", Namespace: "x", Name: "t"},
			want: []fieldErr{{"namespace", field.ErrorTypeForbidden}}},
		{name: "CRD with namespace", entry: Entry{APIVersion: "apiextensions.k8s.io/v1", Kind: "CustomResourceDefinition", Namespace: "x", Name: "w.example.com"},
			want: []fieldErr{{"namespace", field.ErrorTypeForbidden}}},
		{name: "custom Namespace kind may be namespaced", entry: Entry{APIVersion: "example.com/v1", Kind: "Namespace", Namespace: "x", Name: "t"}},
		{name: "bad namespace", entry: ea("Tenant_A", "app", ""),
			want: []fieldErr{{"namespace", field.ErrorTypeInvalid}}},
		{name: "long namespace", entry: ea(strings.Repeat("a", 64), "app", ""),
			want: []fieldErr{{"namespace", field.ErrorTypeInvalid}}},
		{name: "no name", entry: ea("t", "", ""),
			want: []fieldErr{{"name", field.ErrorTypeRequired}}},
		{name: "name too long", entry: ea("t", strings.Repeat("a", 254), ""),
			want: []fieldErr{{"name", field.ErrorTypeTooLong}}},
		{name: "name at the limit", entry: ea("t", strings.Repeat("a", 253), "")},
		{name: "name dot-dot", entry: ea("t", "..", ""),
			want: []fieldErr{{"name", field.ErrorTypeInvalid}}},
		{name: "name with slash and percent", entry: ea("t", "a/b%", ""),
			want: []fieldErr{{"name", field.ErrorTypeInvalid}, {"name", field.ErrorTypeInvalid}}},
		{name: "filename at the limit", entry: Entry{Namespace: "t", Name: "a", Filename: strings.Repeat("f", 4096)}},
		{name: "filename too long", entry: Entry{Namespace: "t", Name: "a", Filename: strings.Repeat("f", 4097)},
			want: []fieldErr{{"filename", field.ErrorTypeTooLong}}},
		{name: "short digest", entry: ea("t", "app", "sha256:abc"),
			want: []fieldErr{{"digest", field.ErrorTypeInvalid}}},
		{name: "upper-case digest", entry: ea("t", "app", digest.Digest(strings.ToUpper(string(dg("x"))))),
			want: []fieldErr{{"digest", field.ErrorTypeInvalid}}},
		{name: "upper-case hex", entry: ea("t", "app", "sha256:"+digest.Digest(strings.Repeat("A", 64))),
			want: []fieldErr{{"digest", field.ErrorTypeInvalid}}},
		{name: "unknown algorithm", entry: ea("t", "app", "md5:"+digest.Digest(strings.Repeat("a", 32))),
			want: []fieldErr{{"digest", field.ErrorTypeInvalid}}},
		{name: "digest without algorithm", entry: ea("t", "app", digest.Digest(strings.Repeat("a", 64))),
			want: []fieldErr{{"digest", field.ErrorTypeInvalid}}},
		{name: "every field at once", entry: Entry{APIVersion: "x/y/z", Kind: "a_b", Namespace: "-", Name: "", Digest: "sha256:"},
			want: []fieldErr{
				{"apiVersion", field.ErrorTypeInvalid}, {"kind", field.ErrorTypeInvalid},
				{"namespace", field.ErrorTypeInvalid}, {"name", field.ErrorTypeRequired}, {"digest", field.ErrorTypeInvalid},
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			errs := tt.entry.Validate(nil)
			if diff := cmp.Diff(tt.want, reduce(errs)); diff != "" {
				t.Errorf("Validate() mismatch (-want +got):\n%s\n%v", diff, errs)
			}
		})
	}
}

func TestEntryValidatePath(t *testing.T) {
	t.Parallel()
	errs := ea("t", "app", "sha256:abc").Validate(field.NewPath("status", "inventory").Index(3))
	want := []fieldErr{{"status.inventory[3].digest", field.ErrorTypeInvalid}}
	if diff := cmp.Diff(want, reduce(errs)); diff != "" {
		t.Fatalf("mismatch (-want +got):\n%s", diff)
	}
	if !strings.Contains(errs[0].Error(), `"sha256:abc"`) {
		t.Errorf("error %q does not quote the digest", errs[0])
	}
}

func TestIDValidate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		id      ID
		wantErr bool
	}{
		{name: "valid", id: ID{Group: "apps", Kind: "Deployment", Namespace: "a", Name: "b"}},
		{name: "valid core cluster-scoped", id: ID{Kind: "Namespace", Name: "a"}},
		{name: "zero", id: ID{}, wantErr: true},
		{name: "no kind", id: ID{Name: "a"}, wantErr: true},
		{name: "bad group", id: ID{Group: "Apps", Kind: "Deployment", Name: "a"}, wantErr: true},
		{name: "namespaced Namespace", id: ID{Kind: "Namespace", Namespace: "x", Name: "a"}, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			errs := tt.id.Validate(field.NewPath("id"))
			if (len(errs) > 0) != tt.wantErr {
				t.Fatalf("Validate() = %v, want errors %v", errs, tt.wantErr)
			}
			for _, e := range errs {
				if !strings.HasPrefix(e.Field, "id.") {
					t.Errorf("error %v not under the path given", e)
				}
			}
		})
	}
}
