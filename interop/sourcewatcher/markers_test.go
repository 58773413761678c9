package sourcewatcher_test

import (
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/fluxcd/source-watcher/api/v2/v1beta1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/tenantkit/tenantkit/generator"
)

// The released spec types' validation markers, each covered by at least one
// case of markerTests (the case's marker field holds the marker's key, Go
// type and field, then the marker as the source writes it):
//
//	ArtifactGeneratorSpec            XValidation (artifact names, without pathPattern)
//	ArtifactGeneratorSpec            XValidation (artifact namespaces, without pathPattern)
//	ArtifactGeneratorSpec.Sources    MinItems=1, MaxItems=1000, +required
//	ArtifactGeneratorSpec.ServiceAccountName  Pattern, MaxLength=63 (MinLength=1: see untestableMarkers)
//	ArtifactGeneratorSpec.PathPattern         Pattern, MaxLength=1024
//	ArtifactGeneratorSpec.OutputArtifacts     MinItems=1, MaxItems=1000, +required
//	ManagedNamespaces.AllowedNames   MinItems=1, +required
//	ManagedNamespaces.Prune          +required
//	ManagedNamespacesMetadata        XValidation (fromSource or a from operation)
//	NamespaceMetadataFromSource      XValidation (a label or an annotation rule)
//	NamespaceMetadataFromSource.Path Pattern, MinLength=1, MaxLength=1024, +required
//	NamespaceMetadataFrom.Strategy   Enum=Reset;Override;Merge, +required
//	NamespaceMetadataFrom.Namespace  Pattern, MaxLength=63, +required
//	SourceReference.Alias            Pattern, MaxLength=63, +required
//	SourceReference.Name             Pattern, MaxLength=253, +required
//	SourceReference.Namespace        Pattern, MaxLength=63 (MinLength=1: see untestableMarkers)
//	SourceReference.Kind             Enum=Bucket;GitRepository;OCIRepository;HelmChart;ExternalArtifact, +required
//	OutputArtifact.Name              MaxLength=1024, +required
//	OutputArtifact.Namespace         MaxLength=1024
//	OutputArtifact.InputsFrom        Pattern, MaxLength=1024 (MinLength=1: see untestableMarkers)
//	OutputArtifact.Revision          Pattern, MaxLength=64
//	OutputArtifact.OriginRevision    Pattern, MaxLength=64
//	OutputArtifact.Copy              MinItems=1, +required
//	CopyOperation.From               Pattern, MinLength=1, MaxLength=1024, +required
//	CopyOperation.To                 Pattern, MinLength=1, MaxLength=1024, +required
//	CopyOperation.Exclude            MaxItems=100, items:MaxLength=1024
//	CopyOperation.Strategy           Enum=Overwrite;Merge;Extract
//
// TestMarkersCovered reads the markers from the released source and fails
// on one that no case covers, so that a marker a later release adds fails
// by its key.

// untestableMarkers are the released markers that no value of the Go type
// can break, with the reason.
var untestableMarkers = map[string]string{
	`ArtifactGeneratorSpec.ServiceAccountName MinLength=1`: "an empty omitempty string is absent, and the field is optional",
	`SourceReference.Namespace MinLength=1`:                "an empty omitempty string is absent, and the field is optional",
	`OutputArtifact.InputsFrom MinLength=1`:                "an empty omitempty string is absent, and the field is optional",
}

// Field error types, as the released markers map onto them.
var (
	invalid      = []field.ErrorType{field.ErrorTypeInvalid}
	length       = []field.ErrorType{field.ErrorTypeInvalid, field.ErrorTypeTooLong}
	required     = []field.ErrorType{field.ErrorTypeRequired}
	notSupported = []field.ErrorType{field.ErrorTypeNotSupported}
	tooMany      = []field.ErrorType{field.ErrorTypeTooMany}
)

const (
	testUID       = "3f5c2a9e-8b1d-4c7e-9a20-6d4b1e0f7a13"
	testNamespace = "flux-system"
)

// patterned is a valid released spec with a pathPattern, managed
// namespaces, a fromSource schema and a from operation, and every artifact
// field set.
func patterned() v1beta1.ArtifactGeneratorSpec {
	return v1beta1.ArtifactGeneratorSpec{
		ServiceAccountName: "tenant-provisioner",
		Sources:            []v1beta1.SourceReference{{Alias: "repo", Kind: "OCIRepository", Name: "monorepo", Namespace: "flux-system"}},
		PathPattern:        "@repo/tenants/{namespace}/modules/{module}",
		ManagedNamespaces: &v1beta1.ManagedNamespaces{
			AllowedNames: []string{`ns.startsWith("tenant-")`},
			Prune:        true,
			Metadata: &v1beta1.ManagedNamespacesMetadata{
				FromSource: &v1beta1.NamespaceMetadataFromSource{
					Path:               "@repo/tenants/{namespace}/namespace-metadata.yaml",
					AllowedLabels:      map[string]string{"my.org.io/cost-center": `value.matches("^cc-[0-9]{4}$")`},
					AllowedAnnotations: map[string]string{"my.org.io/owner": `value.endsWith("@example.com")`},
				},
				From: []v1beta1.NamespaceMetadataFrom{{Strategy: "Merge", Namespace: "*", Labels: map[string]string{"tier": "bronze"}}},
			},
		},
		OutputArtifacts: []v1beta1.OutputArtifact{{
			Name:           "{module}",
			Namespace:      "{namespace}",
			InputsFrom:     "@repo/tenants/{namespace}/modules/{module}/inputs.yaml",
			Revision:       "@repo",
			OriginRevision: "@repo",
			Copy: []v1beta1.CopyOperation{{
				From:     "@repo/tenants/{namespace}/modules/{module}/manifests/**",
				To:       "@artifact/",
				Exclude:  []string{"*.md"},
				Strategy: "Overwrite",
			}},
		}},
	}
}

// static is a valid released spec without a pathPattern or managed
// namespaces: its artifact's name and namespace are literals.
func static() v1beta1.ArtifactGeneratorSpec {
	return v1beta1.ArtifactGeneratorSpec{
		Sources: []v1beta1.SourceReference{{Alias: "repo", Kind: "GitRepository", Name: "apps"}},
		OutputArtifacts: []v1beta1.OutputArtifact{{
			Name:      "app",
			Namespace: "tenant-a",
			Copy:      []v1beta1.CopyOperation{{From: "@repo/apps/app/**", To: "@artifact/"}},
		}},
	}
}

// markerTest breaks one released rule of a valid baseline spec.
type markerTest struct {
	name string
	// marker is the key of the released marker the case breaks (see
	// releasedMarkers), or "" for a rule that a released doc comment states.
	marker string
	base   func() v1beta1.ArtifactGeneratorSpec
	// value is the offending value that mutate sets; the test checks that
	// it breaks the marker (a Pattern does not match it, it is longer than
	// a MaxLength, not in an Enum, breaks an XValidation's name rule) and,
	// for a length, that it passes the field's Pattern.
	value  string
	mutate func(s *v1beta1.ArtifactGeneratorSpec, value string)
	// edit changes the spec's JSON, for what the released Go types cannot
	// express (an absent required field that they marshal anyway).
	edit  func(spec map[string]any)
	path  string
	types []field.ErrorType
	// also are the other paths at which an error may be reported: the
	// fields that the broken one makes wrong in turn (an alias reference
	// when spec.sources is empty). Any other path is an error of the test.
	also []string
}

// aliasReferences are the fields of the patterned spec that name the alias
// "repo".
var aliasReferences = []string{
	"spec.artifacts[0].copy[0].from",
	"spec.artifacts[0].inputsFrom",
	"spec.artifacts[0].originRevision",
	"spec.artifacts[0].revision",
	"spec.managedNamespaces.metadata.fromSource.path",
	"spec.pathPattern",
}

func strs(n int, f func(i int) string) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = f(i)
	}
	return out
}

func child(m map[string]any, keys ...string) map[string]any {
	for _, k := range keys {
		m = m[k].(map[string]any)
	}
	return m
}

var markerTests = []markerTest{
	// ArtifactGeneratorSpec XValidation: artifact names must be valid
	// Kubernetes object names when pathPattern is not set.
	{
		name: "static artifact name not a DNS-1123 subdomain", marker: markerNames, base: static,
		value: "App_1", mutate: func(s *v1beta1.ArtifactGeneratorSpec, v string) { s.OutputArtifacts[0].Name = v },
		path: "spec.artifacts[0].name", types: invalid,
	},
	{
		name: "static artifact name longer than 253", marker: markerNames, base: static,
		value: strings.Repeat("a", 254), mutate: func(s *v1beta1.ArtifactGeneratorSpec, v string) { s.OutputArtifacts[0].Name = v },
		path: "spec.artifacts[0].name", types: length,
	},
	// ArtifactGeneratorSpec XValidation: artifact namespaces must be valid
	// Kubernetes namespaces when pathPattern is not set.
	{
		name: "static artifact namespace not a DNS-1123 label", marker: markerNamespaces, base: static,
		value: "tenant.a", mutate: func(s *v1beta1.ArtifactGeneratorSpec, v string) { s.OutputArtifacts[0].Namespace = v },
		path: "spec.artifacts[0].namespace", types: invalid,
	},
	{
		name: "static artifact namespace longer than 63", marker: markerNamespaces, base: static,
		value: strings.Repeat("a", 64), mutate: func(s *v1beta1.ArtifactGeneratorSpec, v string) { s.OutputArtifacts[0].Namespace = v },
		path: "spec.artifacts[0].namespace", types: length,
	},
	// ArtifactGeneratorSpec.Sources MinItems=1, MaxItems=1000, +required.
	{
		name: "sources empty", marker: "ArtifactGeneratorSpec.Sources MinItems=1", base: patterned,
		mutate: func(s *v1beta1.ArtifactGeneratorSpec, _ string) { s.Sources = []v1beta1.SourceReference{} },
		path:   "spec.sources", types: required, also: aliasReferences,
	},
	{
		name: "sources absent", marker: "ArtifactGeneratorSpec.Sources required", base: patterned,
		edit: func(s map[string]any) { delete(s, "sources") },
		path: "spec.sources", types: required, also: aliasReferences,
	},
	{
		name: "sources 1001", marker: "ArtifactGeneratorSpec.Sources MaxItems=1000", base: patterned,
		mutate: func(s *v1beta1.ArtifactGeneratorSpec, _ string) {
			for i := range 1000 {
				s.Sources = append(s.Sources, v1beta1.SourceReference{Alias: fmt.Sprintf("s%d", i), Kind: "GitRepository", Name: fmt.Sprintf("s%d", i)})
			}
		},
		path: "spec.sources", types: tooMany,
	},
	// ArtifactGeneratorSpec.ServiceAccountName Pattern, MaxLength=63.
	{
		name: "serviceAccountName pattern", marker: `ArtifactGeneratorSpec.ServiceAccountName Pattern="^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"`, base: patterned,
		value: "Tenant_Provisioner", mutate: func(s *v1beta1.ArtifactGeneratorSpec, v string) { s.ServiceAccountName = v },
		path: "spec.serviceAccountName", types: invalid,
	},
	{
		name: "serviceAccountName longer than 63", marker: "ArtifactGeneratorSpec.ServiceAccountName MaxLength=63", base: patterned,
		value: strings.Repeat("a", 64), mutate: func(s *v1beta1.ArtifactGeneratorSpec, v string) { s.ServiceAccountName = v },
		path: "spec.serviceAccountName", types: length,
	},
	// ArtifactGeneratorSpec.PathPattern Pattern, MaxLength=1024.
	{
		name: "pathPattern without an alias", marker: `ArtifactGeneratorSpec.PathPattern Pattern="^@([a-z0-9]([a-z0-9_-]*[a-z0-9])?)/(.*)$"`, base: patterned,
		value: "repo/tenants/{namespace}/modules/{module}", mutate: func(s *v1beta1.ArtifactGeneratorSpec, v string) { s.PathPattern = v },
		path: "spec.pathPattern", types: invalid,
	},
	{
		name: "pathPattern longer than 1024", marker: "ArtifactGeneratorSpec.PathPattern MaxLength=1024", base: patterned,
		value:  pad("@repo/tenants/{namespace}/modules/{module}/", 1025),
		mutate: func(s *v1beta1.ArtifactGeneratorSpec, v string) { s.PathPattern = v },
		path:   "spec.pathPattern", types: length,
	},
	// ArtifactGeneratorSpec.OutputArtifacts MinItems=1, MaxItems=1000, +required.
	{
		name: "artifacts empty", marker: "ArtifactGeneratorSpec.OutputArtifacts MinItems=1", base: patterned,
		mutate: func(s *v1beta1.ArtifactGeneratorSpec, _ string) { s.OutputArtifacts = []v1beta1.OutputArtifact{} },
		path:   "spec.artifacts", types: required,
	},
	{
		name: "artifacts absent", marker: "ArtifactGeneratorSpec.OutputArtifacts required", base: patterned,
		edit: func(s map[string]any) { delete(s, "artifacts") },
		path: "spec.artifacts", types: required,
	},
	{
		name: "artifacts 1001", marker: "ArtifactGeneratorSpec.OutputArtifacts MaxItems=1000", base: patterned,
		mutate: func(s *v1beta1.ArtifactGeneratorSpec, _ string) {
			a := s.OutputArtifacts[0]
			s.OutputArtifacts = nil
			for i := range 1001 {
				a.Name = fmt.Sprintf("{module}-%d", i)
				s.OutputArtifacts = append(s.OutputArtifacts, a)
			}
		},
		path: "spec.artifacts", types: tooMany,
	},
	// ManagedNamespaces.AllowedNames MinItems=1, +required; Prune +required.
	{
		name: "allowedNames empty", marker: "ManagedNamespaces.AllowedNames MinItems=1", base: patterned,
		mutate: func(s *v1beta1.ArtifactGeneratorSpec, _ string) { s.ManagedNamespaces.AllowedNames = []string{} },
		path:   "spec.managedNamespaces.allowedNames", types: required,
	},
	{
		name: "allowedNames absent", marker: "ManagedNamespaces.AllowedNames required", base: patterned,
		edit: func(s map[string]any) { delete(child(s, "managedNamespaces"), "allowedNames") },
		path: "spec.managedNamespaces.allowedNames", types: required,
	},
	{
		name: "prune absent", marker: "ManagedNamespaces.Prune required", base: patterned,
		edit: func(s map[string]any) { delete(child(s, "managedNamespaces"), "prune") },
		path: "spec.managedNamespaces.prune", types: required,
	},
	// ManagedNamespacesMetadata XValidation: either fromSource or at least
	// one from operation must be set.
	{
		name: "metadata without fromSource or from", marker: markerMetadata, base: patterned,
		mutate: func(s *v1beta1.ArtifactGeneratorSpec, _ string) {
			s.ManagedNamespaces.Metadata = &v1beta1.ManagedNamespacesMetadata{}
		},
		path: "spec.managedNamespaces.metadata", types: required,
	},
	{
		name: "metadata with an empty from", marker: markerMetadata, base: patterned,
		mutate: func(s *v1beta1.ArtifactGeneratorSpec, _ string) {
			s.ManagedNamespaces.Metadata = &v1beta1.ManagedNamespacesMetadata{From: []v1beta1.NamespaceMetadataFrom{}}
		},
		path: "spec.managedNamespaces.metadata", types: required,
	},
	// NamespaceMetadataFromSource XValidation: at least one annotation or
	// label must be set.
	{
		name: "fromSource without label or annotation rules", marker: markerFromSource, base: patterned,
		mutate: func(s *v1beta1.ArtifactGeneratorSpec, _ string) {
			s.ManagedNamespaces.Metadata.FromSource.AllowedLabels = nil
			s.ManagedNamespaces.Metadata.FromSource.AllowedAnnotations = nil
		},
		path: "spec.managedNamespaces.metadata.fromSource", types: required,
	},
	// NamespaceMetadataFromSource.Path Pattern, MinLength=1, MaxLength=1024,
	// +required, and its doc comment: "Only namespace-level captures are
	// allowed".
	{
		name: "fromSource.path without an alias", marker: `NamespaceMetadataFromSource.Path Pattern="^@([a-z0-9]([a-z0-9_-]*[a-z0-9])?)/(.*)$"`, base: patterned,
		value: "repo/tenants/{namespace}/namespace-metadata.yaml", mutate: func(s *v1beta1.ArtifactGeneratorSpec, v string) { s.ManagedNamespaces.Metadata.FromSource.Path = v },
		path: "spec.managedNamespaces.metadata.fromSource.path", types: invalid,
	},
	{
		name: "fromSource.path empty", marker: "NamespaceMetadataFromSource.Path MinLength=1", base: patterned,
		mutate: func(s *v1beta1.ArtifactGeneratorSpec, _ string) { s.ManagedNamespaces.Metadata.FromSource.Path = "" },
		path:   "spec.managedNamespaces.metadata.fromSource.path", types: required,
	},
	{
		name: "fromSource.path absent", marker: "NamespaceMetadataFromSource.Path required", base: patterned,
		edit: func(s map[string]any) { delete(child(s, "managedNamespaces", "metadata", "fromSource"), "path") },
		path: "spec.managedNamespaces.metadata.fromSource.path", types: required,
	},
	{
		name: "fromSource.path longer than 1024", marker: "NamespaceMetadataFromSource.Path MaxLength=1024", base: patterned,
		value:  pad("@repo/tenants/{namespace}/", 1025),
		mutate: func(s *v1beta1.ArtifactGeneratorSpec, v string) { s.ManagedNamespaces.Metadata.FromSource.Path = v },
		path:   "spec.managedNamespaces.metadata.fromSource.path", types: length,
	},
	{
		name: "fromSource.path with a capture below the namespace", base: patterned,
		value:  "@repo/tenants/{namespace}/modules/{module}/namespace-metadata.yaml",
		mutate: func(s *v1beta1.ArtifactGeneratorSpec, v string) { s.ManagedNamespaces.Metadata.FromSource.Path = v },
		path:   "spec.managedNamespaces.metadata.fromSource.path", types: invalid,
	},
	// NamespaceMetadataFromSource.AllowedLabels and AllowedAnnotations, doc
	// comment: "a malformed expression or one that does not return a boolean
	// fails validation"; ManagedNamespaces.AllowedNames: "must return a
	// boolean".
	{
		name: "allowedLabels expression malformed", base: patterned,
		value: `value.matches(`,
		mutate: func(s *v1beta1.ArtifactGeneratorSpec, v string) {
			s.ManagedNamespaces.Metadata.FromSource.AllowedLabels["my.org.io/cost-center"] = v
		},
		path: "spec.managedNamespaces.metadata.fromSource.allowedLabels[my.org.io/cost-center]", types: invalid,
	},
	{
		name: "allowedAnnotations expression not a boolean", base: patterned,
		value: `value + "x"`,
		mutate: func(s *v1beta1.ArtifactGeneratorSpec, v string) {
			s.ManagedNamespaces.Metadata.FromSource.AllowedAnnotations["my.org.io/owner"] = v
		},
		path: "spec.managedNamespaces.metadata.fromSource.allowedAnnotations[my.org.io/owner]", types: invalid,
	},
	{
		name: "allowedNames expression not a boolean", base: patterned,
		value:  `ns + "x"`,
		mutate: func(s *v1beta1.ArtifactGeneratorSpec, v string) { s.ManagedNamespaces.AllowedNames[0] = v },
		path:   "spec.managedNamespaces.allowedNames[0]", types: invalid,
	},
	// NamespaceMetadataFrom.Strategy Enum=Reset;Override;Merge, +required.
	{
		name: "from strategy not supported", marker: "NamespaceMetadataFrom.Strategy Enum=Reset;Override;Merge", base: patterned,
		value: "Replace", mutate: func(s *v1beta1.ArtifactGeneratorSpec, v string) { s.ManagedNamespaces.Metadata.From[0].Strategy = v },
		path: "spec.managedNamespaces.metadata.from[0].strategy", types: notSupported,
	},
	{
		name: "from strategy empty", marker: "NamespaceMetadataFrom.Strategy required", base: patterned,
		mutate: func(s *v1beta1.ArtifactGeneratorSpec, _ string) { s.ManagedNamespaces.Metadata.From[0].Strategy = "" },
		path:   "spec.managedNamespaces.metadata.from[0].strategy", types: required,
	},
	// NamespaceMetadataFrom.Namespace Pattern, MaxLength=63, +required.
	{
		name: "from namespace pattern", marker: `NamespaceMetadataFrom.Namespace Pattern="^(\\*|[a-z0-9]([-a-z0-9]*[a-z0-9])?)$"`, base: patterned,
		value: "Tenant_A", mutate: func(s *v1beta1.ArtifactGeneratorSpec, v string) { s.ManagedNamespaces.Metadata.From[0].Namespace = v },
		path: "spec.managedNamespaces.metadata.from[0].namespace", types: invalid,
	},
	{
		name: "from namespace longer than 63", marker: "NamespaceMetadataFrom.Namespace MaxLength=63", base: patterned,
		value: strings.Repeat("a", 64), mutate: func(s *v1beta1.ArtifactGeneratorSpec, v string) { s.ManagedNamespaces.Metadata.From[0].Namespace = v },
		path: "spec.managedNamespaces.metadata.from[0].namespace", types: length,
	},
	{
		name: "from namespace empty", marker: "NamespaceMetadataFrom.Namespace required", base: patterned,
		mutate: func(s *v1beta1.ArtifactGeneratorSpec, _ string) { s.ManagedNamespaces.Metadata.From[0].Namespace = "" },
		path:   "spec.managedNamespaces.metadata.from[0].namespace", types: required,
	},
	// SourceReference.Alias Pattern, MaxLength=63, +required: broken on a
	// second, unused source, so that no reference to the alias breaks too.
	{
		name: "source alias pattern", marker: `SourceReference.Alias Pattern="^[a-z0-9]([a-z0-9_-]*[a-z0-9])?$"`, base: patterned,
		value: "Extra", mutate: addSource(func(r *v1beta1.SourceReference, v string) { r.Alias = v }),
		path: "spec.sources[1].alias", types: invalid,
	},
	{
		name: "source alias longer than 63", marker: "SourceReference.Alias MaxLength=63", base: patterned,
		value: strings.Repeat("a", 64), mutate: addSource(func(r *v1beta1.SourceReference, v string) { r.Alias = v }),
		path: "spec.sources[1].alias", types: length,
	},
	{
		name: "source alias empty", marker: "SourceReference.Alias required", base: patterned,
		mutate: addSource(func(r *v1beta1.SourceReference, _ string) { r.Alias = "" }),
		path:   "spec.sources[1].alias", types: required,
	},
	// SourceReference.Name Pattern (no dots), MaxLength=253, +required.
	{
		name: "source name with a dot", marker: `SourceReference.Name Pattern="^[a-z0-9]([a-z0-9-]*[a-z0-9])?$"`, base: patterned,
		value: "mono.repo", mutate: func(s *v1beta1.ArtifactGeneratorSpec, v string) { s.Sources[0].Name = v },
		path: "spec.sources[0].name", types: invalid,
	},
	{
		name: "source name uppercase", marker: `SourceReference.Name Pattern="^[a-z0-9]([a-z0-9-]*[a-z0-9])?$"`, base: patterned,
		value: "Monorepo", mutate: func(s *v1beta1.ArtifactGeneratorSpec, v string) { s.Sources[0].Name = v },
		path: "spec.sources[0].name", types: invalid,
	},
	{
		name: "source name longer than 253", marker: "SourceReference.Name MaxLength=253", base: patterned,
		value: strings.Repeat("a", 254), mutate: func(s *v1beta1.ArtifactGeneratorSpec, v string) { s.Sources[0].Name = v },
		path: "spec.sources[0].name", types: length,
	},
	{
		name: "source name empty", marker: "SourceReference.Name required", base: patterned,
		mutate: func(s *v1beta1.ArtifactGeneratorSpec, _ string) { s.Sources[0].Name = "" },
		path:   "spec.sources[0].name", types: required,
	},
	// SourceReference.Namespace Pattern, MaxLength=63.
	{
		name: "source namespace pattern", marker: `SourceReference.Namespace Pattern="^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"`, base: patterned,
		value: "flux.system", mutate: func(s *v1beta1.ArtifactGeneratorSpec, v string) { s.Sources[0].Namespace = v },
		path: "spec.sources[0].namespace", types: invalid,
	},
	{
		name: "source namespace longer than 63", marker: "SourceReference.Namespace MaxLength=63", base: patterned,
		value: strings.Repeat("a", 64), mutate: func(s *v1beta1.ArtifactGeneratorSpec, v string) { s.Sources[0].Namespace = v },
		path: "spec.sources[0].namespace", types: length,
	},
	// SourceReference.Kind Enum, +required.
	{
		name: "source kind not supported", marker: "SourceReference.Kind Enum=Bucket;GitRepository;OCIRepository;HelmChart;ExternalArtifact", base: patterned,
		value: "Kustomization", mutate: func(s *v1beta1.ArtifactGeneratorSpec, v string) { s.Sources[0].Kind = v },
		path: "spec.sources[0].kind", types: notSupported,
	},
	{
		name: "source kind in another case", marker: "SourceReference.Kind Enum=Bucket;GitRepository;OCIRepository;HelmChart;ExternalArtifact", base: patterned,
		value: "gitrepository", mutate: func(s *v1beta1.ArtifactGeneratorSpec, v string) { s.Sources[0].Kind = v },
		path: "spec.sources[0].kind", types: notSupported,
	},
	{
		name: "source kind empty", marker: "SourceReference.Kind required", base: patterned,
		mutate: func(s *v1beta1.ArtifactGeneratorSpec, _ string) { s.Sources[0].Kind = "" },
		path:   "spec.sources[0].kind", types: required,
	},
	// OutputArtifact.Name MaxLength=1024, +required; Namespace MaxLength=1024.
	{
		name: "artifact name longer than 1024", marker: "OutputArtifact.Name MaxLength=1024", base: patterned,
		value: pad("{module}-", 1025), mutate: func(s *v1beta1.ArtifactGeneratorSpec, v string) { s.OutputArtifacts[0].Name = v },
		path: "spec.artifacts[0].name", types: length,
	},
	{
		name: "artifact name empty", marker: "OutputArtifact.Name required", base: patterned,
		mutate: func(s *v1beta1.ArtifactGeneratorSpec, _ string) { s.OutputArtifacts[0].Name = "" },
		path:   "spec.artifacts[0].name", types: required,
	},
	{
		name: "artifact namespace longer than 1024", marker: "OutputArtifact.Namespace MaxLength=1024", base: patterned,
		value: pad("{namespace}", 1025), mutate: func(s *v1beta1.ArtifactGeneratorSpec, v string) { s.OutputArtifacts[0].Namespace = v },
		path: "spec.artifacts[0].namespace", types: length,
	},
	// OutputArtifact.InputsFrom Pattern, MaxLength=1024.
	{
		name: "inputsFrom without an alias", marker: `OutputArtifact.InputsFrom Pattern="^@([a-z0-9]([a-z0-9_-]*[a-z0-9])?)/(.*)$"`, base: patterned,
		value: "repo/tenants/{namespace}/modules/{module}/inputs.yaml", mutate: func(s *v1beta1.ArtifactGeneratorSpec, v string) { s.OutputArtifacts[0].InputsFrom = v },
		path: "spec.artifacts[0].inputsFrom", types: invalid,
	},
	{
		name: "inputsFrom longer than 1024", marker: "OutputArtifact.InputsFrom MaxLength=1024", base: patterned,
		value: pad("@repo/tenants/{namespace}/modules/{module}/", 1025), mutate: func(s *v1beta1.ArtifactGeneratorSpec, v string) { s.OutputArtifacts[0].InputsFrom = v },
		path: "spec.artifacts[0].inputsFrom", types: length,
	},
	// OutputArtifact.Revision and OriginRevision Pattern "^@alias$",
	// MaxLength=64.
	{
		name: "revision with a path", marker: `OutputArtifact.Revision Pattern="^@([a-z0-9]([a-z0-9_-]*[a-z0-9])?)$"`, base: patterned,
		value: "@repo/tenants", mutate: func(s *v1beta1.ArtifactGeneratorSpec, v string) { s.OutputArtifacts[0].Revision = v },
		path: "spec.artifacts[0].revision", types: invalid,
	},
	{
		name: "revision without @", marker: `OutputArtifact.Revision Pattern="^@([a-z0-9]([a-z0-9_-]*[a-z0-9])?)$"`, base: patterned,
		value: "repo", mutate: func(s *v1beta1.ArtifactGeneratorSpec, v string) { s.OutputArtifacts[0].Revision = v },
		path: "spec.artifacts[0].revision", types: invalid,
	},
	{
		name: "revision longer than 64", marker: "OutputArtifact.Revision MaxLength=64", base: patterned,
		value: "@" + strings.Repeat("a", 64), mutate: func(s *v1beta1.ArtifactGeneratorSpec, v string) { s.OutputArtifacts[0].Revision = v },
		path: "spec.artifacts[0].revision", types: length,
	},
	{
		name: "originRevision with a path", marker: `OutputArtifact.OriginRevision Pattern="^@([a-z0-9]([a-z0-9_-]*[a-z0-9])?)$"`, base: patterned,
		value: "@repo/tenants", mutate: func(s *v1beta1.ArtifactGeneratorSpec, v string) { s.OutputArtifacts[0].OriginRevision = v },
		path: "spec.artifacts[0].originRevision", types: invalid,
	},
	{
		name: "originRevision longer than 64", marker: "OutputArtifact.OriginRevision MaxLength=64", base: patterned,
		value: "@" + strings.Repeat("a", 64), mutate: func(s *v1beta1.ArtifactGeneratorSpec, v string) { s.OutputArtifacts[0].OriginRevision = v },
		path: "spec.artifacts[0].originRevision", types: length,
	},
	// OutputArtifact.Copy MinItems=1, +required.
	{
		name: "copy empty", marker: "OutputArtifact.Copy MinItems=1", base: patterned,
		mutate: func(s *v1beta1.ArtifactGeneratorSpec, _ string) {
			s.OutputArtifacts[0].Copy = []v1beta1.CopyOperation{}
		},
		path: "spec.artifacts[0].copy", types: required,
	},
	{
		name: "copy absent", marker: "OutputArtifact.Copy required", base: patterned,
		edit: func(s map[string]any) { delete(s["artifacts"].([]any)[0].(map[string]any), "copy") },
		path: "spec.artifacts[0].copy", types: required,
	},
	// CopyOperation.From Pattern, MinLength=1, MaxLength=1024, +required.
	{
		name: "copy from without an alias", marker: `CopyOperation.From Pattern="^@([a-z0-9]([a-z0-9_-]*[a-z0-9])?)/(.*)$"`, base: patterned,
		value: "repo/tenants/{namespace}/modules/{module}/manifests/**", mutate: func(s *v1beta1.ArtifactGeneratorSpec, v string) { s.OutputArtifacts[0].Copy[0].From = v },
		path: "spec.artifacts[0].copy[0].from", types: invalid,
	},
	{
		name: "copy from empty", marker: "CopyOperation.From MinLength=1", base: patterned,
		mutate: func(s *v1beta1.ArtifactGeneratorSpec, _ string) { s.OutputArtifacts[0].Copy[0].From = "" },
		path:   "spec.artifacts[0].copy[0].from", types: required,
	},
	{
		name: "copy from absent", marker: "CopyOperation.From required", base: patterned,
		edit: func(s map[string]any) { delete(copy0(s), "from") },
		path: "spec.artifacts[0].copy[0].from", types: required,
	},
	{
		name: "copy from longer than 1024", marker: "CopyOperation.From MaxLength=1024", base: patterned,
		value: pad("@repo/tenants/{namespace}/modules/{module}/", 1025), mutate: func(s *v1beta1.ArtifactGeneratorSpec, v string) { s.OutputArtifacts[0].Copy[0].From = v },
		path: "spec.artifacts[0].copy[0].from", types: length,
	},
	// CopyOperation.To Pattern (refuses ".." segments and any alias but
	// artifact), MinLength=1, MaxLength=1024, +required.
	{
		name: "copy to with a .. segment", marker: markerTo, base: patterned,
		value: "@artifact/a/../b", mutate: func(s *v1beta1.ArtifactGeneratorSpec, v string) { s.OutputArtifacts[0].Copy[0].To = v },
		path: "spec.artifacts[0].copy[0].to", types: invalid,
	},
	{
		name: "copy to ..", marker: markerTo, base: patterned,
		value: "@artifact/..", mutate: func(s *v1beta1.ArtifactGeneratorSpec, v string) { s.OutputArtifacts[0].Copy[0].To = v },
		path: "spec.artifacts[0].copy[0].to", types: invalid,
	},
	{
		name: "copy to another alias", marker: markerTo, base: patterned,
		value: "@repo/out/", mutate: func(s *v1beta1.ArtifactGeneratorSpec, v string) { s.OutputArtifacts[0].Copy[0].To = v },
		path: "spec.artifacts[0].copy[0].to", types: invalid,
	},
	{
		name: "copy to empty", marker: "CopyOperation.To MinLength=1", base: patterned,
		mutate: func(s *v1beta1.ArtifactGeneratorSpec, _ string) { s.OutputArtifacts[0].Copy[0].To = "" },
		path:   "spec.artifacts[0].copy[0].to", types: required,
	},
	{
		name: "copy to absent", marker: "CopyOperation.To required", base: patterned,
		edit: func(s map[string]any) { delete(copy0(s), "to") },
		path: "spec.artifacts[0].copy[0].to", types: required,
	},
	{
		name: "copy to longer than 1024", marker: "CopyOperation.To MaxLength=1024", base: patterned,
		value: pad("@artifact/", 1025), mutate: func(s *v1beta1.ArtifactGeneratorSpec, v string) { s.OutputArtifacts[0].Copy[0].To = v },
		path: "spec.artifacts[0].copy[0].to", types: length,
	},
	// CopyOperation.Exclude MaxItems=100, items:MaxLength=1024.
	{
		name: "exclude 101 items", marker: "CopyOperation.Exclude MaxItems=100", base: patterned,
		mutate: func(s *v1beta1.ArtifactGeneratorSpec, _ string) {
			s.OutputArtifacts[0].Copy[0].Exclude = strs(101, func(i int) string { return fmt.Sprintf("*.%d", i) })
		},
		path: "spec.artifacts[0].copy[0].exclude", types: tooMany,
	},
	{
		name: "exclude item longer than 1024", marker: "CopyOperation.Exclude items:MaxLength=1024", base: patterned,
		value: strings.Repeat("a", 1025), mutate: func(s *v1beta1.ArtifactGeneratorSpec, v string) { s.OutputArtifacts[0].Copy[0].Exclude = []string{v} },
		path: "spec.artifacts[0].copy[0].exclude[0]", types: length,
	},
	// CopyOperation.Strategy Enum=Overwrite;Merge;Extract.
	{
		name: "copy strategy in another case", marker: "CopyOperation.Strategy Enum=Overwrite;Merge;Extract", base: patterned,
		value: "overwrite", mutate: func(s *v1beta1.ArtifactGeneratorSpec, v string) { s.OutputArtifacts[0].Copy[0].Strategy = v },
		path: "spec.artifacts[0].copy[0].strategy", types: notSupported,
	},
	{
		name: "copy strategy not supported", marker: "CopyOperation.Strategy Enum=Overwrite;Merge;Extract", base: patterned,
		value: "Append", mutate: func(s *v1beta1.ArtifactGeneratorSpec, v string) { s.OutputArtifacts[0].Copy[0].Strategy = v },
		path: "spec.artifacts[0].copy[0].strategy", types: notSupported,
	},
}

// The long marker keys, as the released source writes them.
const (
	markerNames      = `ArtifactGeneratorSpec XValidation:rule="has(self.pathPattern) && size(self.pathPattern) > 0 || self.artifacts.all(a, a.name.matches('^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$') && a.name.size() <= 253)",message="artifact names must be valid Kubernetes object names when pathPattern is not set"`
	markerNamespaces = `ArtifactGeneratorSpec XValidation:rule="has(self.pathPattern) && size(self.pathPattern) > 0 || self.artifacts.all(a, !has(a.__namespace__) || (a.__namespace__.matches('^[a-z0-9]([-a-z0-9]*[a-z0-9])?$') && a.__namespace__.size() <= 63))",message="artifact namespaces must be valid Kubernetes namespaces when pathPattern is not set"`
	markerMetadata   = `ManagedNamespacesMetadata XValidation:rule="has(self.fromSource) || (has(self.from) && size(self.from) > 0)",message="either fromSource or at least one from operation must be set"`
	markerFromSource = `NamespaceMetadataFromSource XValidation:rule="(has(self.allowedAnnotations) && size(self.allowedAnnotations) > 0) || (has(self.allowedLabels) && size(self.allowedLabels) > 0)",message="at least one annotation or label must be set"`
	markerTo         = `CopyOperation.To Pattern="^@artifact/([^/]{0,1}|[^./][^/]|[.][^./]|[^/]{3,})(/([^/]{0,1}|[^./][^/]|[.][^./]|[^/]{3,}))*$"`
)

// pad returns prefix followed by "a"s, n bytes in all.
func pad(prefix string, n int) string {
	return prefix + strings.Repeat("a", n-len(prefix))
}

// addSource appends a second, valid source that set then breaks.
func addSource(set func(r *v1beta1.SourceReference, v string)) func(s *v1beta1.ArtifactGeneratorSpec, v string) {
	return func(s *v1beta1.ArtifactGeneratorSpec, v string) {
		r := v1beta1.SourceReference{Alias: "extra", Kind: "GitRepository", Name: "extra"}
		set(&r, v)
		s.Sources = append(s.Sources, r)
	}
}

func copy0(s map[string]any) map[string]any {
	return s["artifacts"].([]any)[0].(map[string]any)["copy"].([]any)[0].(map[string]any)
}

// toSpec converts a released spec into generator.Spec through its JSON, as
// a controller or a tool reads a manifest, with edit applied to the JSON.
func toSpec(t *testing.T, s v1beta1.ArtifactGeneratorSpec, edit func(map[string]any)) generator.Spec {
	t.Helper()
	m, ok := jsonValue(t, s).(map[string]any)
	if !ok {
		t.Fatal("spec is not a JSON object")
	}
	if edit != nil {
		edit(m)
	}
	data, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	spec, err := decodeSpec(data)
	if err != nil {
		t.Fatalf("generator.Spec refuses the spec: %v", err)
	}
	return spec
}

func compile(spec generator.Spec) field.ErrorList {
	_, errs := generator.Compile(spec, generator.WithNamespace(testNamespace), generator.WithUID(testUID))
	return errs
}

// TestValidationBaselines checks that both baselines of markerTests compile
// without an error.
func TestValidationBaselines(t *testing.T) {
	t.Parallel()
	for name, base := range map[string]func() v1beta1.ArtifactGeneratorSpec{"patterned": patterned, "static": static} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if errs := compile(toSpec(t, base(), nil)); len(errs) > 0 {
				t.Errorf("baseline does not compile: %v", errs)
			}
		})
	}
}

// TestValidationMarkers breaks one released rule per case and checks that
// Compile reports it at the field's path with the type the marker maps to,
// and reports nothing else.
func TestValidationMarkers(t *testing.T) {
	t.Parallel()
	markers := releasedMarkers(t)
	for _, tt := range markerTests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if tt.marker != "" {
				if _, ok := markers[tt.marker]; !ok {
					t.Fatalf("marker %s is not in the released source", tt.marker)
				}
				checkBreaks(t, markers, tt.marker, tt.value)
			}
			s := tt.base()
			if tt.mutate != nil {
				tt.mutate(&s, tt.value)
			}
			errs := compile(toSpec(t, s, tt.edit))
			found := false
			for _, e := range errs {
				if e.Field != tt.path {
					if slices.Contains(tt.also, e.Field) {
						continue
					}
					t.Errorf("error at another path than %s: %v", tt.path, e)
					continue
				}
				found = found || slices.Contains(tt.types, e.Type)
			}
			if !found {
				t.Errorf("want an error at %s of type %v, got %d errors: %v", tt.path, tt.types, len(errs), errs)
			}
		})
	}
}

// TestCopyToAccepted compiles destinations that the released To pattern
// accepts, though they hold a "." segment, an empty one or a name of dots
// other than "..": the pattern refuses ".." alone.
func TestCopyToAccepted(t *testing.T) {
	t.Parallel()
	markers := releasedMarkers(t)
	if _, ok := markers[markerTo]; !ok {
		t.Fatalf("marker %s is not in the released source", markerTo)
	}
	quoted := strings.TrimPrefix(markerTo, "CopyOperation.To Pattern=")
	for _, to := range []string{"@artifact/./x", "@artifact/a/.", "@artifact/.x", "@artifact/.../x", "@artifact/a//x", "@artifact/x/"} {
		t.Run(to, func(t *testing.T) {
			t.Parallel()
			if !matchPattern(t, quoted, to) {
				t.Fatalf("the released pattern refuses %q", to)
			}
			s := patterned()
			s.OutputArtifacts[0].Copy[0].To = to
			if errs := compile(toSpec(t, s, nil)); len(errs) > 0 {
				t.Errorf("to %q: %v", to, errs)
			}
		})
	}
}

// TestMarkersCovered checks that every validation marker of the released
// spec types has a case in markerTests or a reason in untestableMarkers.
func TestMarkersCovered(t *testing.T) {
	t.Parallel()
	markers := releasedMarkers(t)
	covered := map[string]bool{}
	for _, tt := range markerTests {
		covered[tt.marker] = true
	}
	for _, k := range sortedKeys(markers) {
		_, untestable := untestableMarkers[k]
		switch {
		case covered[k] && untestable:
			t.Errorf("%s: both covered and listed untestable", k)
		case !covered[k] && !untestable:
			t.Errorf("%s: released marker without a case", k)
		}
	}
	for k := range untestableMarkers {
		if _, ok := markers[k]; !ok {
			t.Errorf("%s: listed untestable, but not in the released source", k)
		}
	}
	if len(markers) < 50 {
		t.Errorf("read only %d markers from the released source", len(markers))
	}
}

// checkBreaks checks that value breaks the marker it is meant to break and,
// for a length, no Pattern of the same field.
func checkBreaks(t *testing.T, markers map[string]string, key, value string) {
	t.Helper()
	fieldName, m, _ := strings.Cut(key, " ")
	name, arg, _ := strings.Cut(m, "=")
	switch name {
	case "Pattern":
		if matchPattern(t, arg, value) {
			t.Fatalf("%q matches the released pattern %s: the case breaks nothing", value, arg)
		}
	case "MaxLength", "items:MaxLength":
		n, err := strconv.Atoi(arg)
		if err != nil {
			t.Fatal(err)
		}
		if len(value) <= n {
			t.Fatalf("%q is %d bytes, within %s", value, len(value), m)
		}
		if name == "MaxLength" {
			for k, v := range markers {
				if p, ok := strings.CutPrefix(k, fieldName+" Pattern="); ok && v == "Pattern" && !matchPattern(t, p, value) {
					t.Fatalf("%q breaks the field's Pattern too: the case breaks two rules", value)
				}
			}
		}
	case "Enum":
		if slices.Contains(strings.Split(arg, ";"), value) {
			t.Fatalf("%q is in %s", value, m)
		}
	case "XValidation:rule":
		// The name and namespace rules: value must fail matches('re') &&
		// size() <= n.
		rule, err := strconv.Unquote(arg[:strings.Index(arg, `",message=`)+1])
		if err != nil {
			t.Fatal(err)
		}
		re := regexp.MustCompile(`matches\('([^']*)'\) && a\.[a-z_]+\.size\(\) <= ([0-9]+)`).FindStringSubmatch(rule)
		if re == nil {
			return // the other rules check presence, not a value
		}
		n, _ := strconv.Atoi(re[2])
		// CEL reads '\\.' as the regular expression \. .
		if regexp.MustCompile(strings.ReplaceAll(re[1], `\\`, `\`)).MatchString(value) && len(value) <= n {
			t.Fatalf("%q passes the released rule %s", value, rule)
		}
	}
}

func matchPattern(t *testing.T, quoted, value string) bool {
	t.Helper()
	p, err := strconv.Unquote(quoted)
	if err != nil {
		t.Fatalf("pattern %s: %v", quoted, err)
	}
	return regexp.MustCompile(p).MatchString(value)
}

// releasedMarkers returns the validation markers of the released spec
// types, read from the source of the module this module builds with: each
// key is the Go type, ".", the field (none for a type's own markers), a
// space, and the marker after "+kubebuilder:validation:" ("required" for
// +required); each value is the marker's name ("Pattern", "MaxLength", ...).
func releasedMarkers(t *testing.T) map[string]string {
	t.Helper()
	markers, err := readMarkers()
	if err != nil {
		t.Fatal(err)
	}
	return markers
}

// readMarkers reads the released markers once for all tests; the map is
// not modified.
var readMarkers = sync.OnceValues(func() (map[string]string, error) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/fluxcd/source-watcher/api/v2").Output()
	if err != nil {
		return nil, fmt.Errorf("go list: %w", err)
	}
	file := filepath.Join(strings.TrimSpace(string(out)), "v1beta1", "artifactgenerator_types.go")
	f, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.ParseComments)
	if err != nil {
		return nil, err
	}
	types := specTypes()
	markers := map[string]string{}
	add := func(key string, doc *ast.CommentGroup) {
		if doc == nil {
			return
		}
		for _, c := range doc.List {
			text := strings.TrimSpace(strings.TrimPrefix(c.Text, "//"))
			switch {
			case strings.HasPrefix(text, "+kubebuilder:validation:"):
				m := strings.TrimPrefix(text, "+kubebuilder:validation:")
				name, _, _ := strings.Cut(m, "=")
				markers[key+" "+m] = name
			case text == "+required":
				markers[key+" required"] = "required"
			}
		}
	}
	for _, d := range f.Decls {
		gd, ok := d.(*ast.GenDecl)
		if !ok || gd.Tok != token.TYPE {
			continue
		}
		for _, s := range gd.Specs {
			ts := s.(*ast.TypeSpec)
			st, ok := ts.Type.(*ast.StructType)
			if !ok || !types[ts.Name.Name] {
				continue
			}
			doc := ts.Doc
			if doc == nil && len(gd.Specs) == 1 {
				doc = gd.Doc
			}
			add(ts.Name.Name, doc)
			for _, fld := range st.Fields.List {
				for _, n := range fld.Names {
					add(ts.Name.Name+"."+n.Name, fld.Doc)
				}
			}
		}
	}
	return markers, nil
})

// specTypes returns the names of the released struct types that
// ArtifactGeneratorSpec holds, itself included.
func specTypes() map[string]bool {
	pkg := reflect.TypeFor[v1beta1.ArtifactGeneratorSpec]().PkgPath()
	out := map[string]bool{}
	var walk func(t reflect.Type)
	walk = func(t reflect.Type) {
		for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Map {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct || t.PkgPath() != pkg || out[t.Name()] {
			return
		}
		out[t.Name()] = true
		for i := range t.NumField() {
			walk(t.Field(i).Type)
		}
	}
	walk(reflect.TypeFor[v1beta1.ArtifactGeneratorSpec]())
	return out
}
