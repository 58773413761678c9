// Package jsonfit decodes a JSON value, as [Parse] reads it, into a Go value the way
// encoding/json does, and says in the file's words, at the path of each value, where the
// document does not fit the Go type ("spec.managedNamespaces.prune: must be a boolean, found a
// string"), never in Go's ("json: cannot unmarshal string into Go struct field ..."). It is
// the one decoder behind internal/agmanifest's strict decoding (the preview tool's files, a
// policy suite) and inventory.Unmarshal; it imports no package of the module, so that both can
// use it.
//
// # Decoding
//
// [Decode] differs from encoding/json in three ways:
//
//   - a value of the wrong JSON type is a [Problem] at its path that says what it found, and
//     nothing is decoded;
//   - object keys match a field's JSON name exactly, as the API server matches them
//     (encoding/json matches in any case);
//   - a key that names no field is a Problem ("unknown field") with [RefuseUnknown], and is
//     left out before decoding with [IgnoreUnknown], as encoding/json ignores it.
//
// A null leaves its target as it is, as encoding/json does. A type that decodes itself
// (json.Unmarshaler) takes any value; one that decodes itself from text
// (encoding.TextUnmarshaler) takes a string, and its error is the Problem at the path.
//
// # Bounds
//
// The caller bounds what it parses: Parse reads one JSON value with encoding/json, which
// refuses nesting deeper than 10,000 levels, and Decode's recursion follows the value's nesting.
//
// # Concurrency
//
// The functions of this package are pure and safe for concurrent use.
package jsonfit
