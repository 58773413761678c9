package generator

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/tenantkit/tenantkit/internal/yamldoc"
)

// TestParseInputsExpansionRefused checks that the applier-inputs.yaml of
// issue 18, 56 KB whose aliases reuse one long string, is refused by the
// alias expansion bound before it is decoded (decoding it took many
// times its size in memory before).
func TestParseInputsExpansionRefused(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	fmt.Fprintf(&b, "big: &s %q\n", strings.Repeat("x", 56_000*9/10))
	for i := 0; b.Len() < 56_000; i++ {
		fmt.Fprintf(&b, "in%d: *s\n", i)
	}
	if _, _, err := parseInputs([]byte(b.String())); !errors.Is(err, yamldoc.ErrExpansion) {
		t.Fatalf("parseInputs() = %v, want %v", err, yamldoc.ErrExpansion)
	}
}
