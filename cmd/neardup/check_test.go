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

// TestCheckLeanArchive: an archive dedup --index creates is lean (no
// titles or keywords kept): check says so of each match, in text and
// JSON, and stats names it; with --lean=false the archive keeps the
// keywords check shows, and neither says lean.
func TestCheckLeanArchive(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	for _, tt := range []struct {
		name   string
		flags  []string
		text   string // what check prints of the match after its figures
		json   string
		record string // the stats line on the records, "" for none
	}{
		{"lean", nil,
			"      (no title or keywords: the archive is lean, as dedup --index makes it; --lean=false makes one that keeps them)\n",
			`"shared_keywords":[]}],"added":false,"lean":true}`,
			"records       lean (no titles, keywords or texts), in compressed tables\n"},
		{"whole", []string{"--lean=false"},
			"      shared keywords: 对话框, 控件, … (30 more)\n",
			`"shared_keywords":["对话框","控件",`,
			""},
	} {
		idx := filepath.Join(tmp, tt.name)
		args := append([]string{"dedup", "--index", idx, "--segmenter", "gse"}, tt.flags...)
		if r := runCLI(t, append(args, "testdata/a.txt")...); r.code != 0 {
			t.Fatalf("%s: dedup: exit %d: %s", tt.name, r.code, r.stderr)
		}
		r := runCLI(t, "check", "--index", idx, "--segmenter", "gse", "--keywords", "2", "--id", "other", "testdata/a.txt")
		want := "other: 1 near-duplicate in " + idx + "\n" +
			"  exact duplicate  testdata/a.txt\n" +
			"      distance 0, similarity 1.000, content similarity 1.00\n"
		if r.code != 1 || !strings.HasPrefix(r.stdout, want+tt.text) {
			t.Errorf("%s: check: exit %d\n%s\nwant it to start\n%s%s", tt.name, r.code, r.stdout, want, tt.text)
		}
		r = runCLI(t, "check", "--index", idx, "--segmenter", "gse", "--json", "--id", "other", "testdata/a.txt")
		if r.code != 1 || !strings.Contains(r.stdout, tt.json) || strings.Contains(r.stdout, `"lean"`) != (tt.name == "lean") {
			t.Errorf("%s: check --json: exit %d\n%s\nwant it to hold %s", tt.name, r.code, r.stdout, tt.json)
		}
		r = runCLI(t, "stats", "--index", idx)
		if r.code != 0 || strings.Contains(r.stdout, "records ") != (tt.record != "") || !strings.Contains(r.stdout, tt.record) {
			t.Errorf("%s: stats: exit %d\n%s\nwant the records line %q", tt.name, r.code, r.stdout, tt.record)
		}
	}
	// A lean archive keeps no texts.
	r := runCLI(t, "add", "--index", filepath.Join(tmp, "new"), "--segmenter", "gse", "--lean", "--keep-text", "testdata/a.txt")
	if want := "--keep-text keeps texts that a lean archive (--lean) does not: give one of them"; r.code != 2 || !strings.Contains(r.stderr, want) {
		t.Errorf("add --lean --keep-text: exit %d, stderr %q; want 2 and %q", r.code, r.stderr, want)
	}
}
