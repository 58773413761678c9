package reconciler

import (
	"sync"
	"sync/atomic"

	"k8s.io/apimachinery/pkg/types"

	"github.com/tenantkit/tenantkit/generator"
)

// maxSpecs bounds the compiled specs held at once: one per TenantGenerator
// that was reconciled and not yet seen deleted. A controller with more
// generators than this recompiles the least recently reconciled ones;
// nothing is wrong then, only slower.
const maxSpecs = 1024

// specs holds, per TenantGenerator, the spec compiled at one generation,
// so that a spec is compiled once per generation, not once per reconcile.
// An entry is valid for one (UID, generation, default service account):
// the spec is covered by the generation (the API server increments it on
// every spec change), the options derived from the object by its UID
// (WithUID; WithNamespace, since a UID never changes namespace), and
// Reconciler.DefaultServiceAccount is compared too. The other inputs of
// Compile (Reconciler.Options, the CEL cache) are fixed once the reconciler
// runs. A spec that failed to compile is held as failed, with its reason.
//
// Entries are keyed by namespace/name, so that a generator has at most one
// (a new generation or a new UID replaces it) and the reconcile that finds
// the generator gone can drop it; at most max are held, the least recently
// used going first, so that a deletion the controller never saw cannot
// leak either. Safe for concurrent use.
type specs struct {
	max int // maxSpecs when zero

	mu      sync.Mutex
	entries map[types.NamespacedName]*specEntry
	clock   uint64 // incremented on every use, for the LRU order

	compiles atomic.Int64 // compilations run, read by the tests
}

// specEntry is one generator's compiled spec, or why it failed.
type specEntry struct {
	uid        types.UID
	generation int64
	defaultSA  string

	g       *generator.Generator // nil when the spec failed
	reason  string               // the failure's condition reason
	message string

	used uint64
}

func (e *specEntry) matches(uid types.UID, generation int64, defaultSA string) bool {
	return e.uid == uid && e.generation == generation && e.defaultSA == defaultSA
}

// get returns the entry for key valid at (uid, generation, defaultSA), or
// nil.
func (s *specs) get(key types.NamespacedName, uid types.UID, generation int64, defaultSA string) *specEntry {
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.entries[key]
	if e == nil || !e.matches(uid, generation, defaultSA) {
		return nil
	}
	s.clock++
	e.used = s.clock
	return e
}

// put stores e for key, replacing what key held, and evicts the least
// recently used entry when the bound is passed.
func (s *specs) put(key types.NamespacedName, e *specEntry) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.entries == nil {
		s.entries = map[types.NamespacedName]*specEntry{}
	}
	s.clock++
	e.used = s.clock
	s.entries[key] = e
	limit := s.max
	if limit <= 0 {
		limit = maxSpecs
	}
	for len(s.entries) > limit {
		// A linear scan: it runs only when a generator beyond the bound
		// is compiled, and compiling costs far more.
		var oldest types.NamespacedName
		var oldestUse uint64
		first := true
		for k, v := range s.entries {
			if first || v.used < oldestUse {
				oldest, oldestUse, first = k, v.used, false
			}
		}
		delete(s.entries, oldest)
	}
}

// drop forgets key's entry: its generator is gone.
func (s *specs) drop(key types.NamespacedName) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.entries, key)
}

// len returns how many entries are held.
func (s *specs) len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.entries)
}
