package generator

import (
	"go/build"
	"path/filepath"
	"strings"
	"testing"
)

// TestLayering checks the module's layers by the imports of each
// package's non-test files: the five primitive packages (and dirfs) import
// no tenantkit package but internal ones, except nsmeta, whose rules are
// cel programs; and the internal packages none but each other. So every
// primitive stands alone, and composition lives in generator.
func TestLayering(t *testing.T) {
	const module = "github.com/tenantkit/tenantkit/"
	dirs, err := filepath.Glob("../internal/*")
	if err != nil {
		t.Fatal(err)
	}
	dirs = append(dirs, "../cel", "../pathpattern", "../nsmeta", "../inventory", "../finalizer", "../dirfs")
	allowed := map[string]string{"../nsmeta": module + "cel"}
	for _, dir := range dirs {
		pkg, err := build.ImportDir(dir, 0)
		if err != nil {
			t.Fatalf("%s: %v", dir, err)
		}
		for _, imp := range pkg.Imports {
			if strings.HasPrefix(imp, module) && !strings.HasPrefix(imp, module+"internal/") && allowed[dir] != imp {
				t.Errorf("%s imports %s: only internal packages of the module may be imported below generator", strings.TrimPrefix(dir, "../"), imp)
			}
		}
	}
}
