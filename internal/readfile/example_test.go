package readfile_test

import (
	"fmt"
	"testing/fstest"

	"github.com/tenantkit/tenantkit/internal/readfile"
)

// A plan reads the files that a copy selected into one buffer, and checks
// the path of a file it names itself first.
func ExampleRead() {
	fsys := fstest.MapFS{
		"manifests/a.yaml": {Data: []byte("kind: ConfigMap\n")},
		"manifests/b.yaml": {Data: []byte("kind: Secret\n")},
		"manifests/big":    {Data: make([]byte, 2048)},
	}
	var buf []byte
	for _, name := range []string{"manifests/a.yaml", "manifests/b.yaml"} {
		data, err := readfile.Read(fsys, name, 1024, buf)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%s: %q\n", name, data)
		buf = data
	}
	_, err := readfile.Read(fsys, "manifests/big", 1024, buf)
	fmt.Println(err)
	fmt.Println(readfile.CheckPath(fsys, "manifests/a.yaml/x", 1024))
	// Output:
	// manifests/a.yaml: "kind: ConfigMap\n"
	// manifests/b.yaml: "kind: Secret\n"
	// read manifests/big: pathpattern: must be no more than 1024 bytes
	// read manifests/a.yaml: pathpattern: must be a directory
}
