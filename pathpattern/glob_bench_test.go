package pathpattern

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkGlob measures Glob over trees of module directories built on
// disk once per run: one module's manifests (what a copy operation takes
// per artifact), every module's manifests, and the whole tree.
func BenchmarkGlob(b *testing.B) {
	root := b.TempDir()
	for _, tenants := range []int{10, 100, 1000} {
		dir := filepath.Join(root, fmt.Sprint(tenants))
		buildTenantTree(b, dir, tenants, 3, 0)
		fsys := os.DirFS(dir)
		for _, bb := range []struct {
			name    string
			pattern string
		}{
			{name: "one-module", pattern: "tenants/tenant-0000/modules/module-0/manifests/**"},
			{name: "all-modules", pattern: "tenants/*/modules/*/manifests/**"},
			{name: "whole-tree", pattern: "**"},
		} {
			if got, _, err := Glob(b.Context(), fsys, bb.pattern, "*.md"); err != nil || len(got) == 0 {
				b.Fatalf("Glob(%q) = %d files, %v", bb.pattern, len(got), err)
			}
			b.Run(fmt.Sprintf("tenants=%d/%s", tenants, bb.name), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if _, _, err := Glob(b.Context(), fsys, bb.pattern, "*.md"); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
