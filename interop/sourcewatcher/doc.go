// Package sourcewatcher holds no code: its tests run source-watcher's
// released API types (github.com/fluxcd/source-watcher/api/v2 v1beta1,
// v2.3.0, whose API v2.3.1 repeats) side by side with tenantkit, so that
// "generator.Spec reads a released ArtifactGenerator exactly" is checked
// against upstream's own code, not claimed. Each test proves one thing:
//
//   - TestDecodeReleasedManifests: five released-shape manifests in
//     testdata/ (static artifacts; a pathPattern with managedNamespaces,
//     fromSource and from operations of all three strategies; the copy
//     strategies Overwrite, Merge and Extract with exclude and optional;
//     inputsFrom "@artifact/...", revision, originRevision,
//     serviceAccountName and commonMetadata; a manifest exported from a
//     cluster with its status) decode strictly into the released
//     ArtifactGenerator (sigs.k8s.io/yaml.UnmarshalStrict), their spec
//     strictly into [generator.Spec] (encoding/json with
//     DisallowUnknownFields), and the two specs marshal to the same JSON
//     value, which is the manifest's own spec: nothing is dropped or added.
//   - TestReleasedFieldsInSpec: every JSON path of the released spec types,
//     walked by reflection, is a path of generator.Spec's types with the same
//     JSON kind, so that a field a later release adds fails by its path.
//     TestSpecFieldsReleased is the other direction: generator.Spec has no
//     field that the released CRD would refuse as unknown.
//   - TestValidationMarkers: one case per validation marker and XValidation
//     rule of the released spec types (and per rule their doc comments
//     state: namespace-level captures only in fromSource.path, CEL
//     expressions that must compile to a boolean), each breaking exactly
//     that rule of a valid baseline (TestValidationBaselines compiles both
//     baselines without an error); [generator.Compile] must report it at the
//     field's path with the field.ErrorType the marker maps to (Pattern:
//     Invalid; MaxLength: TooLong, or Invalid; Enum: NotSupported; MinItems
//     and +required: Required; MaxItems: TooMany) and nothing elsewhere.
//     Each case checks against the released marker itself that its value
//     breaks the rule (and, for a length, passes the field's Pattern).
//     TestMarkersCovered reads the markers from the released source (the
//     module's directory, found with go list) and fails on one without a
//     case; the markers that no Go value can break (MinLength=1 of an
//     optional omitempty string) are listed with the reason.
//     TestCopyToAccepted compiles the destinations that the released To
//     pattern accepts although they hold "." or empty segments.
//   - TestInventoryNextDecodesReleased: the inventory a plan records
//     ([generator.Plan.Next]) decodes strictly into
//     []v1beta1.InventoryEntry, entry for entry the plan's objects.
//     TestInventoryReleasedReadsUnchanged: the entries the released types
//     write in status.inventory for that plan, read by [inventory.Unmarshal],
//     plan again as unchanged, every one; TestInventoryReleasedRoundTrip:
//     the next inventory then gives back exactly what was written, storage
//     file names included; TestInventoryExportedManifest: inventory.Unmarshal
//     reads the exported manifest's inventory as the released types do.
//   - TestConstants, TestCopyStrategies, TestArtifactAlias,
//     TestConflictReasons, TestAnnotations, TestNamespaceMetadataType: the
//     released constants are tenantkit's, compared where tenantkit exports
//     one (the generator label, the external finalizer annotation, the
//     Namespace kind, the from strategies) and otherwise through what a
//     compile or a plan does with the released value: the copy strategies
//     and the artifact alias compile; an adopted namespace's Conflict is
//     AdoptedReason and a taken-over object's OwnershipConflictReason; the
//     reconcile, prune and ssa annotations with the released values
//     (Disabled, Enabled, Ignore, IfNotPresent, Merge) apply, hold back,
//     release or delete as the released controller and Flux's delete
//     options do; a NamespaceMetadata file of the released kind and API
//     version is read under [generator.WithStrict], another is refused.
//   - TestProtectedNamespaces: a generator in namespace platform whose
//     allowedNames accept every name refuses default, kube-system,
//     kube-public and flux-system, which the released API always refuses:
//     the namespace is skipped, never applied, and so is its artifact.
//     tenantkit also refuses kube-node-lease and the generator's own
//     namespace, which the released controller would manage: documented
//     differences, shown by the same test.
//
// It is its own module, so that the released module's dependencies and its
// Go version (1.27) never enter tenantkit's go.mod (Go 1.26); the go
// command fetches the go1.27.3 toolchain from the module proxy once. Run
// from the repository root:
//
//	interop/sourcewatcher/test.sh
//
// which is, in this directory:
//
//	GOTOOLCHAIN=go1.27.3 GOWORK=off go vet ./... && GOTOOLCHAIN=go1.27.3 GOWORK=off go test -count=1 ./...
package sourcewatcher
