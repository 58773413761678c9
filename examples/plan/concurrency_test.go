package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"runtime"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/tenantkit/tenantkit/cel"
	"github.com/tenantkit/tenantkit/finalizer"
	"github.com/tenantkit/tenantkit/generator"
	"github.com/tenantkit/tenantkit/internal/agmanifest"
	"github.com/tenantkit/tenantkit/inventory"
	"github.com/tenantkit/tenantkit/nsmeta"
	"github.com/tenantkit/tenantkit/pathpattern"
)

// shared holds one compiled value of every kind the library says is safe
// for concurrent use, built once and then used by many goroutines at once.
type shared struct {
	fsys      fs.FS
	pattern   *pathpattern.Pattern
	name, ns  *pathpattern.Template
	inputs    *pathpattern.Template
	schema    *nsmeta.Schema
	policy    *nsmeta.NamePolicy
	pipeline  nsmeta.Pipeline
	program   *cel.Program
	cache     *cel.Cache
	old, next []inventory.Entry
}

// cacheExprs are more expressions than the cache holds, so that goroutines
// evict each other's programs while they compile and evaluate them.
var cacheExprs = []string{
	`value == "a"`, `value.startsWith("tenant-")`, `value.size() > 3`, `value.matches("^[a-z]+$")`,
	`value.endsWith("-a")`, `value.contains("-")`, `value in ["a", "tenant-a"]`, `value.lowerAscii() == value`,
}

func newShared(t *testing.T) *shared {
	t.Helper()
	cache := cel.NewCache(3)
	sub, err := fs.Sub(sample, "sample/monorepo")
	if err != nil {
		t.Fatal(err)
	}
	s := &shared{fsys: sub, cache: cache}
	s.pattern = pathpattern.MustParse("@repo/tenants/{namespace}/modules/{module}")
	s.name = s.pattern.MustTemplate("{module}")
	s.ns = s.pattern.MustTemplate("{namespace}")
	s.inputs = s.pattern.MustTemplate("@repo/tenants/{namespace}/modules/{module}/applier-inputs.yaml")
	var errs field.ErrorList
	if s.schema, errs = nsmeta.CompileSchema(
		map[string]string{"my.org.io/cost-center": `value.matches('^cc-[0-9]{4}$')`, "my.org.io/team": `value.size() <= 20`},
		map[string]string{"my.org.io/observability": `value in ["Enabled", "Disabled"]`},
		nil, nsmeta.WithCache(cache),
	); errs != nil {
		t.Fatal(errs)
	}
	if s.policy, errs = nsmeta.NewNamePolicy([]string{`ns.startsWith("tenant-")`, `ns == "sandbox"`},
		nil, nsmeta.WithProtectedNames("flux-system"), nsmeta.WithCache(cache)); errs != nil {
		t.Fatal(errs)
	}
	s.pipeline = nsmeta.Pipeline{
		Common: nsmeta.Metadata{Labels: map[string]string{"my.org.io/provisioner": "monorepo"}},
		Operations: []nsmeta.Operation{
			{Strategy: nsmeta.Merge, Namespace: "*", Metadata: nsmeta.Metadata{Labels: map[string]string{"pod-security.kubernetes.io/enforce": "baseline"}}},
			{Strategy: nsmeta.Override, Namespace: "tenant-payments", Metadata: nsmeta.Metadata{Labels: map[string]string{"pod-security.kubernetes.io/enforce": "restricted"}}},
			{Strategy: nsmeta.Reset, Namespace: "tenant-sandbox", Metadata: nsmeta.Metadata{Labels: map[string]string{"my.org.io/sandbox": "true"}}},
		},
		Final: nsmeta.Metadata{Labels: map[string]string{"source.extensions.fluxcd.io/generator": "uid"}},
	}
	if errs = s.pipeline.Validate(nil, nil, nil); errs != nil {
		t.Fatal(errs)
	}
	s.program = cel.MustCompile(`value.matches('^cc-[0-9]{4}$') && value.size() < 10`, "value")
	for i := range 200 {
		e := inventory.Entry{Kind: "ExternalArtifact", Namespace: fmt.Sprintf("tenant-%d", i%7), Name: fmt.Sprintf("app-%d", i), Digest: ""}
		s.old = append(s.old, e)
		if i%3 != 0 {
			s.next = append(s.next, e)
		}
	}
	return s
}

// outcome is everything one goroutine computes, as comparable values.
type outcome struct {
	Matches   []pathpattern.Match
	Match     map[string]map[string]string
	Rendered  []string
	Refs      []string
	Kept      []nsmeta.Metadata
	Warnings  [][]string
	Errors    []string
	Names     map[string]string
	Evals     map[string]string
	Cached    map[string]string
	Resolved  map[string]nsmeta.Result
	Digests   map[string]string
	Files     []string
	Finalizer []string
	Changes   []string
}

func errString(err error) string {
	if err == nil {
		return "ok"
	}
	return err.Error()
}

func (s *shared) compute(ctx context.Context) outcome {
	var o outcome
	var err error
	o.Matches, _, err = s.pattern.Discover(s.fsys, nil)
	o.Errors = append(o.Errors, errString(err))
	o.Match = map[string]map[string]string{}
	for _, p := range []string{"tenants/tenant-a/modules/app", "tenants/x/modules/y/z", "tenants/.x/modules/y", "tenants/T/modules/M"} {
		if c, ok := s.pattern.Match(p); ok {
			o.Match[p] = c
		}
	}
	// The shared templates, expanded as the generator renders names and
	// namespaces (from the normalized captures) and references (from the
	// raw ones).
	for _, m := range o.Matches {
		ns, nsErr := s.ns.Expand(m.Normalized)
		name, nameErr := s.name.Expand(m.Normalized)
		o.Rendered = append(o.Rendered, ns+"/"+name+" "+errString(errors.Join(nsErr, nameErr)))
		ref, err := s.inputs.Expand(m.Raw)
		o.Refs = append(o.Refs, ref+" "+errString(err))
	}
	for _, m := range []nsmeta.Metadata{
		{Labels: map[string]string{"my.org.io/cost-center": "cc-1042", "my.org.io/team": "payments", "x": "y"}},
		{Labels: map[string]string{"my.org.io/cost-center": "1042"}, Annotations: map[string]string{"my.org.io/observability": "Enabled"}},
		{Annotations: map[string]string{"my.org.io/observability": "enabled", "other": "z"}},
	} {
		kept, warnings, errs := s.schema.Apply(ctx, m)
		o.Kept = append(o.Kept, kept)
		o.Warnings = append(o.Warnings, warnings)
		o.Errors = append(o.Errors, fmt.Sprint(errs))
	}
	o.Names = map[string]string{}
	for _, n := range []string{"tenant-a", "sandbox", "kube-system", "flux-system", "Tenant-A", "team-a", ""} {
		o.Names[n] = errString(s.policy.Check(ctx, n))
	}
	o.Evals = map[string]string{}
	for _, v := range []string{"cc-1042", "cc-104", "cc-10422", "", "("} {
		ok, err := s.program.Eval(ctx, map[string]string{"value": v})
		o.Evals[v] = fmt.Sprint(ok, " ", errString(err))
	}
	o.Cached = map[string]string{}
	for _, e := range cacheExprs {
		p, err := s.cache.Compile(e, "value")
		if err != nil || p.String() != e {
			o.Cached[e] = "compile: " + errString(err)
			continue
		}
		ok, err := p.Eval(ctx, map[string]string{"value": "tenant-a"})
		o.Cached[e] = fmt.Sprint(ok, " ", errString(err))
	}
	o.Resolved, o.Digests = map[string]nsmeta.Result{}, map[string]string{}
	for _, ns := range []string{"tenant-payments", "tenant-sandbox", "tenant-search"} {
		r, errs := s.pipeline.Resolve(ns, o.Kept[0])
		o.Errors = append(o.Errors, errString(errs.ToAggregate()))
		o.Resolved[ns] = r
		o.Digests[ns] = nsmeta.Digest(r.Metadata).String()
	}
	o.Files, _, err = pathpattern.Glob(ctx, s.fsys, "tenants/*/modules/*/manifests/**", "*.md")
	o.Errors = append(o.Errors, errString(err))
	for _, f := range o.Files {
		data, err := pathpattern.ReadFile(s.fsys, f, 0)
		o.Errors = append(o.Errors, fmt.Sprint(len(data), errString(err)))
	}
	owner, err := finalizer.Parse("fluxcd.controlplane.io/v1/ResourceSet/flux-system/tenants/uid-1")
	o.Finalizer = append(o.Finalizer, owner.String(), errString(err))
	stamped, err := finalizer.Stamp(nil, map[string]string{finalizer.Annotation: finalizer.Self}, owner)
	o.Finalizer = append(o.Finalizer, fmt.Sprint(stamped), errString(err))
	v, err := (&finalizer.Decider{}).Decide(ctx, "tenant-a", stamped, finalizer.LookupFunc(func(context.Context, finalizer.Reference) (string, error) { return "uid-1", nil }))
	o.Finalizer = append(o.Finalizer, v.Reason, errString(err))
	ch, errs := inventory.Diff(s.old, s.next)
	o.Errors = append(o.Errors, errString(errs.ToAggregate()))
	ds, err := inventory.Collect(ctx, ch, inventory.WithMaxDeletions(1000), inventory.WithNamespacePrune(), inventory.WithAllowDeleteAll())
	o.Errors = append(o.Errors, errString(err))
	for _, d := range append(ch.Decisions(), ds...) {
		o.Changes = append(o.Changes, d.String())
	}
	return o
}

// TestConcurrentSharing shares one compiled pattern and its templates, one
// schema, one name policy, one CEL program and one CEL cache (smaller than
// the expressions that go through it) across goroutines, and checks that
// every goroutine computes exactly what one goroutine alone does. Run it
// with -race.
func TestConcurrentSharing(t *testing.T) {
	t.Parallel()
	s := newShared(t)
	ctx := context.Background()
	want := s.compute(ctx)
	if len(want.Matches) == 0 || len(want.Files) == 0 || len(want.Changes) == 0 {
		t.Fatalf("the reference outcome is empty: %+v", want)
	}

	goroutines := 4 * runtime.GOMAXPROCS(0)
	const rounds = 5
	var wg sync.WaitGroup
	diffs := make(chan string, goroutines)
	for range goroutines {
		wg.Go(func() {
			for range rounds {
				if diff := cmp.Diff(want, s.compute(ctx)); diff != "" {
					diffs <- diff
					return
				}
			}
		})
	}
	wg.Wait()
	close(diffs)
	for diff := range diffs {
		t.Errorf("a goroutine computed another outcome (-alone +concurrent):\n%s", diff)
	}
	if n := s.cache.Len(); n > 3 {
		t.Errorf("cache holds %d programs, more than its size 3", n)
	}
}

// TestConcurrentPlans runs whole plans of the sample at once, sharing one
// CEL cache, and checks that they all print the same plan.
func TestConcurrentPlans(t *testing.T) {
	t.Parallel()
	src, previous := samplePlan()
	data, err := fs.ReadFile(sample, "sample/generator.yaml")
	if err != nil {
		t.Fatal(err)
	}
	cache := cel.NewCache(2)
	plan := func() (*planResult, error) {
		g, err := agmanifest.Decode[generator.Spec](data)
		if err != nil {
			return nil, err
		}
		return makePlan(context.Background(), request{manifest: g, sources: map[string]fs.FS{"repo": src}, previous: previous, opts: []generator.Option{generator.WithCache(cache)}})
	}
	want, err := plan()
	if err != nil {
		t.Fatal(err)
	}
	checkStream(t, want)
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for range 8 {
		wg.Go(func() {
			got, err := plan()
			if err != nil {
				errs <- err
				return
			}
			if diff := cmp.Diff(want, got, cmp.AllowUnexported(planResult{})); diff != "" {
				errs <- errors.New(diff)
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("a concurrent plan differs: %v", err)
	}
}
