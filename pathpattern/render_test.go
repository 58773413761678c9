package pathpattern

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

func TestRender(t *testing.T) {
	t.Parallel()
	p := MustParse("@repo/{ns}/{app}")
	type fieldErr struct {
		Type     field.ErrorType
		Field    string
		BadValue any
	}
	tests := []struct {
		name      string
		matches   []Match
		namespace string // template; "" for none
		nameTmpl  string // template; "" for a nil template
		want      []Rendered
		errs      []fieldErr
		details   [][]string // strings each error detail must contain
	}{
		{
			name:      "valid",
			matches:   []Match{match("team-a/app", "ns", "team-a", "app", "App"), match("team-b/app", "ns", "team-b", "app", "app")},
			namespace: "{ns}",
			nameTmpl:  "{app}",
			want: []Rendered{
				{Match: match("team-a/app", "ns", "team-a", "app", "App"), Namespace: "team-a", Name: "app"},
				{Match: match("team-b/app", "ns", "team-b", "app", "app"), Namespace: "team-b", Name: "app"},
			},
		},
		{
			name:     "no namespace template",
			matches:  []Match{match("t/a", "ns", "t", "app", "a"), match("u/a", "ns", "u", "app", "a")},
			nameTmpl: "{ns}.{app}",
			want: []Rendered{
				{Match: match("t/a", "ns", "t", "app", "a"), Name: "t.a"},
				{Match: match("u/a", "ns", "u", "app", "a"), Name: "u.a"},
			},
		},
		{
			name: "invalid values",
			matches: []Match{
				match("a_b/x_y", "ns", "a_b", "app", "x_y"),
				match("ok/ok", "ns", "ok", "app", "ok"),
			},
			namespace: "{ns}",
			nameTmpl:  "{app}",
			want: []Rendered{
				{Match: match("a_b/x_y", "ns", "a_b", "app", "x_y"), Namespace: "a_b", Name: "x_y"},
				{Match: match("ok/ok", "ns", "ok", "app", "ok"), Namespace: "ok", Name: "ok"},
			},
			errs: []fieldErr{
				{field.ErrorTypeInvalid, "spec.artifacts[0].namespace", "a_b"},
				{field.ErrorTypeInvalid, "spec.artifacts[0].name", "x_y"},
			},
			details: [][]string{{`"a_b/x_y"`, "RFC 1123 label"}, {`"a_b/x_y"`, "RFC 1123 subdomain"}},
		},
		{
			name: "collisions name both directories",
			matches: []Match{
				match("apps/auth", "ns", "apps", "app", "auth"),
				match("apps/Auth", "ns", "apps", "app", "Auth"),
				match("apps/AUTH", "ns", "apps", "app", "AUTH"),
				match("other/auth", "ns", "other", "app", "auth"),
			},
			namespace: "{ns}",
			nameTmpl:  "{app}",
			want: []Rendered{
				{Match: match("apps/auth", "ns", "apps", "app", "auth"), Namespace: "apps", Name: "auth"},
				{Match: match("apps/Auth", "ns", "apps", "app", "Auth"), Namespace: "apps", Name: "auth"},
				{Match: match("apps/AUTH", "ns", "apps", "app", "AUTH"), Namespace: "apps", Name: "auth"},
				{Match: match("other/auth", "ns", "other", "app", "auth"), Namespace: "other", Name: "auth"},
			},
			// Path order: apps/AUTH, apps/Auth, apps/auth.
			errs: []fieldErr{
				{field.ErrorTypeDuplicate, "spec.artifacts[0].name", "auth"},
				{field.ErrorTypeDuplicate, "spec.artifacts[0].name", "auth"},
			},
			details: [][]string{{`"apps/AUTH"`, `"apps/Auth"`}, {`"apps/AUTH"`, `"apps/auth"`}},
		},
		{
			name:     "nil name template",
			matches:  []Match{match("t/a", "ns", "t", "app", "a")},
			errs:     []fieldErr{{field.ErrorTypeRequired, "spec.artifacts[0].name", ""}},
			details:  [][]string{{"name template"}},
			nameTmpl: "",
		},
		{
			name:     "capture without a value",
			matches:  []Match{{Path: "t/a", Raw: map[string]string{}, Normalized: map[string]string{"ns": "t"}}},
			nameTmpl: "{app}",
			want:     []Rendered{{Match: Match{Path: "t/a", Raw: map[string]string{}, Normalized: map[string]string{"ns": "t"}}}},
			errs:     []fieldErr{{field.ErrorTypeInvalid, "spec.artifacts[0].name", "{app}"}},
			details:  [][]string{{`"app"`}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var ns, name *Template
			if tt.namespace != "" {
				ns = p.MustTemplate(tt.namespace)
			}
			if tt.nameTmpl != "" {
				name = p.MustTemplate(tt.nameTmpl)
			}
			got, errs := Render(tt.matches, ns, name, field.NewPath("spec", "artifacts").Index(0))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Render (-want +got):\n%s", diff)
			}
			var gotErrs []fieldErr
			for _, e := range errs {
				gotErrs = append(gotErrs, fieldErr{e.Type, e.Field, e.BadValue})
			}
			if diff := cmp.Diff(tt.errs, gotErrs); diff != "" {
				t.Fatalf("errors (-want +got):\n%s\n%v", diff, errs)
			}
			for i, parts := range tt.details {
				for _, part := range parts {
					if !strings.Contains(errs[i].Detail, part) {
						t.Errorf("error %d detail %q does not contain %s", i, errs[i].Detail, part)
					}
				}
			}
		})
	}
}

func TestRenderDiscovered(t *testing.T) {
	t.Parallel()
	// The example: apps/Auth and apps/auth render the same name.
	p := MustParse("@repo/{namespace}/{module}")
	ms, _, err := p.Discover(fstestTree("apps/Auth", "apps/auth", "apps/db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	_, errs := Render(ms, p.MustTemplate("{namespace}"), p.MustTemplate("{module}"), nil)
	if len(errs) != 1 || errs[0].Type != field.ErrorTypeDuplicate || errs[0].Field != "name" {
		t.Fatalf("Render errors = %v, want one duplicate name", errs)
	}
	if want := `directories "apps/Auth" and "apps/auth"`; !strings.Contains(errs[0].Detail, want) {
		t.Errorf("detail %q does not contain %s", errs[0].Detail, want)
	}
}
