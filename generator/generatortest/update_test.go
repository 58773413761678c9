package generatortest

import (
	"os"
	"regexp"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestUpdate(t *testing.T) {
	t.Parallel()
	file := writeSuite(t, header+`cases:
  - name: stale
    expect:
      objects: [{object: Namespace/tenant-search, action: create}]
      namespaces:
        - name: tenant-search # a comment that stays
          labels:
            my.org.io/cost-center: cc-9999
            my.org.io/gone: x
          origin:
            labels:
              my.org.io/cost-center: from[0]
        - name: tenant-sandbox
          exact: true
          labels:
            my.org.io/sandbox: "false"
        - name: tenant-nobody
          labels: {a: b}
  - name: not selected
    expect:
      namespaces:
        - name: tenant-search
          labels:
            my.org.io/cost-center: cc-9999
`)
	s, err := LoadSuite(file)
	if err != nil {
		t.Fatal(err)
	}
	data, err := s.Update(t.Context(), Options{Run: regexp.MustCompile("^stale$")})
	if err != nil {
		t.Fatal(err)
	}
	want := `apiVersion: tenantkit.dev/v1alpha1
kind: PlanTest
generator: ../../../../examples/plan/sample/generator.yaml
source: ../../../../examples/plan/sample/monorepo
cases:
  - name: stale
    expect:
      objects: [{object: Namespace/tenant-search, action: create}]
      namespaces:
        - name: tenant-search # a comment that stays
          labels:
            my.org.io/cost-center: cc-2001
          origin:
            labels:
              my.org.io/cost-center: source
        - name: tenant-sandbox
          exact: true
          labels:
            my.org.io/provisioner: monorepo
            my.org.io/sandbox: "true"
            source.extensions.fluxcd.io/generator: 6f1d0c2e-6a4b-4d6e-9d53-0b7f3c1e2a10
        - name: tenant-nobody
          labels: {a: b}
  - name: not selected
    expect:
      namespaces:
        - name: tenant-search
          labels:
            my.org.io/cost-center: cc-9999
`
	if diff := cmp.Diff(want, string(data)); diff != "" {
		t.Errorf("Update (-want +got):\n%s", diff)
	}
	// What Update wrote passes, but the namespace the plan never applies
	// and the case it did not select.
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}
	s, err = LoadSuite(file)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range s.Run(t.Context(), Options{}).Cases {
		for _, f := range c.Failures {
			got = append(got, c.Case+": "+f.Where)
		}
	}
	wantFailures := []string{
		"stale: cases[0].expect.namespaces[2] (tenant-nobody)",
		"not selected: cases[1].expect.namespaces[0] (tenant-search).labels[my.org.io/cost-center]",
	}
	if diff := cmp.Diff(wantFailures, got); diff != "" {
		t.Errorf("failures after Update (-want +got):\n%s", diff)
	}
}
