package reconciler

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/types"
)

// The cache holds at most max entries, evicting the least recently used;
// an entry is found only for its own UID, generation and default service
// account; drop forgets one.
func TestSpecsCache(t *testing.T) {
	t.Parallel()
	key := func(name string) types.NamespacedName { return types.NamespacedName{Namespace: "gen", Name: name} }
	held := func(s *specs) []string {
		var out []string
		for _, n := range []string{"a", "b", "c", "d"} {
			if e := s.entries[key(n)]; e != nil {
				out = append(out, n)
			}
		}
		return out
	}
	entry := func(uid string, gen int64) *specEntry {
		return &specEntry{uid: types.UID(uid), generation: gen, defaultSA: "sa", reason: "InvalidSpec", message: uid}
	}

	tests := []struct {
		name string
		run  func(s *specs)
		want []string
	}{
		{
			name: "within the bound",
			run: func(s *specs) {
				s.put(key("a"), entry("a", 1))
				s.put(key("b"), entry("b", 1))
			},
			want: []string{"a", "b"},
		},
		{
			name: "the least recently put goes",
			run: func(s *specs) {
				s.put(key("a"), entry("a", 1))
				s.put(key("b"), entry("b", 1))
				s.put(key("c"), entry("c", 1))
			},
			want: []string{"b", "c"},
		},
		{
			name: "a get counts as a use",
			run: func(s *specs) {
				s.put(key("a"), entry("a", 1))
				s.put(key("b"), entry("b", 1))
				if s.get(key("a"), "a", 1, "sa") == nil {
					t.Error("a not found")
				}
				s.put(key("c"), entry("c", 1))
			},
			want: []string{"a", "c"},
		},
		{
			name: "a new generation replaces, not adds",
			run: func(s *specs) {
				s.put(key("a"), entry("a", 1))
				s.put(key("b"), entry("b", 1))
				s.put(key("a"), entry("a", 2))
			},
			want: []string{"a", "b"},
		},
		{
			name: "dropped",
			run: func(s *specs) {
				s.put(key("a"), entry("a", 1))
				s.put(key("b"), entry("b", 1))
				s.drop(key("a"))
				s.drop(key("d")) // never held: nothing happens
			},
			want: []string{"b"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := &specs{max: 2}
			tt.run(s)
			if diff := cmp.Diff(tt.want, held(s)); diff != "" {
				t.Errorf("held (-want +got):\n%s", diff)
			}
			if got := s.len(); got != len(tt.want) {
				t.Errorf("len = %d, want %d", got, len(tt.want))
			}
		})
	}

	t.Run("found only for its own uid, generation and default service account", func(t *testing.T) {
		t.Parallel()
		s := &specs{}
		s.put(key("a"), entry("uid-1", 3))
		lookups := []struct {
			name      string
			uid       types.UID
			gen       int64
			defaultSA string
			found     bool
		}{
			{name: "same", uid: "uid-1", gen: 3, defaultSA: "sa", found: true},
			{name: "next generation", uid: "uid-1", gen: 4, defaultSA: "sa"},
			{name: "recreated", uid: "uid-2", gen: 3, defaultSA: "sa"},
			{name: "another default service account", uid: "uid-1", gen: 3, defaultSA: "other"},
		}
		for _, l := range lookups {
			if got := s.get(key("a"), l.uid, l.gen, l.defaultSA) != nil; got != l.found {
				t.Errorf("%s: found = %v, want %v", l.name, got, l.found)
			}
		}
	})
}
