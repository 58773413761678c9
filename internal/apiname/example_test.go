package apiname_test

import (
	"fmt"

	"github.com/tenantkit/tenantkit/internal/apiname"
)

func ExampleIsKind() {
	for _, kind := range []string{"ResourceSet", "myKind", "My-Kind", "My_Kind"} {
		fmt.Printf("%s %q\n", kind, apiname.IsKind(kind))
	}
	// Output:
	// ResourceSet []
	// myKind []
	// My-Kind []
	// My_Kind ["lower-cased, a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"]
}

func ExampleIsVersion() {
	for _, version := range []string{"v1", "v1alpha", "V1"} {
		fmt.Println(version, len(apiname.IsVersion(version)) == 0)
	}
	// Output:
	// v1 true
	// v1alpha true
	// V1 false
}

func ExampleIsGroup() {
	for _, group := range []string{"", "apps", "fluxcd.controlplane.io", "Fluxcd.io"} {
		fmt.Printf("%q %v\n", group, len(apiname.IsGroup(group)) == 0)
	}
	// Output:
	// "" true
	// "apps" true
	// "fluxcd.controlplane.io" true
	// "Fluxcd.io" false
}
