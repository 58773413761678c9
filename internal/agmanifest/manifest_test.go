package agmanifest_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tenantkit/tenantkit/generator"
	"github.com/tenantkit/tenantkit/internal/agmanifest"
	"github.com/tenantkit/tenantkit/nsmeta"
)

// written is an ArtifactGenerator as a platform team writes it.
const written = `apiVersion: source.extensions.fluxcd.io/v1beta1
kind: ArtifactGenerator
metadata:
  name: tenants
  namespace: flux-system
  uid: 6f1d0c2e-6a4b-4d6e-9d53-0b7f3c1e2a10
spec:
  serviceAccountName: flux-operator
  pathPattern: "@repo/tenants/{namespace}/modules/{module}"
  commonMetadata:
    labels:
      my.org.io/provisioner: monorepo
  sources:
    - alias: repo
      kind: OCIRepository
      name: monorepo
  artifacts:
    - name: "{module}"
      namespace: "{namespace}"
      copy:
        - from: "@repo/tenants/{namespace}/modules/{module}/manifests/**"
          to: "@artifact/"
  managedNamespaces:
    allowedNames:
      - "ns.startsWith('tenant-')"
    prune: true
`

// exported is written as kubectl get artifactgenerator tenants -o yaml
// prints it: keys sorted, the metadata the API server sets, a status.
const exported = `apiVersion: source.extensions.fluxcd.io/v1beta1
kind: ArtifactGenerator
metadata:
  creationTimestamp: "2026-11-02T09:14:07Z"
  finalizers:
  - source.extensions.fluxcd.io/finalizer
  generation: 3
  managedFields:
  - apiVersion: source.extensions.fluxcd.io/v1beta1
    fieldsType: FieldsV1
    fieldsV1:
      f:spec:
        f:pathPattern: {}
    manager: kustomize-controller
    operation: Apply
  name: tenants
  namespace: flux-system
  ownerReferences: []
  resourceVersion: "48213977"
  uid: 6f1d0c2e-6a4b-4d6e-9d53-0b7f3c1e2a10
spec:
  artifacts:
  - copy:
    - from: '@repo/tenants/{namespace}/modules/{module}/manifests/**'
      to: '@artifact/'
    name: '{module}'
    namespace: '{namespace}'
  commonMetadata:
    labels:
      my.org.io/provisioner: monorepo
  managedNamespaces:
    allowedNames:
    - ns.startsWith('tenant-')
    prune: true
  pathPattern: '@repo/tenants/{namespace}/modules/{module}'
  serviceAccountName: flux-operator
  sources:
  - alias: repo
    kind: OCIRepository
    name: monorepo
status:
  conditions:
  - reason: Succeeded
    status: "True"
    type: Ready
  inventory:
  - digest: sha256:4c902a77feddebb40a2f76690644d69782ba08a037a7e9ec4259f0e3b126520e
    kind: Namespace
    name: tenant-payments
`

// want is what written and exported decode to.
var want = &agmanifest.Manifest[generator.Spec]{
	Metadata: agmanifest.Metadata{Name: "tenants", Namespace: "flux-system", UID: "6f1d0c2e-6a4b-4d6e-9d53-0b7f3c1e2a10"},
	Spec: generator.Spec{
		ServiceAccountName: "flux-operator",
		PathPattern:        "@repo/tenants/{namespace}/modules/{module}",
		CommonMetadata:     &nsmeta.Metadata{Labels: map[string]string{"my.org.io/provisioner": "monorepo"}},
		Sources:            []generator.SourceReference{{Alias: "repo", Kind: "OCIRepository", Name: "monorepo"}},
		Artifacts: []generator.OutputArtifact{{
			Name: "{module}", Namespace: "{namespace}",
			Copy: []generator.CopyOperation{{From: "@repo/tenants/{namespace}/modules/{module}/manifests/**", To: "@artifact/"}},
		}},
		ManagedNamespaces: &generator.ManagedNamespaces{AllowedNames: []string{"ns.startsWith('tenant-')"}, Prune: new(true)},
	},
}

// list is what kubectl get artifactgenerator -o yaml prints for the
// objects, without a name: a List.
func list(objects ...string) string {
	if len(objects) == 0 {
		return "apiVersion: v1\nitems: []\nkind: List\nmetadata:\n  resourceVersion: \"\"\n"
	}
	var b strings.Builder
	b.WriteString("apiVersion: v1\nitems:\n")
	for _, o := range objects {
		prefix := "- "
		for l := range strings.Lines(o) {
			b.WriteString(prefix + l)
			prefix = "  "
		}
	}
	b.WriteString("kind: List\nmetadata:\n  resourceVersion: \"\"\n")
	return b.String()
}

func replace(t testing.TB, s, old, new string) string {
	t.Helper()
	if !strings.Contains(s, old) {
		t.Fatalf("%q is not in the manifest", old)
	}
	return strings.Replace(s, old, new, 1)
}

// decodeTests are the table of TestDecode, and the seeds of FuzzDecode.
func decodeTests(t testing.TB) []struct {
	name     string
	data     string
	sentinel error  // nil: decodes to want
	msg      string // the error's message
} {
	other := replace(t, exported, "  name: tenants\n", "  name: other\n")
	return []struct {
		name     string
		data     string
		sentinel error
		msg      string
	}{
		{name: "as written", data: written},
		{name: "as kubectl prints it", data: exported},
		{name: "in a List", data: list(exported)},
		{name: "in an ArtifactGeneratorList", data: replace(t, list(exported), "kind: List", "kind: ArtifactGeneratorList")},
		{name: "JSON", data: `{"apiVersion":"source.extensions.fluxcd.io/v1beta1","kind":"ArtifactGenerator","metadata":{"name":"tenants","namespace":"flux-system","uid":"6f1d0c2e-6a4b-4d6e-9d53-0b7f3c1e2a10"},` +
			`"spec":{"serviceAccountName":"flux-operator","pathPattern":"@repo/tenants/{namespace}/modules/{module}","commonMetadata":{"labels":{"my.org.io/provisioner":"monorepo"}},` +
			`"sources":[{"alias":"repo","kind":"OCIRepository","name":"monorepo"}],"artifacts":[{"name":"{module}","namespace":"{namespace}","copy":[{"from":"@repo/tenants/{namespace}/modules/{module}/manifests/**","to":"@artifact/"}]}],` +
			`"managedNamespaces":{"allowedNames":["ns.startsWith('tenant-')"],"prune":true}}}`},
		{
			name: "unknown field in a copy operation", sentinel: agmanifest.ErrFields,
			data: replace(t, exported, "    - from: '@repo/", "    - frm: '@repo/"),
			msg:  "spec.artifacts[0].copy[0].frm: unknown field",
		},
		{
			name: "unknown field in metadata", sentinel: agmanifest.ErrFields,
			data: replace(t, exported, "  name: tenants\n", "  name: tenants\n  lables: {}\n"),
			msg:  "metadata.lables: unknown field",
		},
		{
			name: "unknown top-level field", sentinel: agmanifest.ErrFields,
			data: replace(t, exported, "\nspec:\n", "\nspce:\n  x: 1\nspec:\n"),
			msg:  "spce: unknown field",
		},
		{
			name: "a field in another case", sentinel: agmanifest.ErrFields,
			data: replace(t, exported, "  pathPattern: '@repo", "  PathPattern: '@repo"),
			msg:  "spec.PathPattern: unknown field",
		},
		{
			name: "the unreleased spec.namespaces", sentinel: agmanifest.ErrFields,
			data: replace(t, exported, "  managedNamespaces:\n", "  namespaces:\n    strategy: Managed\n  managedNamespaces:\n"),
			msg:  "spec.namespaces: unknown field",
		},
		{
			name: "wrong type", sentinel: agmanifest.ErrFields,
			data: replace(t, exported, "    prune: true\n", "    prune: \"true\"\n"),
			msg:  "spec.managedNamespaces.prune: must be a boolean, found a string",
		},
		{
			name: "several, sorted by path", sentinel: agmanifest.ErrFields,
			data: replace(t, replace(t, exported, "    prune: true\n", "    prune: [true]\n"), "  - alias: repo\n", "  - alais: repo\n"),
			msg:  "spec.managedNamespaces.prune: must be a boolean, found a list; spec.sources[0].alais: unknown field",
		},
		{
			name: "metadata not a mapping", sentinel: agmanifest.ErrFields,
			data: "apiVersion: source.extensions.fluxcd.io/v1beta1\nkind: ArtifactGenerator\nmetadata: [a]\n",
			msg:  "metadata: must be a mapping, found a list",
		},
		{
			name: "unknown field in a List's item", sentinel: agmanifest.ErrFields,
			data: list(replace(t, exported, "  pathPattern:", "  pathPatern:")),
			msg:  "items[0].spec.pathPatern: unknown field",
		},
		{
			name: "unknown field of a List", sentinel: agmanifest.ErrFields,
			data: list(exported) + "itmes: []\n",
			msg:  "itmes: unknown field",
		},
		{
			name: "wrong apiVersion", sentinel: agmanifest.ErrNotGenerator,
			data: replace(t, exported, "apiVersion: source.extensions.fluxcd.io/v1beta1\nkind", "apiVersion: source.extensions.fluxcd.io/v1alpha1\nkind"),
			msg:  `apiVersion: must be "source.extensions.fluxcd.io/v1beta1", found "source.extensions.fluxcd.io/v1alpha1"`,
		},
		{
			name: "wrong kind", sentinel: agmanifest.ErrNotGenerator,
			data: replace(t, exported, "kind: ArtifactGenerator\n", "kind: Kustomization\n"),
			msg:  `kind: must be "ArtifactGenerator", found "Kustomization"`,
		},
		{
			name: "no kind", sentinel: agmanifest.ErrNotGenerator,
			data: replace(t, exported, "kind: ArtifactGenerator\n", ""),
			msg:  `kind: must be "ArtifactGenerator", found none`,
		},
		{
			name: "kind not a string", sentinel: agmanifest.ErrNotGenerator,
			data: replace(t, exported, "kind: ArtifactGenerator\n", "kind: [ArtifactGenerator]\n"),
			msg:  `kind: must be "ArtifactGenerator", found a list`,
		},
		{
			name: "wrong kind in a List", sentinel: agmanifest.ErrNotGenerator,
			data: "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Namespace\n  metadata:\n    name: tenant-search\n",
			msg:  `items[0].kind: must be "ArtifactGenerator", found "Namespace"`,
		},
		{
			name: "an empty List", sentinel: agmanifest.ErrNotGenerator,
			data: list(),
			msg:  "a List must hold exactly one ArtifactGenerator, found 0 items",
		},
		{
			name: "a List of two", sentinel: agmanifest.ErrNotGenerator,
			data: list(exported, other),
			msg: "a List must hold exactly one ArtifactGenerator, found 2 items: " +
				"ArtifactGenerator flux-system/tenants, ArtifactGenerator flux-system/other; kubectl get artifactgenerator NAME -o yaml prints one",
		},
		{
			name: "a List whose items are not a list", sentinel: agmanifest.ErrNotGenerator,
			data: "apiVersion: v1\nkind: List\nitems: {}\n",
			msg:  "items: must be a list, found a mapping",
		},
		{
			name: "a List item not a mapping", sentinel: agmanifest.ErrNotGenerator,
			data: "apiVersion: v1\nkind: List\nitems: [x]\n",
			msg:  "items[0]: must be an ArtifactGenerator, a mapping, found a string",
		},
		{
			name: "a NamespaceList", sentinel: agmanifest.ErrNotGenerator,
			data: "apiVersion: v1\nkind: NamespaceList\nitems: []\n",
			msg:  `kind: must be "ArtifactGenerator", found "NamespaceList"`,
		},
		{
			name: "a list", sentinel: agmanifest.ErrNotGenerator,
			data: "- a\n",
			msg:  "must be an ArtifactGenerator, a mapping, found a list",
		},
		{
			name: "a scalar", sentinel: agmanifest.ErrNotGenerator,
			data: "ArtifactGenerator",
			msg:  "must be an ArtifactGenerator, a mapping, found a string",
		},
		{
			name: "empty", sentinel: agmanifest.ErrSyntax,
			data: "",
			msg:  "the file must hold one YAML document, found 0",
		},
		{
			name: "comments only", sentinel: agmanifest.ErrSyntax,
			data: "# nothing\n---\n",
			msg:  "the file must hold one YAML document, found 0",
		},
		{
			name: "two documents", sentinel: agmanifest.ErrSyntax,
			data: written + "---\n" + written,
			msg:  "the file must hold one YAML document, found 2",
		},
		{
			name: "repeated key", sentinel: agmanifest.ErrSyntax,
			data: exported + "kind: ArtifactGenerator\n",
			msg:  `must be valid YAML: line 50: key "kind" already set in map`,
		},
		{
			name: "not YAML", sentinel: agmanifest.ErrSyntax,
			data: "spec: [unclosed\n",
			msg:  "must be valid YAML: line 1: did not find expected ',' or ']'",
		},
	}
}

func TestDecode(t *testing.T) {
	t.Parallel()
	for _, tt := range decodeTests(t) {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			m, err := agmanifest.Decode[generator.Spec]([]byte(tt.data))
			if tt.sentinel == nil {
				if err != nil {
					t.Fatalf("Decode[generator.Spec]() = %v", err)
				}
				if diff := cmp.Diff(want, m); diff != "" {
					t.Errorf("Decode[generator.Spec]() (-want +got):\n%s", diff)
				}
				return
			}
			if m != nil || !errors.Is(err, tt.sentinel) {
				t.Fatalf("Decode[generator.Spec]() = %v, %v; want an error wrapping %v", m, err, tt.sentinel)
			}
			if err.Error() != tt.msg {
				t.Errorf("Decode[generator.Spec]() error\n%q, want\n%q", err, tt.msg)
			}
			checkWords(t, err)
			if _, ok := errors.AsType[*agmanifest.Error](err); !ok {
				t.Errorf("Decode[generator.Spec]() error %T, want *agmanifest.Error", err)
			}
		})
	}
}

// TestDecodeServerSetMetadata checks each field of metadata that the API
// server sets alone: ignored, as they are all together in exported.
func TestDecodeServerSetMetadata(t *testing.T) {
	t.Parallel()
	for _, k := range agmanifest.ServerSetMetadata {
		t.Run(k, func(t *testing.T) {
			t.Parallel()
			data := replace(t, written, "  name: tenants\n", "  name: tenants\n  "+k+": {x: [1]}\n")
			m, err := agmanifest.Decode[generator.Spec]([]byte(data))
			if err != nil {
				t.Fatalf("Decode[generator.Spec]() = %v", err)
			}
			if diff := cmp.Diff(want, m); diff != "" {
				t.Errorf("Decode[generator.Spec]() (-want +got):\n%s", diff)
			}
		})
	}
}

// TestDecodeManyProblems: the message names the first ten, sorted, and
// counts the rest; Problems holds them all.
func TestDecodeManyProblems(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString("apiVersion: source.extensions.fluxcd.io/v1beta1\nkind: ArtifactGenerator\nspec:\n")
	for _, k := range []string{"k", "j", "i", "h", "g", "f", "e", "d", "c", "b", "a", "l"} {
		b.WriteString("  " + k + ": 1\n")
	}
	_, err := agmanifest.Decode[generator.Spec]([]byte(b.String()))
	e, ok := errors.AsType[*agmanifest.Error](err)
	if !ok {
		t.Fatalf("Decode[generator.Spec]() = %v, want an *agmanifest.Error", err)
	}
	if len(e.Problems) != 12 {
		t.Errorf("%d problems, want 12", len(e.Problems))
	}
	want := "spec.a: unknown field; spec.b: unknown field; spec.c: unknown field; spec.d: unknown field; spec.e: unknown field; " +
		"spec.f: unknown field; spec.g: unknown field; spec.h: unknown field; spec.i: unknown field; spec.j: unknown field; and 2 more"
	if err.Error() != want {
		t.Errorf("Decode[generator.Spec]() error\n%q, want\n%q", err, want)
	}
}
