// Package exportedinputs is the one definition of an ExternalArtifact's status.exportedInputs,
// for its writer and its reader, so that they agree by construction: generator's inputsFrom
// decodes every inputs file's JSON with [Decode] before it exports it, and
// generator.ReadExportedInputs, which a ResourceSetInputProvider embeds, is Decode too.
//
// # Syntax
//
// status.exportedInputs is one JSON object (RFC 8259) of input names to values, as
// source-controller's CRD keeps it and the seed proposal's generator writes it:
//
//	inputs = ws ( "{" [ member { "," member } ] "}" | "null" | "" ) ws
//	member = ws string ws ":" ws value ws   ; each name once in its object
//	value  = any JSON value                  ; its objects' names once each too
//
// An absent, empty or null value is no inputs. Any name is allowed, the empty one too.
//
// # Bounds
//
// Each rule bounds what the status's writer (or a tenant's inputs file) can make a reader hold:
//
//   - At most [MaxBytes] (1 MiB) of JSON as [Encode] writes it: etcd stores no object above
//     1.5 MiB by default, and the inputs file's YAML can grow as JSON (quoted keys, aliases).
//   - Nested at most [MaxDepth] (10,000) deep, the object itself counting one: encoding/json's
//     own limit, which the writer's decoder applies.
//   - Each name at most once in its object, at every depth: Go's decoder would keep the last.
//   - Valid UTF-8, as RFC 8259 requires: Go's decoder would replace a bad byte silently.
//
// Values are kept as compact JSON text, never decoded into Go values, so that a number keeps
// every digit and a value reads back byte for byte as the writer wrote it.
//
// # Errors
//
// Errors are lower case, name the input (the top-level name) and the offset in the text where
// the rule broke, and quote at most the first 64 bytes of a name.
//
// # Concurrency
//
// The functions are pure, and safe for concurrent use.
package exportedinputs
