package quote_test

import (
	"fmt"
	"strings"

	"github.com/tenantkit/tenantkit/internal/quote"
)

func ExampleValue() {
	fmt.Printf("%q\n", quote.Value("payments"))
	fmt.Printf("%q\n", quote.Value(strings.Repeat("x", 100000)))
	// Output:
	// "payments"
	// "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx... (100000 bytes)"
}
