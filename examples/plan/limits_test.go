package main

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// constValue returns the value of the integer constant name declared in
// the Go file, evaluated from its source: a literal, or literals and
// other constants of the file joined by << and *.
func constValue(t *testing.T, file, name string) int64 {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), file, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	exprs := map[string]ast.Expr{}
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, spec := range g.Specs {
			vs := spec.(*ast.ValueSpec)
			for i, n := range vs.Names {
				if i < len(vs.Values) {
					exprs[n.Name] = vs.Values[i]
				}
			}
		}
	}
	var eval func(e ast.Expr) constant.Value
	eval = func(e ast.Expr) constant.Value {
		switch e := e.(type) {
		case *ast.BasicLit:
			return constant.MakeFromLiteral(e.Value, e.Kind, 0)
		case *ast.ParenExpr:
			return eval(e.X)
		case *ast.Ident:
			if x, ok := exprs[e.Name]; ok {
				return eval(x)
			}
		case *ast.BinaryExpr:
			x, y := eval(e.X), eval(e.Y)
			if e.Op == token.SHL {
				n, _ := constant.Uint64Val(y)
				return constant.Shift(x, token.SHL, uint(n))
			}
			return constant.BinaryOp(x, e.Op, y)
		}
		t.Fatalf("%s: constant %s: cannot evaluate %T", file, name, e)
		return nil
	}
	x, ok := exprs[name]
	if !ok {
		t.Fatalf("%s declares no constant %s", file, name)
	}
	v, ok := constant.Int64Val(eval(x))
	if !ok {
		t.Fatalf("%s: constant %s is not an integer", file, name)
	}
	return v
}

// docNumber returns the number that re's first group finds in the file,
// times the unit its second group names, if any (KiB, MiB).
func docNumber(t *testing.T, file string, re *regexp.Regexp) int64 {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	// A limit may be written across a line break, in a Go file's comment
	// too.
	text := string(data)
	if strings.HasSuffix(file, ".go") {
		text = strings.ReplaceAll(text, "\n//", "\n")
	}
	text = strings.Join(strings.Fields(text), " ")
	m := re.FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("%s does not say %q", file, re)
	}
	n, err := strconv.ParseInt(strings.ReplaceAll(m[1], ",", ""), 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	if len(m) > 2 {
		switch m[2] {
		case "KiB":
			n <<= 10
		case "MiB":
			n <<= 20
		}
	}
	return n
}

// TestDocumentedLimits: every bound that the docs state is the one in the
// code, read from the constants' source (issue 38, item 9: the README said
// "files of 1 MiB" where a copied file may have 8 MiB).
func TestDocumentedLimits(t *testing.T) {
	t.Parallel()
	const root = "../.."
	at := func(p string) string { return filepath.Join(root, filepath.FromSlash(p)) }
	tests := []struct {
		doc      string // the document, from the repository's root
		says     string // a regular expression: the number, then its unit
		code     string // the Go file declaring the constant
		constant string
	}{
		{"README.md", `NamespaceMetadata and inputs files of (\d+) (MiB)`, "nsmeta/file.go", "maxFileSize"},
		{"README.md", `NamespaceMetadata and inputs files of (\d+) (MiB)`, "generator/namespaces.go", "maxMetadataFileSize"},
		{"README.md", `NamespaceMetadata and inputs files of (\d+) (MiB)`, "generator/artifacts.go", "maxInputsBytes"},
		{"README.md", `copied files of (\d+) (MiB)`, "generator/artifacts.go", "maxArtifactFileBytes"},
		{"README.md", `merged and extracted files (\d+) (MiB) in all`, "generator/files.go", "maxHeldBytes"},
		{"README.md", `inventories of (\d+) (MiB)`, "inventory/unmarshal.go", "maxDocumentBytes"},
		{"README.md", `YAML aliases \(at most (\d+) times a file's size\)`, "internal/yamldoc/expansion.go", "ExpansionRatio"},
		{"docs/differences.md", `\| a copied file \| no size bound of its own \| at most (\d+) (MiB)`, "generator/artifacts.go", "maxArtifactFileBytes"},
		{"examples/plan/README.md", `files are read whole, at most (\d+) (MiB) each`, "examples/plan/main.go", "maxManifestBytes"},
		{"generator/generatortest/doc.go", `read into memory \(at most ([\d,]+) files and`, "generator/generatortest/suite.go", "maxSourceFiles"},
		{"generator/generatortest/doc.go", `files and (\d+) (MiB); a symbolic link`, "generator/generatortest/suite.go", "maxSourceBytes"},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s: %s", tt.doc, tt.constant), func(t *testing.T) {
			t.Parallel()
			doc, code := docNumber(t, at(tt.doc), regexp.MustCompile(tt.says)), constValue(t, at(tt.code), tt.constant)
			if doc != code {
				t.Errorf("%s says %d (%s), %s's %s is %d", tt.doc, doc, tt.says, tt.code, tt.constant, code)
			}
		})
	}
	// The limit of the tool's own files is the code's, as the tool states it.
	if maxManifestBytes != constValue(t, "main.go", "maxManifestBytes") {
		t.Error("constValue does not read main.go's maxManifestBytes")
	}
}
