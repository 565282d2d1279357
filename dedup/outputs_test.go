package dedup

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/input"
)

// TestOutputs pins the output formats, line by line, for every verdict
// of Run: a copy of a copy names the member it matched, a whole-file
// article is written as an object, a line verbatim, a bad record as an
// input.Reject.
func TestOutputs(t *testing.T) {
	var pairs, unique, rejects, clusters strings.Builder
	w := &Outputs{Pairs: &pairs, Unique: &unique, Rejects: &rejects, Clusters: NewClusters("job")}
	outcomes := []Outcome{
		{Seq: 0, Record: input.Record{ID: "a", Raw: []byte(`{"id":"a","text":"x"}`)}, Verdict: Unique},
		{Seq: 1, Record: input.Record{ID: "b"}, Verdict: Duplicate, Matches: []index.Match{
			{ID: "a", Distance: 2, Similarity: 0.96875, Content: 0.81, Job: "job", Seq: 0},
			{ID: "z", Distance: 3, Similarity: 0.953125, Content: 0.7, Job: "old", Seq: 9},
		}},
		{Seq: 2, Record: input.Record{ID: "c<&>"}, Verdict: Duplicate, Matches: []index.Match{
			{ID: "b", Original: "a", Distance: 0, Similarity: 1, Content: 1, Exact: true, Job: "job", Seq: 1},
		}},
		{Seq: 3, Record: input.Record{ID: "d.txt", Title: "T", Text: "short"}, Verdict: TooShort, Err: errors.New("too short")},
		{Seq: 4, Record: input.Record{Source: "in.jsonl", Line: 5, Raw: []byte("{bad")}, Verdict: Rejected,
			Err: &input.RecordError{Source: "in.jsonl", Line: 5, Field: "text", Reason: "missing", Raw: []byte("{bad")}},
	}
	for i := range outcomes {
		if err := w.Write(&outcomes[i]); err != nil {
			t.Fatal(err)
		}
	}
	n, err := WriteClusters(&clusters, w.Clusters)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ name, got, want string }{
		{"pairs", pairs.String(), `{"a":"a","b":"b","distance":2,"exact":false,"similarity":0.96875,"content":0.81}
{"a":"z","b":"b","distance":3,"exact":false,"similarity":0.953125,"content":0.7}
{"a":"a","b":"c\u003c\u0026\u003e","member":"b","distance":0,"exact":true,"similarity":1,"content":1}
`},
		{"unique", unique.String(), `{"id":"a","text":"x"}
{"id":"d.txt","title":"T","text":"short"}
`},
		{"rejects", rejects.String(), `{"source":"in.jsonl","line":5,"field":"text","reason":"missing","raw":"{bad"}
`},
		{"clusters", clusters.String(), `{"id":"a","members":[{"id":"b","distance":2,"exact":false,"content":0.81},{"id":"c\u003c\u0026\u003e","via":"b","distance":0,"exact":true,"content":1}]}
`},
	} {
		if c.got != c.want {
			t.Errorf("%s:\n%s\nwant:\n%s", c.name, c.got, c.want)
		}
	}
	if n != 1 || w.NPairs != 3 {
		t.Errorf("%d clusters, %d pairs written; want 1 and 3", n, w.NPairs)
	}
}

// TestCreateOutputs: the named files appear only when committed, with
// the clusters; "-" is stdout; an aborted run leaves nothing.
func TestCreateOutputs(t *testing.T) {
	dir := t.TempDir()
	path := func(name string) string { return filepath.Join(dir, name) }
	var stdout strings.Builder
	w, err := CreateOutputs(Files{Pairs: path("p"), Clusters: path("c"), Unique: "-", Rejects: path("r")}, &stdout, "job")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	if w.RejectsPath() != path("r") {
		t.Errorf("RejectsPath = %q", w.RejectsPath())
	}
	for _, o := range []Outcome{
		{Seq: 0, Record: input.Record{ID: "a", Raw: []byte(`{"id":"a"}`)}, Verdict: Unique},
		{Seq: 1, Record: input.Record{ID: "b"}, Verdict: Duplicate, Matches: []index.Match{{ID: "a", Distance: 1, Similarity: 0.984375, Content: 0.9, Job: "job", Seq: 0}}},
	} {
		if err := w.Write(&o); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := os.Stat(path("p")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the pairs file exists before Commit: %v", err)
	}
	n, err := w.Commit()
	if err != nil || n != 1 {
		t.Fatalf("Commit = %d, %v; want 1 cluster", n, err)
	}
	for _, f := range []struct{ name, want string }{
		{"p", `{"a":"a","b":"b","distance":1,"exact":false,"similarity":0.984375,"content":0.9}` + "\n"},
		{"c", `{"id":"a","members":[{"id":"b","distance":1,"exact":false,"content":0.9}]}` + "\n"},
		{"r", ""},
	} {
		if got, err := os.ReadFile(path(f.name)); err != nil || string(got) != f.want {
			t.Errorf("%s: %q, %v; want %q", f.name, got, err, f.want)
		}
	}
	if stdout.String() != `{"id":"a"}`+"\n" {
		t.Errorf("stdout %q", stdout.String())
	}

	// Aborted: nothing is left.
	w, err = CreateOutputs(Files{Pairs: path("aborted")}, &stdout, "")
	if err != nil {
		t.Fatal(err)
	}
	w.Abort()
	if entries, _ := filepath.Glob(path("aborted*")); len(entries) != 0 {
		t.Errorf("after Abort: %q", entries)
	}
}
