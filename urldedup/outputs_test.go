package urldedup

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/neardup/neardup/dedup"
	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/input"
)

// TestOutputs pins url dedup's formats: URLs as given, not
// HTML-escaped; a cluster named by its kept URL as given.
func TestOutputs(t *testing.T) {
	var pairs, unique, rejects, clusters strings.Builder
	w := &Outputs{Pairs: &pairs, Unique: &unique, Rejects: &rejects, Clusters: dedup.NewClusters("job")}
	outcomes := []Outcome{
		{Seq: 0, Raw: []byte(" http://a.example/?x=1&y=2 "), URL: "http://a.example/?x=1&y=2", Verdict: dedup.Unique},
		{Seq: 1, URL: "https://A.example/?y=2&x=1", Verdict: dedup.Duplicate, Exact: true, Matches: []index.Match{
			{ID: "a.example/?x=1&y=2", Title: "http://a.example/?x=1&y=2", Distance: 0, Exact: true, Job: "job", Seq: 0},
		}},
		{Seq: 2, URL: "http://a.example/b", Verdict: dedup.Duplicate, Matches: []index.Match{
			{ID: "a.example/?x=1&y=2", Title: "http://a.example/?x=1&y=2", Distance: 4, Job: "job", Seq: 0},
		}},
		{Seq: 3, Source: "urls", Line: 4, Verdict: dedup.Rejected, Err: &input.RecordError{Source: "urls", Line: 4, Reason: "no host", Raw: []byte("http://")}},
	}
	for i := range outcomes {
		if err := w.Write(&outcomes[i]); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := WriteClusters(&clusters, w.Clusters); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ name, got, want string }{
		{"pairs", pairs.String(), `{"a":"http://a.example/?x=1&y=2","b":"https://A.example/?y=2&x=1","distance":0,"similarity":1,"exact":true}
{"a":"http://a.example/?x=1&y=2","b":"http://a.example/b","distance":4,"similarity":0.9375,"exact":false}
`},
		{"unique", unique.String(), " http://a.example/?x=1&y=2 \n"},
		{"rejects", rejects.String(), `{"source":"urls","line":4,"field":"","reason":"no host","raw":"http://"}
`},
		{"clusters", clusters.String(), `{"id":"http://a.example/?x=1&y=2","members":[{"id":"https://A.example/?y=2&x=1","distance":0,"similarity":1,"exact":true},{"id":"http://a.example/b","distance":4,"similarity":0.9375,"exact":false}]}
`},
	} {
		if c.got != c.want {
			t.Errorf("%s:\n%s\nwant:\n%s", c.name, c.got, c.want)
		}
	}
}

// TestCreateOutputs: the clusters file has URL clusters, written when
// committed; a unique file named *.parquet is refused, since it holds
// input lines.
func TestCreateOutputs(t *testing.T) {
	dir := t.TempDir()
	path := func(name string) string { return filepath.Join(dir, name) }
	var stdout strings.Builder
	w, err := CreateOutputs(Files{Clusters: path("uc")}, &stdout, "job")
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range []Outcome{
		{Seq: 0, Raw: []byte("http://a.example/"), URL: "http://a.example/", Verdict: dedup.Unique},
		{Seq: 1, URL: "http://a.example/b", Verdict: dedup.Duplicate, Matches: []index.Match{{ID: "a.example/", Title: "http://a.example/", Distance: 4, Job: "job", Seq: 0}}},
	} {
		if err := w.Write(&o); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	want := `{"id":"http://a.example/","members":[{"id":"http://a.example/b","distance":4,"similarity":0.9375,"exact":false}]}` + "\n"
	if got, err := os.ReadFile(path("uc")); err != nil || string(got) != want {
		t.Errorf("URL clusters %q, %v; want %q", got, err, want)
	}

	if _, err := CreateOutputs(Files{Unique: path("u.parquet")}, &stdout, ""); err == nil || !strings.Contains(err.Error(), "not Parquet") {
		t.Errorf("CreateOutputs(unique u.parquet) error %v, want one saying the file is not Parquet", err)
	}
	if entries, _ := filepath.Glob(path("u.parquet*")); len(entries) != 0 {
		t.Errorf("after a refused CreateOutputs: %q", entries)
	}
}
