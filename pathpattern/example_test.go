package pathpattern_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"testing/fstest"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/tenantkit/tenantkit/pathpattern"
)

// monorepo is the tree the examples read: the source with alias "repo".
var monorepo = fstest.MapFS{
	"tenants/team-a/namespace-metadata.yaml":                   {Data: []byte("kind: NamespaceMetadata\n")},
	"tenants/team-a/modules/app/applier-inputs.yaml":           {Data: []byte("replicas: 2\n")},
	"tenants/team-a/modules/app/manifests/deploy.yaml":         {Data: []byte("kind: Deployment\n")},
	"tenants/team-a/modules/app/manifests/README.md":           {Data: []byte("# app\n")},
	"tenants/team-a/modules/app/manifests/overlays/patch.yaml": {Data: []byte("kind: Patch\n")},
	"tenants/Team-B/modules/Web/manifests/svc.yaml":            {Data: []byte("kind: Service\n")},
	"tenants/Bad Name/modules/x/manifests/cm.yaml":             {Data: []byte("kind: ConfigMap\n")},
	"tenants/.git/modules/x":                                   {Mode: fs.ModeDir},
	"docs/modules/index.md":                                    {Data: []byte("# docs\n")},
}

func ExampleParse() {
	p, err := pathpattern.Parse("@repo/tenants/{namespace}/modules/{module}")
	if err != nil {
		panic(err)
	}
	fmt.Println(p.Alias(), p.Captures(), p.String())

	_, err = pathpattern.Parse("@repo/tenants/{namespace}/")
	fmt.Println(err)
	var se *pathpattern.SyntaxError
	fmt.Println(errors.Is(err, pathpattern.ErrSyntax), errors.As(err, &se) && se.Offset == 25)

	_, err = pathpattern.Parse("@repo/{a-b}")
	fmt.Println(err)
	// Output:
	// repo [namespace module] @repo/tenants/{namespace}/modules/{module}
	// pathpattern: must not end with '/' (offset 25 in "@repo/tenants/{namespace}/")
	// true true
	// pathpattern: capture name must match [A-Za-z_][A-Za-z0-9_]* and be a valid label key (at most 63 characters, starting and ending with an alphanumeric character): "a-b" (offset 7 in "@repo/{a-b}")
}

func ExamplePattern_Match() {
	p := pathpattern.MustParse("@repo/apps/{name}-{env}")
	c, ok := p.Match("apps/web-api-prod")
	fmt.Println(ok, c["name"], c["env"])
	_, ok = p.Match("apps/web")
	fmt.Println(ok)
	// Output:
	// true web-api prod
	// false
}

func ExamplePattern_Discover() {
	p := pathpattern.MustParse("@repo/tenants/{namespace}/modules/{module}")
	matches, errs, err := p.Discover(monorepo, field.NewPath("spec", "pathPattern"))
	if err != nil {
		panic(err)
	}
	for _, m := range matches {
		fmt.Println(m.Path, m.Raw["namespace"], m.Normalized["namespace"], m.Normalized["module"])
	}
	for _, e := range errs {
		fmt.Println(e)
	}
	// Output:
	// tenants/Team-B/modules/Web Team-B team-b web
	// tenants/team-a/modules/app team-a team-a app
	// spec.pathPattern: Invalid value: "bad name": directory "tenants/Bad Name/modules/x", capture "namespace": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')
}

// A source that lacks the pattern's fixed prefix, here given one level too
// deep, is an error, not a source without tenants.
func ExamplePattern_Discover_sourceShape() {
	p := pathpattern.MustParse("@repo/tenants/{namespace}/modules/{module}")
	tenants, err := fs.Sub(monorepo, "tenants")
	if err != nil {
		panic(err)
	}
	matches, _, err := p.Discover(tenants, nil)
	fmt.Println(len(matches), errors.Is(err, pathpattern.ErrSourceShape))
	fmt.Println(err)
	// Output:
	// 0 true
	// discover tenants: pathpattern: must be a directory, as the pattern's fixed prefix names it: it does not exist
}

// A tenant's directory replaced by a symbolic link is neither followed nor
// skipped: it is a problem entry, with what was captured on the way to
// it, and an error, so that the caller keeps what it rendered.
func ExamplePattern_Discover_problem() {
	p := pathpattern.MustParse("@repo/tenants/{namespace}/modules/{module}")
	fsys := fstest.MapFS{
		"tenants/team-a/modules/app": {Mode: fs.ModeDir | 0o755},
		"tenants/team-b":             {Data: []byte("/elsewhere"), Mode: fs.ModeSymlink | 0o777},
	}
	matches, errs, _ := p.Discover(fsys, field.NewPath("spec", "pathPattern"))
	for _, m := range matches {
		fmt.Printf("%s %v %q\n", m.Path, m.Normalized, m.Problem)
	}
	fmt.Println(errs)
	// Output:
	// tenants/team-a/modules/app map[module:app namespace:team-a] ""
	// tenants/team-b map[namespace:team-b] "must be a directory, not a symbolic link"
	// [spec.pathPattern: Invalid value: "tenants/team-b": must be a directory, not a symbolic link, as the pattern's segment "{namespace}" names it: discovery neither reads nor follows it]
}

func ExamplePattern_Template() {
	p := pathpattern.MustParse("@repo/tenants/{namespace}/modules/{module}")
	inputs, err := p.Template("@repo/tenants/{namespace}/modules/{module}/applier-inputs.yaml")
	if err != nil {
		panic(err)
	}
	fmt.Println(inputs.Captures())

	_, err = p.Template("{tenant}")
	fmt.Println(err)
	// Output:
	// [namespace module]
	// pathpattern: template must name only captures of its pattern: "tenant" (offset 0 in "{tenant}")
}

func ExampleTemplate_Expand() {
	p := pathpattern.MustParse("@repo/tenants/{namespace}/modules/{module}")
	m := pathpattern.Match{
		Path:       "tenants/Team-B/modules/Web",
		Raw:        map[string]string{"namespace": "Team-B", "module": "Web"},
		Normalized: map[string]string{"namespace": "team-b", "module": "web"},
	}
	// Names from the normalized values, paths from the raw ones.
	name, _ := p.MustTemplate("{namespace}-{module}").Expand(m.Normalized)
	from, _ := p.MustTemplate("@repo/tenants/{namespace}/modules/{module}/manifests/**").Expand(m.Raw)
	fmt.Println(name)
	fmt.Println(from)
	// Output:
	// team-b-web
	// @repo/tenants/Team-B/modules/Web/manifests/**
}

func ExamplePattern_Warnings() {
	p := pathpattern.MustParse("@repo/{namespace}/{name}")
	for _, w := range p.Warnings(p.MustTemplate("{namespace}")) {
		fmt.Println(w)
	}
	// Output:
	// capture "name" is overwritten by the artifact's own name in flux-operator's ExternalArtifact inputs; rename the capture
}

// A caller that words errors its own way reads the rule, the offset and the offending part.
func ExampleSyntaxError() {
	for _, pattern := range []string{"@repo/apps/{app", "@repo/apps/{app}/", "@repo/apps/{app}/envs/{app}"} {
		_, err := pathpattern.Parse(pattern)
		var se *pathpattern.SyntaxError
		if errors.As(err, &se) {
			fmt.Printf("%s: %s at offset %d %q\n", pattern, se.Rule, se.Offset, se.Value)
		}
	}
	// Output:
	// @repo/apps/{app: '{' must be closed by '}' in the same segment at offset 11 ""
	// @repo/apps/{app}/: must not end with '/' at offset 16 ""
	// @repo/apps/{app}/envs/{app}: capture name must be unique in the pattern at offset 22 "app"
}

func ExampleParseRef() {
	r, err := pathpattern.ParseRef("@repo/tenants/team-a//namespace-metadata.yaml")
	fmt.Println(r.Alias, r.Path, err)
	fmt.Println(r)

	_, err = pathpattern.ParseRef("@repo/tenants/../../etc/passwd")
	fmt.Println(errors.Is(err, pathpattern.ErrSyntax), err)
	// Output:
	// repo tenants/team-a/namespace-metadata.yaml <nil>
	// @repo/tenants/team-a/namespace-metadata.yaml
	// true pathpattern: reference path must not contain ".." (offset 14 in "@repo/tenants/../../etc/passwd")
}

func ExampleRef_Validate() {
	fmt.Println(pathpattern.Ref{Alias: "repo", Path: "a/b"}.Validate())
	fmt.Println(pathpattern.Ref{Alias: "repo", Path: "a/../b"}.Validate())
	// Output:
	// <nil>
	// pathpattern: reference path must not contain ".." (offset 8 in "@repo/a/../b")
}

func ExampleGlob() {
	ctx := context.Background()
	files, _, err := pathpattern.Glob(ctx, monorepo, "tenants/team-a/modules/app/manifests/**", "*.md")
	if err != nil {
		panic(err)
	}
	for _, f := range files {
		fmt.Println(f)
	}
	// Output:
	// tenants/team-a/modules/app/manifests/deploy.yaml
	// tenants/team-a/modules/app/manifests/overlays/patch.yaml
}

// Glob names what a copy leaves out: symbolic links and irregular files.
func ExampleGlob_skipped() {
	ctx := context.Background()
	fsys := maps.Clone(monorepo)
	fsys["tenants/team-a/modules/app/manifests/prod.yaml"] = &fstest.MapFile{Data: []byte("deploy.yaml"), Mode: fs.ModeSymlink}
	fsys["tenants/team-a/modules/app/manifests/events"] = &fstest.MapFile{Mode: fs.ModeNamedPipe}
	files, skipped, err := pathpattern.Glob(ctx, fsys, "tenants/team-a/modules/app/manifests/**", "*.md")
	if err != nil {
		panic(err)
	}
	fmt.Println(files)
	for _, s := range skipped {
		why := "not a regular file"
		if s.Mode == fs.ModeSymlink {
			why = "a symbolic link"
		}
		fmt.Printf("%s: left out: %s\n", s.Path, why)
	}
	// Output:
	// [tenants/team-a/modules/app/manifests/deploy.yaml tenants/team-a/modules/app/manifests/overlays/patch.yaml]
	// tenants/team-a/modules/app/manifests/events: left out: not a regular file
	// tenants/team-a/modules/app/manifests/prod.yaml: left out: a symbolic link
}

func ExampleReadFile() {
	data, err := pathpattern.ReadFile(monorepo, "tenants/team-a/namespace-metadata.yaml", 0)
	fmt.Printf("%q %v\n", data, err)

	_, err = pathpattern.ReadFile(monorepo, "tenants/team-a/namespace-metadata.yaml", 10)
	fmt.Println(errors.Is(err, pathpattern.ErrTooLarge), err)
	// Output:
	// "kind: NamespaceMetadata\n" <nil>
	// true read tenants/team-a/namespace-metadata.yaml: pathpattern: must be no more than 10 bytes
}
