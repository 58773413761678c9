package globmeta_test

import (
	"fmt"

	"github.com/tenantkit/tenantkit/internal/globmeta"
)

func ExampleUnescape() {
	for _, p := range []string{`m/a\*b.yaml`, `m/a\b.yaml`, "m/*.yaml"} {
		fmt.Printf("%q %v %q\n", p, globmeta.HasMeta(p), globmeta.Unescape(p))
	}
	// Output:
	// "m/a\\*b.yaml" false "m/a*b.yaml"
	// "m/a\\b.yaml" false "m/a\\b.yaml"
	// "m/*.yaml" true "m/*.yaml"
}

func ExampleHasMeta() {
	fmt.Println(globmeta.HasMeta("m/*.yaml"), globmeta.HasMeta(`m/a\*b.yaml`))
	// Output: true false
}
