package cel

import "testing"

// TestDefaultTimeBudget checks that every way to get a program without
// options gives it DefaultTimeBudget, which Eval applies whatever the
// caller's context (TestHostileEvalTimeBudget shows a budget at work).
func TestDefaultTimeBudget(t *testing.T) {
	t.Parallel()
	fromCache, err := NewCache(1).Compile(`true`)
	if err != nil {
		t.Fatal(err)
	}
	c, err := NewCompiler()
	if err != nil {
		t.Fatal(err)
	}
	fromCompiler, err := c.Compile(`true`)
	if err != nil {
		t.Fatal(err)
	}
	for name, p := range map[string]*Program{
		"MustCompile":      MustCompile(`true`),
		"Cache.Compile":    fromCache,
		"Compiler.Compile": fromCompiler,
	} {
		if p.budget != DefaultTimeBudget {
			t.Errorf("%s: budget = %v, want DefaultTimeBudget (%v)", name, p.budget, DefaultTimeBudget)
		}
	}
}
