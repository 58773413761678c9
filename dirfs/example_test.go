//go:build unix

package dirfs_test

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/tenantkit/tenantkit/dirfs"
)

func ExampleOpen() {
	dir, err := os.MkdirTemp("", "monorepo")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	// team-a's metadata file, and team-b's directory: a link to team-a's.
	os.MkdirAll(filepath.Join(dir, "tenants", "team-a"), 0o755)
	os.WriteFile(filepath.Join(dir, "tenants", "team-a", "namespace-metadata.yaml"), []byte("kind: NamespaceMetadata\n"), 0o644)
	os.Symlink("team-a", filepath.Join(dir, "tenants", "team-b"))

	fsys, err := dirfs.Open(dir)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer fsys.Close()

	data, err := fs.ReadFile(fsys, "tenants/team-a/namespace-metadata.yaml")
	fmt.Printf("%q %v\n", data, err)
	_, err = fs.ReadFile(fsys, "tenants/team-b/namespace-metadata.yaml")
	fmt.Println(err)
	fmt.Println(errors.Is(err, dirfs.ErrLink))
	info, err := fs.Lstat(fsys, "tenants/team-b")
	fmt.Println(info.Mode().Type() == fs.ModeSymlink, err)
	// Output:
	// "kind: NamespaceMetadata\n" <nil>
	// open tenants/team-b/namespace-metadata.yaml: dirfs: name must not cross a symbolic link
	// true
	// true <nil>
}
