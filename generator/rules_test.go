package generator

import (
	"context"
	"io/fs"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/tenantkit/tenantkit/finalizer"
	"github.com/tenantkit/tenantkit/inventory"
)

const okTenant = "tenants/tenant-ok/modules/app"

// TestRule1Skip: an artifact that an error touches is never created or
// updated; it is skipped with the reason, and kept when tracked; valid
// tenants proceed.
func TestRule1Skip(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		spec   func(*Spec)
		files  []string
		skip   []string // subjects skipped
		reason string   // in the reason of every skip
	}{
		{name: "protected namespace", files: []string{"tenants/kube-system/modules/x"}, spec: func(s *Spec) {
			s.ManagedNamespaces.AllowedNames = []string{"true"}
		}, skip: []string{"Namespace/kube-system", "ExternalArtifact/kube-system/x"}, reason: "refused by the name policy"},
		{name: "generator's own namespace", files: []string{"tenants/flux-system/modules/x"}, spec: func(s *Spec) {
			s.ManagedNamespaces.AllowedNames = []string{"true"}
		}, skip: []string{"Namespace/flux-system", "ExternalArtifact/flux-system/x"}, reason: "refused by the name policy"},
		{name: "refused by allowedNames", files: []string{"tenants/team-x/modules/x"},
			skip: []string{"Namespace/team-x", "ExternalArtifact/team-x/x"}, reason: "refused by the name policy"},
		{name: "metadata file fails the schema", files: []string{"tenants/tenant-b/modules/x", "tenants/tenant-b/namespace-metadata.yaml=" + metadataFile("team", "far-too-long-for-the-rule")},
			skip: []string{"Namespace/tenant-b", "ExternalArtifact/tenant-b/x"}, reason: "metadata has errors"},
		{name: "metadata file does not parse", files: []string{"tenants/tenant-b/modules/x", "tenants/tenant-b/namespace-metadata.yaml=kind: [\n"},
			skip: []string{"Namespace/tenant-b", "ExternalArtifact/tenant-b/x"}, reason: "metadata has errors"},
		{name: "namespace case collision", files: []string{"tenants/tenant-b/modules/x", "tenants/Tenant-B/modules/y"},
			skip: []string{"Namespace/tenant-b", "ExternalArtifact/tenant-b/x", "ExternalArtifact/tenant-b/y"}, reason: "collide"},
		{name: "name collision", files: []string{"tenants/tenant-b/modules/x", "tenants/tenant-b/modules/X"},
			skip: []string{"ExternalArtifact/tenant-b/x"}, reason: "renders the same namespace and name"},
		{name: "inputs fail", files: []string{"tenants/tenant-b/modules/x", "tenants/tenant-b/modules/x/inputs.yaml=- a list\n"},
			skip: []string{"ExternalArtifact/tenant-b/x"}, reason: "inputs have errors"},
		{name: "metadata file missing", files: []string{"tenants/tenant-b/modules/x/manifests/a.yaml=kind: A\n"},
			skip: []string{"Namespace/tenant-b", "ExternalArtifact/tenant-b/x"}, reason: "metadata has errors"},
		{name: "copy selects nothing", files: []string{"tenants/tenant-b/modules/x/README.md=x", "tenants/tenant-b/namespace-metadata.yaml=" + emptyMetadataFile},
			skip: []string{"ExternalArtifact/tenant-b/x"}, reason: "copy operations have errors"},
	}
	for _, tt := range tests {
		for _, tracked := range []bool{false, true} {
			name := tt.name
			if tracked {
				name += ", tracked"
			}
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				spec := testSpec()
				if tt.spec != nil {
					tt.spec(&spec)
				}
				g := mustCompile(t, spec)
				var previous []inventory.Entry
				if tracked {
					for _, s := range tt.skip {
						parts := strings.Split(s, "/")
						if parts[0] == "Namespace" {
							previous = append(previous, nsEntry(parts[1]))
						} else {
							previous = append(previous, artEntry(parts[1], parts[2]))
						}
					}
				}
				p := mustPlan(t, g, sources(tree(append(tt.files, okTenant)...)), previous, (&fakeCluster{}).cluster())
				if !p.HasErrors() {
					t.Fatal("no errors")
				}
				ds := decisions(p)
				if d := ds["ExternalArtifact/tenant-ok/app"]; d.Action != inventory.Create {
					t.Errorf("valid tenant: %s, want created", d)
				}
				for _, s := range tt.skip {
					d := ds[s]
					if d.Action != inventory.Skip || !strings.Contains(d.Reason, tt.reason) {
						t.Errorf("%s: %q, want skipped because %q", s, d, tt.reason)
					}
					if tracked != strings.Contains(d.Reason, "kept in the inventory") {
						t.Errorf("%s: reason %q; tracked %v", s, d.Reason, tracked)
					}
				}
				for _, a := range p.Artifacts {
					if slices.Contains(tt.skip, "ExternalArtifact/"+a.Namespace+"/"+a.Name) {
						t.Errorf("skipped artifact %s/%s is built", a.Namespace, a.Name)
					}
				}
				next := map[string]bool{}
				for _, e := range p.Next(func(inventory.Entry) bool { return true }) {
					next[e.ID().String()] = true
				}
				for _, s := range tt.skip {
					if next[s] != tracked {
						t.Errorf("%s in the next inventory: %v, want %v", s, next[s], tracked)
					}
				}
			})
		}
	}
}

func metadataFile(label, value string) string {
	return "apiVersion: source.extensions.fluxcd.io/v1beta1\nkind: NamespaceMetadata\nmetadata:\n  labels:\n    " + label + ": " + value + "\n"
}

// TestRule2Sources: a missing or odd source is an error, and then nothing is
// deleted.
func TestRule2Sources(t *testing.T) {
	t.Parallel()
	good := tree("tenants/tenant-a/modules/app", "README.md=x")
	tests := []struct {
		name    string
		sources map[string]fs.FS
		detail  string
	}{
		{name: "no source for the alias", sources: map[string]fs.FS{}, detail: `alias "repo" has no source`},
		{name: "root is a file", sources: map[string]fs.FS{"repo": mustSub(good, "README.md")}, detail: "root must be a directory"},
		{name: "prefix missing (source one level too deep)", sources: map[string]fs.FS{"repo": mustSub(good, "tenants")}, detail: "directory @repo/tenants of the pattern's fixed prefix must exist (git drops an empty directory: to remove every tenant, keep a placeholder file such as @repo/tenants/.keep"},
		{name: "last tenant removed with its placeholder kept", sources: sources(tree("tenants/.keep=")), detail: ""},
		{name: "prefix is a file", sources: sources(tree("tenants=x")), detail: "must be a directory"},
		{name: "prefix is a symbolic link", sources: sources(fstest.MapFS{
			"tenants": {Data: []byte("tenants-v2"), Mode: 0o777 | fs.ModeSymlink},
			"tenants-v2/tenant-a/modules/app/manifests/a.yaml": {Data: []byte("a")},
		}), detail: "must not be a symbolic link"},
	}
	previous := []inventory.Entry{nsEntry("tenant-a"), artEntry("tenant-a", "app"), nsEntry("tenant-z"), artEntry("tenant-z", "old")}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			g := mustCompile(t, testSpec(), WithAllowDeleteAll())
			p := mustPlan(t, g, tt.sources, previous, (&fakeCluster{}).cluster())
			if tt.detail == "" {
				// The remedy the error names: a placeholder keeps tenants/,
				// and WithAllowDeleteAll lets the plan delete every tenant.
				if p.HasErrors() || len(p.Next(func(inventory.Entry) bool { return true })) != 0 {
					t.Errorf("errors %v, next %v; want every tenant deleted", p.Errors.ToAggregate(), p.Next(nil))
				}
				return
			}
			if !hasError(p.Errors, "spec.pathPattern", tt.detail) {
				t.Errorf("errors %v, want one at spec.pathPattern containing %q", p.Errors.ToAggregate(), tt.detail)
			}
			if next := p.Next(func(inventory.Entry) bool { return true }); len(next) != len(previous) {
				t.Errorf("next inventory %v, want all %d previous entries", next, len(previous))
			}
		})
	}
}

// TestRule3DeletionGuards: deleting every tracked object needs
// WithAllowDeleteAll; WithMaxDeletions caps a pass.
func TestRule3DeletionGuards(t *testing.T) {
	t.Parallel()
	previous := []inventory.Entry{nsEntry("tenant-a"), artEntry("tenant-a", "app"), artEntry("tenant-a", "web")}
	tests := []struct {
		name    string
		files   []string
		opts    []Option
		deletes int
		refused bool
	}{
		{name: "every object, default", files: []string{"tenants/.keep=x"}, refused: true},
		{name: "every object, allowed", files: []string{"tenants/.keep=x"}, opts: []Option{WithAllowDeleteAll()}, deletes: 3},
		{name: "every object, every tenant renamed", files: []string{"tenants/tenant-b/modules/app"}, refused: true},
		{name: "every object, every tenant renamed, allowed", files: []string{"tenants/tenant-b/modules/app"}, opts: []Option{WithAllowDeleteAll()}, deletes: 3},
		{name: "some objects", files: []string{"tenants/tenant-a/modules/app"}, deletes: 1},
		{name: "over the maximum", files: []string{"tenants/.keep=x"}, opts: []Option{WithAllowDeleteAll(), WithMaxDeletions(2)}, refused: true},
		{name: "at the maximum", files: []string{"tenants/tenant-a/modules/app"}, opts: []Option{WithMaxDeletions(1)}, deletes: 1},
		{name: "maximum zero", files: []string{"tenants/tenant-a/modules/app"}, opts: []Option{WithMaxDeletions(0)}, refused: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			g := mustCompile(t, testSpec(), tt.opts...)
			p := mustPlan(t, g, sources(tree(tt.files...)), previous, (&fakeCluster{}).live(previous, nil, nil).cluster())
			deletes, refusals := 0, 0
			for _, d := range p.Decisions {
				switch {
				case d.Action == inventory.Delete:
					deletes++
				case d.Action == inventory.Keep && strings.HasPrefix(d.Reason, "deletion refused: "):
					refusals++
				}
			}
			if tt.refused {
				if !hasError(p.Errors, "spec", "would delete") || deletes != 0 || refusals == 0 || p.Refused == nil {
					t.Errorf("errors %v, %d deletions and %d refusals, refused %v; want the deletion refused", p.Errors.ToAggregate(), deletes, refusals, p.Refused)
				}
				// The error and every reason the refusal wrote say its rule, and name no option.
				want := p.Refused.Rule()
				if !hasError(p.Errors, "spec", want) || strings.Contains(p.Errors.ToAggregate().Error(), "With") {
					t.Errorf("errors %v, want %q", p.Errors.ToAggregate(), want)
				}
				for _, d := range p.Decisions {
					if strings.HasPrefix(d.Reason, "deletion refused: ") && d.Reason != "deletion refused: "+want {
						t.Errorf("decision %s, want the reason %q", d, want)
					}
				}
				return
			}
			if p.HasErrors() || deletes != tt.deletes || p.Refused != nil {
				t.Errorf("errors %v and %d deletions, want %d", p.Errors.ToAggregate(), deletes, tt.deletes)
			}
		})
	}
}

// TestRule4LiveObject: Flux's live-object conventions release; a
// namespace's external finalizer hands it off only when it is a real one.
func TestRule4LiveObject(t *testing.T) {
	t.Parallel()
	const rs = "fluxcd.controlplane.io/v1/ResourceSet/flux-system/tenants/rs-uid"
	rsID := inventory.ID{Group: "fluxcd.controlplane.io", Kind: "ResourceSet", Namespace: "flux-system", Name: "tenants"}
	tests := []struct {
		name        string
		labels      map[string]string
		annotations map[string]string
		opts        []Option
		cluster     func(*fakeCluster)
		action      inventory.Action
		reason      string
	}{
		{name: "nothing", action: inventory.Delete, reason: "no longer desired; no external finalizer"},
		{name: "prune disabled annotation", annotations: map[string]string{"source.extensions.fluxcd.io/prune": "disabled"}, action: inventory.Release, reason: "pruning is disabled"},
		{name: "prune Disabled label", labels: map[string]string{"source.extensions.fluxcd.io/prune": "Disabled"}, action: inventory.Release, reason: "label source.extensions.fluxcd.io/prune: Disabled"},
		{name: "kustomize prune DISABLED", annotations: map[string]string{"kustomize.toolkit.fluxcd.io/prune": "DISABLED"}, action: inventory.Release, reason: "pruning is disabled"},
		{name: "prune enabled", annotations: map[string]string{"source.extensions.fluxcd.io/prune": "enabled"}, action: inventory.Delete},
		{name: "prune empty", annotations: map[string]string{"source.extensions.fluxcd.io/prune": ""}, action: inventory.Delete},
		{name: "other key", annotations: map[string]string{"example.com/prune": "disabled"}, action: inventory.Delete},
		{name: "reconcile disabled", annotations: map[string]string{"source.extensions.fluxcd.io/reconcile": "disabled"}, action: inventory.Release, reason: "reconciliation is disabled"},
		{name: "kustomize reconcile disabled label", labels: map[string]string{"kustomize.toolkit.fluxcd.io/reconcile": "Disabled"}, action: inventory.Release, reason: "reconciliation is disabled"},
		{name: "ssa Ignore", annotations: map[string]string{"source.extensions.fluxcd.io/ssa": "Ignore"}, action: inventory.Release, reason: "server-side apply ignores it"},
		{name: "ssa ignore", annotations: map[string]string{"kustomize.toolkit.fluxcd.io/ssa": "ignore"}, action: inventory.Release, reason: "server-side apply ignores it"},
		{name: "ssa Merge", annotations: map[string]string{"source.extensions.fluxcd.io/ssa": "Merge"}, action: inventory.Delete},
		{name: "another generator's", labels: map[string]string{GeneratorLabel: "uid-b"}, action: inventory.Release, reason: "applied by another generator"},
		{name: "this generator's", labels: map[string]string{GeneratorLabel: testUID}, action: inventory.Delete},
		{name: "handed off", annotations: map[string]string{finalizer.Annotation: rs}, cluster: func(c *fakeCluster) {
			c.uids = map[inventory.ID]string{rsID: "rs-uid"}
		}, action: inventory.Keep, reason: "handed off"},
		{name: "finalizer gone", annotations: map[string]string{finalizer.Annotation: rs}, action: inventory.Delete, reason: "not found"},
		{name: "finalizer recreated", annotations: map[string]string{finalizer.Annotation: rs}, cluster: func(c *fakeCluster) {
			c.uids = map[inventory.ID]string{rsID: "new-uid"}
		}, action: inventory.Delete, reason: `not "rs-uid"`},
		{name: "finalizer self", annotations: map[string]string{finalizer.Annotation: "self"}, action: inventory.Delete, reason: "self"},
		{name: "finalizer malformed", annotations: map[string]string{finalizer.Annotation: "not/a/reference"}, action: inventory.Delete, reason: "malformed external finalizer"},
		{name: "finalizer lookup fails", annotations: map[string]string{finalizer.Annotation: rs}, cluster: func(c *fakeCluster) {
			c.lookupErr = errBoom
		}, action: inventory.Keep, reason: "boom"},
		{name: "finalizer inside the namespace", annotations: map[string]string{finalizer.Annotation: "/v1/ConfigMap/tenant-a/kube-root-ca.crt/cm-uid"}, cluster: func(c *fakeCluster) {
			c.uids = map[inventory.ID]string{{Kind: "ConfigMap", Namespace: "tenant-a", Name: "kube-root-ca.crt"}: "cm-uid"}
		}, action: inventory.Delete, reason: "inside namespace tenant-a itself"},
		{name: "finalizer kind not allowed", annotations: map[string]string{finalizer.Annotation: "/v1/ConfigMap/flux-system/cm/cm-uid"}, opts: []Option{WithFinalizerKinds(schema.GroupKind{Group: "fluxcd.controlplane.io", Kind: "ResourceSet"})}, cluster: func(c *fakeCluster) {
			c.uids = map[inventory.ID]string{{Kind: "ConfigMap", Namespace: "flux-system", Name: "cm"}: "cm-uid"}
		}, action: inventory.Delete, reason: "kind ConfigMap is not allowed"},
		{name: "finalizer kind allowed", annotations: map[string]string{finalizer.Annotation: rs}, opts: []Option{WithFinalizerKinds(schema.GroupKind{Group: "fluxcd.controlplane.io", Kind: "ResourceSet"})}, cluster: func(c *fakeCluster) {
			c.uids = map[inventory.ID]string{rsID: "rs-uid"}
		}, action: inventory.Keep, reason: "handed off"},
		{name: "reading the object fails", cluster: func(c *fakeCluster) {
			c.failing = map[inventory.ID]error{nsEntry("tenant-a").ID(): errBoom}
		}, action: inventory.Keep, reason: "boom"},
		{name: "listing artifacts fails", cluster: func(c *fakeCluster) { c.listErr = errBoom }, action: inventory.Keep, reason: "boom"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			g := mustCompile(t, testSpec(), tt.opts...)
			previous := []inventory.Entry{nsEntry("tenant-ok"), artEntry("tenant-ok", "app"), nsEntry("tenant-a")}
			c := (&fakeCluster{}).live(previous[2:], tt.labels, tt.annotations)
			if tt.cluster != nil {
				tt.cluster(c)
			}
			p := mustPlan(t, g, sources(tree(okTenant)), previous, c.cluster())
			d := decisions(p)["Namespace/tenant-a"]
			if d.Action != tt.action || !strings.Contains(d.Reason, tt.reason) {
				t.Errorf("got %q, want %s with a reason containing %q", d, tt.action, tt.reason)
			}
		})
	}
}

// TestRule4ArtifactExclusions: the conventions apply to every object.
func TestRule4ArtifactExclusions(t *testing.T) {
	t.Parallel()
	g := mustCompile(t, testSpec())
	previous := []inventory.Entry{nsEntry("tenant-ok"), artEntry("tenant-ok", "app"), artEntry("tenant-ok", "old")}
	c := (&fakeCluster{}).live(previous[2:], nil, map[string]string{"kustomize.toolkit.fluxcd.io/prune": "Disabled"})
	p := mustPlan(t, g, sources(tree(okTenant)), previous, c.cluster())
	if d := decisions(p)["ExternalArtifact/tenant-ok/old"]; d.Action != inventory.Release {
		t.Errorf("got %q, want released", d)
	}
}

// TestRule6InputsOnlyChange: the digest covers the exported inputs.
func TestRule6InputsOnlyChange(t *testing.T) {
	t.Parallel()
	g := mustCompile(t, testSpec())
	first := mustPlan(t, g, sources(tree(okTenant, okTenant+"/inputs.yaml=tag: 1.0\n")), nil, (&fakeCluster{}).cluster())
	previous := first.Next(nil)
	tests := []struct {
		name   string
		inputs string
		action inventory.Action
	}{
		{name: "same inputs", inputs: "tag: 1.0\n", action: inventory.Unchanged},
		{name: "same inputs, other formatting", inputs: "# a comment\ntag:   1.0\n", action: inventory.Unchanged},
		{name: "tag bumped", inputs: "tag: 1.1\n", action: inventory.Update},
		{name: "input added", inputs: "tag: 1.0\nreplicas: 2\n", action: inventory.Update},
		{name: "inputs removed", inputs: "", action: inventory.Update},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			files := []string{okTenant}
			if tt.inputs != "" {
				files = append(files, okTenant+"/inputs.yaml="+tt.inputs)
			}
			p := mustPlan(t, g, sources(tree(files...)), previous, (&fakeCluster{}).cluster())
			if d := decisions(p)["ExternalArtifact/tenant-ok/app"]; d.Action != tt.action {
				t.Errorf("got %q, want %s", d, tt.action)
			}
		})
	}
}

// TestRule7Collision: two spec.artifacts entries that render one
// namespace and name are one error naming both directories.
func TestRule7Collision(t *testing.T) {
	t.Parallel()
	spec := testSpec()
	second := spec.Artifacts[0]
	second.Name = "app"
	spec.Artifacts = append(spec.Artifacts, second)
	g := mustCompile(t, spec)
	p := mustPlan(t, g, sources(tree("tenants/tenant-a/modules/app", "tenants/tenant-a/modules/web")), nil, (&fakeCluster{}).cluster())
	var dups []string
	for _, e := range p.Errors {
		if e.Type == "FieldValueDuplicate" {
			dups = append(dups, e.Field+": "+e.Detail)
		}
	}
	want := []string{
		`spec.artifacts[1].name: directories "tenants/tenant-a/modules/app" (spec.artifacts[0]) and "tenants/tenant-a/modules/app" (spec.artifacts[1]) render the same namespace "tenant-a" and name "app"`,
		`spec.artifacts[1].name: directories "tenants/tenant-a/modules/app" (spec.artifacts[0]) and "tenants/tenant-a/modules/web" (spec.artifacts[1]) render the same namespace "tenant-a" and name "app"`,
	}
	if !slices.Equal(dups, want) {
		t.Errorf("duplicate errors:\n%s\nwant:\n%s", strings.Join(dups, "\n"), strings.Join(want, "\n"))
	}
	if d := decisions(p)["ExternalArtifact/tenant-a/app"]; d.Action != inventory.Skip {
		t.Errorf("got %q, want skipped", d)
	}
	if d := decisions(p)["ExternalArtifact/tenant-a/web"]; d.Action != inventory.Create {
		t.Errorf("got %q, want created", d)
	}
}

// TestRule8NamespaceStillUsed: a namespace is deleted only when no
// ExternalArtifact lives in it any more, other than those this pass deletes.
func TestRule8NamespaceStillUsed(t *testing.T) {
	t.Parallel()
	ours := artEntry("tenant-a", "app")
	theirs := artEntry("tenant-a", "other")
	tests := []struct {
		name   string
		live   func(c *fakeCluster)
		action inventory.Action
		reason string
	}{
		{name: "ours deleted in the same pass", live: func(c *fakeCluster) {
			c.live([]inventory.Entry{ours}, map[string]string{GeneratorLabel: testUID}, nil)
		}, action: inventory.Delete},
		{name: "ours released (prune disabled)", live: func(c *fakeCluster) {
			c.live([]inventory.Entry{ours}, map[string]string{GeneratorLabel: testUID}, map[string]string{"source.extensions.fluxcd.io/prune": "disabled"})
		}, action: inventory.Keep, reason: "ExternalArtifact tenant-a/app"},
		{name: "another generator's", live: func(c *fakeCluster) {
			c.live([]inventory.Entry{ours}, nil, nil)
			c.live([]inventory.Entry{theirs}, map[string]string{GeneratorLabel: "uid-b"}, nil)
		}, action: inventory.Keep, reason: "generator uid-b's"},
		{name: "untracked", live: func(c *fakeCluster) {
			c.live([]inventory.Entry{theirs}, nil, nil)
		}, action: inventory.Keep, reason: "not tracked by this generator"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			g := mustCompile(t, testSpec())
			previous := []inventory.Entry{nsEntry("tenant-ok"), artEntry("tenant-ok", "app"), nsEntry("tenant-a"), ours}
			c := (&fakeCluster{}).live([]inventory.Entry{nsEntry("tenant-a")}, map[string]string{GeneratorLabel: testUID}, nil)
			tt.live(c)
			p := mustPlan(t, g, sources(tree(okTenant)), previous, c.cluster())
			d := decisions(p)["Namespace/tenant-a"]
			if d.Action != tt.action || !strings.Contains(d.Reason, tt.reason) {
				t.Errorf("got %q, want %s with a reason containing %q", d, tt.action, tt.reason)
			}
		})
	}
}

// TestRule4Forbidden: a finalizer lookup that the cluster forbids keeps
// the namespace, with the reason naming the missing permission.
func TestRule4Forbidden(t *testing.T) {
	t.Parallel()
	g := mustCompile(t, testSpec())
	previous := []inventory.Entry{nsEntry("tenant-ok"), artEntry("tenant-ok", "app"), nsEntry("tenant-a")}
	c := (&fakeCluster{lookupErr: finalizer.ErrForbidden}).live(previous[2:], nil, map[string]string{finalizer.Annotation: "fluxcd.controlplane.io/v1/ResourceSet/flux-system/tenants/rs-uid"})
	p := mustPlan(t, g, sources(tree(okTenant)), previous, c.cluster())
	if d := decisions(p)["Namespace/tenant-a"]; d.Action != inventory.Keep || !strings.Contains(d.Reason, "forbidden") {
		t.Errorf("got %q, want kept with the forbidden lookup as the reason", d)
	}
}

// TestUnmanagedReleasesNamespaces: a spec without managedNamespaces
// releases the namespaces an earlier spec managed.
func TestUnmanagedReleasesNamespaces(t *testing.T) {
	t.Parallel()
	spec := testSpec()
	spec.ManagedNamespaces = nil
	g := mustCompile(t, spec)
	previous := []inventory.Entry{nsEntry("tenant-ok"), artEntry("tenant-ok", "app"), nsEntry("tenant-a")}
	p := mustPlan(t, g, sources(tree(okTenant)), previous, (&fakeCluster{}).live(previous, nil, nil).cluster())
	if d := decisions(p)["Namespace/tenant-a"]; d.Action != inventory.Release {
		t.Errorf("got %q, want released", d)
	}
	if d := decisions(p)["Namespace/tenant-ok"]; d.Action != inventory.Keep {
		t.Errorf("got %q, want kept: an artifact lives in it", d)
	}
}

// TestInvalidPrevious: a previous inventory that does not validate is an
// error at "old[i]"; every desired object is decided and recorded as usual
// (against the valid entry with its identity), every tracked entry not
// desired is kept as it is, invalid ones included, nothing is deleted and
// no stale object is read (see the package documentation, "Previous
// inventory").
func TestInvalidPrevious(t *testing.T) {
	t.Parallel()
	g := mustCompile(t, testSpec())
	src := sources(tree(okTenant))
	refPlan := mustPlan(t, g, src, nil, Cluster{})
	// Namespace/tenant-ok, ExternalArtifact/tenant-ok/app
	ns, app := refPlan.Decisions[0].Entry, refPlan.Decisions[1].Entry
	liveNS := Object{ID: ns.ID(), Labels: refPlan.Namespaces[0].Labels, Annotations: refPlan.Namespaces[0].Annotations}
	bad := func(e inventory.Entry) inventory.Entry { e.Digest = "sha256:abc"; return e }
	other := func(e inventory.Entry) inventory.Entry { e.Digest = nsEntry("x").Digest; return e }
	const (
		keptValid   = "the previous inventory has errors; nothing is deleted"
		keptInvalid = "the previous inventory has errors; this entry does not validate and is kept as it is"
		badDigest   = `Invalid value: "sha256:abc": must be "sha256:" followed by 64 lower-case hex characters`
	)
	tests := []struct {
		name      string
		previous  []inventory.Entry
		decisions []inventory.Decision
		errors    []string // "field: detail"
		next      []inventory.Entry
	}{
		{
			name:     "an identity twice, not desired",
			previous: []inventory.Entry{nsEntry("tenant-a"), other(nsEntry("tenant-a"))},
			decisions: []inventory.Decision{
				{Entry: ns, Action: inventory.Create},
				{Entry: app, Action: inventory.Create},
				{Entry: nsEntry("tenant-a"), Action: inventory.Keep, Reason: keptValid},
				{Entry: other(nsEntry("tenant-a")), Action: inventory.Keep, Reason: keptInvalid},
			},
			errors: []string{`old[1]: Duplicate value: "Namespace/tenant-a"`},
			next:   []inventory.Entry{nsEntry("tenant-a"), other(nsEntry("tenant-a")), ns, app},
		},
		{
			name:     "a malformed digest on a desired object",
			previous: []inventory.Entry{bad(ns), app},
			decisions: []inventory.Decision{
				{Entry: ns, Action: inventory.Create},
				{Entry: app, Action: inventory.Unchanged},
			},
			errors: []string{"old[0].digest: " + badDigest},
			next:   []inventory.Entry{ns, app},
		},
		{
			name:     "a desired identity twice",
			previous: []inventory.Entry{other(ns), ns, app},
			decisions: []inventory.Decision{
				{Entry: ns, Action: inventory.Update},
				{Entry: app, Action: inventory.Unchanged},
			},
			errors: []string{`old[1]: Duplicate value: "Namespace/tenant-ok"`},
			next:   []inventory.Entry{ns, app},
		},
		{
			name: "stale objects, valid and not",
			previous: []inventory.Entry{nsEntry("tenant-z"), artEntry("tenant-z", "old"), bad(artEntry("tenant-y", "old")),
				ns, app},
			decisions: []inventory.Decision{
				{Entry: ns, Action: inventory.Unchanged},
				{Entry: app, Action: inventory.Unchanged},
				{Entry: artEntry("tenant-z", "old"), Action: inventory.Keep, Reason: keptValid},
				{Entry: bad(artEntry("tenant-y", "old")), Action: inventory.Keep, Reason: keptInvalid},
				{Entry: nsEntry("tenant-z"), Action: inventory.Keep, Reason: keptValid},
			},
			errors: []string{"old[2].digest: " + badDigest},
			next: []inventory.Entry{ns, nsEntry("tenant-z"), app, bad(artEntry("tenant-y", "old")),
				artEntry("tenant-z", "old")},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			// Live copies that would let every stale object be deleted; a
			// read of one fails the test.
			c := &fakeCluster{objects: map[inventory.ID]Object{ns.ID(): liveNS}}
			cl := c.cluster()
			cl.Objects = ObjectReaderFunc(func(ctx context.Context, id inventory.ID) (Object, error) {
				if id != ns.ID() && id != app.ID() {
					t.Errorf("read %s", id)
				}
				return c.Object(ctx, id)
			})
			p := mustPlan(t, g, src, tt.previous, cl)
			if diff := cmp.Diff(tt.decisions, p.Decisions); diff != "" {
				t.Errorf("decisions (-want +got):\n%s", diff)
			}
			var errs []string
			for _, e := range p.Errors {
				errs = append(errs, e.Error())
			}
			if diff := cmp.Diff(tt.errors, errs); diff != "" {
				t.Errorf("errors (-want +got):\n%s", diff)
			}
			// Nothing is deleted, so what deleted confirms changes nothing.
			for _, confirm := range []func(inventory.Entry) bool{nil, func(inventory.Entry) bool { return true }} {
				if diff := cmp.Diff(asStatus(tt.next...), p.Next(confirm)); diff != "" {
					t.Errorf("next (-want +got):\n%s", diff)
				}
			}
		})
	}
}

// TestCancelled: a plan whose context ends returns the context's error.
func TestCancelled(t *testing.T) {
	t.Parallel()
	g := mustCompile(t, testSpec())
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if p, err := g.Plan(ctx, sources(tree(okTenant)), nil, (&fakeCluster{}).cluster()); err == nil || p != nil {
		t.Errorf("Plan(cancelled) = %v, %v", p, err)
	}
}

// TestStrictFile checks that a tenant's file is read as source-watcher's
// published schema says, with or without WithStrict: the type fields are
// required and an unknown field is an error, which refuses the namespace.
func TestStrictFile(t *testing.T) {
	t.Parallel()
	files := []string{okTenant, "tenants/tenant-ok/namespace-metadata.yaml=spec: {}\nmetadata:\n  labels:\n    team: payments\n"}
	for _, opts := range [][]Option{nil, {WithStrict()}} {
		p := mustPlan(t, mustCompile(t, testSpec(), opts...), sources(tree(files...)), nil, (&fakeCluster{}).cluster())
		for _, f := range []string{"apiVersion", "kind", "spec"} {
			if !hasError(p.Errors, "@repo/tenants/tenant-ok/namespace-metadata.yaml:"+f, "") {
				t.Errorf("options %d: errors %v, want one at %s", len(opts), p.Errors.ToAggregate(), f)
			}
		}
		if d := decisions(p)["Namespace/tenant-ok"]; d.Action != inventory.Skip {
			t.Errorf("options %d: got %q, want skipped", len(opts), d)
		}
	}
}

// TestOptions covers the options that shape what a plan applies.
func TestOptions(t *testing.T) {
	t.Parallel()
	files := []string{okTenant, okTenant + "/inputs.yaml=a: 1\n", "tenants/tenant-ok/namespace-metadata.yaml=" + metadataFile("unlisted", "x")}
	tests := []struct {
		name  string
		opts  []Option
		check func(t *testing.T, p *Plan)
	}{
		{name: "unlisted key is a warning", check: func(t *testing.T, p *Plan) {
			if p.HasErrors() || len(p.Warnings) != 1 {
				t.Errorf("errors %v, warnings %q", p.Errors.ToAggregate(), p.Warnings)
			}
		}},
		{name: "WithStrict: unlisted key is an error", opts: []Option{WithStrict()}, check: func(t *testing.T, p *Plan) {
			if !hasError(p.Errors, "@repo/tenants/tenant-ok/namespace-metadata.yaml:metadata.labels[unlisted]", "") {
				t.Errorf("errors %v", p.Errors.ToAggregate())
			}
			if d := decisions(p)["Namespace/tenant-ok"]; d.Action != inventory.Skip {
				t.Errorf("got %q, want skipped", d)
			}
		}},
		{name: "WithFinalMetadata", opts: []Option{WithFinalMetadata(map[string]string{"app.kubernetes.io/managed-by": "source-watcher"}, map[string]string{"example.com/owner": "platform"})}, check: func(t *testing.T, p *Plan) {
			ns, a := p.Namespaces[0], p.Artifacts[0]
			if ns.Labels["app.kubernetes.io/managed-by"] != "source-watcher" || ns.Origin.Labels["app.kubernetes.io/managed-by"] != "final" ||
				ns.Annotations["example.com/owner"] != "platform" || a.Labels["app.kubernetes.io/managed-by"] != "source-watcher" || a.Labels[GeneratorLabel] != testUID {
				t.Errorf("namespace %+v, artifact labels %v", ns, a.Labels)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			g := mustCompile(t, testSpec(), tt.opts...)
			tt.check(t, mustPlan(t, g, sources(tree(files...)), nil, (&fakeCluster{}).cluster()))
		})
	}
}
