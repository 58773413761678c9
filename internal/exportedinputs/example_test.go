package exportedinputs_test

import (
	"fmt"

	"github.com/tenantkit/tenantkit/internal/exportedinputs"
)

func ExampleDecode() {
	inputs, err := exportedinputs.Decode([]byte(`{"replicas": 3, "image": {"tag": "1.8.2"}}`))
	fmt.Println(string(inputs["replicas"]), string(inputs["image"]), err)

	_, err = exportedinputs.Decode([]byte(`{"image": {"tag": "1", "tag": "2"}}`))
	fmt.Println(err)
	// Output:
	// 3 {"tag":"1.8.2"} <nil>
	// input "image": name "tag" must be listed once in its object, found again at offset 23
}

func ExampleEncode() {
	inputs, _ := exportedinputs.Decode([]byte(`{"b": "<x>", "a": [1, 2]}`))
	js, err := exportedinputs.Encode(inputs)
	fmt.Println(string(js), err)
	// Output:
	// {"a":[1,2],"b":"\u003cx\u003e"} <nil>
}
