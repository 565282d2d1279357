package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestExitStatusRule checks the one exit status rule (issue 19 item 8)
// command by command: a rejected record is reported and is not an error
// (0, or check's 1), unless --strict (2, stopping at it); a missing
// input is an error (2) after the rest is done.
func TestExitStatusRule(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	arch := filepath.Join(tmp, "archive")
	if r := runCLI(t, "add", "--segmenter", "gse", "--index", arch, "testdata/a.txt"); r.code != 0 {
		t.Fatalf("add: exit %d: %s", r.code, r.stderr)
	}
	bad := filepath.Join(tmp, "bad.jsonl")
	if err := os.WriteFile(bad, []byte(`{"id":"bad","text":12}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	short := bad + `:1: field "text": not a string (number)`
	commands := []struct {
		name  string
		args  func(n int) []string // the command before its inputs; n makes its outputs new
		found int                  // the status of a run with a bad record: 0, or check's 1
		// done is in the output of a run with a missing input: the
		// other input was processed.
		done string
	}{
		{"fingerprint", func(int) []string { return []string{"fingerprint"} }, 0, "d6114e778fe93130  testdata/a.txt"},
		{"add", func(n int) []string {
			return []string{"add", "--index", filepath.Join(tmp, "add", string(rune('a'+n)))}
		}, 0, "added "},
		{"dedup", func(n int) []string {
			return []string{"dedup", "--pairs", filepath.Join(tmp, "pairs"+string(rune('a'+n)))}
		}, 0, "neardup dedup: "},
		{"idf build", func(n int) []string {
			return []string{"idf", "build", "--min-df", "1", "-o", filepath.Join(tmp, "idf"+string(rune('a'+n)))}
		}, 0, "neardup idf build: "},
		{"check", func(int) []string { return []string{"check", "--index", arch} }, 1, "holds this article already"},
	}
	for _, cmd := range commands {
		t.Run(cmd.name, func(t *testing.T) {
			t.Parallel()
			seg := []string{"--segmenter", "gse"}
			r := runCLI(t, append(append(cmd.args(0), seg...), bad, "testdata/a.txt")...)
			if r.code != cmd.found || !strings.Contains(r.stderr, short) {
				t.Errorf("with a too-short record: exit %d, want %d, and stderr naming it:\n%s", r.code, cmd.found, r.stderr)
			}
			r = runCLI(t, append(append(cmd.args(1), seg...), "--strict", bad, "testdata/a.txt")...)
			if r.code != 2 || !strings.Contains(r.stderr, "neardup: --strict: "+short) {
				t.Errorf("--strict: exit %d, want 2 naming the record:\n%s", r.code, r.stderr)
			}
			r = runCLI(t, append(append(cmd.args(2), seg...), "no-such-file.txt", "testdata/a.txt")...)
			if r.code != 2 || !strings.Contains(r.stderr, "no-such-file.txt: stat: no such file or directory") ||
				!strings.Contains(r.stderr, "1 input could not be read to the end") || !strings.Contains(r.stdout+r.stderr, cmd.done) {
				t.Errorf("a missing input: exit %d, want 2, and the other input done (%q)\nstdout: %s\nstderr: %s", r.code, cmd.done, r.stdout, r.stderr)
			}
		})
	}
}

// TestProgressLines: add, idf build and a check of several files draw
// the progress line (issue 19 item 11; --progress always stands for a
// terminal), end by clearing it, and then print their one-line summary.
func TestProgressLines(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	idx := filepath.Join(tmp, "idx")
	pairs := filepath.Join(tmp, "pairs.jsonl")
	if err := os.WriteFile(pairs, []byte(`{"a":"lo-help-en-US/text/sbasic/guide/access2base","b":"manpages-zh/swapoff.8","label":0}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		args    []string
		summary string // in stdout or stderr, after the line is cleared
	}{
		{[]string{"add", "--index", idx, "testdata/articles.jsonl"}, "added 13 documents to " + idx},
		{[]string{"idf", "build", "-o", filepath.Join(tmp, "idf.txt"), "testdata/articles.jsonl"}, "neardup idf build: 14 articles"},
		{[]string{"check", "--index", idx, "testdata/a.txt", "testdata/c.txt"}, "articles checked have near-duplicates"},
		{[]string{"eval", "--pairs", pairs, "testdata/articles.jsonl"}, "neardup eval: analysed 14 records"},
	} {
		args := append(append([]string{}, tt.args[:1]...), "--segmenter", "gse", "--progress", "always")
		if tt.args[0] == "idf" {
			args = append([]string{"idf", "build", "--segmenter", "gse", "--progress", "always"}, tt.args[2:]...)
		} else {
			args = append(args, tt.args[1:]...)
		}
		// The line is redrawn every 200 ms; a run this short may end
		// before the first, but it always clears the line at the end.
		r := runCLI(t, args...)
		if r.code > 1 || !strings.Contains(r.stderr, "\r\x1b[K") || !strings.Contains(r.stdout+r.stderr, tt.summary) {
			t.Errorf("%s: exit %d, want the line cleared and %q\nstdout: %q\nstderr: %q", tt.args[0], r.code, tt.summary, r.stdout, r.stderr)
		}
		if i := strings.LastIndex(r.stderr, "\r\x1b[K"); strings.Contains(r.stderr[i:], "records  ") {
			t.Errorf("%s: the progress line is left on the terminal: %q", tt.args[0], r.stderr[i:])
		}
	}
	r := runCLI(t, "check", "--segmenter", "gse", "--progress", "never", "--index", idx, "testdata/a.txt", "testdata/c.txt")
	if strings.Contains(r.stderr, "\r") {
		t.Errorf("--progress never drew a line: %q", r.stderr)
	}
}
