// Package generatortest runs declarative policy tests against an
// ArtifactGenerator: a suite names the real generator file, and each case
// gives a world (a source, a previous inventory, a live cluster, the
// controller's options) and states what the plan must hold. A platform team
// runs suites in CI with the preview tool (go run ./examples/plan test
// ./tests); a controller author runs the same suites from go test:
//
//	s, err := generatortest.LoadSuite("testdata/policy.yaml")
//	if err != nil {
//		t.Fatal(err)
//	}
//	for _, c := range s.Run(ctx, generatortest.Options{}).Cases {
//		for _, f := range c.Failures {
//			t.Errorf("%s: %s: expected %s, got %s", c.Case, f.Where, f.Expected, f.Got)
//		}
//	}
//
// # Suite format
//
// A suite is one YAML document, decoded strictly: an unknown or duplicate
// key, or a value of the wrong type, makes it a bad suite (a *SuiteError,
// wrapping ErrBadSuite) that names its path, such as
// "cases[0].expect.noError: unknown field", so that a misspelt expectation
// is never silently skipped. Paths are relative to the suite's directory.
//
//	apiVersion: tenantkit.dev/v1alpha1
//	kind: PlanTest
//	metadata:
//	  name: NAME                       # optional; the file's path otherwise
//	generator: FILE                    # the ArtifactGenerator manifest; one spec.sources entry
//	source: DIR                        # the default source of every case
//	cases:                             # at least one
//	- name: NAME                       # unique in the suite
//	  source: DIR                      # replaces the suite's source
//	  remove: [PATH, ...]              # files or directories of the source left out
//	  files: {PATH: CONTENT, ...}      # laid over the source, in memory
//	  inventory: [ENTRY, ...]          # the previous inventory (inventory.Entry)
//	  cluster:                         # the live cluster; without it, assumed (see below)
//	    namespaces: [{name, labels, annotations}, ...]
//	    artifacts: [{namespace, name, labels, annotations}, ...]
//	    objects: [{apiVersion, kind, namespace, name, uid}, ...]   # external finalizers
//	  options: {defaultServiceAccount, allowDeleteAll, strict}
//	  expect:                          # any subset; at least one
//	    objects:                       # a decision of the plan
//	    - object: Namespace/NAME | KIND/NAMESPACE/NAME
//	      action: create | update | unchanged | delete | release | keep | skip
//	      reason: SUBSTRING
//	    namespaces:                    # a namespace the plan applies
//	    - name: NAME
//	      labels: {KEY: VALUE}         # a subset, or all of them with exact: true
//	      annotations: {KEY: VALUE}
//	      exact: BOOL
//	      origin: {labels: {KEY: STEP}, annotations: {KEY: STEP}}  # common, source, from[i], final
//	      conflict: Adopted | OwnershipConflict | ""      # exactly; "" for none
//	    artifacts:                     # an artifact the plan applies
//	    - artifact: NAMESPACE/NAME
//	      inputs: {KEY: VALUE}         # a subset, compared as JSON
//	      noInputs: BOOL
//	      files: [PATH, ...]           # all of them, in any order
//	      conflict: OwnershipConflict | ""   # exactly; "" for none
//	    errors: [{field: PATH, contains: SUBSTRING}, ...]   # field optional
//	    noErrors: BOOL
//	    warnings: [SUBSTRING, ...]
//	    refused: SUBSTRING             # the delete-all (or max-deletions) refusal
//
// A case's source is read into memory (at most 10,000 files and 64 MiB; a
// symbolic link is an error), so that files and remove never touch the
// disk. The generator file is read as the preview tool reads -generator
// (internal/agmanifest): as written, or as kubectl get artifactgenerator
// prints it, alone or in a List holding exactly one, the metadata the API
// server sets and the status ignored. It is compiled with its
// metadata.namespace and metadata.uid, as a controller would; a spec that
// does not compile gives a plan holding those errors, which errors can
// expect.
//
// With cluster, an object it does not list does not exist. Without it, the
// case assumes what the preview tool assumes without -cluster
// ([AsApplied]): every desired namespace exists as planned,
// every other object exists without labels or annotations, and nothing
// else exists (no external finalizer, no other generator's
// ExternalArtifact), so that a removed tenant's objects are deleted in the
// suite as in the preview. The case's result says so (CaseResult.Assumptions,
// NoCluster), and the preview tool prints it.
//
// A conflict (generator.Namespace.Conflict, generator.Artifact.Conflict)
// is the reason of the Warning event a controller records when it applies
// an object it does not own live: a live namespace without the generator's
// label is adopted ("Adopted"), a namespace or ExternalArtifact
// another generator's label names is taken over ("OwnershipConflict").
// Only a case with cluster can have one. An expectation's conflict, when
// present, is compared exactly, `conflict: ""` requiring none; when absent,
// the conflict is not checked. A value no plan can give (a misspelt reason)
// makes a bad suite.
//
// # Failures
//
// A case fails for each expectation the plan does not meet, reported in the
// suite's order with where (e.g. "cases[2].expect.objects[0]
// (Namespace/tenant-a).action"), what was expected and what the plan gave.
// A case without expectations fails, and so does one naming an object,
// a namespace or an artifact the plan never mentions. Output is
// deterministic: it holds no durations and no map order.
//
// # Update
//
// Suite.Update rewrites the expected labels, annotations and origins of the
// selected cases from their plans, keeping the file's comments: after a
// deliberate change of policy, the new expectations to review.
//
// # Coverage
//
// Result.Coverage lists the generator's name rules (allowedNames, in the
// seed shape), from[] operations and schema keys (allowedLabels,
// allowedAnnotations), each with the number of cases that
// check it (see CoverageItem): what a change to the policy can break
// without a case noticing.
//
// # Concurrency
//
// A Suite is immutable once loaded and safe for concurrent use; each Run
// plans its cases one after the other.
package generatortest
