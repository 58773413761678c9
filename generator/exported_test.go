package generator

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/tenantkit/tenantkit/internal/exportedinputs"
)

// readExportedInputsTests are status.exportedInputs texts with what
// ReadExportedInputs returns: the inputs as JSON, or the error.
var readExportedInputsTests = []struct {
	name string
	data string
	want string
	err  string
}{
	{name: "as a client sends it", data: `{"dependsOn":[],"image":{"tag":"1.8.2"},"replicas":3}`,
		want: `{"dependsOn":[],"image":{"tag":"1.8.2"},"replicas":3}`},
	{name: "absent", data: ``, want: `{}`},
	{name: "null", data: `null`, want: `{}`},
	{name: "indented", data: "{\n  \"a\": [1, 2]\n}", want: `{"a":[1,2]}`},
	{name: "a large integer keeps its digits", data: `{"n":9007199254740993}`, want: `{"n":9007199254740993}`},
	{name: "a list", data: `[{"a":1}]`, err: "must be a JSON object of input names to values, not a list"},
	{name: "a duplicate nested name", data: `{"image":{"tag":"1","tag":"2"}}`,
		err: `input "image": name "tag" must be listed once in its object, found again at offset 20`},
	{name: "a duplicate input", data: `{"a":1,"a":2}`, err: `input "a": must be listed once, found again at offset 7`},
	{name: "invalid UTF-8", data: "{\"a\":\"\xff\"}", err: "must be valid UTF-8: invalid byte at offset 6"},
	{name: "nested too deep", data: `{"a":` + strings.Repeat("[", 10000) + strings.Repeat("]", 10000) + `}`,
		err: `input "a": must be nested no more than 10000 deep, found 10001 at offset 10004`},
	{name: "too large", data: `{"a":"` + strings.Repeat("x", 1<<20) + `"}`, err: "must be no more than 1048576 bytes of JSON, not 1048584"},
}

func TestReadExportedInputs(t *testing.T) {
	t.Parallel()
	for _, tt := range readExportedInputsTests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := ReadExportedInputs([]byte(tt.data))
			if tt.err != "" {
				if err == nil || err.Error() != tt.err || got != nil {
					t.Fatalf("ReadExportedInputs() = %v, %v; want nil, %s", got, err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if js, _ := json.Marshal(got); string(js) != tt.want {
				t.Errorf("ReadExportedInputs() = %s, want %s", js, tt.want)
			}
		})
	}
}

// TestExportedInputsWriterBounds: the writer, parseInputs, refuses what the
// reader would refuse, with the reader's words, and accepts what it
// accepts, at each bound.
func TestExportedInputsWriterBounds(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name string
		data string
		err  string // "" when the file is accepted
	}{
		// 262,144 "<" in 256 KiB of YAML are 1.5 MiB of JSON, each "\u003c".
		{name: "escaping grows the JSON past the bound", data: `a: "` + strings.Repeat("<", 1<<18) + "\"\n",
			err: "must be no more than 1048576 bytes of JSON, not 1572872"},
		// Aliases repeat 120 KiB nine times: 1 MiB of YAML at most, over 1 MiB of JSON.
		{name: "aliases grow the JSON past the bound", data: "a: &a \"" + strings.Repeat("x", 120<<10) + "\"\nb: [*a, *a, *a, *a, *a, *a, *a, *a]\n",
			err: "must be no more than 1048576 bytes of JSON, not 1105958"},
		{name: "just under the bound", data: "a: " + strings.Repeat("x", 1<<20-8) + "\n"},
		{name: "nested 10,000 deep", data: "x: " + deepFlow(9999) + "\n"},
		{name: "nested 10,001 deep", data: "x: " + deepFlow(10000) + "\n",
			err: `input "x": must be nested no more than 10000 deep, found 10001 at offset 10004`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			in, _, err := parseInputs([]byte(tt.data))
			if tt.err != "" {
				if err == nil || err.Error() != tt.err || in != nil {
					t.Fatalf("parseInputs() = %d inputs, %v; want %s", len(in), err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("parseInputs(): %v", err)
			}
			js, err := json.Marshal(in)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := ReadExportedInputs(js); err != nil {
				t.Errorf("ReadExportedInputs() of what parseInputs accepted: %v", err)
			}
		})
	}
	if maxInputsBytes != exportedinputs.MaxBytes {
		t.Errorf("an inputs file may hold %d bytes, the exported inputs %d: the bounds have drifted apart", maxInputsBytes, exportedinputs.MaxBytes)
	}
}

// FuzzExportedInputsRoundTrip: whatever inputs file the writer accepts, a
// client's JSON of it reads back as the same inputs, byte for byte.
func FuzzExportedInputsRoundTrip(f *testing.F) {
	for _, s := range inputsSeeds {
		f.Add([]byte(s))
	}
	for _, tt := range parseInputsTests {
		f.Add([]byte(tt.data))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		written, _, err := parseInputs(data)
		if err != nil {
			return
		}
		js, err := json.Marshal(written) // what a client sends as status.exportedInputs
		if err != nil {
			t.Fatalf("json.Marshal(%v): %v", written, err)
		}
		read, err := ReadExportedInputs(js)
		if err != nil {
			t.Fatalf("ReadExportedInputs(%s) of what the writer wrote: %v", js, err)
		}
		if diff := cmp.Diff(written, read); diff != "" {
			t.Fatalf("read back (-written +read):\n%s", diff)
		}
	})
}

// providerInputsTests are ExternalArtifacts with the input sets that a
// ResourceSetInputProvider exports for them.
var providerInputsTests = []struct {
	name      string
	artifacts []ExternalArtifactInputs
	want      []ProviderInput
	errs      field.ErrorList
}{
	{
		name: "exported inputs with the provider's own on top",
		artifacts: []ExternalArtifactInputs{{
			Namespace: "tenant-a", Name: "app", Revision: "latest@sha256:abc",
			Labels:         map[string]string{"my.org.io/provisioner": "monorepo", "module": "app"},
			ExportedInputs: json.RawMessage(`{"replicas":3,"dependsOn":["db"],"module":"other","id":"mine"}`),
		}},
		want: []ProviderInput{{
			Namespace: "tenant-a", Name: "app",
			Inputs: map[string]json.RawMessage{
				"replicas": json.RawMessage(`3`), "dependsOn": json.RawMessage(`["db"]`),
				"my.org.io/provisioner": json.RawMessage(`"monorepo"`), "module": json.RawMessage(`"app"`),
				"id": json.RawMessage(`"507905161"`), "name": json.RawMessage(`"app"`),
				"namespace": json.RawMessage(`"tenant-a"`), "revision": json.RawMessage(`"latest@sha256:abc"`),
			},
			Overridden: []string{"id", "module"},
		}},
	},
	{
		name: "the same value is no override",
		artifacts: []ExternalArtifactInputs{{
			Namespace: "tenant-a", Name: "app",
			ExportedInputs: json.RawMessage(`{"namespace":"tenant-a","name":"\u0061pp"}`),
		}},
		want: []ProviderInput{{
			Namespace: "tenant-a", Name: "app",
			Inputs: map[string]json.RawMessage{
				"id": json.RawMessage(`"507905161"`), "name": json.RawMessage(`"app"`), "namespace": json.RawMessage(`"tenant-a"`),
			},
		}},
	},
	{
		name: "a string and a list are other values",
		artifacts: []ExternalArtifactInputs{{
			Namespace: "tenant-a", Name: "app", Revision: "v1",
			ExportedInputs: json.RawMessage(`{"namespace":"tenant-b","revision":["v1"]}`),
		}},
		want: []ProviderInput{{
			Namespace: "tenant-a", Name: "app",
			Inputs: map[string]json.RawMessage{
				"id": json.RawMessage(`"507905161"`), "name": json.RawMessage(`"app"`),
				"namespace": json.RawMessage(`"tenant-a"`), "revision": json.RawMessage(`"v1"`),
			},
			Overridden: []string{"namespace", "revision"},
		}},
	},
	{
		name: "a label named like the provider's own gives way, unlisted",
		artifacts: []ExternalArtifactInputs{{
			Namespace: "tenant-a", Name: "app", Labels: map[string]string{"name": "label", "revision": "r"},
		}},
		want: []ProviderInput{{
			Namespace: "tenant-a", Name: "app",
			Inputs: map[string]json.RawMessage{
				"id": json.RawMessage(`"507905161"`), "name": json.RawMessage(`"app"`),
				"namespace": json.RawMessage(`"tenant-a"`), "revision": json.RawMessage(`"r"`),
			},
		}},
	},
	{
		name: "sorted by namespace, then name; a second listing counts once, as the first",
		artifacts: []ExternalArtifactInputs{
			{Namespace: "tenant-b", Name: "app"},
			{Namespace: "tenant-a", Name: "web", ExportedInputs: json.RawMessage(`{"first":true}`)},
			{Namespace: "tenant-a", Name: "app"},
			{Namespace: "tenant-a", Name: "web", ExportedInputs: json.RawMessage(`{"second":true}`)},
		},
		want: []ProviderInput{
			{Namespace: "tenant-a", Name: "app", Inputs: map[string]json.RawMessage{
				"id": json.RawMessage(`"507905161"`), "name": json.RawMessage(`"app"`), "namespace": json.RawMessage(`"tenant-a"`)}},
			{Namespace: "tenant-a", Name: "web", Inputs: map[string]json.RawMessage{"first": json.RawMessage(`true`),
				"id": json.RawMessage(`"509871238"`), "name": json.RawMessage(`"web"`), "namespace": json.RawMessage(`"tenant-a"`)}},
			{Namespace: "tenant-b", Name: "app", Inputs: map[string]json.RawMessage{
				"id": json.RawMessage(`"508232842"`), "name": json.RawMessage(`"app"`), "namespace": json.RawMessage(`"tenant-b"`)}},
		},
	},
	{name: "none", want: []ProviderInput{}},
	{
		name: "one bad artifact: no sets, every problem",
		artifacts: []ExternalArtifactInputs{
			{Namespace: "tenant-a", Name: "app"},
			{Namespace: "Tenant_B", Name: "app", Labels: map[string]string{"bad key!": "v"}},
			{Namespace: "tenant-c", Name: "app", ExportedInputs: json.RawMessage(`{"a":1,"a":2}`)},
		},
		errs: field.ErrorList{
			field.Invalid(field.NewPath("artifacts").Index(1).Child("namespace"), "Tenant_B",
				"a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"),
			field.Invalid(field.NewPath("artifacts").Index(1).Child("labels"), "bad key!",
				"name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')").
				WithOrigin("format=k8s-label-key"),
			field.Invalid(field.NewPath("artifacts").Index(2).Child("exportedInputs"), field.OmitValueType{},
				`ExternalArtifact tenant-c/app: input "a": must be listed once, found again at offset 7`),
		},
	},
}

func TestProviderInputs(t *testing.T) {
	t.Parallel()
	for _, tt := range providerInputsTests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			before := cloneArtifacts(tt.artifacts)
			got, errs := ProviderInputs(tt.artifacts)
			if diff := cmp.Diff(tt.errs, errs); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("sets (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(before, tt.artifacts); diff != "" {
				t.Errorf("ProviderInputs modified its argument (-before +after):\n%s", diff)
			}
		})
	}
}

func cloneArtifacts(as []ExternalArtifactInputs) []ExternalArtifactInputs {
	if as == nil {
		return nil
	}
	out := make([]ExternalArtifactInputs, len(as))
	for i, a := range as {
		out[i] = a
		out[i].ExportedInputs = bytes.Clone(a.ExportedInputs)
		if a.Labels != nil {
			out[i].Labels = make(map[string]string, len(a.Labels))
			for k, v := range a.Labels {
				out[i].Labels[k] = v
			}
		}
	}
	return out
}

// FuzzReadExportedInputs: no status.exportedInputs panics the reader or
// the merge; what the reader accepts reads back the same from a client's
// JSON of it, and the merge keeps every exported input that the
// provider's own do not name, and names each it replaced.
func FuzzReadExportedInputs(f *testing.F) {
	for _, tt := range readExportedInputsTests {
		if len(tt.data) < 1<<10 {
			f.Add([]byte(tt.data), "tenant-a", "app", "rev")
		}
	}
	for _, tt := range providerInputsTests {
		for _, a := range tt.artifacts {
			f.Add([]byte(a.ExportedInputs), a.Namespace, a.Name, a.Revision)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte, namespace, name, revision string) {
		got, err := ReadExportedInputs(data)
		if err != nil {
			if got != nil {
				t.Fatalf("ReadExportedInputs() = %v with error %v", got, err)
			}
		} else {
			js, err := json.Marshal(got)
			if err != nil {
				t.Fatalf("json.Marshal(%v): %v", got, err)
			}
			if len(js) <= exportedinputs.MaxBytes {
				back, err := ReadExportedInputs(js)
				if err != nil {
					t.Fatalf("ReadExportedInputs(%s): %v", js, err)
				}
				if len(back) != len(got) {
					t.Fatalf("read back %d inputs, want %d", len(back), len(got))
				}
			}
		}
		sets, errs := ProviderInputs([]ExternalArtifactInputs{{Namespace: namespace, Name: name, Revision: revision, ExportedInputs: data}})
		if (len(errs) == 0) != (sets != nil) {
			t.Fatalf("ProviderInputs() = %v, %v", sets, errs)
		}
		if len(errs) > 0 {
			return
		}
		if err != nil {
			t.Fatalf("ProviderInputs accepted exported inputs that ReadExportedInputs refuses: %v", err)
		}
		set := sets[0]
		own := map[string]bool{"id": true, "name": true, "namespace": true, "revision": revision != ""}
		for k, v := range got {
			switch {
			case !own[k] && !bytes.Equal(set.Inputs[k], v):
				t.Fatalf("exported input %q = %s became %s", k, v, set.Inputs[k])
			case own[k]:
				var s string
				if err := json.Unmarshal(set.Inputs[k], &s); err != nil {
					t.Fatalf("input %q = %s: %v", k, set.Inputs[k], err)
				}
				if isJSONString(v, s) == contains(set.Overridden, k) {
					t.Fatalf("input %q: %s replaced by %s, overridden %q", k, v, set.Inputs[k], set.Overridden)
				}
			}
		}
	})
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}
