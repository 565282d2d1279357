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

func TestParseKeepPolicy(t *testing.T) {
	tests := []struct {
		in, want, err string
	}{
		{"", "first", ""},
		{"first", "first", ""},
		{"longest", "longest", ""},
		{"newest:date", "newest:date", ""},
		{"oldest:meta.time", "oldest:meta.time", ""},
		{"max:score", "max:score", ""},
		{"newest", "", `keep policy "newest": want newest:FIELD`},
		{"longest:x", "", `keep policy "longest:x": longest takes no field`},
		{"best", "", `keep policy "best": want first, longest, newest:FIELD, oldest:FIELD or max:FIELD`},
	}
	for _, tt := range tests {
		p, err := ParseKeepPolicy(tt.in)
		got, gotErr := p.String(), ""
		if err != nil {
			got, gotErr = "", err.Error()
		}
		if got != tt.want || gotErr != tt.err {
			t.Errorf("ParseKeepPolicy(%q) = %q, %q; want %q, %q", tt.in, got, gotErr, tt.want, tt.err)
		}
	}
}

func TestKeepPolicyKey(t *testing.T) {
	line := func(s string) *input.Record {
		return &input.Record{ID: "i", Title: "2024-05-01", Text: "héllo", Raw: []byte(s)}
	}
	tests := []struct {
		policy string
		rec    *input.Record
		key    float64
		ok     bool
	}{
		{"longest", line(`{}`), 5, true}, // characters, not bytes
		{"newest:date", line(`{"date":"2024-01-02"}`), 1704153600, true},
		{"newest:date", line(`{"date":"2024-01-02T00:00:01Z"}`), 1704153601, true},
		{"newest:date", line(`{"date":"2024-01-02 00:00:02"}`), 1704153602, true},
		{"newest:date", line(`{"date":1700000000}`), 1700000000, true},
		{"oldest:date", line(`{"date":"2024-01-02"}`), -1704153600, true},
		{"max:score", line(`{"score":0.75}`), 0.75, true},
		{"max:score", line(`{"score":"0.5"}`), 0.5, true},
		{"max:score", line(`{"score":"2024-01-02"}`), 0, false}, // a date is no score
		{"max:score", line(`{"score":null}`), 0, false},
		{"newest:date", line(`{"when":"2024-01-02"}`), 0, false},
		{"newest:date", line(`{"date":"yesterday"}`), 0, false},
		{"newest:title", &input.Record{Title: "2024-05-01"}, 1714521600, true}, // no line: the title
		{"newest:date", &input.Record{Title: "2024-05-01"}, 0, false},
	}
	for _, tt := range tests {
		p, err := ParseKeepPolicy(tt.policy)
		if err != nil {
			t.Fatal(err)
		}
		if key, ok := p.key(tt.rec); key != tt.key || ok != tt.ok {
			t.Errorf("%s of %s: %v, %v; want %v, %v", tt.policy, tt.rec.Raw, key, ok, tt.key, tt.ok)
		}
	}
}

// TestKeepLongest: a cluster of an original, a longer edited copy and a
// copy of that copy keeps the longest; the outputs, written at the end,
// say so in input order, the unique and annotate files from a second
// read of the input.
func TestKeepLongest(t *testing.T) {
	lines := []string{
		`{"id":"a","text":"short original","date":"2020-01-01"}`,
		`{"id":"b","text":"short original, edited and made longer","date":"2019-01-01"}`,
		`{"id":"bad","text":12}`,
		`{"id":"c","text":"short original, edited","date":"2021-01-01"}`,
		`{"id":"d","text":"another story"}`,
	}
	path := filepath.Join(t.TempDir(), "in.jsonl")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	records := readRecords(t, path)
	outcomes := []Outcome{
		{Seq: 0, Record: records[0], Verdict: Unique},
		{Seq: 1, Record: records[1], Verdict: Duplicate, Matches: []index.Match{{ID: "a", Distance: 3, Similarity: 0.953125, Content: 0.8, Job: "job", Seq: 0}}},
		{Seq: 2, Record: input.Record{}, Verdict: Rejected, Err: &input.RecordError{Source: path, Line: 3, Field: "text", Reason: "not a string (number)", Raw: []byte(lines[2])}},
		{Seq: 3, Record: records[2], Verdict: Duplicate, Matches: []index.Match{{ID: "b", Original: "a", Distance: 1, Similarity: 0.984375, Content: 0.9, Job: "job", Seq: 1}}},
		{Seq: 4, Record: records[3], Verdict: Unique},
	}
	for _, tt := range []struct {
		policy                  string
		pairs, clusters, unique string
		annotate                []string // the neardup objects
	}{
		{"longest",
			`{"a":"b","b":"a","distance":3,"exact":false,"similarity":0.953125,"content":0.8}
{"a":"b","b":"c","distance":1,"exact":false,"similarity":0.984375,"content":0.9}
`,
			`{"id":"b","members":[{"id":"a","distance":3,"exact":false,"content":0.8},{"id":"c","distance":1,"exact":false,"content":0.9}]}
`,
			lines[1] + "\n" + lines[4] + "\n",
			[]string{`{"verdict":"duplicate","cluster":"b","member":"b","similarity":0.953125,"content":0.8}`,
				`{"verdict":"unique","cluster":"b"}`,
				`{"verdict":"rejected","reason":"field \"text\": not a string (number)"}`,
				`{"verdict":"duplicate","cluster":"b","member":"b","similarity":0.984375,"content":0.9}`,
				`{"verdict":"unique","cluster":"d"}`}},
		{"newest:date",
			`{"a":"c","b":"a","member":"b","distance":1,"exact":false,"similarity":0.984375,"content":0.9}
{"a":"c","b":"b","member":"a","distance":3,"exact":false,"similarity":0.953125,"content":0.8}
`,
			`{"id":"c","members":[{"id":"a","via":"b","distance":1,"exact":false,"content":0.9},{"id":"b","via":"a","distance":3,"exact":false,"content":0.8}]}
`,
			lines[3] + "\n" + lines[4] + "\n",
			[]string{`{"verdict":"duplicate","cluster":"c","member":"b","similarity":0.984375,"content":0.9}`,
				`{"verdict":"duplicate","cluster":"c","member":"a","similarity":0.953125,"content":0.8}`,
				`{"verdict":"rejected","reason":"field \"text\": not a string (number)"}`,
				`{"verdict":"unique","cluster":"c"}`,
				`{"verdict":"unique","cluster":"d"}`}},
		{"oldest:date",
			`{"a":"b","b":"a","distance":3,"exact":false,"similarity":0.953125,"content":0.8}
{"a":"b","b":"c","distance":1,"exact":false,"similarity":0.984375,"content":0.9}
`, "", lines[1] + "\n" + lines[4] + "\n", nil},
		// No member has the field: the first seen is kept.
		{"max:score",
			`{"a":"a","b":"b","distance":3,"exact":false,"similarity":0.953125,"content":0.8}
{"a":"a","b":"c","member":"b","distance":1,"exact":false,"similarity":0.984375,"content":0.9}
`, "", lines[0] + "\n" + lines[4] + "\n", nil},
	} {
		t.Run(tt.policy, func(t *testing.T) {
			var pairs, unique, rejects, clusters, annotate strings.Builder
			w := &Outputs{Pairs: &pairs, Unique: &unique, Rejects: &rejects, annotate: &annotate, Clusters: NewClusters("job"), job: "job"}
			p, err := ParseKeepPolicy(tt.policy)
			if err != nil {
				t.Fatal(err)
			}
			if err := w.SetKeep(p, []string{path}, nil); err != nil {
				t.Fatal(err)
			}
			for i := range outcomes {
				o := outcomes[i]
				o.Matches = append([]index.Match(nil), o.Matches...)
				if err := w.Write(&o); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := w.Commit(); err != nil {
				t.Fatal(err)
			}
			if _, err := WriteClusters(&clusters, w.Clusters); err != nil {
				t.Fatal(err)
			}
			if pairs.String() != tt.pairs || unique.String() != tt.unique || (tt.clusters != "" && clusters.String() != tt.clusters) {
				t.Errorf("pairs:\n%s\nwant:\n%s\nclusters:\n%s\nwant:\n%s\nunique:\n%s\nwant:\n%s", &pairs, tt.pairs, &clusters, tt.clusters, &unique, tt.unique)
			}
			if rejects.String() == "" {
				t.Error("no rejects written")
			}
			if tt.annotate == nil {
				return
			}
			got := strings.Split(strings.TrimSuffix(annotate.String(), "\n"), "\n")
			if len(got) != len(lines) {
				t.Fatalf("annotate:\n%s", &annotate)
			}
			for i, l := range got {
				want := strings.TrimSuffix(lines[i], "}") + `,"neardup":` + tt.annotate[i] + "}"
				if i == 2 {
					want = `{"source":"` + path + `","line":3,"raw":` + "\"{\\\"id\\\":\\\"bad\\\",\\\"text\\\":12}\"" + `,"neardup":` + tt.annotate[i] + "}"
				}
				if l != want {
					t.Errorf("annotate line %d:\n%s\nwant\n%s", i+1, l, want)
				}
			}
		})
	}
	// Standard input cannot be read twice.
	w := &Outputs{Unique: &strings.Builder{}}
	if err := w.SetKeep(KeepPolicy{Kind: "longest"}, []string{path, "-"}, nil); err == nil {
		t.Error("SetKeep with stdin: no error")
	}
}

// readRecords reads the good records of a JSONL file.
func readRecords(t *testing.T, path string) []input.Record {
	t.Helper()
	var recs []input.Record
	r := input.NewReader([]string{path}, nil, nil)
	for {
		rec, err := r.Next()
		if err != nil {
			var re *input.RecordError
			if errors.As(err, &re) {
				continue
			}
			return recs
		}
		recs = append(recs, rec)
	}
}
