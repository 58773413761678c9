package generator

import (
	"slices"
	"testing"
)

// TestRule9Destination pins the destination rule, one case per branch.
func TestRule9Destination(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		to      string
		pattern string
		files   []string
		earlier []string
		want    []string
	}{
		{name: "file to a file name", to: "@artifact/x.yaml", pattern: "m/a.yaml", files: []string{"m/a.yaml"}, want: []string{"x.yaml"}},
		{name: "file to a directory", to: "@artifact/x/", pattern: "m/a.yaml", files: []string{"m/a.yaml"}, want: []string{"x/a.yaml"}},
		{name: "file to the root", to: "@artifact/", pattern: "m/a.yaml", files: []string{"m/a.yaml"}, want: []string{"a.yaml"}},
		{name: "file to a directory an earlier copy made", to: "@artifact/x", pattern: "m/a.yaml", files: []string{"m/a.yaml"}, earlier: []string{"x/b.yaml"}, want: []string{"x/a.yaml"}},
		{name: "escaped star is a file name", to: "@artifact/x.yaml", pattern: `m/a\*b.yaml`, files: []string{"m/a*b.yaml"}, want: []string{"x.yaml"}},
		{name: "directory", to: "@artifact/x/", pattern: "m/manifests", files: []string{"m/manifests/a.yaml", "m/manifests/c/b.yaml"}, want: []string{"x/manifests/a.yaml", "x/manifests/c/b.yaml"}},
		{name: "directory to the root", to: "@artifact/", pattern: "m/manifests", files: []string{"m/manifests/a.yaml"}, want: []string{"manifests/a.yaml"}},
		{name: "double star base", to: "@artifact/", pattern: "m/manifests/**", files: []string{"m/manifests/a.yaml", "m/manifests/c/b.yaml"}, want: []string{"a.yaml", "c/b.yaml"}},
		{name: "double star base to a directory", to: "@artifact/x", pattern: "m/manifests/**", files: []string{"m/manifests/a.yaml"}, want: []string{"x/a.yaml"}},
		{name: "other glob keeps the path", to: "@artifact/", pattern: "m/*.yaml", files: []string{"m/a.yaml"}, want: []string{"m/a.yaml"}},
		{name: "double star inside keeps the path", to: "@artifact/x/", pattern: "m/**/*.yaml", files: []string{"m/c/b.yaml"}, want: []string{"x/m/c/b.yaml"}},
		{name: "glob in the base keeps the path", to: "@artifact/", pattern: "m/*/**", files: []string{"m/c/b.yaml"}, want: []string{"m/c/b.yaml"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			to, dir, err := parseDestination(tt.to)
			if err != nil {
				t.Fatal(err)
			}
			earlier := map[string]selected{}
			for _, e := range tt.earlier {
				earlier[e] = selected{}
			}
			var got []string
			for _, f := range tt.files {
				got = append(got, destination(to, dir, tt.pattern, f, earlier))
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// TestRule9EscapedStar is the case through a whole plan.
func TestRule9EscapedStar(t *testing.T) {
	t.Parallel()
	spec := testSpec()
	spec.Artifacts[0].Copy = []CopyOperation{{From: `@repo/tenants/{namespace}/modules/{module}/manifests/a\*b.yaml`, To: "@artifact/x.yaml"}}
	g := mustCompile(t, spec)
	p := mustPlan(t, g, sources(tree("tenants/tenant-a/modules/app/manifests/a*b.yaml=kind: A\n", "tenants/tenant-a/namespace-metadata.yaml="+emptyMetadataFile)), nil, (&fakeCluster{}).cluster())
	if p.HasErrors() || len(p.Artifacts) != 1 {
		t.Fatalf("errors %v, artifacts %v", p.Errors.ToAggregate(), p.Artifacts)
	}
	if files := p.Artifacts[0].Files; len(files) != 1 || files[0].Path != "x.yaml" || files[0].Source.String() != "@repo/tenants/tenant-a/modules/app/manifests/a*b.yaml" {
		t.Errorf("files %+v, want x.yaml from a*b.yaml", files)
	}
}

func TestParseDestination(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, to, path string
		dir, err       bool
	}{
		{name: "root", to: "@artifact/", dir: true},
		{name: "file", to: "@artifact/a/b.yaml", path: "a/b.yaml"},
		{name: "directory", to: "@artifact/a/", path: "a", dir: true},
		{name: "cleaned", to: "@artifact/a//b", path: "a/b"},
		{name: "other alias", to: "@repo/a", err: true},
		{name: "no alias", to: "a/b", err: true},
		{name: "dot dot", to: "@artifact/../x", err: true},
		{name: "bare", to: "@artifact", err: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			path, dir, err := parseDestination(tt.to)
			if (err != nil) != tt.err || path != tt.path || dir != tt.dir {
				t.Errorf("parseDestination(%q) = %q, %v, %v", tt.to, path, dir, err)
			}
		})
	}
}

// TestFileLists checks that a plan lists the files of its artifacts only
// when asked (WithFileLists), and counts them either way.
func TestFileLists(t *testing.T) {
	t.Parallel()
	src := sources(tree("tenants/tenant-a/modules/app/manifests/a.yaml=kind: A\n", "tenants/tenant-a/modules/app/manifests/b.yaml=kind: B\n",
		"tenants/tenant-a/namespace-metadata.yaml="+emptyMetadataFile))
	for _, lists := range []bool{false, true} {
		g, errs := Compile(testSpec(), WithUID(testUID), WithNamespace("flux-system"))
		if lists {
			g, errs = Compile(testSpec(), WithUID(testUID), WithNamespace("flux-system"), WithFileLists())
		}
		if len(errs) > 0 {
			t.Fatal(errs.ToAggregate())
		}
		p := mustPlan(t, g, src, nil, (&fakeCluster{}).cluster())
		if len(p.Artifacts) != 1 {
			t.Fatalf("artifacts %+v, errors %v", p.Artifacts, p.Errors.ToAggregate())
		}
		a := p.Artifacts[0]
		var got []string
		for _, f := range a.Files {
			got = append(got, f.Path+"<-"+f.Source.String())
		}
		want := []string(nil)
		if lists {
			want = []string{"a.yaml<-@repo/tenants/tenant-a/modules/app/manifests/a.yaml", "b.yaml<-@repo/tenants/tenant-a/modules/app/manifests/b.yaml"}
		}
		if a.FileCount != 2 || !slices.Equal(got, want) {
			t.Errorf("WithFileLists %v: %d files %q, want 2 files %q", lists, a.FileCount, got, want)
		}
	}
}
