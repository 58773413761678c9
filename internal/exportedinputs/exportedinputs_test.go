package exportedinputs

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// decodeTests are status.exportedInputs texts with what Decode returns:
// the inputs as the JSON of Encode, or the error.
var decodeTests = []struct {
	name string
	data string
	want string // Encode's text of the inputs, when there is no error
	err  string
}{
	{name: "the sample's inputs", data: `{"replicas":3,"dependsOn":[],"image":{"repository":"ghcr.io/example/payments-api","tag":"1.8.2"}}`,
		want: `{"dependsOn":[],"image":{"repository":"ghcr.io/example/payments-api","tag":"1.8.2"},"replicas":3}`},
	{name: "indented, compacted", data: "{\n  \"a\" : [ 1 , { \"b\" : null } ] ,\n  \"c\": true\n}\n", want: `{"a":[1,{"b":null}],"c":true}`},
	{name: "absent", data: "", want: `{}`},
	{name: "whitespace", data: " \n\t", want: `{}`},
	{name: "null", data: "null", want: `{}`},
	{name: "null with whitespace", data: " null\n", want: `{}`},
	{name: "a vertical tab is not JSON whitespace", data: "\vnull", err: "must be a JSON object of input names to values: invalid JSON at offset 0"},
	{name: "empty object", data: "{}", want: `{}`},
	{name: "the empty name", data: `{"":1}`, want: `{"":1}`},
	{name: "a number keeps its digits", data: `{"big":123456789012345678901234567890,"e":1e400,"f":-0.10}`,
		want: `{"big":123456789012345678901234567890,"e":1e400,"f":-0.10}`},
	{name: "escapes kept as written", data: `{"a":"\u0061\n<"}`, want: `{"a":"\u0061\n\u003c"}`},
	{name: "the same name in two objects", data: `{"a":{"x":1},"b":{"x":2},"x":3}`, want: `{"a":{"x":1},"b":{"x":2},"x":3}`},
	{name: "a name repeated in sibling objects of a list", data: `{"a":[{"x":1},{"x":2}]}`, want: `{"a":[{"x":1},{"x":2}]}`},
	{name: "nested 10,000 deep", data: `{"a":` + strings.Repeat("[", MaxDepth-1) + strings.Repeat("]", MaxDepth-1) + `}`,
		want: `{"a":` + strings.Repeat("[", MaxDepth-1) + strings.Repeat("]", MaxDepth-1) + `}`},

	{name: "a list", data: `[1,2]`, err: "must be a JSON object of input names to values, not a list"},
	{name: "a string", data: `"x"`, err: "must be a JSON object of input names to values, not a string"},
	{name: "a number", data: `-1`, err: "must be a JSON object of input names to values, not a number"},
	{name: "a boolean", data: `true`, err: "must be a JSON object of input names to values, not a boolean"},
	{name: "not JSON", data: " x: 1", err: "must be a JSON object of input names to values: invalid JSON at offset 1"},
	{name: "a duplicate input", data: `{"a":1,"b":2,"a":3}`, err: `input "a": must be listed once, found again at offset 13`},
	{name: "a duplicate input, escaped", data: `{"a":1,"\u0061":3}`, err: `input "a": must be listed once, found again at offset 7`},
	{name: "a duplicate nested name", data: `{"image":{"tag":"1","tag":"2"}}`, err: `input "image": name "tag" must be listed once in its object, found again at offset 20`},
	{name: "a duplicate name deep in a list", data: `{"a":[{"b":[{"c":1,"c":2}]}]}`, err: `input "a": name "c" must be listed once in its object, found again at offset 19`},
	{name: "nested 10,001 deep", data: `{"a":` + strings.Repeat("[", MaxDepth) + strings.Repeat("]", MaxDepth) + `}`,
		err: `input "a": must be nested no more than 10000 deep, found 10001 at offset 10004`},
	{name: "invalid UTF-8", data: "{\"a\":\"x\xff\"}", err: "must be valid UTF-8: invalid byte at offset 7"},
	{name: "invalid UTF-8 in a name", data: "{\"\xc3\":1}", err: "must be valid UTF-8: invalid byte at offset 2"},
	{name: "two values", data: `{"a":1} {"b":2}`, err: "must hold one JSON value, found another at offset 8"},
	{name: "trailing garbage", data: `{"a":1} x`, err: "invalid JSON at offset 8: invalid character 'x' looking for beginning of value"},
	{name: "trailing null", data: `{} null`, err: "must hold one JSON value, found another at offset 3"},
	{name: "unterminated", data: `{"a":[1,2`, err: `input "a": invalid JSON: unexpected end`},
	{name: "unterminated object", data: `{"a":1`, err: "invalid JSON: unexpected end"},
	{name: "a bad value", data: `{"a":tru}`, err: `input "a": invalid JSON at offset 5: invalid character '}' in literal true (expecting 'e')`},
	{name: "a raw control character", data: "{\"a\":\"x\x01\"}", err: `input "a": invalid JSON at offset 5: invalid character '\x01' in string literal`},
	{name: "a name that is not a string", data: `{1:2}`, err: "invalid JSON at offset 1: invalid character '1'"},
	{name: "a long name is cut short", data: `{"` + strings.Repeat("k", 70) + `":{"x":1,"x":2}}`,
		err: `input "` + strings.Repeat("k", 64) + `"... (70 bytes): name "x" must be listed once in its object, found again at offset 81`},
	{name: "too large", data: `{"a":"` + strings.Repeat("x", MaxBytes) + `"}`, err: "must be no more than 1048576 bytes of JSON, not 1048584"},
}

func TestDecode(t *testing.T) {
	t.Parallel()
	for _, tt := range decodeTests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := Decode([]byte(tt.data))
			if tt.err != "" {
				if err == nil || err.Error() != tt.err || got != nil {
					t.Fatalf("Decode() = %s, %v; want nil, %s", got, err, tt.err)
				}
				return
			}
			if err != nil || got == nil {
				t.Fatalf("Decode() = %v, %v", got, err)
			}
			js, err := Encode(got)
			if err != nil {
				t.Fatalf("Encode(): %v", err)
			}
			if string(js) != tt.want {
				t.Errorf("Decode() = %s, want %s", js, tt.want)
			}
		})
	}
}

// TestDecodeCopies: the values share no memory with the text.
func TestDecodeCopies(t *testing.T) {
	t.Parallel()
	data := []byte(`{"a":"xyz"}`)
	got, err := Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	copy(data, `{"a":"XYZ"}`)
	if string(got["a"]) != `"xyz"` {
		t.Errorf("the value changed with the text: %s", got["a"])
	}
}

func TestEncode(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name   string
		inputs map[string]json.RawMessage
		want   string
		err    string
	}{
		{name: "nil", want: `{}`},
		{name: "sorted and compacted", inputs: map[string]json.RawMessage{"b": json.RawMessage(" [ 1 ] "), "a": json.RawMessage(`"<&>"`)},
			want: `{"a":"\u003c\u0026\u003e","b":[1]}`},
		{name: "not JSON", inputs: map[string]json.RawMessage{"a": json.RawMessage(`{`)},
			err: "json: error calling MarshalJSON for type json.RawMessage: unexpected end of JSON input"},
		{name: "exactly the bound", inputs: map[string]json.RawMessage{"a": json.RawMessage(`"` + strings.Repeat("x", MaxBytes-8) + `"`)},
			want: `{"a":"` + strings.Repeat("x", MaxBytes-8) + `"}`},
		{name: "one byte over", inputs: map[string]json.RawMessage{"a": json.RawMessage(`"` + strings.Repeat("x", MaxBytes-7) + `"`)},
			err: "must be no more than 1048576 bytes of JSON, not 1048577"},
		{name: "over once escaped", inputs: map[string]json.RawMessage{"a": json.RawMessage(`"` + strings.Repeat("<", MaxBytes/4) + `"`)},
			err: "must be no more than 1048576 bytes of JSON, not 1572872"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := Encode(tt.inputs)
			if tt.err != "" {
				if err == nil || err.Error() != tt.err || got != nil {
					t.Fatalf("Encode() = %.40s, %v; want nil, %s", got, err, tt.err)
				}
				return
			}
			if err != nil || string(got) != tt.want {
				t.Fatalf("Encode() = %.60s, %v; want %.60s", got, err, tt.want)
			}
			back, err := Decode(got)
			if err != nil {
				t.Fatalf("Decode(Encode()): %v", err)
			}
			if again, _ := Encode(back); !bytes.Equal(again, got) {
				t.Errorf("Encode(Decode(Encode())) = %.60s, want %.60s", again, got)
			}
		})
	}
}

// FuzzDecode: Decode never panics; what it accepts is a map of valid
// JSON values that Go's decoder reads as the same value, and Encode then
// Decode returns the same inputs.
func FuzzDecode(f *testing.F) {
	for _, tt := range decodeTests {
		if len(tt.data) < 1<<10 {
			f.Add([]byte(tt.data))
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := Decode(data)
		if err != nil {
			if got != nil {
				t.Fatalf("Decode() = %v with error %v", got, err)
			}
			return
		}
		for k, v := range got {
			if !json.Valid(v) {
				t.Fatalf("input %q = %q is not valid JSON", k, v)
			}
		}
		// What Go's decoder reads, where Decode accepts, is the same.
		var want map[string]any
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		if len(bytes.Trim(data, jsonSpace)) > 0 {
			if err := dec.Decode(&want); err != nil {
				t.Fatalf("Decode accepted what json refuses: %v", err)
			}
		}
		if want == nil {
			want = map[string]any{}
		}
		if g := decodeAny(t, got); !reflect.DeepEqual(g, want) {
			t.Fatalf("Decode() = %v, json reads %v", g, want)
		}
		js, err := Encode(got)
		if err != nil {
			return // grown past the bound by escaping
		}
		back, err := Decode(js)
		if err != nil {
			t.Fatalf("Decode(Encode()) of %s: %v", js, err)
		}
		if diff := cmp.Diff(decodeAny(t, got), decodeAny(t, back)); diff != "" {
			t.Fatalf("round trip (-first +second):\n%s", diff)
		}
	})
}

// decodeAny decodes each value, numbers as json.Number.
func decodeAny(t *testing.T, in map[string]json.RawMessage) map[string]any {
	t.Helper()
	out := make(map[string]any, len(in))
	for k, v := range in {
		dec := json.NewDecoder(bytes.NewReader(v))
		dec.UseNumber()
		var x any
		if err := dec.Decode(&x); err != nil {
			t.Fatalf("input %q = %s: %v", k, v, err)
		}
		out[k] = x
	}
	return out
}

func BenchmarkDecode(b *testing.B) {
	for _, n := range []int{3, 30} {
		var doc strings.Builder
		doc.WriteString("{")
		for i := range n {
			if i > 0 {
				doc.WriteString(",")
			}
			doc.WriteString(`"input` + strings.Repeat("x", i) + `":{"value":"v","list":[1,2,3]}`)
		}
		doc.WriteString("}")
		data := []byte(doc.String())
		b.Run(fmt.Sprintf("keys=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Decode(data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
