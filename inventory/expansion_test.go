package inventory

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/tenantkit/tenantkit/internal/yamldoc"
)

// TestUnmarshalExpansion checks that the inventory of issue 18, 100 KB
// whose entries reuse one long name through aliases, is refused by the
// alias expansion bound before it is decoded.
func TestUnmarshalExpansion(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	fmt.Fprintf(&b, "- {kind: ExternalArtifact, namespace: tenant-a, name: &n %q}\n", strings.Repeat("x", 90_000))
	for b.Len() < 100_000 {
		b.WriteString("- {kind: ExternalArtifact, namespace: tenant-a, name: *n}\n")
	}
	_, err := Unmarshal([]byte(b.String()))
	if !errors.Is(err, ErrMalformed) || !errors.Is(err, yamldoc.ErrExpansion) {
		t.Fatalf("Unmarshal() = %v, want %v and %v", err, ErrMalformed, yamldoc.ErrExpansion)
	}
}
