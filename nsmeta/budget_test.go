package nsmeta

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// listRule spends about six units of cost an element of a list of short
// words: a value of n words costs about 6n.
const listRule = `value.split(',').all(x, x.matches('^[a-z]+$'))`

// words returns n words "a" separated by commas.
func words(n int) string { return strings.Repeat("a,", n-1) + "a" }

// realistic is a file of dozens of keys with short values, each checked
// by a CEL rule, a pattern match or another: what a tenant's file looks
// like.
func realistic() (labelRules, annotationRules, labels, annotations kv) {
	labelRules, annotationRules, labels, annotations = kv{}, kv{}, kv{}, kv{}
	for i := range 12 {
		k := fmt.Sprintf("label-%02d", i)
		labelRules[k] = `value.matches('^[a-z0-9]([-a-z0-9]*[a-z0-9])?$')`
		labels[k] = strings.Repeat("x", 20+3*i) // up to 53 bytes
	}
	for i := range 24 {
		k := fmt.Sprintf("my.org.io/annotation-%02d", i)
		switch i % 4 {
		case 0:
			annotationRules[k] = `value in ["Enabled", "Disabled"]`
			annotations[k] = "Enabled"
		case 1:
			annotationRules[k] = `value.matches('^https://[a-z0-9.-]+(/[^ ]*)?$')`
			annotations[k] = "https://wiki.example.com/teams/" + strings.Repeat("p", 10*i)
		case 2:
			annotationRules[k] = `value.size() <= 256 && value.matches('^[A-Za-z0-9 .,:-]+$')`
			annotations[k] = strings.Repeat("A short description. ", 10)[:200]
		case 3:
			annotationRules[k] = `value.split(',').all(x, x in ["eu", "us", "ap"])`
			annotations[k] = "eu,us,ap"
		}
	}
	return labelRules, annotationRules, labels, annotations
}

// TestSchemaApplyBudget checks that the rules of one file share costBudget,
// charged key by key in a fixed order (labels, then annotations, sorted),
// and that running out of it is an error at the key where it ran out, and
// at every key after it, naming the rule, the value's size, the budget and
// what was left; while a realistic file spends a small part of it.
func TestSchemaApplyBudget(t *testing.T) {
	t.Parallel()
	rl, ra, ll, la := realistic()
	budgetErr := func(path, value, rule string, left uint64, size int, cel string) *field.Error {
		return field.Invalid(field.NewPath("metadata").Child(path[:strings.Index(path, "[")]).Key(path[strings.Index(path, "[")+1:len(path)-1]),
			value, fmt.Sprintf("rule %q failed to evaluate within the CEL cost budget of the file: its rules may cost 100000 together, charged key by key (labels, then annotations, each in sorted order), and %d was left for this %d-byte value: %s", rule, left, size, cel))
	}
	tests := map[string]struct {
		labelRules, annotationRules kv
		labels, annotations         kv
		wantKept                    Metadata
		wantErrs                    field.ErrorList
		wantSpent                   uint64 // 0: at most a tenth of costBudget
	}{
		"a realistic file spends a small part of the budget": {
			labelRules: rl, annotationRules: ra, labels: ll, annotations: la,
			wantKept: md(ll, la), wantSpent: 0,
		},
		"one value over the budget": {
			labelRules:      kv{"team": `value.matches('^[a-z]+$')`},
			annotationRules: kv{"my.org.io/list": listRule},
			labels:          kv{"team": "payments"},
			annotations:     kv{"my.org.io/list": words(40000)},
			wantKept:        md(kv{"team": "payments"}, nil),
			// The label first, whatever the keys' names: 9 spent.
			wantErrs: field.ErrorList{budgetErr("annotations[my.org.io/list]", strings.Repeat("a,", 32)+"... (79999 bytes)", listRule, 99991, 79999,
				"cel: cost limit exceeded: runtime cost must be no more than 99991")},
			wantSpent: costBudget,
		},
		"the budget is shared, and nothing is left after it runs out": {
			annotationRules: kv{"a.org.io/one": listRule, "b.org.io/two": listRule, "c.org.io/three": `value in ["payments", "search"]`},
			annotations:     kv{"a.org.io/one": words(10000), "b.org.io/two": words(10000), "c.org.io/three": "payments"},
			// The first costs 62,013 and is kept; the second has 37,987
			// left, runs out, and leaves nothing for the third.
			wantKept: md(nil, kv{"a.org.io/one": words(10000)}),
			wantErrs: field.ErrorList{
				budgetErr("annotations[b.org.io/two]", strings.Repeat("a,", 32)+"... (19999 bytes)", listRule, 37987, 19999,
					"cel: cost limit exceeded: runtime cost must be no more than 37987"),
				budgetErr("annotations[c.org.io/three]", "payments", `value in ["payments", "search"]`, 0, 8,
					"cel: cost limit exceeded: runtime cost must be no more than 0"),
			},
			wantSpent: costBudget,
		},
		"a call refused over what is left spends nothing of it": {
			annotationRules: kv{"a.org.io/one": listRule, "b.org.io/sorted": `value.split(',').sort().size() > 0`, "c.org.io/three": `value in ["payments", "search"]`},
			annotations:     kv{"a.org.io/one": words(10000), "b.org.io/sorted": words(600), "c.org.io/three": "payments"},
			wantKept:        md(nil, kv{"a.org.io/one": words(10000), "c.org.io/three": "payments"}),
			wantErrs: field.ErrorList{
				budgetErr("annotations[b.org.io/sorted]", strings.Repeat("a,", 32)+"... (1199 bytes)", `value.split(',').sort().size() > 0`, 37987, 1199,
					"cel: cost limit exceeded: sort: cost of one call must be no more than 18993, half the cost limit 37987, got 756011 (a list of 600 elements)"),
			},
			// 62,013 for the first, 732 for the second up to its refused
			// sort, 13 for the third.
			wantSpent: 62758,
		},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s, errs := CompileSchema(tt.labelRules, tt.annotationRules, nil)
			if errs != nil {
				t.Fatal(errs.ToAggregate())
			}
			kept, warnings, errs, spent := s.apply(context.Background(), md(tt.labels, tt.annotations))
			// The same file always spends the same and fails at the same
			// keys, whatever the order of the maps.
			for range 5 {
				k, w, e, sp := s.apply(context.Background(), md(tt.labels, tt.annotations))
				if !cmp.Equal(k, kept) || !cmp.Equal(w, warnings) || !cmp.Equal(e, errs) || sp != spent {
					t.Fatalf("apply() differs from one call to the next: spent %d, then %d", spent, sp)
				}
			}
			if len(warnings) > 0 {
				t.Errorf("warnings %q", warnings)
			}
			if diff := cmp.Diff(tt.wantKept, kept); diff != "" {
				t.Errorf("kept (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantErrs, errs); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
			if tt.wantSpent == 0 {
				// Far below: a tenth of the budget at most.
				if spent > costBudget/10 {
					t.Errorf("spent %d, want at most %d", spent, costBudget/10)
				}
			} else if spent != tt.wantSpent {
				t.Errorf("spent %d, want %d", spent, tt.wantSpent)
			}
		})
	}
}
