package generator

import (
	"context"
	"fmt"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/opencontainers/go-digest"

	"github.com/tenantkit/tenantkit/inventory"
	"github.com/tenantkit/tenantkit/nsmeta"
)

// nsArtifactSpec is an upstream-shaped generator whose namespaces read
// their NamespaceMetadata file from the artifact: one artifact per app of a
// tenant, in the tenant's namespace.
func nsArtifactSpec() Spec {
	const dir = "@repo/tenants/{tenant}/apps/{app}"
	return Spec{
		PathPattern: dir,
		Sources:     []SourceReference{{Alias: "repo", Kind: "GitRepository", Name: "monorepo"}},
		Artifacts: []OutputArtifact{{
			Name:      "{app}",
			Namespace: "{tenant}",
			Copy:      []CopyOperation{{From: dir + "/**", To: "@artifact/"}},
		}},
		ServiceAccountName: "flux-operator",
		ManagedNamespaces: &ManagedNamespaces{
			AllowedNames: []string{"true"},
			Prune:        new(false),
			Metadata: &NamespaceMetadata{FromSource: &MetadataFromSource{
				Path:          "@artifact/meta/ns.yaml",
				AllowedLabels: map[string]string{"team": "value.matches('^[a-z]+$')"},
			}},
		},
	}
}

func nsFile(team string) *fstest.MapFile {
	return &fstest.MapFile{Data: []byte(emptyMetadataFile + "metadata:\n  labels:\n    team: " + team + "\n")}
}

func manifest() *fstest.MapFile { return &fstest.MapFile{Data: []byte("kind: Deployment\n")} }

func TestNamespaceMetadataFromArtifact(t *testing.T) {
	t.Parallel()
	nsEntry := func(name string) inventory.Entry {
		return inventory.Entry{APIVersion: namespaceAPIVersion, Kind: namespaceKind, Name: name, Digest: digest.FromString("old " + name)}
	}
	eaEntry := func(ns, name string) inventory.Entry {
		return inventory.Entry{APIVersion: artifactAPIVersion, Kind: artifactKind, Namespace: ns, Name: name, Digest: digest.FromString("old " + ns + name)}
	}
	// tenant-b is the other tenant, which proceeds whatever tenant-a does.
	tenantB := fstest.MapFS{
		"tenants/tenant-b/apps/svc/meta/ns.yaml": nsFile("bees"),
		"tenants/tenant-b/apps/svc/deploy.yaml":  manifest(),
	}
	with := func(files fstest.MapFS) fstest.MapFS {
		out := fstest.MapFS{}
		for k, v := range tenantB {
			out[k] = v
		}
		for k, v := range files {
			out[k] = v
		}
		return out
	}
	previous := []inventory.Entry{nsEntry("tenant-a"), eaEntry("tenant-a", "api"), eaEntry("tenant-a", "web")}
	type want struct {
		labels     map[string]string // tenant-a's namespace; nil: skipped
		artifacts  []string          // ns/name, built
		errors     []string
		skipReason string // of tenant-a's namespace and its tracked artifacts
		apiReason  string // of tenant-a/api, when not its namespace's
		bTeam      string // tenant-b's team label, when not "bees"
	}
	tests := []struct {
		name string
		spec func(*Spec)
		tree fstest.MapFS
		want want
	}{{
		name: "one artifact",
		tree: with(fstest.MapFS{
			"tenants/tenant-a/apps/api/meta/ns.yaml": nsFile("ants"),
			"tenants/tenant-a/apps/api/deploy.yaml":  manifest(),
		}),
		want: want{labels: map[string]string{"team": "ants"}, artifacts: []string{"tenant-a/api", "tenant-b/svc"}},
	}, {
		// Several artifacts in one namespace: the file is the first's, in
		// directory order, as upstream reads it.
		name: "several artifacts, the first's file",
		tree: with(fstest.MapFS{
			"tenants/tenant-a/apps/api/meta/ns.yaml": nsFile("ants"),
			"tenants/tenant-a/apps/api/deploy.yaml":  manifest(),
			"tenants/tenant-a/apps/web/meta/ns.yaml": nsFile("webs"),
			"tenants/tenant-a/apps/web/deploy.yaml":  manifest(),
		}),
		want: want{labels: map[string]string{"team": "ants"}, artifacts: []string{"tenant-a/api", "tenant-a/web", "tenant-b/svc"}},
	}, {
		// The second artifact's file does not count: the first's is
		// missing, and the namespace fails with its artifacts.
		name: "the first artifact lacks the file",
		tree: with(fstest.MapFS{
			"tenants/tenant-a/apps/api/deploy.yaml":  manifest(),
			"tenants/tenant-a/apps/web/meta/ns.yaml": nsFile("webs"),
			"tenants/tenant-a/apps/web/deploy.yaml":  manifest(),
		}),
		want: want{
			artifacts:  []string{"tenant-b/svc"},
			errors:     []string{`spec.managedNamespaces.metadata.fromSource.path | Invalid value | must exist: the NamespaceMetadata file of namespace "tenant-a", in artifact tenant-a/api (directory "tenants/tenant-a/apps/api")`},
			skipReason: "its metadata has errors",
		},
	}, {
		name: "the first artifact fails",
		tree: with(fstest.MapFS{
			// The file is there, but the artifact fails: its big.bin cannot
			// be read.
			"tenants/tenant-a/apps/api/meta/ns.yaml": nsFile("ants"),
			"tenants/tenant-a/apps/api/big.bin":      {Data: make([]byte, maxArtifactFileBytes+1)},
			"tenants/tenant-a/apps/web/meta/ns.yaml": nsFile("webs"),
			"tenants/tenant-a/apps/web/deploy.yaml":  manifest(),
		}),
		want: want{
			artifacts: []string{"tenant-b/svc"},
			errors: []string{
				fmt.Sprintf(`spec.artifacts[0].copy | Invalid value | read tenants/tenant-a/apps/api/big.bin: pathpattern: must be no more than %d bytes`, maxArtifactFileBytes),
				`spec.managedNamespaces.metadata.fromSource.path | Invalid value | namespace "tenant-a" reads its NamespaceMetadata file from artifact tenant-a/api (directory "tenants/tenant-a/apps/api"), which is not built: its files cannot be read`,
			},
			skipReason: "its metadata has errors",
			apiReason:  "its files cannot be read",
		},
	}, {
		// Issue 34: an error of an artifact's file names whose file it is.
		name: "the file over 1 MiB",
		tree: with(fstest.MapFS{
			"tenants/tenant-a/apps/api/meta/ns.yaml": {Data: make([]byte, 2<<20)},
			"tenants/tenant-a/apps/web/deploy.yaml":  manifest(),
		}),
		want: want{
			artifacts: []string{"tenant-b/svc"},
			errors: []string{`spec.managedNamespaces.metadata.fromSource.path | Invalid value | the NamespaceMetadata file of namespace "tenant-a", ` +
				`in artifact tenant-a/api (directory "tenants/tenant-a/apps/api"): read tenants/tenant-a/apps/api/meta/ns.yaml: pathpattern: must be no more than 1048576 bytes`},
			skipReason: "its metadata has errors",
		},
	}, {
		name: "a directory at the path",
		tree: with(fstest.MapFS{
			"tenants/tenant-a/apps/api/meta/ns.yaml/x": nsFile("ants"),
			"tenants/tenant-a/apps/web/deploy.yaml":    manifest(),
		}),
		want: want{
			artifacts:  []string{"tenant-b/svc"},
			errors:     []string{`spec.managedNamespaces.metadata.fromSource.path | Invalid value | must be a file of artifact tenant-a/api (directory "tenants/tenant-a/apps/api"), not a directory`},
			skipReason: "its metadata has errors",
		},
	}, {
		name: "the file refused by the schema",
		tree: with(fstest.MapFS{
			"tenants/tenant-a/apps/api/meta/ns.yaml": nsFile("Ants"),
			"tenants/tenant-a/apps/web/deploy.yaml":  manifest(),
		}),
		want: want{
			artifacts: []string{"tenant-b/svc"},
			errors: []string{`@artifact/meta/ns.yaml:metadata.labels[team] | Invalid value | must satisfy rule "value.matches('^[a-z]+$')"` +
				` (namespace "tenant-a", artifact tenant-a/api (directory "tenants/tenant-a/apps/api"))`},
			skipReason: "its metadata has errors",
		},
	}, {
		// The path renders from the namespace's captures, and is read
		// from its first artifact.
		name: "a path with captures",
		spec: func(s *Spec) { s.ManagedNamespaces.Metadata.FromSource.Path = "@artifact/meta/{tenant}.yaml" },
		tree: with(fstest.MapFS{
			"tenants/tenant-a/apps/api/meta/tenant-a.yaml": nsFile("ants"),
			"tenants/tenant-a/apps/web/meta/tenant-a.yaml": nsFile("webs"),
			"tenants/tenant-b/apps/svc/meta/tenant-b.yaml": nsFile("bees"),
		}),
		want: want{labels: map[string]string{"team": "ants"}, artifacts: []string{"tenant-a/api", "tenant-a/web", "tenant-b/svc"}},
	}, {
		// Two spec.artifacts entries render artifacts in one directory:
		// the first entry's is first.
		name: "two entries, one directory",
		spec: func(s *Spec) {
			extra := s.Artifacts[0]
			extra.Name = "{app}-extra"
			extra.Copy = []CopyOperation{{From: "@repo/extra/**", To: "@artifact/"}}
			s.Artifacts = []OutputArtifact{extra, s.Artifacts[0]}
		},
		tree: with(fstest.MapFS{
			"extra/meta/ns.yaml":                     nsFile("extras"),
			"tenants/tenant-a/apps/api/meta/ns.yaml": nsFile("ants"),
		}),
		want: want{labels: map[string]string{"team": "extras"}, bTeam: "extras",
			artifacts: []string{"tenant-a/api", "tenant-a/api-extra", "tenant-b/svc", "tenant-b/svc-extra"}},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			spec := nsArtifactSpec()
			if tc.spec != nil {
				tc.spec(&spec)
			}
			var plans []*Plan
			for _, workers := range []int{1, 3, 8} {
				plan, err := mustCompile(t, spec, WithConcurrency(workers)).Plan(context.Background(), sources(tc.tree), previous, Cluster{})
				if err != nil {
					t.Fatal(err)
				}
				plans = append(plans, plan)
			}
			plan := plans[0]
			for i, other := range plans[1:] {
				if diff := cmp.Diff(plan, other, cmpopts.IgnoreUnexported(Plan{}), cmpopts.IgnoreFields(Plan{}, "Errors")); diff != "" {
					t.Errorf("plan %d differs with another concurrency (-1 +other):\n%s", i+1, diff)
				}
				if diff := cmp.Diff(errorTriples(plan.Errors), errorTriples(other.Errors)); diff != "" {
					t.Errorf("plan %d's errors differ with another concurrency (-1 +other):\n%s", i+1, diff)
				}
			}
			if diff := cmp.Diff(tc.want.errors, errorTriples(plan.Errors)); diff != "" {
				t.Errorf("Errors (-want +got):\n%s", diff)
			}
			var gotArtifacts []string
			for _, a := range plan.Artifacts {
				gotArtifacts = append(gotArtifacts, a.Namespace+"/"+a.Name)
			}
			if diff := cmp.Diff(tc.want.artifacts, gotArtifacts); diff != "" {
				t.Errorf("Artifacts (-want +got):\n%s", diff)
			}
			labels := map[string]map[string]string{}
			for _, ns := range plan.Namespaces {
				labels[ns.Name] = ns.Labels
			}
			bTeam := tc.want.bTeam
			if bTeam == "" {
				bTeam = "bees"
			}
			wantLabels := map[string]map[string]string{"tenant-b": {"team": bTeam, GeneratorLabel: testUID}}
			if tc.want.labels != nil {
				wantLabels["tenant-a"] = map[string]string{GeneratorLabel: testUID}
				for k, v := range tc.want.labels {
					wantLabels["tenant-a"][k] = v
				}
			}
			if diff := cmp.Diff(wantLabels, labels); diff != "" {
				t.Errorf("namespace labels (-want +got):\n%s", diff)
			}
			if tc.want.skipReason == "" {
				return
			}
			// The failed namespace and its tracked artifacts are skipped,
			// and kept: nothing is deleted for it.
			skipped := map[string]string{}
			for _, d := range plan.Decisions {
				if d.Action == inventory.Skip {
					skipped[d.Entry.ID().String()] = d.Reason
				}
				if d.Action == inventory.Delete {
					t.Errorf("%s deleted", d.Entry.ID())
				}
			}
			nsReason := fmt.Sprintf("namespace %q: %s", "tenant-a", tc.want.skipReason)
			apiReason := nsReason
			if tc.want.apiReason != "" {
				apiReason = tc.want.apiReason
			}
			wantSkipped := map[string]string{
				nsEntry("tenant-a").ID().String():        tc.want.skipReason + "; kept in the inventory",
				eaEntry("tenant-a", "api").ID().String(): apiReason + "; kept in the inventory",
				eaEntry("tenant-a", "web").ID().String(): nsReason + "; kept in the inventory",
			}
			if diff := cmp.Diff(wantSkipped, skipped); diff != "" {
				t.Errorf("skipped (-want +got):\n%s", diff)
			}
			next := map[string]digest.Digest{}
			for _, e := range plan.Next(nil) {
				next[e.ID().String()] = e.Digest
			}
			for _, e := range previous {
				if next[e.ID().String()] != e.Digest {
					t.Errorf("Next: %s = %q, want the tracked %q", e.ID(), next[e.ID().String()], e.Digest)
				}
			}
		})
	}
}

// The metadata file from the artifact is a merged file too: what the
// artifact holds once its copy operations are done.
func TestNamespaceMetadataFromArtifactMerged(t *testing.T) {
	t.Parallel()
	spec := nsArtifactSpec()
	spec.Artifacts[0].Copy = append(spec.Artifacts[0].Copy,
		CopyOperation{From: "@repo/overlay/ns.yaml", To: "@artifact/meta/ns.yaml", Strategy: "Merge"})
	tree := fstest.MapFS{
		"overlay/ns.yaml":                        {Data: []byte("metadata:\n  labels:\n    team: merged\n")},
		"tenants/tenant-a/apps/api/meta/ns.yaml": nsFile("ants"),
	}
	plan, err := mustCompile(t, spec).Plan(context.Background(), sources(tree), nil, Cluster{})
	if err != nil || plan.HasErrors() {
		t.Fatalf("Plan() = %v, %v", err, plan.Errors.ToAggregate())
	}
	want := []Namespace{{
		Name:   "tenant-a",
		Labels: map[string]string{"team": "merged", GeneratorLabel: testUID},
		Origin: nsmeta.Metadata{Labels: map[string]string{"team": "source", GeneratorLabel: "final"}},
	}}
	if diff := cmp.Diff(want, plan.Namespaces, cmpopts.IgnoreFields(Namespace{}, "Digest", "Annotations"), cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("Namespaces (-want +got):\n%s", diff)
	}
}

func TestWalkOrder(t *testing.T) {
	t.Parallel()
	tests := []struct {
		a, b string
		want int
	}{
		{a: "a", b: "a", want: 0},
		{a: "", b: "", want: 0},
		{a: "a", b: "b", want: -1},
		{a: "a/z", b: "a-b/z", want: -1}, // byte order says +1
		{a: "a-b/z", b: "a/z", want: 1},
		{a: "a", b: "a/b", want: -1},
		{a: "a/b", b: "a", want: 1},
		{a: "t/x/y", b: "t/x/z", want: -1},
	}
	for _, tc := range tests {
		if got := walkOrder(tc.a, tc.b); got != tc.want {
			t.Errorf("walkOrder(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}
