// Package agmanifest reads the ArtifactGenerator manifests that the preview tool (examples/plan
// -generator) and the policy tests (generatortest, a suite's generator:) plan with, so that
// both accept and refuse the same files in the same words. It also holds the strict decoder
// both use for other files (the tool's -inventory, a suite), naming every field that does not fit.
//
// # Manifests
//
// [Decode] reads one YAML or JSON document:
//
//	manifest = generator | list
//	generator = {apiVersion: source.extensions.fluxcd.io/v1beta1,
//	             kind: ArtifactGenerator, metadata: {...}, spec: {...}, status: ANY}
//	list      = {apiVersion: ANY, kind: List | ArtifactGeneratorList,
//	             metadata: ANY, items: [generator]}          exactly one item
//
// That is a manifest as written or as kubectl get artifactgenerator [NAME] -o yaml prints it,
// read into [Manifest] with the spec as the caller's type (generator.Spec), so that this
// package imports no tenantkit package above it.
//
// # Strict decoding
//
// [Unmarshal] and [Strict] decode as internal/jsonfit does with its RefuseUnknown: a key that
// names no field is an error ("spec.artifacts[0].copy[0].frm: unknown field"), names match
// exactly, and a value of the wrong type says what it found. Every problem is reported,
// sorted by path, the first ten named.
//
// # Bounds
//
// A document passes internal/yamldoc's checks first; the YAML decoder bounds nesting (10,000
// levels); the caller bounds the size of what it reads.
//
// # Errors
//
// Every error is an [*Error] wrapping a sentinel, its message in the file's words, never Go's.
//
// # Concurrency
//
// The functions of this package are pure and safe for concurrent use.
package agmanifest
