// Package pathpattern finds tenant directories in a source tree with capture patterns such
// as "@repo/tenants/{namespace}/modules/{module}", expands name and path templates from
// the captures, and reads tenant files and globs safely, reading only what can still match.
//
// # Patterns
//
// The grammar, compatible with source-watcher's .spec.pathPattern:
//
//	pattern  = "@" alias "/" segment { "/" segment }
//	alias    = [a-z0-9]([a-z0-9_-]*[a-z0-9])?
//	segment  = { literal | capture }          non-empty; not "." or ".."
//	capture  = "{" name "}"                   name: [A-Za-z_][A-Za-z0-9_]*, a valid label key
//	literal  = any UTF-8 except "/", "{", "}" and NUL
//
// Captures match like the regular expression [^/]+, leftmost-first and greedy: "x-y-z"
// against "{a}-{b}" gives a="x-y" and b="z". Everything else is literal, "*" and "."
// included. [Parse] reports a malformed pattern as a [*SyntaxError] with the byte offset
// and the rule it breaks ([SyntaxError.Rule]):
//
//	pathpattern: must not end with '/' (offset 25 in "@repo/tenants/{namespace}/")
//
// [Pattern.Discover] returns a [Match] per matching directory of an [io/fs.FS], in
// byte-lexical path order, and follows no symbolic link: a link or file where a directory
// should be is a problem, never a silent deletion. [Pattern.Match] tests one path.
//
// # Compatibility with source-watcher
//
// source-watcher (artifactgenerator_pathpattern.go) matches each directory filepath.WalkDir
// finds against a regular expression. On patterns both accept, the captured values, their
// lowercasing, content.IsLabelValue and the length in characters agree, and neither
// follows symbolic links. The differences, each intended:
//
//   - Patterns that can never match are refused by [Parse]: a trailing slash, an empty,
//     "." or ".." segment, a NUL byte; source-watcher matches nothing and prunes every artifact.
//   - A missing, non-directory or symbolic-link root or fixed prefix is an error wrapping
//     [ErrSourceShape]; source-watcher finds no match (an error only for a missing root).
//   - Hidden names: a capture segment skips names starting with "." (unless it starts with
//     a literal ".") and names that are not valid UTF-8; source-watcher matches them and
//     fails on the value.
//   - Bad values: source-watcher fails the whole generator at the first value that is not
//     a label value; Discover leaves out every such directory, keeps the others, and
//     reports all of them.
//   - Result order: byte-lexical order of the whole path ("a-c/y" before "a/x");
//     source-watcher's is its walk's, depth first.
//   - Symbolic links: one that a capture segment matches, or a link or file at a literal
//     segment below the prefix, is a problem Discover reports; source-watcher prunes what
//     the directory it replaced generated. The root may be a link (source-watcher's walk
//     finds nothing below one).
//   - Aliases: [Parse] checks their form and the caller checks the alias against its
//     sources; source-watcher fails when it has no source.
//   - Templates: one naming a capture the pattern lacks fails when bound
//     ([Pattern.Template]); source-watcher fails at the first match.
//
// A literal segment over 255 bytes is no match in both, here without a lookup. Rendering
// and checking names from the captures, and its differences, belong to package generator.
//
// # Templates, references, globs and files
//
// [Pattern.Template] binds a template such as "{module}" to a pattern, and
// [Template.Expand] expands it from a [Match]'s captures; bound to a nil [*Pattern] (a
// static artifact), a template is a literal:
//
//	var none *pathpattern.Pattern
//	name, err := none.Template("platform")
//
//	ref = "@" alias "/" rel                   rel: relative, cleaned, no "..", no NUL
//
// [ParseRef] parses references to files in a source, [Glob] selects the regular files of a
// copy with doublestar's "**" and names what it leaves out, and [ReadFile] reads a tenant's
// file, size capped; none follows a symbolic link.
//
// # Bounds
//
// Every input a tenant or a spec controls is bounded:
//
//   - patterns and templates: 1024 characters, as the CRD counts, and 4096 bytes;
//     the length bounds the segments, the depth of discovery and the captures, and
//     matching is linear, with no backtracking.
//   - references and globs: 4096 bytes, Linux's PATH_MAX.
//   - globs: 64 brace alternatives, each a walk of its own; 1,000,000 units of work and 256
//     elements deep ([ErrTooLarge]), since several "**" walk a deep tree again for every
//     way of splitting a path.
//   - files: the size given to [ReadFile] (1 MiB by default).
//
// # Errors
//
// One sentinel per failure a caller acts on differently: [ErrSyntax] (fix the spec),
// [ErrMissingValue] (captures from another pattern), [ErrSourceShape] (delete nothing),
// [ErrNotRegular] and [ErrTooLarge] (refuse the tenant's file or copy). Directory problems
// that map onto the spec come as a field.ErrorList.
//
// # Concurrency
//
// A [Pattern] and a [Template] are immutable and safe for concurrent use; so are the
// package functions when their file system is. The tree must not change while it is read.
package pathpattern
