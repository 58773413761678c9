package inventory

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/opencontainers/go-digest"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/tenantkit/tenantkit/internal/yamldoc"
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
	// Keys that name no field are ignored, as encoding/json and Flux
	// ignore them; a key in another case is one of them, as the API
	// server matches names exactly.
	{name: "unknown keys of an entry ignored", in: `[{"kind":"Namespace","name":"a","extra":{"x":1},"Name":"b","DIGEST":5}]`,
		want: []Entry{nsEntry("a", "")}},
	{name: "unknown keys of a ref ignored", in: `{"entries":[{"id":"_a__Namespace","v":"v1","x":[1],"ID":"_b__Namespace"}]}`,
		want: []Entry{{APIVersion: "v1", Kind: "Namespace", Name: "a"}}},
	{name: "a null element", in: `[null]`, is: ErrMalformed},
}

// malformedMsg is the start of the message of an error wrapping
// ErrMalformed.
const malformedMsg = "inventory: malformed document: "

// valueErrorTests are documents with values of the wrong type, in each
// shape that Unmarshal reads, or that are not shaped like an inventory,
// with the exact message of Unmarshal's error, in the document's words
// at the value's path, never Go's (issue 38, item 4), and what
// UnmarshalLenient returns: the same error when it refuses the document
// (no dropped), or the entries it keeps and the problems it drops.
var valueErrorTests = []struct {
	name    string
	in      string
	want    string   // Unmarshal's error
	kept    []Entry  // UnmarshalLenient's entries; nil when it refuses the document with want
	dropped []string // UnmarshalLenient's problems
}{
	{name: "ArtifactGenerator: a number for a name",
		in:      `{"kind":"ArtifactGenerator","status":{"inventory":[{"kind":"Namespace","name":1},{"kind":"Namespace","name":"b"}]}}`,
		want:    malformedMsg + "status.inventory[0].name: must be a string, found a number",
		kept:    []Entry{nsEntry("b", "")},
		dropped: []string{"status.inventory[0].name: Invalid value: must be a string, found a number"}},
	{name: "ArtifactGenerator in YAML: a list for a digest, a mapping for a namespace",
		in:      "kind: ArtifactGenerator\nstatus:\n  inventory:\n  - {name: app, namespace: {a: 1}, digest: [sha256]}\n  - {name: app, namespace: a}\n",
		want:    malformedMsg + "status.inventory[0].digest: must be a string, found a list; status.inventory[0].namespace: must be a string, found a mapping",
		kept:    []Entry{ea("a", "app", "")},
		dropped: []string{"status.inventory[0].digest: Invalid value: must be a string, found a list", "status.inventory[0].namespace: Invalid value: must be a string, found a mapping"}},
	{name: "ArtifactGenerator: an element that is not a mapping",
		in:      `{"kind":"ArtifactGenerator","status":{"inventory":[{"kind":"Namespace","name":"a"},"b",null]}}`,
		want:    malformedMsg + "status.inventory[1]: must be an inventory entry, a mapping, found a string; status.inventory[2]: must be an inventory entry, a mapping, found null",
		kept:    []Entry{nsEntry("a", "")},
		dropped: []string{"status.inventory[1]: Invalid value: must be an inventory entry, a mapping, found a string", "status.inventory[2]: Invalid value: must be an inventory entry, a mapping, found null"}},
	{name: "a List holding an ArtifactGenerator: a boolean for a kind",
		in:      "apiVersion: v1\nkind: List\nitems:\n- kind: ArtifactGenerator\n  status:\n    inventory: [{kind: true, name: a}]\n",
		want:    malformedMsg + "items[0].status.inventory[0].kind: must be a string, found a boolean",
		kept:    []Entry{},
		dropped: []string{"items[0].status.inventory[0].kind: Invalid value: must be a string, found a boolean"}},
	{name: "ResourceSet: a number for a version",
		in:      `{"kind":"ResourceSet","status":{"inventory":{"entries":[{"id":"_a__Namespace","v":1},{"id":"_b__Namespace","v":"v1"}]}}}`,
		want:    malformedMsg + "status.inventory.entries[0].v: must be a string, found a number",
		kept:    []Entry{{APIVersion: "v1", Kind: "Namespace", Name: "b"}},
		dropped: []string{"status.inventory.entries[0].v: Invalid value: must be a string, found a number"}},
	{name: "Kustomization in YAML: a boolean for an id",
		in:      "apiVersion: kustomize.toolkit.fluxcd.io/v1\nkind: Kustomization\nstatus:\n  inventory:\n    entries:\n    - {id: true, v: v1}\n",
		want:    malformedMsg + "status.inventory.entries[0].id: must be a string, found a boolean",
		kept:    []Entry{},
		dropped: []string{"status.inventory.entries[0].id: Invalid value: must be a string, found a boolean"}},
	{name: "FluxInstance: a ref that is not a mapping",
		in:      `{"kind":"FluxInstance","status":{"inventory":{"entries":[{"id":"_a__Namespace","v":"v1"},"_b__Namespace"]}}}`,
		want:    malformedMsg + "status.inventory.entries[1]: must be a Flux ref, a mapping {id, v}, found a string",
		kept:    []Entry{{APIVersion: "v1", Kind: "Namespace", Name: "a"}},
		dropped: []string{"status.inventory.entries[1]: Invalid value: must be a Flux ref, a mapping {id, v}, found a string"}},
	{name: "a Flux ResourceInventory: a list for an id",
		in:      `{"entries":[{"id":["_a__Namespace"],"v":"v1"}]}`,
		want:    malformedMsg + "entries[0].id: must be a string, found a list",
		kept:    []Entry{},
		dropped: []string{"entries[0].id: Invalid value: must be a string, found a list"}},
	{name: "a bare list: values of the wrong type, in document order",
		in:      `[{"kind":5,"name":true},{"kind":"Namespace","name":"ok"},7,{"name":"app","namespace":"a","filename":{}}]`,
		want:    malformedMsg + "[0].kind: must be a string, found a number; [0].name: must be a string, found a boolean; [2]: must be an inventory entry, a mapping, found a number; [3].filename: must be a string, found a mapping",
		kept:    []Entry{nsEntry("ok", "")},
		dropped: []string{"[0].kind: Invalid value: must be a string, found a number", "[0].name: Invalid value: must be a string, found a boolean", "[2]: Invalid value: must be an inventory entry, a mapping, found a number", "[3].filename: Invalid value: must be a string, found a mapping"}},
	{name: "a bare list in YAML: more than ten named",
		in:   "[" + strings.Repeat("{name: 1},", 11) + "{name: 1}]",
		want: malformedMsg + "[0].name: must be a string, found a number; [1].name: must be a string, found a number; [2].name: must be a string, found a number; [3].name: must be a string, found a number; [4].name: must be a string, found a number; [5].name: must be a string, found a number; [6].name: must be a string, found a number; [7].name: must be a string, found a number; [8].name: must be a string, found a number; [9].name: must be a string, found a number; and 2 more",
		kept: []Entry{},
		dropped: []string{"[0].name: Invalid value: must be a string, found a number", "[1].name: Invalid value: must be a string, found a number", "[2].name: Invalid value: must be a string, found a number",
			"[3].name: Invalid value: must be a string, found a number", "[4].name: Invalid value: must be a string, found a number", "[5].name: Invalid value: must be a string, found a number",
			"[6].name: Invalid value: must be a string, found a number", "[7].name: Invalid value: must be a string, found a number", "[8].name: Invalid value: must be a string, found a number",
			"[9].name: Invalid value: must be a string, found a number", "[10].name: Invalid value: must be a string, found a number", "[11].name: Invalid value: must be a string, found a number"}},
	// The preview tool's -o json output is the tool's shape, which
	// examples/plan reads; the library refuses it whole, wrong types or
	// not.
	{name: "the preview tool's JSON, refused whole",
		in:   `{"inventory":[{"kind":"Namespace","name":1}],"changes":[]}`,
		want: malformedMsg + "found a mapping with neither status.inventory nor entries, nor a kind that records an inventory (ArtifactGenerator, FluxInstance, Kustomization, ResourceSet)"},

	// The document's shape: refused whole, by both.
	{name: "a number for a kind", in: `{"kind":1,"status":{"inventory":[]}}`, want: malformedMsg + "kind: must be a string, found a number"},
	{name: "a string for a status", in: `{"kind":"ArtifactGenerator","status":"x"}`, want: malformedMsg + "status: must be a mapping, found a string"},
	{name: "a string for items", in: `{"kind":"List","items":"x"}`, want: malformedMsg + "items: must be a list, found a string"},
	{name: "a list for an item's status", in: `{"kind":"List","items":[{"kind":"ArtifactGenerator","status":[]}]}`,
		want: malformedMsg + "items[0].status: must be a mapping, found a list"},
	{name: "a string for refs", in: `{"status":{"inventory":{"entries":"x"}}}`, want: malformedMsg + "status.inventory.entries: must be a list, found a string"},
	{name: "a mapping for top-level refs", in: `{"entries":{"id":"_a__Namespace"}}`, want: malformedMsg + "entries: must be a list, found a mapping"},
	{name: "a number for an inventory", in: `{"status":{"inventory":5}}`,
		want: malformedMsg + "status.inventory: must be a list of entries or a mapping with entries, not a number"},
	{name: "a string for an item", in: `{"kind":"List","items":["x"]}`, want: malformedMsg + "items[0]: must be a list of entries or a mapping, not a string"},
	{name: "a string", in: `"x"`, want: malformedMsg + "must be a list of entries or a mapping, not a string"},
	{name: "a NamespaceList names the item",
		in:   `{"apiVersion":"v1","kind":"NamespaceList","items":[{"kind":"Namespace","metadata":{"name":"a"}}]}`,
		want: malformedMsg + "items[0]: found an object of kind Namespace, which records no inventory; want ArtifactGenerator, FluxInstance, Kustomization, ResourceSet, a List holding one, a Flux ResourceInventory or a list of entries"},
	{name: "a Namespace", in: "apiVersion: v1\nkind: Namespace\nmetadata: {name: a}\n",
		want: malformedMsg + "found an object of kind Namespace, which records no inventory; want ArtifactGenerator, FluxInstance, Kustomization, ResourceSet, a List holding one, a Flux ResourceInventory or a list of entries"},
	{name: "a List of two", in: `{"kind":"List","items":[{"kind":"ArtifactGenerator"},{"kind":"ArtifactGenerator"}]}`,
		want: malformedMsg + "a List must hold exactly one object with an inventory, found 2 items"},
}

// TestUnmarshalValueErrors checks the exact errors of valueErrorTests,
// from Unmarshal and UnmarshalLenient.
func TestUnmarshalValueErrors(t *testing.T) {
	t.Parallel()
	for _, tt := range valueErrorTests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := Unmarshal([]byte(tt.in))
			if got != nil || err == nil || err.Error() != tt.want {
				t.Fatalf("Unmarshal() = %v, %q; want the error %q", got, err, tt.want)
			}
			if !errors.Is(err, ErrMalformed) {
				t.Errorf("Unmarshal() error %v does not wrap %v", err, ErrMalformed)
			}
			entries, dropped, err := UnmarshalLenient([]byte(tt.in))
			if tt.kept == nil {
				if entries != nil || dropped != nil || err == nil || err.Error() != tt.want || !errors.Is(err, ErrMalformed) {
					t.Errorf("UnmarshalLenient() = %v, %v, %q; want the error %q", entries, dropped, err, tt.want)
				}
				return
			}
			if err != nil {
				t.Fatalf("UnmarshalLenient() error = %v", err)
			}
			if diff := cmp.Diff(tt.kept, entries); diff != "" {
				t.Errorf("UnmarshalLenient() entries (-want +got):\n%s", diff)
			}
			var msgs []string
			for _, e := range dropped {
				msgs = append(msgs, e.Error())
			}
			if diff := cmp.Diff(tt.dropped, msgs); diff != "" {
				t.Errorf("UnmarshalLenient() dropped (-want +got):\n%s", diff)
			}
		})
	}
}

// TestUnmarshalYAMLErrors checks the exact error of each document that
// is not one YAML document, from Unmarshal and UnmarshalLenient alike: the
// problem in the document's words, without the YAML decoder's (issue 38,
// item 4: "yaml: line 1: ..." and "yaml: unmarshal errors:"), and what it
// wraps.
func TestUnmarshalYAMLErrors(t *testing.T) {
	t.Parallel()
	const malformed = "inventory: malformed document: "
	for _, tt := range []struct {
		name, in, want string
		cause          error
	}{
		{name: "a syntax error", in: "- kind: Namespace\n  name: [a\n",
			want: malformed + "must be valid YAML: line 2: did not find expected ',' or ']'"},
		{name: "a syntax error met by the alias check, without a line", in: "- &a {kind: Namespace, name: [x}\n- *a\n",
			want: malformed + "must be valid YAML: did not find expected ',' or ']'"},
		{name: "a control character", in: "- kind: Namespace\n  name: a\x00\n",
			want: malformed + "must be valid YAML: control characters are not allowed"},
		{name: "invalid UTF-8", in: "- kind: Namespace\n  name: a\xff\n",
			want: malformed + "must be valid YAML: invalid leading UTF-8 octet"},
		{name: "repeated keys", in: "- kind: Namespace\n  name: a\n  name: b\n  kind: Namespace\n",
			want: malformed + `must be valid YAML: line 3: key "name" already set in map; line 4: key "kind" already set in map`},
		{name: "a sequence as a key", in: "- {[a]: 1}\n",
			want: malformed + "must be valid YAML: a mapping key must be a scalar, not a mapping or a sequence"},
		{name: "an infinite number", in: "- {kind: Namespace, name: .inf}\n",
			want: malformed + "must hold only finite numbers, not +Inf (.inf or .nan); quote a value that is text"},
		{name: "two documents", in: "- {kind: Namespace, name: a}\n---\n- {kind: Namespace, name: b}\n",
			want: malformed + "must hold one YAML document: a non-empty YAML document follows the first one", cause: yamldoc.ErrMoreDocuments},
		{name: "aliases that expand too far", in: "a: &a [" + strings.Repeat("x,", 100) + "x]\nb: [" + strings.Repeat("*a,", 1000) + "*a]\n",
			want: malformed + "YAML aliases must expand a document to no more than 10 times its size (64 KiB at least): 3218 bytes expand to more than 65536", cause: yamldoc.ErrExpansion},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := Unmarshal([]byte(tt.in))
			if got != nil || err == nil || err.Error() != tt.want {
				t.Fatalf("Unmarshal() = %v, %q; want the error %q", got, err, tt.want)
			}
			if !errors.Is(err, ErrMalformed) || tt.cause != nil && !errors.Is(err, tt.cause) {
				t.Errorf("Unmarshal() error %v wraps neither %v nor %v", err, ErrMalformed, tt.cause)
			}
			entries, dropped, err := UnmarshalLenient([]byte(tt.in))
			if entries != nil || dropped != nil || err == nil || err.Error() != tt.want {
				t.Errorf("UnmarshalLenient() = %v, %v, %q; want the error %q", entries, dropped, err, tt.want)
			}
		})
	}
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
