package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDedupRerunGrownInput (issue #19, item 2): re-running dedup --index
// on a daily cumulative dump, grown by one line, or with another
// setting, reports the records the index holds already with their
// verdicts then, in --pairs, --clusters and --unique as the first run
// did; a finished run run again says so; a changed text under a known id
// is rejected and said. On main before the fix the grown input's
// records were "rejected: duplicate id … added by job …", in none of the
// outputs, and the unchanged input's re-run said "resumed an interrupted
// run".
func TestDedupRerunGrownInput(t *testing.T) {
	tmp := t.TempDir()
	sample := readFile(t, filepath.Join("..", "..", "testdata", "sample", "sample.jsonl"))
	in := filepath.Join(tmp, "dump.jsonl")
	if err := os.WriteFile(in, []byte(sample), 0o644); err != nil {
		t.Fatal(err)
	}
	idx := filepath.Join(tmp, "idx")
	run := func(name string, extra ...string) (pairs, clusters, unique, stderr string) {
		t.Helper()
		out := filepath.Join(tmp, name)
		args := append([]string{"dedup", "--index", idx, "--pairs", out + ".pairs", "--clusters", out + ".clusters", "--unique", out + ".unique"}, extra...)
		r := runCLI(t, append(args, in)...)
		if r.code != 0 {
			t.Fatalf("%s: exit %d: %s", name, r.code, r.stderr)
		}
		return readFile(t, out+".pairs"), readFile(t, out+".clusters"), readFile(t, out+".unique"), r.stderr
	}
	p1, c1, u1, e1 := run("first")
	if !strings.Contains(e1, "320 records: 236 unique, 14 exact duplicates, 68 near duplicates, 2 too short, 0 rejected") {
		t.Fatalf("first run: %s", e1)
	}

	p, c, u, e := run("again")
	if p != p1 || c != c1 || u != u1 {
		t.Errorf("the same input again: outputs differ from the first run's")
	}
	for _, want := range []string{"236 unique, 14 exact duplicates, 68 near duplicates, 2 too short, 0 rejected",
		"this run had finished before: all 318 records were already in the index, reported with their verdicts then"} {
		if !strings.Contains(e, want) {
			t.Errorf("the same input again: stderr lacks %q:\n%s", want, e)
		}
	}
	if strings.Contains(e, "resumed an interrupted run") {
		t.Errorf("the same input again claims to resume:\n%s", e)
	}

	// One line appended: an exact copy of the first article.
	var first struct{ ID, Text string }
	if err := json.Unmarshal([]byte(sample[:strings.IndexByte(sample, '\n')]), &first); err != nil {
		t.Fatal(err)
	}
	line := fmt.Sprintf(`{"id":"appended","text":%q}`, first.Text)
	if err := os.WriteFile(in, []byte(sample+line+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p, c, u, e = run("grown")
	wantPair := fmt.Sprintf(`{"a":%q,"b":"appended","distance":0,"exact":true,"similarity":1,"content":1}`+"\n", first.ID)
	if p != p1+wantPair || u != u1 || c == c1 || !strings.Contains(c, `{"id":"appended","distance":0,"exact":true,"content":1}`) {
		t.Errorf("grown input: pairs %d lines (want %d), unique same %v, clusters same %v", countLines(p), countLines(p1)+1, u == u1, c == c1)
	}
	for _, want := range []string{"321 records: 236 unique, 15 exact duplicates, 68 near duplicates, 2 too short, 0 rejected",
		"318 records were already in the index from earlier runs, reported with their verdicts then"} {
		if !strings.Contains(e, want) {
			t.Errorf("grown input: stderr lacks %q:\n%s", want, e)
		}
	}

	// Another setting: another job, the same verdicts.
	p, _, u, e = run("stricter", "--min-content", "0.8")
	if p != p1+wantPair || u != u1 || !strings.Contains(e, "319 records were already in the index from earlier runs") {
		t.Errorf("--min-content 0.8: pairs same %v, unique same %v:\n%s", p == p1+wantPair, u == u1, e)
	}

	// A changed text under a known id.
	changed := strings.Replace(sample, `"text":"`, `"text":"Changed. `, 1)
	if err := os.WriteFile(in, []byte(changed), 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, _, e = run("changed")
	for _, want := range []string{fmt.Sprintf(`field "id": id %q is archived with another text (added `, first.ID),
		"the archive keeps that one: delete it first to replace it", "1 record rejected: the index holds another text under the same id"} {
		if !strings.Contains(e, want) {
			t.Errorf("changed text: stderr lacks %q:\n%s", want, e)
		}
	}
}
