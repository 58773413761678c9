package generator

import (
	"errors"
	"testing"

	"github.com/tenantkit/tenantkit/internal/yamldoc"
)

// TestParseInputsKeyCollision checks the error for an inputs file whose keys
// sigs.k8s.io/yaml would turn into one JSON key (1 and "1"), so that the
// exported input would depend on Go's map order.
func TestParseInputsKeyCollision(t *testing.T) {
	t.Parallel()
	data := "# inputs\nreplicas: 3\n1: one\n\"1\": uno\n"
	_, _, err := parseInputs([]byte(data))
	want := `YAML mapping keys must stay distinct as JSON keys: line 4: key "1" and key 1 (an integer) of line 3 both become the JSON key "1"`
	if err == nil || err.Error() != want {
		t.Fatalf("parseInputs() = %v, want %s", err, want)
	}
	if !errors.Is(err, yamldoc.ErrKeys) {
		t.Errorf("parseInputs() error %v does not wrap yamldoc.ErrKeys", err)
	}
}
