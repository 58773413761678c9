package yamldoc

import (
	"errors"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// TestDetail checks, for each way the module reads a stream, the exact
// detail of each kind of error: a decoder's syntax error without the
// decoder's or sigs.k8s.io/yaml's words, its typed errors by their fields,
// this package's errors as they are, and the document a problem is in.
func TestDetail(t *testing.T) {
	t.Parallel()
	// The ways the module reads a stream: this package's checks, and
	// sigs.k8s.io/yaml's two decoders (agmanifest and inventory convert
	// to JSON; nsmeta unmarshals, which wraps the error).
	read := map[string]func([]byte) error{
		"Documents": func(data []byte) error {
			_, err := Documents(data)
			return err
		},
		"YAMLToJSONStrict": func(data []byte) error {
			_, err := yaml.YAMLToJSONStrict(data)
			return err
		},
		"UnmarshalStrict": func(data []byte) error {
			var v any
			return yaml.UnmarshalStrict(data, &v)
		},
	}
	for _, tt := range []struct {
		name, read, data, want string
	}{
		{name: "a syntax error", read: "YAMLToJSONStrict", data: "a: 1\nb: [\n",
			want: "must be valid YAML: line 2: did not find expected node content"},
		{name: "a syntax error under sigs.k8s.io/yaml's wrapping", read: "UnmarshalStrict", data: "a: 1\nb: [\n",
			want: "must be valid YAML: line 2: did not find expected node content"},
		{name: "a syntax error without a line", read: "YAMLToJSONStrict", data: "\tx: 1\n",
			want: "must be valid YAML: found character that cannot start any token"},
		{name: "a syntax error met by the alias check", read: "Documents", data: "a: &x [\nb: *x\n",
			want: "must be valid YAML: line 2: did not find expected ',' or ']'"},
		{name: "a syntax error in a document before an end marker", read: "Documents", data: "a: [\n...\nb: 1\n",
			want: "document 1: must be valid YAML: line 1: did not find expected node content"},
		{name: "repeated keys", read: "YAMLToJSONStrict", data: "a: 1\na: 2\nb: 1\nb: 2\n",
			want: `must be valid YAML: line 2: key "a" already set in map; line 4: key "b" already set in map`},
		{name: "repeated keys under sigs.k8s.io/yaml's wrapping", read: "UnmarshalStrict", data: "a: 1\na: 2\n",
			want: `must be valid YAML: line 2: key "a" already set in map`},
		{name: "an infinite number", read: "YAMLToJSONStrict", data: "a: .inf\n",
			want: "must hold only finite numbers, not +Inf (.inf or .nan); quote a value that is text"},
		{name: "not a number", read: "UnmarshalStrict", data: "a: [.nan]\n",
			want: "must hold only finite numbers, not NaN (.inf or .nan); quote a value that is text"},
		{name: "a sequence as a key", read: "YAMLToJSONStrict", data: "{[a]: 1}\n",
			want: "must be valid YAML: a mapping key must be a scalar, not a mapping or a sequence"},
		{name: "a mapping as a key", read: "UnmarshalStrict", data: "? {a: 1}\n: b\n",
			want: "must be valid YAML: a mapping key must be a scalar, not a mapping or a sequence"},
		{name: "this package's words: a second document", read: "Documents", data: "a: 1\n...\nb: 2\n",
			want: `document 1: must not hold a second YAML document after a "..." end marker`},
		{name: "this package's words: keys", read: "Documents", data: "1: a\n\"1\": b\n",
			want: `YAML mapping keys must stay distinct as JSON keys: line 2: key "1" and key 1 (an integer) of line 1 both become the JSON key "1"`},
		{name: "this package's words: a directive", read: "Documents", data: "a: 1\n%YAML 1.1\n",
			want: `line 2: "%YAML 1.1": ` + errDirective.Error()},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := read[tt.read]([]byte(tt.data))
			if err == nil {
				t.Fatalf("%s(%q) = nil, want an error", tt.read, tt.data)
			}
			if got := Detail(err); got != tt.want {
				t.Errorf("Detail(%q) = %q, want %q", err, got, tt.want)
			}
		})
	}
}

// TestDetailDocumentError checks that the document an error is in is
// named, and that the error stays in the chain.
func TestDetailDocumentError(t *testing.T) {
	t.Parallel()
	_, err := Documents([]byte("a: 1\n---\nb: [\n...\n"))
	const want = "document 2: must be valid YAML: line 1: did not find expected node content"
	if got := Detail(err); got != want {
		t.Errorf("Detail(%q) = %q, want %q", err, got, want)
	}
	if de, ok := errors.AsType[*documentError](err); !ok || de.n != 2 || !strings.HasPrefix(err.Error(), "document 2: yaml: ") {
		t.Errorf("Documents() = %v, want a documentError of document 2 wrapping the decoder's", err)
	}
}
