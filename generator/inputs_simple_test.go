package generator

import (
	"bytes"
	"encoding/json"
	"maps"
	"strings"
	"testing"
)

// simpleAccepted are inputs files that simpleInputs reads, with the JSON
// object of their inputs (simpleyaml's tests have the shape's edges).
var simpleAccepted = []struct{ data, want string }{
	{"replicas: 3\ndependsOn: []\nimage:\n  repository: ghcr.io/example/payments-api\n  tag: \"1.8.2\"\n",
		`{"dependsOn":[],"image":{"repository":"ghcr.io/example/payments-api","tag":"1.8.2"},"replicas":3}`},
	{"replicas: 2\ndependsOn:\n  - api\n", `{"dependsOn":["api"],"replicas":2}`},
	{"schedule: \"*/15 * * * *\" # every quarter\nenabled: yes\nowner: null\n", `{"enabled":true,"owner":null,"schedule":"*/15 * * * *"}`},
}

// simpleRefused are inputs files that simpleInputs leaves to the decoder.
var simpleRefused = []string{"", "# only a comment\n", "{}", "---\na: 1\n", "a: 1.5\n", "a: &x b\nc: *x\n"}

func TestSimpleInputs(t *testing.T) {
	for _, tt := range simpleAccepted {
		got, ok := simpleInputs([]byte(tt.data))
		if !ok {
			t.Errorf("simpleInputs(%q) refused it; want %s", tt.data, tt.want)
			continue
		}
		if js, _ := json.Marshal(got); string(js) != tt.want {
			t.Errorf("simpleInputs(%q) = %s; want %s", tt.data, js, tt.want)
		}
		checkSimpleInputs(t, []byte(tt.data), got)
	}
	for _, data := range simpleRefused {
		if got, ok := simpleInputs([]byte(data)); ok {
			t.Errorf("simpleInputs(%q) = %v; want it left to the decoder", data, got)
		}
	}
}

// checkSimpleInputs fails unless got, simpleInputs' result for data, is
// decodeInputs' result, value by value and byte by byte.
func checkSimpleInputs(t *testing.T, data []byte, got map[string]json.RawMessage) {
	t.Helper()
	want, err := decodeInputs(data)
	if err != nil {
		t.Fatalf("simpleInputs(%q) accepted it, the decoder refused it: %v", data, err)
	}
	if !maps.EqualFunc(got, want, func(a, b json.RawMessage) bool { return bytes.Equal(a, b) }) {
		t.Fatalf("simpleInputs(%q) = %s; the decoder gives %s", data, rawMap(got), rawMap(want))
	}
}

func rawMap(m map[string]json.RawMessage) string {
	var b strings.Builder
	for _, k := range sortedKeys(m) {
		b.WriteString(k + "=" + string(m[k]) + " ")
	}
	return b.String()
}

// FuzzSimpleInputs checks that simpleInputs, on every file it accepts,
// gives the decoder's result exactly.
func FuzzSimpleInputs(f *testing.F) {
	for _, tt := range simpleAccepted {
		f.Add([]byte(tt.data))
	}
	for _, s := range simpleRefused {
		f.Add([]byte(s))
	}
	for _, s := range inputsSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if got, ok := simpleInputs(data); ok {
			checkSimpleInputs(t, data, got)
		}
	})
}
