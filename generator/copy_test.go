package generator

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/tenantkit/tenantkit/pathpattern"
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
			earlier := newArtifactTree()
			for _, e := range tt.earlier {
				if err := earlier.put(&artifactFile{dest: e}); err != nil {
					t.Fatal(err)
				}
			}
			var got []string
			for _, f := range tt.files {
				got = append(got, destination(to, dir, tt.pattern, f, earlier.isDir))
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// TestRule9EscapedOtherByte pins that a backslash before a byte other than a glob character
// stays in the path a literal pattern names, as doublestar's Glob (so pathpattern.Glob) looks it
// up: the file Glob returns for `m/a\b.yaml` is "m/a\b.yaml", and it lands at to.
func TestRule9EscapedOtherByte(t *testing.T) {
	t.Parallel()
	fsys := fstest.MapFS{`m/a\b.yaml`: {Data: []byte("x")}, "m/ab.yaml": {Data: []byte("y")}}
	files, _, err := pathpattern.Glob(t.Context(), fsys, `m/a\b.yaml`)
	if err != nil || !slices.Equal(files, []string{`m/a\b.yaml`}) {
		t.Fatalf("Glob = %q, %v", files, err)
	}
	if got := destination("x.yaml", false, `m/a\b.yaml`, files[0], func(string) bool { return false }); got != "x.yaml" {
		t.Errorf("destination = %q, want x.yaml", got)
	}
	if got, err := archivesOf(`m/a\b.tgz`, []string{`m/a\b.tgz`}); err != nil || !slices.Equal(got, []string{`m/a\b.tgz`}) {
		t.Errorf("archivesOf = %q, %v", got, err)
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
		{name: "dot dot that cleans away", to: "@artifact/x/..", err: true},
		{name: "dot is the root", to: "@artifact/.", dir: true},
		{name: "dot slash is the root", to: "@artifact/./", dir: true},
		{name: "dot in a path", to: "@artifact/./a/./b", path: "a/b"},
		{name: "absolute", to: "@artifact//a", err: true},
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

// copyCase is one artifact built from sources by copy operations, with the
// files it must hold (destination to content, checked through the
// artifact's digest, which covers both) and, optionally, their sources and
// its inputs; or the errors it must have, when wantErrs is set.
type copyCase struct {
	name       string
	sources    map[string]fstest.MapFS // by alias
	copies     []CopyOperation
	inputsFrom string
	want       map[string]string // destination: content
	wantSource map[string]string // destination: File.Source, when set
	wantInputs string            // the inputs as JSON, when set
	wantWarn   []string
	wantErrs   []copyErr
}

// copyErr is an expected error: its field, type and value, and a piece of
// its detail that names the rule.
type copyErr struct {
	Field  string
	Type   field.ErrorType
	Value  string
	Detail string
}

// copySpec is a spec without a pattern, as source-watcher's builder tests
// build one artifact: "app" in flux-system, from the given sources.
func copySpec(c copyCase) Spec {
	var srcs []SourceReference
	for _, alias := range sortedKeys(c.sources) {
		srcs = append(srcs, SourceReference{Alias: alias, Kind: "GitRepository", Name: alias})
	}
	return Spec{
		Sources:   srcs,
		Artifacts: []OutputArtifact{{Name: "app", InputsFrom: c.inputsFrom, Copy: c.copies}},
	}
}

func runCopyCase(t *testing.T, c copyCase, spec Spec) {
	t.Helper()
	g := mustCompile(t, spec)
	srcs := map[string]fs.FS{}
	for alias, fsys := range c.sources {
		srcs[alias] = fsys
	}
	p := mustPlan(t, g, srcs, nil, (&fakeCluster{}).cluster())
	if c.wantErrs != nil {
		var got []copyErr
		for _, e := range p.Errors {
			ce := copyErr{Field: e.Field, Type: e.Type, Value: fmt.Sprint(e.BadValue)}
			for _, w := range c.wantErrs {
				if w.Field == ce.Field && strings.Contains(e.Detail, w.Detail) {
					ce.Detail = w.Detail
				}
			}
			got = append(got, ce)
		}
		if diff := cmp.Diff(c.wantErrs, got); diff != "" {
			t.Errorf("errors (-want +got):\n%s\n%v", diff, p.Errors.ToAggregate())
		}
		if len(p.Artifacts) != 0 {
			t.Errorf("artifacts %+v, want none", p.Artifacts)
		}
		if diff := cmp.Diff(c.wantWarn, p.Warnings); diff != "" {
			t.Errorf("warnings (-want +got):\n%s", diff)
		}
		return
	}
	if p.HasErrors() || len(p.Artifacts) != 1 {
		t.Fatalf("errors %v, artifacts %+v", p.Errors.ToAggregate(), p.Artifacts)
	}
	a := p.Artifacts[0]
	var paths []string
	sources := map[string]string{}
	for _, f := range a.Files {
		paths = append(paths, f.Path)
		sources[f.Path] = f.Source.String()
	}
	if diff := cmp.Diff(sortedKeys(c.want), paths); diff != "" {
		t.Errorf("files (-want +got):\n%s", diff)
	}
	if c.wantSource != nil {
		if diff := cmp.Diff(c.wantSource, sources); diff != "" {
			t.Errorf("sources (-want +got):\n%s", diff)
		}
	}
	// Inputs is the object byte for byte, nil when there is none, and
	// reads back as the map it was written from.
	if string(a.Inputs) != c.wantInputs || (c.wantInputs == "" && a.Inputs != nil) {
		t.Errorf("Inputs %#q, want %#q", a.Inputs, c.wantInputs)
	}
	var inputs map[string]json.RawMessage
	if c.wantInputs != "" {
		var err error
		if inputs, err = ReadExportedInputs(a.Inputs); err != nil {
			t.Fatal(err)
		}
		if again, _ := json.Marshal(inputs); string(again) != c.wantInputs {
			t.Errorf("Inputs read back and written again: %s, want %s", again, c.wantInputs)
		}
	}
	d := newDigester()
	for _, name := range sortedKeys(c.want) {
		d.file(name, []byte(c.want[name]))
	}
	d.inputs(inputs)
	if want := d.sum(); a.Digest != want {
		t.Errorf("digest %s, want %s: the files' contents differ from %q", a.Digest, want, c.want)
	}
	if diff := cmp.Diff(c.wantWarn, p.Warnings); diff != "" {
		t.Errorf("warnings (-want +got):\n%s", diff)
	}
}

// TestCopyDestinationCaptures: a copy's to names captures, rendered from
// the raw ones, as upstream renders it; a rendered to that is no
// destination is an error of that artifact, naming its directory. (A
// capture is one directory name, a valid label value, so it cannot render
// "." or ".."; what it can render is a path too long.)
func TestCopyDestinationCaptures(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("m", 63)
	longTo := "@artifact/" + strings.Repeat("{module}", 100) + "/"
	tests := []struct {
		name     string
		to       string
		files    []string
		want     []string
		wantErrs []copyErr
	}{
		{name: "raw captures, not normalized", to: "@artifact/{namespace}/{module}/",
			files: []string{"tenants/tenant-a/modules/App/manifests/a.yaml=a"},
			want:  []string{"tenant-a/App/a.yaml"}},
		{name: "a capture within a name", to: "@artifact/out-{module}.d/",
			files: []string{"tenants/tenant-a/modules/app/manifests/a.yaml=a"},
			want:  []string{"out-app.d/a.yaml"}},
		{name: "a capture to a file name", to: "@artifact/{module}.yaml",
			files: []string{"tenants/tenant-a/modules/app/manifests/a.yaml=a"},
			want:  []string{"app.yaml/a.yaml"}},
		{name: "too long once rendered", to: longTo,
			files: []string{"tenants/tenant-a/modules/" + long + "/manifests/a.yaml=a", "tenants/tenant-b/modules/app/manifests/a.yaml=a"},
			want:  []string{strings.Repeat("app", 100) + "/a.yaml"},
			wantErrs: []copyErr{{Field: "spec.artifacts[0].copy[0].to", Type: field.ErrorTypeInvalid,
				Value: "@artifact/" + strings.Repeat(long, 100) + "/", Detail: `rendered from directory "tenants/tenant-a/modules/` + long + `"`}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			spec := testSpec()
			spec.ManagedNamespaces = nil
			spec.Artifacts[0].InputsFrom = ""
			spec.Artifacts[0].Copy[0].To = tt.to
			g := mustCompile(t, spec)
			p := mustPlan(t, g, sources(tree(tt.files...)), nil, (&fakeCluster{}).cluster())
			var got []string
			for _, a := range p.Artifacts {
				for _, f := range a.Files {
					got = append(got, f.Path)
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("files (-want +got):\n%s\nerrors: %v", diff, p.Errors.ToAggregate())
			}
			var errs []copyErr
			for _, e := range p.Errors {
				ce := copyErr{Field: e.Field, Type: e.Type, Value: fmt.Sprint(e.BadValue)}
				for _, w := range tt.wantErrs {
					if strings.Contains(e.Detail, w.Detail) {
						ce.Detail = w.Detail
					}
				}
				errs = append(errs, ce)
			}
			if diff := cmp.Diff(tt.wantErrs, errs); diff != "" {
				t.Errorf("errors (-want +got):\n%s\n%v", diff, p.Errors.ToAggregate())
			}
		})
	}
}

// TestCopyConflicts: a file cannot land where the artifact has a
// directory, nor below one of its files, as writing it into upstream's
// staging directory fails.
func TestCopyConflicts(t *testing.T) {
	t.Parallel()
	text := func(s string) *fstest.MapFile { return &fstest.MapFile{Data: []byte(s)} }
	tests := []copyCase{
		{
			name:    "a file below an earlier file",
			sources: map[string]fstest.MapFS{"repo": {"a": text("file"), "d/b": text("b")}},
			copies:  []CopyOperation{{From: "@repo/a", To: "@artifact/x"}, {From: "@repo/d/**", To: "@artifact/x/"}},
			wantErrs: []copyErr{{Field: "spec.artifacts[0].copy[1].from", Type: field.ErrorTypeInvalid, Value: "@repo/d/b",
				Detail: `landing at "x/b": "x" is a file of the artifact, not a directory`}},
		},
		{
			name:    "a file onto an earlier directory",
			sources: map[string]fstest.MapFS{"repo": {"x/b": text("b"), "y/x": text("x")}},
			copies:  []CopyOperation{{From: "@repo/x/b", To: "@artifact/x/"}, {From: "@repo/y/**", To: "@artifact/"}},
			wantErrs: []copyErr{{Field: "spec.artifacts[0].copy[1].from", Type: field.ErrorTypeInvalid, Value: "@repo/y/x",
				Detail: `landing at "x": "x" is a directory of the artifact`}},
		},
		{
			name:    "a single file into an earlier directory",
			sources: map[string]fstest.MapFS{"repo": {"x/b": text("b"), "c": text("c")}},
			copies:  []CopyOperation{{From: "@repo/x/b", To: "@artifact/x/"}, {From: "@repo/c", To: "@artifact/x"}},
			want:    map[string]string{"x/b": "b", "x/c": "c"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			runCopyCase(t, tt, copySpec(tt))
		})
	}
}

// TestCopySkipped: a symbolic link or an irregular file that a copy would
// take is left out of the artifact, and a warning names it, the artifact
// and why (issue 38, item 8: they were left out without a word), once per
// entry, sorted. What an exclude pattern removes is not named; an Extract
// names only what it could have extracted.
func TestCopySkipped(t *testing.T) {
	t.Parallel()
	text := func(s string) *fstest.MapFile { return &fstest.MapFile{Data: []byte(s)} }
	link := func(to string) *fstest.MapFile { return &fstest.MapFile{Data: []byte(to), Mode: fs.ModeSymlink} }
	pipe := &fstest.MapFile{Mode: fs.ModeNamedPipe}
	repo := fstest.MapFS{
		"m/a.yaml":         text("a"),
		"m/link.yaml":      link("a.yaml"),
		"m/pipe.yaml":      pipe,
		"m/sub/b.yaml":     text("b"),
		"m/sub/dev":        {Mode: fs.ModeDevice},
		"m/linkdir":        link("sub"),
		"x/m":              link("../m"),
		"odd/a.yaml":       text("a"),
		"odd/x\ny.yaml":    link("a.yaml"),
		"tars/real.tgz":    {Data: tgz(t, tarEntry{name: "r.yaml", body: "r"})},
		"tars/link.tgz":    link("real.tgz"),
		"tars/pipe.tar.gz": pipe,
		"tars/notes.txt":   link("real.tgz"),
		"tars/fifo.txt":    pipe,
	}
	left := func(path, why string) string {
		return "@repo/" + path + ": left out of artifact flux-system/app: " + why
	}
	const linkWhy, irregular = "a symbolic link", "not a regular file"
	tests := []copyCase{
		{
			name:     "a directory's links, pipe and device",
			copies:   []CopyOperation{{From: "@repo/m/**", To: "@artifact/"}},
			want:     map[string]string{"a.yaml": "a", "sub/b.yaml": "b"},
			wantWarn: []string{left("m/link.yaml", linkWhy), left("m/linkdir", linkWhy), left("m/pipe.yaml", irregular), left("m/sub/dev", irregular)},
		},
		{
			name:     "the same entries left out by two copies",
			copies:   []CopyOperation{{From: "@repo/m", To: "@artifact/"}, {From: "@repo/m/*.yaml", To: "@artifact/"}},
			want:     map[string]string{"m/a.yaml": "a", "m/sub/b.yaml": "b"},
			wantWarn: []string{left("m/link.yaml", linkWhy), left("m/linkdir", linkWhy), left("m/pipe.yaml", irregular), left("m/sub/dev", irregular)},
		},
		{
			name:     "excluded entries",
			copies:   []CopyOperation{{From: "@repo/m/**", To: "@artifact/", Exclude: []string{"link*", "pipe.yaml"}}},
			want:     map[string]string{"a.yaml": "a", "sub/b.yaml": "b"},
			wantWarn: []string{left("m/sub/dev", irregular)},
		},
		{
			name:     "a link named by an optional copy",
			copies:   []CopyOperation{{From: "@repo/m/a.yaml", To: "@artifact/"}, {From: "@repo/m/link.yaml", To: "@artifact/", Optional: true}},
			want:     map[string]string{"a.yaml": "a"},
			wantWarn: []string{left("m/link.yaml", linkWhy)},
		},
		{
			name:   "a link in the prefix",
			copies: []CopyOperation{{From: "@repo/x/m/**", To: "@artifact/"}},
			wantErrs: []copyErr{{Field: "spec.artifacts[0].copy[0].from", Type: field.ErrorTypeInvalid, Value: "@repo/x/m/**",
				Detail: "selects no file"}},
			wantWarn: []string{left("x/m", linkWhy)},
		},
		{
			name:     "a name that would break the line",
			copies:   []CopyOperation{{From: "@repo/odd/**", To: "@artifact/"}},
			want:     map[string]string{"a.yaml": "a"},
			wantWarn: []string{`"@repo/odd/x\ny.yaml": left out of artifact flux-system/app: a symbolic link`},
		},
		{
			// A link or a pipe named as a tarball, not what Extract
			// passes by anyway.
			name:     "Extract",
			copies:   []CopyOperation{{From: "@repo/tars/*", To: "@artifact/", Strategy: "Extract"}},
			want:     map[string]string{"r.yaml": "r"},
			wantWarn: []string{left("tars/link.tgz", linkWhy), left("tars/pipe.tar.gz", irregular)},
		},
		{
			name:   "Extract of a link",
			copies: []CopyOperation{{From: "@repo/tars/link.tgz", To: "@artifact/", Strategy: "Extract"}},
			wantErrs: []copyErr{{Field: "spec.artifacts[0].copy[0].from", Type: field.ErrorTypeInvalid, Value: "@repo/tars/link.tgz",
				Detail: "selects no file"}},
			wantWarn: []string{left("tars/link.tgz", linkWhy)},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tt.sources = map[string]fstest.MapFS{"repo": repo}
			runCopyCase(t, tt, copySpec(tt))
		})
	}
}

// TestArtifactTreeHeld: the merged and extracted content an artifact holds
// is bounded; replacing a file frees what it held.
func TestArtifactTreeHeld(t *testing.T) {
	t.Parallel()
	tr := newArtifactTree()
	half := make([]byte, maxHeldBytes/2)
	for _, dest := range []string{"a", "b", "a"} {
		if err := tr.put(&artifactFile{dest: dest, data: half, own: true}); err != nil {
			t.Fatalf("put(%s) = %v", dest, err)
		}
	}
	if err := tr.put(&artifactFile{dest: "c", data: []byte{1}, own: true}); err == nil {
		t.Fatalf("put past the bound: no error, %d bytes held", tr.held)
	}
	if err := tr.put(&artifactFile{dest: "b", src: pathpattern.Ref{Alias: "repo", Path: "b"}}); err != nil {
		t.Fatal(err)
	}
	if err := tr.put(&artifactFile{dest: "c", data: []byte{1}, own: true}); err != nil || tr.held != maxHeldBytes/2+1 {
		t.Fatalf("put after freeing = %v, %d bytes held", err, tr.held)
	}
}
