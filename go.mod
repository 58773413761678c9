module github.com/tenantkit/tenantkit

go 1.26

require (
	github.com/bmatcuk/doublestar/v4 v4.10.0 // indirect
	github.com/google/cel-go v0.29.0 // indirect
	github.com/google/go-cmp v0.7.0 // indirect
	github.com/opencontainers/go-digest v1.0.0 // indirect
	go.yaml.in/yaml/v2 v2.4.3 // indirect
	k8s.io/apimachinery v0.36.0 // indirect
	sigs.k8s.io/yaml v1.6.0 // indirect
)
