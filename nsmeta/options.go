package nsmeta

import (
	"slices"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/tenantkit/tenantkit/cel"
)

// Option configures [CompileSchema], [NewNamePolicy] or [ParseFile].
// [WithCache] applies to the constructors (ParseFile ignores it);
// [WithStrict] to CompileSchema only; [WithProtectedNames] and
// [WithoutDefaultProtectedNames] to NewNamePolicy only; none to ParseFile.
// An option given to a function it does not apply to is a Forbidden error
// at the option's name, such as "WithStrict: Forbidden: does not apply to
// ParseFile".
type Option func(*options)

type options struct {
	cache              *cel.Cache
	strict             bool
	protected          []string
	noDefaultProtected bool
	given              []string // the names of the options given, in order
}

// WithCache compiles the CEL rules through c, so that a controller that
// sees the same policy on every reconcile compiles each rule once. A nil c
// compiles every rule afresh, which is also the default.
//
//	s, errs := nsmeta.CompileSchema(labels, annotations, fldPath, nsmeta.WithCache(cache))
func WithCache(c *cel.Cache) Option {
	return func(o *options) { o.cache = c }
}

// WithStrict makes [Schema.Apply] report a key that the schema does not
// list as a Forbidden error, for a platform that wants a mistake in a
// tenant's file to fail loudly, instead of dropping the key with a
// warning. source-watcher ignores an unlisted key, which is why dropping
// it is the default. It applies to CompileSchema only; [ParseFile] reads
// every file as strictly as source-watcher's schema for it says.
//
//	s, errs := nsmeta.CompileSchema(labels, annotations, fldPath, nsmeta.WithStrict())
func WithStrict() Option {
	return func(o *options) { o.strict, o.given = true, append(o.given, "WithStrict") }
}

// WithProtectedNames adds names to the protected namespace names, typically
// the namespace of the generator itself when it is not one of the
// defaults. It applies to NewNamePolicy only.
//
//	p, errs := nsmeta.NewNamePolicy(names, fldPath, nsmeta.WithProtectedNames("platform"))
//
// Each name must be a DNS-1123 label; a bad one is an error at
// protectedNames[i], a path of the option rather than of a field.
func WithProtectedNames(names ...string) Option {
	return func(o *options) {
		o.protected, o.given = append(o.protected, names...), append(o.given, "WithProtectedNames")
	}
}

// WithoutDefaultProtectedNames drops the default protected names (default,
// flux-system, kube-node-lease, kube-public and kube-system) from the
// protected names; together with [WithProtectedNames] it replaces the
// list. It applies to NewNamePolicy only. Released source-watcher v2.3
// always refuses default, flux-system, kube-public and kube-system: a
// policy that drops one of them manages a namespace source-watcher never
// would.
//
//	// source-watcher's four, without tenantkit's kube-node-lease:
//	nsmeta.NewNamePolicy(names, fldPath, nsmeta.WithoutDefaultProtectedNames(),
//		nsmeta.WithProtectedNames("default", "flux-system", "kube-public", "kube-system"))
func WithoutDefaultProtectedNames() Option {
	return func(o *options) {
		o.noDefaultProtected, o.given = true, append(o.given, "WithoutDefaultProtectedNames")
	}
}

// apply applies opts and reports each option that does not apply to
// constructor, whose own options other than WithCache are allowed, as a
// Forbidden error at the option's name.
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

// compile compiles expr with vars through c when it is not nil.
func compile(c *cel.Cache, expr string, vars ...string) (*cel.Program, error) {
	if c != nil {
		return c.Compile(expr, vars...)
	}
	return cel.Compile(expr, vars...)
}
