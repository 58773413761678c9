package generator

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// parseInputsTests are inputs files with the JSON object of their inputs,
// as sigs.k8s.io/yaml reads them (YAML 1.1: yes is true).
var parseInputsTests = []struct {
	name string
	data string
	want string
}{
	{
		name: "the sample's inputs",
		data: "replicas: 3\ndependsOn: []\nimage:\n  repository: ghcr.io/example/payments-api\n  tag: \"1.8.2\"\n",
		want: `{"dependsOn":[],"image":{"repository":"ghcr.io/example/payments-api","tag":"1.8.2"},"replicas":3}`,
	},
	{name: "a block sequence", data: "replicas: 2\ndependsOn:\n  - api\n", want: `{"dependsOn":["api"],"replicas":2}`},
	{
		name: "comments, YAML 1.1 booleans and null",
		data: "schedule: \"*/15 * * * *\" # every quarter\nenabled: yes\nowner: null\n",
		want: `{"enabled":true,"owner":null,"schedule":"*/15 * * * *"}`,
	},
	{name: "a float", data: "a: 1.5\n", want: `{"a":1.5}`},
	{name: "an alias", data: "a: &x b\nc: *x\n", want: `{"a":"b","c":"b"}`},
	{name: "a leading separator", data: "---\na: 1\n", want: `{"a":1}`},
	{name: "JSON", data: `{"a": [1, "b"]}`, want: `{"a":[1,"b"]}`},
	{name: "an empty mapping", data: "{}", want: `{}`},
	{name: "empty", data: "", want: `{}`},
	{name: "a comment only", data: "# only a comment\n", want: `{}`},
}

func TestParseInputs(t *testing.T) {
	t.Parallel()
	for _, tt := range parseInputsTests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := parseInputs([]byte(tt.data))
			if err != nil {
				t.Fatalf("parseInputs() error = %v", err)
			}
			if js, _ := json.Marshal(got); string(js) != tt.want {
				t.Errorf("parseInputs() = %s, want %s", js, tt.want)
			}
		})
	}
}

func BenchmarkParseInputs(b *testing.B) {
	for _, n := range []int{3, 30} {
		var doc strings.Builder
		for i := range n {
			fmt.Fprintf(&doc, "input%d: value-%d\n", i, i)
		}
		data := []byte(doc.String())
		b.Run(fmt.Sprintf("keys=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := parseInputs(data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
