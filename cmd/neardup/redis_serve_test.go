//go:build unix

package main

import (
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/neardup/neardup/internal/redistest"
)

// serveCall is one request to a serve process and the answer it wants.
type serveCall struct {
	method, path, body string
	header             []string // name, value, ...
	status             int
}

// do sends the call to the server at url (ending in "/") and returns
// the answer's body, failing unless its status is the one wanted.
func (sc serveCall) do(t *testing.T, url string) []byte {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), sc.method, url+strings.TrimPrefix(sc.path, "/"), strings.NewReader(sc.body))
	if err != nil {
		t.Fatal(err)
	}
	if sc.method == http.MethodPost {
		req.Header.Set("Content-Type", "application/json") // what a write needs; header may change it
	}
	for i := 0; i+1 < len(sc.header); i += 2 {
		req.Header.Set(sc.header[i], sc.header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", sc.method, sc.path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: reading the answer: %v", sc.method, sc.path, err)
	}
	if resp.StatusCode != sc.status {
		t.Fatalf("%s %s: %d %s; want %d", sc.method, sc.path, resp.StatusCode, b, sc.status)
	}
	return b
}

// testRedisServe: neardup serve --index redis://.../NAME answers every
// route over a Redis archive (check, add, replace, get, delete, an
// ndjson batch, /v1/info, /metrics), and what it adds is in the shared
// archive for another process (neardup check). With ?wait_replicas=1
// on a cluster without replicas no add is acknowledged: the answer is
// 500 naming the replicas that did not acknowledge it, though the
// masters did write it (WAIT undoes nothing).
func testRedisServe(t *testing.T, c *redistest.Cluster) {
	url := c.URL(redistest.Name(t))
	tokenFile := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(tokenFile, []byte("s3cret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	a, b, cc := read("a.txt"), read("b.txt"), read("c.txt")
	js := func(v any) string {
		out, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		return string(out)
	}
	auth := []string{"Authorization", "Bearer s3cret"}
	s := startServe(t, "--index", url, "--token-file", tokenFile)
	if !strings.Contains(s.log(), "(archive "+url+", 0 documents)") {
		t.Errorf("serve's first line does not name the Redis archive: %s", s.log())
	}

	var check struct {
		Verdict string `json:"verdict"`
		Matches []struct {
			ID     string   `json:"id"`
			Title  string   `json:"title"`
			Shared []string `json:"shared_keywords"`
		} `json:"matches"`
	}
	body := serveCall{"POST", "/v1/check", js(map[string]string{"text": b}), nil, 200}.do(t, s.url)
	if err := json.Unmarshal(body, &check); err != nil || check.Verdict != "new" || len(check.Matches) != 0 {
		t.Fatalf("check of b.txt in an empty archive: %s", body)
	}
	serveCall{"POST", "/v1/documents", js(map[string]string{"id": "a", "title": "A", "text": a}), nil, 401}.do(t, s.url)
	body = serveCall{"POST", "/v1/documents", js(map[string]string{"id": "a", "title": "A", "text": a}), auth, 201}.do(t, s.url)
	var added struct {
		ID, Fingerprint string
		Replaced        bool
	}
	if err := json.Unmarshal(body, &added); err != nil || added.ID != "a" || len(added.Fingerprint) != 16 || added.Replaced {
		t.Fatalf("add a: %s", body)
	}
	body = serveCall{"POST", "/v1/documents", js(map[string]string{"id": "a", "title": "A", "text": a}), auth, 200}.do(t, s.url)
	if err := json.Unmarshal(body, &added); err != nil || !added.Replaced {
		t.Fatalf("add a again: %s; want replaced", body)
	}
	body = serveCall{"POST", "/v1/check", js(map[string]string{"text": b}), nil, 200}.do(t, s.url)
	if err := json.Unmarshal(body, &check); err != nil || check.Verdict != "duplicate" || len(check.Matches) != 1 ||
		check.Matches[0].ID != "a" || check.Matches[0].Title != "A" || len(check.Matches[0].Shared) == 0 {
		t.Fatalf("check of b.txt with a.txt archived: %s; want a duplicate of a, titled A, with shared keywords", body)
	}
	body = serveCall{"GET", "/v1/documents/a", "", nil, 200}.do(t, s.url)
	var doc struct {
		ID, Title, Text string
		TextKept        bool `json:"text_kept"`
	}
	if err := json.Unmarshal(body, &doc); err != nil || doc.ID != "a" || doc.Title != "A" || !doc.TextKept || doc.Text != a {
		t.Fatalf("GET a: %.200s; want a.txt with its text", body)
	}

	// A batch: one line added, one malformed, one replaced.
	batch := js(map[string]string{"id": "c", "text": cc}) + "\n" + `{"id": "broken", "text": ` + "\n" + js(map[string]string{"id": "a", "title": "A2", "text": a}) + "\n"
	body = serveCall{"POST", "/v1/documents", batch, append([]string{"Content-Type", "application/x-ndjson"}, auth...), 200}.do(t, s.url)
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(string(body)), "\n") {
		var p struct {
			Line, Status int
			ID           string
		}
		if err := json.Unmarshal([]byte(l), &p); err != nil {
			t.Fatalf("batch answer line %q: %v", l, err)
		}
		lines = append(lines, js([]any{p.Line, p.Status, p.ID}))
	}
	if got, want := strings.Join(lines, " "), `[1,201,"c"] [2,400,""] [3,200,"a"]`; got != want {
		t.Errorf("batch answers (line, status, id): %s; want %s\n%s", got, want, body)
	}

	// Another process reads the same archive.
	if r := runCLI(t, "check", "--index", url, "testdata/b.txt"); r.code != 1 || !strings.Contains(r.stdout, "A2") {
		t.Errorf("neardup check --index %s testdata/b.txt: exit %d: %s%s; want the match a, titled A2 by the batch", url, r.code, r.stdout, r.stderr)
	}

	var info struct{ Documents int64 }
	body = serveCall{"GET", "/v1/info", "", nil, 200}.do(t, s.url)
	if err := json.Unmarshal(body, &info); err != nil || info.Documents != 2 {
		t.Errorf("/v1/info: %s; want 2 documents", body)
	}
	body = serveCall{"GET", "/metrics", "", nil, 200}.do(t, s.url)
	if !strings.Contains(string(body), "\nneardup_archive_documents 2\n") {
		t.Errorf("/metrics does not count the 2 documents: %s", body)
	}
	serveCall{"DELETE", "/v1/documents/a", "", nil, 401}.do(t, s.url)
	serveCall{"DELETE", "/v1/documents/a", "", auth, 204}.do(t, s.url)
	serveCall{"DELETE", "/v1/documents/a", "", auth, 404}.do(t, s.url)
	serveCall{"GET", "/v1/documents/a", "", nil, 404}.do(t, s.url)
	body = serveCall{"GET", "/metrics", "", nil, 200}.do(t, s.url)
	if !strings.Contains(string(body), "\nneardup_archive_documents 1\n") {
		t.Errorf("/metrics after the delete does not count 1 document: %s", body)
	}

	// wait_replicas=1 without replicas: nothing can acknowledge an add.
	w := startServe(t, "--index", url+"?wait_replicas=1&wait_timeout=100ms", "--token-file", tokenFile)
	body = serveCall{"POST", "/v1/documents", js(map[string]string{"id": "w", "text": a}), auth, 500}.do(t, w.url)
	if !strings.Contains(string(body), "0 of 1 replicas acknowledged the writes within 100ms") {
		t.Errorf("add with wait_replicas=1 and no replica: %s; want the WAIT error", body)
	}
	// Not acknowledged is not undone: the masters executed the write
	// before WAIT timed out, so w is there, and sending it again to a
	// server that does not wait replaces it.
	serveCall{"GET", "/v1/documents/w", "", nil, 200}.do(t, s.url)
	serveCall{"POST", "/v1/documents", js(map[string]string{"id": "w", "text": a}), auth, 200}.do(t, s.url)
	for _, p := range []*server{s, w} {
		p.cmd.Process.Signal(syscall.SIGTERM)
		if code := p.wait(t); code != 0 || !strings.Contains(p.log(), "neardup serve: stopped; archive ") {
			t.Errorf("serve after SIGTERM: exit %d: %s", code, p.log())
		}
	}
}
