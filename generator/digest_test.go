package generator

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"testing"
	"testing/fstest"

	"github.com/opencontainers/go-digest"
)

var updateVectors = flag.Bool("update", false, "rewrite testdata/artifact-digest-vectors.json")

// digestVector is one test vector of the artifact digest: files by
// destination, inputs as JSON, and the digest; bytes spells out what is
// hashed, so that another implementation can check its framing.
type digestVector struct {
	Name   string                     `json:"name"`
	Files  map[string]string          `json:"files"`
	Inputs map[string]json.RawMessage `json:"inputs,omitempty"`
	Bytes  string                     `json:"bytes"`
	Digest digest.Digest              `json:"digest"`
}

var digestCases = []digestVector{
	{Name: "no files, no inputs"},
	{Name: "one file", Files: map[string]string{"a.yaml": "kind: A\n"}},
	{Name: "two files in byte order", Files: map[string]string{"b.yaml": "b", "a/c.yaml": "c"}},
	{Name: "empty file", Files: map[string]string{"empty": ""}},
	{Name: "one input", Files: map[string]string{"a.yaml": "kind: A\n"}, Inputs: map[string]json.RawMessage{"tag": json.RawMessage(`"1.0"`)}},
	{Name: "inputs compacted, keys in byte order", Files: map[string]string{"a.yaml": "kind: A\n"},
		Inputs: map[string]json.RawMessage{"image": json.RawMessage(`{ "repository": "r",  "tag": "1.0" }`), "dependsOn": json.RawMessage(`[ ]`), "Z": json.RawMessage(`1`)}},
	{Name: "inputs only", Inputs: map[string]json.RawMessage{"a": json.RawMessage(`null`)}},
}

func vectorBytes(v digestVector) (string, digest.Digest) {
	var spelled []byte
	d := newDigester()
	record := &recorder{d: d, out: &spelled}
	for _, name := range sortedKeys(v.Files) {
		record.file(name, []byte(v.Files[name]))
	}
	record.inputs(v.Inputs)
	return string(spelled), d.sum()
}

// recorder feeds a digester and keeps a copy of what it hashes.
type recorder struct {
	d   *digester
	out *[]byte
}

func (r *recorder) file(path string, content []byte) {
	r.d.file(path, content)
	*r.out = append(*r.out, path+"\x00"+itoa(len(content))+"\x00"...)
	*r.out = append(*r.out, content...)
}

func (r *recorder) inputs(in map[string]json.RawMessage) {
	r.d.inputs(in)
	if len(in) == 0 {
		return
	}
	*r.out = append(*r.out, "\x00inputs\x00"...)
	for _, k := range sortedKeys(in) {
		var c []byte
		b, _ := json.Marshal(json.RawMessage(in[k])) // compacts
		c = b
		*r.out = append(*r.out, itoa(len(k))+"\x00"+k+"\x00"+itoa(len(c))+"\x00"...)
		*r.out = append(*r.out, c...)
	}
}

// TestDigestVectors checks the artifact digest against the vectors in
// testdata, and that a plan computes the same digest from a tree.
func TestDigestVectors(t *testing.T) {
	t.Parallel()
	var got []digestVector
	for _, v := range digestCases {
		v.Bytes, v.Digest = vectorBytes(v)
		if v.Files == nil {
			v.Files = map[string]string{}
		}
		got = append(got, v)
	}
	path := "testdata/artifact-digest-vectors.json"
	if *updateVectors {
		data, _ := json.MarshalIndent(got, "", "  ")
		if err := os.WriteFile(path, append(data, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var want []digestVector
	if err := json.Unmarshal(data, &want); err != nil {
		t.Fatal(err)
	}
	if len(want) != len(got) {
		t.Fatalf("%d vectors in %s, %d cases", len(want), path, len(got))
	}
	for i := range want {
		if got[i].Digest != want[i].Digest || got[i].Bytes != want[i].Bytes {
			t.Errorf("%s: digest %s over %q, want %s over %q", want[i].Name, got[i].Digest, got[i].Bytes, want[i].Digest, want[i].Bytes)
		}
		// The digest is SHA-256 of the spelled-out bytes.
		if d := digest.FromString(want[i].Bytes); d != want[i].Digest {
			t.Errorf("%s: sha256 of the bytes is %s, the vector says %s", want[i].Name, d, want[i].Digest)
		}
	}

	// A plan of one artifact with the files and inputs of the sixth vector.
	v := want[5]
	fsys := fstest.MapFS{}
	for name, content := range v.Files {
		fsys["tenants/tenant-a/modules/app/manifests/"+name] = &fstest.MapFile{Data: []byte(content)}
	}
	inputs, _ := json.Marshal(v.Inputs)
	fsys["tenants/tenant-a/modules/app/inputs.yaml"] = &fstest.MapFile{Data: inputs}
	fsys["tenants/tenant-a/namespace-metadata.yaml"] = &fstest.MapFile{Data: []byte(emptyMetadataFile)}
	g := mustCompile(t, testSpec())
	p, err := g.Plan(context.Background(), sources(fsys), nil, (&fakeCluster{}).cluster())
	if err != nil || p.HasErrors() || len(p.Artifacts) != 1 {
		t.Fatalf("plan: %v %v", err, p.Errors.ToAggregate())
	}
	if p.Artifacts[0].Digest != v.Digest {
		t.Errorf("plan digest %s, vector %s", p.Artifacts[0].Digest, v.Digest)
	}
}
