package main

import (
	"strings"
	"testing"
)

// TestDedupPairsToStdout: dedup with no output named writes the pairs to
// standard output (the same lines --pairs - writes) instead of
// discarding them.
func TestDedupPairsToStdout(t *testing.T) {
	want := runCLI(t, "dedup", "--workers", "2", "--pairs", "-", "testdata/articles.jsonl")
	got := runCLI(t, "dedup", "--workers", "2", "testdata/articles.jsonl")
	if got.code != 0 || want.code != 0 {
		t.Fatalf("exit %d and %d: %s%s", got.code, want.code, got.stderr, want.stderr)
	}
	if n := strings.Count(got.stdout, "\n"); n != 6 || got.stdout != want.stdout {
		t.Errorf("dedup without outputs printed %d lines:\n%s\nwant the 6 of --pairs -:\n%s", n, got.stdout, want.stdout)
	}
}
