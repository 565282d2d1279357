package main

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/neardup/neardup/segment"
)

// The golden tests run the commands in-process on the fixtures in
// testdata and compare their whole output with testdata/golden/BACKEND,
// for jieba and gse (gojieba, in builds with -tags gojieba, cuts as jieba
// does and is left out). Each command that analyses text is given
// --segmenter.

// goldenBackends runs f for each backend of the build in a parallel
// subtest named after it.
func goldenBackends(t *testing.T, f func(t *testing.T, backend string)) {
	for _, be := range segment.Backends() {
		if be == segment.BackendGojieba {
			continue
		}
		t.Run(be, func(t *testing.T) {
			t.Parallel()
			f(t, be)
		})
	}
}

// withSegmenter puts "--segmenter backend" after the command name args[0].
func withSegmenter(backend string, args ...string) []string {
	return slices.Concat(args[:1], []string{"--segmenter", backend}, args[1:])
}

// TestGolden runs the commands that need no index on the fixtures.
func TestGolden(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		stdin string
		args  []string
	}{
		{"fingerprint.txt", "", []string{"fingerprint", "testdata/articles.jsonl"}},
		{"fingerprint_json.txt", "", []string{"fingerprint", "--json", "testdata/a.txt", "testdata/b.txt"}},
		{"fingerprint_compat_json.txt", "我来到北京清华大学", []string{"fingerprint", "--compat", "--top-n", "5", "--json", "-"}},
		{"fingerprint_topn.txt", "", []string{"fingerprint", "--top-n", "8", "--keywords", "0", "testdata/c.txt"}},
		{"compare_near.txt", "", []string{"compare", "testdata/a.txt", "testdata/b.txt"}},
		{"compare_different.txt", "", []string{"compare", "testdata/a.txt", "testdata/c.txt"}},
		{"compare_json.txt", "", []string{"compare", "--json", "testdata/a.txt", "testdata/b.txt"}},
		{"compare_k0.txt", "", []string{"compare", "--max-distance", "0", "--keywords", "3", "testdata/a.txt", "testdata/b.txt"}},
		{"eval_list.txt", "", []string{"eval", "--pairs", "testdata/pairs.jsonl", "--list", "--max-distance", "0", "--workers", "2", "testdata/articles.jsonl"}},
		{"eval_json.txt", "", []string{"eval", "--pairs", "testdata/pairs.jsonl", "--json", "--sweep", "0.5,0.9", "testdata/articles.jsonl"}},
		{"compare_stdin.txt", "我来到北京清华大学，清华大学是中国著名的高等学府，北京是中国的首都。", []string{"compare", "-", "testdata/a.txt"}},
	}
	goldenBackends(t, func(t *testing.T, be string) {
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				t.Parallel()
				args := withSegmenter(be, tt.args...)
				r := cliRun{stdin: tt.stdin}.run(t, args...)
				golden(t, be, tt.name, normalize(transcript(args, r), ""))
			})
		}
	})
}

// TestGoldenDedup checks dedup's four outputs and its summaries.
func TestGoldenDedup(t *testing.T) {
	t.Parallel()
	goldenBackends(t, func(t *testing.T, be string) {
		tmp := t.TempDir()
		out := func(name string) string { return filepath.Join(tmp, name) }
		args := withSegmenter(be, "dedup", "--workers", "2", "testdata/articles.jsonl", "--pairs", out("pairs.jsonl"), "--clusters", out("clusters.jsonl"),
			"--unique", out("unique.jsonl"), "--rejects", out("rejects.jsonl"))
		r := runCLI(t, args...)
		golden(t, be, "dedup.txt", normalize(transcript(args, r,
			out("pairs.jsonl"), out("clusters.jsonl"), out("unique.jsonl"), out("rejects.jsonl")), tmp))

		args = withSegmenter(be, "dedup", "--json", "--workers", "2", "--max-distance", "6", "--pairs", "-",
			"testdata/articles.jsonl", "testdata/a.txt", "testdata/b.txt", "testdata/c.txt")
		r = runCLI(t, args...)
		golden(t, be, "dedup_json.txt", normalize(transcript(args, r), tmp))
	})
}

// TestGoldenIndex runs add, stats, check and delete on one index.
func TestGoldenIndex(t *testing.T) {
	t.Parallel()
	goldenBackends(t, func(t *testing.T, be string) {
		tmp := t.TempDir()
		idx := filepath.Join(tmp, "archive")
		steps := []struct {
			name string
			args []string
			code int
		}{
			{"add.txt", withSegmenter(be, "add", "--index", idx, "testdata/articles.jsonl"), 0}, // short-1 is too short: reported, not an error
			{"stats.txt", []string{"stats", "--index", idx}, 0},
			{"stats_json.txt", []string{"stats", "--index", idx, "--json"}, 0},
			{"check_found_json.txt", withSegmenter(be, "check", "--index", idx, "--json", "testdata/b.txt"), 1},
			{"check_none.txt", withSegmenter(be, "check", "--index", idx, "testdata/c.txt"), 0},
			{"check_many.txt", withSegmenter(be, "check", "--index", idx, "testdata/a.txt", "testdata/b.txt", "testdata/c.txt"), 1},
			{"check_fingerprint.txt", []string{"check", "--index", idx, "--fingerprint", "d6114e778fe93130"}, 1},
			{"check_fingerprint_json.txt", []string{"check", "--index", idx, "--json", "--fingerprint", "0000000000000000"}, 0},
			{"check_add.txt", withSegmenter(be, "check", "--index", idx, "--add", "testdata/c.txt"), 0},
			{"check_after_add.txt", withSegmenter(be, "check", "--index", idx, "--id", "c-again", "testdata/c.txt"), 1},
			{"delete.txt", []string{"delete", "--index", idx, "archive/show_dialog-reprint", "no/such/id"}, 2},
			{"check_after_delete.txt", withSegmenter(be, "check", "--index", idx, "testdata/b.txt"), 1},
		}
		for _, s := range steps {
			r := runCLI(t, s.args...)
			if r.code != s.code {
				t.Errorf("neardup %s: exit %d, want %d\nstderr: %s", strings.Join(s.args, " "), r.code, s.code, r.stderr)
			}
			golden(t, be, s.name, normalize(transcript(s.args, r), tmp))
		}
	})
}

// TestGoldenIDF trains a table on the fixtures and fingerprints with it.
func TestGoldenIDF(t *testing.T) {
	t.Parallel()
	goldenBackends(t, func(t *testing.T, be string) {
		tmp := t.TempDir()
		table := filepath.Join(tmp, "idf.txt")
		args := []string{"idf", "build", "--segmenter", be, "testdata/articles.jsonl", "testdata/a.txt", "testdata/c.txt", "-o", table, "--min-df", "3"}
		r := runCLI(t, args...)
		if r.code != 0 {
			t.Fatalf("idf build: exit %d: %s", r.code, r.stderr)
		}
		golden(t, be, "idf_build.txt", normalize(transcript(args, r, table), tmp))
		args = withSegmenter(be, "fingerprint", "--idf", table, "testdata/a.txt", "testdata/b.txt")
		r = runCLI(t, args...)
		golden(t, be, "fingerprint_idf.txt", normalize(transcript(args, r), tmp))
	})
}
