// Package simpleyaml reads the usual shape of a small YAML file without a
// YAML decoder, and tells the caller when the file has another shape, so
// that the caller decodes it as before:
//
//	replicas: 2
//	dependsOn: []
//	image:
//	  repository: ghcr.io/example/payments-api # a comment
//	  tag: "1.8.2"
//
// Tenants' inputs files and NamespaceMetadata files are nearly always of
// this shape, and a plan reads one of them per artifact and per namespace:
// go.yaml.in/yaml/v2 takes 7 to 8 µs for a 100- or 200-byte file, [Parse]
// and building its result 0.7 to 1.5 µs (BenchmarkParse).
//
// # Exact on what it accepts
//
// Parse accepts a file only where its result is, exactly, what the
// module's decoders make of it: [Node.Any] is what go.yaml.in/yaml/v2
// decodes into an interface value, [Node.AppendJSON] what
// sigs.k8s.io/yaml's YAMLToJSON writes, byte for byte. Everything else,
// including every file those decoders refuse, is left to them, and they
// give the errors. FuzzParse and TestParseGenerated check both results
// against the decoders on every file Parse accepts.
//
// It accepts printable ASCII, in lines indented with spaces:
//
//   - a mapping at the top, with at least one key;
//   - keys of ASCII letters, digits and "_-./", starting with a letter, not
//     one of YAML 1.1's boolean or null words, each once in its mapping;
//   - a nested mapping, indented more than its key, or a sequence of
//     scalars ("- " items), indented at least as much;
//   - scalars: "[]" and "{}"; quoted strings without escapes or the
//     characters that JSON writes escaped ("<>&"); decimal integers of at
//     most 18 digits without a leading zero; the words that YAML 1.1 reads
//     as booleans or null (true, yes, on, null and their other spellings,
//     but not "~"); and plain strings of letters, digits, spaces and
//     "_-./:@" that start with a letter and hold no ": ";
//   - comment lines, blank lines and comments after a value;
//
// nesting at most [MaxDepth] mappings deep, and not both "&" and "*" (a file
// that yamldoc.CheckExpansion parses). It refuses the rest: a document
// marker or directive, an anchor, alias, tag or block scalar, a flow
// collection that is not empty, a float, a timestamp, a key without a
// value, a string that needs an escape.
//
// # Concurrency
//
// Parse is a pure function, safe for concurrent use.
package simpleyaml
