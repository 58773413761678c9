package agmanifest

import (
	"maps"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/tenantkit/tenantkit/internal/jsonfit"
)

// The type fields of an ArtifactGenerator.
const (
	// APIVersion is an ArtifactGenerator's apiVersion.
	APIVersion = "source.extensions.fluxcd.io/v1beta1"
	// Kind is an ArtifactGenerator's kind.
	Kind = "ArtifactGenerator"
)

// Manifest is an ArtifactGenerator manifest: the metadata a plan needs, and the spec as S.
type Manifest[S any] struct {
	Metadata Metadata
	Spec     S
}

// Metadata is the part of an ArtifactGenerator's metadata that a plan reads, and what else a
// manifest as written may hold there.
type Metadata struct {
	Name      string `json:"name"`
	Namespace string `json:"namespace,omitempty"`
	// UID is the value of the generator label (generator.GeneratorLabel) the plan applies.
	UID         string            `json:"uid,omitempty"`
	Labels      map[string]string `json:"labels,omitempty"`
	Annotations map[string]string `json:"annotations,omitempty"`
}

// ServerSetMetadata are the fields of metadata that the API server sets and kubectl get -o
// yaml prints: [Decode] ignores them, so that an exported ArtifactGenerator reads as it is.
var ServerSetMetadata = []string{
	"creationTimestamp", "deletionGracePeriodSeconds", "deletionTimestamp", "finalizers", "generateName",
	"generation", "managedFields", "ownerReferences", "resourceVersion", "selfLink",
}

// Decode reads an ArtifactGenerator manifest (see the package documentation). The type fields
// must be the ArtifactGenerator's ([Find]); [ServerSetMetadata] and the status are ignored;
// every other field is decoded strictly, so that a typo in the spec never silently drops a
// policy. The error is an [*Error] wrapping [ErrSyntax], [ErrNotGenerator] or [ErrFields].
//
//	m, err := agmanifest.Decode[generator.Spec](data) // "spec.artifacts[0].copy[0].frm: unknown field"
func Decode[S any](data []byte) (*Manifest[S], error) {
	doc, err := Parse(data)
	if err != nil {
		return nil, err
	}
	obj, at, err := Find(doc)
	if err != nil {
		return nil, err
	}
	kept := maps.Clone(obj)
	for _, k := range []string{"apiVersion", "kind", "status"} {
		delete(kept, k) // Find checks the type fields; the status is the controller's
	}
	if meta, ok := kept["metadata"].(map[string]any); ok {
		meta = maps.Clone(meta)
		for _, k := range ServerSetMetadata {
			delete(meta, k)
		}
		kept["metadata"] = meta
	}
	var m Manifest[S]
	fields := struct {
		Metadata *Metadata `json:"metadata"`
		Spec     *S        `json:"spec"`
	}{&m.Metadata, &m.Spec}
	if err := problems(jsonfit.Decode(kept, at, &fields, jsonfit.RefuseUnknown)).err(); err != nil {
		return nil, err
	}
	return &m, nil
}

// Find returns the ArtifactGenerator that doc (as [Parse] returns it) is, or that the List doc
// holds, with its path (nil, or "items[0]"). Other type fields, a value that is not a mapping,
// or a List that holds none or several is an error wrapping [ErrNotGenerator] naming what it
// found and expected; a List with a field a List does not have, one wrapping [ErrFields].
func Find(doc any) (map[string]any, *field.Path, error) {
	obj, ok := doc.(map[string]any)
	if !ok {
		return nil, nil, newError(ErrNotGenerator, "", "must be an %s, a mapping, found %s", Kind, jsonfit.Kind(doc))
	}
	var at *field.Path
	if kind, _ := obj["kind"].(string); kind == "List" || kind == Kind+"List" {
		var ps problems
		for _, k := range slices.Sorted(maps.Keys(obj)) {
			if k != "apiVersion" && k != "kind" && k != "metadata" && k != "items" {
				ps = append(ps, Problem{Field: k, Detail: "unknown field"})
			}
		}
		if err := ps.err(); err != nil {
			return nil, nil, err
		}
		items, ok := obj["items"].([]any)
		if obj["items"] != nil && !ok {
			return nil, nil, newError(ErrNotGenerator, "items", "must be a list, found %s", jsonfit.Kind(obj["items"]))
		}
		if len(items) != 1 {
			return nil, nil, newError(ErrNotGenerator, "", "a %s must hold exactly one %s, found %d items%s",
				kind, Kind, len(items), listed(items))
		}
		at = field.NewPath("items").Index(0)
		if obj, ok = items[0].(map[string]any); !ok {
			return nil, nil, newError(ErrNotGenerator, at.String(), "must be an %s, a mapping, found %s", Kind, jsonfit.Kind(items[0]))
		}
	}
	// The kind first: a NamespaceList or a Kustomization is named as such.
	for _, tf := range []struct{ name, want string }{{"kind", Kind}, {"apiVersion", APIVersion}} {
		got, ok := obj[tf.name].(string)
		switch {
		case obj[tf.name] == nil:
			return nil, nil, newError(ErrNotGenerator, at.Child(tf.name).String(), "must be %q, found none", tf.want)
		case !ok:
			return nil, nil, newError(ErrNotGenerator, at.Child(tf.name).String(), "must be %q, found %s", tf.want, jsonfit.Kind(obj[tf.name]))
		case got != tf.want:
			return nil, nil, newError(ErrNotGenerator, at.Child(tf.name).String(), "must be %q, found %q", tf.want, got)
		}
	}
	return obj, at, nil
}

// listed names the objects of a List that holds several (": ArtifactGenerator flux-system/a,
// ...; kubectl get artifactgenerator NAME -o yaml prints one"), or "".
func listed(items []any) string {
	if len(items) < 2 {
		return ""
	}
	var names []string
	for i, it := range items {
		if i == maxNamed {
			names = append(names, "...")
			break
		}
		o, _ := it.(map[string]any)
		kind, _ := o["kind"].(string)
		meta, _ := o["metadata"].(map[string]any)
		ns, _ := meta["namespace"].(string)
		name, _ := meta["name"].(string)
		names = append(names, strings.TrimSpace(kind+" "+strings.TrimPrefix(ns+"/"+name, "/")))
	}
	return ": " + strings.Join(names, ", ") + "; kubectl get artifactgenerator NAME -o yaml prints one"
}
