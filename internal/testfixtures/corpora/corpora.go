// Package corpora finds the shared real corpora (shared/corpora beside
// the repository, or $NEARDUP_CORPORA) for tests and benchmarks, and
// makes traditional versions of their texts with Debian's opencc. It
// imports nothing of the module, so that the in-package tests of any
// package, the root one included, can use it.
package corpora

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
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

// OpenCC converts texts with Debian's opencc command and the
// configuration conf (s2t, s2tw, s2hk, s2twp…), in one run of it: the
// traditional versions of a corpus that the fold's tests and benchmarks
// need. Without the command it skips tb, or fails it in CI (CI=true).
func OpenCC(tb testing.TB, conf string, texts []string) []string {
	tb.Helper()
	if _, err := exec.LookPath("opencc"); err != nil {
		if os.Getenv("CI") == "true" {
			tb.Fatalf("no opencc command: %v (apt-get install opencc)", err)
		}
		tb.Skip("no opencc command (apt-get install opencc)")
	}
	const sep = "\n@@@ neardup opencc separator @@@\n"
	cmd := exec.Command("opencc", "-c", conf+".json")
	cmd.Stdin = strings.NewReader(strings.Join(texts, sep))
	var errb bytes.Buffer
	cmd.Stderr = &errb
	out, err := cmd.Output()
	if err != nil {
		tb.Fatalf("opencc -c %s.json: %v: %s", conf, err, errb.Bytes())
	}
	parts := strings.Split(string(out), sep)
	if len(parts) != len(texts) {
		tb.Fatalf("opencc -c %s.json: %d texts out, %d in", conf, len(parts), len(texts))
	}
	return parts
}
