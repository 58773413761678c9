// Package nsmeta builds the labels and annotations of the namespaces that a tenant-provisioning
// controller (Flux's source-watcher ArtifactGenerator, flux-operator's ResourceSet) creates: it
// parses a tenant's NamespaceMetadata file, filters it through the platform's schema of CEL rules,
// combines it with the platform's metadata in a fixed pipeline, checks namespace names against a
// policy, and digests the result for the inventory as source-watcher does.
//
// It does no Kubernetes I/O. A controller compiles the platform's policy once, when the spec
// changes, then calls it once per namespace:
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
// [ParseFile] reads it as source-watcher v2.3's published schema says, stricter than
// source-watcher's Go type decoded with sigs.k8s.io/yaml, which takes a file without type fields,
// ignores unknown fields, matches field names case-insensitively, keeps the last of a repeated
// key, and reads an unquoted number or boolean value as its text and an empty file as asking for
// nothing (TestParseFileAsUpstreamType), but reads a file ParseFile accepts the same. ParseFile
// also refuses a key or value the API server would refuse (applying the namespace would fail), and
// a file the Go type silently reads fewer keys from (more than one document, one behind an empty
// document or a %YAML directive, a line break other than a newline). A missing file is the
// caller's to report.
//
// # Schema
//
// The platform's allowedLabels and allowedAnnotations map a key to a rule, as source-watcher
// v2.3's do: a boolean CEL expression over the string variable "value", which [CompileSchema]
// compiles once, as source-watcher does when a reconcile starts:
//
//	team: 'value in ["payments", "search"]'
//	my.org.io/cost-center: 'value.matches("^cc-[0-9]{4}$")'
//
// Where [Schema.Apply] differs from source-watcher:
//
//   - an unlisted key (every key, when the map is empty or absent) is dropped with a warning
//     (source-watcher ignores it silently), or is an error under [WithStrict];
//   - a value that fails its rule fails that namespace only, at its key (the released API says
//     only that the key is rejected);
//   - a key that is not a valid label or annotation key is an error of the spec (the released
//     API's validation markers do not check keys);
//   - the rules of one file share a budget of CEL cost (see Bounds).
//
// And [CompileSchema] refuses, at its key, a rule whose pattern of matches is not a string
// literal ('x'.matches(value), which source-watcher compiles): a tenant's value is never the
// regular expression that checks it (package cel's Bounds; TestHostileCompileSchema).
//
// # Pipeline
//
// [Pipeline.Resolve] builds the metadata of one namespace in four steps, each over the result of
// the previous one, once [Pipeline.Validate] has checked them:
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
// The result records per key the step that last set it (the names on the left), and never carries
// the externalFinalizer annotation.
//
// # Name policy
//
// spec.managedNamespaces.allowedNames is a non-empty list of CEL expressions over the string
// variable "ns" ([NewNamePolicy]). The protected names are always default, flux-system,
// kube-node-lease, kube-public and kube-system, and also those of [WithProtectedNames]. That
// is stricter than released source-watcher v2.3, which protects the same but kube-node-lease
// (the nodes' heartbeat Leases): it manages that one when an expression allows it, and may
// delete it under prune (TestProtectedNamesAsUpstream shows both).
//
// # Digest
//
// [Digest] is source-watcher v2.3's digest of a managed namespace's metadata, byte for byte, so
// that an inventory that source-watcher wrote reads back as unchanged: the SHA-256 of
//
//	digested = [ entry { "|" entry } ]      entries sorted in byte order
//	entry    = "label:" key "=" value       one per label
//	         | "annotation:" key "=" value  one per annotation
//
// written "sha256:" and 64 lower-case hex digits, keys and values as their bytes, nothing escaped.
// testdata/digest-vectors.json pins the definition for other implementations.
//
// # Bounds
//
// Everything a tenant controls is bounded:
//
//   - a file holds at most 1 MiB, checked before parsing (a real file is a few hundred bytes);
//   - YAML nesting deeper than 10,000 levels is an error;
//   - YAML aliases may expand a file to at most 10 times its size (64 KiB for a smaller file),
//     checked in linear time before decoding, which bounds only nodes (TestParseFileExpansion);
//   - an error shows at most the first 64 bytes of a value, and its length;
//   - annotations hold at most 256 KiB together, label values 63 characters;
//   - CEL rules are bounded by package cel (5 KiB per expression, a runtime cost limit of
//     1,000,000 per evaluation), and a name is at most 63 characters before any rule sees it;
//   - the rules that [Schema.Apply] evaluates for one file share a budget of 100,000 units of CEL
//     cost, charged as Apply says, so that a hostile file's CPU time does not grow with its keys
//     (generator's BenchmarkHostileTenants).
//
// The budget is counted, not timed, so a file that runs out fails, never silently, at the same key
// on every machine. One evaluation spends at most one and a half times it (cel refuses a call
// charged over half its limit), a realistic file a tenth (TestSchemaApplyBudget); it is a
// hundredth of Kubernetes' RuntimeCELCostBudget for one object, as a controller checks thousands.
//
// # Errors
//
// Problems with an object's fields come as a sorted field.ErrorList, nil when there is none, at
// the caller's field path or, for a tenant's file, at the document's (metadata.labels[team]).
// Other failures wrap a sentinel, listed by each function.
//
// # Concurrency
//
// Schema and NamePolicy are immutable and safe for concurrent use; so is a Pipeline whose maps and
// slices nobody modifies (Validate and Resolve never do). ParseFile, Metadata.Validate and Digest
// are pure functions.
package nsmeta
