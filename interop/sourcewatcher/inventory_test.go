package sourcewatcher_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fluxcd/source-watcher/api/v2/v1beta1"
	"github.com/google/go-cmp/cmp"
	"github.com/opencontainers/go-digest"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	"github.com/tenantkit/tenantkit/generator"
	"github.com/tenantkit/tenantkit/inventory"
)

// releasedEntries are the entries that the released controller records for
// the plan's namespaces and artifacts, each artifact with a storage file
// name as source-watcher's storage names it ("<hash>.tar.gz").
func releasedEntries(plan *generator.Plan) []v1beta1.InventoryEntry {
	var out []v1beta1.InventoryEntry
	for _, ns := range plan.Namespaces {
		out = append(out, v1beta1.InventoryEntry{Kind: v1beta1.NamespaceKind, Name: ns.Name, Digest: ns.Digest.String()})
	}
	for i, a := range plan.Artifacts {
		out = append(out, v1beta1.InventoryEntry{
			Kind: inventory.KindExternalArtifact, Name: a.Name, Namespace: a.Namespace, Digest: a.Digest.String(),
			Filename: fmt.Sprintf("%032x.tar.gz", i+1),
		})
	}
	return sortEntries(out)
}

func sortEntries(entries []v1beta1.InventoryEntry) []v1beta1.InventoryEntry {
	slices.SortFunc(entries, func(a, b v1beta1.InventoryEntry) int {
		return strings.Compare(a.Kind+"/"+a.Namespace+"/"+a.Name, b.Kind+"/"+b.Namespace+"/"+b.Name)
	})
	return entries
}

// decodeReleasedInventory decodes a JSON inventory strictly into the
// released entries, as a structural CRD that prunes unknown fields would
// keep them.
func decodeReleasedInventory(data []byte) ([]v1beta1.InventoryEntry, error) {
	var out []v1beta1.InventoryEntry
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&out); err != nil {
		return nil, err
	}
	return out, nil
}

// firstPlan plans the two tenants with nothing tracked.
func firstPlan(t *testing.T) (*generator.Generator, *generator.Plan) {
	t.Helper()
	g := mustCompile(t, tenantsSpec(`ns.startsWith("tenant-")`), generator.WithNamespace(testNamespace), generator.WithUID(testUID))
	plan := mustPlan(t, g, tenantsTree(), nil, generator.Cluster{})
	if plan.HasErrors() || len(plan.Namespaces) != 2 || len(plan.Artifacts) != 3 {
		t.Fatalf("want 2 namespaces and 3 artifacts without errors, got %d, %d and %v", len(plan.Namespaces), len(plan.Artifacts), plan.Errors)
	}
	return g, plan
}

// TestInventoryNextDecodesReleased checks that the inventory a plan records
// (Plan.Next) is the released status.inventory: it decodes strictly into
// []v1beta1.InventoryEntry, entry for entry the plan's objects.
func TestInventoryNextDecodesReleased(t *testing.T) {
	t.Parallel()
	_, plan := firstPlan(t)
	data, err := json.Marshal(plan.Next(all))
	if err != nil {
		t.Fatal(err)
	}
	got, err := decodeReleasedInventory(data)
	if err != nil {
		t.Fatalf("the released InventoryEntry refuses Plan.Next: %v\n%s", err, data)
	}
	want := releasedEntries(plan)
	for i := range want {
		want[i].Filename = "" // a first plan knows no storage file
	}
	if diff := cmp.Diff(want, sortEntries(got)); diff != "" {
		t.Errorf("Plan.Next as released entries (-want +got):\n%s", diff)
	}
}

// TestInventoryReleasedReadsUnchanged writes the plan's objects as the
// released controller records them, in an ArtifactGenerator's
// status.inventory marshalled from the released types, reads it with
// inventory.Unmarshal and plans again with it: every object is unchanged,
// and nothing else is decided.
func TestInventoryReleasedReadsUnchanged(t *testing.T) {
	t.Parallel()
	g, first := firstPlan(t)
	written := releasedEntries(first)
	previous := readReleased(t, written)
	plan := mustPlan(t, g, tenantsTree(), previous, generator.Cluster{})
	if plan.HasErrors() {
		t.Fatalf("plan errors: %v", plan.Errors)
	}
	if len(plan.Decisions) != len(written) {
		t.Errorf("got %d decisions, want one for each of the %d entries: %v", len(plan.Decisions), len(written), plan.Decisions)
	}
	for _, d := range plan.Decisions {
		if d.Action != inventory.Unchanged {
			t.Errorf("%v: want unchanged", d)
		}
	}
}

// TestInventoryReleasedRoundTrip plans again with the inventory the released
// types wrote and checks that Plan.Next decodes strictly into the released
// entries and gives back what was written, storage file names included.
func TestInventoryReleasedRoundTrip(t *testing.T) {
	t.Parallel()
	g, first := firstPlan(t)
	written := releasedEntries(first)
	plan := mustPlan(t, g, tenantsTree(), readReleased(t, written), generator.Cluster{})
	data, err := json.Marshal(plan.Next(all))
	if err != nil {
		t.Fatal(err)
	}
	got, err := decodeReleasedInventory(data)
	if err != nil {
		t.Fatalf("the released InventoryEntry refuses Plan.Next: %v\n%s", err, data)
	}
	if diff := cmp.Diff(written, sortEntries(got)); diff != "" {
		t.Errorf("Plan.Next of the released inventory (-written +got):\n%s", diff)
	}
}

// readReleased marshals entries as the status.inventory of a released
// ArtifactGenerator and reads them back with inventory.Unmarshal.
func readReleased(t *testing.T, entries []v1beta1.InventoryEntry) []inventory.Entry {
	t.Helper()
	obj := v1beta1.ArtifactGenerator{
		TypeMeta:   metav1.TypeMeta{APIVersion: v1beta1.GroupVersion.String(), Kind: v1beta1.ArtifactGeneratorKind},
		ObjectMeta: metav1.ObjectMeta{Name: "tenants", Namespace: testNamespace, UID: testUID},
		Status:     v1beta1.ArtifactGeneratorStatus{Inventory: entries},
	}
	data, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	previous, err := inventory.Unmarshal(data)
	if err != nil {
		t.Fatalf("inventory.Unmarshal of the released status: %v\n%s", err, data)
	}
	if len(previous) != len(entries) {
		t.Fatalf("read %d entries of %d", len(previous), len(entries))
	}
	return previous
}

// TestInventoryExportedManifest reads the status.inventory of the exported
// manifest in testdata, which the released types decode, with
// inventory.Unmarshal: the same entries.
func TestInventoryExportedManifest(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(filepath.Join("testdata", "exported-from-cluster.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var released v1beta1.ArtifactGenerator
	if err := yaml.UnmarshalStrict(data, &released); err != nil {
		t.Fatal(err)
	}
	got, err := inventory.Unmarshal(data)
	if err != nil {
		t.Fatalf("inventory.Unmarshal: %v", err)
	}
	var want []inventory.Entry
	for _, e := range released.Status.Inventory {
		want = append(want, inventory.Entry{Kind: e.Kind, Namespace: e.Namespace, Name: e.Name, Filename: e.Filename, Digest: digest.Digest(e.Digest)})
	}
	if len(want) != 2 {
		t.Fatalf("the manifest holds %d entries, want 2", len(want))
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("inventory.Unmarshal (-released +tenantkit):\n%s", diff)
	}
}
