package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestGolden runs the commands that need no index on the fixtures and
// compares their whole output with testdata/golden.
func TestGolden(t *testing.T) {
	t.Parallel()
	needCgo(t)
	tests := []struct {
		name  string
		stdin string
		args  []string
	}{
		{"fingerprint.txt", "", []string{"fingerprint", "articles.jsonl"}},
		{"fingerprint_json.txt", "", []string{"fingerprint", "--json", "a.txt", "b.txt"}},
		{"fingerprint_compat_json.txt", "我来到北京清华大学", []string{"fingerprint", "--compat", "--top-n", "5", "--json", "-"}},
		{"fingerprint_topn.txt", "", []string{"fingerprint", "--top-n", "8", "--keywords", "0", "c.txt"}},
		{"compare_near.txt", "", []string{"compare", "a.txt", "b.txt"}},
		{"compare_different.txt", "", []string{"compare", "a.txt", "c.txt"}},
		{"compare_json.txt", "", []string{"compare", "--json", "a.txt", "b.txt"}},
		{"compare_k0.txt", "", []string{"compare", "--max-distance", "0", "--keywords", "3", "a.txt", "b.txt"}},
		{"compare_stdin.txt", "我来到北京清华大学，清华大学是中国著名的高等学府，北京是中国的首都。", []string{"compare", "-", "a.txt"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := cliRun{stdin: tt.stdin}.run(t, tt.args...)
			golden(t, tt.name, normalize(transcript(tt.args, r), ""))
		})
	}
}

// TestGoldenDedup checks dedup's four outputs and its summaries.
func TestGoldenDedup(t *testing.T) {
	t.Parallel()
	needCgo(t)
	tmp := t.TempDir()
	out := func(name string) string { return filepath.Join(tmp, name) }
	args := []string{"dedup", "--workers", "2", "articles.jsonl", "--pairs", out("pairs.jsonl"), "--clusters", out("clusters.jsonl"),
		"--unique", out("unique.jsonl"), "--rejects", out("rejects.jsonl")}
	r := runBin(t, args...)
	golden(t, "dedup.txt", normalize(transcript(args, r,
		out("pairs.jsonl"), out("clusters.jsonl"), out("unique.jsonl"), out("rejects.jsonl")), tmp))

	args = []string{"dedup", "--json", "--workers", "2", "--max-distance", "6", "--pairs", "-", "articles.jsonl", "a.txt", "b.txt", "c.txt"}
	r = runBin(t, args...)
	golden(t, "dedup_json.txt", normalize(transcript(args, r), tmp))
}

// TestGoldenIndex runs add, stats, check and delete on one index.
func TestGoldenIndex(t *testing.T) {
	t.Parallel()
	needCgo(t)
	tmp := t.TempDir()
	idx := filepath.Join(tmp, "archive")
	steps := []struct {
		name string
		args []string
		code int
	}{
		{"add.txt", []string{"add", "--index", idx, "articles.jsonl"}, 2}, // short-1 is too short
		{"stats.txt", []string{"stats", "--index", idx}, 0},
		{"stats_json.txt", []string{"stats", "--index", idx, "--json"}, 0},
		{"check_found_json.txt", []string{"check", "--index", idx, "--json", "b.txt"}, 1},
		{"check_none.txt", []string{"check", "--index", idx, "c.txt"}, 0},
		{"check_many.txt", []string{"check", "--index", idx, "a.txt", "b.txt", "c.txt"}, 1},
		{"check_fingerprint.txt", []string{"check", "--index", idx, "--fingerprint", "d6114e778fe93130"}, 1},
		{"check_fingerprint_json.txt", []string{"check", "--index", idx, "--json", "--fingerprint", "0000000000000000"}, 0},
		{"check_add.txt", []string{"check", "--index", idx, "--add", "c.txt"}, 0},
		{"check_after_add.txt", []string{"check", "--index", idx, "--id", "c-again", "c.txt"}, 1},
		{"delete.txt", []string{"delete", "--index", idx, "archive/show_dialog-reprint", "no/such/id"}, 2},
		{"check_after_delete.txt", []string{"check", "--index", idx, "b.txt"}, 1},
	}
	for _, s := range steps {
		r := runBin(t, s.args...)
		if r.code != s.code {
			t.Errorf("neardup %s: exit %d, want %d\nstderr: %s", strings.Join(s.args, " "), r.code, s.code, r.stderr)
		}
		golden(t, s.name, normalize(transcript(s.args, r), tmp))
	}
}

// TestGoldenIDF trains a table on the fixtures and fingerprints with it.
func TestGoldenIDF(t *testing.T) {
	t.Parallel()
	needCgo(t)
	tmp := t.TempDir()
	table := filepath.Join(tmp, "idf.txt")
	args := []string{"idf", "build", "articles.jsonl", "a.txt", "c.txt", "-o", table, "--min-df", "3"}
	r := runBin(t, args...)
	if r.code != 0 {
		t.Fatalf("idf build: exit %d: %s", r.code, r.stderr)
	}
	golden(t, "idf_build.txt", normalize(transcript(args, r, table), tmp))
	args = []string{"fingerprint", "--idf", table, "a.txt", "b.txt"}
	r = runBin(t, args...)
	golden(t, "fingerprint_idf.txt", normalize(transcript(args, r), tmp))
}
