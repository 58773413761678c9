package main

import (
	"io/fs"
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

// costCenterRule is the sample's rule for the label my.org.io/cost-center,
// as sample/generator.yaml writes it.
const costCenterRule = `"value.matches('^cc-[0-9]{4}$')"`

// breakSchema returns the sample generator gen with the rule of
// my.org.io/cost-center replaced by one whose regular expression does not
// compile: a schema error at
// spec.managedNamespaces.metadata.fromSource.allowedLabels[my.org.io/cost-center].
func breakSchema(gen string) string {
	return strings.Replace(gen, costCenterRule, `"value.matches('^cc-[0-9')"`, 1)
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
