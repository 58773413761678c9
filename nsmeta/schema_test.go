package nsmeta

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/tenantkit/tenantkit/cel"
)

func TestCompileSchema(t *testing.T) {
	t.Parallel()
	fromSource := field.NewPath("spec", "managedNamespaces", "metadata", "fromSource")
	tests := []struct {
		name        string
		labels      map[string]string
		annotations map[string]string
		path        *field.Path
		opts        []Option
		wantFields  []fieldErr
		wantDetail  map[string]string // field -> a substring its detail must contain
	}{
		{name: "empty"},
		{
			name:        "valid",
			labels:      kv{"team": `value in ["payments", "search"]`},
			annotations: kv{"my.org.io/observability": `value.matches("^(Enabled|Disabled)$")`},
			path:        fromSource,
			opts:        []Option{WithStrict(), WithCache(cel.NewCache(8))},
		},
		{
			name:        "every problem, under the caller's path",
			labels:      kv{"bad key": "true", "team": "value ==", "tier": "value", "empty": ""},
			annotations: kv{"-bad": "true", "note": "nss == 'a'"},
			path:        fromSource,
			wantFields: []fieldErr{
				{field.ErrorTypeInvalid, "spec.managedNamespaces.metadata.fromSource.allowedAnnotations[-bad]", "-bad"},
				{field.ErrorTypeInvalid, "spec.managedNamespaces.metadata.fromSource.allowedAnnotations[note]", "nss == 'a'"},
				{field.ErrorTypeInvalid, "spec.managedNamespaces.metadata.fromSource.allowedLabels[bad key]", "bad key"},
				{field.ErrorTypeRequired, "spec.managedNamespaces.metadata.fromSource.allowedLabels[empty]", ""},
				{field.ErrorTypeInvalid, "spec.managedNamespaces.metadata.fromSource.allowedLabels[team]", "value =="},
				{field.ErrorTypeInvalid, "spec.managedNamespaces.metadata.fromSource.allowedLabels[tier]", "value"},
			},
			// The compile errors show where: line:column and a caret.
			wantDetail: map[string]string{
				"spec.managedNamespaces.metadata.fromSource.allowedAnnotations[note]": "<input>:1:1",
				"spec.managedNamespaces.metadata.fromSource.allowedLabels[team]":      "^",
			},
		},
		{
			name:   "no path",
			labels: kv{"team": "1"},
			wantFields: []fieldErr{
				{field.ErrorTypeInvalid, "allowedLabels[team]", "1"},
			},
		},
		{
			name:   "expression too long",
			labels: kv{"team": "value == '" + strings.Repeat("x", 5*1024) + "'"},
			wantFields: []fieldErr{
				{field.ErrorTypeInvalid, "allowedLabels[team]", "value == '" + strings.Repeat("x", 5*1024) + "'"},
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s, errs := CompileSchema(tc.labels, tc.annotations, tc.path, tc.opts...)
			if (s == nil) == (errs == nil) {
				t.Errorf("CompileSchema() = %v, %v: want exactly one of them", s, errs)
			}
			if diff := cmp.Diff(tc.wantFields, project(errs)); diff != "" {
				t.Errorf("CompileSchema() field errors (-want +got):\n%s", diff)
			}
			for _, fe := range errs {
				if want, ok := tc.wantDetail[fe.Field]; ok && !strings.Contains(fe.Detail, want) {
					t.Errorf("%s: detail %q does not show %q", fe.Field, fe.Detail, want)
				}
			}
		})
	}
}

func TestSchemaApply(t *testing.T) {
	t.Parallel()
	labels := kv{
		"team":  `value in ["payments", "search"]`,
		"tier":  `value.startsWith("t")`,
		"count": `int(value) > 0`, // fails to evaluate for a value that is not a number
	}
	annotations := kv{"my.org.io/observability": `value.matches("^(Enabled|Disabled)$")`}
	lenient, err := CompileSchema(labels, annotations, nil)
	if err != nil {
		t.Fatal(err)
	}
	strict, err := CompileSchema(labels, annotations, nil, WithStrict())
	if err != nil {
		t.Fatal(err)
	}
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()

	tests := []struct {
		name         string
		schema       *Schema
		ctx          context.Context
		in           Metadata
		want         Metadata
		wantWarnings []string
		wantErrs     []fieldErr
	}{
		{name: "empty", schema: lenient, want: md(nil, nil)},
		{
			name:   "all allowed",
			schema: strict,
			in:     md(kv{"team": "payments", "tier": "t1", "count": "3"}, kv{"my.org.io/observability": "Enabled"}),
			want:   md(kv{"team": "payments", "tier": "t1", "count": "3"}, kv{"my.org.io/observability": "Enabled"}),
		},
		{
			name:   "rules that return false or fail",
			schema: lenient,
			in:     md(kv{"team": "ads", "tier": "t1", "count": "many"}, kv{"my.org.io/observability": "Maybe"}),
			want:   md(kv{"tier": "t1"}, nil),
			wantErrs: []fieldErr{
				{field.ErrorTypeInvalid, "metadata.annotations[my.org.io/observability]", "Maybe"},
				{field.ErrorTypeInvalid, "metadata.labels[count]", "many"},
				{field.ErrorTypeInvalid, "metadata.labels[team]", "ads"},
			},
		},
		{
			name:   "unlisted keys are dropped with warnings",
			schema: lenient,
			in:     md(kv{"team": "search", "zone": "a", "app": "b"}, kv{"note": "c"}),
			want:   md(kv{"team": "search"}, nil),
			wantWarnings: []string{
				`metadata.labels[app]: label "app" is not in allowedLabels; dropped`,
				`metadata.labels[zone]: label "zone" is not in allowedLabels; dropped`,
				`metadata.annotations[note]: annotation "note" is not in allowedAnnotations; dropped`,
			},
		},
		{
			name:   "unlisted keys are errors when strict",
			schema: strict,
			in:     md(kv{"team": "search", "zone": "a"}, kv{"note": "c"}),
			want:   md(kv{"team": "search"}, nil),
			wantErrs: []fieldErr{
				{field.ErrorTypeForbidden, "metadata.annotations[note]", ""},
				{field.ErrorTypeForbidden, "metadata.labels[zone]", ""},
			},
		},
		{
			name:   "a cancelled context lets nothing through",
			schema: lenient,
			ctx:    cancelled,
			in:     md(kv{"team": "payments"}, nil),
			want:   md(nil, nil),
			wantErrs: []fieldErr{
				{field.ErrorTypeInternal, "metadata.labels[team]", context.Canceled},
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx := tc.ctx
			if ctx == nil {
				ctx = context.Background()
			}
			got, warnings, errs := tc.schema.Apply(ctx, tc.in)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Apply() kept (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantWarnings, warnings); diff != "" {
				t.Errorf("Apply() warnings (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantErrs, project(errs), cmpopts.EquateErrors()); diff != "" {
				t.Errorf("Apply() errors (-want +got):\n%s", diff)
			}
		})
	}
}

// TestSchemaApplyNamesRule checks that a failing key's error names the key
// (its path), the value (BadValue) and the rule (in the detail).
func TestSchemaApplyNamesRule(t *testing.T) {
	t.Parallel()
	const rule = `value.matches("^(Enabled|Disabled)$")`
	s, err := CompileSchema(nil, kv{"my.org.io/observability": rule}, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, _, errs := s.Apply(context.Background(), md(nil, kv{"my.org.io/observability": "Maybe"}))
	if len(errs) != 1 || !strings.Contains(errs[0].Detail, fmt.Sprintf("%q", rule)) {
		t.Errorf("Apply() errors = %v, want one naming the rule %q", errs, rule)
	}
}

func TestSchemaApplyConcurrent(t *testing.T) {
	t.Parallel()
	s, err := CompileSchema(kv{"team": `value != ""`}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	in := md(kv{"team": "payments"}, nil)
	done := make(chan Metadata)
	for range 8 {
		go func() {
			got, _, _ := s.Apply(context.Background(), in)
			done <- got
		}()
	}
	for range 8 {
		if got := <-done; got.Labels["team"] != "payments" {
			t.Errorf("Apply() = %v", got)
		}
	}
}

func BenchmarkSchemaApply(b *testing.B) {
	for _, n := range []int{1, 10} {
		rules, in := kv{}, md(nil, nil)
		for i := range n {
			k := fmt.Sprintf("example.com/key-%d", i)
			if i%2 == 0 {
				rules[k] = `value.matches("^[a-z0-9-]+$")`
			} else {
				rules[k] = `value in ["enabled", "disabled"] || value.startsWith("v")`
			}
			in.Labels[k] = fmt.Sprintf("v%d", i)
		}
		s, err := CompileSchema(rules, nil, nil)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("rules=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			ctx := context.Background()
			for b.Loop() {
				if kept, _, errs := s.Apply(ctx, in); len(errs) > 0 || len(kept.Labels) != n {
					b.Fatalf("Apply() = %v, %v", kept, errs)
				}
			}
		})
	}
}
