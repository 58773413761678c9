// Package nsmeta builds the labels and annotations of the namespaces that a
// tenant-provisioning controller (Flux's source-watcher ArtifactGenerator,
// flux-operator's ResourceSet) creates: it parses the NamespaceMetadata file
// a tenant keeps in the monorepo, filters it through the platform's schema
// of CEL rules, combines it with the platform's metadata in a fixed
// pipeline, checks namespace names against a policy, and digests the
// result for the inventory as source-watcher does.
//
// It does no Kubernetes I/O. A controller compiles the platform's policy
// once, when the spec changes, each part validated once and reporting its
// problems at the spec's field paths:
//
//	schema, errs := nsmeta.CompileSchema(allowedLabels, allowedAnnotations, fromSourcePath)
//	names, errs := nsmeta.NewNamePolicy(allowedNames, managedNamespacesPath)
//	pipeline := nsmeta.Pipeline{Common: common, Operations: from, Final: ownership}
//	errs = pipeline.Validate(commonMetadataPath, fromPath, ownershipPath)
//
// and then calls it once per namespace:
//
//	fromFile, errs, err := nsmeta.ParseFile(data)   // the tenant's file, if any
//	kept, warnings, errs := schema.Apply(ctx, fromFile)
//	err = names.Check(ctx, "tenant-a")
//	r, errs := pipeline.Resolve("tenant-a", kept)   // r.Labels, r.Annotations, r.Origin
//	d := nsmeta.Digest(r.Metadata)                  // the inventory digest
//
// # NamespaceMetadata files
//
// A tenant asks for namespace metadata with a file in the source artifact:
//
//	apiVersion: source.extensions.fluxcd.io/v1beta1   # required, exactly
//	kind: NamespaceMetadata                            # required, exactly
//	metadata:                                          # optional
//	  labels:                                          # optional, string: string
//	    team: payments
//	  annotations:                                     # optional, string: string
//	    my.org.io/observability: Enabled
//
// [ParseFile] reads it as the schema that source-watcher v2.3 publishes for
// it says (docs/namespacemetadata-v1beta1.json): the type fields are
// required, no other field is allowed at the top level or under metadata
// (a typo such as metadata.lables is an error that names it), and label
// and annotation values must be YAML strings (tier: 1 is an error at
// metadata.labels[tier]: quote it). Keys and values follow Kubernetes'
// label and annotation rules, and a key that is a number or a boolean is
// its text (7: seven is the label "7"). An empty file, or one of comments
// only, is an error for its missing type fields, not a file that asks for
// nothing: one error at apiVersion says the file is empty and what it
// needs.
//
// Where ParseFile differs from decoding the file into source-watcher's Go
// type (v1beta1.NamespaceMetadata) with sigs.k8s.io/yaml, without the
// schema: the Go type reads more files, and reads them differently. It
// takes a file without type fields, ignores unknown fields, matches field
// names case-insensitively (Metadata:, LABELS:), keeps the last value of a
// repeated key, reads an unquoted number or boolean value as its text
// (tier: 1 is "1", enabled: yes is "true"), and reads an empty file as
// asking for nothing; ParseFile refuses each of these
// (TestParseFileAsUpstreamType lists them, with what the Go type reads).
// A file ParseFile accepts, the Go type reads the same. Beyond the schema,
// ParseFile also refuses a file over 1 MiB, aliases that expand the file
// too far, a key or value that the API server would refuse (the Go type
// takes it, and applying the namespace fails later), and a file that YAML
// decoders read differently from what it says, where the Go type silently
// gets fewer keys: more than one document (it reads the first), a
// document hidden behind an empty one (it reads nothing from
// "---\n---\nmetadata: ..."), a directive line such as %YAML 1.1 (it
// reads nothing after one), and a line break other than a newline
// (package internal/yamldoc). A missing file is the caller's to report.
//
// # Schema
//
// The platform's allowedLabels and allowedAnnotations map a key to a rule
// for its value, as source-watcher v2.3's do: a CEL expression over the
// string variable "value" that returns a bool, evaluated within the bounds
// of package github.com/tenantkit/tenantkit/cel (see that package for the
// environment):
//
//	team: 'value in ["payments", "search"]'
//	my.org.io/cost-center: 'value.matches("^cc-[0-9]{4}$")'
//
// A listed key whose value fails its rule, or whose rule fails to
// evaluate, is an error naming the key, the value and the rule; an
// unlisted key is dropped, as source-watcher ignores it, with a warning,
// or is an error under [WithStrict]; an empty or absent map drops every
// key of its kind. Every rule is compiled when the schema is, as
// source-watcher compiles them when a reconcile starts, so a rule that
// does not compile or does not return a bool is an error of the spec. See
// [CompileSchema] and [Schema.Apply].
//
// Where the schema differs from source-watcher's:
//
//   - an unlisted key is dropped with a warning (source-watcher ignores
//     it silently), or is an error under WithStrict;
//   - a value that fails its rule fails that namespace only, reported at
//     its key (the released API says only that the key is rejected; the
//     controller code of source-watcher's development history failed the
//     whole reconcile);
//   - a key that is not a valid label or annotation key is an error of the
//     spec (the released API's validation markers do not check keys);
//   - the rules of one file share a budget of CEL cost (see Bounds), so a
//     file whose values cost more to check than it allows fails, at the
//     key where the budget ran out.
//
// # Options
//
// One [Option] type serves the three functions that take options:
// [WithCache] (CompileSchema, NewNamePolicy; ParseFile ignores it),
// [WithStrict] (CompileSchema), [WithProtectedNames] and
// [WithoutDefaultProtectedNames] (NewNamePolicy). An option given to a
// function it does not apply to is an error at its name; none applies to
// ParseFile, which has one reading.
//
// # Pipeline
//
// A [Pipeline] holds the steps; [Pipeline.Validate] checks them once, each
// under the field path the caller gives it; [Pipeline.Resolve] then builds
// the metadata of one namespace in four steps, each applied over the result
// of the previous one:
//
//	common     spec.commonMetadata
//	source     the tenant's file, after the schema, overriding
//	from[i]    each operation of spec.managedNamespaces.metadata.from, in order,
//	           whose namespace is the one being resolved or "*":
//	             Reset     replace all labels and annotations with the operation's own
//	             Override  set the operation's keys over existing ones
//	             Merge     add only the operation's keys that are absent
//	final      the caller's own metadata (ownership labels), which nothing overrides
//
// The result records, per key, the step that last set it (the names on the
// left), so that a platform team can see why a namespace carries a label. The
// result must not carry a non-empty source.extensions.fluxcd.io/externalFinalizer
// annotation: that key belongs to the external finalizer, and a generator
// that set it in its own desired state could hand a namespace off to itself.
//
// # Name policy
//
// spec.managedNamespaces.allowedNames is a non-empty list of CEL expressions
// over the string variable "ns"; a name is allowed when it is a DNS-1123
// label, is not protected, and at least one expression returns true. See
// [NewNamePolicy].
//
// The protected names are default, flux-system, kube-node-lease,
// kube-public and kube-system, and what the caller adds with
// [WithProtectedNames], typically the generator's own namespace. Released
// source-watcher v2.3 always refuses default, flux-system, kube-public and
// kube-system, whatever its expressions and whatever the generator's own
// namespace; tenantkit refuses those too and, stricter, kube-node-lease,
// which holds the nodes' heartbeat Leases: source-watcher manages it when
// an expression allows it, and may delete it under prune
// (TestProtectedNamesAsUpstream shows both). [WithoutDefaultProtectedNames]
// drops the five, for a caller that lists its own.
//
// # Digest
//
// [Digest] is source-watcher v2.3's digest of a managed namespace's
// metadata, byte for byte, so that an inventory that source-watcher wrote
// reads back as unchanged: the SHA-256 of
//
//	digested = [ entry { "|" entry } ]      entries sorted in byte order
//	entry    = "label:" key "=" value       one per label
//	         | "annotation:" key "=" value  one per annotation
//
// written "sha256:" followed by 64 lower-case hex digits. Keys and values
// are their bytes, nothing escaped. The empty Metadata digests the empty
// string, sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855.
// Since "=", "|" and ":" may occur in keys and values, two different
// Metadata can share a digest (the label a="b|label:c=d" and the labels
// a="b", c="d"): a digest that changed says the metadata changed, one that
// did not proves nothing, and package generator compares live metadata with
// the desired one to find drift. The vectors in testdata/digest-vectors.json
// pin the definition for other implementations.
//
// # Bounds
//
// Everything a tenant controls is bounded:
//
//   - a NamespaceMetadata file holds at most 1 MiB, checked before parsing:
//     a real file is a few hundred bytes, and annotations alone may hold at
//     most 256 KiB;
//   - YAML nesting deeper than 10,000 levels is an error;
//   - YAML aliases may expand a file to at most 10 times its size (64 KiB
//     for a smaller file), checked in time and memory linear in its size
//     before it is decoded (package internal/yamldoc): the decoder itself
//     bounds only how many nodes aliases produce, and one long string
//     reused through aliases made a small file slow to decode and its
//     error huge (issue 18; TestParseFileExpansion);
//   - an error shows at most the first 64 bytes of a value, and its length;
//   - annotations hold at most 256 KiB together, label values 63 characters;
//   - CEL rules are bounded by package cel (5 KiB per expression, a
//     runtime cost limit of 1,000,000 per evaluation), and the name a rule
//     sees is at most 63 characters, checked before any rule runs;
//   - the rules that Schema.Apply evaluates for one file share a budget of
//     100,000 units of CEL cost (below).
//
// The budget of a file is what keeps a plan of many hostile tenants short.
// One evaluation may run up to cel's cost limit, and a file holds as many
// values as the schema has keys, so without a budget the CPU time of a
// hostile file grows with its keys (cel's BenchmarkHostilePlan shows one
// evaluation at the limit). Under the budget, Apply charges the keys
// of a file one after another, labels then annotations, each in sorted
// order; each rule runs with the smaller of cel's cost limit and what the
// keys before it left, and its cost is taken from what is left. A rule
// that does not finish within that fails to evaluate: an error at its key
// naming the rule, the value's size, the budget and what was left of it,
// and every later key whose rule costs anything fails alike, so a file
// that runs out of budget always fails, never loses a key silently. The
// budget is counted, not timed: the same file fails at the same key on
// every machine, whatever its load. No one evaluation on a tenant's value
// does more than one and a half times the budget of its file (cel refuses
// a call charged over half an evaluation's limit; cel's
// BenchmarkRuntimePatterns, worst cases at 100000). What a spent budget costs in time is
// set by the slowest work cel charges per unit (comprehension steps; cel's
// BenchmarkBuiltins), and what a plan of tenants that are all hostile
// costs by the budget, not by their files (BenchmarkHostileTenants in
// package generator; docs/performance.md has the figures). A realistic
// file of two or three dozen keys with short values spends at most a
// tenth of the budget (TestSchemaApplyBudget).
//
// The budget follows Kubernetes' runtime cost budget of an object
// (RuntimeCELCostBudget, 10,000,000 units, which the validation rules of
// one custom resource share), and departs from it: it is a hundred times
// smaller, since a controller checks thousands of files in one
// reconcile where the API server checks one object per request; each
// evaluation runs with the smaller of the per-call limit and what is left,
// where Kubernetes runs each rule with the whole per-call limit and stops
// after it once the budget is overdrawn (an object may spend the budget
// plus a call); and every key after the budget ran out is an error of its
// own, where Kubernetes reports once and runs no further rule.
//
// # Errors
//
// Problems that map onto the fields of an object come as a sorted
// field.ErrorList, nil when there is none, with paths under the caller's
// field path (spec.managedNamespaces.allowedNames[0]) or, for a tenant's
// file, rooted at the document (metadata.labels[team]); aggregate them with
// ToAggregate. ParseFile refuses data that is not a NamespaceMetadata file
// at all with a [*FileError] wrapping [ErrInvalidFile], whose Detail says
// why in the file's words, without the YAML decoder's ("must be valid
// YAML: line 3: did not find expected node content"); NamePolicy.Check refuses
// a name with an error wrapping [ErrInvalidName], [ErrProtectedName] or
// [ErrNameNotAllowed], with the reasons.
//
// # Concurrency
//
// Schema and NamePolicy are immutable and safe for concurrent use by
// multiple goroutines; so is a Pipeline whose maps and slices nobody
// modifies (Validate and Resolve never do). ParseFile, Metadata.Validate and
// Digest are pure functions.
package nsmeta
