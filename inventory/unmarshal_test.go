package inventory

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/opencontainers/go-digest"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

var (
	digestA = dg("a")
	digestN = dg("n")
)

var unmarshalTests = []struct {
	name    string
	in      string
	want    []Entry
	wantErr []fieldErr // for invalid entries
	is      error      // for the rest
}{
	{name: "JSON list", in: `[{"kind":"Namespace","name":"tenant-a","digest":"` + string(digestN) + `"},
		{"kind":"ExternalArtifact","namespace":"tenant-a","name":"app","filename":"f.tar.gz","digest":"` + string(digestA) + `"}]`,
		want: []Entry{nsEntry("tenant-a", digestN), {Kind: "ExternalArtifact", Namespace: "tenant-a", Name: "app", Filename: "f.tar.gz", Digest: digestA}}},
	{name: "empty JSON list", in: `[]`, want: []Entry{}},
	{name: "YAML list, empty kind read as ExternalArtifact", in: "- namespace: tenant-a\n  name: app\n  digest: " + string(digestA) + "\n",
		want: []Entry{ea("tenant-a", "app", digestA)}},
	{name: "ArtifactGenerator", in: `
apiVersion: source.extensions.fluxcd.io/v1beta1
kind: ArtifactGenerator
metadata: {name: tenants, namespace: flux-system}
spec: {}
status:
  inventory:
    - kind: Namespace
      name: tenant-a
      digest: ` + string(digestN) + `
    - kind: ExternalArtifact
      name: app
      namespace: tenant-a
      digest: ` + string(digestA) + `
`, want: []Entry{nsEntry("tenant-a", digestN), ea("tenant-a", "app", digestA)}},
	{name: "Kustomization", in: `
apiVersion: kustomize.toolkit.fluxcd.io/v1
kind: Kustomization
status:
  inventory:
    entries:
      - id: _team1__Namespace
        v: v1
      - id: apps_podinfo_apps_Deployment
        v: v1
`, want: []Entry{{APIVersion: "v1", Kind: "Namespace", Name: "team1"}, {APIVersion: "apps/v1", Kind: "Deployment", Namespace: "apps", Name: "podinfo"}}},
	{name: "ResourceInventory", in: `{"entries":[{"id":"_team1__Namespace","v":"v1"}]}`,
		want: []Entry{{APIVersion: "v1", Kind: "Namespace", Name: "team1"}}},
	{name: "invalid entries with paths", in: `{"status":{"inventory":[{"kind":"Namespace","name":"ok"},{"name":"app","digest":"sha256:abc"},{"kind":"Deployment","name":"x"}]}}`,
		wantErr: []fieldErr{{"status.inventory[1].digest", field.ErrorTypeInvalid}, {"status.inventory[2].apiVersion", field.ErrorTypeRequired}}},
	{name: "invalid entry in a bare list", in: `[{"name":""}]`,
		wantErr: []fieldErr{{"[0].name", field.ErrorTypeRequired}}},
	{name: "invalid Flux id", in: `{"status":{"inventory":{"entries":[{"id":"nope","v":"v1"}]}}}`,
		wantErr: []fieldErr{{"status.inventory.entries[0].id", field.ErrorTypeInvalid}}},
	// Issue 14: sha1 and blake3 digests, as source-watcher writes them.
	{name: "sha1 and blake3 digests", in: `[{"kind":"Namespace","name":"a","digest":"sha1:` + strings.Repeat("0", 40) + `"},{"namespace":"a","name":"b","digest":"blake3:` + strings.Repeat("f", 64) + `"}]`,
		want: []Entry{nsEntry("a", "sha1:"+digest.Digest(strings.Repeat("0", 40))), ea("a", "b", "blake3:"+digest.Digest(strings.Repeat("f", 64)))}},
	{name: "empty document", in: ``, is: ErrMalformed},
	{name: "null", in: `null`, is: ErrMalformed},
	{name: "scalar", in: `hello`, is: ErrMalformed},
	// Issue 14: a fresh generator or Kustomization has no inventory yet.
	{name: "object without inventory", in: `{"kind":"ArtifactGenerator","status":{}}`, want: []Entry{}},
	{name: "object without status", in: `kind: ArtifactGenerator`, want: []Entry{}},
	{name: "fresh Kustomization", in: "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nmetadata: {name: apps, namespace: tenant-a}\nspec: {prune: true}\n", want: []Entry{}},
	{name: "null inventory", in: `{"status":{"inventory":null}}`, want: []Entry{}},
	{name: "inventory without entries", in: `{"status":{"inventory":{}}}`, want: []Entry{}},
	{name: "entry without digest", in: `[{"kind":"Namespace","name":"a"}]`, want: []Entry{nsEntry("a", "")}},
	// Issue 38: a document that holds no inventory is never read as an
	// empty one, which would hide every deletion.
	{name: "List of one ArtifactGenerator", in: "apiVersion: v1\nkind: List\nitems:\n- kind: ArtifactGenerator\n  status:\n    inventory: [{kind: Namespace, name: a}]\n",
		want: []Entry{nsEntry("a", "")}},
	{name: "List of one, an invalid entry", in: `{"kind":"List","items":[{"kind":"ArtifactGenerator","status":{"inventory":[{"kind":"Namespace","name":""}]}}]}`,
		wantErr: []fieldErr{{"items[0].status.inventory[0].name", field.ErrorTypeRequired}}},
	{name: "List of two", in: `{"kind":"List","items":[{"kind":"ArtifactGenerator"},{"kind":"ArtifactGenerator"}]}`, is: ErrMalformed},
	{name: "empty List", in: `{"kind":"List","items":[]}`, is: ErrMalformed},
	{name: "NamespaceList", in: `{"apiVersion":"v1","kind":"NamespaceList","items":[{"kind":"Namespace","metadata":{"name":"a"}}]}`, is: ErrMalformed},
	{name: "a Namespace", in: "apiVersion: v1\nkind: Namespace\nmetadata: {name: a}\n", is: ErrMalformed},
	{name: "unrelated JSON", in: `{"name":"a","replicas":3}`, is: ErrMalformed},
	{name: "string inventory", in: `{"status":{"inventory":"x"}}`, is: ErrMalformed},
	{name: "wrong field type", in: `[{"name":1}]`, is: ErrMalformed},
	{name: "wrong ref type", in: `{"entries":[{"id":1}]}`, is: ErrMalformed},
	{name: "invalid YAML", in: "- a: [\n", is: ErrMalformed},
	{name: "duplicate YAML key", in: "- name: a\n  name: b\n", is: ErrMalformed},
	{name: "too large", in: "[" + strings.Repeat(" ", maxDocumentBytes) + "]", is: ErrTooLarge},
}

func TestUnmarshal(t *testing.T) {
	t.Parallel()
	for _, tt := range unmarshalTests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := Unmarshal([]byte(tt.in))
			if tt.is != nil {
				if !errors.Is(err, tt.is) {
					t.Fatalf("Unmarshal() = %v, %v; want %v", got, err, tt.is)
				}
				if got != nil {
					t.Errorf("Unmarshal() returned entries with an error: %v", got)
				}
				return
			}
			if tt.wantErr != nil {
				if diff := cmp.Diff(tt.wantErr, reduce(fieldErrors(t, err))); diff != "" {
					t.Errorf("errors mismatch (-want +got):\n%s", diff)
				}
				if got != nil {
					t.Errorf("Unmarshal() returned entries with an error: %v", got)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Unmarshal mismatch (-want +got):\n%s", diff)
			}
		})
	}
}
