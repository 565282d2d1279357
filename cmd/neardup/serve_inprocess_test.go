package main

import (
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/index/memstore"
	"github.com/neardup/neardup/internal/testfixtures"
	"github.com/neardup/neardup/report"
	"github.com/neardup/neardup/serve"
)

// TestStatsText checks add --keep-text and stats --text: the texts kept,
// their length and compressed size; an archive without texts counts none.
func TestStatsText(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	kept, bare := filepath.Join(dir, "kept"), filepath.Join(dir, "bare")
	if r := runCLI(t, "add", "--index", kept, "--keep-text", "testdata/a.txt", "testdata/c.txt"); r.code != 0 {
		t.Fatalf("add --keep-text: exit %d: %s", r.code, r.stderr)
	}
	if r := runCLI(t, "add", "--index", bare, "testdata/a.txt"); r.code != 0 {
		t.Fatalf("add: exit %d: %s", r.code, r.stderr)
	}
	a, _ := os.ReadFile("testdata/a.txt")
	c, _ := os.ReadFile("testdata/c.txt")
	r := runCLI(t, "stats", "--index", kept, "--text", "--json")
	var j statsJSON
	if err := json.Unmarshal([]byte(r.stdout), &j); err != nil || j.Text == nil {
		t.Fatalf("stats --text --json: exit %d: %s%s", r.code, r.stdout, r.stderr)
	}
	if j.Text.Docs != 2 || j.Text.Bytes != int64(len(a)+len(c)) || j.Text.StoredBytes <= 0 || j.Text.StoredBytes >= j.Text.Bytes {
		t.Errorf("stats --text: %+v; want 2 texts of %d bytes, fewer stored", *j.Text, len(a)+len(c))
	}
	r = runCLI(t, "stats", "--index", bare, "--text")
	if r.code != 0 || !strings.Contains(r.stdout, "text          0 of 1 document keep their text: 0 B, 0 B compressed\n") {
		t.Errorf("stats --text of an archive without texts: exit %d: %s%s", r.code, r.stdout, r.stderr)
	}
	if r := runCLI(t, "stats", "--index", bare); strings.Contains(r.stdout, "text ") {
		t.Errorf("stats without --text counts texts: %s", r.stdout)
	}
}

// TestServeCompareIsCompareJSON checks that POST /v1/compare answers what
// compare --json prints for the same two articles (less where each was
// read from).
func TestServeCompareIsCompareJSON(t *testing.T) {
	t.Parallel()
	a := testfixtures.Analyzer(t, "")
	x, err := memstore.Open(t.Context(), &index.Options{AnalyzerID: a.ID()})
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	s, err := serve.New(serve.Options{Index: x, Analyzer: a})
	if err != nil {
		t.Fatal(err)
	}
	ta, _ := os.ReadFile("testdata/a.txt")
	tb, _ := os.ReadFile("testdata/b.txt")
	body, _ := json.Marshal(map[string]any{"a": map[string]string{"id": "testdata/a.txt", "text": string(ta)},
		"b": map[string]string{"id": "testdata/b.txt", "text": string(tb)}})
	w := httptest.NewRecorder()
	s.ServeHTTP(w, httptest.NewRequest("POST", "/v1/compare", strings.NewReader(string(body))))
	var got, want report.Comparison
	if err := json.Unmarshal(w.Body.Bytes(), &got); err != nil || w.Code != 200 {
		t.Fatalf("POST /v1/compare: %d %s", w.Code, w.Body)
	}
	r := runCLI(t, "compare", "--json", "testdata/a.txt", "testdata/b.txt")
	if err := json.Unmarshal([]byte(r.stdout), &want); err != nil {
		t.Fatalf("compare --json: %v: %s%s", err, r.stdout, r.stderr)
	}
	if got.A.Source != "request.a" || got.B.Source != "request.b" {
		t.Errorf("sources %q, %q; want request.a, request.b", got.A.Source, got.B.Source)
	}
	got.A.Source, got.B.Source = want.A.Source, want.B.Source
	if !reflect.DeepEqual(got, want) {
		t.Errorf("POST /v1/compare\n%+v\ncompare --json\n%+v", got, want)
	}
}
