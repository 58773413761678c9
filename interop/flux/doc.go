// Package flux holds no code: its tests run the real Flux code side by side
// with tenantkit's, on table inputs and on randomized ones, and fail on any
// difference:
//
//   - inventory ids: github.com/fluxcd/cli-utils pkg/object ObjMetadata's
//     String and ParseObjMetadata against [inventory.ID.FluxID] and
//     [inventory.ParseID];
//   - apply and prune order: github.com/fluxcd/pkg/ssa's sort (as its
//     ApplyAllStaged and DeleteAll use it) against [inventory.SortApply],
//     and reversed, the prune order of inventory's Diff and Collect;
//   - artifact digests: github.com/fluxcd/pkg/artifact/storage's Archive,
//     with the default filter source-watcher's builder passes
//     (SourceIgnoreFilter(nil, nil)), run on the file system that
//     [generator.WithArtifactDigest] hands over, written out with
//     os.CopyFS, and on the staging directory source-watcher lays out for
//     the same spec by hand (copied files, an executable, nested
//     directories, a Merge copy, an extracted tarball, a file the filter
//     leaves out): the digests are equal, artifact by artifact; the
//     inventory that holds them plans every artifact unchanged, and a
//     changed file, execute bit or merged value updates exactly the
//     artifacts that hold it. This backs generator's
//     TestWithArtifactDigestCopyFS, whose archiver is hand-written.
//
// It is its own module, so that Flux's dependencies never enter
// tenantkit's go.mod; the versions are those of kustomize-controller v1.9
// (cli-utils v1.2.2, ssa v0.77.0, Kubernetes v0.36) and of source-watcher
// v2.3 (fluxcd/pkg/artifact v0.18.0, with source-watcher's replacement of
// github.com/opencontainers/go-digest by its BLAKE3-capable master, which
// that module's digest package needs to build). Run from the repository
// root:
//
//	(cd interop/flux && go test ./...)
package flux
