// Package agmanifest reads the ArtifactGenerator manifests that the preview tool
// (examples/plan, -generator) and the policy tests (generator/generatortest, a suite's
// generator:) plan with, so that both accept the same files and refuse them in the same words.
// It also holds the strict decoder both use for their other files (the tool's -inventory, a
// suite), which names the path of every field that does not fit.
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
// That is a manifest as written, or as kubectl get artifactgenerator NAME -o yaml prints it,
// or, without a name, the List kubectl prints holding exactly one. The metadata the API server
// sets ([ServerSetMetadata]) and the whole status are ignored. Everything else is decoded
// strictly into [Manifest]: the spec into the caller's type, generator.Spec, so that this
// package imports no tenantkit package above it.
//
// # Strict decoding
//
// [Unmarshal] and [Strict] decode into any Go value as encoding/json does, with three
// differences: an object key that names no field of a struct is an error
// ("spec.artifacts[0].copy[0].frm: unknown field"), names match exactly (as the API server
// matches them; encoding/json matches in any case), and a value of the wrong type is an error
// that says what it found ("spec.managedNamespaces.prune: must be a boolean, found a string").
// Every problem is reported, sorted by path, the first ten named in the message. A
// json.Unmarshaler takes any value; an encoding.TextUnmarshaler takes a string, its error
// reported at the path. The decoder is internal/jsonfit's, which inventory.Unmarshal uses too,
// there ignoring unknown fields.
//
// # Bounds
//
// A document passes the module's YAML checks first (internal/yamldoc): aliases bounded, one
// document, no directive or stray line break, keys that stay distinct as JSON keys. The YAML
// decoder bounds nesting (10,000 levels); the caller bounds the size of what it reads.
//
// # Errors
//
// Every error is an [*Error] wrapping [ErrSyntax], [ErrNotGenerator] or [ErrFields]; its
// message is in the words of the file, never of Go, without the package name, so that a tool
// prints it as it is.
//
// # Concurrency
//
// The functions of this package are pure and safe for concurrent use.
package agmanifest
