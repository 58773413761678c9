// Command plan previews what a tenant-provisioning ArtifactGenerator would
// do with a monorepo: the namespaces it would manage with their metadata,
// the artifacts it would generate, and the changes against a previous
// inventory, including what garbage collection would delete, release, keep
// or skip. The rules are package generator's; this program parses flags,
// reads files and prints.
//
// With no flags it plans the embedded sample monorepo with the embedded
// sample ArtifactGenerator:
//
//	go run ./examples/plan
//
// With flags it previews a real one:
//
//	go run ./examples/plan -generator ag.yaml -source repo=./monorepo \
//	   [-inventory previous.yaml] [-cluster live.yaml] \
//	   [-default-service-account NAME] [-strict] [-max-deletions N] [-allow-delete-all] \
//	   [-changes-only] [-o text|json]
//
// -generator is an ArtifactGenerator manifest in source-watcher v2.3's
// shape (spec.managedNamespaces), as the embedded sample: the file as
// written, or as kubectl get artifactgenerator prints it, with or without
// a name (a List holding exactly one). The server-set fields of metadata
// (resourceVersion, managedFields, ...) and the whole status are ignored;
// every other field is decoded strictly, and an unknown one is an error
// naming its path. Without metadata.uid, the plan puts no generator label
// on what it plans, which a warning on stderr says.
// -default-service-account stands for the controller's default service
// account, which managing namespaces requires when the spec names none.
//
// -inventory is the previous inventory: an ArtifactGenerator as kubectl
// prints it (its status.inventory; one without status.inventory has
// applied nothing yet, an empty inventory), a List holding exactly one,
// this program's own -o json output (its "inventory"), a bare list of
// entries, a Flux ResourceInventory, or an object whose status.inventory
// is one. Any other document is bad input, never an empty inventory.
// -cluster holds live objects, as multi-document YAML or a List: the live
// namespaces and ExternalArtifacts with their labels and annotations, and
// the objects that external finalizers point to. A desired namespace that
// it lacks is created, or updated when tracked (drift); one it holds may be
// adopted, taken over or not applied, and an ExternalArtifact another
// generator's label names is taken over: the output marks each adopted or
// taken-over object with its conflict ("[conflict: Adopted]" in
// the text, "conflict" in JSON). Without -cluster, every desired namespace
// is taken to exist as planned and every other object to exist without
// labels or annotations, and nothing else exists (generatortest.AsApplied).
// The output states what the plan assumed: no previous inventory, or an
// empty one; no live cluster.
//
// Each -source directory is read through package dirfs: no symbolic link
// is followed, and a file or directory reached through one is an error for
// the tenant whose name it is.
//
// The plan assumes every deletion it decides succeeds: the inventory it
// prints is the one a controller would record then. Any error in the desired
// state means the plan deletes nothing.
//
// "plan test" runs declarative policy tests instead (package
// generatortest): suites that name the generator file, give each case a
// source, an inventory and a cluster, and state what its plan must hold.
//
//	go run ./examples/plan test [-o table|json] [-junit FILE] [-run REGEXP] [-update] [-coverage] [-coverage-min N] PATH...
//
// It exits 0 when every case passes, 1 when one fails, 2 for bad usage or
// a bad suite (one that does not decode strictly, among others). A case
// without cluster assumes what plan assumes without -cluster, and the
// table says how many cases did.
//
// Exit status: 0 for a plan without errors, 1 for a plan with errors (still
// printed in full), 2 for bad usage or unreadable input (among others, a
// -generator file that is not an ArtifactGenerator, an -inventory file
// that is none of the shapes above).
package main

import (
	"context"
	"embed"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"github.com/tenantkit/tenantkit/dirfs"
	"github.com/tenantkit/tenantkit/generator"
	"github.com/tenantkit/tenantkit/generator/generatortest"
	"github.com/tenantkit/tenantkit/internal/agmanifest"
	"github.com/tenantkit/tenantkit/inventory"
)

//go:embed sample
var sample embed.FS

func main() {
	os.Exit(run(context.Background(), os.Args[1:], os.Stdout, os.Stderr))
}

// sourceFlags collects repeated -source ALIAS=DIR flags.
type sourceFlags map[string]string

func (s sourceFlags) String() string { return "" }

func (s sourceFlags) Set(v string) error {
	alias, dir, ok := strings.Cut(v, "=")
	if !ok || alias == "" || dir == "" {
		return fmt.Errorf("must be ALIAS=DIR, got %q", v)
	}
	if _, dup := s[alias]; dup {
		return fmt.Errorf("alias %q given twice", alias)
	}
	s[alias] = dir
	return nil
}

// usageError is bad usage or unreadable input: exit status 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return &usageError{fmt.Sprintf(format, args...)} }

// maxManifestBytes bounds the generator, inventory and cluster files the
// tool reads: they come from the platform team, but a wrong path must not
// make the preview read a disk image.
const maxManifestBytes = 16 << 20

// request is everything one run reads.
type request struct {
	manifest *agmanifest.Manifest[generator.Spec]
	sources  map[string]fs.FS // by alias
	previous []inventory.Entry
	cluster  *generatortest.Cluster
	opts     []generator.Option
	warnings []string // about the inputs, printed on stderr
	// assumptions are what the plan assumes for want of an input, which
	// the output states: no previous inventory or an empty one, no live
	// cluster.
	assumptions []string
	// inventoryGiven is set when -inventory names the previous inventory.
	inventoryGiven bool
	// noUID is set when the generator has no metadata.uid: the plan puts
	// no generator label on what it plans.
	noUID bool
}

// run is the whole program; tests call it directly.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "test" {
		return runTest(ctx, args[1:], stdout, stderr)
	}
	fl := flag.NewFlagSet("plan", flag.ContinueOnError)
	fl.SetOutput(stderr)
	sources := sourceFlags{}
	generatorFile := fl.String("generator", "", "ArtifactGenerator manifest `file`, as written or as kubectl get -o yaml prints it (default: the embedded sample)")
	fl.Var(sources, "source", "source directory for an alias, as `ALIAS=DIR`; repeat for each alias")
	inventoryFile := fl.String("inventory", "", "previous inventory `file`: an ArtifactGenerator (status.inventory) alone or in a List, this tool's -o json output, a list of entries, or a Flux ResourceInventory")
	clusterFile := fl.String("cluster", "", "live objects `file`: multi-document YAML or a List")
	defaultSA := fl.String("default-service-account", "", "the controller's default service account `name`")
	strict := fl.Bool("strict", false, "report keys of a NamespaceMetadata file that the schema does not list as errors, not warnings")
	maxDeletions := fl.Int("max-deletions", -1, "refuse a plan that deletes more than `N` objects (-1: no limit)")
	allowDeleteAll := fl.Bool("allow-delete-all", false, "allow a plan that deletes every object of the previous inventory")
	changesOnly := fl.Bool("changes-only", false, "leave out the unchanged namespaces, artifacts and changes (the JSON inventory stays whole)")
	output := fl.String("o", "text", "output format: text or json")
	fl.Usage = func() {} // a flag error is one line; -h prints the flags
	if err := fl.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(stderr, "usage: go run ./examples/plan [-generator FILE -source ALIAS=DIR ...] [-inventory FILE] [-cluster FILE] [-default-service-account NAME] [-strict] [-max-deletions N] [-allow-delete-all] [-changes-only] [-o text|json]")
			fmt.Fprintln(stderr, "       go run ./examples/plan test [-h] [flags] PATH...   (policy tests; see test -h)")
			fl.PrintDefaults()
			return 0
		}
		return 2
	}
	if fl.NArg() > 0 {
		fmt.Fprintf(stderr, "plan: unexpected argument %q\n", fl.Arg(0))
		return 2
	}
	if *maxDeletions < -1 {
		fmt.Fprintf(stderr, "plan: -max-deletions: must be -1 (no limit) or more, got %d\n", *maxDeletions)
		return 2
	}

	req, err := load(*generatorFile, sources, *inventoryFile, *clusterFile, *output)
	if err != nil {
		fmt.Fprintf(stderr, "plan: %v\n", err)
		return 2
	}
	for _, w := range req.warnings {
		fmt.Fprintf(stderr, "plan: warning: %s\n", w)
	}
	if *defaultSA != "" {
		req.opts = append(req.opts, generator.WithDefaultServiceAccount(*defaultSA))
	}
	if *strict {
		req.opts = append(req.opts, generator.WithStrict())
	}
	if *maxDeletions >= 0 {
		req.opts = append(req.opts, generator.WithMaxDeletions(*maxDeletions))
	}
	if *allowDeleteAll {
		req.opts = append(req.opts, generator.WithAllowDeleteAll())
	}
	if *output == "json" {
		req.opts = append(req.opts, generator.WithFileLists()) // printed; the text counts them
	}

	res, err := makePlan(ctx, req)
	if err != nil {
		fmt.Fprintf(stderr, "plan: %v\n", err)
		return 2
	}
	if *output == "json" {
		err = writeJSON(stdout, res, *changesOnly)
	} else {
		err = writeText(stdout, res, *changesOnly)
	}
	if err != nil {
		fmt.Fprintf(stderr, "plan: writing the plan: %v\n", err)
		return 2
	}
	if res.hasErrors() {
		return 1
	}
	return 0
}

// makePlan compiles the generator and plans. A spec that does not compile
// is a plan with errors that keeps every entry of the previous inventory.
func makePlan(ctx context.Context, req request) (*planResult, error) {
	res, err := plan(ctx, req)
	if err != nil {
		return nil, err
	}
	res.assumptions = req.assumptions
	res.explain(req)
	return res, nil
}

// plan compiles the generator and plans.
func plan(ctx context.Context, req request) (*planResult, error) {
	m := req.manifest
	opts := append([]generator.Option{generator.WithNamespace(m.Metadata.Namespace)}, req.opts...)
	if m.Metadata.UID != "" {
		opts = append(opts, generator.WithUID(m.Metadata.UID))
	}
	g, errs := generator.Compile(m.Spec, opts...)
	if len(errs) > 0 {
		res := &planResult{errors: fieldErrors(errs), inventory: req.previous}
		for _, e := range req.previous {
			res.decisions = append(res.decisions, inventory.Decision{Entry: e, Action: inventory.Keep, Reason: "desired state has errors"})
		}
		return res, nil
	}
	c := req.cluster
	if c == nil {
		// Without -cluster, every object is taken to exist as this
		// generator applies it.
		c = generatortest.AsApplied()
	}
	p, err := g.Plan(ctx, req.sources, req.previous, c.Generator())
	if err != nil {
		return nil, err
	}
	return result(p), nil
}

// load reads every input the flags name. Each failure names its flag or
// file.
func load(generatorFile string, sources sourceFlags, inventoryFile, clusterFile, output string) (request, error) {
	var req request
	if output != "text" && output != "json" {
		return req, usagef("-o: must be text or json, got %q", output)
	}
	var data []byte
	var err error
	if generatorFile == "" {
		if len(sources) > 0 {
			return req, usagef("-source: needs -generator (the sample brings its own source)")
		}
		data, _ = fs.ReadFile(sample, "sample/generator.yaml")
		sub, _ := fs.Sub(sample, "sample/monorepo")
		req.sources = map[string]fs.FS{"repo": sub}
	} else {
		if data, err = readManifest("-generator", generatorFile); err != nil {
			return req, err
		}
		req.sources = map[string]fs.FS{}
		for alias, dir := range sources {
			info, err := os.Stat(dir)
			if err != nil {
				return req, usagef("-source %s=%s: %v", alias, dir, err)
			}
			if !info.IsDir() {
				return req, usagef("-source %s=%s: not a directory", alias, dir)
			}
			fsys, err := dirfs.Open(dir)
			if err != nil {
				return req, usagef("-source %s=%s: %v", alias, dir, err)
			}
			// dirfs confines every read below dir and follows no link: a
			// name through a link is an error for its tenant. It stays
			// open until the tool exits.
			req.sources[alias] = fsys
		}
	}
	if req.manifest, err = agmanifest.Decode[generator.Spec](data); err != nil {
		return req, usagef("-generator %s: %v", nameOr(generatorFile, "(embedded sample)"), err)
	}
	if generatorFile != "" {
		if err := checkSources(req.manifest, sources); err != nil {
			return req, err
		}
		if req.manifest.Metadata.UID == "" {
			req.noUID = true
			req.warnings = append(req.warnings, fmt.Sprintf("-generator %s: metadata.uid is not set: the plan puts no %s label on the namespaces and artifacts, "+
				"so against an inventory recorded by a generator with a UID every namespace shows as an update, and a live object that carries the label is never deleted "+
				"(kubectl get artifactgenerator NAME -o yaml prints the UID)", generatorFile, generator.GeneratorLabel))
		}
	}
	if inventoryFile == "" {
		req.assumptions = append(req.assumptions, "no previous inventory given (-inventory): every object is a create")
	} else {
		data, err := readManifest("-inventory", inventoryFile)
		if err != nil {
			return req, err
		}
		prev, err := readInventory(data)
		if err != nil {
			return req, usagef("-inventory %s: %v", inventoryFile, err)
		}
		if _, errs := inventory.Diff(prev.entries, nil); errs != nil {
			return req, usagef("-inventory %s: %v", inventoryFile, errs.ToAggregate())
		}
		req.previous, req.inventoryGiven = prev.entries, true
		if len(prev.entries) == 0 {
			req.assumptions = append(req.assumptions, fmt.Sprintf("the previous inventory is empty (-inventory %s: %s): every object is a create", inventoryFile, prev.from))
		}
	}
	if clusterFile == "" {
		req.assumptions = append(req.assumptions, "no live cluster given (-cluster): "+generatortest.Assumed)
	} else {
		data, err := readManifest("-cluster", clusterFile)
		if err != nil {
			return req, err
		}
		if req.cluster, err = parseCluster(data); err != nil {
			return req, usagef("-cluster %s: %v", clusterFile, err)
		}
	}
	return req, nil
}

// checkSources requires a -source for every alias of spec.sources, and no
// other.
func checkSources(g *agmanifest.Manifest[generator.Spec], sources sourceFlags) error {
	declared := map[string]bool{}
	for i, s := range g.Spec.Sources {
		declared[s.Alias] = true
		if _, ok := sources[s.Alias]; !ok && s.Alias != "" {
			return usagef("-source: missing %s=DIR for spec.sources[%d] (%s %s)", s.Alias, i, s.Kind, s.Name)
		}
	}
	for alias := range sources {
		if !declared[alias] {
			return usagef("-source %s=%s: alias %q is not in spec.sources", alias, sources[alias], alias)
		}
	}
	return nil
}

// readManifest reads a file named by a flag, bounded by maxManifestBytes.
func readManifest(flagName, file string) ([]byte, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, usagef("%s: %v", flagName, err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxManifestBytes+1))
	if err != nil {
		return nil, usagef("%s %s: %v", flagName, file, err)
	}
	if len(data) > maxManifestBytes {
		return nil, usagef("%s %s: must be no larger than %d bytes", flagName, file, maxManifestBytes)
	}
	return data, nil
}

func nameOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
