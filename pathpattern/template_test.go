package pathpattern

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const templatePattern = "@repo/tenants/{namespace}/modules/{module}"

var templateTests = []struct {
	name     string
	template string
	captures []string
	raw      string // expansion from the raw values
	norm     string // expansion from the normalized values
	rule     string // the rule a *SyntaxError reports; "" for a valid template
	offset   int
	value    string
}{
	{name: "one capture", template: "{module}", captures: []string{"module"}, raw: "App", norm: "app"},
	{name: "path", template: "@repo/tenants/{namespace}/modules/{module}/applier-inputs.yaml", captures: []string{"namespace", "module"},
		raw: "@repo/tenants/Team-A/modules/App/applier-inputs.yaml", norm: "@repo/tenants/team-a/modules/app/applier-inputs.yaml"},
	{name: "repeated capture", template: "{module}-{namespace}-{module}", captures: []string{"module", "namespace"}, raw: "App-Team-A-App", norm: "app-team-a-app"},
	{name: "literal", template: "fixed-name", raw: "fixed-name", norm: "fixed-name"},
	{name: "empty", template: "", raw: "", norm: ""},
	{name: "star and slash are literal", template: "*/{module}/", captures: []string{"module"}, raw: "*/App/", norm: "*/app/"},

	{name: "unknown capture", template: "{namespace}-{tenant}", rule: ruleUnknownCapture, offset: 12, value: "tenant"},
	{name: "unclosed brace", template: "x{module", rule: ruleMissingClose, offset: 1},
	{name: "nested brace", template: "{mod{ule}", rule: ruleMissingClose, offset: 0},
	{name: "closing brace alone", template: "module}", rule: ruleMissingOpen, offset: 6},
	{name: "empty capture", template: "{}", rule: ruleEmptyCapture, offset: 0},
	{name: "invalid name", template: "{_module}", rule: ruleInvalidName, offset: 1, value: "_module"},
	{name: "too long", template: strings.Repeat("x", maxLength+1), rule: ruleTooLong, offset: maxLength},
	{name: "1024 characters of two bytes", template: "{module}" + strings.Repeat("é", maxLength-8), captures: []string{"module"},
		raw: "App" + strings.Repeat("é", maxLength-8), norm: "app" + strings.Repeat("é", maxLength-8)},
	{name: "1025 characters of two bytes", template: "{module}" + strings.Repeat("é", maxLength-7), rule: ruleTooLong, offset: 8 + 2*(maxLength-8)},
	{name: "over the byte limit", template: strings.Repeat("😀", maxLength+1), rule: ruleTooManyBytes, offset: maxBytes},
	{name: "invalid utf-8", template: "{module}\xff", rule: ruleInvalidUTF8, offset: 8},
}

func TestTemplate(t *testing.T) {
	t.Parallel()
	p := MustParse(templatePattern)
	raw := map[string]string{"namespace": "Team-A", "module": "App"}
	norm := map[string]string{"namespace": "team-a", "module": "app"}
	for _, tt := range templateTests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tmpl, err := p.Template(tt.template)
			if tt.rule != "" {
				if tmpl != nil {
					t.Errorf("Template(%q) returned a template with an error", tt.template)
				}
				checkSyntaxError(t, err, tt.template, tt.rule, tt.offset, tt.value)
				return
			}
			if err != nil {
				t.Fatalf("Template(%q): %v", tt.template, err)
			}
			if tmpl.String() != tt.template {
				t.Errorf("String() = %q, want %q", tmpl.String(), tt.template)
			}
			if diff := cmp.Diff(tt.captures, tmpl.Captures()); diff != "" {
				t.Errorf("Captures() (-want +got):\n%s", diff)
			}
			for _, c := range []struct {
				values map[string]string
				want   string
			}{{raw, tt.raw}, {norm, tt.norm}} {
				got, err := tmpl.Expand(c.values)
				if err != nil || got != c.want {
					t.Errorf("Expand(%v) = %q, %v, want %q", c.values, got, err, c.want)
				}
			}
		})
	}
}

func TestExpandMissingValue(t *testing.T) {
	t.Parallel()
	tmpl := MustParse(templatePattern).MustTemplate("{namespace}/{module}")
	got, err := tmpl.Expand(map[string]string{"namespace": "a"})
	if !errors.Is(err, ErrMissingValue) || got != "" {
		t.Fatalf("Expand = %q, %v, want an error wrapping ErrMissingValue", got, err)
	}
	if !strings.Contains(err.Error(), `"module"`) {
		t.Errorf("error %q does not name the capture", err)
	}
}

func TestMustTemplatePanics(t *testing.T) {
	t.Parallel()
	defer func() {
		if r := recover(); r == nil {
			t.Error("MustTemplate of an unknown capture did not panic")
		}
	}()
	MustParse(templatePattern).MustTemplate("{tenant}")
}

func FuzzTemplate(f *testing.F) {
	for _, tt := range templateTests {
		f.Add(tt.template, "Team-A", "App")
	}
	for _, tt := range hostileTemplateTests {
		f.Add(tt.template, "team\na", "\u212a")
	}
	p := MustParse(templatePattern)
	f.Fuzz(func(t *testing.T, template, namespace, module string) {
		tmpl, err := p.Template(template)
		if err != nil {
			var se *SyntaxError
			if !errors.As(err, &se) || !validRule(se.Rule) || se.Offset < 0 || se.Offset > len(template) {
				t.Fatalf("Template(%q) error %v: want a *SyntaxError with a rule and an offset in the template", template, err)
			}
			return
		}
		again, err := p.Template(tmpl.String())
		if err != nil {
			t.Fatalf("Template(String()) of a valid template: %v", err)
		}
		got, err := again.Expand(map[string]string{"namespace": namespace, "module": module})
		if err != nil {
			t.Fatalf("Expand with every capture: %v", err)
		}
		// Replacing the captures by hand gives the same string, since a
		// valid template has braces only around capture names.
		want := strings.NewReplacer("{namespace}", namespace, "{module}", module).Replace(template)
		if got != want {
			t.Fatalf("Expand = %q, want %q", got, want)
		}
	})
}

func TestTemplateWithoutPattern(t *testing.T) {
	t.Parallel()
	var p *Pattern
	for _, tt := range []struct {
		name     string
		template string
		rule     string // "": valid
		offset   int
		value    string
	}{
		{name: "literal", template: "static-1"},
		{name: "literal reference", template: "@repo/apps/auth/**"},
		{name: "capture", template: "app-{app}", rule: ruleUnknownCapture, offset: 4, value: "app"},
		{name: "brace alternatives", template: "@repo/{a,b}/*.yaml", rule: ruleInvalidName, offset: 7, value: "a,b"},
		{name: "unclosed brace", template: "app-{", rule: ruleMissingClose, offset: 4},
		{name: "unopened brace", template: "app}", rule: ruleMissingOpen, offset: 3},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tmpl, err := p.Template(tt.template)
			if tt.rule != "" {
				checkSyntaxError(t, err, tt.template, tt.rule, tt.offset, tt.value)
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got, err := tmpl.Expand(nil); got != tt.template || err != nil {
				t.Errorf("Expand(nil) = %q, %v, want the literal", got, err)
			}
			if c := tmpl.Captures(); c != nil {
				t.Errorf("Captures() = %q, want none", c)
			}
		})
	}
	if w := p.Warnings(nil); w != nil {
		t.Errorf("Warnings() of no pattern = %q, want none", w)
	}
}
