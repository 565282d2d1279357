package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/neardup/neardup/reuse"
)

const (
	reuseLong  = "The committee approved the budget on Tuesday after a long debate about school funding and road repairs in the northern districts. Heavy rain is expected across the region this weekend, and officials urged residents near the river to prepare sandbags early. A new library will open downtown next spring with a children's wing, a maker space and extended evening hours for students."
	reusePiece = "Heavy rain is expected across the region this weekend, and officials urged residents near the river to prepare sandbags early. The mayor did not comment on the plans for the summer festival, which remain uncertain after the budget vote."
)

// expectedReuse is what the reuse index answers for piece against long,
// measured by the library.
func expectedReuse(t *testing.T) reuse.Match {
	b, err := reuse.NewBatch(t.Context(), nil, reuse.Params{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if _, err := b.Add(t.Context(), "long.txt", reuseLong); err != nil {
		t.Fatal(err)
	}
	ps, err := b.Add(t.Context(), "piece.txt", reusePiece)
	if err != nil || len(ps) != 1 {
		t.Fatalf("Batch: %v, %v", ps, err)
	}
	return reuse.Match{ID: "long.txt", Here: ps[0].BShare, There: ps[0].AShare}
}

// check --reuse lists the archived articles that share passages with
// the article; add --reuse makes the reuse index; dedup --reuse-pairs
// writes the reuse pairs.
func TestReuseCommands(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	long, piece := filepath.Join(tmp, "long.txt"), filepath.Join(tmp, "piece.txt")
	for path, text := range map[string]string{long: reuseLong, piece: reusePiece} {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want := expectedReuse(t)
	idx := filepath.Join(tmp, "idx")
	if r := runCLI(t, "add", "--reuse", "--keep-text", "--index", idx, "--segmenter", "gse", long); r.code != 0 {
		t.Fatalf("add --reuse: exit %d: %s", r.code, r.stderr)
	}
	r := runCLI(t, "check", "--reuse", "--index", idx, "--segmenter", "gse", piece)
	text := fmt.Sprintf("%s: partial reuse: 1 archived article shares passages with it\n    %s\n        %.0f%% of this article is in it, %.0f%% of it is in this article (1 passage, ",
		piece, long, 100*want.Here, 100*want.There)
	if r.code != 0 || !strings.Contains(r.stdout, text) {
		t.Errorf("check --reuse: exit %d\n%s%s\nwant it to hold\n%s", r.code, r.stdout, r.stderr, text)
	}
	r = runCLI(t, "check", "--reuse", "--json", "--index", idx, "--segmenter", "gse", piece)
	var j struct {
		Verdict string
		Reuse   reuse.Answer
	}
	if err := json.Unmarshal([]byte(r.stdout), &j); err != nil || r.code != 0 {
		t.Fatalf("check --reuse --json: exit %d, %v\n%s%s", r.code, err, r.stdout, r.stderr)
	}
	if j.Verdict != "new" || len(j.Reuse.Matches) != 1 || j.Reuse.Matches[0].ID != long || j.Reuse.Matches[0].Here != want.Here ||
		j.Reuse.Matches[0].There != want.There || len(j.Reuse.Matches[0].Passages) != 1 {
		t.Errorf("check --reuse --json: %s, want %s with shares %v, %v and one passage", r.stdout, long, want.Here, want.There)
	}
	// A higher --min-share leaves it out.
	if r := runCLI(t, "check", "--reuse", "--min-share", "0.99", "--index", idx, "--segmenter", "gse", piece); r.code != 0 || strings.Contains(r.stdout, "partial reuse") {
		t.Errorf("check --reuse --min-share 0.99: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if r := runCLI(t, "check", "--reuse", "--min-share", "0", "--index", idx, "--segmenter", "gse", piece); r.code != 2 || !strings.Contains(r.stderr, "--min-share 0: want above 0") {
		t.Errorf("check --min-share 0: exit %d\n%s", r.code, r.stderr)
	}

	// An archive made without a reuse index says how to get one.
	plain := filepath.Join(tmp, "plain")
	if r := runCLI(t, "add", "--index", plain, "--segmenter", "gse", long); r.code != 0 {
		t.Fatalf("add: exit %d: %s", r.code, r.stderr)
	}
	for _, args := range [][]string{{"check", "--reuse", "--index", plain, "--segmenter", "gse", piece}, {"add", "--reuse", "--index", plain, "--segmenter", "gse", piece}} {
		if r := runCLI(t, args...); r.code != 2 || !strings.Contains(r.stderr, "has no reuse index: one is made when an archive is created with --reuse") {
			t.Errorf("%s: exit %d\n%s", strings.Join(args[:2], " "), r.code, r.stderr)
		}
	}

	out := filepath.Join(tmp, "reuse.jsonl")
	if r := runCLI(t, "dedup", "--segmenter", "gse", "--reuse-pairs", out, long, piece); r.code != 0 {
		t.Fatalf("dedup --reuse-pairs: exit %d: %s", r.code, r.stderr)
	}
	line, err := json.Marshal(reuse.Pair{A: long, B: piece, AShare: want.There, BShare: want.Here})
	if err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, out); got != string(line)+"\n" {
		t.Errorf("--reuse-pairs file:\n%s\nwant\n%s", got, line)
	}
}

// Writers that do not ask for --reuse file their articles in an
// archive's reuse index all the same, and so does dedup --index.
func TestReuseWriters(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	long, piece := filepath.Join(tmp, "long.txt"), filepath.Join(tmp, "piece.txt")
	for path, text := range map[string]string{long: reuseLong, piece: reusePiece} {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	idx := filepath.Join(tmp, "idx")
	if r := runCLI(t, "add", "--reuse", "--keep-text", "--index", idx, "--segmenter", "gse", piece); r.code != 0 {
		t.Fatalf("add --reuse: exit %d: %s", r.code, r.stderr)
	}
	if r := runCLI(t, "add", "--keep-text", "--index", idx, "--segmenter", "gse", long); r.code != 0 {
		t.Fatalf("add: exit %d: %s", r.code, r.stderr)
	}
	r := runCLI(t, "check", "--reuse", "--index", idx, "--segmenter", "gse", "--id", "new", piece)
	if r.code != 1 || !strings.Contains(r.stdout, "partial reuse: 2 archived articles share passages with it") {
		t.Errorf("check --reuse after a plain add: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	// An article that shares piece's first sentence and nothing else with
	// the archive, deduplicated into it: an original whose passages are
	// filed, so that check --reuse finds it.
	mixed := filepath.Join(tmp, "mixed.txt")
	if err := os.WriteFile(mixed, []byte("Heavy rain is expected across the region this weekend, and officials urged residents near the river to prepare sandbags early. "+
		"Farmers in the valley reported a strong harvest of apples and pears, and the cooperative plans to build a second cold store before winter. "+
		"The orchestra announced its autumn season, with three premieres and a free concert in the park for families."), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := runCLI(t, "dedup", "--index", idx, "--segmenter", "gse", mixed); r.code != 0 || !strings.Contains(r.stderr, "1 unique") {
		t.Fatalf("dedup --index on a reuse archive: exit %d\n%s", r.code, r.stderr)
	}
	r = runCLI(t, "check", "--reuse", "--index", idx, "--segmenter", "gse", "--id", "new", piece)
	if r.code != 1 || !strings.Contains(r.stdout, "partial reuse: 3 archived articles share passages with it") || !strings.Contains(r.stdout, mixed) {
		t.Errorf("check --reuse after dedup --index: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// add --fingerprints into an archive with a reuse index is refused:
// bare fingerprints carry no text, so their documents would have no
// passages and the reuse index would silently miss them.
func TestReuseRefusesFingerprints(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	long := filepath.Join(tmp, "long.txt")
	if err := os.WriteFile(long, []byte(reuseLong), 0o644); err != nil {
		t.Fatal(err)
	}
	fps := filepath.Join(tmp, "fps.txt")
	if err := os.WriteFile(fps, []byte("other 0123456789abcdef\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	idx := filepath.Join(tmp, "idx")
	if r := runCLI(t, "add", "--reuse", "--keep-text", "--index", idx, long); r.code != 0 {
		t.Fatalf("add --reuse: exit %d: %s", r.code, r.stderr)
	}
	r := runCLI(t, "add", "--index", idx, "--fingerprints", fps)
	want := "index " + idx + " has a reuse index, which bare fingerprints cannot fill (they carry no text): add the articles instead of --fingerprints"
	if r.code != 2 || !strings.Contains(r.stderr, want) {
		t.Errorf("add --fingerprints into a reuse archive: exit %d, stderr %q; want exit 2 saying %q", r.code, r.stderr, want)
	}
	if r := runCLI(t, "stats", "--json", "--index", idx); r.code != 0 || !strings.Contains(r.stdout, `"docs":1,`) {
		t.Errorf("stats after the refused add: exit %d: %s%s; want 1 document", r.code, r.stdout, r.stderr)
	}
}
