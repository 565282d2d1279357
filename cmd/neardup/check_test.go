package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/internal/testfixtures"
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
	// --add says why it adds nothing: the same text is no failure (exit
	// 1, found), another text under the id, an invalid id and an article
	// from standard input without --id are (exit 2).
	tests := []struct {
		args   []string
		stdin  string
		code   int
		stderr string
	}{
		{[]string{"testdata/c.txt"}, "", 1, "neardup: testdata/c.txt: not added: the index holds it already\n"},
		{[]string{"--id", "testdata/c.txt", "testdata/a.txt"}, "", 2,
			"neardup: testdata/a.txt: not added: the index holds a different document with this id (delete it first to replace it)\n" +
				"neardup: 1 article could not be added\n"},
		{[]string{"--id", strings.Repeat("x", index.MaxIDLen+1), "testdata/a.txt"}, "", 2,
			fmt.Sprintf("neardup: testdata/a.txt: not added: id is %d bytes long; an index holds ids of at most %d\n", index.MaxIDLen+1, index.MaxIDLen) +
				"neardup: 1 article could not be added\n"},
		{[]string{"-"}, testfixtures.EN3, 2,
			"neardup: stdin: not added: an article from standard input needs an id: give --id ID\nneardup: 1 article could not be added\n"},
	}
	for _, tt := range tests {
		args := append([]string{"check", "--index", idx, "--segmenter", "gse", "--add"}, tt.args...)
		r := cliRun{stdin: tt.stdin}.run(t, args...)
		if r.code != tt.code || r.stderr != tt.stderr {
			t.Errorf("%q: exit %d, stderr %q; want %d, %q", args, r.code, r.stderr, tt.code, tt.stderr)
		}
	}
}
