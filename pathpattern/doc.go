// Package pathpattern finds tenant directories in a source tree with
// capture patterns such as "@repo/tenants/{namespace}/modules/{module}",
// renders names and paths from what it captured, and reads tenant files and
// globs safely, reading only the part of the tree that can still match.
//
// # Patterns
//
// The grammar, compatible with source-watcher's ArtifactGenerator
// .spec.pathPattern:
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
// offset of the problem and the [Rule] it breaks: a missing closing or
// opening brace ([RuleMissingClose], [RuleMissingOpen]), an empty capture,
// an invalid or duplicate capture name, a NUL byte, invalid UTF-8, an empty
// segment, a trailing slash, a "." or ".." segment, a missing or invalid
// "@alias/", or a pattern longer than [MaxLength] characters or 4096 bytes.
// Each rule has its constant, one per rule of the grammar, so that a caller
// can tell them apart and word them its own way; the message words them
// so:
//
//	pathpattern: must not end with '/' (offset 25 in "@repo/tenants/{namespace}/")
//
// # Discovery
//
// [Pattern.Discover] walks an [io/fs.FS] rooted at the alias and returns a
// [Match] for each matching directory, in byte-lexical path order. The
// root and the pattern's fixed prefix (the literal segments before the
// first capture, "tenants" above) must be directories: one that is
// missing, a file or a symbolic link is an error wrapping [ErrSourceShape],
// so that a source moved or given one level too deep is not mistaken for a
// source without tenants. Below the prefix, an empty or missing directory
// is simply no match. Only directories match; symbolic links are never
// matched or followed; capture segments skip names starting with "." (like
// shell globs) and files. Where the pattern needs a directory and finds a
// symbolic link, or, for a literal segment, a file, that entry is a
// problem: returned as a [Match] with its Problem set and the values
// captured on the way, and reported in the field.ErrorList, so that a
// tenant directory replaced by a link is an error that keeps what it
// rendered, never a silent deletion. A literal segment costs one lookup
// and a capture segment one directory read, so discovery never reads a
// directory that cannot lead to a match. [Pattern.Match] applies the same
// rules to one path.
//
// Each match carries its path, the raw captured values and the normalized
// ones (lowercased with [strings.ToLower]). Captures become labels, so a
// normalized value must be a valid label value; directories with a bad one
// are left out and reported, all of them, as a field.ErrorList.
//
// flux-operator's ExternalArtifact input provider turns labels into inputs
// and overwrites "id", "name", "namespace" and "revision";
// [Pattern.Warnings] warns about captures with those names.
//
// # Compatibility with source-watcher
//
// source-watcher (fluxcd/source-watcher, internal/controller,
// artifactgenerator_pathpattern.go) turns the pattern into a regular
// expression, walks the whole source with filepath.WalkDir and tests every
// directory's path. On the patterns both accept, the values captured from
// a path and their lowercasing are the same, and so is the verdict on a
// value (content.IsLabelValue of the lowercased value); the length of a
// pattern is counted in characters, as the CRD's maxLength of 1024 counts
// it; neither follows symbolic links. These are the differences, each
// intended:
//
//   - Patterns that can never match are refused by [Parse]: a trailing
//     slash, an empty, "." or ".." segment, a NUL byte. source-watcher
//     accepts them, matches nothing, and prunes every artifact.
//   - A missing, non-directory or symbolic-link root or fixed prefix is an
//     error wrapping [ErrSourceShape]; source-watcher finds no match there
//     (and reports an error only for a missing root).
//   - Hidden names: a capture segment skips names starting with "." unless
//     the segment starts with a literal "."; source-watcher matches them
//     (and then fails on the value, which is not a label value).
//   - Names that are not valid UTF-8 are skipped: they cannot be [io/fs]
//     paths. source-watcher matches them and fails on the value.
//   - Bad values: source-watcher stops at the first directory whose value is
//     not a label value and fails the whole generator; Discover leaves out
//     every such directory, keeps the others, and reports all of them.
//   - Result order: byte-lexical order of the whole path ("a-c/y" before
//     "a/x"); source-watcher's is its walk's, depth first ("a/x" first).
//   - A literal segment longer than 255 bytes, which no directory can have,
//     is no match without a lookup (in the fixed prefix, a missing
//     directory); source-watcher finds no match either.
//   - Symbolic links: as in source-watcher, never matched nor followed, for
//     literal segments too, but the root given to Discover may be one
//     (source-watcher's walk would find nothing below it). A link that a
//     capture segment matches, and a link or a file at a literal segment
//     below the prefix, is a problem that Discover reports; source-watcher's
//     walk passes it by without a word, and prunes what was generated from
//     the directory it replaced.
//   - Aliases: [Parse] checks that an alias is well formed, and the caller
//     checks the alias against its sources (generator.Compile against
//     spec.sources); source-watcher fails when the alias has no source.
//   - Templates: one that names a capture the pattern lacks fails when it
//     is bound ([Pattern.Template]), before any tree is read;
//     source-watcher fails when it renders the first match.
//   - Collisions: [Render] returns both objects that render the same
//     namespace and name, marked, and reports every such pair;
//     source-watcher stops at the first.
//
// # Templates
//
// [Pattern.Template] binds a template such as "{module}" or
// "@repo/tenants/{namespace}/namespace-metadata.yaml" to a pattern, with the
// same brace rules and length limits; naming a capture that the pattern
// lacks fails there, before any tree is read. [Template.Expand] takes the
// values to use, any map[string]string: [Match].Normalized for names,
// namespaces and labels, [Match].Raw for paths in the source.
//
// # Rendering
//
// [Render] is the one renderer of objects: it expands the namespace and
// name templates of several [Output] kinds (an ArtifactGenerator's
// spec.artifacts entries) over all matches and reports, as a
// field.ErrorList at spec.artifacts[i], every name that is not a DNS-1123
// subdomain and every namespace that is not a DNS-1123 label, each with the
// value and the directory it was rendered from, and every pair of results
// that render the same namespace and name, within one output or across
// two, naming both directories and, across outputs, both entries. An
// output without a namespace template takes the namespace given to Render.
// Results come by output, then in path order, and a result whose object
// another one also renders carries that one in Rendered.Conflict, so that
// the caller builds neither.
//
// # Without a pattern
//
// source-watcher's artifacts without pathPattern are static: one per
// spec.artifacts entry, with a literal name and namespace, checked as an
// object name and a namespace, and literal references. Bind such templates
// to a nil [*Pattern]: a template without a pattern has no capture to name,
// so any capture in it is an error ([RuleUnknownCapture]), and it expands
// to itself. [Render] of one empty [Match] (no directory) renders each
// output once, with errors that name the entry instead of a directory:
//
//	var none *pathpattern.Pattern
//	name, err := none.Template("platform")
//	out, errs := pathpattern.Render([]pathpattern.Match{{}}, outputs, "flux-system", field.NewPath("spec", "artifacts"))
//
// # References, globs and files
//
//	ref = "@" alias "/" rel                   rel: relative, cleaned, no "..", no NUL
//
// [ParseRef] parses references to files in a source. [Glob] selects the
// files of a copy operation with doublestar's "**" semantics, sorted,
// without following symbolic links, applies exclude patterns, and stops
// when its context is done. It takes regular files only: [GlobSkipped]
// also lists, sorted, the symbolic links and irregular files (named
// pipes, sockets, devices) that the copy leaves out, so that a caller
// can warn about each. Flux leaves the same entries out, without a
// word: source-controller archives only the regular files and
// directories of a checkout, so the source that source-watcher copies
// from holds none. [ReadFile] reads a file on a tenant's behalf:
// it refuses symbolic links and irregular files and caps the size
// (1 MiB by default).
//
// # Bounds
//
// Every input a tenant or a spec controls is bounded:
//
//   - patterns and templates: [MaxLength] (1024) characters, as the CRD
//     counts, and 4096 bytes, the most that 1024 characters take in UTF-8,
//     checked first, so that refusing a huge input costs nothing. The
//     length bounds the number of segments, the recursion depth of
//     discovery, and the number of captures. Matching a path element
//     against a segment takes time linear in the length of the element
//     times the number of captures and literals in the segment, with no
//     backtracking.
//   - references: 4096 bytes, Linux's PATH_MAX, beyond which no file can
//     be opened anyway; a reference is often a template expanded with
//     directory names, so it may be longer than a pattern.
//   - globs: 4096 bytes, like a reference; 64 brace alternatives, since
//     each alternative is a walk of its own and a few braces multiply
//     quickly ("{a,b}" ten times is 1024). Each call does at most 1,000,000
//     units of work (every directory entry read counts one, every lookup
//     of a path one per element) and looks at most 256 path elements deep,
//     or fails with [ErrTooLarge]: several "**" in one pattern walk the same
//     directories again for every way of splitting a path between them, so
//     without a bound a deep tree would make a glob run for hours. A "**"
//     over 1,000 tenants of three modules of five files takes 50,000 units;
//     a million is twice what one over 10,000 tenants takes.
//   - files: the size given to [ReadFile].
//
// # Errors
//
// One sentinel per failure a caller acts on differently: [ErrSyntax] (fix
// the spec), [ErrMissingValue] (captures from another pattern),
// [ErrSourceShape] (the source is not laid out as the pattern needs: delete
// nothing), [ErrNotRegular] and [ErrTooLarge] (refuse the tenant's file or
// copy). Directory problems that map onto the spec come as a
// field.ErrorList.
//
// # Concurrency
//
// A [Pattern] and a [Template] are immutable once built and safe for
// concurrent use; so are the package functions, provided the file system
// given to them is. The tree must not change while it is read.
package pathpattern
