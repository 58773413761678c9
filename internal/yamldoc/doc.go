// Package yamldoc holds the checks that every YAML stream the module reads passes before it is
// decoded (aliases, documents, keys), and the wording of a stream's errors.
//
// The module decodes YAML with sigs.k8s.io/yaml over go.yaml.in/yaml/v2. These checks parse
// with go.yaml.in/yaml/v3 instead, whose node API keeps aliases as references, so that nothing
// is expanded before the bound is checked; yaml/v2 has no such API.
//
// # Alias expansion
//
// The decoders bound how many nodes aliases produce, not how many bytes, so one long string
// reused through aliases multiplies memory, time and the errors that quote it. [CheckExpansion]
// refuses expansion past [ExpansionRatio] (10) times the stream's size, or [MinExpansion] (64 KiB).
//
// # Documents
//
// The decoders read a stream's first document and silently drop the rest (sigs.k8s.io/yaml
// always, a reader splitting on "---" lines after a "..." end marker), which could be an
// inventory's entries or a namespace with prune disabled, so [Single] and [Documents] refuse
// such a stream; Documents also refuses each line that can end a document where a line-based
// reader sees none:
//
//   - a directive, any line that starts with "%" (%YAML 1.1, %TAG), which yaml/v2 takes for the
//     document's end ("a: 1\n%YAML 1.1\nb: 2\n" reads as {a: 1}), even at the head of a stream
//     or as a quoted string's continuation line (which a decoder reads as text);
//   - a line break other than "\n" and "\r\n" (a carriage return alone, NEL, LS, PS), where
//     yaml/v2 starts a new line that may be a document marker, a directive or a comment's end;
//   - a line that starts with "---#", a separator and a comment to apimachinery's YAML reader,
//     text to yaml/v2.
//
// # Keys
//
// [CheckKeys] refuses keys that differ in YAML but share a JSON key ("1" and 1), whose
// surviving value would depend on Go's map order; [Documents] runs it after [CheckExpansion].
//
// # Errors in the file's words
//
// The module's readers word every error of reading a stream through [Detail].
//
// # Concurrency
//
// The functions of this package are pure, and safe for concurrent use.
package yamldoc
