package nsmeta

import (
	"slices"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/tenantkit/tenantkit/cel"
)

// Option configures [CompileSchema], [NewNamePolicy] or [ParseFile]; each option says which it
// applies to. An option given to a function it does not apply to is a Forbidden error at the
// option's name, such as "WithStrict: Forbidden: does not apply to ParseFile".
type Option func(*options)

type options struct {
	cache     *cel.Cache
	strict    bool
	protected []string
	given     []string // the names of the options given, in order
}

// WithCache compiles the CEL rules through c, so that a controller compiles each rule once; a nil
// c, the default, compiles them afresh. ParseFile ignores it.
//
//	s, errs := nsmeta.CompileSchema(labels, annotations, fldPath, nsmeta.WithCache(cache))
func WithCache(c *cel.Cache) Option {
	return func(o *options) { o.cache = c }
}

// WithStrict makes [Schema.Apply] report an unlisted key as a Forbidden error instead of dropping
// it with a warning (source-watcher ignores it). It applies to CompileSchema only.
//
//	s, errs := nsmeta.CompileSchema(labels, annotations, fldPath, nsmeta.WithStrict())
func WithStrict() Option {
	return func(o *options) { o.strict, o.given = true, append(o.given, "WithStrict") }
}

// WithProtectedNames adds protected namespace names, typically the generator's own namespace, to
// the five that NewNamePolicy always protects (it applies to NewNamePolicy only); a name that is
// not a DNS-1123 label is an error at protectedNames[i].
//
//	p, errs := nsmeta.NewNamePolicy(names, fldPath, nsmeta.WithProtectedNames("platform"))
func WithProtectedNames(names ...string) Option {
	return func(o *options) {
		o.protected, o.given = append(o.protected, names...), append(o.given, "WithProtectedNames")
	}
}

// apply applies opts and reports each given one not in allowed (WithCache always is) as Forbidden.
func (o *options) apply(opts []Option, constructor string, allowed ...string) field.ErrorList {
	for _, opt := range opts {
		opt(o)
	}
	var errs field.ErrorList
	for _, name := range o.given {
		if !slices.Contains(allowed, name) {
			errs = append(errs, field.Forbidden(field.NewPath(name), "does not apply to "+constructor))
		}
	}
	return errs
}

func compile(c *cel.Cache, expr string, vars ...string) (*cel.Program, error) {
	if c != nil {
		return c.Compile(expr, vars...)
	}
	return cel.Compile(expr, vars...)
}
