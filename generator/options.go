package generator

import (
	"context"
	"io/fs"
	"maps"

	"github.com/opencontainers/go-digest"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/tenantkit/tenantkit/cel"
)

// Option configures [Compile], which reports a bad value as a field error rooted at the
// option's name, e.g. "WithMaxDeletions: Invalid value: -1: must not be negative".
type Option func(*options)

type options struct {
	uid                   string
	namespace             string
	defaultServiceAccount string
	finalLabels           map[string]string
	finalAnnotations      map[string]string
	strict                bool
	allowDeleteAll        bool
	maxDeletions          int
	maxSet                bool
	cache                 *cel.Cache
	finalizerKinds        []schema.GroupKind // nil: any kind
	fileLists             bool
	// workBudget, when set, replaces the plan's budget of work (tests set it, to spend it in ms).
	workBudget        int64
	concurrency       int // 0: GOMAXPROCS
	concurrencySet    bool
	artifactDigest    artifactDigestFunc // nil: tenantkit's own digest
	artifactDigestSet bool
}

// artifactDigestFunc is the function of [WithArtifactDigest].
type artifactDigestFunc = func(ctx context.Context, a *Artifact, files fs.FS) (digest.Digest, error)

// GeneratorLabel carries the UID of the generator that applies an object (see [WithUID]).
const GeneratorLabel = "source.extensions.fluxcd.io/generator"

// WithUID sets the generator's own UID, a valid label value: every namespace and artifact it
// plans carries GeneratorLabel with it, as the metadata pipeline's last step, which nothing can
// override; a live object whose label names another UID is released rather than deleted.
// Without it, the plan sets no such label, and a live object carrying one is never deleted.
func WithUID(uid string) Option { return func(o *options) { o.uid = uid } }

// WithNamespace sets the generator's own namespace, a DNS-1123 label: the namespace of
// artifacts without a namespace template, and never a managed one: a protected name that no
// tenant can claim, where upstream protects only its four fixed names, flux-system among them,
// whatever namespace the generator is in (see docs/differences.md).
func WithNamespace(namespace string) Option {
	return func(o *options) { o.namespace = namespace }
}

// WithDefaultServiceAccount sets the default service account (source-watcher's flag
// --default-service-account) that managing namespaces needs when spec.serviceAccountName is empty.
func WithDefaultServiceAccount(name string) Option {
	return func(o *options) { o.defaultServiceAccount = name }
}

// WithFinalMetadata adds ownership metadata, e.g. app.kubernetes.io/managed-by, that goes on
// every managed namespace after every other step of the pipeline (with GeneratorLabel, see
// [WithUID]); the labels go on every artifact too. They must be valid labels and annotations.
func WithFinalMetadata(labels, annotations map[string]string) Option {
	return func(o *options) {
		o.finalLabels = maps.Clone(labels)
		o.finalAnnotations = maps.Clone(annotations)
	}
}

// WithStrict makes a key of a tenant's NamespaceMetadata file that the schema does not list an
// error of its namespace ([nsmeta.WithStrict]); by default it is dropped (upstream ignores it).
func WithStrict() Option { return func(o *options) { o.strict = true } }

// WithAllowDeleteAll allows a plan to delete every object of a non-empty previous inventory.
// By default such a plan deletes nothing and reports a Forbidden error at "spec", for it is
// what a wrong source, path or pattern looks like. It is [inventory.WithAllowDeleteAll].
func WithAllowDeleteAll() Option { return func(o *options) { o.allowDeleteAll = true } }

// WithMaxDeletions refuses a plan that would delete more than n objects: it deletes none and
// reports a Forbidden error at "spec". n must not be negative; 0 refuses every deletion. By
// default there is no limit. The plan passes it on as [inventory.WithMaxDeletions].
func WithMaxDeletions(n int) Option {
	return func(o *options) { o.maxDeletions, o.maxSet = n, true }
}

// WithCache compiles the spec's CEL expressions through c, so that compiling the same spec on
// every reconcile compiles each expression once. A nil c, the default, compiles afresh.
func WithCache(c *cel.Cache) Option { return func(o *options) { o.cache = c } }

// WithFinalizerKinds allows only these kinds as a namespace's external finalizer, e.g.
// flux-operator's ResourceSet (schema.GroupKind{Group: "fluxcd.controlplane.io", Kind:
// "ResourceSet"}): a reference to another kind is no hand-off, and the generator stays
// accountable for the namespace. By default any object that exists with the stamped UID keeps
// a namespace (a ConfigMap in another tenant's namespace, ClusterRole admin): name the kinds.
// The list must not be empty, each group and kind valid (finalizer.NewDecider).
func WithFinalizerKinds(kinds ...schema.GroupKind) Option {
	return func(o *options) { o.finalizerKinds = append([]schema.GroupKind{}, kinds...) }
}

// WithFileLists makes plans list each artifact's files in [Artifact.Files], for a controller
// that builds the archives from them or a tool that prints them. Without it, a plan keeps only
// their number ([Artifact.FileCount]) and digest, not a name per file (BenchmarkPlan).
func WithFileLists() Option { return func(o *options) { o.fileLists = true } }

// WithConcurrency bounds to n, at least 1, the goroutines on which a plan discovers the
// pattern's directories and builds namespaces and artifacts (by default GOMAXPROCS, read when
// it starts), for a controller that shares its cores; a plan is the same whatever n is.
//
//	g, errs := generator.Compile(spec, generator.WithConcurrency(2))
func WithConcurrency(n int) Option {
	return func(o *options) { o.concurrency, o.concurrencySet = n, true }
}

// WithArtifactDigest makes f compute each artifact's digest instead of tenantkit's own (see
// [Artifact]): [Artifact.Digest], its inventory entry's digest, which a plan compares with the
// previous inventory's and [Plan.Next] records. It is for an embedder whose inventory holds
// another digest, as source-watcher's holds that of the tarball its storage writes: f archives
// the files as the embedder does, so that an inventory the embedder wrote reads back unchanged.
//
//	g, errs := generator.Compile(spec, generator.WithArtifactDigest(archive))
//
// where archive writes files into a staging directory (os.MkdirTemp, os.CopyFS) and returns
// the digest of the tarball its storage makes of it (see ExampleWithArtifactDigest).
//
// A plan calls f once for each artifact it builds, after its copy operations and inputs, on the
// plan's goroutines: f must be safe for concurrent use. a is the artifact as built, its Digest
// and Filename not yet set; f may set a.Filename, the name of the file it stores the artifact in
// (source-watcher's "<hash>.tar.gz", the base name of its storage path), which the inventory
// entry then records ([Artifact.Filename]), and must modify nothing else of a, nor keep files
// once it returns. files holds exactly the artifact's files at their destinations, with the
// directories above them and those that archives hold ([Artifact]); each Open of a copied file
// reads it anew from its source, link-free and at most 8 MiB. f's digest must be valid
// (digest.Digest.Validate).
//
// An error or a panic of f, an invalid digest, a Filename that is not one file's name (1 to 255
// bytes, not "." or "..", without "/", "\" or NUL), or a file of files that cannot be read makes
// the artifact an error of the plan: it is skipped, and kept when tracked, never deleted for it.
// f's digest covers what f reads: with an archive's digest, as source-watcher's, a change of the
// inputs alone (inputsFrom from a source) leaves the digest, and the artifact's decision,
// unchanged; the embedder applies every artifact of [Plan.Artifacts], as source-watcher writes
// the exported inputs of every artifact it builds. f must not be nil.
func WithArtifactDigest(f func(ctx context.Context, a *Artifact, files fs.FS) (digest.Digest, error)) Option {
	return func(o *options) { o.artifactDigest, o.artifactDigestSet = f, true }
}
