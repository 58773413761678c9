package nsmeta

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// upstreamNamespaceMetadata is the file of source-watcher v2.3's
// TestNamespaceMetadataFromSource.
const upstreamNamespaceMetadata = `apiVersion: source.extensions.fluxcd.io/v1beta1
kind: NamespaceMetadata
metadata:
  labels:
    observability: enabled
    forbidden: nope
  annotations:
    team: platform
`

// upstreamPipeline is the ArtifactGenerator of TestNamespaceMetadataFromSource:
// its commonMetadata, its one from operation, and the labels the controller
// adds last (app.kubernetes.io/managed-by and the generator's UID).
var upstreamPipeline = Pipeline{
	Common:     Metadata{Labels: kv{"common": "base"}},
	Operations: []Operation{{Strategy: Override, Namespace: "*", Metadata: Metadata{Labels: kv{"common": "overridden"}, Annotations: kv{"owner": "platform"}}}},
	Final:      Metadata{Labels: kv{"app.kubernetes.io/managed-by": "source-watcher", "source.extensions.fluxcd.io/generator": "uid"}},
}

// upstreamCases are source-watcher's tests of reading a NamespaceMetadata
// file and filtering it through allowedLabels and allowedAnnotations
// (internal/controller/artifactgenerator_inputs_test.go), as data: each
// case says what source-watcher does and what tenantkit does. They come
// from source-watcher's development history, whose rules were regular
// expressions; each rule r is here the CEL rule value.matches(r), which
// means the same (CEL's matches is Go's regexp, unanchored), the form of
// the released API. Where the outcomes differ on purpose, differs or
// stricter says how; otherwise the outcome (an error or not, and the
// metadata) is the same. source-watcher has no test of its digest;
// TestDigestVectors pins it from its definition.
var upstreamCases = []struct {
	upstream string // the upstream test function the case comes from
	name     string

	file     string    // a NamespaceMetadata file, read by ParseFile; or
	in       *Metadata // metadata handed to the filter directly
	labels   kv        // allowedLabels: CEL rules
	annots   kv        // allowedAnnotations: CEL rules
	pipeline *Pipeline // the steps around the file, or nil for the filter alone

	// What source-watcher does.
	upstreamErr  bool
	upstreamWant Metadata

	// What tenantkit does.
	want         Metadata
	wantWarnings []string
	wantErrs     []fieldErr
	differs      string
	// stricter says why tenantkit refuses what source-watcher accepts.
	stricter string
}{
	{
		upstream: "TestFilterNamespaceMetadata",
		name:     "a key in the schema is kept, a key not in it is ignored",
		in:       &Metadata{Labels: kv{"allowed": "ok", "other": "ignored"}},
		labels:   kv{"allowed": `value.matches(".*")`},

		upstreamWant: Metadata{Labels: kv{"allowed": "ok"}},

		want:         Metadata{Labels: kv{"allowed": "ok"}},
		wantWarnings: []string{`metadata.labels[other]: label "other" is not in allowedLabels; dropped`},
		differs:      "the key not in the schema is dropped with a warning, where source-watcher drops it silently",
	},
	{
		upstream: "TestFilterNamespaceMetadata",
		name:     "a value that does not match is an error",
		in:       &Metadata{Labels: kv{"allowed": "nope"}},
		labels:   kv{"allowed": `value.matches("^ok$")`},

		upstreamErr: true,

		wantErrs: []fieldErr{{field.ErrorTypeInvalid, "metadata.labels[allowed]", "nope"}},
		differs:  "the error fails this namespace only (package generator skips it), where source-watcher fails the whole reconcile",
	},
	{
		upstream: "TestFilterNamespaceMetadata",
		name:     "only keys not in the schema",
		in:       &Metadata{Labels: kv{"other": "ignored"}},
		labels:   kv{"allowed": `value.matches(".*")`},

		want:         Metadata{},
		wantWarnings: []string{`metadata.labels[other]: label "other" is not in allowedLabels; dropped`},
		differs:      "the key not in the schema is dropped with a warning",
	},
	{
		upstream: "TestNamespaceMetadataFromSource",
		name:     "the file overrides commonMetadata, an unlisted key is ignored, the from operation overrides the file",
		file:     upstreamNamespaceMetadata,
		labels:   kv{"observability": `value.matches("^(enabled|disabled)$")`},
		annots:   kv{"team": `value.matches(".*")`},
		pipeline: &upstreamPipeline,

		upstreamWant: Metadata{
			Labels:      kv{"common": "overridden", "observability": "enabled", "app.kubernetes.io/managed-by": "source-watcher", "source.extensions.fluxcd.io/generator": "uid"},
			Annotations: kv{"team": "platform", "owner": "platform"},
		},

		want: Metadata{
			Labels:      kv{"common": "overridden", "observability": "enabled", "app.kubernetes.io/managed-by": "source-watcher", "source.extensions.fluxcd.io/generator": "uid"},
			Annotations: kv{"team": "platform", "owner": "platform"},
		},
		wantWarnings: []string{`metadata.labels[forbidden]: label "forbidden" is not in allowedLabels; dropped`},
		differs:      "the unlisted key forbidden is dropped with a warning",
	},
	{
		upstream: "TestNamespaceMetadataFromSource",
		name:     "a value that does not match the allowed schema is rejected",
		file:     upstreamNamespaceMetadata,
		labels:   kv{"observability": `value.matches("^disabled$")`},
		annots:   kv{"team": `value.matches(".*")`},
		pipeline: &upstreamPipeline,

		upstreamErr: true,

		wantErrs:     []fieldErr{{field.ErrorTypeInvalid, "metadata.labels[observability]", "enabled"}},
		wantWarnings: []string{`metadata.labels[forbidden]: label "forbidden" is not in allowedLabels; dropped`},
		differs:      "the error fails this namespace only",
	},
	{
		upstream: "TestNamespaceMetadataFromSource",
		name:     "an unsupported kind is rejected",
		file:     "apiVersion: source.extensions.fluxcd.io/v1beta1\nkind: Wrong\n",
		labels:   kv{"observability": `value.matches(".*")`},
		annots:   kv{"team": `value.matches(".*")`},
		pipeline: &upstreamPipeline,

		upstreamErr: true,

		wantErrs: []fieldErr{{field.ErrorTypeNotSupported, "kind", "Wrong"}},
		differs:  "the error fails this namespace only",
	},
	{
		upstream: "TestNamespaceMetadataFromSource",
		name:     "the externalFinalizer annotation is rejected even from the file",
		file: `apiVersion: source.extensions.fluxcd.io/v1beta1
kind: NamespaceMetadata
metadata:
  annotations:
    source.extensions.fluxcd.io/externalFinalizer: fluxcd.controlplane.io/v1/ResourceSet//tenants/uid
`,
		labels:   kv{"observability": `value.matches(".*")`},
		annots:   kv{externalFinalizerAnnotation: `value.matches(".*")`},
		pipeline: &upstreamPipeline,

		upstreamErr: true,

		wantErrs: []fieldErr{{field.ErrorTypeForbidden, "metadata.annotations[source.extensions.fluxcd.io/externalFinalizer]", ""}},
		differs:  "the error fails this namespace only",
	},
	// Two more from loadNamespaceMetadataFromSource's code, which no
	// upstream test covers.
	{
		upstream: "loadNamespaceMetadataFromSource (code)",
		name:     "an unsupported apiVersion is rejected",
		file:     "apiVersion: source.extensions.fluxcd.io/v1\nkind: NamespaceMetadata\n",
		pipeline: &upstreamPipeline,

		upstreamErr: true,

		wantErrs: []fieldErr{{field.ErrorTypeNotSupported, "apiVersion", "source.extensions.fluxcd.io/v1"}},
		differs:  "the error fails this namespace only",
	},
	{
		upstream: "loadNamespaceMetadataFromSource (code)",
		name:     "the type fields may be left out",
		file:     "metadata:\n  labels:\n    observability: disabled\n",
		labels:   kv{"observability": `value.matches(".*")`},

		upstreamWant: Metadata{Labels: kv{"observability": "disabled"}},

		wantErrs: noTypeFields,
		stricter: "the published schema of the file requires apiVersion and kind, and ParseFile reads the file as it says",
	},
}

// TestUpstreamCases runs upstreamCases: a file through ParseFile, then
// the schema, then the pipeline when there is one.
func TestUpstreamCases(t *testing.T) {
	t.Parallel()
	for _, tc := range upstreamCases {
		t.Run(tc.upstream+"/"+tc.name, func(t *testing.T) {
			t.Parallel()
			// The case's two outcomes agree, or it says how they differ.
			if tc.upstreamErr != (len(tc.wantErrs) > 0) && (tc.stricter == "" || tc.upstreamErr) {
				t.Fatalf("source-watcher errs: %v, tenantkit errs: %v", tc.upstreamErr, tc.wantErrs)
			}
			if !tc.upstreamErr && len(tc.wantErrs) == 0 && !cmp.Equal(tc.upstreamWant, tc.want, cmpopts.EquateEmpty()) {
				t.Fatalf("source-watcher keeps %v, tenantkit %v", tc.upstreamWant, tc.want)
			}
			if (tc.wantWarnings != nil || tc.upstreamErr) && tc.differs == "" {
				t.Fatal("the case differs from source-watcher and does not say how")
			}

			if tc.file != "" {
				// A file tenantkit accepts reads as source-watcher reads it.
				checkAsUpstreamType(t, []byte(tc.file))
			}
			got, warnings, errs := runUpstreamCase(t, tc.file, tc.in, tc.labels, tc.annots, tc.pipeline)
			if diff := cmp.Diff(tc.wantErrs, project(errs)); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantWarnings, warnings); diff != "" {
				t.Errorf("warnings (-want +got):\n%s", diff)
			}
			if len(tc.wantErrs) == 0 {
				if diff := cmp.Diff(tc.want, got, cmpopts.EquateEmpty()); diff != "" {
					t.Errorf("metadata (-want +got):\n%s", diff)
				}
			}
		})
	}
}

// runUpstreamCase reads file (or takes in), applies the schema of labels
// and annots, and resolves the pipeline, stopping at the first step
// that has errors.
func runUpstreamCase(t *testing.T, file string, in *Metadata, labels, annots kv, p *Pipeline) (Metadata, []string, field.ErrorList) {
	t.Helper()
	var m Metadata
	if in != nil {
		m = *in
	} else {
		var errs field.ErrorList
		var err error
		if m, errs, err = ParseFile([]byte(file)); err != nil {
			t.Fatalf("ParseFile() error = %v", err)
		} else if errs != nil {
			return Metadata{}, nil, errs
		}
	}
	s, errs := CompileSchema(labels, annots, nil)
	if errs != nil {
		t.Fatalf("CompileSchema() = %v", errs.ToAggregate())
	}
	kept, warnings, errs := s.Apply(context.Background(), m)
	if errs != nil || p == nil {
		return kept, warnings, errs
	}
	r, errs := p.Resolve("tenant-a", kept)
	return r.Metadata, warnings, errs
}
