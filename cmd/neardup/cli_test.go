package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/neardup/neardup/dedup"
	"github.com/neardup/neardup/input"
	"github.com/neardup/neardup/segment"
)

// samplePath is the sample corpus of the repository's README.
const samplePath = "../../testdata/sample/sample.jsonl"

func TestCheckExitCodes(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	idx := filepath.Join(tmp, "idx")
	if r := runCLI(t, "add", "--index", idx, "testdata/a.txt"); r.code != 0 {
		t.Fatalf("add: exit %d: %s", r.code, r.stderr)
	}
	tests := []struct {
		name   string
		stdin  string
		args   []string
		code   int
		out    string // in stdout
		errOut string // in stderr
	}{
		{"none", "", []string{"testdata/c.txt"}, 0, "no near-duplicate in " + idx + " (1 article checked)", ""},
		{"near", "", []string{"testdata/b.txt"}, 1, "near duplicate   testdata/a.txt", ""},
		{"exact", "", []string{"--id", "copy", "testdata/a.txt"}, 1, "exact duplicate  testdata/a.txt", ""},
		{"stdin", readFile(t, "testdata/b.txt"), nil, 1, "-: 1 near-duplicate in", ""},
		// A bad record is reported with the articles, and is not an
		// error unless --strict.
		{"too short", "你好", nil, 0, "not checked: stdin: too few keywords to fingerprint: 1 keyword, need 4\nno near-duplicate in " + idx + " (0 articles checked); 1 not checked\n", "too few keywords"},
		{"too short, strict", "你好", []string{"--strict"}, 2, "", "neardup: --strict: stdin: too few keywords"},
		{"found and too short", "你好", []string{"testdata/b.txt", "-"}, 1, "not checked: stdin: too few keywords", ""},
		// Issue 19 item 7: a missing file is an error (exit 2), and the
		// article that matched is reported all the same.
		{"found and failed", "", []string{"testdata/b.txt", "no-such-file.txt"}, 2,
			"near duplicate   testdata/a.txt", "neardup: 1 input could not be read to the end; 1 of the articles read had near-duplicates\n"},
		{"no index", "", []string{"--index", filepath.Join(tmp, "nothing"), "testdata/b.txt"}, 2, "", "no index in"},
		{"bad fingerprint", "", []string{"--fingerprint", "xyz"}, 2, "", "not hexadecimal"},
		{"bad distance", "", []string{"--max-distance", "9", "testdata/b.txt"}, 2, "", "answers distances up to 3"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			args := append([]string{"check", "--index", idx}, tt.args...)
			r := cliRun{stdin: tt.stdin}.run(t, args...)
			if r.code != tt.code {
				t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", r.code, tt.code, r.stdout, r.stderr)
			}
			if !strings.Contains(r.stdout, tt.out) || !strings.Contains(r.stderr, tt.errOut) {
				t.Errorf("stdout lacks %q or stderr lacks %q:\nstdout: %s\nstderr: %s", tt.out, tt.errOut, r.stdout, r.stderr)
			}
		})
	}
	// Per article with --json: the missing file is a line with "error",
	// in its place.
	r := runCLI(t, "check", "--index", idx, "--json", "testdata/b.txt", "no-such-file.txt", "testdata/c.txt")
	lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
	if r.code != 2 || len(lines) != 3 || !strings.Contains(lines[0], `"id":"testdata/b.txt"`) || !strings.Contains(lines[0], `"id":"testdata/a.txt"`) ||
		lines[1] != `{"source":"no-such-file.txt","matches":[],"added":false,"error":"no-such-file.txt: stat: no such file or directory"}` ||
		!strings.Contains(lines[2], `"id":"testdata/c.txt"`) {
		t.Errorf("check --json with a missing file: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	// The exit statuses are documented in the help.
	r = runCLI(t, "check", "--help")
	for _, want := range []string{"0   no near-duplicate found", "1   at least one near-duplicate found", "2   an error"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("check --help lacks %q", want)
		}
	}
}

func TestEnvIndex(t *testing.T) {
	t.Parallel()
	idx := filepath.Join(t.TempDir(), "env-idx")
	env := cliRun{env: []string{"NEARDUP_INDEX=" + idx}}
	if r := env.run(t, "add", "testdata/a.txt"); r.code != 0 || !strings.Contains(r.stdout, "added 1 document to "+idx) {
		t.Fatalf("add with NEARDUP_INDEX: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if r := env.run(t, "check", "testdata/b.txt"); r.code != 1 {
		t.Errorf("check with NEARDUP_INDEX: exit %d, want 1\n%s%s", r.code, r.stdout, r.stderr)
	}
	if r := env.run(t, "stats", "--json"); !strings.Contains(r.stdout, `"docs":1,`) {
		t.Errorf("stats with NEARDUP_INDEX: %s%s", r.stdout, r.stderr)
	}
	// --index wins over the variable.
	other := filepath.Join(t.TempDir(), "other")
	if r := env.run(t, "check", "--index", other, "testdata/b.txt"); r.code != 2 || !strings.Contains(r.stderr, "no index in "+other) {
		t.Errorf("check --index with NEARDUP_INDEX: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	// dedup ignores the variable: a corpus never lands in the archive by accident.
	if r := env.run(t, "dedup", "testdata/c.txt"); r.code != 0 {
		t.Fatalf("dedup: exit %d: %s", r.code, r.stderr)
	}
	if r := env.run(t, "stats", "--json"); !strings.Contains(r.stdout, `"docs":1,`) {
		t.Errorf("dedup added to $NEARDUP_INDEX: %s", r.stdout)
	}
	// Without either, commands that need an index say so.
	if r := runCLI(t, "check", "testdata/b.txt"); r.code != 2 || !strings.Contains(r.stderr, "give --index DIR or set NEARDUP_INDEX") {
		t.Errorf("check without index: exit %d: %s", r.code, r.stderr)
	}
}

// dedupOutputs runs dedup with all four outputs into dir and returns
// their contents, pairs, clusters, unique, rejects.
func dedupOutputs(t *testing.T, c cliRun, dir string, args ...string) (result, [4]string) {
	t.Helper()
	names := [4]string{"pairs", "clusters", "unique", "rejects"}
	full := append([]string{"dedup"}, args...)
	for _, n := range names {
		full = append(full, "--"+n, filepath.Join(dir, n+".jsonl"))
	}
	r := c.run(t, full...)
	var outs [4]string
	for i, n := range names {
		b, err := os.ReadFile(filepath.Join(dir, n+".jsonl"))
		if err != nil && r.code == 0 {
			t.Fatalf("%s: %v", n, err)
		}
		outs[i] = string(b)
	}
	return r, outs
}

func TestDedupWorkersIdentical(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	abs, err := filepath.Abs(samplePath)
	if err != nil {
		t.Fatal(err)
	}
	var first [4]string
	for i, w := range []string{"1", "8"} {
		dir := filepath.Join(tmp, "w"+w)
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		// (Not articles.jsonl: it shares ids with the sample, and the
		// reason of a duplicate-id reject names the time the first was
		// added.)
		r, outs := dedupOutputs(t, cliRun{}, dir, "--workers", w, abs, "testdata/a.txt", "testdata/b.txt", "no-such-file")
		if r.code != 2 { // no-such-file
			t.Fatalf("--workers %s: exit %d: %s", w, r.code, r.stderr)
		}
		if i == 0 {
			first = outs
			if countLines(outs[0]) < 20 || countLines(outs[1]) < 10 || countLines(outs[2]) < 200 {
				t.Fatalf("sample: %d pairs, %d clusters, %d unique: too few to compare", countLines(outs[0]), countLines(outs[1]), countLines(outs[2]))
			}
			continue
		}
		for j, n := range []string{"pairs", "clusters", "unique", "rejects"} {
			if outs[j] != first[j] {
				t.Errorf("--%s differs between --workers 1 and --workers %s:\n%s", n, w, diff(first[j], outs[j]))
			}
		}
	}
}

func TestDedupRejects(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	good := strings.Split(strings.TrimSpace(readFile(t, "testdata/articles.jsonl")), "\n")
	lines := []string{
		good[0],
		`{"id": "broken", "text": "unterminated`,
		good[1],
		`{"id": "number", "text": 42}`,
		`{"id": "no-text", "title": "no text field"}`,
		"{\"id\": \"bad-utf8\", \"text\": \"\xff\xfe bad bytes\"}",
		good[5], // an exact copy of good[0]
		strings.Replace(good[2], `"id":"`, `"id":"`+"lo-help-en-US/text/sbasic/guide/access2base"+`","old":"`, 1), // the id of good[0]
		`not json at all`,
		good[13], // too short
	}
	in := filepath.Join(tmp, "bad.jsonl")
	if err := os.WriteFile(in, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r, outs := dedupOutputs(t, cliRun{}, tmp, in)
	if r.code != 0 {
		t.Fatalf("exit %d, want 0 (rejects do not fail a run): %s", r.code, r.stderr)
	}
	if !strings.Contains(r.stderr, "10 records: 2 unique, 1 exact duplicate, 0 near duplicates, 1 too short, 6 rejected, 0 input errors") {
		t.Errorf("summary:\n%s", r.stderr)
	}
	if !strings.Contains(r.stderr, "6 bad records or inputs written to "+filepath.Join(tmp, "rejects.jsonl")) {
		t.Errorf("summary does not name the rejects file:\n%s", r.stderr)
	}
	var rejects []input.Reject
	for _, l := range strings.Split(strings.TrimSpace(outs[3]), "\n") {
		var j input.Reject
		if err := json.Unmarshal([]byte(l), &j); err != nil {
			t.Fatalf("rejects line %q: %v", l, err)
		}
		rejects = append(rejects, j)
	}
	want := []struct {
		line   int
		field  string
		reason string
	}{
		{2, "", "JSON"},
		{4, "text", "not a string"},
		{5, "text", "missing"},
		{6, "", "invalid UTF-8"},
		{8, "id", "duplicate id"},
		{9, "", "JSON"},
	}
	if len(rejects) != len(want) {
		t.Fatalf("%d rejects, want %d:\n%s", len(rejects), len(want), outs[3])
	}
	for i, w := range want {
		j := rejects[i]
		if j.Source != in || j.Line != w.line || j.Field != w.field || !strings.Contains(j.Reason, w.reason) || j.Raw == "" {
			t.Errorf("reject %d = %+v, want line %d field %q reason containing %q, with raw", i, j, w.line, w.field, w.reason)
		}
	}
	if rejects[3].RawBase64 == "" {
		t.Errorf("invalid UTF-8 line: no raw_base64")
	}
	// Good records are processed: unique holds lines 1, 3 and 10 verbatim,
	// and the exact copy is paired with line 1.
	if want := good[0] + "\n" + good[1] + "\n" + good[13] + "\n"; outs[2] != want {
		t.Errorf("unique:\n%s\nwant:\n%s", outs[2], want)
	}
	if !strings.Contains(outs[0], `"b":"archive/access2base-copy","distance":0,"exact":true`) {
		t.Errorf("pairs:\n%s", outs[0])
	}

	// Without --rejects the bad records are listed on stderr.
	r = runCLI(t, "dedup", in)
	if r.code != 0 || strings.Count(r.stderr, "neardup: rejected: ") != 6 {
		t.Errorf("exit %d, stderr:\n%s", r.code, r.stderr)
	}
	// --strict stops at the first bad record and writes nothing.
	strictDir := filepath.Join(tmp, "strict")
	if err := os.Mkdir(strictDir, 0o755); err != nil {
		t.Fatal(err)
	}
	r, _ = dedupOutputs(t, cliRun{}, strictDir, "--strict", in)
	if r.code != 2 || !strings.Contains(r.stderr, "--strict: "+in+":2: ") {
		t.Errorf("--strict: exit %d: %s", r.code, r.stderr)
	}
	if entries, _ := os.ReadDir(strictDir); len(entries) != 0 {
		t.Errorf("--strict left files: %v", entries)
	}
}

func TestDedupInputError(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	r, outs := dedupOutputs(t, cliRun{}, tmp, "testdata/a.txt", "no-such-file.jsonl", "testdata/b.txt")
	if r.code != 2 || !strings.Contains(r.stderr, "1 input could not be read to the end") {
		t.Errorf("exit %d, stderr:\n%s", r.code, r.stderr)
	}
	// The outputs are written all the same, with the error in rejects.
	if !strings.Contains(outs[0], `{"a":"testdata/a.txt","b":"testdata/b.txt",`) || !strings.Contains(outs[3], `"source":"no-such-file.jsonl"`) {
		t.Errorf("pairs:\n%s\nrejects:\n%s", outs[0], outs[3])
	}
	// Whole-file articles go to --unique as JSON lines.
	var u dedup.UniqueArticle
	if err := json.Unmarshal([]byte(outs[2]), &u); err != nil || u.ID != "testdata/a.txt" || u.Text != readFile(t, "testdata/a.txt") {
		t.Errorf("unique: %v\n%s", err, outs[2])
	}
}

func TestAddFingerprints(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	idx := filepath.Join(tmp, "idx")
	fps := filepath.Join(tmp, "fps.tsv")
	data := "doc-1\td6114e778fe93130\n" +
		"doc-2\t0837b550cb4e850a\r\n" +
		"\n" +
		"no tab here\n" +
		"doc-3\tnot-hex\n" +
		"id\twith tab\t7f33f9b9ecb4aa73\n" +
		"\td6114e778fe93131\n" +
		"doc-2\t0837b550cb4e850a\n" // a repeat: the index keeps one
	if err := os.WriteFile(fps, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	// --strict stops at the first bad line.
	r := runCLI(t, "add", "--strict", "--index", filepath.Join(tmp, "strict"), "--segmenter", "gse", "--fingerprints", fps)
	if want := "neardup: --strict: " + fps + ":4: want \"id<TAB>fingerprint\", found no tab\n"; r.code != 2 || r.stderr != want {
		t.Errorf("--strict: exit %d: %q, want exit 2 and %q", r.code, r.stderr, want)
	}
	r = runCLI(t, "add", "--index", idx, "--segmenter", "gse", "--fingerprints", fps)
	if r.code != 0 {
		t.Errorf("exit %d, want 0: bad lines are reported, not errors", r.code)
	}
	for _, want := range []string{fps + ":4: want \"id<TAB>fingerprint\", found no tab", fps + ":5: simhash: invalid fingerprint", fps + ":7: empty id"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
	// Into the new index they are loaded with index.Load.
	if !strings.Contains(r.stdout, "added 4 documents to "+idx+" (1 replaced a document with the same id); the index holds 3 documents") {
		t.Errorf("stdout: %s", r.stdout)
	}
	// Adding them again (with Add: the index is not empty) replaces them.
	r = runCLI(t, "add", "--index", idx, "--segmenter", "gse", "--fingerprints", fps)
	if !strings.Contains(r.stdout, "added 4 documents to "+idx+" (4 replaced a document with the same id); the index holds 3 documents") {
		t.Errorf("second add: %s", r.stdout)
	}
	r = runCLI(t, "check", "--index", idx, "--json", "--fingerprint", "d6114e778fe93132")
	want := `{"fingerprint":"d6114e778fe93132","verified":false,"matches":[{"id":"doc-1","title":"","distance":1,"similarity":0.984375}]}` + "\n"
	if r.code != 1 || r.stdout != want {
		t.Errorf("check --fingerprint: exit %d\n%s\nwant\n%s%s", r.code, r.stdout, want, r.stderr)
	}
	// The index was created for the gse analyzer: the jieba one is refused.
	if slices.Contains(segment.Backends(), segment.BackendJieba) {
		r = runCLI(t, "check", "--index", idx, "--segmenter", "jieba", "testdata/a.txt")
		if r.code != 2 || !strings.Contains(r.stderr, "analyzer") {
			t.Errorf("analyzer mismatch: exit %d: %s", r.code, r.stderr)
		}
	}
}

func TestMaxDistanceIndexLayout(t *testing.T) {
	t.Parallel()
	idx := filepath.Join(t.TempDir(), "k6")
	if r := runCLI(t, "add", "--index", idx, "--max-distance", "6", "testdata/a.txt"); r.code != 0 {
		t.Fatalf("add: exit %d: %s", r.code, r.stderr)
	}
	r := runCLI(t, "stats", "--index", idx, "--json")
	if !strings.Contains(r.stdout, `"blocks":8,"max_distance":6,"tables":28`) {
		t.Errorf("stats: %s", r.stdout)
	}
	if r := runCLI(t, "check", "--index", idx, "--max-distance", "6", "testdata/b.txt"); r.code != 1 {
		t.Errorf("check -k 6: exit %d: %s%s", r.code, r.stdout, r.stderr)
	}
}

func TestVersionAndHelp(t *testing.T) {
	t.Parallel()
	r := runCLI(t, "--version")
	if r.code != 0 || !strings.HasPrefix(r.stdout, "neardup ") || !strings.Contains(r.stdout, "analyzer format:    v2") ||
		!strings.Contains(r.stdout, "max distance:       3 bits of 64") {
		t.Errorf("--version: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = runCLI(t, "--help")
	for _, cmd := range []string{"fingerprint", "compare", "check", "add", "dedup", "eval", "url", "idf", "stats", "delete"} {
		if !strings.Contains(r.stdout, "   "+cmd) {
			t.Errorf("--help lacks %s:\n%s", cmd, r.stdout)
		}
	}
}

// dedup --index reports what the exact-duplicate filter saved: on the
// first run nearly every content hash is new to the index (the
// duplicates are found among the documents of their batch, not yet
// written), but three exact copies in the second batch (records 257 to
// 320) have their originals in the first, which the index holds: the
// filter sends those 3 lookups to it; the second run finds every record
// in the index by its id, queries nothing, and says so.
func TestDedupIndexFilterSummary(t *testing.T) {
	t.Parallel()
	idx := filepath.Join(t.TempDir(), "idx")
	sample, err := filepath.Abs(samplePath)
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []struct{ lookups, saved int }{{318, 315}, {0, 0}} {
		r := runCLI(t, "dedup", "--index", idx, "--json", sample)
		if r.code != 0 {
			t.Fatalf("run %d: exit %d: %s", i+1, r.code, r.stderr)
		}
		var sum struct {
			Lookups int `json:"filter_lookups"`
			Saved   int `json:"filter_reads_saved"`
		}
		if err := json.Unmarshal([]byte(r.stdout), &sum); err != nil {
			t.Fatalf("run %d: %v: %s", i+1, err, r.stdout)
		}
		if sum.Lookups != want.lookups || sum.Saved != want.saved {
			t.Errorf("run %d: filter %d lookups, %d saved; want %d, %d", i+1, sum.Lookups, sum.Saved, want.lookups, want.saved)
		}
		line := fmt.Sprintf("exact-duplicate filter: %d content-hash lookups, %d (", want.lookups, want.saved)
		if i == 1 {
			line = "this run had finished before: all 318 records were already in the index"
		}
		if !strings.Contains(r.stderr, line) {
			t.Errorf("run %d: stderr lacks %q:\n%s", i+1, line, r.stderr)
		}
	}
}
