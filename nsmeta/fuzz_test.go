package nsmeta

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/tenantkit/tenantkit/cel"
)

// schemaSeeds are the seeds of FuzzCompileSchema: key, rule and value.
var schemaSeeds = [][3]string{
	{"my.org.io/observability", `value.matches("^(Enabled|Disabled)$")`, "Enabled"},
	{"my.org.io/cost-center", `value.matches('^cc-[0-9]{4}$')`, "cc-1042"},
	{"team", `value in ["payments", "search"]`, "payments"},
	{"team", `value.size() <= 63 && value.lowerAscii() == value`, "Payments"},
	{"team", `value.matches(value)`, "("}, // refused: a pattern must be a literal
	{"team", `value.indexOf(value) >= 0`, strings.Repeat("a", 1000)},
	{"team", `value.replace("", value) != ""`, strings.Repeat("x", 100)},
	{"team", `value.split(",").all(x, x != "")`, "a,,b"},
	{"team", `value`, "x"},
	{"team", `1 / value.size() == 1`, ""},
	{"team", `(value == "a"`, "a"},
	{"team", "true\x00", "a"},
	{"team", "", "a"},
	{"team-\u212a", "true", "k"},
	{"my.org.io/\nx", "true", "a\nb"},
	{"a/b/c", "true", "a"},
	{"kubernetes.io/x", `value == "\u212a"`, "\u212a"},
	{externalFinalizerAnnotation, `value == "self"`, "self"},
}

// FuzzCompileSchema compiles one fuzzed rule for a fuzzed key, as a label
// and as an annotation rule, and applies it to a fuzzed value. Nothing may
// panic; errors must be the documented ones; and a listed key is either
// kept with its value or reported as an error at its field, never silently
// dropped or changed.
func FuzzCompileSchema(f *testing.F) {
	for _, s := range schemaSeeds {
		f.Add(s[0], s[1], s[2])
	}
	f.Fuzz(func(t *testing.T, key, rule, value string) {
		s, cerrs := CompileSchema(map[string]string{key: rule}, map[string]string{key: rule}, nil)
		if cerrs != nil {
			if s != nil || len(cerrs) == 0 {
				t.Fatalf("CompileSchema(%q, %q) = %v, %v; want nil and errors", key, rule, s, cerrs)
			}
			return
		}
		in := Metadata{Labels: map[string]string{key: value}, Annotations: map[string]string{key: value}}
		kept, warnings, errs := s.Apply(context.Background(), in)
		if len(warnings) != 0 {
			t.Fatalf("Apply() warned %q about a listed key", warnings)
		}
		for _, part := range []struct {
			name string
			kept map[string]string
		}{{"labels", kept.Labels}, {"annotations", kept.Annotations}} {
			p := field.NewPath("metadata", part.name).Key(key).String()
			reported := slices.ContainsFunc(errs, func(e *field.Error) bool { return e.Field == p })
			v, ok := part.kept[key]
			switch {
			case ok && (v != value || reported):
				t.Fatalf("%s: kept %q (reported: %v), want %q kept and not reported", p, v, reported, value)
			case !ok && !reported:
				t.Fatalf("%s: dropped without an error", p)
			case len(part.kept) > 1:
				t.Fatalf("%s: kept %v", part.name, part.kept)
			}
		}
		// The same schema gives the same answer.
		again, _, errs2 := s.Apply(context.Background(), in)
		if !equalMetadata(kept, again) || len(errs) != len(errs2) {
			t.Fatalf("Apply() is not deterministic: %v %v, then %v %v", kept, errs, again, errs2)
		}
	})
}

func equalMetadata(a, b Metadata) bool {
	eq := func(x, y map[string]string) bool {
		if len(x) != len(y) {
			return false
		}
		for k, v := range x {
			if w, ok := y[k]; !ok || w != v {
				return false
			}
		}
		return true
	}
	return eq(a.Labels, b.Labels) && eq(a.Annotations, b.Annotations)
}

// namePolicySeeds are the seeds of FuzzNamePolicy: rule and name.
var namePolicySeeds = [][2]string{
	{`ns.startsWith("tenant-")`, "tenant-a"},
	{`ns.startsWith("tenant-")`, "team-a"},
	{`true`, "kube-system"},
	{`true`, "default"},
	{`true`, "KUBE-SYSTEM"},
	{`true`, "tenant-\u212a"},
	{`true`, "tenant-a\n"},
	{`true`, strings.Repeat("a", 63)},
	{`true`, strings.Repeat("a", 64)},
	{`ns.matches(ns)`, "a"}, // refused: a pattern must be a literal
	{`ns.replace("", ns).replace("", ns.replace("", ns)).replace("", ns.replace("", ns).replace("", ns.replace("", ns))) == ""`, "tenant-a"},
	{`ns`, "a"},
	{``, "a"},
	{`ns == "a" ||`, "a"},
	{`ns in ["a", "b"] && ns.size() < 2`, "b"},
}

// FuzzNamePolicy compiles one fuzzed allowedNames rule and checks a fuzzed
// name. Nothing may panic; errors must be the documented ones; and a name
// is allowed exactly when it is a DNS-1123 label, is not protected, and the
// rule, evaluated on its own, returns true.
func FuzzNamePolicy(f *testing.F) {
	for _, s := range namePolicySeeds {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, rule, name string) {
		p, perrs := NewNamePolicy([]string{rule}, nil, WithProtectedNames("flux-system"))
		if perrs != nil {
			if p != nil || len(perrs) == 0 {
				t.Fatalf("NewNamePolicy(%q) = %v, %v; want nil and errors", rule, p, perrs)
			}
			return
		}
		err := p.Check(context.Background(), name)
		var ne *nameError
		if err != nil && (!errors.As(err, &ne) || ne.Name != name || len(ne.Reasons) == 0) {
			t.Fatalf("Check(%q) = %v, want nil or a *nameError", name, err)
		}
		switch {
		case !isLabel(name):
			if !errors.Is(err, ErrInvalidName) {
				t.Fatalf("Check(%q) = %v, want ErrInvalidName", name, err)
			}
		case slices.Contains(append(defaultProtectedNames(), "flux-system"), name):
			if !errors.Is(err, ErrProtectedName) {
				t.Fatalf("Check(%q) = %v, want ErrProtectedName", name, err)
			}
		default:
			ok, evalErr := cel.MustCompile(rule, nameVariable).Eval(context.Background(), map[string]string{nameVariable: name})
			if allowed := ok && evalErr == nil; allowed != (err == nil) || !allowed && !errors.Is(err, ErrNameNotAllowed) {
				t.Fatalf("Check(%q) = %v, but the rule gives %v, %v", name, err, ok, evalErr)
			}
		}
	})
}

// isLabel reports whether s is a DNS-1123 label, written out here rather
// than with the check NamePolicy uses.
func isLabel(s string) bool {
	if len(s) == 0 || len(s) > 63 || s[0] == '-' || s[len(s)-1] == '-' {
		return false
	}
	for _, c := range []byte(s) {
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}
