package finalizer

import (
	"strings"
	"testing"
)

func TestListKeys(t *testing.T) {
	t.Parallel()
	many := map[string]string{}
	for _, k := range strings.Split("l k j i h g f e d c b a", " ") {
		many[k] = ""
	}
	tests := []struct {
		name string
		m    map[string]string
		skip string
		want string
	}{
		{name: "nil", m: nil, want: ""},
		{name: "only the skipped key", m: map[string]string{Annotation: "self"}, skip: Annotation, want: ""},
		{name: "sorted", m: map[string]string{"b": "", "a": "", Annotation: ""}, skip: Annotation, want: `"a", "b"`},
		{name: "bounded", m: many, want: `"a", "b", "c", "d", "e", "f", "g", "h", "i", "j" and 2 more`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := listKeys(tt.m, tt.skip); got != tt.want {
				t.Errorf("listKeys() = %q, want %q", got, tt.want)
			}
		})
	}
}
