package main

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/tenantkit/tenantkit/generator"
	"github.com/tenantkit/tenantkit/internal/agmanifest"
	"github.com/tenantkit/tenantkit/internal/yamldoc"
)

// reusedString returns head, then one long string under an anchor, then
// lines that reuse it through aliases until the document has size bytes:
// the shape of the files of issue 18 that took hundreds of MiB to decode.
// anchor formats the line that holds the string, alias the line of the
// i-th alias.
func reusedString(head, anchor, alias string, size int) string {
	var b strings.Builder
	b.WriteString(head)
	fmt.Fprintf(&b, anchor, strings.Repeat("x", size*9/10))
	for i := 0; b.Len() < size; i++ {
		fmt.Fprintf(&b, alias, i)
	}
	return b.String()
}

// TestExpansionRefused checks that the files of issue 18, at their sizes,
// are refused by the alias expansion bound before they are decoded.
func TestExpansionRefused(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		data  string
		parse func([]byte) error
	}{
		{
			name: "generator, 110 KB",
			data: reusedString("apiVersion: source.extensions.fluxcd.io/v1beta1\nkind: ArtifactGenerator\n",
				"metadata: {name: g, namespace: flux-system, annotations: {a: &s %q}}\nspec:\n  pathPattern: \"@repo/{a}\"\n  commonMetadata:\n    annotations:\n",
				"      a%d: *s\n", 110_000),
			parse: func(b []byte) error { _, err := agmanifest.Decode[generator.Spec](b); return err },
		},
		{
			name: "cluster, 110 KB",
			data: reusedString("apiVersion: v1\nkind: List\nitems:\n",
				"- {apiVersion: v1, kind: Namespace, metadata: {name: n, annotations: {a: &s %q}}}\n",
				"- {apiVersion: v1, kind: Namespace, metadata: {name: n%d, annotations: {a: *s}}}\n", 110_000),
			parse: func(b []byte) error { _, err := parseCluster(b); return err },
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if err := tt.parse([]byte(tt.data)); !errors.Is(err, yamldoc.ErrExpansion) {
				t.Fatalf("parse() = %v, want %v", err, yamldoc.ErrExpansion)
			}
		})
	}
}
