package pathpattern

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// BenchmarkDiscover compares Discover with the approach source-watcher
// takes: walk the whole tree with filepath.WalkDir and test every directory
// against the equivalent regular expression. The trees are built on disk
// once per run of this benchmark (it has sub-benchmarks, so its own body
// runs once), never by plain `go test`.
func BenchmarkDiscover(b *testing.B) {
	root := b.TempDir()
	trees := []struct {
		name    string
		dir     string
		pattern string
		re      string
		build   func(b *testing.B, dir string) int // returns the number of matches
	}{
		{
			name:    "tenants=200,unrelated=2000",
			pattern: "@repo/tenants/{namespace}/modules/{module}",
			re:      `^tenants/(?P<namespace>[^/]+)/modules/(?P<module>[^/]+)$`,
			build:   func(b *testing.B, dir string) int { return buildTenantTree(b, dir, 200, 5, 2000) },
		},
		{
			name:    "tenants=2000,unrelated=20000",
			pattern: "@repo/tenants/{namespace}/modules/{module}",
			re:      `^tenants/(?P<namespace>[^/]+)/modules/(?P<module>[^/]+)$`,
			build:   func(b *testing.B, dir string) int { return buildTenantTree(b, dir, 2000, 5, 20000) },
		},
		{
			name:    "all-match=1000x10",
			pattern: "@repo/{tenant}/{module}",
			re:      `^(?P<tenant>[^/]+)/(?P<module>[^/]+)$`,
			build: func(b *testing.B, dir string) int {
				for t := range 1000 {
					for m := range 10 {
						mkdirs(b, dir, fmt.Sprintf("tenant-%04d/module-%d", t, m))
					}
				}
				return 10000
			},
		},
	}
	for i := range trees {
		tr := &trees[i]
		tr.dir = filepath.Join(root, fmt.Sprint(i))
		want := tr.build(b, tr.dir)
		p := MustParse(tr.pattern)
		re := regexp.MustCompile(tr.re)
		fsys := os.DirFS(tr.dir)
		if ms, errs, err := p.Discover(fsys, nil); err != nil || errs != nil || len(ms) != want {
			b.Fatalf("%s: Discover found %d matches, %v; want %d", tr.name, len(ms), err, want)
		}
		if ms, err := walkRegexp(tr.dir, re); err != nil || len(ms) != want {
			b.Fatalf("%s: baseline found %d matches, %v; want %d", tr.name, len(ms), err, want)
		}
		b.Run(tr.name+"/pathpattern", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, _, err := p.Discover(fsys, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(tr.name+"/walkdir-regexp", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := walkRegexp(tr.dir, re); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// walkRegexp is the baseline: every directory of the tree is read and
// matched against re.
func walkRegexp(root string, re *regexp.Regexp) ([]Match, error) {
	var out []Match
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() || p == root {
			return nil
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		sub := re.FindStringSubmatch(rel)
		if sub == nil {
			return nil
		}
		m := Match{Path: rel, Raw: map[string]string{}, Normalized: map[string]string{}}
		for i, name := range re.SubexpNames()[1:] {
			m.Raw[name] = sub[i+1]
			m.Normalized[name] = strings.ToLower(sub[i+1])
		}
		out = append(out, m)
		return nil
	})
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, err
}

// buildTenantTree writes tenants x modules module directories, each with an
// inputs file and two manifests, beside unrelated directories, and returns
// the number of module directories.
func buildTenantTree(b testing.TB, root string, tenants, modules, unrelated int) int {
	b.Helper()
	for t := range tenants {
		tenant := fmt.Sprintf("tenants/tenant-%04d", t)
		writeFiles(b, root, tenant+"/namespace-metadata.yaml")
		for m := range modules {
			mod := fmt.Sprintf("%s/modules/module-%d", tenant, m)
			writeFiles(b, root, mod+"/applier-inputs.yaml", mod+"/manifests/deploy.yaml", mod+"/manifests/service.yaml")
		}
	}
	for u := range unrelated {
		mkdirs(b, root, fmt.Sprintf("unrelated/group-%03d/dir-%05d", u%100, u))
	}
	return tenants * modules
}
