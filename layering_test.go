package neardup_test

import (
	"errors"
	"go/build"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const modulePath = "github.com/neardup/neardup"

// moduleImports returns, for each package of the module (by import
// path), the module packages its files for this build import (test
// files and "ignore" programs left out).
func moduleImports(t *testing.T) map[string][]string {
	t.Helper()
	imports := map[string][]string{}
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		if path != "." && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) {
			return filepath.SkipDir
		}
		p, err := build.Default.ImportDir(path, 0)
		var noGo *build.NoGoError
		if errors.As(err, &noGo) {
			return nil
		}
		if err != nil {
			return err
		}
		name := modulePath
		if path != "." {
			name += "/" + filepath.ToSlash(path)
		}
		imports[name] = nil
		for _, im := range p.Imports {
			if im == modulePath || strings.HasPrefix(im, modulePath+"/") {
				imports[name] = append(imports[name], im)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return imports
}

// deps returns pkg's module dependencies, direct and indirect, sorted.
func deps(imports map[string][]string, pkg string) []string {
	seen := map[string]bool{}
	var walk func(string)
	walk = func(p string) {
		for _, q := range imports[p] {
			if !seen[q] {
				seen[q] = true
				walk(q)
			}
		}
	}
	walk(pkg)
	out := make([]string, 0, len(seen))
	for q := range seen {
		out = append(out, q)
	}
	slices.Sort(out)
	return out
}

// TestLayering checks the pipeline's layering: input → analysis →
// archive → decisions → reports. Reading articles and analysing them do
// not depend on the archive, and the decisions, the reports and the
// evaluation are written against index.Index and index.Store, not a
// concrete store.
func TestLayering(t *testing.T) {
	imports := moduleImports(t)
	if len(imports) < 20 {
		t.Fatalf("found %d packages: the walk missed the module", len(imports))
	}
	for _, pkg := range []string{"", "/input", "/segment", "/dict", "/tfidf", "/simhash", "/minhash", "/docid"} {
		for _, d := range deps(imports, modulePath+pkg) {
			if d == modulePath+"/index" || strings.HasPrefix(d, modulePath+"/index/") {
				t.Errorf("%s depends on the archive (%s)", modulePath+pkg, d)
			}
		}
	}
	// The decisions, their reports and the evaluation take an
	// index.Index or index.Store from their caller: no package below
	// index/ (a store, or index/archive, which opens them), directly or
	// through another.
	for _, pkg := range []string{"/dedup", "/urldedup", "/report", "/eval"} {
		if _, ok := imports[modulePath+pkg]; !ok {
			t.Errorf("%s: no such package (moved? update this test)", modulePath+pkg)
		}
		for _, d := range deps(imports, modulePath+pkg) {
			if strings.HasPrefix(d, modulePath+"/index/") {
				t.Errorf("%s depends on the concrete store %s", modulePath+pkg, d)
			}
		}
	}
	// Reports are data the decisions fill: report depends on no
	// package that decides.
	for _, d := range deps(imports, modulePath+"/report") {
		if d == modulePath+"/dedup" || d == modulePath+"/urldedup" {
			t.Errorf("%s depends on the decisions (%s)", modulePath+"/report", d)
		}
	}
}
