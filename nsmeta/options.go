package nsmeta

import (
	"fmt"

	"github.com/tenantkit/tenantkit/cel"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Option configures CompileSchema or NewNamePolicy. An option that does not
// apply to the constructor it is passed to is an error wrapping
// ErrInvalidOption, so that a misplaced option never goes unnoticed.
type Option func(*options)

type options struct {
	cache *cel.Cache
	path  *field.Path

	// schema only
	strict bool

	// name policy only
	protected          []string
	noDefaultProtected bool

	// names of the options given, to reject those that do not apply
	schemaOnly, policyOnly []string
}

// WithCache compiles expressions through c, so that a controller that sees
// the same policy on every reconcile compiles each expression once.
//
//	s, err := nsmeta.CompileSchema(labels, annotations, nsmeta.WithCache(cache))
//
// A nil c compiles every expression afresh, which is also the default.
func WithCache(c *cel.Cache) Option {
	return func(o *options) { o.cache = c }
}

// WithFieldPath roots the field paths of constructor errors at p, so that
// they name the field of the caller's object:
//
//	nsmeta.NewNamePolicy(names, nsmeta.WithFieldPath(field.NewPath("spec", "managedNamespaces")))
//
// reports spec.managedNamespaces.allowedNames[0] rather than allowedNames[0].
func WithFieldPath(p *field.Path) Option {
	return func(o *options) { o.path = p }
}

// WithStrict makes Schema.Apply report a key that the schema does not list
// as an error instead of a warning. It applies to CompileSchema only.
func WithStrict() Option {
	return func(o *options) {
		o.strict = true
		o.schemaOnly = append(o.schemaOnly, "WithStrict")
	}
}

// WithProtectedNames adds names to the protected namespace names, typically
// the namespace of the generator itself:
//
//	nsmeta.NewNamePolicy(names, nsmeta.WithProtectedNames("flux-system"))
//
// Each name must be a DNS-1123 label. It applies to NewNamePolicy only.
func WithProtectedNames(names ...string) Option {
	return func(o *options) {
		o.protected = append(o.protected, names...)
		o.policyOnly = append(o.policyOnly, "WithProtectedNames")
	}
}

// WithoutDefaultProtectedNames drops DefaultProtectedNames from the protected
// names; together with WithProtectedNames it replaces the list. It applies to
// NewNamePolicy only.
func WithoutDefaultProtectedNames() Option {
	return func(o *options) {
		o.noDefaultProtected = true
		o.policyOnly = append(o.policyOnly, "WithoutDefaultProtectedNames")
	}
}

// buildOptions applies opts and rejects an option meant for the other
// constructor: schema says whether constructor is CompileSchema.
func buildOptions(constructor string, opts []Option, schema bool) (options, error) {
	var o options
	for _, opt := range opts {
		if opt != nil {
			opt(&o)
		}
	}
	misplaced := o.policyOnly
	if !schema {
		misplaced = o.schemaOnly
	}
	if len(misplaced) > 0 {
		return o, fmt.Errorf("%w: %s does not apply to %s", ErrInvalidOption, misplaced[0], constructor)
	}
	return o, nil
}

// compile compiles expr with vars through the cache when there is one.
func (o *options) compile(expr string, vars ...string) (*cel.Program, error) {
	if o.cache != nil {
		return o.cache.Compile(expr, vars...)
	}
	return cel.Compile(expr, vars...)
}
