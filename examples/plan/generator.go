package main

import (
	"fmt"

	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"
)

// The ArtifactGenerator manifest, as far as the plan needs it. Field names
// follow source-watcher's API with the tenant-provisioning additions.
type (
	generator struct {
		APIVersion string        `json:"apiVersion"`
		Kind       string        `json:"kind"`
		Metadata   objectMeta    `json:"metadata"`
		Spec       generatorSpec `json:"spec"`
	}

	objectMeta struct {
		Name        string            `json:"name"`
		Namespace   string            `json:"namespace,omitempty"`
		UID         string            `json:"uid,omitempty"`
		Labels      map[string]string `json:"labels,omitempty"`
		Annotations map[string]string `json:"annotations,omitempty"`
	}

	generatorSpec struct {
		ServiceAccountName string             `json:"serviceAccountName,omitempty"`
		PathPattern        string             `json:"pathPattern,omitempty"`
		CommonMetadata     *metadataSpec      `json:"commonMetadata,omitempty"`
		Sources            []sourceSpec       `json:"sources"`
		Artifacts          []artifactSpec     `json:"artifacts"`
		ManagedNamespaces  *managedNamespaces `json:"managedNamespaces,omitempty"`
	}

	metadataSpec struct {
		Labels      map[string]string `json:"labels,omitempty"`
		Annotations map[string]string `json:"annotations,omitempty"`
	}

	sourceSpec struct {
		Alias     string `json:"alias"`
		Kind      string `json:"kind"`
		Name      string `json:"name"`
		Namespace string `json:"namespace,omitempty"`
	}

	artifactSpec struct {
		Name           string     `json:"name"`
		Namespace      string     `json:"namespace,omitempty"`
		InputsFrom     string     `json:"inputsFrom,omitempty"`
		OriginRevision string     `json:"originRevision,omitempty"`
		Copy           []copySpec `json:"copy"`
	}

	copySpec struct {
		From     string   `json:"from"`
		To       string   `json:"to"`
		Exclude  []string `json:"exclude,omitempty"`
		Strategy string   `json:"strategy,omitempty"`
	}

	managedNamespaces struct {
		AllowedNames []string           `json:"allowedNames"`
		Prune        *bool              `json:"prune"`
		Metadata     *namespaceMetadata `json:"metadata,omitempty"`
	}

	namespaceMetadata struct {
		FromSource *fromSource     `json:"fromSource,omitempty"`
		From       []operationSpec `json:"from,omitempty"`
	}

	fromSource struct {
		Path               string            `json:"path"`
		AllowedLabels      map[string]string `json:"allowedLabels,omitempty"`
		AllowedAnnotations map[string]string `json:"allowedAnnotations,omitempty"`
	}

	operationSpec struct {
		Strategy    string            `json:"strategy"`
		Namespace   string            `json:"namespace"`
		Labels      map[string]string `json:"labels,omitempty"`
		Annotations map[string]string `json:"annotations,omitempty"`
	}
)

// maxManifestBytes bounds the generator, inventory and cluster files the
// tool reads: they come from the platform team, but a wrong path must not
// make the preview read a disk image.
const maxManifestBytes = 16 << 20

const (
	generatorAPIVersion = "source.extensions.fluxcd.io/v1beta1"
	generatorKind       = "ArtifactGenerator"
)

// parseGenerator decodes an ArtifactGenerator manifest strictly: unknown and
// duplicate fields are errors, so a typo in the spec never silently drops a
// policy.
func parseGenerator(data []byte) (*generator, error) {
	docs, err := yamlDocuments(data)
	if err != nil {
		return nil, fmt.Errorf("decoding the ArtifactGenerator: %w", err)
	}
	if len(docs) > 1 {
		return nil, fmt.Errorf("decoding the ArtifactGenerator: the file must hold one YAML document, found %d", len(docs))
	}
	var g generator
	if err := yaml.UnmarshalStrict(data, &g); err != nil {
		return nil, fmt.Errorf("decoding the ArtifactGenerator: %w", err)
	}
	return &g, nil
}

// validateShape checks what can be checked without the library: the type
// fields and the required fields. The library checks the pattern, the
// templates, the policies and the operations, each at its own path.
func (g *generator) validateShape() field.ErrorList {
	var errs field.ErrorList
	if g.APIVersion != generatorAPIVersion {
		errs = append(errs, field.NotSupported(field.NewPath("apiVersion"), g.APIVersion, []string{generatorAPIVersion}))
	}
	if g.Kind != generatorKind {
		errs = append(errs, field.NotSupported(field.NewPath("kind"), g.Kind, []string{generatorKind}))
	}
	spec := field.NewPath("spec")
	if g.Spec.PathPattern == "" {
		errs = append(errs, field.Required(spec.Child("pathPattern"), "the pattern that discovers tenants and modules"))
	}
	if len(g.Spec.Sources) == 0 {
		errs = append(errs, field.Required(spec.Child("sources"), "at least one source"))
	}
	seen := map[string]int{}
	for i, s := range g.Spec.Sources {
		p := spec.Child("sources").Index(i).Child("alias")
		if s.Alias == "" {
			errs = append(errs, field.Required(p, ""))
		} else if j, dup := seen[s.Alias]; dup {
			errs = append(errs, field.Duplicate(p, fmt.Sprintf("%s (also spec.sources[%d].alias)", s.Alias, j)))
		} else {
			seen[s.Alias] = i
		}
	}
	if len(g.Spec.Artifacts) == 0 {
		errs = append(errs, field.Required(spec.Child("artifacts"), "at least one artifact"))
	}
	for i, a := range g.Spec.Artifacts {
		p := spec.Child("artifacts").Index(i)
		if a.Name == "" {
			errs = append(errs, field.Required(p.Child("name"), ""))
		}
		if len(a.Copy) == 0 {
			errs = append(errs, field.Required(p.Child("copy"), "at least one copy operation"))
		}
		for j, c := range a.Copy {
			cp := p.Child("copy").Index(j)
			if c.From == "" {
				errs = append(errs, field.Required(cp.Child("from"), ""))
			}
			if c.To == "" {
				errs = append(errs, field.Required(cp.Child("to"), ""))
			}
			if c.Strategy != "" && c.Strategy != "Overwrite" {
				errs = append(errs, field.NotSupported(cp.Child("strategy"), c.Strategy, []string{"Overwrite"}))
			}
		}
	}
	if m := g.Spec.ManagedNamespaces; m != nil {
		p := spec.Child("managedNamespaces")
		if len(m.AllowedNames) == 0 {
			errs = append(errs, field.Required(p.Child("allowedNames"), `at least one CEL expression over "ns"; use ["true"] to allow any name`))
		}
		if m.Prune == nil {
			errs = append(errs, field.Required(p.Child("prune"), "whether to delete managed namespaces no artifact uses"))
		}
		if m.Metadata != nil && m.Metadata.FromSource != nil && m.Metadata.FromSource.Path == "" {
			errs = append(errs, field.Required(p.Child("metadata", "fromSource", "path"), ""))
		}
	}
	return errs
}
