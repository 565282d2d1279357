package serve

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/index/memstore"
	"github.com/neardup/neardup/internal/testfixtures"
)

// listen serves s on a loopback port until the test ends and returns
// its base URL ("http://127.0.0.1:PORT").
func listen(t *testing.T, s *Server) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, ln, time.Minute) }()
	t.Cleanup(func() { cancel(); <-done })
	return "http://" + ln.Addr().String()
}

// send makes a request and returns its status, answer and headers.
func send(t *testing.T, method, u, body string, header ...string) (int, string, http.Header) {
	t.Helper()
	req, err := http.NewRequest(method, u, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		if header[i] == "Host" {
			req.Host = header[i+1]
			continue
		}
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, u, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), resp.Header
}

// randomCJK is n bytes (about) of random CJK characters, the costliest
// text to analyse per byte.
func randomCJK(seed uint64, n int) string {
	rng := rand.New(rand.NewPCG(seed, 1))
	var b strings.Builder
	for b.Len() < n {
		b.WriteRune(rune(0x4E00 + rng.IntN(0x9FA5-0x4E00)))
	}
	return b.String()
}

// TestMemoryBudget sends 8 large bodies at once to a server on loopback
// whose budget holds two: the first two admitted are held (by the
// admitted hook) until all 8 are answered or admitted; then 2 are
// admitted and answered 200, 6 refused with 503 and Retry-After, the
// accounting never passes the budget, and /healthz says busy while
// the two are held and ok after. Before, nothing bounded concurrent
// analyses (#31 item 2: four 16 MB bodies took 8.7 GB).
func TestMemoryBudget(t *testing.T) {
	const maxBytes = 256 << 10
	s := newTestServer(t, Options{MaxBytes: maxBytes, MemoryBudget: 2 * analysisCost(maxBytes)})
	hold := make(chan struct{})
	var mu sync.Mutex
	admitted := 0
	arrived := make(chan struct{}, 16)
	s.admitted = func() {
		mu.Lock()
		admitted++
		mu.Unlock()
		arrived <- struct{}{}
		<-hold
	}
	base := listen(t, s)
	const n = 8
	type answer struct {
		status     int
		retryAfter string
	}
	answers := make(chan answer, n)
	for i := range n {
		body := js(t, map[string]string{"text": randomCJK(uint64(i), 200<<10)})
		go func() {
			resp, err := http.Post(base+"/v1/check", "application/json", strings.NewReader(body))
			if err != nil {
				answers <- answer{status: -1}
				return
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			answers <- answer{resp.StatusCode, resp.Header.Get("Retry-After")}
		}()
	}
	// Wait until every request is admitted or answered: 2 + 6.
	got := map[int]int{}
	deadline := time.After(2 * time.Minute) // a bound on a hung test, not an assertion on time
	for held, refused := 0, 0; held+refused < n; {
		select {
		case <-arrived:
			held++
		case a := <-answers:
			if a.status == http.StatusServiceUnavailable && a.retryAfter == "" {
				t.Errorf("a 503 without Retry-After")
			}
			got[a.status]++
			refused++
		case <-deadline:
			close(hold)
			t.Fatalf("requests neither admitted nor answered after 2 minutes: %d held, %v answered", held, got)
		}
	}
	if code, body, _ := send(t, "GET", base+"/healthz", ""); code != 503 || !strings.Contains(body, "busy") {
		t.Errorf("/healthz while the budget is held: %d %s, want 503 busy", code, body)
	}
	close(hold)
	for range 2 {
		got[(<-answers).status]++
	}
	if got[200] != 2 || got[503] != 6 {
		t.Errorf("8 bodies of 200 KiB against a budget of two: answers %v, want 2 × 200 and 6 × 503", got)
	}
	used, peak, total := s.mem.state()
	if used != 0 || peak > total || peak < 2*analysisCost(200<<10) {
		t.Errorf("budget: %d in use after, peak %d, total %d: want 0, and a peak of two bodies within the total", used, peak, total)
	}
	if code, body, _ := send(t, "GET", base+"/healthz", ""); code != 200 {
		t.Errorf("/healthz after: %d %s", code, body)
	}
}

// TestMemoryBudgetDefault: the budget holds at least one body of
// MaxBytes, whatever it is set to.
func TestMemoryBudgetDefault(t *testing.T) {
	for _, tc := range []struct{ maxBytes, budget, want int64 }{
		{0, 0, DefaultMemoryBudget},
		{64 << 20, 0, (64<<20)*CostPerByte + 1<<20},
		{1 << 20, 100, (1<<20)*CostPerByte + 1<<20},
		{1 << 20, 1 << 30, 1 << 30},
	} {
		s := newTestServer(t, Options{MaxBytes: tc.maxBytes, MemoryBudget: tc.budget})
		if _, _, total := s.mem.state(); total != tc.want {
			t.Errorf("MaxBytes %d, MemoryBudget %d: budget %d, want %d", tc.maxBytes, tc.budget, total, tc.want)
		}
	}
}

// TestCrossSiteWrites: a write needs a JSON or NDJSON Content-Type (a
// text/plain body is what a page of another site can send without a
// preflight), an Origin of this server's or --cors-origin's, and a Host
// header naming this server (else a rebinding page reads and writes).
// Before, all of these were accepted (#31 item 3).
func TestCrossSiteWrites(t *testing.T) {
	s := newTestServer(t, Options{AllowHosts: []string{"dedup.newsroom.example"}})
	base := listen(t, s)
	own := strings.TrimPrefix(base, "http://")
	doc := js(t, map[string]string{"id": "x", "text": fixture(t, "a.txt")})
	for _, tc := range []struct {
		name, method, path, body string
		header                   []string
		want                     int
	}{
		{"simple request, text/plain", "POST", "/v1/documents", doc, []string{"Content-Type", "text/plain;charset=UTF-8"}, 415},
		{"form", "POST", "/v1/documents", doc, []string{"Content-Type", "application/x-www-form-urlencoded"}, 415},
		{"no Content-Type", "POST", "/v1/documents", doc, nil, 415},
		{"check and add, text/plain", "POST", "/v1/check?add=true", doc, []string{"Content-Type", "text/plain"}, 415},
		{"another site's page", "POST", "/v1/documents", doc, []string{"Content-Type", "application/json", "Origin", "http://attacker.example"}, 403},
		{"another site's page deletes", "DELETE", "/v1/documents/x", "", []string{"Origin", "http://attacker.example"}, 403},
		{"rebinding", "POST", "/v1/documents", doc, []string{"Content-Type", "application/json", "Host", "attacker.example:" + strings.Split(own, ":")[1]}, 421},
		{"rebinding reads", "GET", "/v1/info", "", []string{"Host", "attacker.example"}, 421},
		{"rebinding deletes", "DELETE", "/v1/documents/x", "", []string{"Host", "attacker.example"}, 421},
		{"a check without add, text/plain: reads only", "POST", "/v1/check", doc, []string{"Content-Type", "text/plain"}, 200},
		{"the page itself", "POST", "/v1/documents", doc, []string{"Content-Type", "application/json", "Origin", base}, 201},
		{"curl", "POST", "/v1/documents", doc, []string{"Content-Type", "application/json"}, 200},
		{"localhost", "GET", "/v1/info", "", []string{"Host", "localhost:" + strings.Split(own, ":")[1]}, 200},
		{"an allowed name", "GET", "/v1/documents/x", "", []string{"Host", "Dedup.Newsroom.Example"}, 200},
		{"the page deletes", "DELETE", "/v1/documents/x", "", []string{"Origin", base}, 204},
	} {
		code, body, _ := send(t, tc.method, base+tc.path, tc.body, tc.header...)
		if code != tc.want {
			t.Errorf("%s: %s %s: %d %s, want %d", tc.name, tc.method, tc.path, code, body, tc.want)
		}
	}
	// What a page can send: nothing it sent was archived.
	if code, _, _ := send(t, "GET", base+"/v1/documents/x", ""); code != 404 {
		t.Errorf("after the writes: GET x: %d, want 404", code)
	}
}

// TestEncoding: invalid UTF-8 and escaped lone surrogates in a body are
// refused naming the field and the byte, never replaced by U+FFFD (IDs
// coll\xff and coll\xfe were one ID); a non-UTF-8 charset is refused; a
// byte-order mark before the body is skipped. Before, all were 201.
func TestEncoding(t *testing.T) {
	s := newTestServer(t, Options{})
	text := fixture(t, "a.txt")
	quoted := js(t, text)
	for _, tc := range []struct {
		name, path, body string
		header           []string
		want             int
		has              string
	}{
		{"id coll\\xff", "/v1/documents", `{"id":"coll` + "\xff" + `","text":` + quoted + `}`, nil, 400, `{"error":"field \"id\": invalid UTF-8 at byte 11 (0xff)`},
		{"id coll\\xfe", "/v1/documents", `{"id":"coll` + "\xfe" + `","text":` + quoted + `}`, nil, 400, `"field":"id"`},
		{"text", "/v1/documents", `{"id":"t","text":"` + "\xc4\xe3\xba\xc3" + `"}`, nil, 400, `{"error":"field \"text\": invalid UTF-8 at byte 18 (0xc4)`},
		{"title", "/v1/check", `{"title":"` + "\xe4\xb8" + `","text":` + quoted + `}`, nil, 400, `"field":"title"`},
		{"compare a.text", "/v1/compare", `{"a":{"text":"ok` + "\x80" + `"},"b":{"text":"ok"}}`, nil, 400, `"field":"a.text"`},
		{"lone high surrogate", "/v1/documents", `{"id":"s\ud800","text":` + quoted + `}`, nil, 400, `{"error":"field \"id\": an escaped lone surrogate (\\ud800) at byte 8`},
		{"lone low surrogate", "/v1/check", `{"text":"\udc00 ` + text[:30] + `"}`, nil, 400, `"field":"text"`},
		{"charset=gbk", "/v1/documents", `{"id":"g","text":` + quoted + `}`, []string{"Content-Type", "application/json; charset=gbk"}, 415, "UTF-8 only"},
		{"a pair", "/v1/documents", `{"id":"emoji\ud83d\ude00","text":` + quoted + `}`, nil, 201, `"id":"emoji😀"`},
		{"an escaped backslash", "/v1/documents", `{"id":"bs\\ud800","text":` + quoted + `}`, nil, 201, `"id":"bs\\ud800"`},
		{"a byte-order mark counted", "/v1/documents", "\xef\xbb\xbf" + `{"id":"coll` + "\xff" + `","text":"x"}`, nil, 400, `invalid UTF-8 at byte 14 (0xff)`},
		{"a byte-order mark", "/v1/documents", "\xef\xbb\xbf" + `{"id":"bom","text":` + quoted + `}`, nil, 201, `"id":"bom"`},
	} {
		w := do(s, "POST", tc.path, tc.body, tc.header...)
		if w.Code != tc.want || !strings.Contains(w.Body.String(), tc.has) {
			t.Errorf("%s: %d %s, want %d with %s", tc.name, w.Code, w.Body, tc.want, tc.has)
		}
	}
	// The batch route refuses such a line and adds the others.
	w := do(s, "POST", "/v1/documents", `{"id":"b1`+"\xff"+`","text":`+quoted+"}\n\xef\xbb\xbf"+`{"id":"b2","text":`+quoted+"}\n", "Content-Type", "application/x-ndjson")
	if want := `{"line":1,"status":400,"error":"field \"id\": invalid UTF-8 at byte 9 (0xff): the API takes UTF-8 only, and never rewrites a byte","field":"id"}` + "\n" +
		`{"line":2,"status":201,"id":"b2","fingerprint":"d6114e778fe93130"}` + "\n"; w.Body.String() != want {
		t.Errorf("batch:\n%s\nwant\n%s", w.Body, want)
	}
}

// TestUnreachableIDs: an ID that GET and DELETE /v1/documents/{id}
// could not reach is refused when added ("." and ".." are cleaned from a
// URL path; an ID escaped to more than MaxPathIDBytes does not fit in a
// request's head). Before, they were added and then unreachable.
func TestUnreachableIDs(t *testing.T) {
	s := newTestServer(t, Options{})
	text := fixture(t, "a.txt")
	long := strings.Repeat("长", MaxPathIDBytes/9+1) // 3 bytes, 9 escaped
	for _, id := range []string{".", "..", long} {
		for _, path := range []string{"/v1/documents", "/v1/check?add=true"} {
			w := do(s, "POST", path, js(t, map[string]string{"id": id, "text": text}))
			if w.Code != 400 || !strings.Contains(w.Body.String(), `"field":"id"`) {
				t.Errorf("POST %s id %.20q: %d %s, want 400 naming the id", path, id, w.Code, w.Body)
			}
		}
	}
	// Checking without adding stores nothing: any ID is fine.
	if w := do(s, "POST", "/v1/check", js(t, map[string]string{"id": "..", "text": text})); w.Code != 200 {
		t.Errorf("check id ..: %d %s", w.Code, w.Body)
	}
	// The longest that fits is added, fetched and deleted.
	fits := strings.Repeat("长", MaxPathIDBytes/9)
	if w := do(s, "POST", "/v1/documents", js(t, map[string]string{"id": fits, "text": text})); w.Code != 201 {
		t.Fatalf("add an id of %d escaped bytes: %d %s", len(url.PathEscape(fits)), w.Code, w.Body)
	}
	base := listen(t, s)
	if code, body, _ := send(t, "GET", base+"/v1/documents/"+url.PathEscape(fits), ""); code != 200 {
		t.Errorf("GET the longest id: %d %.200s", code, body)
	}
	if code, body, _ := send(t, "DELETE", base+"/v1/documents/"+url.PathEscape(fits), ""); code != 204 {
		t.Errorf("DELETE the longest id: %d %.200s", code, body)
	}
}

// TestHardening: the lows of #31 item 6, each failing before: framing
// refused (X-Frame-Options, frame-ancestors), the Bearer scheme in any
// case, titles bounded, passages' texts bounded.
func TestHardening(t *testing.T) {
	s := newTestServer(t, Options{Token: "tok3n", KeepText: true})
	text := fixture(t, "a.txt")
	for _, path := range []string{"/", "/v1/info", "/healthz"} {
		w := do(s, "GET", path, "")
		if w.Header().Get("X-Frame-Options") != "DENY" {
			t.Errorf("GET %s: X-Frame-Options %q, want DENY", path, w.Header().Get("X-Frame-Options"))
		}
	}
	if csp := do(s, "GET", "/", "").Header().Get("Content-Security-Policy"); !strings.Contains(csp, "frame-ancestors 'none'") {
		t.Errorf("the page's CSP %q has no frame-ancestors 'none'", csp)
	}
	doc := js(t, map[string]string{"id": "a", "text": text})
	for _, tc := range []struct {
		auth string
		want int
	}{
		{"Bearer tok3n", 201}, {"bearer tok3n", 200}, {"BEARER  tok3n", 200},
		{"Bearer wrong", 401}, {"Basic tok3n", 401}, {"tok3n", 401}, {"Bearertok3n", 401}, {"", 401},
	} {
		if w := do(s, "POST", "/v1/documents", doc, "Authorization", tc.auth); w.Code != tc.want {
			t.Errorf("Authorization %q: %d %s, want %d", tc.auth, w.Code, w.Body, tc.want)
		}
	}
	// What held (#31), kept: a token in the query string is no token;
	// JSON nested 10,000 deep is a 400, not a crash.
	if w := do(s, "POST", "/v1/documents?access_token=tok3n&token=tok3n", doc); w.Code != 401 {
		t.Errorf("a token in the query string: %d %s, want 401", w.Code, w.Body)
	}
	deep := `{"text":` + strings.Repeat("[", 10000) + strings.Repeat("]", 10000) + "}"
	if w := do(s, "POST", "/v1/check", deep); w.Code != 400 {
		t.Errorf("JSON nested 10,000 deep: %d %.200s, want 400", w.Code, w.Body)
	}
	auth := []string{"Authorization", "Bearer tok3n"}
	title := strings.Repeat("标", MaxTitleBytes/3+1)
	for _, path := range []string{"/v1/documents", "/v1/check"} {
		w := do(s, "POST", path, js(t, map[string]string{"id": "t", "title": title, "text": text}), auth...)
		if w.Code != 400 || !strings.Contains(w.Body.String(), `"field":"title"`) || !strings.Contains(w.Body.String(), "at most 1024") {
			t.Errorf("POST %s with a title of %d bytes: %d %s, want 400 naming the title and the bound", path, len(title), w.Code, w.Body)
		}
	}
	big := strings.Repeat("<", MaxPassageBytes+1)
	if w := do(s, "POST", "/v1/passages", js(t, map[string]string{"id": "a", "text": big})); w.Code != 413 || !strings.Contains(w.Body.String(), `"field":"text"`) {
		t.Errorf("passages with a text of %d bytes: %d %.300s, want 413", len(big), w.Code, w.Body)
	}
	if w := do(s, "POST", "/v1/documents", js(t, map[string]string{"id": "big", "text": text + big}), auth...); w.Code != 201 {
		t.Fatalf("add big: %d %s", w.Code, w.Body)
	}
	if w := do(s, "POST", "/v1/passages", js(t, map[string]string{"id": "big", "text": text})); w.Code != 413 || !strings.Contains(w.Body.String(), `"field":"id"`) {
		t.Errorf("passages against an archived text over the bound: %d %.300s, want 413", w.Code, w.Body)
	}
}

// TestReadTokenRefused: a token file with a second line, a byte-order mark or
// a space inside is refused at start (it could never match a request);
// white space around the token is not part of it. Before, all were
// read as tokens.
func TestReadTokenRefused(t *testing.T) {
	dir := t.TempDir()
	for i, tc := range []struct{ content, token, err string }{
		{"s3cret\n", "s3cret", ""},
		{"  s3cret \r\n", "s3cret", ""},
		{"s3cret\nother\n", "", "more than one line"},
		{"\xef\xbb\xbfs3cret\n", "", "byte-order mark"},
		{"s3 cret", "", "byte 2 (0x20)"},
		{"s3cr\xc3\xa9t", "", "byte 4 (0xc3)"},
		{"\n\n", "", "empty file"},
	} {
		path := filepath.Join(dir, fmt.Sprint(i))
		if err := os.WriteFile(path, []byte(tc.content), 0o600); err != nil {
			t.Fatal(err)
		}
		got, err := ReadToken(path)
		if got != tc.token || (err == nil) != (tc.err == "") || (err != nil && !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("token file %q: %q, %v; want %q, an error with %q", tc.content, got, err, tc.token, tc.err)
		}
	}
}

// stalledStore is a store whose Stats waits, as a Redis store does
// through an outage (its retry window), until its context ends or 30 s
// pass; it records the deadline it was given.
type stalledStore struct {
	*memstore.Store
	mu       sync.Mutex
	stalled  bool
	deadline time.Duration // until the context's deadline, when Stats was called; 0 without one
}

func (s *stalledStore) Stats(ctx context.Context) (index.StoreStats, error) {
	s.mu.Lock()
	stalled := s.stalled
	if dl, ok := ctx.Deadline(); ok && stalled {
		s.deadline = time.Until(dl)
	}
	s.mu.Unlock()
	if !stalled {
		return s.Store.Stats(ctx)
	}
	select {
	case <-ctx.Done():
		return index.StoreStats{}, ctx.Err()
	case <-time.After(30 * time.Second):
		return index.StoreStats{}, fmt.Errorf("cluster unreachable")
	}
}

// TestHealthzOutage: during an outage /healthz gives the archive at
// most healthTimeout (2 s), then answers 503, instead of waiting for the
// store's whole retry window. It checks the deadline handed to the
// store, not the time taken. Before, the store got no deadline.
func TestHealthzOutage(t *testing.T) {
	a := testfixtures.Analyzer(t, "")
	st := &stalledStore{Store: memstore.New()}
	x, err := index.New(t.Context(), st, &index.Options{AnalyzerID: a.ID()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { x.Close() })
	s, err := New(Options{Index: x, Analyzer: a})
	if err != nil {
		t.Fatal(err)
	}
	if w := do(s, "GET", "/healthz", ""); w.Code != 200 {
		t.Fatalf("/healthz: %d %s", w.Code, w.Body)
	}
	st.mu.Lock()
	st.stalled = true
	st.mu.Unlock()
	w := do(s, "GET", "/healthz", "")
	if w.Code != 503 || !strings.Contains(w.Body.String(), "the archive does not answer") {
		t.Errorf("/healthz during an outage: %d %s, want 503", w.Code, w.Body)
	}
	st.mu.Lock()
	dl := st.deadline
	st.mu.Unlock()
	if dl <= 0 || dl > healthTimeout {
		t.Errorf("/healthz gave the store %v to answer, want at most %v", dl, healthTimeout)
	}
}
