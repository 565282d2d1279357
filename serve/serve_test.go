package serve

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/index/memstore"
	"github.com/neardup/neardup/internal/testfixtures"
	"github.com/neardup/neardup/segment"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// fixedNow is the clock of the tests' servers.
var fixedNow = time.Date(2026, 11, 24, 1, 2, 3, 0, time.UTC)

// fixture reads a file of testdata.
func fixture(t testing.TB, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// newTestServer returns a server over a new in-memory archive, with o's
// other fields.
func newTestServer(t testing.TB, o Options) *Server {
	t.Helper()
	a := testfixtures.Analyzer(t, "")
	x, err := memstore.Open(t.Context(), &index.Options{AnalyzerID: a.ID()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { x.Close() })
	o.Index, o.Analyzer = x, a
	if o.Now == nil {
		o.Now = func() time.Time { return fixedNow }
	}
	s, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// js encodes v as JSON.
func js(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// do sends a request to s and returns the answer. A POST is sent with
// Content-Type: application/json unless header sets it ("" sends none).
func do(s http.Handler, method, target, body string, header ...string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(method, target, strings.NewReader(body))
	if method == http.MethodPost {
		r.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(header); i += 2 {
		r.Header.Set(header[i], header[i+1])
	}
	w := httptest.NewRecorder()
	s.ServeHTTP(w, r)
	return w
}

// step is one request of a scenario, its status and its golden answer.
type step struct {
	name   string // golden file testdata/golden/NAME.txt ("" for none)
	method string
	target string
	body   string
	header []string
	status int
}

// run sends the steps in order, checking each status and answer.
func run(t *testing.T, s http.Handler, steps []step) {
	t.Helper()
	for _, st := range steps {
		w := do(s, st.method, st.target, st.body, st.header...)
		if w.Code != st.status {
			t.Errorf("%s: %s %s: status %d, want %d: %s", st.name, st.method, st.target, w.Code, st.status, w.Body)
		}
		if st.name != "" {
			got := st.method + " " + st.target + "\n" + w.Result().Status + "\nContent-Type: " + w.Header().Get("Content-Type") + "\n\n" + w.Body.String()
			golden(t, st.name, got)
		}
	}
}

// golden compares got with testdata/golden/BACKEND/NAME.txt, BACKEND
// being the default segmenter (jieba, in every build: with or without
// cgo, and with -tags gojieba, whose cppjieba cuts identically); -update
// writes it.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "golden", segment.DefaultBackend, name+".txt")
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s: answer differs from %s:\n--- got\n%s\n--- want\n%s", name, path, got, want)
	}
}

const short = "我来到北京"

func TestAPI(t *testing.T) {
	a, b, c := fixture(t, "a.txt"), fixture(t, "b.txt"), fixture(t, "c.txt")
	s := newTestServer(t, Options{KeepText: true})
	long := strings.Repeat("x", index.MaxIDLen+1)
	run(t, s, []step{
		{"check_new", "POST", "/v1/check", js(t, map[string]any{"text": a, "title": "对话框"}), nil, 200},
		{"add_created", "POST", "/v1/documents", js(t, map[string]any{"id": "a", "title": "显示对话框", "text": a}), nil, 201},
		{"add_replaced", "POST", "/v1/documents", js(t, map[string]any{"id": "a", "title": "显示对话框", "text": a}), []string{"Content-Type", "application/json"}, 200},
		{"check_duplicate", "POST", "/v1/check", js(t, map[string]any{"text": b, "id": "b"}), nil, 200},
		{"check_add_duplicate", "POST", "/v1/check?add=true", js(t, map[string]any{"text": b, "id": "b"}), nil, 200},
		{"check_add_new", "POST", "/v1/check?add=1", js(t, map[string]any{"text": c, "id": "c", "title": "Bluetooth"}), nil, 200},
		{"check_archived", "POST", "/v1/check", js(t, map[string]any{"text": c, "id": "c"}), nil, 200},
		{"check_too_short", "POST", "/v1/check", js(t, map[string]any{"text": short}), nil, 200},
		{"check_blank", "POST", "/v1/check", js(t, map[string]any{"text": " \n\t"}), nil, 400},
		{"check_no_text", "POST", "/v1/check", `{"title": "t"}`, nil, 400},
		{"check_text_number", "POST", "/v1/check", `{"text": 5}`, nil, 400},
		{"check_unknown_field", "POST", "/v1/check", `{"text": "x", "body": "y"}`, nil, 400},
		{"check_malformed", "POST", "/v1/check", `{"text": "x",}`, nil, 400},
		{"check_truncated", "POST", "/v1/check", `{"text": "x`, nil, 400},
		{"check_empty_body", "POST", "/v1/check", ``, nil, 400},
		{"check_array", "POST", "/v1/check", `["x"]`, nil, 400},
		{"check_trailing", "POST", "/v1/check", `{"text": "x"} {}`, nil, 400},
		{"check_bad_add", "POST", "/v1/check?add=maybe", js(t, map[string]any{"text": a}), nil, 400},
		{"check_add_no_id", "POST", "/v1/check?add=true", js(t, map[string]any{"text": a}), nil, 400},
		{"check_long_id", "POST", "/v1/check", js(t, map[string]any{"text": a, "id": long}), nil, 400},
		{"add_no_id", "POST", "/v1/documents", js(t, map[string]any{"text": a}), nil, 400},
		{"add_too_short", "POST", "/v1/documents", js(t, map[string]any{"id": "s", "text": short}), nil, 422},
		{"get", "GET", "/v1/documents/a", "", nil, 200},
		{"get_missing", "GET", "/v1/documents/nope", "", nil, 404},
		{"get_escaped_id", "GET", "/v1/documents/" + "a%2Fb", "", nil, 404},
		{"compare", "POST", "/v1/compare", js(t, map[string]any{"a": map[string]any{"text": a}, "b": map[string]any{"text": b, "id": "b.txt", "title": "转载"}}), nil, 200},
		{"compare_no_b", "POST", "/v1/compare", js(t, map[string]any{"a": map[string]any{"text": a}}), nil, 400},
		{"compare_short_b", "POST", "/v1/compare", js(t, map[string]any{"a": map[string]any{"text": a}, "b": map[string]any{"text": short}}), nil, 422},
		{"passages", "POST", "/v1/passages", js(t, map[string]any{"text": b, "id": "a"}), nil, 200},
		{"passages_missing", "POST", "/v1/passages", js(t, map[string]any{"text": b, "id": "nope"}), nil, 404},
		{"passages_no_id", "POST", "/v1/passages", js(t, map[string]any{"text": b}), nil, 400},
		{"info", "GET", "/v1/info", "", nil, 200},
		{"delete_missing", "DELETE", "/v1/documents/nope", "", nil, 404},
		{"delete", "DELETE", "/v1/documents/a", "", nil, 204},
		{"", "GET", "/v1/documents/a", "", nil, 404},
		{"method_not_allowed", "GET", "/v1/check", "", nil, 405},
		{"no_route", "GET", "/v2/nothing", "", nil, 404},
		{"healthz", "GET", "/healthz", "", nil, 200},
	})
}

func TestToken(t *testing.T) {
	a := fixture(t, "a.txt")
	s := newTestServer(t, Options{Token: "s3cret", KeepText: true})
	auth := []string{"Authorization", "Bearer s3cret"}
	run(t, s, []step{
		{"token_missing", "POST", "/v1/documents", js(t, map[string]any{"id": "a", "text": a}), nil, 401},
		{"", "POST", "/v1/documents", js(t, map[string]any{"id": "a", "text": a}), []string{"Authorization", "Bearer wrong"}, 401},
		{"", "POST", "/v1/documents", js(t, map[string]any{"id": "a", "text": a}), []string{"Authorization", "s3cret"}, 401},
		{"", "POST", "/v1/check?add=true", js(t, map[string]any{"id": "a2", "text": a}), nil, 401},
		{"", "DELETE", "/v1/documents/a", "", nil, 401},
		{"", "POST", "/v1/documents", js(t, map[string]any{"id": "a", "text": a}), auth, 201},
		{"", "POST", "/v1/check", js(t, map[string]any{"text": a}), nil, 200}, // reading needs no token
		{"", "GET", "/v1/documents/a", "", nil, 200},
		{"", "DELETE", "/v1/documents/a", "", auth, 204},
	})
	if w := do(s, "POST", "/v1/documents", "{}"); w.Header().Get("WWW-Authenticate") != `Bearer realm="neardup"` {
		t.Errorf("401 without WWW-Authenticate: %v", w.Header())
	}
}

func TestKeepTextOff(t *testing.T) {
	a, b := fixture(t, "a.txt"), fixture(t, "b.txt")
	s := newTestServer(t, Options{})
	run(t, s, []step{
		{"", "POST", "/v1/documents", js(t, map[string]any{"id": "a", "title": "显示对话框", "text": a}), nil, 201},
		{"get_no_text", "GET", "/v1/documents/a", "", nil, 200},
		{"passages_no_text", "POST", "/v1/passages", js(t, map[string]any{"text": strings.SplitN(b, "\n", 3)[1], "id": "a"}), nil, 200},
	})
}

func TestBodyLimit(t *testing.T) {
	s := newTestServer(t, Options{MaxBytes: 100})
	big := js(t, map[string]any{"text": strings.Repeat("新闻", 100)})
	run(t, s, []step{
		{"too_large", "POST", "/v1/check", big, nil, 413},
		{"", "POST", "/v1/documents", big, nil, 413},
		{"", "POST", "/v1/documents", big, []string{"Content-Type", "application/x-ndjson"}, 413},
	})
	// A body that does not say its length stops being read at the limit.
	body := &countingReader{r: strings.NewReader(strings.Repeat(" ", 1<<20))}
	r := httptest.NewRequest("POST", "/v1/check", body)
	r.ContentLength = -1
	w := httptest.NewRecorder()
	s.ServeHTTP(w, r)
	if w.Code != 413 || body.n > 64<<10 {
		t.Errorf("unsized body of 1 MiB: status %d after reading %d bytes; want 413 after reading about 100", w.Code, body.n)
	}
}

type countingReader struct {
	r interface{ Read([]byte) (int, error) }
	n int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}

func TestBatch(t *testing.T) {
	a, b, c := fixture(t, "a.txt"), fixture(t, "b.txt"), fixture(t, "c.txt")
	s := newTestServer(t, Options{KeepText: true})
	lines := []string{
		js(t, map[string]any{"id": "a", "title": "A", "text": a}),
		`{"id": "broken", "text": `,
		"",
		js(t, map[string]any{"id": "short", "text": short}),
		js(t, map[string]any{"text": c}),
		js(t, map[string]any{"id": "b", "text": b}),
		js(t, map[string]any{"id": "a", "title": "A again", "text": a}),
	}
	nd := []string{"Content-Type", "application/x-ndjson"}
	run(t, s, []step{
		{"batch", "POST", "/v1/documents", strings.Join(lines, "\n") + "\n", nd, 200},
		{"batch_again", "POST", "/v1/documents", lines[5], nd, 200},
		{"batch_empty", "POST", "/v1/documents", "", nd, 200},
	})
	d, err := s.o.Index.Get(t.Context(), "a")
	if err != nil || d.Title != "A again" {
		t.Errorf("after the batch, a is %q, %v; want the later line's title %q", d.Title, err, "A again")
	}
}

// TestBatchChunks adds more lines than a chunk and checks each is
// answered, in order, and archived.
func TestBatchChunks(t *testing.T) {
	a := fixture(t, "a.txt")
	s := newTestServer(t, Options{})
	var body bytes.Buffer
	n := batchChunk*2 + 7
	for i := range n {
		body.WriteString(js(t, map[string]any{"id": "doc-" + string(rune('A'+i%26)) + "-" + time.Duration(i).String(), "text": a}) + "\n")
	}
	w := do(s, "POST", "/v1/documents", body.String(), "Content-Type", "application/x-ndjson")
	lines := strings.Split(strings.TrimSpace(w.Body.String()), "\n")
	if w.Code != 200 || len(lines) != n {
		t.Fatalf("status %d, %d answer lines; want 200 and %d", w.Code, len(lines), n)
	}
	for i, l := range lines {
		var p batchLineJSON
		if err := json.Unmarshal([]byte(l), &p); err != nil || p.Line != i+1 || p.Status != 201 {
			t.Fatalf("answer %d: %s (%v); want line %d, status 201", i, l, err, i+1)
		}
	}
	if st, _ := s.o.Index.Stats(t.Context()); st.Docs != int64(n) {
		t.Errorf("archive holds %d documents, want %d", st.Docs, n)
	}
}

func TestPage(t *testing.T) {
	s := newTestServer(t, Options{})
	for _, tt := range []struct{ path, typ, has string }{
		{"/", "text/html; charset=utf-8", `<script src="assets/app.js" defer></script>`},
		{"/assets/app.js", "text/javascript; charset=utf-8", `"v1/check"`},
		{"/assets/style.css", "text/css; charset=utf-8", "@media (max-width: 720px)"},
	} {
		w := do(s, "GET", tt.path, "")
		if w.Code != 200 || w.Header().Get("Content-Type") != tt.typ || !strings.Contains(w.Body.String(), tt.has) {
			t.Errorf("GET %s: %d %q, want 200 %q with %q", tt.path, w.Code, w.Header().Get("Content-Type"), tt.typ, tt.has)
		}
		if csp := w.Header().Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'self'") {
			t.Errorf("GET %s: Content-Security-Policy %q", tt.path, csp)
		}
	}
	// No asset comes from elsewhere: the page works offline.
	for _, f := range []string{"web/index.html", "web/assets/app.js", "web/assets/style.css"} {
		b, err := webFS.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(b, []byte("http://")) || bytes.Contains(b, []byte("https://")) || bytes.Contains(b, []byte("//cdn")) {
			t.Errorf("%s refers to another site", f)
		}
	}
	if w := do(s, "GET", "/assets/nothing.js", ""); w.Code != 404 {
		t.Errorf("GET /assets/nothing.js: %d, want 404", w.Code)
	}
}

func TestCORS(t *testing.T) {
	off := newTestServer(t, Options{})
	if w := do(off, "GET", "/v1/info", "", "Origin", "https://example.org"); w.Header().Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("CORS header without CORSOrigin: %v", w.Header())
	}
	if w := do(off, "OPTIONS", "/v1/check", "", "Origin", "https://example.org", "Access-Control-Request-Method", "POST"); w.Code != 405 {
		t.Errorf("preflight without CORSOrigin: %d, want 405", w.Code)
	}
	on := newTestServer(t, Options{CORSOrigin: "https://news.example.org"})
	w := do(on, "OPTIONS", "/v1/check", "", "Origin", "https://news.example.org", "Access-Control-Request-Method", "POST")
	if w.Code != 204 || w.Header().Get("Access-Control-Allow-Origin") != "https://news.example.org" || w.Header().Get("Access-Control-Allow-Headers") != "Authorization, Content-Type" {
		t.Errorf("preflight: %d %v", w.Code, w.Header())
	}
}

func TestMetrics(t *testing.T) {
	a, b := fixture(t, "a.txt"), fixture(t, "b.txt")
	s := newTestServer(t, Options{})
	do(s, "POST", "/v1/documents", js(t, map[string]any{"id": "a", "text": a}))
	do(s, "POST", "/v1/check", js(t, map[string]any{"text": b}))
	do(s, "POST", "/v1/check", js(t, map[string]any{"text": b}))
	do(s, "POST", "/v1/check", `{`)
	do(s, "GET", "/v1/documents/nope", "")
	w := do(s, "GET", "/metrics", "")
	if w.Code != 200 || !strings.HasPrefix(w.Header().Get("Content-Type"), "text/plain") {
		t.Fatalf("GET /metrics: %d %q", w.Code, w.Header().Get("Content-Type"))
	}
	body := w.Body.String()
	for _, want := range []string{
		`neardup_http_requests_total{code="201",route="POST /v1/documents"} 1`,
		`neardup_http_requests_total{code="200",route="POST /v1/check"} 2`,
		`neardup_http_requests_total{code="400",route="POST /v1/check"} 1`,
		`neardup_http_requests_total{code="404",route="GET /v1/documents/{id}"} 1`,
		`neardup_http_request_duration_seconds_count{route="POST /v1/check"} 3`,
		`neardup_analysis_duration_seconds_count 3`,
		`neardup_matches_found_total 2`,
		`neardup_documents_written_total{op="added"} 1`,
		`neardup_archive_documents 1`,
		`go_goroutines `,
	} {
		if !strings.Contains(body, want+"\n") && !strings.Contains(body, want) {
			t.Errorf("metrics lack %q", want)
		}
	}
	// Two servers do not share metrics: each has its own registry.
	if w := do(newTestServer(t, Options{}), "GET", "/metrics", ""); strings.Contains(w.Body.String(), "neardup_matches_found_total 2") {
		t.Error("a new server reports the first server's matches")
	}
}

// TestConcurrentAdds adds from 24 requests at once, 8 of them with one
// ID: the adds are written in groups, yet each new ID is answered 201
// once, every later add of it 200 (replaced), and all are archived.
func TestConcurrentAdds(t *testing.T) {
	a := fixture(t, "a.txt")
	s := newTestServer(t, Options{})
	codes := make(chan int, 24)
	var wg sync.WaitGroup
	for i := range 24 {
		wg.Go(func() {
			id := fmt.Sprintf("doc-%d", i)
			if i < 8 {
				id = "same"
			}
			w := do(s, "POST", "/v1/documents", js(t, map[string]any{"id": id, "text": fmt.Sprintf("%d %s", i, a)}))
			if i < 8 {
				codes <- w.Code
			} else if w.Code != 201 {
				t.Errorf("%s: %d %s", id, w.Code, w.Body)
			}
		})
	}
	wg.Wait()
	close(codes)
	n := map[int]int{}
	for c := range codes {
		n[c]++
	}
	if n[201] != 1 || n[200] != 7 {
		t.Errorf("8 adds of one ID answered %v; want one 201 and seven 200", n)
	}
	if st, _ := s.o.Index.Stats(t.Context()); st.Docs != 17 {
		t.Errorf("archive holds %d documents, want 17", st.Docs)
	}
}
