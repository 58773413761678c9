package nsmeta

import (
	"errors"
	"testing"

	"github.com/tenantkit/tenantkit/internal/yamldoc"
)

// TestParseFileKeyCollision checks the error a tenant sees for labels whose
// keys sigs.k8s.io/yaml would turn into one JSON key ("true" and yes), so
// that the label's value would depend on Go's map order.
func TestParseFileKeyCollision(t *testing.T) {
	t.Parallel()
	data := header + "metadata:\n  labels:\n    \"true\": a\n    yes: b\n"
	_, errs, err := ParseFile([]byte(data))
	want := `nsmeta: invalid NamespaceMetadata file: YAML mapping keys must stay distinct as JSON keys: line 6: key true (a boolean) and key "true" of line 5 both become the JSON key "true"`
	if err == nil || err.Error() != want || len(errs) > 0 {
		t.Fatalf("ParseFile() = %v, %v; want the error %s", errs, err, want)
	}
	if !errors.Is(err, ErrInvalidFile) || !errors.Is(err, yamldoc.ErrKeys) {
		t.Errorf("ParseFile() error %v wraps neither ErrInvalidFile nor yamldoc.ErrKeys", err)
	}
}
