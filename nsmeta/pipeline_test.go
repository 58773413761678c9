package nsmeta

import (
	"encoding/json"
	"fmt"
	"maps"
	"runtime"
	"slices"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/opencontainers/go-digest"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// referencePipeline is the reference vector of issue 4.
// pipelineSpec holds the steps of a pipeline, for tables and JSON: build
// validates them with the paths common, from and final, the names of the
// steps' origins.
type pipelineSpec struct {
	Common     Metadata    `json:"common"`
	Operations []Operation `json:"operations"`
	Final      Metadata    `json:"final"`
}

func (s pipelineSpec) build() (*Pipeline, field.ErrorList) {
	p := Pipeline{Common: s.Common, Operations: s.Operations, Final: s.Final}
	if errs := p.Validate(field.NewPath(originCommon), field.NewPath("from"), field.NewPath(originFinal)); errs != nil {
		return nil, errs
	}
	return &p, nil
}

// mustBuild builds s, which must be valid.
func (s pipelineSpec) mustBuild(tb testing.TB) *Pipeline {
	tb.Helper()
	p, errs := s.build()
	if errs != nil {
		tb.Fatal(errs)
	}
	return p
}

var referencePipeline = pipelineSpec{
	Common: Metadata{
		Labels:      map[string]string{"common": "base", "team": "platform"},
		Annotations: map[string]string{"owner": "platform", "preserved": "common"},
	},
	Operations: []Operation{
		{Strategy: Override, Namespace: "*", Metadata: Metadata{
			Labels:      map[string]string{"scope": "global", "team": "all"},
			Annotations: map[string]string{"scope": "global"},
		}},
		{Strategy: Merge, Namespace: "tenant-a", Metadata: Metadata{
			Labels:      map[string]string{"scope": "ignored", "tier": "gold"},
			Annotations: map[string]string{"owner": "ignored"},
		}},
		{Strategy: Override, Namespace: "tenant-a", Metadata: Metadata{
			Labels: map[string]string{"tier": "silver"},
		}},
	},
}

// md builds Metadata from two maps, for short tables.
func md(labels, annotations map[string]string) Metadata {
	if labels == nil {
		labels = map[string]string{}
	}
	if annotations == nil {
		annotations = map[string]string{}
	}
	return Metadata{Labels: labels, Annotations: annotations}
}

type kv = map[string]string

var resolveTests = []struct {
	name       string
	pipeline   pipelineSpec
	namespace  string
	source     Metadata
	want       Result
	wantErr    error
	wantFields []fieldErr
}{
	{
		name:      "reference vector, tenant-b",
		pipeline:  referencePipeline,
		namespace: "tenant-b",
		want: Result{
			Metadata: md(kv{"common": "base", "team": "all", "scope": "global"}, kv{"owner": "platform", "preserved": "common", "scope": "global"}),
			Origin:   md(kv{"common": "common", "team": "from[0]", "scope": "from[0]"}, kv{"owner": "common", "preserved": "common", "scope": "from[0]"}),
		},
	},
	{
		name:      "reference vector, tenant-a",
		pipeline:  referencePipeline,
		namespace: "tenant-a",
		want: Result{
			Metadata: md(kv{"common": "base", "team": "all", "scope": "global", "tier": "silver"}, kv{"owner": "platform", "preserved": "common", "scope": "global"}),
			Origin:   md(kv{"common": "common", "team": "from[0]", "scope": "from[0]", "tier": "from[2]"}, kv{"owner": "common", "preserved": "common", "scope": "from[0]"}),
		},
	},
	{
		name: "reference vector with Reset *",
		pipeline: pipelineSpec{
			Common:     referencePipeline.Common,
			Operations: append(append([]Operation{}, referencePipeline.Operations...), Operation{Strategy: Reset, Namespace: "*", Metadata: md(kv{"reset": "true"}, kv{"reset": "true"})}),
		},
		namespace: "tenant-a",
		source:    md(kv{"team": "source"}, kv{"note": "source"}),
		want: Result{
			Metadata: md(kv{"reset": "true"}, kv{"reset": "true"}),
			Origin:   md(kv{"reset": "from[3]"}, kv{"reset": "from[3]"}),
		},
	},
	{
		name: "zero pipeline keeps the file metadata",
		source: Metadata{
			Labels: kv{"team": "payments"},
		},
		namespace: "tenant-a",
		want: Result{
			Metadata: md(kv{"team": "payments"}, nil),
			Origin:   md(kv{"team": "source"}, nil),
		},
	},
	{
		name: "source overrides common, final overrides everything",
		pipeline: pipelineSpec{
			Common: md(kv{"team": "common", "owner": "common"}, nil),
			Operations: []Operation{
				{Strategy: Override, Namespace: "tenant-a", Metadata: md(kv{"owner": "op", "extra": "op"}, nil)},
				{Strategy: Reset, Namespace: "tenant-a"},
				{Strategy: Merge, Namespace: "*", Metadata: md(kv{"owner": "merged"}, kv{"a": "merged"})},
			},
			Final: md(kv{"owner": "final", "tenantkit.io/generator": "uid"}, kv{"a": "final"}),
		},
		namespace: "tenant-a",
		source:    md(kv{"team": "source"}, nil),
		want: Result{
			Metadata: md(kv{"owner": "final", "tenantkit.io/generator": "uid"}, kv{"a": "final"}),
			Origin:   md(kv{"owner": "final", "tenantkit.io/generator": "final"}, kv{"a": "final"}),
		},
	},
	{
		name: "* takes its place in list order",
		pipeline: pipelineSpec{Operations: []Operation{
			{Strategy: Override, Namespace: "tenant-a", Metadata: md(kv{"tier": "gold"}, nil)},
			{Strategy: Override, Namespace: "*", Metadata: md(kv{"tier": "bronze"}, nil)},
		}},
		namespace: "tenant-a",
		want: Result{
			Metadata: md(kv{"tier": "bronze"}, nil),
			Origin:   md(kv{"tier": "from[1]"}, nil),
		},
	},
	{
		name: "operations for other namespaces do not apply",
		pipeline: pipelineSpec{Operations: []Operation{
			{Strategy: Reset, Namespace: "tenant-b"},
			{Strategy: Override, Namespace: "tenant-b", Metadata: md(kv{"tier": "gold"}, nil)},
		}},
		namespace: "tenant-a",
		source:    md(kv{"team": "a"}, nil),
		want: Result{
			Metadata: md(kv{"team": "a"}, nil),
			Origin:   md(kv{"team": "source"}, nil),
		},
	},
	{
		name: "merge keeps existing values and their origin",
		pipeline: pipelineSpec{
			Common:     md(kv{"team": "common"}, nil),
			Operations: []Operation{{Strategy: Merge, Namespace: "*", Metadata: md(kv{"team": "merged", "tier": "merged"}, nil)}},
		},
		namespace: "tenant-a",
		want: Result{
			Metadata: md(kv{"team": "common", "tier": "merged"}, nil),
			Origin:   md(kv{"team": "common", "tier": "from[0]"}, nil),
		},
	},
	{
		name: "override with an equal value takes the origin",
		pipeline: pipelineSpec{
			Common:     md(kv{"team": "a"}, nil),
			Operations: []Operation{{Strategy: Override, Namespace: "*", Metadata: md(kv{"team": "a"}, nil)}},
		},
		namespace: "tenant-a",
		want: Result{
			Metadata: md(kv{"team": "a"}, nil),
			Origin:   md(kv{"team": "from[0]"}, nil),
		},
	},
	{
		name:      "an empty externalFinalizer annotation is allowed",
		pipeline:  pipelineSpec{Common: md(nil, kv{externalFinalizerAnnotation: ""})},
		namespace: "tenant-a",
		want: Result{
			Metadata: md(nil, kv{externalFinalizerAnnotation: ""}),
			Origin:   md(nil, kv{externalFinalizerAnnotation: "common"}),
		},
	},
	{
		name: "externalFinalizer set by an operation",
		pipeline: pipelineSpec{Operations: []Operation{
			{Strategy: Override, Namespace: "tenant-b", Metadata: md(nil, kv{externalFinalizerAnnotation: "self"})},
			{Strategy: Override, Namespace: "*", Metadata: md(nil, kv{externalFinalizerAnnotation: "self"})},
		}},
		namespace: "tenant-a",
		wantFields: []fieldErr{
			{field.ErrorTypeForbidden, "from[0].annotations[source.extensions.fluxcd.io/externalFinalizer]", ""},
			{field.ErrorTypeForbidden, "from[1].annotations[source.extensions.fluxcd.io/externalFinalizer]", ""},
		},
	},
	{
		name:      "externalFinalizer from the tenant's file",
		namespace: "tenant-a",
		source:    md(nil, kv{externalFinalizerAnnotation: "apps/v1/Deployment/x/y/uid"}),
		wantFields: []fieldErr{
			{field.ErrorTypeForbidden, "metadata.annotations[source.extensions.fluxcd.io/externalFinalizer]", ""},
		},
	},
	{
		name:      "externalFinalizer removed by a Reset",
		pipeline:  pipelineSpec{Operations: []Operation{{Strategy: Reset, Namespace: "*"}}},
		namespace: "tenant-a",
		source:    md(nil, kv{externalFinalizerAnnotation: "self"}),
		want:      Result{Metadata: md(nil, nil), Origin: md(nil, nil)},
	},
	{
		name:      "externalFinalizer from final",
		pipeline:  pipelineSpec{Final: md(nil, kv{externalFinalizerAnnotation: "self"})},
		namespace: "tenant-a",
		wantFields: []fieldErr{
			{field.ErrorTypeForbidden, "final.annotations[source.extensions.fluxcd.io/externalFinalizer]", ""},
		},
	},
	{
		name: "invalid operations, even those for other namespaces",
		pipeline: pipelineSpec{Operations: []Operation{
			{Strategy: Override, Namespace: "*"},
			{Strategy: "Replace", Namespace: "tenant-b"},
			{Namespace: "tenant-b"},
			{Strategy: Merge},
			{Strategy: "override", Namespace: "Tenant_B", Metadata: md(kv{"bad key": "v"}, nil)},
		}},
		namespace: "tenant-a",
		wantFields: []fieldErr{
			{field.ErrorTypeNotSupported, "from[1].strategy", "Replace"},
			{field.ErrorTypeRequired, "from[2].strategy", ""},
			{field.ErrorTypeRequired, "from[3].namespace", ""},
			{field.ErrorTypeInvalid, "from[4].labels[bad key]", "bad key"},
			{field.ErrorTypeInvalid, "from[4].namespace", "Tenant_B"},
			{field.ErrorTypeNotSupported, "from[4].strategy", "override"},
		},
	},
}

func TestResolve(t *testing.T) {
	t.Parallel()
	for _, tc := range resolveTests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var got Result
			p, errs := tc.pipeline.build()
			if errs == nil {
				got, errs = p.Resolve(tc.namespace, tc.source)
			}
			if diff := cmp.Diff(tc.wantFields, project(errs)); diff != "" {
				t.Errorf("field errors (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Resolve() (-want +got):\n%s", diff)
			}
		})
	}
}

// TestValidateStrategiesListed checks that an unknown strategy lists the
// three valid ones.
func TestValidateStrategiesListed(t *testing.T) {
	t.Parallel()
	_, errs := pipelineSpec{Operations: []Operation{{Strategy: "Replace", Namespace: "*"}}}.build()
	want := `from[0].strategy: Unsupported value: "Replace": supported values: "Reset", "Override", "Merge"`
	if errs == nil || errs.ToAggregate().Error() != want {
		t.Errorf("Validate() errors = %v, want %s", errs, want)
	}
}

// clone deep-copies p.
func clone(p pipelineSpec) pipelineSpec {
	cm := func(m Metadata) Metadata {
		return Metadata{Labels: maps.Clone(m.Labels), Annotations: maps.Clone(m.Annotations)}
	}
	out := pipelineSpec{Common: cm(p.Common), Final: cm(p.Final)}
	for _, op := range p.Operations {
		op.Metadata = cm(op.Metadata)
		out.Operations = append(out.Operations, op)
	}
	return out
}

func TestResolveDoesNotMutateOrShare(t *testing.T) {
	t.Parallel()
	p := clone(referencePipeline)
	p.Final = md(kv{"owner": "gen"}, kv{"gen": "x"})
	source := md(kv{"team": "source"}, kv{"note": "source"})
	wantP, wantSource := clone(p), Metadata{Labels: maps.Clone(source.Labels), Annotations: maps.Clone(source.Annotations)}

	built := p.mustBuild(t)
	want, errs := built.Resolve("tenant-a", source)
	if errs != nil {
		t.Fatal(errs)
	}
	r, errs := built.Resolve("tenant-a", source)
	if errs != nil {
		t.Fatal(errs)
	}
	if diff := cmp.Diff(want, r); diff != "" {
		t.Errorf("Resolve() is not deterministic (-first +second):\n%s", diff)
	}
	// Validate and Resolve leave the pipeline alone.
	if diff := cmp.Diff(Pipeline{Common: wantP.Common, Operations: wantP.Operations, Final: wantP.Final}, *built); diff != "" {
		t.Errorf("Resolve() modified the pipeline (-before +after):\n%s", diff)
	}
	if diff := cmp.Diff(wantSource, source); diff != "" {
		t.Errorf("Resolve() modified fromSource (-before +after):\n%s", diff)
	}
	// Writing to the result must not reach the inputs.
	for _, m := range []map[string]string{r.Labels, r.Annotations, r.Origin.Labels, r.Origin.Annotations} {
		for k := range m {
			m[k] = "changed"
		}
		m["new"] = "changed"
	}
	if again, _ := built.Resolve("tenant-a", source); !cmp.Equal(want, again) {
		t.Errorf("the result shares storage with the pipeline: %v, then %v", want, again)
	}
	if diff := cmp.Diff(wantSource, source); diff != "" {
		t.Errorf("the result shares storage with fromSource (-before +after):\n%s", diff)
	}
}

func TestValidateOperations(t *testing.T) {
	t.Parallel()
	from := field.NewPath("spec", "managedNamespaces", "metadata", "from")
	tests := []struct {
		name string
		ops  []Operation
		path *field.Path
		want []fieldErr
	}{
		{name: "none"},
		{
			name: "valid",
			ops: []Operation{
				{Strategy: Reset, Namespace: "*"},
				{Strategy: Override, Namespace: "tenant-a", Metadata: md(kv{"team": "a"}, kv{"my.org.io/x": "any value"})},
				{Strategy: Merge, Namespace: "a"},
			},
			path: from,
		},
		{
			name: "every problem, under the caller's path",
			ops: []Operation{
				{Strategy: "Replace", Namespace: "tenant-a"},
				{},
				{Strategy: Merge, Namespace: "-bad-", Metadata: md(kv{"team": "a b"}, kv{"-x": ""})},
				{Strategy: Merge, Namespace: "**"},
			},
			path: from,
			want: []fieldErr{
				{field.ErrorTypeNotSupported, "spec.managedNamespaces.metadata.from[0].strategy", "Replace"},
				{field.ErrorTypeRequired, "spec.managedNamespaces.metadata.from[1].namespace", ""},
				{field.ErrorTypeRequired, "spec.managedNamespaces.metadata.from[1].strategy", ""},
				{field.ErrorTypeInvalid, "spec.managedNamespaces.metadata.from[2].annotations[-x]", "-x"},
				{field.ErrorTypeInvalid, "spec.managedNamespaces.metadata.from[2].labels[team]", "a b"},
				{field.ErrorTypeInvalid, "spec.managedNamespaces.metadata.from[2].namespace", "-bad-"},
				{field.ErrorTypeInvalid, "spec.managedNamespaces.metadata.from[3].namespace", "**"},
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			errs := Pipeline{Operations: tc.ops}.Validate(nil, tc.path, nil)
			if diff := cmp.Diff(tc.want, project(errs)); diff != "" {
				t.Errorf("Validate() (-want +got):\n%s", diff)
			}
		})
	}
}

// FuzzResolve resolves pipelines decoded from JSON, seeded from the table,
// and checks that Resolve does not panic, is deterministic, leaves its inputs
// alone, and returns a result whose keys all have an origin, that carries
// every Final key, and that never carries a non-empty externalFinalizer.
func FuzzResolve(f *testing.F) {
	for _, tc := range resolveTests {
		p, err := json.Marshal(tc.pipeline)
		if err != nil {
			f.Fatal(err)
		}
		s, err := json.Marshal(tc.source)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(tc.namespace, p, s)
	}
	f.Fuzz(func(t *testing.T, namespace string, pipelineJSON, sourceJSON []byte) {
		var spec pipelineSpec
		var source Metadata
		if json.Unmarshal(pipelineJSON, &spec) != nil || json.Unmarshal(sourceJSON, &source) != nil {
			return
		}
		p, errs := spec.build()
		if errs != nil {
			if p != nil {
				t.Fatalf("build() = %v with errors %v", p, errs)
			}
			return
		}
		before, sourceBefore := clone(spec), Metadata{Labels: maps.Clone(source.Labels), Annotations: maps.Clone(source.Annotations)}
		r1, err1 := p.Resolve(namespace, source)
		r2, err2 := p.Resolve(namespace, source)
		if diff := cmp.Diff(r1, r2); diff != "" {
			t.Fatalf("Resolve() is not deterministic (-first +second):\n%s", diff)
		}
		if fmt.Sprint(err1) != fmt.Sprint(err2) {
			t.Fatalf("Resolve() errors differ: %v, then %v", err1, err2)
		}
		if diff := cmp.Diff(before, spec); diff != "" {
			t.Fatalf("Resolve() modified the pipeline's input:\n%s", diff)
		}
		if diff := cmp.Diff(sourceBefore, source); diff != "" {
			t.Fatalf("Resolve() modified fromSource:\n%s", diff)
		}
		if err1 != nil {
			want := "metadata.annotations[" + externalFinalizerAnnotation + "]"
			if len(err1) != 1 || err1[0].Field != want || err1[0].Type != field.ErrorTypeForbidden {
				t.Fatalf("Resolve() errors = %v, want one Forbidden at %s", err1, want)
			}
			return
		}
		if r1.Annotations[externalFinalizerAnnotation] != "" {
			t.Fatalf("Resolve() returned a non-empty %s", externalFinalizerAnnotation)
		}
		for _, pair := range [][2]map[string]string{{r1.Labels, r1.Origin.Labels}, {r1.Annotations, r1.Origin.Annotations}} {
			if !cmp.Equal(slices.Sorted(maps.Keys(pair[0])), slices.Sorted(maps.Keys(pair[1]))) {
				t.Fatalf("keys and origins differ: %v, %v", pair[0], pair[1])
			}
		}
		for k, v := range spec.Final.Labels {
			if r1.Labels[k] != v || r1.Origin.Labels[k] != originFinal {
				t.Fatalf("final label %q = %q (from %q), want %q from final", k, r1.Labels[k], r1.Origin.Labels[k], v)
			}
		}
		for k, v := range spec.Final.Annotations {
			if r1.Annotations[k] != v || r1.Origin.Annotations[k] != originFinal {
				t.Fatalf("final annotation %q = %q (from %q), want %q from final", k, r1.Annotations[k], r1.Origin.Annotations[k], v)
			}
		}
	})
}

// benchPipeline returns a 5-operation pipeline and n namespaces with the
// metadata of their files. With withFile, each file holds 3 labels and 5
// annotations, and each namespace resolves to 10 labels and 10 annotations;
// without, the files are empty, as for tenants without one, and each
// namespace resolves to the pipeline's 7 labels and 5 annotations.
func benchPipeline(n int, withFile bool) (*Pipeline, []string, []Metadata) {
	spec := pipelineSpec{
		Common: md(kv{"my.org.io/provisioner": "monorepo", "my.org.io/tier": "bronze", "my.org.io/env": "prod"},
			kv{"my.org.io/owner": "platform", "my.org.io/contact": "platform@example.com"}),
		Operations: []Operation{
			{Strategy: Override, Namespace: "*", Metadata: md(kv{"my.org.io/scope": "global"}, kv{"my.org.io/scope": "global"})},
			{Strategy: Merge, Namespace: "*", Metadata: md(kv{"my.org.io/tier": "ignored", "my.org.io/zone": "a"}, kv{"my.org.io/owner": "ignored"})},
			{Strategy: Override, Namespace: "tenant-1", Metadata: md(kv{"my.org.io/tier": "gold"}, nil)},
			{Strategy: Reset, Namespace: "tenant-2"},
			{Strategy: Merge, Namespace: "*", Metadata: md(nil, kv{"my.org.io/policy": "default"})},
		},
		Final: md(kv{"generator.example.com/name": "tenants", "generator.example.com/namespace": "flux-system"},
			kv{"generator.example.com/revision": "sha1:0123456789abcdef"}),
	}
	names := make([]string, n)
	sources := make([]Metadata, n)
	for i := range n {
		names[i] = fmt.Sprintf("tenant-%d", i+3) // none of them reset
		if withFile {
			sources[i] = md(
				kv{"team": fmt.Sprintf("team-%d", i), "app": "web", "cost-center": "42"},
				kv{"my.org.io/observability": "Enabled", "my.org.io/a": "1", "my.org.io/b": "2", "my.org.io/c": "3", "my.org.io/d": "4"},
			)
		}
	}
	p, errs := spec.build()
	if errs != nil {
		panic(errs)
	}
	return p, names, sources
}

// benchShapes are the two kinds of namespaces of benchPipeline, named by the
// labels and annotations each resolves to.
var benchShapes = []struct {
	name                string
	withFile            bool
	labels, annotations int
}{
	{"metadata=7+5", false, 7, 5},
	{"metadata=10+10", true, 10, 10},
}

func BenchmarkResolveDigest(b *testing.B) {
	for _, shape := range benchShapes {
		for _, n := range []int{1, 100, 10000} {
			p, names, sources := benchPipeline(n, shape.withFile)
			if r, err := p.Resolve(names[0], sources[0]); err != nil || len(r.Labels) != shape.labels || len(r.Annotations) != shape.annotations {
				b.Fatalf("Resolve() = %d labels, %d annotations, %v; want %d, %d, nil", len(r.Labels), len(r.Annotations), err, shape.labels, shape.annotations)
			}
			b.Run(fmt.Sprintf("%s/namespaces=%d", shape.name, n), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					for i, name := range names {
						r, err := p.Resolve(name, sources[i])
						if err != nil {
							b.Fatal(err)
						}
						_ = Digest(r.Metadata)
					}
				}
			})
		}
	}
}

// BenchmarkResolveDigestParallel resolves and digests the namespaces on every
// core, as a controller resolving all its namespaces at once can: Resolve is
// safe for concurrent use. Each worker takes a contiguous share of the names
// and writes its digests in place, so the output is the sequential one.
func BenchmarkResolveDigestParallel(b *testing.B) {
	workers := runtime.GOMAXPROCS(0)
	for _, shape := range benchShapes {
		for _, n := range []int{100, 10000} {
			p, names, sources := benchPipeline(n, shape.withFile)
			want := make([]digest.Digest, n)
			for i, name := range names {
				r, err := p.Resolve(name, sources[i])
				if err != nil {
					b.Fatal(err)
				}
				want[i] = Digest(r.Metadata)
			}
			got := make([]digest.Digest, n)
			b.Run(fmt.Sprintf("%s/namespaces=%d/workers=%d", shape.name, n, workers), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					var wg sync.WaitGroup
					for w := range workers {
						lo, hi := w*n/workers, (w+1)*n/workers
						wg.Go(func() {
							for i := lo; i < hi; i++ {
								r, err := p.Resolve(names[i], sources[i])
								if err != nil {
									panic(err)
								}
								got[i] = Digest(r.Metadata)
							}
						})
					}
					wg.Wait()
				}
				if !slices.Equal(got, want) {
					b.Fatal("the parallel digests differ from the sequential ones")
				}
			})
		}
	}
}

// BenchmarkResolveFloor makes and fills four maps of 10 keys, the four maps
// that Resolve returns for the metadata=10+10 namespaces of benchPipeline:
// the least that Resolve can cost with its API, to compare
// BenchmarkResolveDigest with.
func BenchmarkResolveFloor(b *testing.B) {
	p, names, sources := benchPipeline(1, true)
	r, err := p.Resolve(names[0], sources[0])
	if err != nil {
		b.Fatal(err)
	}
	labels := slices.Collect(maps.Keys(r.Labels))
	annotations := slices.Collect(maps.Keys(r.Annotations))
	b.ReportAllocs()
	for b.Loop() {
		for i, keys := range [][]string{labels, labels, annotations, annotations} {
			m := make(map[string]string, len(keys))
			for _, k := range keys {
				m[k] = k
			}
			floorSink[i] = m // escapes, as Resolve's maps do
		}
	}
}

var floorSink [4]map[string]string
