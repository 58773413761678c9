package cel_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/tenantkit/tenantkit/cel"
)

// TestEvalLimited checks that EvalLimited bounds an evaluation by the
// smaller of its limit and CostLimit, as CostLimit bounds Eval: the
// runtime cost, and a call checked before it runs, constant patterns of
// matches included; and that it returns the cost charged.
func TestEvalLimited(t *testing.T) {
	t.Parallel()
	tests := map[string]struct {
		expr, value string
		limit       uint64
		want        bool
		wantCost    uint64
		wantErr     string // "" for none; the message of an error wrapping ErrCostLimit
	}{
		"within the limit": {
			expr: `value.split(',').all(x, x.matches('^[a-z]+$'))`, value: "a,b,c,d,e,f,g,h", limit: 63,
			want: true, wantCost: 63,
		},
		"a limit of 0 passes an evaluation that costs nothing": {
			expr: `true`, limit: 0, want: true, wantCost: 0,
		},
		"a limit of 0 stops one that costs anything": {
			expr: `value == "a"`, value: "a", limit: 0, wantCost: 1,
			wantErr: `cel: evaluating "value == \"a\"": cost limit exceeded: runtime cost must be no more than 0`,
		},
		"the runtime cost over the limit": {
			expr: `value.split(',').all(x, x.matches('^[a-z]+$'))`, value: "a,b,c,d,e,f,g,h", limit: 62, wantCost: 63,
			wantErr: `cel: evaluating "value.split(',').all(x, x.matches('^[a-z]+$'))": cost limit exceeded: runtime cost must be no more than 62`,
		},
		"a call charged over the limit is refused before it runs": {
			expr: `value.split(',').distinct().size() > 0`, value: hexList(100), limit: 20000, wantCost: 141,
			wantErr: `cel: evaluating "value.split(',').distinct().size() > 0": cost limit exceeded: distinct: cost of one call must be no more than 10000, half the cost limit 20000, got 21011 (a list of 100 elements)`,
		},
		"a match with a constant pattern charged over the limit is refused": {
			expr: `value.matches('^[a-z]+$')`, value: strings.Repeat("a", 10000), limit: 1000, wantCost: 1,
			wantErr: `cel: evaluating "value.matches('^[a-z]+$')": cost limit exceeded: matches: cost of one call must be no more than 500, half the cost limit 1000, got 8001 (a 10000-byte string and a pattern of size 8)`,
		},
		"the same call within the limit runs": {
			expr: `value.matches('^[a-z]+$')`, value: strings.Repeat("a", 10000), limit: 16002, want: true, wantCost: 8002,
		},
		"a limit over CostLimit is CostLimit": {
			expr: `value.split(',').distinct().size() > 0`, value: hexList(16000), limit: math.MaxUint64, wantCost: 23576,
			wantErr: `cel: evaluating "value.split(',').distinct().size() > 0": cost limit exceeded: distinct: cost of one call must be no more than 500000, half the cost limit 1000000, got 537600011 (a list of 16000 elements)`,
		},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			p := cel.WithoutTimeBudget(cel.MustCompile(tt.expr, "value"))
			got, cost, err := p.EvalLimited(context.Background(), map[string]string{"value": tt.value}, tt.limit)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("EvalLimited() error %v", err)
				}
			} else if err == nil || err.Error() != tt.wantErr || !errors.Is(err, cel.ErrCostLimit) {
				t.Fatalf("EvalLimited() error %v,\nwant %s (ErrCostLimit)", err, tt.wantErr)
			}
			if got != tt.want || cost != tt.wantCost {
				t.Errorf("EvalLimited() = %v, cost %d; want %v, cost %d", got, cost, tt.want, tt.wantCost)
			}
			// Eval is EvalLimited with CostLimit.
			if tt.limit >= cel.CostLimit {
				if _, err2 := p.Eval(context.Background(), map[string]string{"value": tt.value}); fmt.Sprint(err2) != fmt.Sprint(err) {
					t.Errorf("Eval() error %v, want %v", err2, err)
				}
			}
		})
	}
}

// TestEvalLimitedConcurrent runs evaluations of one program with different
// limits, and without one, at the same time: each gets its own limit
// (under -race, no data race either).
func TestEvalLimitedConcurrent(t *testing.T) {
	t.Parallel()
	p := cel.WithoutTimeBudget(cel.MustCompile(`value.split(',').all(x, x.matches('^[a-z]+$'))`, "value"))
	vars := map[string]string{"value": strings.Repeat("a,", 999) + "a"} // costs 6,213
	type result struct {
		ok   bool
		cost uint64
		err  string
	}
	run := func(limit uint64) result {
		ok, cost, err := p.EvalLimited(context.Background(), vars, limit)
		return result{ok, cost, fmt.Sprint(err)}
	}
	limits := []uint64{100, 6212, 6213, cel.CostLimit}
	want := make([]result, len(limits))
	for i, l := range limits {
		want[i] = run(l)
	}
	if !want[2].ok || want[1].ok || want[2].cost != 6213 {
		t.Fatalf("results %v: want 6,213 to pass and 6,212 to stop it", want)
	}
	got := make([][]result, 8)
	var wg sync.WaitGroup
	for g := range got {
		wg.Go(func() {
			for range 20 {
				for _, l := range limits {
					got[g] = append(got[g], run(l))
				}
			}
		})
	}
	wg.Wait()
	for g := range got {
		for i, r := range got[g] {
			if r != want[i%len(limits)] {
				t.Fatalf("goroutine %d, evaluation %d with limit %d = %v, want %v", g, i, limits[i%len(limits)], r, want[i%len(limits)])
			}
		}
	}
	if diff := cmp.Diff(want[3], run(cel.CostLimit), cmp.AllowUnexported(result{})); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
