// Package yamldoc tells whether a YAML stream holds more than one document.
//
// The YAML decoders the module builds on read the first document of a
// stream and silently drop the rest: sigs.k8s.io/yaml always, and a
// reader that splits a stream on "---" lines when a piece holds a "..."
// end marker followed by another document. What they drop could be an
// inventory's entries, or a namespace with prune disabled, so the module's
// readers refuse such a stream, through [Single].
package yamldoc
