package nsmeta_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/tenantkit/tenantkit/cel"
	"github.com/tenantkit/tenantkit/nsmeta"
)

// printMap prints m in key order.
func printMap(name string, m map[string]string) {
	for _, k := range slices.Sorted(maps.Keys(m)) {
		fmt.Printf("%s[%s] = %s\n", name, k, m[k])
	}
}

func ExampleParseFile() {
	m, errs, err := nsmeta.ParseFile([]byte(`
apiVersion: source.extensions.fluxcd.io/v1beta1
kind: NamespaceMetadata
metadata:
  labels:
    team: payments
  annotations:
    my.org.io/observability: Enabled
`))
	if err != nil || errs != nil {
		fmt.Println(errs, err)
		return
	}
	printMap("labels", m.Labels)
	printMap("annotations", m.Annotations)
	// Output:
	// labels[team] = payments
	// annotations[my.org.io/observability] = Enabled
}

func ExampleParseFile_errors() {
	_, errs, _ := nsmeta.ParseFile([]byte(`
kind: Namespace
metadata:
  labels:
    team: payments and search
    tier: 1
  lables:
    zone: eu
`))
	for _, fe := range errs {
		fmt.Println(fe)
	}
	_, errs, _ = nsmeta.ParseFile([]byte("# to do\n"))
	for _, fe := range errs {
		fmt.Println(fe)
	}
	_, _, err := nsmeta.ParseFile([]byte("apiVersion: a\n---\nkind: b\n"))
	fmt.Println(err)
	_, _, err = nsmeta.ParseFile([]byte("apiVersion: source.extensions.fluxcd.io/v1beta1\nkind: NamespaceMetadata\n%YAML 1.1\nmetadata:\n  labels:\n    team: a\n"))
	fmt.Println(err)
	fmt.Println(errors.Is(err, nsmeta.ErrInvalidFile))
	// Output:
	// apiVersion: Required value: must be "source.extensions.fluxcd.io/v1beta1"
	// kind: Unsupported value: "Namespace": supported values: "NamespaceMetadata"
	// metadata.labels[team]: Invalid value: "payments and search": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')
	// metadata.labels[tier]: Invalid value: 1: must be a string; quote it
	// metadata.lables: Forbidden: unknown field; supported fields: "annotations", "labels"
	// apiVersion: Required value: the file is empty or holds only comments and separators; a NamespaceMetadata file needs apiVersion "source.extensions.fluxcd.io/v1beta1" and kind "NamespaceMetadata"
	// nsmeta: invalid NamespaceMetadata file: must hold exactly one YAML document
	// nsmeta: invalid NamespaceMetadata file: line 3: "%YAML 1.1": must not start with "%": YAML reads the line as a directive, which ends the document before it, and a decoder silently drops what follows
	// true
}

// A caller names the file and shows what is wrong with it in the file's
// words, without the package's name.
func ExampleFileError() {
	_, _, err := nsmeta.ParseFile([]byte("apiVersion: source.extensions.fluxcd.io/v1beta1\nkind: NamespaceMetadata\nmetadata: [\n"))
	if fe, ok := errors.AsType[*nsmeta.FileError](err); ok {
		fmt.Println("tenants/a/namespace-metadata.yaml:", fe.Detail)
	}
	fmt.Println(err)
	fmt.Println(errors.Is(err, nsmeta.ErrInvalidFile))
	// Output:
	// tenants/a/namespace-metadata.yaml: must be valid YAML: line 3: did not find expected node content
	// nsmeta: invalid NamespaceMetadata file: must be valid YAML: line 3: did not find expected node content
	// true
}

// An unlisted key is dropped with a warning, as source-watcher ignores it;
// WithStrict makes it an error.
func ExampleWithStrict() {
	rules := map[string]string{"team": `value in ["payments", "search"]`}
	m := nsmeta.Metadata{Labels: map[string]string{"team": "payments", "tier": "gold"}}
	for _, opts := range [][]nsmeta.Option{nil, {nsmeta.WithStrict()}} {
		s, errs := nsmeta.CompileSchema(rules, nil, nil, opts...)
		if errs != nil {
			fmt.Println(errs)
			return
		}
		kept, warnings, errs := s.Apply(context.Background(), m)
		fmt.Println(kept.Labels, warnings, errs)
	}
	// Output:
	// map[team:payments] [metadata.labels[tier]: label "tier" is not in allowedLabels; dropped] []
	// map[team:payments] [] [metadata.labels[tier]: Forbidden: must be listed in allowedLabels]
}

func ExampleParseFile_aliases() {
	// One long value reused through aliases: refused before it is decoded.
	data := "apiVersion: source.extensions.fluxcd.io/v1beta1\nkind: NamespaceMetadata\n" +
		"metadata:\n  annotations:\n    a: &v " + strings.Repeat("x", 10000) + "\n  labels:\n"
	for i := range 10 {
		data += fmt.Sprintf("    l%d: *v\n", i)
	}
	_, _, err := nsmeta.ParseFile([]byte(data))
	fmt.Println(err)
	// Output:
	// nsmeta: invalid NamespaceMetadata file: YAML aliases must expand a document to no more than 10 times its size (64 KiB at least): 10228 bytes expand to more than 102280
}

func ExampleMetadata_Validate() {
	m := nsmeta.Metadata{Labels: map[string]string{"team": strings.Repeat("payments and search ", 10)}}
	for _, fe := range m.Validate(field.NewPath("spec", "commonMetadata")) {
		fmt.Println(fe)
	}
	// Output:
	// spec.commonMetadata.labels[team]: Invalid value: "payments and search payments and search payments and search paym... (200 bytes)": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')
	// spec.commonMetadata.labels[team]: Invalid value: "payments and search payments and search payments and search paym... (200 bytes)": must be no more than 63 bytes
}

func ExampleCompileSchema() {
	_, errs := nsmeta.CompileSchema(nil,
		map[string]string{"my.org.io/observability": `value.matches("^(Enabled|Disabled)$"`},
		field.NewPath("spec", "managedNamespaces", "metadata", "fromSource"))
	for _, fe := range errs {
		fmt.Println(fe.Field)
	}
	// Output:
	// spec.managedNamespaces.metadata.fromSource.allowedAnnotations[my.org.io/observability]
}

func ExampleSchema_Apply() {
	schema, errs := nsmeta.CompileSchema(
		map[string]string{"team": `value in ["payments", "search"]`},
		map[string]string{"my.org.io/observability": `value.matches("^(Enabled|Disabled)$")`},
		nil,
	)
	if errs != nil {
		fmt.Println(errs)
		return
	}
	kept, warnings, errs := schema.Apply(context.Background(), nsmeta.Metadata{
		Labels:      map[string]string{"team": "payments", "cost-center": "42"},
		Annotations: map[string]string{"my.org.io/observability": "Maybe"},
	})
	printMap("kept", kept.Labels)
	for _, w := range warnings {
		fmt.Println("warning:", w)
	}
	for _, fe := range errs {
		fmt.Println("error:", fe)
	}
	// Output:
	// kept[team] = payments
	// warning: metadata.labels[cost-center]: label "cost-center" is not in allowedLabels; dropped
	// error: metadata.annotations[my.org.io/observability]: Invalid value: "Maybe": must satisfy rule "value.matches(\"^(Enabled|Disabled)$\")"
}

func ExamplePipeline_Validate() {
	p := nsmeta.Pipeline{
		Common: nsmeta.Metadata{Labels: map[string]string{"tier": "bronze"}},
		Operations: []nsmeta.Operation{
			{Strategy: nsmeta.Override, Namespace: "*"},
			{Strategy: "Replace", Namespace: "tenant-a"},
			{Strategy: nsmeta.Merge, Namespace: "*", Metadata: nsmeta.Metadata{
				Annotations: map[string]string{"source.extensions.fluxcd.io/externalFinalizer": "self"},
			}},
		},
	}
	spec := field.NewPath("spec")
	errs := p.Validate(spec.Child("commonMetadata"), spec.Child("managedNamespaces", "metadata", "from"), field.NewPath("metadata"))
	for _, fe := range errs {
		fmt.Println(fe)
	}
	// Output:
	// spec.managedNamespaces.metadata.from[1].strategy: Unsupported value: "Replace": supported values: "Reset", "Override", "Merge"
	// spec.managedNamespaces.metadata.from[2].annotations[source.extensions.fluxcd.io/externalFinalizer]: Forbidden: the key is reserved for external finalizers, which set it on the live namespace; the generator's desired metadata must not set it
}

func ExamplePipeline_Resolve() {
	p := nsmeta.Pipeline{
		Common: nsmeta.Metadata{Labels: map[string]string{"my.org.io/provisioner": "monorepo", "tier": "bronze"}},
		Operations: []nsmeta.Operation{
			{Strategy: nsmeta.Merge, Namespace: "*", Metadata: nsmeta.Metadata{
				Annotations: map[string]string{"my.org.io/observability": "Disabled"},
			}},
			{Strategy: nsmeta.Override, Namespace: "tenant-a", Metadata: nsmeta.Metadata{
				Labels: map[string]string{"tier": "gold"},
			}},
		},
		Final: nsmeta.Metadata{Labels: map[string]string{"generator.example.com/name": "tenants"}},
	}
	spec := field.NewPath("spec")
	if errs := p.Validate(spec.Child("commonMetadata"), spec.Child("managedNamespaces", "metadata", "from"), field.NewPath("metadata")); errs != nil {
		fmt.Println(errs)
		return
	}
	fromFile := nsmeta.Metadata{Annotations: map[string]string{"my.org.io/observability": "Enabled"}}
	r, errs := p.Resolve("tenant-a", fromFile)
	if errs != nil {
		fmt.Println(errs)
		return
	}
	for _, k := range slices.Sorted(maps.Keys(r.Labels)) {
		fmt.Printf("label %s = %s (%s)\n", k, r.Labels[k], r.Origin.Labels[k])
	}
	for _, k := range slices.Sorted(maps.Keys(r.Annotations)) {
		fmt.Printf("annotation %s = %s (%s)\n", k, r.Annotations[k], r.Origin.Annotations[k])
	}
	// Output:
	// label generator.example.com/name = tenants (final)
	// label my.org.io/provisioner = monorepo (common)
	// label tier = gold (from[1])
	// annotation my.org.io/observability = Enabled (source)
}

func ExamplePipeline_Resolve_externalFinalizer() {
	var p nsmeta.Pipeline // the zero Pipeline: the file's metadata as is
	_, errs := p.Resolve("tenant-a", nsmeta.Metadata{
		Annotations: map[string]string{"source.extensions.fluxcd.io/externalFinalizer": "self"},
	})
	fmt.Println(errs.ToAggregate())
	// Output:
	// metadata.annotations[source.extensions.fluxcd.io/externalFinalizer]: Forbidden: the key is reserved for external finalizers, which set it on the live namespace; the generator's desired metadata must not set it
}

func ExampleNewNamePolicy() {
	cache := cel.NewCache(64) // shared by every reconcile
	policy, errs := nsmeta.NewNamePolicy([]string{`ns.startsWith("tenant-")`}, field.NewPath("spec", "managedNamespaces"),
		nsmeta.WithProtectedNames("platform"), nsmeta.WithCache(cache))
	if errs != nil {
		fmt.Println(errs)
		return
	}
	fmt.Println(policy.Check(context.Background(), "tenant-a"))
	_, errs = nsmeta.NewNamePolicy([]string{`ns.size()`}, field.NewPath("spec", "managedNamespaces"))
	fmt.Println(errs[0].Field)
	// Output:
	// <nil>
	// spec.managedNamespaces.allowedNames[0]
}

// A generator running in the namespace "platform" protects it too.
func ExampleNamePolicy_Check() {
	policy, errs := nsmeta.NewNamePolicy([]string{"true"}, nil, nsmeta.WithProtectedNames("platform"))
	if errs != nil {
		fmt.Println(errs)
		return
	}
	ctx := context.Background()
	for _, name := range []string{"tenant-a", "platform", "flux-system", "kube-system", "Tenant_A"} {
		err := policy.Check(ctx, name)
		fmt.Printf("%s: allowed=%t protected=%t invalid=%t\n", name, err == nil,
			errors.Is(err, nsmeta.ErrProtectedName), errors.Is(err, nsmeta.ErrInvalidName))
	}
	// Output:
	// tenant-a: allowed=true protected=false invalid=false
	// platform: allowed=false protected=true invalid=false
	// flux-system: allowed=false protected=true invalid=false
	// kube-system: allowed=false protected=true invalid=false
	// Tenant_A: allowed=false protected=false invalid=true
}

// Added names join the five that are always protected, kube-node-lease among them, which
// released source-watcher manages when an expression allows it.
func ExampleWithProtectedNames() {
	policy, _ := nsmeta.NewNamePolicy([]string{"true"}, field.NewPath("spec", "managedNamespaces"),
		nsmeta.WithProtectedNames("platform"))
	for _, ns := range []string{"flux-system", "kube-node-lease", "platform", "tenant-a"} {
		fmt.Println(ns, errors.Is(policy.Check(context.Background(), ns), nsmeta.ErrProtectedName))
	}
	// Output:
	// flux-system true
	// kube-node-lease true
	// platform true
	// tenant-a false
}

func ExampleDigest() {
	fmt.Println(nsmeta.Digest(nsmeta.Metadata{}))
	// The SHA-256 of "label:team=payments".
	fmt.Println(nsmeta.Digest(nsmeta.Metadata{Labels: map[string]string{"team": "payments"}}))
	// Both are the SHA-256 of "label:a=b|label:c=d": nothing is escaped.
	fmt.Println(nsmeta.Digest(nsmeta.Metadata{Labels: map[string]string{"a": "b", "c": "d"}}))
	fmt.Println(nsmeta.Digest(nsmeta.Metadata{Labels: map[string]string{"a": "b|label:c=d"}}))
	// Output:
	// sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855
	// sha256:1a13d634a5c0f4515038906205d29480f16ccdda986dc5839235a6ba542260e8
	// sha256:e20a639f71eefc46c8acef7138e215adb7b6729c4500d308bac8752e9e602077
	// sha256:e20a639f71eefc46c8acef7138e215adb7b6729c4500d308bac8752e9e602077
}
