package agmanifest_test

import (
	"errors"
	"fmt"

	"github.com/tenantkit/tenantkit/generator"
	"github.com/tenantkit/tenantkit/internal/agmanifest"
)

func ExampleDecode() {
	m, err := agmanifest.Decode[generator.Spec]([]byte(exported))
	if err != nil {
		panic(err)
	}
	fmt.Println(m.Metadata.Namespace, m.Metadata.Name, m.Spec.PathPattern)

	_, err = agmanifest.Decode[generator.Spec]([]byte(`apiVersion: source.extensions.fluxcd.io/v1beta1
kind: ArtifactGenerator
metadata: {name: tenants, resourceVersion: "1"}
spec:
  sources: [{alias: repo, kind: GitRepository, name: monorepo}]
  artifacts: [{name: app, copy: [{frm: "@repo/app/**", to: "@artifact/"}]}]
`))
	fmt.Println(err, errors.Is(err, agmanifest.ErrFields))

	_, err = agmanifest.Decode[generator.Spec]([]byte("apiVersion: v1\nkind: NamespaceList\nitems: []\n"))
	fmt.Println(err, errors.Is(err, agmanifest.ErrNotGenerator))
	// Output:
	// flux-system tenants @repo/tenants/{namespace}/modules/{module}
	// spec.artifacts[0].copy[0].frm: unknown field true
	// kind: must be "ArtifactGenerator", found "NamespaceList" true
}

func ExampleUnmarshal() {
	var suite struct {
		Cases []struct {
			Name   string `json:"name"`
			Expect struct {
				NoErrors bool `json:"noErrors"`
			} `json:"expect"`
		} `json:"cases"`
	}
	err := agmanifest.Unmarshal([]byte("cases:\n- name: a\n  expect: {noError: true}\n"), &suite)
	fmt.Println(err)
	// Output:
	// cases[0].expect.noError: unknown field
}

func ExampleParse() {
	doc, err := agmanifest.Parse([]byte("kind: List\nitems: []\n"))
	fmt.Println(agmanifest.JSONKind(doc), err)
	_, err = agmanifest.Parse([]byte("a: 1\n---\nb: 2\n"))
	fmt.Println(err)
	// Output:
	// a mapping <nil>
	// the file must hold one YAML document, found 2
}

func ExampleStrict() {
	doc, _ := agmanifest.Parse([]byte("{nmae: a}"))
	var v struct {
		Name string `json:"name"`
	}
	fmt.Println(agmanifest.Strict(doc, nil, &v))
	// Output:
	// nmae: unknown field
}

func ExampleFind() {
	doc, _ := agmanifest.Parse([]byte(list(exported)))
	obj, at, err := agmanifest.Find(doc)
	fmt.Println(obj["kind"], at, err)
	// Output:
	// ArtifactGenerator items[0] <nil>
}
