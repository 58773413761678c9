package cel

import (
	"math"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/cache"
)

// Cache maps an expression and its variables to a compiled [Program], holding at most its size
// in programs and evicting the least recently used. Compile errors are not cached. The zero
// value is not valid; use [NewCache]. A Cache is safe for concurrent use.
type Cache struct {
	lru *cache.LRUExpireCache // of *Program by cacheKey, never expiring
}

// NewCache returns a cache that holds up to size programs, compiled as [Compile] compiles
// them. It panics if size is less than 1, which is a programming error.
//
//	c := cel.NewCache(256)
func NewCache(size int) *Cache {
	if size < 1 {
		panic("cel: NewCache size must be at least 1")
	}
	return &Cache{lru: cache.NewLRUExpireCache(size)}
}

// Compile returns the cached program for expr and vars, compiling and caching it on a miss.
// The order of vars does not matter. Errors are those of [Compile].
func (c *Cache) Compile(expr string, vars ...string) (*Program, error) {
	if slices.ContainsFunc(vars, func(v string) bool { return !identifier.MatchString(v) }) {
		return Compile(expr, vars...) // reports the bad variable; never cached
	}
	key := cacheKey(expr, vars)
	if p, ok := c.lru.Get(key); ok {
		return p.(*Program), nil
	}
	// Compiled outside the cache's lock; of two goroutines compiling one expression, the one
	// that finishes first is usually kept (the programs are equivalent).
	p, err := Compile(expr, vars...)
	if err != nil {
		return nil, err
	}
	if q, ok := c.lru.Get(key); ok {
		return q.(*Program), nil
	}
	c.lru.Add(key, p, math.MaxInt64)
	return p, nil
}

// Len returns the number of programs in the cache.
func (c *Cache) Len() int { return len(c.lru.Keys()) }

// cacheKey joins the sorted variables and the expression with NUL, which identifiers cannot hold.
func cacheKey(expr string, vars []string) string {
	sorted := slices.Clone(vars)
	slices.Sort(sorted)
	return strings.Join(sorted, "\x00") + "\x00\x00" + expr
}
