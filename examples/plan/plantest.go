package main

import (
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/tenantkit/tenantkit/generator/generatortest"
)

// runTest is "plan test [flags] PATH...": it runs the policy-test suites
// (package generatortest) that PATH names, a file or every suite below a
// directory, and prints one line per case; with -coverage, the policies of
// each generator and how many cases check each. Exit status: 0 when every
// case passes (and -coverage-min is met), 1 when one fails (or it is not),
// 2 for bad usage or a bad suite.
func runTest(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("plan test", flag.ContinueOnError)
	fl.SetOutput(stderr)
	output := fl.String("o", "table", "output format: table or json")
	junit := fl.String("junit", "", "also write a JUnit XML report to `file`")
	runFlag := fl.String("run", "", "run only the cases whose name matches `regexp`")
	update := fl.Bool("update", false, "rewrite the expected labels, annotations and origins of the selected cases from their plans, then run")
	coverage := fl.Bool("coverage", false, "report which from[] operations and schema keys of each generator the cases check")
	coverageMin := fl.Int("coverage-min", 0, "fail (exit 1) when the cases check less than `N` percent of the policies")
	fl.Usage = func() {}
	if err := fl.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(stderr, "usage: go run ./examples/plan test [-o table|json] [-junit FILE] [-run REGEXP] [-update] [-coverage] [-coverage-min N] PATH...")
			fl.PrintDefaults()
			return 0
		}
		return 2
	}
	if *coverageMin < 0 || *coverageMin > 100 {
		fmt.Fprintf(stderr, "plan test: -coverage-min: must be 0 to 100, got %d\n", *coverageMin)
		return 2
	}
	if *output != "table" && *output != "json" {
		fmt.Fprintf(stderr, "plan test: -o: must be table or json, got %q\n", *output)
		return 2
	}
	var opts generatortest.Options
	if *runFlag != "" {
		re, err := regexp.Compile(*runFlag)
		if err != nil {
			fmt.Fprintf(stderr, "plan test: -run: %v\n", err)
			return 2
		}
		opts.Run = re
	}
	if fl.NArg() == 0 {
		fmt.Fprintln(stderr, "plan test: needs at least one PATH: a suite file or a directory of suites")
		return 2
	}
	var files []string
	for _, p := range fl.Args() {
		found, err := suiteFiles(p)
		if err != nil {
			fmt.Fprintf(stderr, "plan test: %v\n", err)
			return 2
		}
		files = append(files, found...)
	}
	if len(files) == 0 {
		fmt.Fprintf(stderr, "plan test: no suite (kind %s) under %s\n", generatortest.Kind, strings.Join(fl.Args(), ", "))
		return 2
	}
	var suites []*generatortest.Suite
	for _, f := range files {
		s, err := generatortest.LoadSuite(f)
		if err != nil {
			fmt.Fprintf(stderr, "plan test: %s\n", suiteMessage(err))
			return 2
		}
		if *update {
			if s, err = updateSuite(ctx, s, f, opts); err != nil {
				fmt.Fprintf(stderr, "plan test: -update: %s\n", suiteMessage(err))
				return 2
			}
		}
		suites = append(suites, s)
	}
	var all generatortest.Result
	for _, s := range suites {
		r := s.Run(ctx, opts)
		all.Cases = append(all.Cases, r.Cases...)
		all.Coverage = append(all.Coverage, r.Coverage...)
	}
	all.Coverage = mergeCoverage(all.Coverage)
	if ctx.Err() != nil {
		fmt.Fprintf(stderr, "plan test: %v\n", ctx.Err())
		return 2
	}
	var err error
	checked, total := coverageFigures(all.Coverage)
	if *output == "json" {
		err = writeTestJSON(stdout, all, *coverage || *coverageMin > 0)
	} else {
		err = writeTestTable(stdout, all)
		if err == nil && (*coverage || *coverageMin > 0) {
			err = writeCoverage(stdout, all.Coverage)
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "plan test: writing the results: %v\n", err)
		return 2
	}
	if *junit != "" {
		if err := writeJUnitFile(*junit, all); err != nil {
			fmt.Fprintf(stderr, "plan test: -junit: %v\n", err)
			return 2
		}
	}
	if !all.Passed() {
		return 1
	}
	if *coverageMin > 0 && checked*100 < *coverageMin*total {
		fmt.Fprintf(stderr, "plan test: the cases check %d of %d policies, less than -coverage-min %d%%\n", checked, total, *coverageMin)
		return 1
	}
	return 0
}

// suiteMessage is the message of a LoadSuite error in the tool's words:
// the file, the field and what is wrong, without the package's name.
func suiteMessage(err error) string {
	if se, ok := errors.AsType[*generatortest.SuiteError](err); ok {
		return se.Msg
	}
	return err.Error()
}

// updateSuite rewrites the suite's file from its plans, when that changes
// it, and loads it again.
func updateSuite(ctx context.Context, s *generatortest.Suite, file string, opts generatortest.Options) (*generatortest.Suite, error) {
	data, err := s.Update(ctx, opts)
	if err != nil {
		return nil, err
	}
	old, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	if string(old) == string(data) {
		return s, nil
	}
	info, err := os.Stat(file)
	if err != nil {
		return nil, err
	}
	if err := writeFileAtomic(file, data, info.Mode().Perm()); err != nil {
		return nil, err
	}
	return generatortest.LoadSuite(file)
}

// mergeCoverage adds up the items of one generator's policy that several
// suites report, keeping the first suite's order.
func mergeCoverage(items []generatortest.CoverageItem) []generatortest.CoverageItem {
	var out []generatortest.CoverageItem
	at := map[[2]string]int{}
	for _, it := range items {
		key := [2]string{filepath.Clean(it.Generator), it.Path}
		if i, ok := at[key]; ok {
			out[i].Cases += it.Cases
			continue
		}
		at[key] = len(out)
		it.Generator = key[0]
		out = append(out, it)
	}
	return out
}

func coverageFigures(items []generatortest.CoverageItem) (checked, total int) {
	for _, it := range items {
		if it.Cases > 0 {
			checked++
		}
	}
	return checked, len(items)
}

// writeCoverage prints, per generator, the policies and how many cases
// check each.
func writeCoverage(w io.Writer, items []generatortest.CoverageItem) error {
	var b strings.Builder
	for i := 0; i < len(items); {
		j := i
		for j < len(items) && items[j].Generator == items[i].Generator {
			j++
		}
		checked, total := coverageFigures(items[i:j])
		fmt.Fprintf(&b, "coverage  %s  %d of %d policies checked\n", items[i].Generator, checked, total)
		for _, it := range items[i:j] {
			fmt.Fprintf(&b, "      %3d  %s\n", it.Cases, it.Path)
		}
		i = j
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// suiteFiles returns p when it is a file, and otherwise every *.yaml file
// below it whose kind is a suite's, in lexical order. A file named on the
// command line must be a suite (LoadSuite says why not); a YAML file of
// another kind in a directory is not one and is passed by.
func suiteFiles(p string) ([]string, error) {
	info, err := os.Stat(p)
	if err != nil {
		return nil, err
	}
	if !info.IsDir() {
		return []string{p}, nil
	}
	var files []string
	err = filepath.WalkDir(p, func(file string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && file != p && strings.HasPrefix(d.Name(), ".") {
			return filepath.SkipDir
		}
		if d.IsDir() || !d.Type().IsRegular() || !strings.HasSuffix(file, ".yaml") {
			return nil
		}
		data, err := readManifest("PATH", file)
		if err != nil {
			return err
		}
		var probe struct {
			APIVersion string `json:"apiVersion"`
			Kind       string `json:"kind"`
		}
		if yaml.Unmarshal(data, &probe) == nil && probe.APIVersion == generatortest.APIVersion && probe.Kind == generatortest.Kind {
			files = append(files, file)
		}
		return nil
	})
	return files, err
}

// writeTestTable prints one line per case and, under a failed one, each
// failure with where, expected and got; then the counts. It prints no
// duration, so that the output of a run is the same every time.
func writeTestTable(w io.Writer, r generatortest.Result) error {
	var b strings.Builder
	passed := 0
	for _, c := range r.Cases {
		status := "FAIL"
		if c.Passed() {
			status = "PASS"
			passed++
		}
		fmt.Fprintf(&b, "%s  %s  %s\n", status, c.Suite, c.Case)
		for _, f := range c.Failures {
			fmt.Fprintf(&b, "      %s\n        expected: %s\n        got:      %s\n", f.Where, f.Expected, f.Got)
		}
	}
	fmt.Fprintf(&b, "%d passed, %d failed\n", passed, len(r.Cases)-passed)
	writeAssumptions(&b, r)
	_, err := io.WriteString(w, b.String())
	return err
}

// writeAssumptions prints, after the counts, each assumption the cases
// made and how many made it, every time: "3 of 12 cases: no live cluster
// given (cluster:): assuming ...".
func writeAssumptions(b *strings.Builder, r generatortest.Result) {
	var order []string
	count := map[string]int{}
	for _, c := range r.Cases {
		for _, a := range c.Assumptions {
			if count[a] == 0 {
				order = append(order, a)
			}
			count[a]++
		}
	}
	for _, a := range order {
		fmt.Fprintf(b, "%d of %d cases: %s\n", count[a], len(r.Cases), a)
	}
}

func writeTestJSON(w io.Writer, r generatortest.Result, coverage bool) error {
	passed := 0
	for _, c := range r.Cases {
		if c.Passed() {
			passed++
		}
	}
	out := struct {
		Passed   int                          `json:"passed"`
		Failed   int                          `json:"failed"`
		Cases    []generatortest.CaseResult   `json:"cases"`
		Coverage []generatortest.CoverageItem `json:"coverage,omitempty"`
	}{Passed: passed, Failed: len(r.Cases) - passed, Cases: r.Cases}
	if coverage {
		out.Coverage = r.Coverage
	}
	if out.Cases == nil {
		out.Cases = []generatortest.CaseResult{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// The JUnit XML report: one testsuite per suite, one testcase per case.
type junitSuites struct {
	XMLName xml.Name     `xml:"testsuites"`
	Tests   int          `xml:"tests,attr"`
	Failed  int          `xml:"failures,attr"`
	Suites  []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name   string      `xml:"name,attr"`
	Tests  int         `xml:"tests,attr"`
	Failed int         `xml:"failures,attr"`
	Cases  []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	ClassName string        `xml:"classname,attr"`
	Failure   *junitFailure `xml:"failure,omitempty"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Text    string `xml:",chardata"`
}

func junitReport(r generatortest.Result) junitSuites {
	var out junitSuites
	for _, c := range r.Cases {
		if n := len(out.Suites); n == 0 || out.Suites[n-1].Name != c.Suite {
			out.Suites = append(out.Suites, junitSuite{Name: c.Suite})
		}
		s := &out.Suites[len(out.Suites)-1]
		jc := junitCase{Name: c.Case, ClassName: c.Suite}
		if !c.Passed() {
			var text strings.Builder
			for _, f := range c.Failures {
				fmt.Fprintf(&text, "%s\n  expected: %s\n  got:      %s\n", f.Where, f.Expected, f.Got)
			}
			jc.Failure = &junitFailure{Message: fmt.Sprintf("%d expectation(s) not met", len(c.Failures)), Text: text.String()}
			s.Failed++
			out.Failed++
		}
		s.Cases = append(s.Cases, jc)
		s.Tests++
		out.Tests++
	}
	return out
}

// writeJUnitFile writes the report to file alone, never to stdout, and
// complete or not at all: it is written to a temporary file first.
func writeJUnitFile(file string, r generatortest.Result) error {
	data, err := xml.MarshalIndent(junitReport(r), "", "  ")
	if err != nil {
		return err
	}
	data = append([]byte(xml.Header), append(data, '\n')...)
	return writeFileAtomic(file, data, 0o644)
}

// writeFileAtomic writes data to file complete or not at all, through a
// temporary file in its directory.
func writeFileAtomic(file string, data []byte, perm os.FileMode) error {
	tmp, err := os.CreateTemp(filepath.Dir(file), ".plantest-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(perm); err != nil {
		tmp.Close()
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), file)
}
