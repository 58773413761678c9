package cel_test

import (
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/tenantkit/tenantkit/cel"
)

func TestCacheHitAndVariableOrder(t *testing.T) {
	t.Parallel()
	c := cel.NewCache(2)
	p1, err := c.Compile(`a == b`, "a", "b")
	if err != nil {
		t.Fatal(err)
	}
	p2, err := c.Compile(`a == b`, "b", "a")
	if err != nil {
		t.Fatal(err)
	}
	if p1 != p2 {
		t.Error("the same expression and variables in another order compiled twice")
	}
	p3, err := c.Compile(`a == b`, "a", "b", "c")
	if err != nil {
		t.Fatal(err)
	}
	if p3 == p1 {
		t.Error("other variables returned the same program")
	}
	if got := c.Len(); got != 2 {
		t.Errorf("Len() = %d, want 2", got)
	}
}

func TestCacheEviction(t *testing.T) {
	t.Parallel()
	c := cel.NewCache(2)
	a, _ := c.Compile(`ns == "a"`, "ns")
	b, _ := c.Compile(`ns == "b"`, "ns")
	if again, _ := c.Compile(`ns == "a"`, "ns"); again != a { // a is now the most recent
		t.Fatal("cache miss on a recent entry")
	}
	c.Compile(`ns == "c"`, "ns") // evicts b, the least recently used
	if got := c.Len(); got != 2 {
		t.Fatalf("Len() = %d, want 2", got)
	}
	if again, _ := c.Compile(`ns == "a"`, "ns"); again != a {
		t.Error("a was evicted, want b evicted")
	}
	if again, _ := c.Compile(`ns == "b"`, "ns"); again == b {
		t.Error("b was kept, want it evicted and compiled again")
	}
}

func TestCacheDoesNotCacheErrors(t *testing.T) {
	t.Parallel()
	c := cel.NewCache(4)
	for range 2 {
		if _, err := c.Compile(`ns`, "ns"); !errors.Is(err, cel.ErrInvalid) {
			t.Fatalf("Compile() error = %v, want %v", err, cel.ErrInvalid)
		}
	}
	if _, err := c.Compile(`true`, "bad\x00\x00var"); !errors.Is(err, cel.ErrInvalidVariable) {
		t.Fatalf("Compile() error = %v, want %v", err, cel.ErrInvalidVariable)
	}
	if got := c.Len(); got != 0 {
		t.Errorf("Len() = %d after errors only, want 0", got)
	}
}

func TestCacheKeyIsUnambiguous(t *testing.T) {
	t.Parallel()
	c := cel.NewCache(4)
	p1, err1 := c.Compile("a == \"\x00\"", "a")
	p2, err2 := c.Compile("\"\x00\" == a", "a")
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	if p1 == p2 || p1.String() == p2.String() {
		t.Error("different expressions shared a cache entry")
	}
}

func TestCacheConcurrent(t *testing.T) {
	t.Parallel()
	c := cel.NewCache(8)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 50 {
				expr := fmt.Sprintf(`ns == "%d"`, (g+i)%12)
				p, err := c.Compile(expr, "ns")
				if err != nil || p.String() != expr {
					t.Errorf("Compile(%q) = %v, %v", expr, p, err)
					return
				}
			}
		})
	}
	wg.Wait()
	if got := c.Len(); got > 8 {
		t.Errorf("Len() = %d, want at most 8", got)
	}
}

func TestNewCachePanics(t *testing.T) {
	t.Parallel()
	defer func() {
		if recover() == nil {
			t.Error("NewCache(0) did not panic")
		}
	}()
	cel.NewCache(0)
}
