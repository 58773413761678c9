// Package jsonfit decodes a JSON value, as [Parse] reads it, into a Go value as encoding/json
// does, and says in the file's words, at each value's path, where the document does not fit
// the Go type ("spec.managedNamespaces.prune: must be a boolean, found a string"), never in
// Go's. It is the one decoder behind internal/agmanifest and inventory.Unmarshal.
//
// # Decoding
//
// [Decode] differs from encoding/json in three ways:
//
//   - a value of the wrong JSON type is a [Problem] at its path saying what it found, and
//     nothing is decoded;
//   - object keys match a field's JSON name exactly, as the API server matches them
//     (encoding/json matches in any case);
//   - a key that names no field is a Problem ("unknown field") with [RefuseUnknown], and is
//     left out before decoding with [IgnoreUnknown], as encoding/json ignores it.
//
// A null leaves its target as it is, as in encoding/json. A json.Unmarshaler takes any value;
// an encoding.TextUnmarshaler takes a string, and its error is the Problem at the path.
//
// # Bounds
//
// The caller bounds what it parses; encoding/json refuses nesting deeper than 10,000 levels,
// which bounds Decode's recursion.
//
// # Concurrency
//
// The functions of this package are pure and safe for concurrent use.
package jsonfit
