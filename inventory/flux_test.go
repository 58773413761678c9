package inventory

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

var parseIDTests = []struct {
	name    string
	in      string
	want    ID
	wantErr bool
	// fluxID is what FluxID writes back, when not in.
	fluxID string
}{
	{name: "core cluster-scoped", in: "_team1__Namespace", want: ID{Kind: "Namespace", Name: "team1"}},
	{name: "namespaced with group", in: "apps_podinfo_apps_Deployment",
		want: ID{Group: "apps", Kind: "Deployment", Namespace: "apps", Name: "podinfo"}},
	{name: "colon written as double underscore", in: "_system__controller_rbac.authorization.k8s.io_ClusterRole",
		want: ID{Group: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: "system:controller"}},
	{name: "two colons", in: "_system__controller__x_rbac.authorization.k8s.io_ClusterRole",
		want: ID{Group: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: "system:controller:x"}},
	{name: "Kustomization", in: "flux-system_podinfo_kustomize.toolkit.fluxcd.io_Kustomization",
		want: ID{Group: "kustomize.toolkit.fluxcd.io", Kind: "Kustomization", Namespace: "flux-system", Name: "podinfo"}},
	{name: "ExternalArtifact", in: "tenant-a_app_source.toolkit.fluxcd.io_ExternalArtifact",
		want: ID{Group: "source.toolkit.fluxcd.io", Kind: "ExternalArtifact", Namespace: "tenant-a", Name: "app"}},
	// Issue 14: cli-utils reads these, with the same result.
	{name: "underscore in an RBAC name", in: "_my_role_rbac.authorization.k8s.io_ClusterRole",
		want: ID{Group: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: "my_role"}},
	{name: "underscores in a RoleBinding name", in: "tenant-a_flux_reconciler__x_rbac.authorization.k8s.io_RoleBinding",
		want: ID{Group: "rbac.authorization.k8s.io", Kind: "RoleBinding", Namespace: "tenant-a", Name: "flux_reconciler:x"}},
	{name: "name ending in underscore", in: "_system:controller__rbac.authorization.k8s.io_ClusterRole",
		want: ID{Group: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: "system:controller_"}, fluxID: "_system__controller__rbac.authorization.k8s.io_ClusterRole"},
	{name: "colon in a CSR name written as is", in: "_node:a_certificates.k8s.io_CertificateSigningRequest",
		want: ID{Group: "certificates.k8s.io", Kind: "CertificateSigningRequest", Name: "node:a"}},
	{name: "double underscore read as colon for any kind", in: "_node__a_certificates.k8s.io_CertificateSigningRequest",
		want: ID{Group: "certificates.k8s.io", Kind: "CertificateSigningRequest", Name: "node:a"}, fluxID: "_node:a_certificates.k8s.io_CertificateSigningRequest"},
	{name: "underscore in a core name", in: "apps_pod_info_apps_Deployment",
		want: ID{Group: "apps", Kind: "Deployment", Namespace: "apps", Name: "pod_info"}},
	{name: "empty", in: "", wantErr: true},
	{name: "one field", in: "podinfo", wantErr: true},
	{name: "two fields", in: "apps_podinfo", wantErr: true},
	{name: "three fields", in: "apps_podinfo_Deployment", wantErr: true},
	{name: "no name", in: "apps__apps_Deployment", wantErr: true},
	{name: "no kind", in: "apps_podinfo_apps_", wantErr: true},
	{name: "bad group", in: "apps_podinfo_Apps_Deployment", wantErr: true},
	{name: "bad namespace", in: "Apps_podinfo_apps_Deployment", wantErr: true},
	{name: "namespaced Namespace", in: "x_team1__Namespace", wantErr: true},
}

func TestParseID(t *testing.T) {
	t.Parallel()
	for _, tt := range parseIDTests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := ParseID(tt.in)
			if tt.wantErr {
				if !errors.Is(err, ErrInvalidID) {
					t.Fatalf("ParseID(%q) = %v, %v; want ErrInvalidID", tt.in, got, err)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseID(%q): %v", tt.in, err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ParseID(%q) mismatch (-want +got):\n%s", tt.in, diff)
			}
			want := tt.fluxID
			if want == "" {
				want = tt.in
			}
			if s := got.FluxID(); s != want {
				t.Errorf("FluxID() = %q, want %q", s, want)
			}
		})
	}
}

func TestFromResourceInventory(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		refs    []ResourceRef
		want    []Entry
		wantErr []fieldErr
	}{
		{name: "none", want: []Entry{}},
		{name: "real ids", refs: []ResourceRef{
			{ID: "_team1__Namespace", Version: "v1"},
			{ID: "apps_podinfo_apps_Deployment", Version: "v1"},
			{ID: "_system__controller_rbac.authorization.k8s.io_ClusterRole", Version: "v1"},
		}, want: []Entry{
			{APIVersion: "v1", Kind: "Namespace", Name: "team1"},
			{APIVersion: "apps/v1", Kind: "Deployment", Namespace: "apps", Name: "podinfo"},
			{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "ClusterRole", Name: "system:controller"},
		}},
		{name: "bad id and version", refs: []ResourceRef{
			{ID: "_team1__Namespace", Version: "v1"},
			{ID: "nope", Version: "v1"},
			{ID: "_team2__Namespace", Version: ""},
			{ID: "_team3__Namespace", Version: "V1"},
		}, wantErr: []fieldErr{
			{"entries[1].id", field.ErrorTypeInvalid},
			{"entries[2].v", field.ErrorTypeRequired},
			{"entries[3].v", field.ErrorTypeInvalid},
		}},
		{name: "bad version only", refs: []ResourceRef{{ID: "_team1__Namespace", Version: "1"}},
			wantErr: []fieldErr{{"entries[0].v", field.ErrorTypeInvalid}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, errs := FromResourceInventory(tt.refs...)
			if diff := cmp.Diff(tt.wantErr, reduce(errs)); diff != "" {
				t.Errorf("errors mismatch (-want +got):\n%s", diff)
			}
			if errs != nil {
				return
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestToResourceInventory(t *testing.T) {
	t.Parallel()
	entries := []Entry{
		ea("tenant-a", "app", dg("a")),
		{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "ClusterRole", Name: "system:controller"},
		nsEntry("tenant-a", dg("ns")),
		{APIVersion: "apps/v1", Kind: "Deployment", Namespace: "apps", Name: "podinfo"},
		// Issue 14: names cli-utils writes and reads back.
		{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "ClusterRole", Name: "my_role"},
		{APIVersion: "certificates.k8s.io/v1", Kind: "CertificateSigningRequest", Name: "node:a_b"},
	}
	got, errs := ToResourceInventory(entries...)
	if errs != nil {
		t.Fatal(errs)
	}
	want := []ResourceRef{
		{ID: "_tenant-a__Namespace", Version: "v1"},
		{ID: "_my_role_rbac.authorization.k8s.io_ClusterRole", Version: "v1"},
		{ID: "_system__controller_rbac.authorization.k8s.io_ClusterRole", Version: "v1"},
		{ID: "apps_podinfo_apps_Deployment", Version: "v1"},
		{ID: "_node:a_b_certificates.k8s.io_CertificateSigningRequest", Version: "v1"},
		{ID: "tenant-a_app_source.toolkit.fluxcd.io_ExternalArtifact", Version: "v1"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("mismatch (-want +got):\n%s", diff)
	}

	// And back: the same objects, with explicit apiVersions, no digests.
	back, errs := FromResourceInventory(got...)
	if errs != nil {
		t.Fatal(errs)
	}
	for i := range back {
		if back[i].ID() != mustParseID(t, want[i].ID) {
			t.Errorf("entry %d: ID %v, want %v", i, back[i].ID(), want[i].ID)
		}
	}
	if back[5].APIVersion != "source.toolkit.fluxcd.io/v1" || back[0].APIVersion != "v1" {
		t.Errorf("apiVersions = %q, %q; want source.toolkit.fluxcd.io/v1, v1", back[5].APIVersion, back[0].APIVersion)
	}
	if entries[0].Kind != "ExternalArtifact" || entries[2].Kind != "Namespace" {
		t.Errorf("ToResourceInventory reordered its argument: %v", entries)
	}
}

func TestToResourceInventoryErrors(t *testing.T) {
	t.Parallel()
	_, errs := ToResourceInventory(
		// cli-utils writes "a__b" as is and reads it back as "a:b".
		Entry{APIVersion: "example.com/v1", Kind: "Widget", Name: "a__b"},
		ea("t", "app", "sha256:bad"),
		// ... and "a_:b" as "a___b", read back as "a:_b".
		Entry{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "ClusterRole", Name: "a_:b"},
	)
	want := []fieldErr{{"entries[0].name", field.ErrorTypeInvalid}, {"entries[1].digest", field.ErrorTypeInvalid}, {"entries[2].name", field.ErrorTypeInvalid}}
	if diff := cmp.Diff(want, reduce(errs)); diff != "" {
		t.Errorf("mismatch (-want +got):\n%s", diff)
	}
}

func mustParseID(t *testing.T, s string) ID {
	t.Helper()
	id, err := ParseID(s)
	if err != nil {
		t.Fatal(err)
	}
	return id
}
