package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckUnverified: against an archive of bare fingerprints, check
// says a match is unverified (no text to compare), in text and JSON,
// rather than "near duplicate … content similarity 0.00".
func TestCheckUnverified(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	idx := filepath.Join(tmp, "idx")
	fps := filepath.Join(tmp, "fps.tsv")
	// a.txt's gse fingerprint, one bit off.
	if err := os.WriteFile(fps, []byte("doc-1\td6114e778fe93131\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := runCLI(t, "add", "--index", idx, "--segmenter", "gse", "--fingerprints", fps); r.code != 0 {
		t.Fatalf("add: exit %d: %s", r.code, r.stderr)
	}
	r := runCLI(t, "check", "--index", idx, "--segmenter", "gse", "testdata/a.txt")
	if r.code != 1 || !strings.Contains(r.stdout, "  unverified       doc-1\n      distance 1, similarity 0.984, unverified (fingerprint only: no text to compare)\n") {
		t.Errorf("check: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = runCLI(t, "check", "--index", idx, "--segmenter", "gse", "--json", "testdata/a.txt")
	if r.code != 1 || !strings.Contains(r.stdout, `{"id":"doc-1","title":"","distance":1,"similarity":0.984375,"content":0,"exact":false,"unverified":true,"shared_keywords":[]}`) {
		t.Errorf("check --json: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// TestCheckItself: checking an article the archive holds under its own
// id says so (exit 1), instead of "no near-duplicate".
func TestCheckItself(t *testing.T) {
	t.Parallel()
	idx := filepath.Join(t.TempDir(), "idx")
	if r := runCLI(t, "add", "--index", idx, "--segmenter", "gse", "testdata/c.txt"); r.code != 0 {
		t.Fatalf("add: exit %d: %s", r.code, r.stderr)
	}
	r := runCLI(t, "check", "--index", idx, "--segmenter", "gse", "testdata/c.txt")
	want := "testdata/c.txt: " + idx + " holds this article already, under its id\nthe article is in " + idx + " already\n"
	if r.code != 1 || r.stdout != want {
		t.Errorf("check: exit %d\n%s\nwant\n%s%s", r.code, r.stdout, want, r.stderr)
	}
	r = runCLI(t, "check", "--index", idx, "--segmenter", "gse", "--json", "testdata/c.txt")
	if r.code != 1 || !strings.Contains(r.stdout, `"matches":[],"archived":"same","added":false}`) {
		t.Errorf("check --json: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}
