// Package corpora finds the shared real corpora (shared/corpora beside
// the repository, or $NEARDUP_CORPORA) for tests and benchmarks. It
// imports nothing of the module, so that the in-package tests of any
// package, the root one included, can use it.
package corpora

import (
	"os"
	"path/filepath"
	"testing"
)

// Dir returns the directory of the shared corpora: $NEARDUP_CORPORA, or
// shared/corpora beside the repository (found from the working
// directory, which go test sets to the package's, up to go.mod).
func Dir() string {
	if d := os.Getenv("NEARDUP_CORPORA"); d != "" {
		return d
	}
	root, err := os.Getwd()
	if err != nil {
		return filepath.Join("..", "shared", "corpora")
	}
	for dir := root; ; dir = filepath.Dir(dir) {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return filepath.Join(filepath.Dir(dir), "shared", "corpora")
		}
		if filepath.Dir(dir) == dir {
			return filepath.Join("..", "shared", "corpora")
		}
	}
}

// Required reports whether a missing corpus fails a test rather than
// skipping it: in CI (CI=true) and when NEARDUP_CORPORA names where the
// corpora are.
func Required() bool {
	return os.Getenv("CI") == "true" || os.Getenv("NEARDUP_CORPORA") != ""
}

// Require returns Dir after checking that it holds the named files (such
// as "zh_news.jsonl.gz"). When one is missing it skips tb, or, if the
// corpora are Required, fails it, naming the path.
func Require(tb testing.TB, files ...string) string {
	tb.Helper()
	dir := Dir()
	for _, f := range files {
		path := filepath.Join(dir, f)
		if _, err := os.Stat(path); err != nil {
			if Required() {
				tb.Fatalf("shared corpus %s: %v (required: CI=true or NEARDUP_CORPORA is set)", path, err)
			}
			tb.Skipf("shared corpus %s: %v (set NEARDUP_CORPORA to the directory that holds %s)", path, err, f)
		}
	}
	return dir
}
