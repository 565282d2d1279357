package dedup

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/index/archive"
	"github.com/neardup/neardup/index/memstore"
	"github.com/neardup/neardup/input"
	"github.com/neardup/neardup/internal/testfixtures"
	"github.com/neardup/neardup/report"
)

// dedupTexts are the texts of dedupInput's records that are fingerprinted
// (report.Summary.Bytes counts those): two originals, an exact copy (only width
// and case differ), an edited copy, and the text of the record that reuses
// an id (rejected once fingerprinted, when its id is looked up).
func dedupTexts() (en1, zh1, en2, zh2, reused string) {
	en1 = testfixtures.EN + " The central bank also said it would keep reducing its bond holdings through next year, and officials pointed to wages."
	zh1 = testfixtures.ZH
	return en1, zh1, strings.ToUpper(en1), strings.Replace(zh1, "新华社北京10月30日电 ", "本报讯 ", 1),
		"A completely different story about river floods, bridges, rain, valleys and the officials who closed the old roads overnight."
}

// dedupInput is a small JSONL corpus: dedupTexts, with a too-short
// record and a bad line before the last.
func dedupInput() string {
	en1, zh1, en2, zh2, reused := dedupTexts()
	lines := []string{
		fmt.Sprintf(`{"id":"en1","text":%q}`, en1),
		fmt.Sprintf(`{"id":"zh1","text":%q}`, zh1),
		fmt.Sprintf(`{"id":"en2","text":%q}`, en2),
		fmt.Sprintf(`{"id":"zh2","text":%q}`, zh2),
		`{"id":"short","text":"你好"}`,
		`{"id":"bad","text":42}`,
		fmt.Sprintf(`{"id":"en1","text":%q}`, reused),
	}
	return strings.Join(lines, "\n") + "\n"
}

type dedupResult struct {
	ID      string
	Verdict string
	Match   string
	Exact   bool
	Err     string
}

func runDedup(t *testing.T, store *index.Index, opts *Options) ([]dedupResult, report.Summary) {
	t.Helper()
	a := testfixtures.Analyzer(t, "")
	r := input.NewReader([]string{"-"}, strings.NewReader(dedupInput()), nil)
	var got []dedupResult
	sum, err := Run(context.Background(), r, a, store, opts, func(o *Outcome) error {
		res := dedupResult{ID: o.Record.ID, Verdict: o.Verdict.String()}
		if len(o.Matches) > 0 {
			res.Match, res.Exact = o.Matches[0].ID, o.Exact()
		}
		if o.Err != nil {
			res.Err = o.Err.Error()
		}
		got = append(got, res)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return got, sum
}

func TestDedup(t *testing.T) {
	want := []dedupResult{
		{ID: "en1", Verdict: "unique"},
		{ID: "zh1", Verdict: "unique"},
		{ID: "en2", Verdict: "duplicate", Match: "en1", Exact: true},
		{ID: "zh2", Verdict: "duplicate", Match: "zh1"},
		{ID: "short", Verdict: "too-short", Err: "too few keywords to fingerprint: 1 keyword, need 4"},
		{Verdict: "rejected", Err: `stdin:6: field "text": not a string (number)`},
		{ID: "en1", Verdict: "rejected", Err: `stdin:7: field "id": duplicate id "en1": an earlier article has it (record 1 of this input)`},
	}
	for _, workers := range []int{1, 2, 5} {
		mem, err := memstore.Open(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		got, sum := runDedup(t, mem, &Options{Workers: workers})
		if !reflect.DeepEqual(got, want) {
			t.Errorf("workers %d:\n got %+v\nwant %+v", workers, got, want)
		}
		sum.Elapsed = 0
		en1, zh1, en2, zh2, reused := dedupTexts()
		wantSum := report.Summary{Records: 7, Unique: 2, Exact: 1, Near: 1, TooShort: 1, Rejected: 2, Bytes: int64(len(en1) + len(zh1) + len(en2) + len(zh2) + len(reused)), Workers: workers}
		if sum != wantSum {
			t.Errorf("workers %d: summary %+v, want %+v", workers, sum, wantSum)
		}
	}
}

// TestDedupResume runs a job into a store that already holds what an
// interrupted run of the same job added (the first original and, out of
// order, nothing else) and checks the outcome equals a fresh run's.
func TestDedupResume(t *testing.T) {
	fresh, err := memstore.Open(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	now := func() time.Time { return time.Unix(1e9, 0) }
	want, _ := runDedup(t, fresh, &Options{Job: "job1", Now: now})

	// The interrupted run got as far as storing zh1 (record 2).
	partial, err := memstore.Open(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	zh1, err := fresh.Get(context.Background(), "zh1")
	if err != nil {
		t.Fatal(err)
	}
	en1, err := fresh.Get(context.Background(), "en1")
	if err != nil {
		t.Fatal(err)
	}
	if err := partial.Add(context.Background(), en1, zh1); err != nil {
		t.Fatal(err)
	}
	got, sum := runDedup(t, partial, &Options{Job: "job1", Now: now, Batch: 3})
	if !reflect.DeepEqual(got, want) {
		t.Errorf("resumed:\n got %+v\nwant %+v", got, want)
	}
	if sum.Unique != 2 {
		t.Errorf("resumed summary %+v, want 2 unique", sum)
	}
	// Another job over the same records finds them archived, with the
	// verdicts they had: the same outcomes, none rejected.
	// The record that reuses en1's id with another text is told that
	// the archive holds another text under it (record 1 was not added
	// again: it was archived).
	got, sum = runDedup(t, fresh, &Options{Job: "job2", Now: now})
	last := len(want) - 1
	if !reflect.DeepEqual(got[:last], want[:last]) {
		t.Errorf("another job:\n got %+v\nwant %+v", got[:last], want[:last])
	}
	wantErr := `stdin:7: field "id": id "en1" is archived with another text (added 2001-09-09T01:46:40Z by job job1, record 1); the archive keeps that one: delete it first to replace it`
	if got[last].Verdict != "rejected" || got[last].Err != wantErr {
		t.Errorf("another job, last record: %+v, want rejected: %s", got[last], wantErr)
	}
	if sum.Archived != 4 || sum.Resumed != 0 || sum.Rejected != 2 {
		t.Errorf("another job: summary %+v, want 4 archived (2 unique, 2 duplicates), 2 rejected as before", sum)
	}
}

// TestJobID: a run's job changes with its settings and with its input's
// size or modification time (a grown daily dump is another job), not
// with how the path is written; standard input is never the same job.
func TestJobID(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "in.jsonl")
	if err := os.WriteFile(path, []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	o := &input.Options{}
	id := JobID("an", []string{path}, o, 3, 0.7)
	if again := JobID("an", []string{filepath.Join(dir, ".", "in.jsonl")}, o, 3, 0.7); again != id {
		t.Errorf("the same file under another path: job %s, want %s", again, id)
	}
	for name, other := range map[string]string{
		"analyzer":    JobID("other", []string{path}, o, 3, 0.7),
		"distance":    JobID("an", []string{path}, o, 2, 0.7),
		"min-content": JobID("an", []string{path}, o, 3, 0.8),
		"field":       JobID("an", []string{path}, &input.Options{IDField: "url"}, 3, 0.7),
		"stdin":       JobID("an", []string{"-"}, o, 3, 0.7),
	} {
		if other == id {
			t.Errorf("another %s gives the same job", name)
		}
	}
	if a, b := JobID("an", []string{"-"}, o, 3, 0.7), JobID("an", []string{"-"}, o, 3, 0.7); a == b {
		t.Errorf("two runs on standard input share job %s", a)
	}
	if err := os.WriteFile(path, []byte("{}\n{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if grown := JobID("an", []string{path}, o, 3, 0.7); grown == id {
		t.Errorf("a grown input gives the same job %s", id)
	}
}

// A lean archive in memory keeps no title and no keywords, and a match
// has none whether its document was decided in the same batch as the
// record or in an earlier one: Batch changes nothing.
func TestLeanMatchesAnyBatch(t *testing.T) {
	en1, zh1, en2, zh2, _ := dedupTexts()
	var lines []string
	for _, r := range [][3]string{{"en1", "Rates held", en1}, {"zh1", "新华社", zh1}, {"en2", "RATES HELD", en2}, {"zh2", "本报", zh2}} {
		lines = append(lines, fmt.Sprintf(`{"id":%q,"title":%q,"text":%q}`, r[0], r[1], r[2]))
	}
	type match struct {
		ID, Match, Title string
		Keywords         int
	}
	want := []match{{"en2", "en1", "", 0}, {"zh2", "zh1", "", 0}}
	a := testfixtures.Analyzer(t, "")
	for _, batch := range []int{1, 256} {
		x, err := archive.Memory(t.Context(), &archive.Options{Lean: true})
		if err != nil {
			t.Fatal(err)
		}
		r := input.NewReader([]string{"-"}, strings.NewReader(strings.Join(lines, "\n")+"\n"), nil)
		var got []match
		_, err = Run(t.Context(), r, a, x, &Options{Batch: batch}, func(o *Outcome) error {
			if len(o.Matches) > 0 {
				m := &o.Matches[0]
				got = append(got, match{o.Record.ID, m.ID, m.Title, len(m.Keywords)})
			}
			return nil
		})
		x.Close()
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("batch %d: matches %+v, want %+v", batch, got, want)
		}
	}
}
