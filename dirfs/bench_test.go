package dirfs

import (
	"fmt"
	"io/fs"
	"os"
	"strings"
	"testing"
)

// BenchmarkReadFile reads a small file at depths of 1, 4 and 8 elements
// with fs.ReadFile through each variant of this system, through os.Root's
// FS, which opens a name one element at a time, and through os.DirFS,
// which follows links:
//
//	go test ./dirfs -run '^$' -bench ReadFile
func BenchmarkReadFile(b *testing.B) {
	for _, depth := range []int{1, 4, 8} {
		dir := b.TempDir()
		name := strings.Repeat("d/", depth-1) + "file.yaml"
		writeTree(b, dir, map[string]string{name: "kind: ConfigMap\n"})
		root, err := os.OpenRoot(dir)
		if err != nil {
			b.Fatal(err)
		}
		sources := []struct {
			name string
			fsys fs.FS
		}{{name: "os.Root", fsys: root.FS()}, {name: "os.DirFS", fsys: os.DirFS(dir)}}
		for _, v := range variants(b) {
			sources = append(sources, struct {
				name string
				fsys fs.FS
			}{name: "dirfs-" + v.name, fsys: v.openTB(b, dir)})
		}
		for _, src := range sources {
			b.Run(fmt.Sprintf("depth=%d/%s", depth, src.name), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if _, err := fs.ReadFile(src.fsys, name); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
		root.Close()
	}
}
