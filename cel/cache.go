package cel

import (
	"container/list"
	"slices"
	"strings"
	"sync"
)

// Cache maps an expression and its variables to a compiled [Program], holding at most its size
// in programs and evicting the least recently used. Compile errors are not cached. The zero
// value is not valid; use [NewCache]. A Cache is safe for concurrent use.
type Cache struct {
	size int

	mu      sync.Mutex
	entries map[string]*list.Element // of *cacheEntry
	order   *list.List               // front: most recently used
}

type cacheEntry struct {
	key string
	prg *Program
}

// NewCache returns a cache that holds up to size programs, compiled as [Compile] compiles
// them. It panics if size is less than 1, which is a programming error.
//
//	c := cel.NewCache(256)
func NewCache(size int) *Cache {
	if size < 1 {
		panic("cel: NewCache size must be at least 1")
	}
	return &Cache{size: size, entries: make(map[string]*list.Element, size), order: list.New()}
}

// Compile returns the cached program for expr and vars, compiling and caching it on a miss.
// The order of vars does not matter. Errors are those of [Compile].
func (c *Cache) Compile(expr string, vars ...string) (*Program, error) {
	if slices.ContainsFunc(vars, func(v string) bool { return !identifier.MatchString(v) }) {
		return Compile(expr, vars...) // reports the bad variable; never cached
	}
	key := cacheKey(expr, vars)
	c.mu.Lock()
	if el, ok := c.entries[key]; ok {
		c.order.MoveToFront(el)
		p := el.Value.(*cacheEntry).prg
		c.mu.Unlock()
		return p, nil
	}
	c.mu.Unlock()

	// Compile outside the lock; of two goroutines compiling one expression, the first is kept.
	p, err := Compile(expr, vars...)
	if err != nil {
		return nil, err
	}

	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.entries[key]; ok {
		c.order.MoveToFront(el)
		return el.Value.(*cacheEntry).prg, nil
	}
	c.entries[key] = c.order.PushFront(&cacheEntry{key: key, prg: p})
	for c.order.Len() > c.size {
		oldest := c.order.Back()
		c.order.Remove(oldest)
		delete(c.entries, oldest.Value.(*cacheEntry).key)
	}
	return p, nil
}

// Len returns the number of programs in the cache.
func (c *Cache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.order.Len()
}

// cacheKey joins the sorted variables and the expression with NUL, which identifiers cannot hold.
func cacheKey(expr string, vars []string) string {
	sorted := slices.Clone(vars)
	slices.Sort(sorted)
	return strings.Join(sorted, "\x00") + "\x00\x00" + expr
}
