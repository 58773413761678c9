package flux_test

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/fluxcd/cli-utils/pkg/object"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/tenantkit/tenantkit/inventory"
)

// idTests are the objects of issue 14 and the edge cases of cli-utils'
// format: "_" and ":" in names, RBAC kinds in and out of their group.
var idTests = []struct {
	name string
	id   inventory.ID
}{
	{name: "Namespace", id: inventory.ID{Kind: "Namespace", Name: "tenant-a"}},
	{name: "ExternalArtifact", id: inventory.ID{Group: "source.toolkit.fluxcd.io", Kind: "ExternalArtifact", Namespace: "tenant-a", Name: "app"}},
	{name: "Deployment", id: inventory.ID{Group: "apps", Kind: "Deployment", Namespace: "apps", Name: "podinfo"}},
	{name: "ClusterRole with underscore", id: inventory.ID{Group: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: "my_role"}},
	{name: "ClusterRole with colon", id: inventory.ID{Group: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: "system:controller"}},
	{name: "RoleBinding with both", id: inventory.ID{Group: "rbac.authorization.k8s.io", Kind: "RoleBinding", Namespace: "t", Name: "a:_b"}},
	{name: "Role with colon then underscore", id: inventory.ID{Group: "rbac.authorization.k8s.io", Kind: "Role", Namespace: "t", Name: "a_:b"}},
	{name: "ClusterRoleBinding ending in underscore", id: inventory.ID{Group: "rbac.authorization.k8s.io", Kind: "ClusterRoleBinding", Name: "x_"}},
	{name: "CSR with colon", id: inventory.ID{Group: "certificates.k8s.io", Kind: "CertificateSigningRequest", Name: "node:a"}},
	{name: "CSR with double underscore", id: inventory.ID{Group: "certificates.k8s.io", Kind: "CertificateSigningRequest", Name: "a__b"}},
	{name: "Role of another group", id: inventory.ID{Group: "example.com", Kind: "Role", Name: "a:b"}},
	{name: "core name starting with underscore", id: inventory.ID{Kind: "Widget", Namespace: "t", Name: "_x"}},
}

// TestFluxIDTable compares writing and reading each table id.
func TestFluxIDTable(t *testing.T) {
	t.Parallel()
	for _, tt := range idTests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			compareID(t, tt.id)
		})
	}
}

// TestFluxIDRandom compares random ids built from the characters that
// matter to the format.
func TestFluxIDRandom(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(14, 2026))
	for range 20000 {
		compareID(t, randomID(rng))
	}
}

// TestParseRandom compares reading random strings with three or more "_".
func TestParseRandom(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(15, 2026))
	for range 20000 {
		compareParse(t, randomString(rng, "ab_:-.", 12))
	}
}

// FuzzFluxID reads any string both ways; its seeds run with go test.
func FuzzFluxID(f *testing.F) {
	for _, tt := range idTests {
		f.Add(toMeta(tt.id).String())
	}
	for _, s := range []string{"", "_", "___", "____", "_a__Namespace", "a_b_c_D", "_a___b_rbac.authorization.k8s.io_ClusterRole", "ns_a:b__Kind"} {
		f.Add(s)
	}
	f.Fuzz(compareParse)
}

func toMeta(id inventory.ID) object.ObjMetadata {
	return object.ObjMetadata{Namespace: id.Namespace, Name: id.Name, GroupKind: schema.GroupKind{Group: id.Group, Kind: id.Kind}}
}

// compareID checks that tenantkit writes id as cli-utils does, reads that
// back as cli-utils does, and refuses to write it only when cli-utils
// cannot read it back.
func compareID(t *testing.T, id inventory.ID) {
	t.Helper()
	meta := toMeta(id)
	want := meta.String()
	if got := id.FluxID(); got != want {
		t.Errorf("%+v: FluxID() = %q, cli-utils writes %q", id, got, want)
	}
	compareParse(t, want)

	back, err := object.ParseObjMetadata(want)
	fluxRoundTrips := err == nil && back == meta
	e := inventory.Entry{APIVersion: version(id.Group), Kind: id.Kind, Namespace: id.Namespace, Name: id.Name}
	if len(e.Validate(nil)) > 0 {
		return // not an object that can exist
	}
	refs, errs := inventory.ToResourceInventory(e)
	if fluxRoundTrips != (errs == nil) {
		t.Errorf("%+v: ToResourceInventory = %v, %v; cli-utils reads %q back as itself: %v", id, refs, errs.ToAggregate(), want, fluxRoundTrips)
	}
	if errs == nil && refs[0].ID != want {
		t.Errorf("%+v: ToResourceInventory id %q, cli-utils writes %q", id, refs[0].ID, want)
	}
}

// compareParse checks that tenantkit reads s as cli-utils does, and
// refuses it only when cli-utils cannot read it or reads an identity that
// no object can have.
func compareParse(t *testing.T, s string) {
	t.Helper()
	meta, fluxErr := object.ParseObjMetadata(s)
	id, err := inventory.ParseID(s)
	switch {
	case err == nil && fluxErr != nil:
		t.Errorf("ParseID(%q) = %+v, cli-utils refuses it: %v", s, id, fluxErr)
	case err == nil && toMeta(id) != meta:
		t.Errorf("ParseID(%q) = %+v, cli-utils reads %+v", s, id, meta)
	case err != nil && fluxErr == nil:
		read := inventory.ID{Group: meta.GroupKind.Group, Kind: meta.GroupKind.Kind, Namespace: meta.Namespace, Name: meta.Name}
		if len(read.Validate(nil)) == 0 {
			t.Errorf("ParseID(%q): %v; cli-utils reads the valid %+v", s, err, meta)
		}
	}
}

func version(group string) string {
	if group == "" {
		return "v1"
	}
	return group + "/v1"
}

var (
	groups = []string{"", "apps", "rbac.authorization.k8s.io", "certificates.k8s.io", "source.toolkit.fluxcd.io", "example.com"}
	kinds  = []string{"Namespace", "Role", "ClusterRole", "RoleBinding", "ClusterRoleBinding", "CertificateSigningRequest", "ConfigMap", "ExternalArtifact", "Widget"}
)

func randomID(rng *rand.Rand) inventory.ID {
	id := inventory.ID{
		Group: groups[rng.IntN(len(groups))],
		Kind:  kinds[rng.IntN(len(kinds))],
		Name:  randomString(rng, "ab_:.-", 8),
	}
	if rng.IntN(2) == 0 {
		id.Namespace = []string{"t", "tenant-a", "a-b"}[rng.IntN(3)]
	}
	return id
}

func randomString(rng *rand.Rand, alphabet string, max int) string {
	var b strings.Builder
	for range rng.IntN(max + 1) {
		b.WriteByte(alphabet[rng.IntN(len(alphabet))])
	}
	return b.String()
}
