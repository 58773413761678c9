package reconciler

// Compiles returns how many times r has compiled a TenantGenerator's spec.
func Compiles(r *Reconciler) int64 { return r.specs.compiles.Load() }

// CachedSpecs returns how many compiled specs r holds.
func CachedSpecs(r *Reconciler) int { return r.specs.len() }
