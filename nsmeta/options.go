package nsmeta

import (
	"maps"
	"slices"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/tenantkit/tenantkit/cel"
)

// Each constructor has its own option type, so that an option passed to the
// wrong one is a compile error.

// SchemaOption configures CompileSchema: WithStrict, WithSchemaCache.
type SchemaOption func(*schemaOptions)

type schemaOptions struct {
	cache  *cel.Cache
	strict bool
}

// WithStrict makes Schema.Apply report a key that the schema does not list
// as an error instead of a warning.
//
//	s, errs := nsmeta.CompileSchema(labels, annotations, fldPath, nsmeta.WithStrict())
func WithStrict() SchemaOption {
	return func(o *schemaOptions) { o.strict = true }
}

// WithSchemaCache compiles the schema's rules through c, so that a
// controller that sees the same policy on every reconcile compiles each
// rule once. A nil c compiles every rule afresh, which is also the default.
func WithSchemaCache(c *cel.Cache) SchemaOption {
	return func(o *schemaOptions) { o.cache = c }
}

// NamePolicyOption configures NewNamePolicy: WithProtectedNames,
// WithoutDefaultProtectedNames, WithNamePolicyCache.
type NamePolicyOption func(*namePolicyOptions)

type namePolicyOptions struct {
	cache              *cel.Cache
	protected          []string
	noDefaultProtected bool
}

// WithProtectedNames adds names to the protected namespace names, typically
// the namespace of the generator itself:
//
//	p, errs := nsmeta.NewNamePolicy(names, fldPath, nsmeta.WithProtectedNames("flux-system"))
//
// Each name must be a DNS-1123 label; a bad one is an error at
// protectedNames[i], a path of the option rather than of a field.
func WithProtectedNames(names ...string) NamePolicyOption {
	return func(o *namePolicyOptions) { o.protected = append(o.protected, names...) }
}

// WithoutDefaultProtectedNames drops DefaultProtectedNames from the protected
// names; together with WithProtectedNames it replaces the list.
func WithoutDefaultProtectedNames() NamePolicyOption {
	return func(o *namePolicyOptions) { o.noDefaultProtected = true }
}

// WithNamePolicyCache compiles the allowedNames rules through c, as
// WithSchemaCache does for a schema.
func WithNamePolicyCache(c *cel.Cache) NamePolicyOption {
	return func(o *namePolicyOptions) { o.cache = c }
}

// PipelineOption gives NewPipeline one of its steps, with the field path
// under which its problems are reported: WithCommon, WithOperations,
// WithFinal. A step given twice takes the last one.
type PipelineOption func(*pipelineOptions)

type pipelineOptions struct {
	common, final         Metadata
	ops                   []Operation
	commonPath, finalPath *field.Path
	opsPath               *field.Path
}

// WithCommon sets the first step, spec.commonMetadata, validated under
// fldPath:
//
//	nsmeta.WithCommon(common, field.NewPath("spec", "commonMetadata"))
func WithCommon(m Metadata, fldPath *field.Path) PipelineOption {
	return func(o *pipelineOptions) { o.common, o.commonPath = m, fldPath }
}

// WithOperations sets the operations of the third step,
// spec.managedNamespaces.metadata.from, validated under fldPath, the path
// of the list:
//
//	nsmeta.WithOperations(ops, field.NewPath("spec", "managedNamespaces", "metadata", "from"))
func WithOperations(ops []Operation, fldPath *field.Path) PipelineOption {
	return func(o *pipelineOptions) { o.ops, o.opsPath = ops, fldPath }
}

// WithFinal sets the last step, the caller's own metadata (ownership
// labels) that nothing can override, validated under fldPath, the path of
// whatever the caller built it from.
func WithFinal(m Metadata, fldPath *field.Path) PipelineOption {
	return func(o *pipelineOptions) { o.final, o.finalPath = m, fldPath }
}

// compile compiles expr with vars through c when it is not nil.
func compile(c *cel.Cache, expr string, vars ...string) (*cel.Program, error) {
	if c != nil {
		return c.Compile(expr, vars...)
	}
	return cel.Compile(expr, vars...)
}

// cloneMetadata returns a copy of m that shares no storage with it.
func cloneMetadata(m Metadata) Metadata {
	return Metadata{Labels: maps.Clone(m.Labels), Annotations: maps.Clone(m.Annotations)}
}

// cloneOperations returns a copy of ops that shares no storage with it.
func cloneOperations(ops []Operation) []Operation {
	ops = slices.Clone(ops)
	for i := range ops {
		ops[i].Metadata = cloneMetadata(ops[i].Metadata)
	}
	return ops
}
