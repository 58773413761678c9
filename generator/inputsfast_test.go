package generator

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tenantkit/tenantkit/internal/exportedinputs"
)

// parseInputsFastTests are inputs files with the JSON of their inputs when
// parseInputsFast reads them, or want "" when it leaves them to
// parseInputsSlow.
var parseInputsFastTests = []struct {
	name string
	data string
	want string // JSON of the inputs, keys sorted; "" for a fallback
}{
	{
		name: "the synthetic tree's inputs",
		data: fmt.Sprintf(synthInputs, "tenant-00001", "module-0", 1),
		want: `{"dependsOn":[],"image":{"repository":"ghcr.io/example/tenant-00001/module-0","tag":"1.1.0"},"replicas":1}`,
	},
	{name: "a block sequence", data: "replicas: 2\ndependsOn:\n  - api\n", want: `{"dependsOn":["api"],"replicas":2}`},
	{name: "a sequence at its key's indentation", data: "a:\n- x\n- 'y'\nb: 1\n", want: `{"a":["x","y"],"b":1}`},
	{name: "a quoted schedule and a comment", data: "schedule: \"*/15 * * * *\" # every quarter\n", want: `{"schedule":"*/15 * * * *"}`},
	{name: "trailing spaces", data: "a: b  \nc: 'd'   \ne:   \n  - 1  \n  - []  \n", want: `{"a":"b","c":"d","e":[1,[]]}`},
	{name: "comments, blank lines, no final newline", data: "# inputs\n\nb: x # c\n  # more\na: # the next lines\n  c: {}\n  d: -12", want: `{"a":{"c":{},"d":-12},"b":"x"}`},
	{name: "nested keys sorted", data: "z:\n    b: 1\n    a: 0\n    c:\n      - /x\n", want: `{"z":{"a":0,"b":1,"c":["/x"]}}`},
	{name: "indented root", data: "  a: b\n  c: d\n", want: `{"a":"b","c":"d"}`},
	{name: "quoted special words and empty strings", data: "a: \"yes\"\nb: 'null'\nc: \"\"\nd: '012'\n", want: `{"a":"yes","b":"null","c":"","d":"012"}`},
	{name: "words that only start like specials", data: "a: yesno\nb: Nope\nc: offline\nd: nullable\n", want: `{"a":"yesno","b":"Nope","c":"offline","d":"nullable"}`},
	{name: "a 15-digit integer", data: "a: 999999999999999\n", want: `{"a":999999999999999}`},

	{name: "empty", data: ""},
	{name: "a comment only", data: "# nothing\n"},
	{name: "a list", data: "- a\n"},
	{name: "a flow mapping", data: "{a: 1}\n"},
	{name: "JSON", data: `{"a": 1}`},
	{name: "a duplicate key", data: "a: 1\na: 2\n"},
	{name: "a duplicate nested key", data: "a:\n  b: 1\n  b: 2\n"},
	{name: "an anchor and an alias", data: "a: &x b\nc: *x\n"},
	{name: "a tag", data: "a: !!str 1\n"},
	{name: "a separator", data: "---\na: 1\n"},
	{name: "an end marker", data: "a: 1\n...\n"},
	{name: "a directive", data: "%YAML 1.1\n---\na: 1\n"},
	{name: "a tab", data: "a:\tb\n"},
	{name: "CRLF", data: "a: b\r\n"},
	{name: "a byte order mark", data: "\ufeffa: b\n"},
	{name: "UTF-8", data: "a: é\n"},
	{name: "yes", data: "a: yes\n"},
	{name: "Off", data: "a: Off\n"},
	{name: "y", data: "a: y\n"},
	{name: "N", data: "a: N\n"},
	{name: "~", data: "a: ~\n"},
	{name: "NULL", data: "a: NULL\n"},
	{name: "tRuE", data: "a: tRuE\n"},
	{name: "a special key", data: "on: 1\n"},
	{name: "a null value", data: "a:\nb: 1\n"},
	{name: "a null at the end", data: "a:\n"},
	{name: "a null item", data: "a:\n  -\n"},
	{name: "a null item with a space", data: "a:\n- \n"},
	{name: "octal", data: "a: 012\n"},
	{name: "hexadecimal", data: "a: 0x10\n"},
	{name: "minus zero", data: "a: -0\n"},
	{name: "a 16-digit integer", data: "a: 1000000000000000\n"},
	{name: "an underscore in a number", data: "a: 1_000\n"},
	{name: "a float", data: "a: 1.5\n"},
	{name: "a version", data: "a: 1.1.0\n"},
	{name: "a timestamp", data: "a: 2001-12-14\n"},
	{name: ".inf", data: "a: .inf\n"},
	{name: "a merge key", data: "<<: {a: 1}\n"},
	{name: "a flow sequence with items", data: "a: [b]\n"},
	{name: "a colon in a plain scalar", data: "a: b:c\n"},
	{name: "a space in a plain scalar", data: "a: b c\n"},
	{name: "a hash without a space", data: "a: b#c\n"},
	{name: "a multi-line plain scalar", data: "a: b\n  c\n"},
	{name: "a multi-line quoted string", data: "a: \"b\n  c\"\n"},
	{name: "an escape", data: "a: \"b\\n\"\n"},
	{name: "a doubled single quote", data: "a: 'it''s'\n"},
	{name: "HTML characters", data: "a: \"<b>&\"\n"},
	{name: "a quoted key", data: "\"a\": b\n"},
	{name: "a key without a space", data: "a:b\n"},
	{name: "a key too long", data: strings.Repeat("k", maxFastKey+1) + ": v\n"},
	{name: "uneven indentation", data: "a:\n    b: 1\n  c: 2\n"},
	{name: "a mapping in a sequence", data: "a:\n  - b: 1\n"},
	{name: "a sequence in a sequence", data: "a:\n  - - b\n"},
	{name: "text after a quoted string", data: "a: \"b\"c\n"},
	{name: "nested too deep", data: deepBlock(maxFastDepth + 1)},
	{name: "JSON longer than an inputs object may be", data: "a: " + strings.Repeat("x", exportedinputs.MaxBytes-len(`{"a":""}`)+1) + "\n"},
}

// deepBlock returns a block mapping nested n deep, the file counting one.
func deepBlock(n int) string {
	var b strings.Builder
	for i := range n - 1 {
		fmt.Fprintf(&b, "%sk:\n", strings.Repeat(" ", i))
	}
	fmt.Fprintf(&b, "%sk: v\n", strings.Repeat(" ", n-1))
	return b.String()
}

func TestParseInputsFast(t *testing.T) {
	t.Parallel()
	for _, tt := range parseInputsFastTests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, _, ok := parseInputsFast([]byte(tt.data))
			if tt.want == "" {
				if ok || got != nil {
					t.Fatalf("parseInputsFast() = %s, %v; want a fallback", mustJSON(t, got), ok)
				}
				return
			}
			if !ok {
				t.Fatal("parseInputsFast() falls back; want it to read the file")
			}
			if js := mustJSON(t, got); js != tt.want {
				t.Errorf("parseInputsFast() = %s, want %s", js, tt.want)
			}
			slow, err := parseInputsSlow([]byte(tt.data))
			if err != nil {
				t.Fatalf("parseInputsSlow() error = %v", err)
			}
			if diff := cmp.Diff(rawStrings(slow), rawStrings(got)); diff != "" {
				t.Errorf("parseInputsFast() and parseInputsSlow() differ (-slow +fast):\n%s", diff)
			}
		})
	}
	t.Run("JSON as long as an inputs object may be", func(t *testing.T) {
		t.Parallel()
		value := strings.Repeat("x", exportedinputs.MaxBytes-len(`{"a":""}`))
		got, _, ok := parseInputsFast([]byte("a: " + value + "\n"))
		if want := `"` + value + `"`; !ok || len(got) != 1 || string(got["a"]) != want {
			t.Errorf("parseInputsFast() = %d inputs, %v; want a %d-byte string", len(got), ok, len(value))
		}
	})
	t.Run("deepest accepted", func(t *testing.T) {
		t.Parallel()
		if _, _, ok := parseInputsFast([]byte(deepBlock(maxFastDepth))); !ok {
			t.Errorf("parseInputsFast() falls back for a file nested %d deep", maxFastDepth)
		}
	})
}

// FuzzParseInputsFast is the proof that parseInputsFast changes nothing:
// whenever it reads a file, parseInputsSlow reads the same inputs, byte
// for byte, and whenever it does not, parseInputs returns what
// parseInputsSlow returns, its error too.
func FuzzParseInputsFast(f *testing.F) {
	for _, s := range inputsFastSeeds(f) {
		if len(s) <= 64<<10 { // a larger seed slows every mutation of it
			f.Add([]byte(s))
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fast, object, ok := parseInputsFast(data)
		slow, err := parseInputsSlow(data)
		if ok {
			if err != nil {
				t.Fatalf("parseInputsFast() = %s; parseInputsSlow() error = %v", mustJSON(t, fast), err)
			}
			if diff := cmp.Diff(rawStrings(slow), rawStrings(fast)); diff != "" {
				t.Fatalf("parseInputsFast() and parseInputsSlow() differ (-slow +fast):\n%s", diff)
			}
			if want, _ := json.Marshal(slow); string(object) != string(want) {
				t.Fatalf("parseInputsFast() object %s, json.Marshal of parseInputsSlow() %s", object, want)
			}
			return
		}
		if fast != nil || object != nil {
			t.Fatalf("parseInputsFast() = %s, %s with a fallback", mustJSON(t, fast), object)
		}
		got, _, gotErr := parseInputs(data)
		if fmt.Sprint(gotErr) != fmt.Sprint(err) || !cmp.Equal(rawStrings(got), rawStrings(slow)) || (got == nil) != (slow == nil) {
			t.Fatalf("parseInputs() = %s, %v; parseInputsSlow() = %s, %v", mustJSON(t, got), gotErr, mustJSON(t, slow), err)
		}
	})
}

// inputsFastSeeds are the seeds of FuzzParseInputsFast: the table tests of
// parseInputs (parseInputsTests, inputsSeeds, TestParseInputsLongJSONLine,
// upstream's inputs file) and of parseInputsFast, and treeInputs.
func inputsFastSeeds(tb testing.TB) []string {
	seeds := append([]string{upstreamInputs, `{"image":"` + strings.Repeat("v", 4084) + `"}`}, inputsSeeds...)
	for _, tt := range parseInputsTests {
		seeds = append(seeds, tt.data)
	}
	for _, tt := range parseInputsFastTests {
		seeds = append(seeds, tt.data)
	}
	return append(seeds, treeInputs(tb)...)
}

// treeInputs returns the inputs files of the example's sample tree and
// three of the synthetic tree's.
func treeInputs(tb testing.TB) []string {
	var files []string
	for i := range 3 {
		files = append(files, fmt.Sprintf(synthInputs, fmt.Sprintf("tenant-%05d", i), fmt.Sprintf("module-%d", i), i+1))
	}
	sample := filepath.Join("..", "examples", "plan", "sample")
	err := filepath.WalkDir(sample, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, "inputs.yaml") {
			return err
		}
		data, err := os.ReadFile(path)
		files = append(files, string(data))
		return err
	})
	if err != nil {
		tb.Fatal(err)
	}
	return files
}

// TestTreeInputs: the fast path reads every inputs file of the sample and
// synthetic trees, and there are six of them.
func TestTreeInputs(t *testing.T) {
	t.Parallel()
	files := treeInputs(t)
	for _, s := range files {
		if _, _, ok := parseInputsFast([]byte(s)); !ok {
			t.Errorf("parseInputsFast(%q) falls back", s)
		}
	}
	if len(files) != 6 {
		t.Errorf("%d inputs files in the sample and synthetic trees, want 6", len(files))
	}
}

// rawStrings returns inputs with their JSON as strings, for cmp.
func rawStrings(inputs map[string]json.RawMessage) map[string]string {
	if inputs == nil {
		return nil
	}
	out := make(map[string]string, len(inputs))
	for k, v := range inputs {
		out[k] = string(v)
	}
	return out
}

func mustJSON(tb testing.TB, inputs map[string]json.RawMessage) string {
	tb.Helper()
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(inputs); err != nil {
		tb.Fatal(err)
	}
	return strings.TrimSuffix(b.String(), "\n")
}
