package main

import (
	"io/fs"
	"os"
	"strings"
	"testing"
)

// billionLaughs is the classic exponential alias document, nine levels of
// nine, under the given mapping key.
func billionLaughs(key string) string {
	return "a: &a [x,x,x,x,x,x,x,x,x]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\n" +
		"d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]\nf: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]\n" +
		"g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]\nh: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]\ni: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h]\n" +
		key + ": *i\n"
}

func deepFlow(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }

// sampleGenerator is the embedded sample ArtifactGenerator.
func sampleGenerator(t testing.TB) string {
	t.Helper()
	data, err := fs.ReadFile(sample, "sample/generator.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// seedGenerator is the sample ArtifactGenerator in the seed proposal's
// shape, testdata/seed-generator.yaml.
func seedGenerator(t testing.TB) string {
	t.Helper()
	data, err := os.ReadFile("testdata/seed-generator.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// errorsContain reports whether an error of res has field and detail
// containing the given strings.
func errorsContain(res planJSON, field, detail string) bool {
	for _, e := range res.Errors {
		if strings.Contains(e.Field, field) && strings.Contains(e.Detail, detail) {
			return true
		}
	}
	return false
}
