package generator_test

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"github.com/tenantkit/tenantkit/generator"
)

func ExampleReadExportedInputs() {
	// An ExternalArtifact's status.exportedInputs, as a client reads it.
	status := []byte(`{"dependsOn":["db"],"image":{"tag":"1.8.2"},"replicas":3}`)
	inputs, err := generator.ReadExportedInputs(status)
	if err != nil {
		panic(err)
	}
	for _, name := range slices.Sorted(maps.Keys(inputs)) {
		fmt.Printf("%s: %s\n", name, inputs[name])
	}

	_, err = generator.ReadExportedInputs([]byte(`{"replicas":1,"replicas":2}`))
	fmt.Println(err)
	// Output:
	// dependsOn: ["db"]
	// image: {"tag":"1.8.2"}
	// replicas: 3
	// input "replicas": must be listed once, found again at offset 14
}

func ExampleProviderInputs() {
	// Two ExternalArtifacts that a ResourceSetInputProvider selected by the
	// generator's common label, as it lists them.
	artifacts := []generator.ExternalArtifactInputs{
		{
			Namespace: "tenant-b", Name: "app", Revision: "latest@sha256:4f1c",
			Labels:         map[string]string{"my.org.io/provisioner": "monorepo"},
			ExportedInputs: json.RawMessage(`{"replicas":2}`),
		},
		{
			Namespace: "tenant-a", Name: "app", Revision: "latest@sha256:9b2e",
			Labels:         map[string]string{"my.org.io/provisioner": "monorepo"},
			ExportedInputs: json.RawMessage(`{"replicas":3,"name":"payments","namespace":"tenant-a"}`),
		},
	}
	sets, errs := generator.ProviderInputs(artifacts)
	if errs != nil {
		panic(errs.ToAggregate())
	}
	for _, set := range sets {
		js, _ := json.Marshal(set.Inputs)
		fmt.Printf("%s/%s %s\n", set.Namespace, set.Name, js)
		if len(set.Overridden) > 0 {
			fmt.Printf("  overridden: %q\n", set.Overridden)
		}
	}
	// Output:
	// tenant-a/app {"id":"507905161","my.org.io/provisioner":"monorepo","name":"app","namespace":"tenant-a","replicas":3,"revision":"latest@sha256:9b2e"}
	//   overridden: ["name"]
	// tenant-b/app {"id":"508232842","my.org.io/provisioner":"monorepo","name":"app","namespace":"tenant-b","replicas":2,"revision":"latest@sha256:4f1c"}
}
