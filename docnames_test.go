package neardup_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// modulePackages parses every Go file of the module below root (test
// files included, testdata and hidden folders left out) and returns, by
// package name, the exported names each package declares: top-level
// identifiers, and "Type.Member" for the methods and struct fields of its
// types. Two packages of one name (none today) share an entry.
func modulePackages(t *testing.T, root string) (names map[string]map[string]bool, files map[string]*ast.File, fset *token.FileSet) {
	t.Helper()
	names = map[string]map[string]bool{}
	files = map[string]*ast.File{}
	fset = token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != root && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
		if err != nil {
			return err
		}
		files[path] = f
		pkg := f.Name.Name
		if names[pkg] == nil {
			names[pkg] = map[string]bool{}
		}
		declare(names[pkg], f)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return names, files, fset
}

// declare adds the names f declares to set.
func declare(set map[string]bool, f *ast.File) {
	for _, decl := range f.Decls {
		switch d := decl.(type) {
		case *ast.FuncDecl:
			if d.Recv == nil {
				set[d.Name.Name] = true
				continue
			}
			if len(d.Recv.List) == 1 {
				set[recvType(d.Recv.List[0].Type)+"."+d.Name.Name] = true
				// "index.Similar" is the comments' shorthand for the
				// method (*index.Index).Similar: a method's name counts.
				set[d.Name.Name] = true
			}
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					set[s.Name.Name] = true
					declareMembers(set, s.Name.Name, s.Type)
				case *ast.ValueSpec:
					for _, n := range s.Names {
						set[n.Name] = true
					}
				}
			}
		}
	}
}

// declareMembers adds the fields (struct) and methods (interface) of the
// type typ names.
func declareMembers(set map[string]bool, typ string, e ast.Expr) {
	var list *ast.FieldList
	switch e := e.(type) {
	case *ast.StructType:
		list = e.Fields
	case *ast.InterfaceType:
		list = e.Methods
	default:
		return
	}
	for _, fld := range list.List {
		for _, n := range fld.Names {
			set[typ+"."+n.Name] = true
		}
		if len(fld.Names) == 0 { // embedded: its name is a member
			set[typ+"."+recvType(fld.Type)] = true
		}
	}
}

// recvType is the name of a receiver's (or embedded field's) type.
func recvType(e ast.Expr) string {
	for {
		switch x := e.(type) {
		case *ast.StarExpr:
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		case *ast.IndexListExpr:
			e = x.X
		case *ast.SelectorExpr:
			return x.Sel.Name
		case *ast.Ident:
			return x.Name
		default:
			return ""
		}
	}
}

// qualified matches a reference to an exported name of a package in a
// comment: "dedup.Run", "index.Index.Similar".
var qualified = regexp.MustCompile(`\b([a-z][a-z0-9]*)\.([A-Z][A-Za-z0-9_]*)(\.[A-Z][A-Za-z0-9_]*)?\b`)

// deadNames returns "file:line: pkg.Name" for each reference in the
// comments of files to an exported name that a module package named pkg
// does not declare, and the number of references it checked.
func deadNames(names map[string]map[string]bool, files map[string]*ast.File, fset *token.FileSet) (dead []string, checked int) {
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	for _, path := range paths {
		for _, cg := range files[path].Comments {
			for _, c := range cg.List {
				if strings.HasPrefix(c.Text, "//go:") {
					continue
				}
				for _, m := range qualified.FindAllStringSubmatchIndex(c.Text, -1) {
					pkg, name := c.Text[m[2]:m[3]], c.Text[m[4]:m[5]]
					set, ok := names[pkg]
					if !ok || pkg == "main" {
						continue // another module's or the standard library's package
					}
					if m[0] > 0 && strings.ContainsRune("./-", rune(c.Text[m[0]-1])) {
						continue // part of a path or a longer selector: "x/net/html.Parse", "a.index.Doc"
					}
					checked++
					ref := pkg + "." + name
					if m[6] >= 0 {
						ref += c.Text[m[6]:m[7]]
					}
					if !set[name] || (m[6] >= 0 && !set[name+c.Text[m[6]:m[7]]]) {
						dead = append(dead, fset.Position(c.Pos()).String()+": "+ref)
					}
				}
			}
		}
	}
	return dead, checked
}

// TestDocNames checks that the comments of every Go file in the module
// name only code that exists: each "pkg.Name" (and "pkg.Type.Member")
// where pkg is one of the module's packages must be declared there (a
// method of one of its types counts: "index.Similar"). Doc comments that
// named a function and a store long gone (the root package's Dedup,
// index's Memory) sent newcomers looking for them.
func TestDocNames(t *testing.T) {
	dead, checked := deadNames(modulePackages(t, "."))
	for _, d := range dead {
		t.Errorf("%s: no such name in the module", d)
	}
	if checked < 100 {
		t.Errorf("only %d qualified names checked: the walk missed the module", checked)
	}
}

// TestDocNamesFindsDeadNames feeds the check a module that names what
// does not exist, so that a check which finds nothing cannot pass
// unnoticed.
func TestDocNamesFindsDeadNames(t *testing.T) {
	dir := t.TempDir()
	write := func(name, src string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("index/index.go", "package index\n\n// Index is an index.\ntype Index struct{ Opts int }\n\nfunc (x *Index) Similar() {}\n")
	write("a.go", "package a\n\n// See index.Index.Similar, index.Index.Opts, x/index.Gone\n// and index.Memory, index.Index.Gone, strings.Lines.\nvar A int\n")
	dead, checked := deadNames(modulePackages(t, dir))
	for i, d := range dead {
		dead[i] = d[strings.LastIndex(d, " ")+1:]
	}
	if want := []string{"index.Memory", "index.Index.Gone"}; !slices.Equal(dead, want) || checked != 4 {
		t.Errorf("dead names %q (%d checked), want %q (4 checked)", dead, checked, want)
	}
}
