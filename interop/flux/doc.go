// Package flux holds no code: its tests run the real Flux code side by side
// with tenantkit's, on table inputs and on randomized ones, and fail on any
// difference:
//
//   - inventory ids: github.com/fluxcd/cli-utils pkg/object ObjMetadata's
//     String and ParseObjMetadata against [inventory.ID.FluxID] and
//     [inventory.ParseID];
//   - apply and prune order: github.com/fluxcd/pkg/ssa's sort (as its
//     ApplyAllStaged and DeleteAll use it) against [inventory.SortApply]
//     and [inventory.SortPrune].
//
// It is its own module, so that Flux's dependencies never enter
// tenantkit's go.mod; the versions are those of kustomize-controller v1.9
// (cli-utils v1.2.2, ssa v0.77.0, Kubernetes v0.36). Run from the
// repository root:
//
//	(cd interop/flux && go test ./...)
package flux
