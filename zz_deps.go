//go:build tools

package tools

import (
	_ "github.com/bmatcuk/doublestar/v4"
	_ "github.com/google/cel-go/cel"
	_ "github.com/google/cel-go/ext"
	_ "github.com/google/go-cmp/cmp"
	_ "github.com/opencontainers/go-digest"
	_ "k8s.io/apimachinery/pkg/api/validation"
	_ "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	_ "k8s.io/apimachinery/pkg/runtime/schema"
	_ "k8s.io/apimachinery/pkg/util/validation"
	_ "sigs.k8s.io/yaml"
)
