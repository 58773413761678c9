package main

import (
	"fmt"

	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"

	"github.com/tenantkit/tenantkit/generator"
	"github.com/tenantkit/tenantkit/internal/yamldoc"
)

// manifest is an ArtifactGenerator manifest: the type fields, the metadata
// the plan needs, and the spec in generator's types.
type manifest struct {
	APIVersion string         `json:"apiVersion"`
	Kind       string         `json:"kind"`
	Metadata   objectMeta     `json:"metadata"`
	Spec       generator.Spec `json:"spec"`
	Status     *struct {
		Inventory any `json:"inventory,omitempty"`
	} `json:"status,omitempty"`
}

type objectMeta struct {
	Name        string            `json:"name"`
	Namespace   string            `json:"namespace,omitempty"`
	UID         string            `json:"uid,omitempty"`
	Labels      map[string]string `json:"labels,omitempty"`
	Annotations map[string]string `json:"annotations,omitempty"`
}

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
func parseGenerator(data []byte) (*manifest, error) {
	docs, err := yamldoc.Documents(data)
	if err != nil {
		return nil, fmt.Errorf("decoding the ArtifactGenerator: %w", err)
	}
	if len(docs) > 1 {
		return nil, fmt.Errorf("decoding the ArtifactGenerator: the file must hold one YAML document, found %d", len(docs))
	}
	var g manifest
	if err := yaml.UnmarshalStrict(data, &g); err != nil {
		return nil, fmt.Errorf("decoding the ArtifactGenerator: %w", err)
	}
	return &g, nil
}

// validateType checks the type fields, which generator.Compile does not see.
func (g *manifest) validateType() field.ErrorList {
	var errs field.ErrorList
	if g.APIVersion != generatorAPIVersion {
		errs = append(errs, field.NotSupported(field.NewPath("apiVersion"), g.APIVersion, []string{generatorAPIVersion}))
	}
	if g.Kind != generatorKind {
		errs = append(errs, field.NotSupported(field.NewPath("kind"), g.Kind, []string{generatorKind}))
	}
	return errs
}
