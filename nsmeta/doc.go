// Package nsmeta builds the labels and annotations of the namespaces that a
// tenant-provisioning controller (Flux's source-watcher ArtifactGenerator,
// flux-operator's ResourceSet) creates: it parses the NamespaceMetadata file
// a tenant keeps in the monorepo, filters it through the platform's schema
// of CEL rules, combines it with the platform's metadata in a fixed
// pipeline, checks namespace names against a policy, and digests the
// result for the inventory as source-watcher does.
//
// It does no Kubernetes I/O. A controller compiles the platform's policy
// once, when the spec changes, then calls it once per namespace:
//
//	schema, errs := nsmeta.CompileSchema(allowedLabels, allowedAnnotations, fromSourcePath)
//	names, errs := nsmeta.NewNamePolicy(allowedNames, managedNamespacesPath)
//	pipeline := nsmeta.Pipeline{Common: common, Operations: from, Final: ownership}
//	errs = pipeline.Validate(commonMetadataPath, fromPath, ownershipPath)
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
// [ParseFile] reads it as source-watcher v2.3's published schema says
// (docs/namespacemetadata-v1beta1.json), stricter than source-watcher's Go
// type decoded with sigs.k8s.io/yaml, which takes a file without type fields,
// ignores unknown fields, matches field names case-insensitively, keeps the
// last of a repeated key, and reads an unquoted number or boolean value as
// its text and an empty file as asking for nothing
// (TestParseFileAsUpstreamType). The Go type reads a file ParseFile accepts
// the same. ParseFile also refuses a key or value the API server would
// refuse (the Go type takes it, and applying the namespace fails), and a file
// the Go type silently reads fewer keys from: more than one document, one
// behind an empty document or a %YAML directive, a line break other than a
// newline (package internal/yamldoc). A missing file is the caller's to report.
//
// # Schema
//
// The platform's allowedLabels and allowedAnnotations map a key to a rule,
// as source-watcher v2.3's do: a boolean CEL expression over the string
// variable "value", within the bounds of package cel, that [CompileSchema]
// compiles once, as source-watcher does when a reconcile starts:
//
//	team: 'value in ["payments", "search"]'
//	my.org.io/cost-center: 'value.matches("^cc-[0-9]{4}$")'
//
// Where [Schema.Apply] differs from source-watcher:
//
//   - an unlisted key (every key, when the map is empty or absent) is dropped
//     with a warning (source-watcher ignores it silently), or is an error
//     under [WithStrict];
//   - a value that fails its rule fails that namespace only, at its key (the
//     released API says only that the key is rejected);
//   - a key that is not a valid label or annotation key is an error of the
//     spec (the released API's validation markers do not check keys);
//   - the rules of one file share a budget of CEL cost (see Bounds).
//
// # Pipeline
//
// [Pipeline.Resolve] builds the metadata of one namespace in four steps,
// each applied over the result of the previous one, once [Pipeline.Validate]
// has checked them:
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
// The result records per key the step that last set it (the names on the
// left), and never carries the externalFinalizer annotation.
//
// # Name policy
//
// spec.managedNamespaces.allowedNames is a non-empty list of CEL expressions
// over the string variable "ns" ([NewNamePolicy], [NamePolicy.Check]). The
// protected names are default, flux-system, kube-node-lease, kube-public and
// kube-system ([WithoutDefaultProtectedNames] drops them), and those of
// [WithProtectedNames]. This is stricter than released source-watcher v2.3,
// which always refuses the same but kube-node-lease (the nodes' heartbeat
// Leases): it manages that one when an expression allows it, and may delete
// it under prune (TestProtectedNamesAsUpstream shows both).
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
// are their bytes, nothing escaped. The vectors in
// testdata/digest-vectors.json pin the definition for other implementations.
//
// # Bounds
//
// Everything a tenant controls is bounded:
//
//   - a file holds at most 1 MiB, checked before parsing (a real file is a
//     few hundred bytes; annotations alone hold at most 256 KiB);
//   - YAML nesting deeper than 10,000 levels is an error;
//   - YAML aliases may expand a file to at most 10 times its size (64 KiB
//     for a smaller file), checked in linear time and memory before decoding,
//     as the decoder bounds only the nodes they produce (TestParseFileExpansion);
//   - an error shows at most the first 64 bytes of a value, and its length;
//   - annotations hold at most 256 KiB together, label values 63 characters;
//   - CEL rules are bounded by package cel (5 KiB per expression, a
//     runtime cost limit of 1,000,000 per evaluation), and the name a rule
//     sees is at most 63 characters, checked before any rule runs;
//   - the rules that [Schema.Apply] evaluates for one file share a budget of
//     100,000 units of CEL cost, charged as Apply says.
//
// The budget keeps a plan of many hostile tenants short (generator's
// BenchmarkHostileTenants): without it a hostile file's CPU time grows with
// its keys. It is counted, not timed, so a file that runs out fails at the
// same key on every machine, never losing a key silently; one evaluation
// does at most one and a half times it (cel refuses a call charged over half
// its limit), and a realistic file spends at most a tenth
// (TestSchemaApplyBudget). It is a hundredth of Kubernetes'
// RuntimeCELCostBudget for one object, as a controller checks thousands of
// files per reconcile.
//
// # Errors
//
// Problems that map onto the fields of an object come as a sorted
// field.ErrorList, nil when there is none, at the caller's field path or,
// for a tenant's file, rooted at the document (metadata.labels[team]). Other
// failures wrap a sentinel of errors.go, listed by each function.
//
// # Concurrency
//
// Schema and NamePolicy are immutable and safe for concurrent use by
// multiple goroutines; so is a Pipeline whose maps and slices nobody
// modifies (Validate and Resolve never do). ParseFile, Metadata.Validate and
// Digest are pure functions.
package nsmeta
