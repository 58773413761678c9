package yamldoc

import "testing"

// BenchmarkDocuments splits typical files: a NamespaceMetadata file and an
// inputs file, whose keys the scan of CheckKeys accepts, and an inputs file
// with a key ("on") that it cannot rule out, which CheckKeys decodes.
func BenchmarkDocuments(b *testing.B) {
	files := []struct {
		name string
		data string
	}{
		{name: "namespacemetadata", data: `apiVersion: source.extensions.fluxcd.io/v1beta1
kind: NamespaceMetadata
metadata:
  labels:
    my.org.io/cost-center: cc-1042
    my.org.io/team: payments
    pod-security.kubernetes.io/enforce: baseline
  annotations:
    my.org.io/observability: Enabled
    my.org.io/owner: "payments@example.org"
`},
		{name: "inputs", data: `# Inputs of the payments API.
replicas: 3
dependsOn: []
image:
  repository: ghcr.io/example/payments-api
  tag: "1.8.2"
resources:
  limits: {}
  requests:
    cpu: 100m
    memory: 128Mi
`},
		{name: "inputs-decoded", data: `replicas: 3
on: push
image:
  repository: ghcr.io/example/payments-api
  tag: "1.8.2"
resources:
  requests:
    cpu: 100m
    memory: 128Mi
`},
	}
	for _, f := range files {
		b.Run(f.name, func(b *testing.B) {
			b.ReportAllocs()
			data := []byte(f.data)
			for b.Loop() {
				if _, err := Documents(data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkStringKeysOnly measures the scan alone, which is all that
// CheckKeys adds to Documents for a file whose keys it accepts.
func BenchmarkStringKeysOnly(b *testing.B) {
	b.ReportAllocs()
	data := []byte(`apiVersion: source.extensions.fluxcd.io/v1beta1
kind: NamespaceMetadata
metadata:
  labels:
    my.org.io/cost-center: cc-1042
    my.org.io/team: payments
    pod-security.kubernetes.io/enforce: baseline
  annotations:
    my.org.io/observability: Enabled
    my.org.io/owner: "payments@example.org"
`)
	for b.Loop() {
		if !stringKeysOnly(data) {
			b.Fatal("refused")
		}
	}
}
