package serve

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/neardup/neardup/dedup"
	"github.com/neardup/neardup/index"
	"github.com/neardup/neardup/index/badgerstore"
	"github.com/neardup/neardup/internal/testfixtures"
	"github.com/neardup/neardup/internal/testfixtures/corpora"
)

// sampleTexts returns the texts of the sample corpus committed in
// testdata/sample that are long enough to fingerprint.
func sampleTexts(t testing.TB) []string {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "testdata", "sample", "sample.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var r struct{ Text string }
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		if len(r.Text) > 200 {
			out = append(out, r.Text)
		}
	}
	return out
}

// badgerServer returns a server over a new Badger archive in a temporary
// directory (synced writes, as neardup serve has), and the archive.
func badgerServer(t testing.TB, o Options) (*Server, *index.Index) {
	t.Helper()
	a := testfixtures.Analyzer(t, "")
	x, err := badgerstore.OpenIndex(t.Context(), filepath.Join(t.TempDir(), "archive"), nil, &index.Options{AnalyzerID: a.ID()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { x.Close() })
	o.Index, o.Analyzer = x, a
	s, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	return s, x
}

// loadResult is what a load run saw.
type loadResult struct {
	checks, adds int64
	errors       []string // at most 10
	nerrors      int64
	acked        []string // IDs of the adds answered 201
	latencies    []time.Duration
	elapsed      time.Duration
}

// runLoad sends n requests from clients concurrent clients to the server
// at url: one in five adds a new document (ID prefix and the request's
// number) (a text of texts with its
// request number, so each has its own content), the others check a text
// of texts. Any answer but 200 (check) or 201 (add), and any transport
// error, is an error.
func runLoad(url, prefix string, texts []string, n, clients int) *loadResult {
	var next atomic.Int64
	var mu sync.Mutex
	res := &loadResult{}
	tr := &http.Transport{MaxIdleConnsPerHost: clients}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr, Timeout: time.Minute}
	fail := func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		res.nerrors++
		if len(res.errors) < 10 {
			res.errors = append(res.errors, fmt.Sprintf(format, args...))
		}
	}
	start := time.Now()
	var wg sync.WaitGroup
	for range clients {
		wg.Go(func() {
			var lat []time.Duration
			var acked []string
			var checks, adds int64
			for {
				i := next.Add(1) - 1
				if i >= int64(n) {
					break
				}
				text := texts[int(i)%len(texts)]
				target, want := url+"/v1/check", http.StatusOK
				var body []byte
				id := ""
				if i%5 == 4 {
					id = prefix + strconv.FormatInt(i, 10)
					target, want = url+"/v1/documents", http.StatusCreated
					body, _ = json.Marshal(map[string]string{"id": id, "title": id, "text": strconv.FormatInt(i, 10) + " " + text})
					adds++
				} else {
					body, _ = json.Marshal(map[string]string{"text": text})
					checks++
				}
				t0 := time.Now()
				resp, err := client.Post(target, "application/json", bytes.NewReader(body))
				if err != nil {
					fail("request %d: %v", i, err)
					continue
				}
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				lat = append(lat, time.Since(t0))
				if resp.StatusCode != want {
					fail("request %d: %s: %d %s", i, target, resp.StatusCode, b)
					continue
				}
				if id != "" {
					acked = append(acked, id)
				}
			}
			mu.Lock()
			res.latencies = append(res.latencies, lat...)
			res.acked = append(res.acked, acked...)
			res.checks += checks
			res.adds += adds
			mu.Unlock()
		})
	}
	wg.Wait()
	res.elapsed = time.Since(start)
	return res
}

// percentile returns the p-th percentile (0 to 100) of ds, sorted.
func percentile(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	return ds[min(len(ds)-1, int(float64(len(ds))*p/100))]
}

// loadRequests is the number of requests TestLoad sends:
// NEARDUP_LOAD_REQUESTS, else 2,000 (500 with -short), which keep the
// test within a few seconds on two loaded cores; 20,000 is the figure
// the issue names (see the package's notes in the README).
func loadRequests(t *testing.T) int {
	if v := os.Getenv("NEARDUP_LOAD_REQUESTS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			t.Fatalf("NEARDUP_LOAD_REQUESTS=%q: want a count", v)
		}
		return n
	}
	if testing.Short() {
		return 500
	}
	return 2000
}

// TestLoad runs 16 concurrent clients of mixed checks and adds against a
// server over a Badger archive on loopback: no request fails, and every
// add answered 201 is in the archive afterwards. It stops when the
// requests are sent (a bounded count), and reports the latencies it saw
// without asserting them.
func TestLoad(t *testing.T) {
	s, x := badgerServer(t, Options{KeepText: true})
	hs := httptest.NewServer(s)
	defer hs.Close()
	n := loadRequests(t)
	res := runLoad(hs.URL, "load/", sampleTexts(t), n, 16)
	if res.nerrors > 0 {
		t.Errorf("%d of %d requests failed; the first: %q", res.nerrors, n, res.errors)
	}
	if int(res.checks+res.adds) != n || len(res.acked) != int(res.adds) {
		t.Errorf("%d checks and %d adds sent, %d adds acknowledged; want %d requests", res.checks, res.adds, len(res.acked), n)
	}
	for _, id := range res.acked {
		if _, err := x.Get(t.Context(), id); err != nil {
			t.Errorf("acknowledged add %s: %v", id, err)
		}
	}
	st, err := x.Stats(t.Context())
	if err != nil || st.Docs != int64(len(res.acked)) {
		t.Errorf("the archive holds %d documents (%v), want the %d acknowledged", st.Docs, err, len(res.acked))
	}
	slices.Sort(res.latencies)
	t.Logf("%d requests (%d checks, %d adds) from 16 clients in %v: %.0f requests/s, p50 %v, p99 %v",
		n, res.checks, res.adds, res.elapsed.Round(time.Millisecond), float64(n)/res.elapsed.Seconds(),
		percentile(res.latencies, 50), percentile(res.latencies, 99))
}

// BenchmarkServeLoad is TestLoad's mix as a benchmark: b.N requests from
// 16 clients; it reports requests/s and the p50 and p99 latencies.
func BenchmarkServeLoad(b *testing.B) {
	s, _ := badgerServer(b, Options{KeepText: true})
	hs := httptest.NewServer(s)
	defer hs.Close()
	texts := sampleTexts(b)
	runLoad(hs.URL, "warm/", texts, 200, 16)
	b.ResetTimer()
	res := runLoad(hs.URL, fmt.Sprintf("load-%d/", b.N), texts, max(b.N, 16), 16)
	b.StopTimer()
	if res.nerrors > 0 {
		b.Fatalf("%d requests failed: %q", res.nerrors, res.errors)
	}
	slices.Sort(res.latencies)
	b.ReportMetric(float64(len(res.latencies))/res.elapsed.Seconds(), "req/s")
	b.ReportMetric(float64(percentile(res.latencies, 50).Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(percentile(res.latencies, 99).Microseconds())/1000, "p99-ms")
}

// zhArticle returns the zh_news article closest to 5,000 bytes and the
// first 2,000 articles of the corpus (read from the shared corpora,
// which are not committed).
func zhArticle(b *testing.B) (string, []string) {
	dir := corpora.Require(b, "zh_news.jsonl.gz")
	f, err := os.Open(filepath.Join(dir, "zh_news.jsonl.gz"))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		b.Fatal(err)
	}
	sc := bufio.NewScanner(zr)
	sc.Buffer(nil, 1<<24)
	var texts []string
	best := ""
	for sc.Scan() {
		var r struct{ Text string }
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			b.Fatal(err)
		}
		if len(texts) < 2000 {
			texts = append(texts, r.Text)
		}
		if d := len(r.Text) - 5000; d >= 0 && (best == "" || d < len(best)-5000) {
			best = r.Text
		}
	}
	return best, texts
}

// BenchmarkCheckOverhead measures a check of a 5 KB Chinese article
// against a warm archive of 2,000 zh_news articles, through HTTP on
// loopback (POST /v1/check) and in process (Analyze + Similar), in the
// same run; it reports the p50 and p99 of each and the HTTP overhead of
// the medians. To tell where the difference goes it also times, in the
// same rounds: Analyze + dedup.Check + the report's JSON in process; the
// server's handler on a recorder; the same work in a bare net/http
// handler; a bare net/http POST of the same body (the machine's floor);
// a 404 of the server; and the check from a client in a process of its
// own.
func BenchmarkCheckOverhead(b *testing.B) {
	article, texts := zhArticle(b)
	s, x := badgerServer(b, Options{})
	a := s.o.Analyzer
	var docs []index.Doc
	for i, t := range texts {
		an, err := a.Analyze(t)
		if err != nil {
			continue
		}
		d := dedup.DocOf(an, "zh/"+strconv.Itoa(i), "", DefaultKeywords)
		docs = append(docs, d)
	}
	if err := x.Add(b.Context(), docs...); err != nil {
		b.Fatal(err)
	}
	hs := httptest.NewServer(s)
	defer hs.Close()
	body, _ := json.Marshal(map[string]string{"text": article})
	client := &http.Client{}
	viaHTTP := func() time.Duration {
		t0 := time.Now()
		resp, err := client.Post(hs.URL+"/v1/check", "application/json", bytes.NewReader(body))
		if err != nil {
			b.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			b.Fatalf("status %d", resp.StatusCode)
		}
		return time.Since(t0)
	}
	// The floor: a request that touches neither the analyzer nor the
	// archive (404, a JSON error).
	floor := func() time.Duration {
		t0 := time.Now()
		resp, err := client.Get(hs.URL + "/v1/nothing")
		if err != nil {
			b.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return time.Since(t0)
	}
	inProcess := func() time.Duration {
		t0 := time.Now()
		an, err := a.Analyze(article)
		if err != nil {
			b.Fatal(err)
		}
		d := dedup.DocOf(an, "", "", DefaultKeywords)
		if _, err := x.Similar(b.Context(), &d, index.DefaultMaxDistance); err != nil {
			b.Fatal(err)
		}
		return time.Since(t0)
	}
	// What the handler calls, in process: Analyze, then dedup.Check (its
	// own-id lookup and the matches' keywords besides Similar), and the
	// report it encodes; what is left of the HTTP time is net/http,
	// JSON and the loopback.
	inProcessCheck := func() time.Duration {
		t0 := time.Now()
		an, err := a.Analyze(article)
		if err != nil {
			b.Fatal(err)
		}
		d := dedup.DocOf(an, "", "", DefaultKeywords)
		res, err := dedup.Check(b.Context(), x, &d, index.DefaultMaxDistance, false)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := json.Marshal(res.Report("", an)); err != nil {
			b.Fatal(err)
		}
		return time.Since(t0)
	}
	// The machine's floor: the same POST to a bare net/http handler that
	// reads the body and answers a short JSON object, on its own
	// loopback server; what net/http, the loopback and the client cost
	// here, whatever the handler.
	hello := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"ok":true}`+"\n")
	}))
	defer hello.Close()
	viaHello := func() time.Duration {
		t0 := time.Now()
		resp, err := client.Post(hello.URL, "application/json", bytes.NewReader(body))
		if err != nil {
			b.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return time.Since(t0)
	}
	// The same work in a bare net/http handler: it reads the body
	// without decoding it and does what inProcessCheck does, in a server
	// goroutine; against it, the HTTP time less the serve package's own
	// (routing, JSON decoding, metrics, headers).
	bare := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		an, err := a.Analyze(article)
		if err != nil {
			http.Error(w, err.Error(), 500)
			return
		}
		d := dedup.DocOf(an, "", "", DefaultKeywords)
		res, err := dedup.Check(r.Context(), x, &d, index.DefaultMaxDistance, false)
		if err != nil {
			http.Error(w, err.Error(), 500)
			return
		}
		j, _ := json.Marshal(res.Report("", an))
		w.Write(j)
	}))
	defer bare.Close()
	viaBare := func() time.Duration {
		t0 := time.Now()
		resp, err := client.Post(bare.URL, "application/json", bytes.NewReader(body))
		if err != nil {
			b.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			b.Fatalf("status %d", resp.StatusCode)
		}
		return time.Since(t0)
	}
	// The server's handler without the network: ServeHTTP on a
	// recorder, so that its share (body, JSON both ways, metrics) is
	// told apart from net/http's.
	viaHandler := func() time.Duration {
		t0 := time.Now()
		req := httptest.NewRequest(http.MethodPost, "/v1/check", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, req)
		if rec.Code != 200 {
			b.Fatalf("status %d", rec.Code)
		}
		return time.Since(t0)
	}
	// The same check from a client in a process of its own (the test
	// binary again, see TestMain), so that the client's CPU and garbage
	// are not the server's; it sends a request for each line it reads
	// and answers with the time it took.
	bodyFile := filepath.Join(b.TempDir(), "body.json")
	if err := os.WriteFile(bodyFile, body, 0o644); err != nil {
		b.Fatal(err)
	}
	cmd := exec.CommandContext(b.Context(), os.Args[0])
	cmd.Env = append(os.Environ(), "NEARDUP_BENCH_CLIENT="+hs.URL+"/v1/check", "NEARDUP_BENCH_BODY="+bodyFile)
	cmd.Stderr = os.Stderr
	toClient, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	fromClient, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() {
		toClient.Close()
		if err := cmd.Wait(); err != nil {
			b.Errorf("the client process: %v", err)
		}
	}()
	clientOut := bufio.NewScanner(fromClient)
	viaProcess := func() time.Duration {
		if _, err := io.WriteString(toClient, "go\n"); err != nil {
			b.Fatal(err)
		}
		if !clientOut.Scan() {
			b.Fatalf("the client process ended: %v", clientOut.Err())
		}
		n, err := strconv.ParseInt(clientOut.Text(), 10, 64)
		if err != nil {
			b.Fatalf("the client process wrote %q", clientOut.Text())
		}
		return time.Duration(n)
	}
	for range 20 { // warm up
		viaProcess()
		viaHTTP()
		inProcess()
		inProcessCheck()
		viaHello()
		viaHandler()
		viaBare()
	}
	var h, p, pc, f, hl, hd, ext, br []time.Duration
	// Each round times every way once, in an order of its own (a fixed
	// seed), so that none always follows the same other: what ran just
	// before (a network wait, the same analysis) changes the caches a
	// measurement starts with.
	ways := []struct {
		time func() time.Duration
		ds   *[]time.Duration
	}{{viaProcess, &ext}, {viaHTTP, &h}, {viaBare, &br}, {inProcess, &p}, {inProcessCheck, &pc}, {floor, &f}, {viaHello, &hl}, {viaHandler, &hd}}
	rng := rand.New(rand.NewPCG(16, 16))
	b.ResetTimer()
	for range b.N {
		for _, i := range rng.Perm(len(ways)) {
			*ways[i].ds = append(*ways[i].ds, ways[i].time())
		}
	}
	b.StopTimer()
	for _, ds := range [][]time.Duration{h, p, pc, f, hl, hd, ext, br} {
		slices.Sort(ds)
	}
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	b.ReportMetric(ms(percentile(h, 50)), "http-p50-ms")
	b.ReportMetric(ms(percentile(h, 99)), "http-p99-ms")
	b.ReportMetric(ms(percentile(p, 50)), "inproc-p50-ms")
	b.ReportMetric(ms(percentile(p, 99)), "inproc-p99-ms")
	b.ReportMetric(ms(percentile(f, 50)), "floor-p50-ms")
	b.ReportMetric(100*(float64(percentile(h, 50))/float64(percentile(p, 50))-1), "overhead-%")
	b.ReportMetric(float64(len(article)), "article-bytes")
	b.ReportMetric(ms(percentile(pc, 50)), "inproc-check-p50-ms")
	b.ReportMetric(100*(float64(percentile(h, 50))/float64(percentile(pc, 50))-1), "overhead-vs-check-%")
	b.ReportMetric(ms(percentile(hl, 50)), "hello-p50-ms")
	b.ReportMetric(ms(percentile(hd, 50)), "handler-p50-ms")
	// The handler's own share: ServeHTTP on a recorder against what it
	// calls in process.
	b.ReportMetric(100*(float64(percentile(hd, 50))/float64(percentile(pc, 50))-1), "handler-vs-check-%")
	// The machine's share: a bare net/http POST of the same body.
	b.ReportMetric(100*float64(percentile(hl, 50))/float64(percentile(p, 50)), "hello-vs-inproc-%")
	b.ReportMetric(ms(percentile(br, 50)), "bare-p50-ms")
	// What the serve package adds to a bare net/http server doing the
	// same work.
	b.ReportMetric(100*(float64(percentile(h, 50))/float64(percentile(br, 50))-1), "serve-vs-bare-%")
	b.ReportMetric(100*(float64(percentile(br, 50))/float64(percentile(pc, 50))-1), "bare-vs-check-%")
	b.ReportMetric(ms(percentile(ext, 50)), "ext-http-p50-ms")
	b.ReportMetric(100*(float64(percentile(ext, 50))/float64(percentile(p, 50))-1), "ext-overhead-%")
}
