package simpleyaml_test

import (
	"fmt"

	"github.com/tenantkit/tenantkit/internal/simpleyaml"
)

func ExampleParse() {
	for _, data := range []string{
		"replicas: 2\nimage:\n  tag: \"1.2.0\"\n  repository: ghcr.io/example/api\n",
		"replicas: 2\nimage: &img {tag: 1.2.0}\n", // an anchor and a flow mapping: for the decoder
	} {
		n, ok := simpleyaml.Parse([]byte(data))
		fmt.Printf("%t %s %v\n", ok, n.AppendJSON(nil), n.Any())
	}
	// Output:
	// true {"image":{"repository":"ghcr.io/example/api","tag":"1.2.0"},"replicas":2} map[image:map[repository:ghcr.io/example/api tag:1.2.0] replicas:2]
	// false  <nil>
}
