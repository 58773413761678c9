package nsmeta_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"

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
	m, err := nsmeta.ParseFile([]byte(`
apiVersion: source.extensions.fluxcd.io/v1beta1
kind: NamespaceMetadata
metadata:
  labels:
    team: payments
  annotations:
    my.org.io/observability: Enabled
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	printMap("labels", m.Labels)
	printMap("annotations", m.Annotations)
	// Output:
	// labels[team] = payments
	// annotations[my.org.io/observability] = Enabled
}

func ExampleParseFile_errors() {
	_, err := nsmeta.ParseFile([]byte(`
apiVersion: source.extensions.fluxcd.io/v1beta1
kind: NamespaceMetadata
metadata:
  lables:
    team: payments
`))
	var ve *nsmeta.ValidationError
	if errors.As(err, &ve) {
		for _, fe := range ve.Errors {
			fmt.Println(fe)
		}
	}
	// Output:
	// metadata.lables: Forbidden: unknown field; supported fields: "annotations", "labels"
}

func ExampleMetadata_Validate() {
	m := nsmeta.Metadata{Labels: map[string]string{"team": "payments and search"}}
	for _, fe := range m.Validate(field.NewPath("spec", "commonMetadata")) {
		fmt.Println(fe.Type, fe.Field)
	}
	// Output:
	// Invalid value spec.commonMetadata.labels[team]
}

func ExampleCompileSchema() {
	_, err := nsmeta.CompileSchema(nil,
		map[string]string{"my.org.io/observability": `value.matches("^(Enabled|Disabled)$"`},
		nsmeta.WithFieldPath(field.NewPath("spec", "managedNamespaces", "metadata", "fromSource")))
	var ve *nsmeta.ValidationError
	if errors.As(err, &ve) {
		for _, fe := range ve.Errors {
			fmt.Println(fe.Field)
		}
	}
	// Output:
	// spec.managedNamespaces.metadata.fromSource.allowedAnnotations[my.org.io/observability]
}

func ExampleSchema_Apply() {
	schema, err := nsmeta.CompileSchema(
		map[string]string{"team": `value in ["payments", "search"]`},
		map[string]string{"my.org.io/observability": `value.matches("^(Enabled|Disabled)$")`},
	)
	if err != nil {
		fmt.Println(err)
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
	fromFile := nsmeta.Metadata{Annotations: map[string]string{"my.org.io/observability": "Enabled"}}
	r, err := p.Resolve("tenant-a", fromFile)
	if err != nil {
		fmt.Println(err)
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
	p := nsmeta.Pipeline{Operations: []nsmeta.Operation{{
		Strategy:  nsmeta.Override,
		Namespace: "*",
		Metadata:  nsmeta.Metadata{Annotations: map[string]string{nsmeta.ExternalFinalizerAnnotation: "self"}},
	}}}
	_, err := p.Resolve("tenant-a", nsmeta.Metadata{})
	fmt.Println(errors.Is(err, nsmeta.ErrReservedAnnotation))
	var ve *nsmeta.ValidationError
	if errors.As(err, &ve) {
		fmt.Println(ve.Errors[0].Field)
	}
	// Output:
	// true
	// from[0].annotations[source.extensions.fluxcd.io/externalFinalizer]
}

func ExampleValidateOperations() {
	ops := []nsmeta.Operation{
		{Strategy: nsmeta.Override, Namespace: "*"},
		{Strategy: "Replace", Namespace: "tenant-a"},
	}
	for _, fe := range nsmeta.ValidateOperations(ops, field.NewPath("spec", "managedNamespaces", "metadata", "from")) {
		fmt.Println(fe)
	}
	// Output:
	// spec.managedNamespaces.metadata.from[1].strategy: Unsupported value: "Replace": supported values: "Reset", "Override", "Merge"
}

func ExampleNewNamePolicy() {
	cache := cel.NewCache(64) // shared by every reconcile
	policy, err := nsmeta.NewNamePolicy([]string{`ns.startsWith("tenant-")`},
		nsmeta.WithProtectedNames("flux-system"), nsmeta.WithCache(cache))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(policy.Check(context.Background(), "tenant-a"))
	// Output:
	// <nil>
}

func ExampleNamePolicy_Check() {
	policy, err := nsmeta.NewNamePolicy([]string{"true"}, nsmeta.WithProtectedNames("flux-system"))
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()
	for _, name := range []string{"tenant-a", "flux-system", "kube-system", "Tenant_A"} {
		err := policy.Check(ctx, name)
		fmt.Printf("%s: allowed=%t protected=%t invalid=%t\n", name, err == nil,
			errors.Is(err, nsmeta.ErrProtectedName), errors.Is(err, nsmeta.ErrInvalidName))
	}
	// Output:
	// tenant-a: allowed=true protected=false invalid=false
	// flux-system: allowed=false protected=true invalid=false
	// kube-system: allowed=false protected=true invalid=false
	// Tenant_A: allowed=false protected=false invalid=true
}

func ExampleDefaultProtectedNames() {
	fmt.Println(nsmeta.DefaultProtectedNames())
	// Output:
	// [default kube-node-lease kube-public kube-system]
}

func ExampleDigest() {
	fmt.Println(nsmeta.Digest(nsmeta.Metadata{}))
	fmt.Println(nsmeta.Digest(nsmeta.Metadata{Labels: map[string]string{"team": "payments"}}))
	// Output:
	// sha256:880c4a6272dc957686298143a2d40b1cdf759f0a20b039bc6408a9661c88e843
	// sha256:8e494089e4f45d7cacf479a6bb413fe7587d7cb34eaba820e86b97c3188ae418
}
