package generator

import "testing"

// This file translates source-watcher v2.3's
// internal/controller/artifactgenerator_inputs_test.go; the list of every
// translated test is in upstream_namespace_test.go.

// upstreamInputs is the inputs file of upstream's input tests.
const upstreamInputs = "replicas: 3\nname: test\nnested:\n  foo: bar\n"

// inputsFrom returns a spec change that sets the artifact's inputsFrom.
func inputsFrom(ref string) func(*Spec) {
	return func(s *Spec) { s.Artifacts[0].InputsFrom = ref }
}

// inputsScenarios translate artifactgenerator_inputs_test.go.
var inputsScenarios = []swScenario{
	// TestResolveLocalSourcePath: which references resolve. Upstream
	// resolves them when it reconciles; here Compile checks the form and
	// the alias, and the plan the path.
	{
		name:     "resolve: a source path",
		upstream: "TestResolveLocalSourcePath (@repo/tenants/a/inputs.yaml)",
		spec:     inputsFrom("@git/tenants/a/inputs.yaml"),
		files:    map[string]string{"app.yaml": swConfigMap, "tenants/a/inputs.yaml": "tenant: a\n"},
		steps: []swStep{{
			want:   []string{"ExternalArtifact/tenant-a/test-git created"},
			inputs: map[string]string{"ExternalArtifact/tenant-a/test-git": `{"tenant":"a"}`},
		}},
	},
	{
		name:     "resolve: the artifact",
		upstream: "TestResolveLocalSourcePath (@artifact/inputs.yaml)",
		spec:     inputsFrom("@artifact/inputs.yaml"),
		files:    map[string]string{"app.yaml": swConfigMap, "inputs.yaml": "from: artifact\n"},
		steps: []swStep{{
			want:   []string{"ExternalArtifact/tenant-a/test-git created"},
			inputs: map[string]string{"ExternalArtifact/tenant-a/test-git": `{"from":"artifact"}`},
		}},
	},
	{
		name:        "resolve: no alias",
		upstream:    "TestResolveLocalSourcePath (repo/inputs.yaml)",
		spec:        inputsFrom("git/inputs.yaml"),
		compileErrs: []string{`spec.artifacts[0].inputsFrom: must be "@alias/path"`},
	},
	{
		name:        "resolve: an undeclared alias",
		upstream:    "TestResolveLocalSourcePath (@missing/inputs.yaml)",
		spec:        inputsFrom("@missing/inputs.yaml"),
		compileErrs: []string{`spec.artifacts[0].inputsFrom: alias "missing" must be declared in spec.sources`},
	},
	{
		// Upstream's CRD accepts it and its reconcile refuses it; no
		// rendering can make it a reference, so Compile refuses it.
		name:        "resolve: escaping the source",
		upstream:    "TestResolveLocalSourcePath (@repo/../escape.yaml)",
		spec:        inputsFrom("@git/../escape.yaml"),
		compileErrs: []string{`spec.artifacts[0].inputsFrom: pathpattern: reference path must not contain ".." (offset 5 in "@git/../escape.yaml")`},
	},
	{
		name:        "resolve: no path",
		upstream:    "TestResolveLocalSourcePath (@repo/)",
		spec:        inputsFrom("@git/"),
		compileErrs: []string{`spec.artifacts[0].inputsFrom: pathpattern: reference must name a path below the alias (offset 5 in "@git/")`},
	},

	{
		name:     "load: exports inputs",
		upstream: "TestLoadExportedInputs/exports inputs",
		spec:     inputsFrom("@git/inputs.yaml"),
		files:    map[string]string{"app.yaml": swConfigMap, "inputs.yaml": upstreamInputs},
		steps: []swStep{{
			want:   []string{"ExternalArtifact/tenant-a/test-git created"},
			inputs: map[string]string{"ExternalArtifact/tenant-a/test-git": `{"name":"test","nested":{"foo":"bar"},"replicas":3}`},
		}},
	},
	{
		name:     "load: missing file",
		upstream: "TestLoadExportedInputs/missing file",
		differs:  "| a missing `inputsFrom` file | the reconcile fails | empty inputs and a warning |",
		spec:     inputsFrom("@git/missing.yaml"),
		files:    map[string]string{"app.yaml": swConfigMap, "inputs.yaml": upstreamInputs},
		steps: []swStep{{
			want:     []string{"ExternalArtifact/tenant-a/test-git created"},
			inputs:   map[string]string{"ExternalArtifact/tenant-a/test-git": ""}, // none
			warnings: []string{"@git/missing.yaml: inputs file not found; artifact tenant-a/test-git has no inputs"},
			upstream: []string{"loadExportedInputs fails: the reconcile fails and nothing is applied"},
		}},
	},
	{
		name:     "exported inputs on the ExternalArtifact",
		upstream: "TestArtifactGeneratorReconciler_ExportedInputs",
		spec: func(s *Spec) {
			s.Artifacts = []OutputArtifact{{Name: "test-inputs-out", InputsFrom: "@git/inputs.yaml", Copy: []CopyOperation{{From: "@git/**", To: "@artifact/"}}}}
		},
		files: map[string]string{"app.yaml": swConfigMap, "inputs.yaml": upstreamInputs},
		steps: []swStep{{
			want:   []string{"ExternalArtifact/flux-system/test-inputs-out created"},
			inputs: map[string]string{"ExternalArtifact/flux-system/test-inputs-out": `{"name":"test","nested":{"foo":"bar"},"replicas":3}`},
		}},
	},
}

// TestUpstreamInputs runs the translated tests of source-watcher's
// artifactgenerator_inputs_test.go. TestFilterNamespaceMetadata and
// TestNamespaceMetadataFromSource are translated by TestUpstreamSchema and
// TestUpstreamNamespaceMetadataFromSource (spec_test.go) and by package
// nsmeta's TestUpstreamCases.
func TestUpstreamInputs(t *testing.T) {
	t.Parallel()
	runScenarios(t, inputsScenarios)
}
