// Package pathpattern finds tenant directories in a source tree with
// capture patterns such as "@repo/tenants/{namespace}/modules/{module}",
// renders names and paths from what it captured, and reads tenant files and
// globs safely. It accepts every pattern that source-watcher's
// ArtifactGenerator .spec.pathPattern accepts and finds the same
// directories, reading only the part of the tree that can still match.
//
// # Patterns
//
// The grammar, compatible with source-watcher:
//
//	pattern  = "@" alias "/" segment { "/" segment }
//	alias    = [a-z0-9]([a-z0-9_-]*[a-z0-9])?
//	segment  = { literal | capture }          non-empty; not "." or ".."
//	capture  = "{" name "}"                   name: [A-Za-z_][A-Za-z0-9_]*, a valid label key
//	literal  = any UTF-8 except "/", "{", "}" and NUL
//
// A capture matches one path segment's worth of characters, like the
// regular expression [^/]+. Several captures in one segment match
// leftmost-first and greedy, exactly like the regular expression
// (?P<a>[^/]+)-(?P<b>[^/]+): "x-y-z" against "{a}-{b}" gives a="x-y" and
// b="z". Everything else is literal, "*" and "." included.
//
// [Parse] reports every malformed pattern as a [*SyntaxError] with the byte
// offset of the problem: a missing closing or opening brace, an empty
// capture, an invalid or duplicate capture name, a NUL byte (no file name
// holds one, so the pattern could never match), an empty segment, a
// trailing slash (source-watcher silently matches nothing there, and then
// prunes every artifact), a "." or ".." segment, a missing "@alias/", or a
// pattern longer than [MaxLength] bytes.
//
// # Discovery
//
// [Pattern.Discover] walks an [io/fs.FS] rooted at the alias and returns a
// [Match] for each matching directory, in byte-lexical path order. Only
// directories match; symbolic links are never matched or followed;
// capture segments skip names starting with "." (like shell globs). A
// literal segment costs one lookup and a capture segment one directory
// read, so discovery never reads a directory that cannot lead to a match.
// [Pattern.Match] applies the same rules to one path.
//
// Each match carries its path, the raw captured values and the normalized
// ones (ASCII-lowercased). Captures become labels, so a normalized value
// must be a valid label value; directories with a bad one are left out and
// reported, all of them, in one [*DiscoverError] that also tells them apart
// from I/O errors.
//
// flux-operator's ExternalArtifact input provider turns labels into inputs
// and overwrites "id", "name", "namespace" and "revision";
// [Pattern.Warnings] warns about captures with those names.
//
// # Templates
//
// [Pattern.Template] binds a template such as "{module}" or
// "@repo/tenants/{namespace}/namespace-metadata.yaml" to a pattern, with the
// same brace rules; naming a capture that the pattern lacks fails there,
// before any tree is read. [Template.Expand] takes the values to use:
// [Match].Normalized for names, namespaces and labels, [Match].Raw for
// paths in the source. [Render] expands an object's namespace and name
// templates over all matches and reports, as a field.ErrorList, every name
// that is not a DNS-1123 subdomain, every namespace that is not a DNS-1123
// label, and every pair of directories that render the same object.
//
// # References, globs and files
//
//	ref = "@" alias "/" rel                   rel: relative, cleaned, no "..", no NUL
//
// [ParseRef] parses references to files in a source. [Glob] selects the
// files of a copy operation with doublestar's "**" semantics, sorted,
// without following symbolic links, and applies exclude patterns.
// [ReadFile] reads a file on a tenant's behalf: it refuses symbolic links
// and irregular files and caps the size ([DefaultMaxFileSize] by default).
//
// # Bounds
//
// Every input a tenant or a spec controls is bounded: patterns and
// templates to [MaxLength] bytes (which bounds the number of segments, the
// recursion depth of discovery, and the number of captures), references to
// [MaxRefLength] bytes, globs to [MaxAlternatives] brace alternatives, and
// files to the size given to [ReadFile]. Matching a path element against a
// segment takes time linear in the length of the element times the number
// of captures and literals in the segment, with no backtracking.
//
// # Concurrency
//
// A [Pattern] and a [Template] are immutable once built and safe for
// concurrent use; so are the package functions, provided the file system
// given to them is. The tree must not change while it is read.
package pathpattern
