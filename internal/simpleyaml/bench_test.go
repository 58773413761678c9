package simpleyaml

import (
	"fmt"
	"testing"

	yamlv2 "go.yaml.in/yaml/v2"
	"sigs.k8s.io/yaml"
)

// BenchmarkParse reads an inputs file and a NamespaceMetadata file of the
// synthetic monorepos (generator/synth_test.go) as the plan does, with
// Parse and with the decoders it stands in for:
//
//	go test ./internal/simpleyaml -run '^$' -bench Parse -benchmem
func BenchmarkParse(b *testing.B) {
	inputs := []byte("replicas: 2\ndependsOn: []\nimage:\n  repository: ghcr.io/example/tenant-00001/module-1\n  tag: \"1.2.0\"\n")
	metadata := []byte("apiVersion: source.extensions.fluxcd.io/v1beta1\nkind: NamespaceMetadata\nmetadata:\n" +
		"  labels:\n    my.org.io/cost-center: cc-0002\n  annotations:\n    my.org.io/observability: Enabled\n")
	b.Run("inputs/simpleyaml", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			n, ok := Parse(inputs)
			if !ok {
				b.Fatal("refused")
			}
			n.AppendJSON(nil)
		}
	})
	b.Run("inputs/sigs.k8s.io-yaml", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := yaml.YAMLToJSONStrict(inputs); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("metadata/simpleyaml", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			n, ok := Parse(metadata)
			if !ok {
				b.Fatal("refused")
			}
			n.Any()
		}
	})
	// A hostile file of many short keys: linear in its size.
	for _, keys := range []int{100, 10000, 100000} {
		var data []byte
		for i := range keys {
			data = fmt.Appendf(data, "k%06d: 1\n", i)
		}
		b.Run(fmt.Sprintf("keys=%d", keys), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, ok := Parse(data); !ok {
					b.Fatal("refused")
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*keys), "ns/key")
		})
	}
	b.Run("metadata/yaml-v2", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			var v any
			if err := yamlv2.UnmarshalStrict(metadata, &v); err != nil {
				b.Fatal(err)
			}
		}
	})
}
